"""``python -m bot bench storage``: how many moves per second the storage takes.

Creates ``--games`` games (default 200) in a fresh SQLite file in a temporary directory,
opened as ``bot/tg/io/app.py`` opens it (WAL, ``synchronous=FULL``, the default busy timeout,
the same thread switch interval), starts them and stores ``--moves`` moves (default
20,000) for all games at once: one asyncio task per game, each storing its game's moves
one after another as the bot does (``append_action`` with the record, snapshot, score-sheet
rows and outcome ``bot/tg/rooms/table.py`` ``_commit`` stores for a real game: random legal moves
played with the engine).  Prints moves per second, the latency of one append (p50, p95,
max: the time a press waits for its move to be stored, queueing included), and for SQLite
the statements and the trips to aiosqlite's thread per move (measured on a separate, short
run with SQLite's trace callback on, so they do not slow the timed run).

``--compare`` runs the same with one move at a time (each move its own transaction and
COMMIT: no group commit) and on the code path ``append_action`` had before issue 12 (a
transaction of ~5 statements, each its own trip to aiosqlite's thread), kept here only to
measure against.  ``--database-url URL`` runs against another backend through
``storage.open_storage(database_url=URL)`` (games are created in that database).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import aiosqlite

from bot.config import Settings
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase
from bot.tg.model import (
    BY_COMPUTER,
    BY_HUMAN,
    SeatInfo,
    move_record,
    seats_json,
    sheet_row,
    snapshot,
)
from storage import Outcome, StatusConflict, Storage, StorageError, VersionConflict
from storage.sqlite.games import finish, require_game

TURN_TIMEOUT = 120.0
HUMAN_SEAT = 0  # one person and two computer players, the common table


class BenchStorage(Protocol):
    """What the bench needs of a storage backend."""

    async def upsert_chat(self, chat_id: int, kind: Any, *, language: Any = ...) -> Any: ...

    async def upsert_user(self, user_id: int, first_name: str, username: str | None = ...,
                          *, language: Any = ...) -> Any: ...

    async def create_game(self, chat_id: int, creator_id: int, *, rules: str, seed: int,
                          seats: str, lobby_code: str | None = ...,
                          deadline: float | None = ...) -> int: ...

    async def start_game(self, game_id: int, expected_lobby_rev: int, *, snapshot: str,
                         deadline: float | None, seats: str | None = ...,
                         rules: str | None = ...) -> None: ...

    async def append_action(self, game_id: int, expected_version: int, action: str,
                            snapshot: str, *, deadline: float | None,
                            sheet_rows: Iterable[tuple[int, str]] = ...,
                            outcome: Outcome | None = ..., human: bool = ...) -> int: ...

    async def close(self) -> None: ...


class BenchError(Exception):
    """A bench that cannot run (printed without a traceback)."""


# --------------------------------------------------------------------------- the games


@dataclass(frozen=True, slots=True)
class Move:
    """One stored move, as ``_commit`` passes it to ``append_action``."""

    action: str
    snapshot: str
    to_human: bool  # the next turn is the person's: a deadline is set
    sheet_rows: tuple[tuple[int, str], ...]
    outcome: Outcome | None
    human: bool


@dataclass(frozen=True, slots=True)
class Script:
    rules: str
    seed: int
    start: str  # the snapshot start_game stores
    moves: tuple[Move, ...]


def play_script(seed: int, length: int, players: int = 3) -> Script:
    """A real game: ``length`` random legal moves (fewer if it ends), stored as the bot
    stores them."""
    rules = make_rules("classic", players=players)
    state = new_game(rules, seed=seed)
    rng = random.Random(seed)
    moves: list[Move] = []
    while len(moves) < length and state.phase != Phase.GAME_OVER:
        seat = state.to_act
        action = rng.choice(legal_actions(state))
        after = apply(state, action)
        rows = tuple((r.number, json.dumps(sheet_row(r)))
                     for r in after.history[len(state.history):])
        outcome = None
        if after.phase == Phase.GAME_OVER:
            outcome = Outcome(winner_seat=after.winner if after.winner >= 0 else None,
                              totals=json.dumps(list(after.totals)))
        by = BY_HUMAN if seat == HUMAN_SEAT else BY_COMPUTER
        moves.append(Move(move_record(seat, str(action), by), snapshot(after),
                          after.to_act == HUMAN_SEAT and outcome is None, rows, outcome,
                          by == BY_HUMAN))
        state = after
    return Script(rules.model_dump_json(), seed, snapshot(new_game(rules, seed=seed)),
                  tuple(moves))


def _seats(players: int) -> str:
    seats = [SeatInfo("human", 1, "Alice", "hard")]
    seats += [SeatInfo("computer", 0, f"Bot {i}", "hard") for i in range(1, players)]
    return seats_json(seats)


# --------------------------------------------------------------------------- probes


@dataclass
class Probe:
    """Counts the functions queued to aiosqlite's thread (a wrapper on the connection's
    ``_execute``: measurement only) and, with ``trace``, the statements SQLite runs (its
    trace callback; a trigger's run shows as its statement once more)."""

    db: aiosqlite.Connection
    trace: bool = True
    statements: Counter[str] = field(default_factory=Counter)
    hops: int = 0

    async def __aenter__(self) -> Probe:
        def trace(sql: str) -> None:  # aiosqlite's thread
            self.statements[sql.split(None, 1)[0].upper()] += 1

        if self.trace:
            await self.db.set_trace_callback(trace)
        execute = cast(Callable[..., Awaitable[Any]], self.db._execute)

        async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.hops += 1
            return await execute(fn, *args, **kwargs)

        self.db._execute = counting  # type: ignore[method-assign]
        return self

    async def __aexit__(self, *exc: object) -> None:
        del self.db._execute  # back to the class's method
        if self.trace:
            await self.db.set_trace_callback(None)  # type: ignore[arg-type]

    def reset(self) -> None:
        self.statements.clear()
        self.hops = 0


def _connection(store: object) -> aiosqlite.Connection | None:
    db = getattr(store, "_db", None)
    return db if isinstance(db, aiosqlite.Connection) else None


# --------------------------------------------------------------------------- the old path

Append = Callable[..., Awaitable[int]]


def stepwise_append(store: Storage) -> Append:
    """``append_action`` as it was before issue 12: read the game, then INSERT, UPDATE,
    sheet rows and outcome, each statement a trip to aiosqlite's thread (for ``--compare``
    only; it reuses the Storage's connection object, ``storage.sqlite.connection``)."""
    db = store._database

    async def append(game_id: int, expected_version: int, action: str, snap: str, *,
                     deadline: float | None, sheet_rows: Iterable[tuple[int, str]] = (),
                     outcome: Outcome | None = None, human: bool = False) -> int:
        rows = list(sheet_rows)
        async with db.write() as now:
            game = await require_game(db, game_id)
            if game.status != "playing":
                raise StatusConflict(game_id, game.status, ("playing",))
            if game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            new_version = game.version + 1
            await db.execute(
                "INSERT INTO game_actions (game_id, seq, action, created) VALUES (?, ?, ?, ?)",
                (game_id, new_version, action, now))
            await db.update_one(
                f"game {game_id}",
                "UPDATE games SET version = ?, snapshot = ?, deadline = ?, updated = ?,"
                " human_moved = CASE WHEN ? THEN ? ELSE human_moved END"
                " WHERE game_id = ? AND version = ?",
                (new_version, snap, deadline, now, int(human), now, game_id, game.version))
            for deal_no, data in rows:
                await db.execute(
                    "INSERT INTO score_sheets (game_id, deal_no, data, created, seq)"
                    " VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data",
                    (game_id, deal_no, data, now, new_version))
            if outcome is not None:
                await finish(db, game_id, outcome, now)
        return new_version

    return append


def one_at_a_time(store: BenchStorage) -> Append:
    """``append_action`` called by one caller at a time: each move its own transaction and
    COMMIT (what group commit saves; for ``--compare``)."""
    lock = asyncio.Lock()

    async def append(*args: Any, **kwargs: Any) -> int:
        async with lock:
            return await store.append_action(*args, **kwargs)

    return append


# --------------------------------------------------------------------------- the run


@dataclass
class Result:
    label: str
    moves: int
    seconds: float
    latencies: list[float]
    per_move: dict[str, float] = field(default_factory=dict)  # "statements", "hops"
    kinds: dict[str, float] = field(default_factory=dict)
    upsert: tuple[int, int] | None = None  # statements, hops of an unchanged upsert_user
    load_hops: int | None = None  # thread hops during the timed run

    def lines(self) -> list[str]:
        lat = sorted(self.latencies)
        p50 = statistics.median(lat) if lat else 0.0
        p95 = lat[min(len(lat) - 1, int(0.95 * len(lat)))] if lat else 0.0
        out = [f"{self.label}:",
               f"  {self.moves} moves in {self.seconds:.2f} s = "
               f"{self.moves / self.seconds:,.0f} moves/s",
               f"  one append: p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, "
               f"max {(lat[-1] if lat else 0.0) * 1000:.1f} ms"]
        if self.load_hops is not None:
            out.append(f"  under load: {self.load_hops / self.moves:.3f} thread hops a move "
                       f"({self.moves / max(self.load_hops, 1):.1f} moves a trip)")
        if self.per_move:
            kinds = ", ".join(f"{k} {v:.2f}" for k, v in sorted(self.kinds.items()))
            out.append(f"  one game alone, per move: {self.per_move['statements']:.2f} "
                       f"statements ({kinds}), {self.per_move['hops']:.2f} thread hops")
        else:
            out.append("  statements and thread hops: not measured for this backend")
        if self.upsert is not None:
            out.append(f"  an unchanged upsert_user: {self.upsert[0]} statements, "
                       f"{self.upsert[1]} thread hops")
        return out


async def _new_games(store: BenchStorage, scripts: Sequence[Script], base: int,
                     players: int) -> list[int]:
    seats = _seats(players)
    await store.upsert_user(1, "Alice")
    ids: list[int] = []
    for i, script in enumerate(scripts):
        chat_id = -(base + i)
        await store.upsert_chat(chat_id, "group")
        game_id = await store.create_game(chat_id, 1, rules=script.rules, seed=script.seed,
                                          seats=seats)
        await store.start_game(game_id, 0, snapshot=script.start,
                               deadline=time.time() + TURN_TIMEOUT)
        ids.append(game_id)
    return ids


async def _play(append: Append, game_id: int, script: Script, latencies: list[float]) -> int:
    for version, move in enumerate(script.moves):
        deadline = time.time() + TURN_TIMEOUT if move.to_human else None
        t0 = time.perf_counter()
        stored = await append(game_id, version, move.action, move.snapshot, deadline=deadline,
                              sheet_rows=move.sheet_rows, outcome=move.outcome,
                              human=move.human)
        latencies.append(time.perf_counter() - t0)
        if stored != version + 1:
            raise BenchError(f"game {game_id}: stored version {stored}, expected {version + 1}")
    return len(script.moves)


async def _probe(store: BenchStorage, append: Append, script: Script, base: int,
                 players: int, result: Result, upsert: bool) -> None:
    db = _connection(store)
    if db is None:
        return
    (game_id,) = await _new_games(store, [script], base, players)
    async with Probe(db) as probe:
        moves = await _play(append, game_id, script, [])
        total = sum(probe.statements.values())
        result.per_move = {"statements": total / moves, "hops": probe.hops / moves}
        result.kinds = {k: v / moves for k, v in probe.statements.items()}
        if upsert:
            probe.reset()
            await store.upsert_user(1, "Alice")  # as stored by _new_games: nothing changed
            result.upsert = (sum(probe.statements.values()), probe.hops)


Opener = Callable[[], Awaitable[BenchStorage]]


async def run_one(label: str, opener: Opener, scripts: Sequence[Script], probe: Script,
                  players: int, path: str = "now") -> Result:
    """``path``: "now" (``append_action``), "alone" (one move at a time), "before"."""
    store = await opener()
    try:
        append: Append = store.append_action
        if path == "alone":
            append = one_at_a_time(store)
        elif path == "before":
            assert isinstance(store, Storage)
            append = stepwise_append(store)
        base = 10**12 + random.randrange(10**9) * 1000  # fresh chat ids in a shared database
        ids = await _new_games(store, scripts, base, players)
        latencies: list[float] = []
        db = _connection(store)
        hops = Probe(db, trace=False) if db is not None else None
        if hops is not None:
            await hops.__aenter__()
        t0 = time.perf_counter()
        counts = await asyncio.gather(*(_play(append, game_id, script, latencies)
                                        for game_id, script in zip(ids, scripts, strict=True)))
        seconds = time.perf_counter() - t0
        if hops is not None:
            await hops.__aexit__()
        result = Result(label, sum(counts), seconds, latencies,
                        load_hops=None if hops is None else hops.hops)
        await _probe(store, append, probe, base + len(scripts), players, result, path == "now")
        return result
    finally:
        await store.close()


def sqlite_opener(path: Path) -> Opener:
    """Open the database as the bot does (``bot/tg/io/app.py``)."""

    async def opener() -> BenchStorage:
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0002))
        busy = Settings.model_fields["database_busy_timeout"].default
        return await Storage.open(path, busy_timeout=float(busy))

    return opener


def url_opener(database_url: str) -> Opener:
    """A backend from ``storage.open_storage(database_url=...)``."""
    import storage

    open_storage = getattr(storage, "open_storage", None)
    if open_storage is None:
        raise BenchError("--database-url needs storage.open_storage(database_url=...), which "
                         "this version of the storage package does not have")

    async def opener() -> BenchStorage:
        store = open_storage(database_url=database_url)
        if inspect.isawaitable(store):
            store = await store
        return store  # type: ignore[no-any-return]

    return opener


def bench_storage(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench storage")
    parser.add_argument("--games", type=int, default=200, help="games played at once")
    parser.add_argument("--moves", type=int, default=20_000, help="moves stored in all")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", action="store_true",
                        help="also run the append_action code path from before issue 12")
    parser.add_argument("--database-url", metavar="URL",
                        help="another backend (storage.open_storage); default: a fresh SQLite "
                             "file in a temporary directory")
    args = parser.parse_args(argv)
    if args.games < 1 or args.moves < args.games:
        parser.error("need at least one game and one move per game")
    per_game = args.moves // args.games
    t0 = time.perf_counter()
    scripts = [play_script(args.seed * 1_000_003 + i, per_game, args.players)
               for i in range(args.games)]
    probe = play_script(args.seed * 1_000_003 - 1, min(per_game, 200), args.players)
    made = time.perf_counter() - t0
    sheet = sum(len(m.sheet_rows) for s in scripts for m in s.moves)
    ends = sum(m.outcome is not None for s in scripts for m in s.moves)
    size = sum(len(m.action) + len(m.snapshot) for s in scripts for m in s.moves)
    moves = sum(len(s.moves) for s in scripts)
    print(f"storage benchmark: {args.games} games x up to {per_game} moves "
          f"({moves} moves, {sheet} score-sheet rows, {ends} game ends; record + snapshot "
          f"{size / max(moves, 1):.0f} bytes a move; games played in {made:.1f} s)")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
            runs: list[tuple[str, Opener, str]] = []
            if args.database_url:
                runs.append((f"append_action on {args.database_url.split(':', 1)[0]}",
                             url_opener(args.database_url), "now"))
            else:
                runs.append(("append_action (SQLite, WAL, synchronous=FULL)",
                             sqlite_opener(Path(tmp) / "now.sqlite3"), "now"))
                if args.compare:
                    runs.append(("append_action, one move at a time (no group commit)",
                                 sqlite_opener(Path(tmp) / "alone.sqlite3"), "alone"))
                    runs.append(("before issue 12 (a transaction a move, a trip a statement)",
                                 sqlite_opener(Path(tmp) / "before.sqlite3"), "before"))
            for label, opener, path in runs:
                result = asyncio.run(run_one(label, opener, scripts, probe, args.players, path))
                print("\n".join(result.lines()))
    except (BenchError, StorageError) as e:
        print(f"bench storage: {e}", file=sys.stderr)
        return 2
    return 0
