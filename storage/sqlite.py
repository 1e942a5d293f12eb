"""The aiosqlite repository.

One :class:`Storage` (one aiosqlite connection) per process.  Every public
operation runs under an :class:`asyncio.Lock`, so two coroutines never
interleave statements on the connection; every write runs in one explicit
``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction that is rolled back on any error
(cancellation included), so an operation either writes everything or nothing.
An operation that returned has been committed to the database file
(``journal_mode=WAL``, ``synchronous=FULL``).

A stored move is one plain-sqlite3 function run on aiosqlite's thread (one trip), and moves
that wait meanwhile share the next COMMIT (``_flush_moves``); an unchanged
``upsert_user``/``upsert_chat`` does not touch the database (``docs/storage.md``, *One
transaction per move*).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import sqlite3
import stat
import threading
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Concatenate, Final, ParamSpec, Self, TypeVar, cast

import aiosqlite

from storage.base import Opening
from storage.errors import (
    ActiveGameConflict,
    LobbyCodeTaken,
    NotFound,
    SchemaTooNew,
    StatusConflict,
    StorageBusy,
    StorageClosed,
    StorageDiskError,
    StorageFailure,
    StorageReadOnly,
    VersionConflict,
)
from storage.models import (
    ACTIVE_STATUSES,
    CHAT_KINDS,
    LANGUAGES,
    Chat,
    ChatKind,
    Game,
    GameResult,
    GameStatus,
    Language,
    Outcome,
    PlayerStats,
    Pragmas,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)
from storage.schema import MIGRATIONS, Migration

__all__ = ["MEMORY", "RECORD_FORMAT", "Storage"]

LOG = logging.getLogger(__name__)

MEMORY: Final = ":memory:"
"""Pass as the path to get a private in-memory database (for tests)."""

RECORD_FORMAT: Final = "thousand-record/1"
"""The format ``export_game`` writes (``docs/record-format.md``)."""

_REASON_MAX: Final = 4000
"""``mark_broken``/``expire_game`` keep at most this many characters of the reason."""

# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_BUSY: Final = 5
_SQLITE_LOCKED: Final = 6
_SQLITE_READONLY: Final = 8
_SQLITE_IOERR: Final = 10
_SQLITE_FULL: Final = 13
_SQLITE_CANTOPEN: Final = 14

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1

_S = TypeVar("_S", bound=str)
_T = TypeVar("_T")
_P = ParamSpec("_P")

_CACHE_MAX_AGE: Final = 60.0
"""Seconds ``upsert_user``/``upsert_chat`` trust the row they last stored or read (other
processes on the same database may change it; their own changes drop the entry at once)."""
_CACHE_LIMIT: Final = 10_000
"""Entries per cache (users, chats) before it is emptied."""

_GAME_COLUMNS: Final = (
    "game_id, chat_id, status, creator_id, created, updated, rules, seed, seats, version,"
    " lobby_rev, snapshot, message_ids, deadline, lobby_code, human_moved, reason"
)
_ACTIVE_SQL: Final = "status IN ('lobby', 'playing')"

Params = Sequence[object]

RatingPair = tuple[float, float]
"""A rating as (mu, sigma)."""
Rater = Callable[[Mapping[str, RatingPair | None]], Mapping[str, RatingPair]]
"""``record_game_result``'s rating step: the players' current ratings (None: not rated
yet) to their new ones, called inside the transaction."""

_STATS_COLUMNS: Final = (
    "player, games, wins, place_sum, declared, made, falls, bolts, mu, sigma, updated"
)


# --------------------------------------------------------------------------- checks


def _json(name: str, value: str) -> str:
    """Check that ``value`` is JSON text (storage keeps it opaque but well formed)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be JSON text (str), got {type(value).__name__}")
    try:
        json.loads(value)
    except ValueError as e:
        raise ValueError(f"{name} is not valid JSON: {e}") from None
    return value


def _choice(name: str, value: _S, allowed: tuple[_S, ...]) -> _S:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _int64(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{name} must fit in a signed 64-bit integer, got {value}")
    return value


def _time(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be epoch seconds (float) or None")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


# --------------------------------------------------------------------------- rows


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _opt_float(value: object) -> float | None:
    return None if value is None else float(cast(float, value))


def _opt_int(value: object) -> int | None:
    return None if value is None else int(cast(int, value))


def _chat(row: sqlite3.Row) -> Chat:
    return Chat(
        chat_id=int(row["chat_id"]),
        kind=cast(ChatKind, row["kind"]),
        language=cast(Language, row["language"]),
        default_rules=_opt_str(row["default_rules"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
    )


def _user(row: sqlite3.Row) -> User:
    return User(
        user_id=int(row["user_id"]),
        first_name=str(row["first_name"]),
        username=_opt_str(row["username"]),
        language=cast(Language | None, row["language"]),
        started=bool(row["started"]),
        blocked=bool(row["blocked"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
    )


def _game(row: sqlite3.Row) -> Game:
    return Game(
        game_id=int(row["game_id"]),
        chat_id=int(row["chat_id"]),
        status=cast(GameStatus, row["status"]),
        creator_id=int(row["creator_id"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
        rules=str(row["rules"]),
        seed=int(row["seed"]),
        seats=str(row["seats"]),
        version=int(row["version"]),
        lobby_rev=int(row["lobby_rev"]),
        snapshot=_opt_str(row["snapshot"]),
        message_ids=str(row["message_ids"]),
        deadline=_opt_float(row["deadline"]),
        lobby_code=_opt_str(row["lobby_code"]),
        human_moved=_opt_float(row["human_moved"]),
        reason=_opt_str(row["reason"]),
    )


def _score_row(row: sqlite3.Row) -> ScoreRow:
    return ScoreRow(
        game_id=int(row["game_id"]),
        deal_no=int(row["deal_no"]),
        data=str(row["data"]),
        created=float(row["created"]),
    )


def _result(row: sqlite3.Row) -> GameResult:
    return GameResult(
        game_id=int(row["game_id"]),
        finished=float(row["finished"]),
        winner_seat=_opt_int(row["winner_seat"]),
        totals=str(row["totals"]),
        stopped=bool(row["stopped"]),
    )


# --------------------------------------------------------------------------- failures


def _failure(error: sqlite3.Error | OSError, path: str) -> StorageFailure:
    """The ``StorageFailure`` subclass for an ``sqlite3.Error`` (or ``OSError``).

    Transient (``StorageUnavailable``): busy/locked, read-only, I/O error, disk full,
    cannot open.  Anything else (corruption, a bug) is a plain ``StorageFailure``.
    """
    if isinstance(error, OSError):
        return StorageDiskError(f"{path}: {error}")
    code = getattr(error, "sqlite_errorcode", None)
    name = str(getattr(error, "sqlite_errorname", "") or "")
    text = str(error)
    message = f"{path}: {text}" + (f" ({name})" if name else "")
    primary = code & 0xFF if isinstance(code, int) else None
    lowered = text.lower()
    cls: type[StorageFailure] = StorageFailure
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or (
        primary is None and "database is locked" in lowered
    ):
        cls = StorageBusy
    elif primary == _SQLITE_READONLY or (primary is None and "readonly database" in lowered):
        cls = StorageReadOnly
    elif primary in (_SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN) or (
        primary is None and ("disk i/o error" in lowered or "database or disk is full" in lowered)
    ):
        cls = StorageDiskError
    return cls(message, code=code if isinstance(code, int) else None, code_name=name)


# --------------------------------------------------------------------------- permissions


def _is_file_path(path: str) -> bool:
    return path not in (MEMORY, "")


def _make_private(path: str) -> None:
    """Create the database file 0600 if it is missing; take group/other bits off it and its
    -wal/-shm/-journal files if it exists (SQLite gives -wal/-shm the main file's mode).

    Raises ``OSError`` if the file cannot be created; a file that is not ours to chmod is
    logged and left as it is (SQLite then decides whether it can be used).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        os.close(fd)
    for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        try:
            mode = stat.S_IMODE(os.stat(name).st_mode)
            if mode & 0o077:
                os.chmod(name, mode & ~0o077)
        except FileNotFoundError:
            continue
        except PermissionError as e:
            LOG.warning("%s: cannot make it private (owner-only): %s", name, e)


# --------------------------------------------------------------------------- records


def _record_seats(seats_json: str) -> list[str] | None:
    try:
        seats = json.loads(seats_json)
    except ValueError:
        return None
    if not isinstance(seats, list):
        return None
    names: list[str] = []
    for i, seat in enumerate(seats):
        name = seat.get("name") if isinstance(seat, dict) else None
        names.append(name if isinstance(name, str) and name else f"P{i}")
    return names


def _record_move(action_json: str) -> str | None:
    """``{"s": 1, "a": "bid 105", ...}`` → ``"1:bid 105"``; None for other log entries."""
    try:
        entry = json.loads(action_json)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    seat, action = entry.get("s"), entry.get("a")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(action, str):
        return None
    return f"{seat}:{action}"


def _record(
    game: Game,
    log: list[tuple[int, str]],
    deal_ends: list[int | None],
    result: GameResult | None,
) -> dict[str, Any]:
    """The ``thousand-record/1`` object of a game from its stored columns."""
    try:
        rules: object = json.loads(game.rules)
    except ValueError:
        rules = None
    moves = [(seq, text) for seq, action in log if (text := _record_move(action)) is not None]
    deals: list[dict[str, Any]] = []
    i = 0
    for end in deal_ends:
        if end is None:  # a row from before version 2 whose action was not found
            continue
        actions: list[str] = []
        while i < len(moves) and moves[i][0] <= end:
            actions.append(moves[i][1])
            i += 1
        deals.append({"actions": actions})
    if i < len(moves):  # the deal being played
        deals.append({"actions": [text for _, text in moves[i:]]})
    record: dict[str, Any] = {"format": RECORD_FORMAT, "rules": rules}
    seats = _record_seats(game.seats)
    if seats is not None:
        record["seats"] = seats
    record["seed"] = game.seed
    record["deals"] = deals
    record["game"] = {
        "id": game.game_id,
        "status": game.status,
        "reason": game.reason,
        "version": game.version,
        "created": game.created,
        "updated": game.updated,
        "winner_seat": None if result is None else result.winner_seat,
        "totals": None if result is None else json.loads(result.totals),
    }
    return record


# --------------------------------------------------------------------------- storage


class Storage:
    """The repository of chats, users, games, their action logs, score sheets and results.

    Create it with ``await Storage.open(path)`` or ``async with Storage.open(path) as s``.
    """

    def __init__(self, db: aiosqlite.Connection, path: str, clock: Callable[[], float]) -> None:
        self._db = db
        self._path = path
        self._clock = clock
        self._lock = asyncio.Lock()
        self._closed = False
        # The rows upsert_user/upsert_chat last stored or read (monotonic time, row): an
        # upsert that would change nothing returns the row without touching the database.
        # Every method that writes users/chats drops the ids it writes BEFORE writing.
        self._users: dict[int, tuple[float, User]] = {}
        self._chats: dict[int, tuple[float, Chat]] = {}
        # append_action's moves waiting for the next group commit (_flush_moves).
        self._moves: list[_Move] = []
        self._flusher: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = 5.0,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Opening[Storage]:
        """Open (creating and migrating) the database at ``path``; ``MEMORY`` for a private one.

        ``clock`` gives the created/updated times (epoch seconds); ``busy_timeout`` is how
        long to wait for another connection's write lock; ``migrations`` is for tests.
        """
        return Opening(lambda: cls._open(os.fspath(path), clock, busy_timeout, migrations))

    @classmethod
    async def _open(
        cls,
        path: str,
        clock: Callable[[], float],
        busy_timeout: float,
        migrations: Sequence[Migration],
    ) -> Storage:
        _time("busy_timeout", busy_timeout)
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout must be >= 0, got {busy_timeout}")
        try:
            if _is_file_path(path):
                _make_private(path)
            db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout)
        except (sqlite3.Error, OSError) as e:
            raise _failure(e, path) from e
        try:
            db.row_factory = sqlite3.Row
            # Pragmas that cannot change inside a transaction: set them first.
            async with db.execute("PRAGMA journal_mode=WAL") as cur:
                row = await cur.fetchone()
            mode = str(row[0]).lower() if row is not None else ""
            if mode != "wal" and not (path == MEMORY and mode == "memory"):
                raise StorageFailure(f"{path}: cannot switch to WAL (journal_mode is {mode!r})")
            await db.execute("PRAGMA synchronous=FULL")
            # Migrations run with foreign keys off (a table rebuild must not cascade) and
            # check them before each commit; then they are on for good.
            await db.execute("PRAGMA foreign_keys=OFF")
            await _migrate(db, path, migrations)
            await db.execute("PRAGMA foreign_keys=ON")
        except BaseException as e:
            await db.close()
            if isinstance(e, sqlite3.Error):
                raise _failure(e, path) from e
            raise
        return cls(db, path, clock)

    async def close(self) -> None:
        """Close the connection (idempotent); waits for the running operation to finish."""
        if self._closed:
            return
        async with self._lock:
            self._closed = True
            await self._db.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def path(self) -> str:
        return self._path

    async def pragmas(self) -> Pragmas:
        """Read back the connection's settings (journal mode, foreign keys, ...)."""
        async with self._read():
            values: list[object] = []
            for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout"):
                values.append(await self._scalar(f"PRAGMA {name}"))
            version = await self._scalar("PRAGMA user_version")
        return Pragmas(
            journal_mode=str(values[0]),
            foreign_keys=bool(values[1]),
            synchronous=int(cast(int, values[2])),
            busy_timeout_ms=int(cast(int, values[3])),
            user_version=int(cast(int, version)),
        )

    # ------------------------------------------------------------------ chats

    async def upsert_chat(self, chat_id: int, kind: ChatKind, *, language: Language = "ru") -> Chat:
        """Insert the chat or update its kind; ``language`` is only the initial value.

        Writes only what changes: a known chat of that kind is returned as stored
        (``updated`` stays), from memory when this Storage stored or read it in the last
        minute (``_CACHE_MAX_AGE``), else in one trip to the database.
        """
        _int64("chat_id", chat_id)
        _choice("kind", kind, CHAT_KINDS)
        _choice("language", language, LANGUAGES)
        self._check_open()
        known = _cached(self._chats, chat_id)
        if known is not None and known.kind == kind:
            return known
        self._chats.pop(chat_id, None)
        chat = await self._transact(_upsert_chat, chat_id, kind, language)
        _remember(self._chats, chat_id, chat)  # no await since the commit: nothing ran between
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        async with self._read():
            return await self._get_chat(chat_id)

    async def set_chat_language(self, chat_id: int, language: Language) -> None:
        """Raises ``NotFound`` for an unknown chat."""
        _choice("language", language, LANGUAGES)
        async with self._write() as now:
            self._chats.pop(chat_id, None)
            await self._update_one(
                f"chat {chat_id}",
                "UPDATE chats SET language = ?, updated = ? WHERE chat_id = ?",
                (language, now, chat_id),
            )

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None:
        """Store the chat's last used rules (JSON text) or clear them; ``NotFound`` if unknown."""
        if rules is not None:
            _json("rules", rules)
        async with self._write() as now:
            self._chats.pop(chat_id, None)
            await self._update_one(
                f"chat {chat_id}",
                "UPDATE chats SET default_rules = ?, updated = ? WHERE chat_id = ?",
                (rules, now, chat_id),
            )

    async def migrate_chat(self, old_id: int, new_id: int) -> bool:
        """Move a group that became a supergroup to its new id, in one transaction.

        The settings (language, default rules) and every game (with its actions, sheet and
        result) move to ``new_id``; the new chat's kind is ``supergroup``; the old chat row
        is deleted.  If a chat row for ``new_id`` exists already (the bot saw the
        supergroup first) it is kept and gets the old settings.  Returns False (and writes
        nothing) if ``old_id`` is unknown, so calling it twice is harmless.  Raises
        ``ActiveGameConflict`` (writing nothing) if both ids have an active game.
        """
        _int64("old_id", old_id)
        _int64("new_id", new_id)
        if old_id == new_id:
            raise ValueError("old_id and new_id are the same")
        async with self._write() as now:
            self._chats.pop(old_id, None)
            self._chats.pop(new_id, None)
            old = await self._get_chat(old_id)
            if old is None:
                return False
            if await self._active_game(old_id) is not None:
                blocking = await self._active_game(new_id)
                if blocking is not None:
                    raise ActiveGameConflict(new_id, blocking.game_id)
            await self._exec(
                "INSERT INTO chats (chat_id, kind, language, default_rules, created, updated)"
                " VALUES (?, 'supergroup', ?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET kind = 'supergroup',"
                " language = excluded.language,"
                " default_rules = COALESCE(excluded.default_rules, chats.default_rules),"
                " updated = excluded.updated",
                (new_id, old.language, old.default_rules, old.created, now),
            )
            await self._exec(
                "UPDATE games SET chat_id = ?, updated = ? WHERE chat_id = ?",
                (new_id, now, old_id),
            )
            await self._exec("DELETE FROM chats WHERE chat_id = ?", (old_id,))
        return True

    # ------------------------------------------------------------------ users

    async def upsert_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        *,
        language: Language | None = None,
    ) -> User:
        """Insert the user or update the names; ``language`` is only the initial value.

        Writes only what changes: a known user with these names is returned as stored
        (``updated`` stays), from memory when this Storage stored or read it in the last
        minute (``_CACHE_MAX_AGE``), else in one trip to the database.
        """
        _int64("user_id", user_id)
        if language is not None:
            _choice("language", language, LANGUAGES)
        self._check_open()
        known = _cached(self._users, user_id)
        if known is not None and (known.first_name, known.username) == (first_name, username):
            return known
        self._users.pop(user_id, None)
        user = await self._transact(_upsert_user, user_id, first_name, username, language)
        _remember(self._users, user_id, user)  # no await since the commit: nothing ran between
        return user

    async def get_user(self, user_id: int) -> User | None:
        async with self._read():
            return await self._get_user(user_id)

    async def set_user_language(self, user_id: int, language: Language | None) -> None:
        """Set (or clear with None) the user's language; ``NotFound`` if unknown."""
        if language is not None:
            _choice("language", language, LANGUAGES)
        async with self._write() as now:
            self._users.pop(user_id, None)
            await self._update_one(
                f"user {user_id}",
                "UPDATE users SET language = ?, updated = ? WHERE user_id = ?",
                (language, now, user_id),
            )

    async def mark_started(self, user_id: int) -> None:
        """The user started the bot in private: started, and no longer blocked."""
        async with self._write() as now:
            self._users.pop(user_id, None)
            await self._update_one(
                f"user {user_id}",
                "UPDATE users SET started = 1, blocked = 0, updated = ? WHERE user_id = ?",
                (now, user_id),
            )

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None:
        """The user blocked (or unblocked) the bot; ``NotFound`` if unknown."""
        async with self._write() as now:
            self._users.pop(user_id, None)
            await self._update_one(
                f"user {user_id}",
                "UPDATE users SET blocked = ?, updated = ? WHERE user_id = ?",
                (int(blocked), now, user_id),
            )

    # ------------------------------------------------------------------ games: lobby

    async def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        rules: str,
        seed: int,
        seats: str,
        lobby_code: str | None = None,
        deadline: float | None = None,
    ) -> int:
        """Create a game in ``lobby`` status (version 0) and return its id.

        Raises ``NotFound`` for an unknown chat, ``ActiveGameConflict`` if the chat has a
        game in lobby/playing, ``LobbyCodeTaken`` if the code is in use; writes nothing then.
        """
        _int64("chat_id", chat_id)
        _int64("creator_id", creator_id)
        _int64("seed", seed)
        _json("rules", rules)
        _json("seats", seats)
        _time("deadline", deadline)
        async with self._write() as now:
            if await self._get_chat(chat_id) is None:
                raise NotFound(f"chat {chat_id}")
            active = await self._active_game(chat_id)
            if active is not None:
                raise ActiveGameConflict(chat_id, active.game_id)
            if lobby_code is not None and await self._game_by_code(lobby_code) is not None:
                raise LobbyCodeTaken(lobby_code)
            game_id = await self._insert(
                "INSERT INTO games (chat_id, status, creator_id, created, updated, rules, seed,"
                " seats, deadline, lobby_code) VALUES (?, 'lobby', ?, ?, ?, ?, ?, ?, ?, ?)",
                (chat_id, creator_id, now, now, rules, seed, seats, deadline, lobby_code),
            )
        return game_id

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int:
        """Change the seats and/or rules of a game in lobby; returns the new ``lobby_rev``.

        Raises ``VersionConflict`` if ``lobby_rev`` is not ``expected_lobby_rev`` and
        ``StatusConflict`` if the game is not in lobby; writes nothing then.
        """
        if seats is not None:
            _json("seats", seats)
        if rules is not None:
            _json("rules", rules)
        async with self._write() as now:
            game = await self._lobby_game(game_id, expected_lobby_rev)
            await self._exec(
                "UPDATE games SET seats = ?, rules = ?, lobby_rev = lobby_rev + 1, updated = ?"
                " WHERE game_id = ?",
                (
                    game.seats if seats is None else seats,
                    game.rules if rules is None else rules,
                    now,
                    game_id,
                ),
            )
        return expected_lobby_rev + 1

    async def start_game(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        snapshot: str,
        deadline: float | None,
        seats: str | None = None,
        rules: str | None = None,
    ) -> None:
        """Move a game from lobby to playing with its first snapshot (version stays 0).

        The start counts as a person's move for ``idle_games`` (``human_moved`` = now).

        Optionally sets the final seats/rules.  Raises ``VersionConflict`` /
        ``StatusConflict`` like ``update_lobby``; writes nothing then.
        """
        _json("snapshot", snapshot)
        _time("deadline", deadline)
        if seats is not None:
            _json("seats", seats)
        if rules is not None:
            _json("rules", rules)
        async with self._write() as now:
            game = await self._lobby_game(game_id, expected_lobby_rev)
            await self._exec(
                "UPDATE games SET status = 'playing', snapshot = ?, deadline = ?, seats = ?,"
                " rules = ?, lobby_rev = lobby_rev + 1, updated = ?, human_moved = ?"
                " WHERE game_id = ?",
                (
                    snapshot,
                    deadline,
                    game.seats if seats is None else seats,
                    game.rules if rules is None else rules,
                    now,
                    now,
                    game_id,
                ),
            )

    async def cancel_lobby(self, game_id: int) -> None:
        """Stop a game that never started (lobby -> stopped, no result row).

        Clears its deadline and lobby code.  ``StatusConflict`` if it is not in lobby.
        """
        async with self._write() as now:
            game = await self._require_game(game_id)
            if game.status != "lobby":
                raise StatusConflict(game_id, game.status, ("lobby",))
            await self._exec(
                "UPDATE games SET status = 'stopped', deadline = NULL, lobby_code = NULL,"
                " updated = ? WHERE game_id = ?",
                (now, game_id),
            )

    # ------------------------------------------------------------------ games: play

    async def append_action(
        self,
        game_id: int,
        expected_version: int,
        action: str,
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
    ) -> int:
        """Record one accepted action; returns the new version (= its seq).

        ``human=True``: a person made this move, so the game's ``human_moved`` becomes now
        (the clock of ``idle_games``); computer moves and seat hand-overs leave it.

        In ONE transaction: checks the game is ``playing`` (else ``StatusConflict``) and
        its version equals ``expected_version`` (else ``VersionConflict``), appends the
        action with seq = version + 1, stores the snapshot and the deadline, writes (or
        replaces) the given ``(deal_no, data JSON)`` score-sheet rows and, with an
        ``outcome``, finishes the game as ``finish_game`` does.  When it returns, all of it
        is committed; when it raises, nothing was written.
        """
        _json("action", action)
        _json("snapshot", snapshot)
        _time("deadline", deadline)
        rows = [
            (_int64("deal_no", deal_no), _json("sheet data", data)) for deal_no, data in sheet_rows
        ]
        if outcome is not None:
            _check_outcome(outcome)
        _int64("expected_version", expected_version)
        self._check_open()
        loop = asyncio.get_running_loop()
        move = _Move(
            (game_id, expected_version, action, snapshot, deadline, rows, outcome, human),
            loop.create_future(),
        )
        self._moves.append(move)
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush_moves(), name="storage-moves")
        try:
            return await asyncio.shield(move.future)
        except asyncio.CancelledError:
            if move in self._moves:  # not taken yet: never written
                self._moves.remove(move)
                raise
            move.abandoned = True  # rolled back unless its transaction is committing
            while not move.future.done():  # settle before returning, as _write does
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(move.future)
            if not move.future.cancelled():
                move.future.exception()  # retrieved: the caller gets CancelledError
            raise

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        """The game's actions (JSON text) in seq order, those with seq > ``after``."""
        async with self._read():
            rows = await self._fetchall(
                "SELECT action FROM game_actions WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, after),
            )
        return [str(r["action"]) for r in rows]

    async def set_message_ids(self, game_id: int, message_ids: str) -> None:
        """Store the ids of the messages showing the game (opaque JSON); ``NotFound``."""
        _json("message_ids", message_ids)
        await self._transact(_set_message_ids, game_id, message_ids)

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        """Set or clear the game's deadline, optionally only at ``expected_version``.

        ``StatusConflict`` unless the game is active; ``VersionConflict`` on a stale version.
        """
        _time("deadline", deadline)
        async with self._write() as now:
            game = await self._require_game(game_id)
            if not game.active:
                raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await self._exec(
                "UPDATE games SET deadline = ?, updated = ? WHERE game_id = ?",
                (deadline, now, game_id),
            )

    async def finish_game(
        self,
        game_id: int,
        *,
        winner_seat: int | None,
        totals: str,
        stopped: bool,
        expected_version: int | None = None,
    ) -> GameResult:
        """End a playing game: the result row and the status (finished/stopped) in one
        transaction; clears the deadline and lobby code.

        ``StatusConflict`` unless the game is ``playing`` (so it ends once);
        ``VersionConflict`` if ``expected_version`` is given and stale.
        """
        outcome = Outcome(winner_seat=winner_seat, totals=totals, stopped=stopped)
        _check_outcome(outcome)
        async with self._write() as now:
            game = await self._require_game(game_id)
            if game.status != "playing":
                raise StatusConflict(game_id, game.status, ("playing",))
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await self._finish(game_id, outcome, now)
            result = await self._get_result(game_id)
        assert result is not None
        return result

    # ------------------------------------------------------------------ games: the end

    async def expire_game(
        self,
        game_id: int,
        *,
        reason: str = "idle",
        totals: str | None = None,
        expected_version: int | None = None,
        expected_lobby_rev: int | None = None,
    ) -> Game:
        """Close a game left idle: ``lobby``/``playing`` → ``expired``; returns the row.

        The record (rules, seed, seats, actions, score sheet) is kept; the deadline and the
        lobby code are cleared and ``reason`` is stored.  A playing game given ``totals``
        (JSON) also gets a result row (``stopped``, no winner), as ``/stop`` writes, so
        ``last_game`` and the score sheet still show it; without ``totals`` it gets none.

        ``expected_version`` / ``expected_lobby_rev`` guard against a move or a lobby edit
        made since the caller saw the game idle (``VersionConflict``).  ``StatusConflict``
        unless the game is in lobby or playing; ``NotFound``.  Writes nothing when it raises.
        """
        if totals is not None:
            _json("totals", totals)
        text = _reason(reason)
        async with self._write() as now:
            game = await self._end_check(game_id, expected_version, expected_lobby_rev)
            if game.status == "playing" and totals is not None:
                await self._exec(
                    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
                    " VALUES (?, ?, NULL, ?, 1)",
                    (game_id, now, totals),
                )
            await self._end(game_id, "expired", text, now)
            ended = await self._get_game(game_id)
        assert ended is not None
        return ended

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game:
        """A game that cannot be restored: ``lobby``/``playing`` → ``broken``; returns the row.

        ``broken`` is not active, so the chat can start a new game at once.  Everything of
        the game stays (``export_game`` gives its record for a bug report); ``reason`` (the
        error, at most 4000 characters are kept) is stored; deadline and lobby code are
        cleared; no result row.  ``StatusConflict`` unless lobby/playing; ``NotFound``;
        ``VersionConflict`` on a stale ``expected_version``.
        """
        text = _reason(reason)
        async with self._write() as now:
            await self._end_check(game_id, expected_version, None)
            await self._end(game_id, "broken", text, now)
            ended = await self._get_game(game_id)
        assert ended is not None
        return ended

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        """Lobbies not changed (``updated``) for more than ``idle_for`` seconds, oldest first.

        ``now`` defaults to the storage clock.
        """
        cutoff = self._cutoff(idle_for, now)
        async with self._read():
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'lobby' AND updated < ?"
                " ORDER BY updated, game_id",
                (cutoff,),
            )
        return [_game(r) for r in rows]

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        """Playing games without a person's move (``human_moved``: ``append_action(...,
        human=True)`` or the start) for more than ``idle_for`` seconds, oldest first.
        """
        cutoff = self._cutoff(idle_for, now)
        async with self._read():
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'playing'"
                " AND COALESCE(human_moved, updated) < ?"
                " ORDER BY COALESCE(human_moved, updated), game_id",
                (cutoff,),
            )
        return [_game(r) for r in rows]

    async def export_game(self, game_id: int) -> str:
        """The game's record as ``thousand-record/1`` JSON text (``docs/record-format.md``).

        Built from the stored columns, for any status (``broken`` included): ``rules`` as
        stored, ``seats`` their names, the game ``seed``, and the log's moves — entries
        ``{"s": seat, "a": action}`` become ``"seat:action"``, other entries (seat
        hand-overs) are left out — cut into deals at the actions that wrote the score-sheet
        rows.  An extra ``game`` object (id, status, reason, version, times, result) is
        ignored by the replay.  ``NotFound`` for an unknown game.
        """
        async with self._read():
            game = await self._require_game(game_id)
            log = await self._fetchall(
                "SELECT seq, action FROM game_actions WHERE game_id = ? ORDER BY seq", (game_id,)
            )
            ends = await self._fetchall(
                "SELECT seq FROM score_sheets WHERE game_id = ? ORDER BY deal_no", (game_id,)
            )
            result = await self._get_result(game_id)
        record = _record(
            game,
            [(int(r["seq"]), str(r["action"])) for r in log],
            [_opt_int(r["seq"]) for r in ends],
            result,
        )
        return json.dumps(record, ensure_ascii=False, indent=1)

    # ------------------------------------------------------------------ games: queries

    async def get_game(self, game_id: int) -> Game | None:
        async with self._read():
            return await self._get_game(game_id)

    async def active_game(self, chat_id: int) -> Game | None:
        """The chat's game in lobby or playing, if any (there is at most one)."""
        async with self._read():
            return await self._active_game(chat_id)

    async def game_by_lobby_code(self, code: str) -> Game | None:
        async with self._read():
            return await self._game_by_code(code)

    async def games_in_progress(self) -> list[Game]:
        """Every game in lobby or playing, by id (to re-arm timers at start-up)."""
        async with self._read():
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games WHERE {_ACTIVE_SQL} ORDER BY game_id", ()
            )
        return [_game(r) for r in rows]

    async def last_game(self, chat_id: int) -> Game | None:
        """The chat's latest game that is active, finished, or was stopped after starting."""
        async with self._read():
            row = await self._fetchone(
                f"SELECT {_GAME_COLUMNS} FROM games g WHERE chat_id = ?"
                " AND (status IN ('lobby', 'playing', 'finished')"
                "      OR EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.game_id))"
                " ORDER BY game_id DESC LIMIT 1",
                (chat_id,),
            )
        return None if row is None else _game(row)

    async def score_sheet(self, game_id: int) -> list[ScoreRow]:
        """The game's score-sheet rows by deal number."""
        async with self._read():
            rows = await self._fetchall(
                "SELECT game_id, deal_no, data, created FROM score_sheets WHERE game_id = ?"
                " ORDER BY deal_no",
                (game_id,),
            )
        return [_score_row(r) for r in rows]

    async def get_result(self, game_id: int) -> GameResult | None:
        async with self._read():
            return await self._get_result(game_id)

    # ------------------------------------------------------------------ stats and ratings

    async def record_game_result(self, game_id: int, seats: Sequence[SeatResult],
                                 rate: Rater | None = None) -> bool:
        """Count a finished game once: the seats' rows, each player's sums and new rating
        and the game's ``rated_games`` marker, in one transaction.

        ``rate`` gets the current ratings of the game's players (None for one not rated
        yet) and returns the new ones; it runs under the write lock, so two games ending
        at once never lose each other's rating change.  A player ``rate`` leaves out
        keeps the old rating.  Returns False (writing nothing) if the game was counted
        already.  ``StatusConflict`` unless the game is ``finished``; ``NotFound`` for no
        such game; ``ValueError`` for no seats, a seat given twice or a bad rating.
        """
        _int64("game_id", game_id)
        if not seats:
            raise ValueError("a game result needs its seats")
        if len({x.seat for x in seats}) != len(seats):
            raise ValueError("a seat is given twice")
        by_player: dict[str, list[SeatResult]] = {}
        for x in seats:
            if not isinstance(x.player, str) or not x.player:
                raise ValueError(f"seat {x.seat}: a player id is text, got {x.player!r}")
            if x.seat < 0 or x.place < 1:
                raise ValueError(f"seat {x.seat}: bad seat or place {x.place}")
            by_player.setdefault(x.player, []).append(x)
        async with self._write() as now:
            game = await self._require_game(game_id)
            if game.status != "finished":
                raise StatusConflict(game_id, game.status, ("finished",))
            if await self._fetchone("SELECT 1 FROM rated_games WHERE game_id = ?",
                                    (game_id,)) is not None:
                return False
            current: dict[str, RatingPair | None] = {}
            for player in by_player:
                row = await self._fetchone(
                    "SELECT mu, sigma FROM player_stats WHERE player = ?", (player,))
                current[player] = None if row is None or row["mu"] is None \
                    else (float(row["mu"]), float(row["sigma"]))
            new = dict(rate(current)) if rate is not None else {}
            for player, (mu, sigma) in new.items():
                if player not in by_player:
                    raise ValueError(f"a rating for {player!r}, who did not play")
                if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
                    raise ValueError(f"bad rating for {player!r}: {mu}, {sigma}")
            await self._exec("INSERT INTO rated_games (game_id, rated) VALUES (?, ?)",
                             (game_id, now))
            for x in seats:
                await self._exec(
                    "INSERT INTO game_players (game_id, seat, player, place, win)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (game_id, x.seat, x.player, x.place, int(x.win)))
            for player, xs in by_player.items():
                rating = new.get(player)
                await self._exec(
                    "INSERT INTO player_stats (player, games, wins, place_sum, declared, made,"
                    " falls, bolts, mu, sigma, updated) VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (player) DO UPDATE SET games = games + 1,"
                    " wins = wins + excluded.wins, place_sum = place_sum + excluded.place_sum,"
                    " declared = declared + excluded.declared, made = made + excluded.made,"
                    " falls = falls + excluded.falls, bolts = bolts + excluded.bolts,"
                    " mu = COALESCE(excluded.mu, mu), sigma = COALESCE(excluded.sigma, sigma),"
                    " updated = excluded.updated",
                    (player, int(any(x.win for x in xs)),
                     sum(x.place for x in xs) / len(xs),
                     sum(x.declared for x in xs), sum(x.made for x in xs),
                     sum(x.falls for x in xs), sum(x.bolts for x in xs),
                     None if rating is None else rating[0],
                     None if rating is None else rating[1], now))
        return True

    async def is_rated(self, game_id: int) -> bool:
        """The game's result was counted (``record_game_result``)."""
        async with self._read():
            return await self._fetchone("SELECT 1 FROM rated_games WHERE game_id = ?",
                                        (game_id,)) is not None

    async def unrated_games(self) -> list[Game]:
        """Finished games whose result was not counted yet, oldest first (a crash between
        the final move and the count, or games finished before schema version 3)."""
        async with self._read():
            rows = await self._fetchall(
                f"SELECT {_GAME_COLUMNS} FROM games g WHERE status = 'finished'"
                " AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.game_id)"
                " ORDER BY game_id", ())
        return [_game(r) for r in rows]

    async def player_stats(self, player: str) -> PlayerStats | None:
        """A player's record, or None before their first rated game."""
        async with self._read():
            row = await self._fetchone(
                f"SELECT {_STATS_COLUMNS} FROM player_stats WHERE player = ?", (player,))
        return None if row is None else _stats(row)

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]:
        """The people (players "u:<id>") with at least one rated game in the chat, best
        rating (mu − 3·sigma) first, then more games; their records are over all chats.
        ``name`` is the person's first name."""
        _int64("chat_id", chat_id)
        async with self._read():
            rows = await self._fetchall(
                "SELECT " + ", ".join(f"s.{c.strip()}" for c in _STATS_COLUMNS.split(",")) +
                ", u.first_name AS name FROM player_stats s"
                " LEFT JOIN users u ON s.player = 'u:' || u.user_id"
                " WHERE s.player LIKE 'u:%' AND EXISTS ("
                "   SELECT 1 FROM game_players p JOIN games g ON g.game_id = p.game_id"
                "   WHERE p.player = s.player AND g.chat_id = ?)"
                " ORDER BY s.mu IS NULL, s.mu - 3 * s.sigma DESC, s.games DESC, s.player"
                " LIMIT ?",
                (chat_id, max(0, int(limit))))
        return [_stats(r) for r in rows]

    async def versus_computers(self, player: str) -> list[Versus]:
        """The player's rated games with each computer player ("ai:..." ids) at the table:
        the games, the player's wins and the sum of the player's places, by computer id."""
        async with self._read():
            rows = await self._fetchall(
                "SELECT c.computer, count(*) AS games, sum(me.win) AS wins,"
                " sum(me.place) AS place_sum FROM game_players me"
                " JOIN (SELECT DISTINCT game_id, player AS computer FROM game_players"
                "       WHERE player LIKE 'ai:%') c ON c.game_id = me.game_id"
                " WHERE me.player = ? GROUP BY c.computer ORDER BY c.computer",
                (player,))
        return [Versus(str(r["computer"]), int(r["games"]), int(r["wins"]),
                       float(r["place_sum"])) for r in rows]

    # ------------------------------------------------------------------ internals

    @contextlib.asynccontextmanager
    async def _read(self) -> AsyncIterator[None]:
        async with self._lock:
            self._check_open()
            try:
                yield
            except sqlite3.Error as e:
                raise _failure(e, self._path) from e

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[float]:
        """One ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction; yields its time."""
        async with self._lock:
            self._check_open()
            try:
                # Inside the try: if we are cancelled while BEGIN is queued it still runs
                # in aiosqlite's thread, and the rollback below (queued after it) undoes it.
                await self._db.execute("BEGIN IMMEDIATE")
                yield float(self._clock())
                await self._db.execute("COMMIT")
            except BaseException as e:
                await self._rollback(e)
                if isinstance(e, sqlite3.Error):
                    raise _failure(e, self._path) from e
                raise

    async def _transact(
        self,
        body: Callable[Concatenate[sqlite3.Connection, float, _P], _T],
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> _T:
        """``body(conn, now, *args, **kwargs)`` in one ``BEGIN IMMEDIATE`` ... ``COMMIT``
        transaction, all of it ONE function run on aiosqlite's thread (one trip, where
        ``_write`` makes one per statement); rolled back there on any error.

        ``body`` is plain ``sqlite3`` code: it must not touch the event loop.  If the caller
        is cancelled meanwhile, the function is told to roll back instead of committing
        (unless COMMIT ran already) and the lock is kept until it ended, as ``_write`` does.
        """
        async with self._lock:
            self._check_open()
            now = float(self._clock())
            abandoned = threading.Event()

            def run(conn: sqlite3.Connection) -> _T:
                return body(conn, now, *args, **kwargs)

            try:
                return await self._on_thread(_in_transaction, abandoned.is_set, run)
            except BaseException as e:
                if not isinstance(e, Exception):  # cancelled: the function may still run
                    abandoned.set()
                    await self._rollback(e)  # queued after it: waits for its end
                if isinstance(e, sqlite3.Error):
                    raise _failure(e, self._path) from e
                raise

    async def _flush_moves(self) -> None:
        """Store the queued moves: those that queued while the previous ones were being
        stored go together in ONE transaction, one trip to the thread, one COMMIT (group
        commit: with ``synchronous=FULL`` each COMMIT waits for the disk).  A lone move is
        plain ``BEGIN IMMEDIATE``, its statements, ``COMMIT``; in a group each move has its
        own SAVEPOINT, so a refused move (a conflict, a failing statement) is rolled back
        alone.  Each caller gets its result only after the COMMIT; if BEGIN or COMMIT fails,
        every move of the group fails with that error and none was written."""
        while self._moves:
            async with self._lock:
                batch, self._moves = self._moves, []
                try:
                    self._check_open()
                    for move in batch:
                        move.now = float(self._clock())
                    results = await self._on_thread(_append_moves, batch)
                except BaseException as e:
                    if not isinstance(e, Exception):  # cancelled: the function may still run
                        for move in batch:
                            move.abandoned = True
                        for move in (*batch, *self._moves):  # the queue: never written
                            move.future.cancel()
                        self._moves = []
                        await self._rollback(e)  # queued after it: waits for its end
                        raise
                    for move in batch:
                        _settle(move.future, self._move_error(e))
                    continue
                for move, result in zip(batch, results, strict=True):
                    if isinstance(result, BaseException):
                        _settle(move.future, self._move_error(result))
                    elif not move.future.done():
                        move.future.set_result(result)

    def _move_error(self, error: BaseException) -> BaseException:
        """What a move's caller raises for ``error`` (one object per caller)."""
        if isinstance(error, sqlite3.Error):
            failure = _failure(error, self._path)
            failure.__cause__ = error
            return failure
        if isinstance(error, _Abandoned):
            return asyncio.CancelledError()
        return error

    async def _on_thread(
        self, fn: Callable[Concatenate[sqlite3.Connection, _P], _T],
        *args: _P.args, **kwargs: _P.kwargs,
    ) -> _T:
        """``fn(conn, *args, **kwargs)`` on aiosqlite's thread, with its sqlite3 connection.

        aiosqlite (0.22) has no public call for this: ``Connection._execute(fn, ...)``
        queues a function to the connection's thread (every public method is built on it)
        and ``Connection._conn`` is the ``sqlite3.Connection``.  Both are private, pinned by
        ``tests/storage/test_one_transaction.py`` (which fails if they change).
        """
        db = self._db
        execute = cast(Callable[..., Awaitable[_T]], db._execute)
        return await execute(fn, db._conn, *args, **kwargs)

    async def _rollback(self, error: BaseException) -> None:
        """Roll back and wait for it even if cancelled again (the lock is still held)."""
        task = asyncio.ensure_future(self._db.rollback())  # a no-op outside a transaction
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.done():
                    break
                cancelled = True
            except Exception:
                break
        if not task.cancelled() and task.exception() is not None:
            LOG.error("rollback failed after %r", error, exc_info=task.exception())
        if cancelled and not isinstance(error, asyncio.CancelledError):
            raise asyncio.CancelledError from error

    def _check_open(self) -> None:
        if self._closed:
            raise StorageClosed("storage is closed")

    async def _exec(self, sql: str, params: Params) -> int:
        async with self._db.execute(sql, params) as cur:
            return cur.rowcount

    async def _insert(self, sql: str, params: Params) -> int:
        async with self._db.execute(sql, params) as cur:
            rowid = cur.lastrowid
        assert rowid is not None
        return rowid

    async def _update_one(self, what: str, sql: str, params: Params) -> None:
        if await self._exec(sql, params) != 1:
            raise NotFound(what)

    async def _fetchone(self, sql: str, params: Params) -> sqlite3.Row | None:
        async with self._db.execute(sql, params) as cur:
            return await cur.fetchone()

    async def _fetchall(self, sql: str, params: Params) -> list[sqlite3.Row]:
        return list(await self._db.execute_fetchall(sql, params))

    async def _scalar(self, sql: str) -> object:
        row = await self._fetchone(sql, ())
        return None if row is None else cast(object, row[0])

    async def _get_chat(self, chat_id: int) -> Chat | None:
        row = await self._fetchone("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else _chat(row)

    async def _get_user(self, user_id: int) -> User | None:
        row = await self._fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return None if row is None else _user(row)

    async def _get_game(self, game_id: int) -> Game | None:
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,)
        )
        return None if row is None else _game(row)

    async def _require_game(self, game_id: int) -> Game:
        game = await self._get_game(game_id)
        if game is None:
            raise NotFound(f"game {game_id}")
        return game

    async def _lobby_game(self, game_id: int, expected_lobby_rev: int) -> Game:
        game = await self._require_game(game_id)
        if game.status != "lobby":
            raise StatusConflict(game_id, game.status, ("lobby",))
        if game.lobby_rev != expected_lobby_rev:
            raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
        return game

    async def _active_game(self, chat_id: int) -> Game | None:
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE chat_id = ? AND {_ACTIVE_SQL}",
            (chat_id,),
        )
        return None if row is None else _game(row)

    async def _game_by_code(self, code: str) -> Game | None:
        row = await self._fetchone(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE lobby_code = ?", (code,)
        )
        return None if row is None else _game(row)

    def _cutoff(self, idle_for: float, now: float | None) -> float:
        idle = _time("idle_for", idle_for)
        assert idle is not None
        if idle < 0:
            raise ValueError(f"idle_for must be >= 0, got {idle_for}")
        at = _time("now", now)
        return (float(self._clock()) if at is None else at) - idle

    async def _end_check(
        self, game_id: int, expected_version: int | None, expected_lobby_rev: int | None
    ) -> Game:
        game = await self._require_game(game_id)
        if not game.active:
            raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
        if expected_version is not None and game.version != expected_version:
            raise VersionConflict(game_id, expected_version, game.version)
        if expected_lobby_rev is not None and game.lobby_rev != expected_lobby_rev:
            raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
        return game

    async def _end(self, game_id: int, status: GameStatus, reason: str, now: float) -> None:
        await self._exec(
            "UPDATE games SET status = ?, reason = ?, deadline = NULL, lobby_code = NULL,"
            " updated = ? WHERE game_id = ?",
            (status, reason, now, game_id),
        )

    async def _get_result(self, game_id: int) -> GameResult | None:
        row = await self._fetchone("SELECT * FROM results WHERE game_id = ?", (game_id,))
        return None if row is None else _result(row)

    async def _write_sheet(
        self, game_id: int, rows: list[tuple[int, str]], now: float, seq: int
    ) -> None:
        """Write the rows; a new row remembers ``seq``, the action that ended its deal."""
        for deal_no, data in rows:
            await self._exec(
                "INSERT INTO score_sheets (game_id, deal_no, data, created, seq)"
                " VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data",
                (game_id, deal_no, data, now, seq),
            )

    async def _finish(self, game_id: int, outcome: Outcome, now: float) -> None:
        await self._exec(
            "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
            " VALUES (?, ?, ?, ?, ?)",
            (game_id, now, outcome.winner_seat, outcome.totals, int(outcome.stopped)),
        )
        await self._exec(
            "UPDATE games SET status = ?, deadline = NULL, lobby_code = NULL, updated = ?"
            " WHERE game_id = ?",
            ("stopped" if outcome.stopped else "finished", now, game_id),
        )

    # ------------------------------------------------------------------ coordination
    # Several bot processes on one database (``docs/deploy.md``); a single process never
    # calls these.  Times are epoch seconds of the storage's clock.

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool:
        """Hold the game's lease for ``ttl`` seconds: taken when it is free, expired or
        already ``owner``'s (``force``: taken in any case — the process that stored the last
        move).  True if ``owner`` holds it now."""
        _time("ttl", ttl)
        async with self._write() as now:
            n = await self._exec(
                "INSERT INTO leases (game_id, owner, expires) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner,"
                " expires = excluded.expires"
                " WHERE ? OR leases.owner = excluded.owner OR leases.expires <= ?",
                (game_id, owner, now + ttl, int(force), now),
            )
        return n == 1

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]:
        """Extend every lease ``owner`` holds by ``ttl`` seconds from now (one statement);
        returns the games whose lease it still holds with their stored versions (a holder
        whose copy is older reloads it: a move stored by a process that died before it
        took the lease)."""
        _time("ttl", ttl)
        async with self._write() as now:
            rows = await self._fetchall(
                "UPDATE leases SET expires = ? WHERE owner = ? RETURNING game_id,"
                " (SELECT g.version FROM games g WHERE g.game_id = leases.game_id) AS version",
                (now + ttl, owner),
            )
        return {int(r["game_id"]): int(r["version"] or 0) for r in rows}

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]:
        """Take the leases of playing games that nobody holds: expired (the takeover of a
        dead process's games), or never taken and unchanged for ``ttl`` seconds (a new game
        is left to the process that started it meanwhile).  Leases of games no longer
        playing are dropped.  Returns the games taken, by id."""
        _time("ttl", ttl)
        async with self._write() as now:
            await self._exec(
                "DELETE FROM leases WHERE game_id IN (SELECT l.game_id FROM leases l"
                " JOIN games g ON g.game_id = l.game_id WHERE g.status <> 'playing')", ())
            rows = await self._fetchall(
                "INSERT INTO leases (game_id, owner, expires)"
                " SELECT g.game_id, ?, ? FROM games g LEFT JOIN leases l"
                " ON l.game_id = g.game_id"
                " WHERE g.status = 'playing'"
                " AND (l.expires <= ? OR (l.game_id IS NULL AND g.updated <= ?))"
                " ORDER BY g.game_id LIMIT ?"
                " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner,"
                " expires = excluded.expires WHERE leases.expires <= ?"
                " RETURNING game_id",
                (owner, now + ttl, now, now - ttl, limit, now),
            )
        return sorted(int(r["game_id"]) for r in rows)

    async def release_leases(self, owner: str) -> int:
        """Give up every lease of ``owner`` (a clean shutdown): others take over at once."""
        async with self._write():
            return await self._exec("DELETE FROM leases WHERE owner = ?", (owner,))

    async def lease_owner(self, game_id: int) -> str | None:
        """Who holds the game's lease now (None: nobody, or it expired)."""
        async with self._read():
            row = await self._fetchone(
                "SELECT owner FROM leases WHERE game_id = ? AND expires > ?",
                (game_id, float(self._clock())),
            )
        return None if row is None else str(row["owner"])

    async def group_send(self, chat_id: int, limit: int, window: float) -> float:
        """One request to the group ``chat_id`` if fewer than ``limit`` were made (by every
        process) in the last ``window`` seconds: it is counted and 0.0 returned; otherwise
        nothing is counted and the seconds until there is room are returned."""
        _time("window", window)
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        async with self._write() as now:
            await self._exec("DELETE FROM group_sends WHERE chat_id = ? AND at <= ?",
                             (chat_id, now - window))
            rows = await self._fetchall(
                "SELECT at FROM group_sends WHERE chat_id = ? ORDER BY at DESC LIMIT ?",
                (chat_id, limit))
            if len(rows) >= limit:
                return max(0.001, float(rows[limit - 1]["at"]) + window - now)
            await self._exec("INSERT INTO group_sends (chat_id, at) VALUES (?, ?)",
                             (chat_id, now))
        return 0.0

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]:
        """Claim the right to send the message ``slot`` of ``chat_id`` as a new message.

        Returns ``(True, None)``: ``owner`` claimed it (send it, then ``message_sent``);
        ``(False, message_id)``: it was sent already (edit that message);
        ``(False, None)``: another process is sending it now (ask again soon).  A claim
        without a message id older than ``stale_after`` seconds (its process died
        mid-send) is taken over."""
        async with self._write() as now:
            n = await self._exec(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES (?, ?, ?, NULL, ?)"
                " ON CONFLICT (chat_id, slot) DO UPDATE SET owner = excluded.owner,"
                " claimed = excluded.claimed"
                " WHERE sent_messages.message_id IS NULL"
                " AND (sent_messages.owner = excluded.owner OR sent_messages.claimed <= ?)",
                (chat_id, slot, owner, now, now - stale_after),
            )
            if n == 1:
                return True, None
            row = await self._fetchone(
                "SELECT message_id FROM sent_messages WHERE chat_id = ? AND slot = ?",
                (chat_id, slot))
        mid = None if row is None else _opt_int(row["message_id"])
        return False, mid

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        """The message of ``slot`` is ``message_id`` (sent, or a message renamed into the
        slot); None forgets the slot (its message is gone: the next claim sends anew)."""
        async with self._write() as now:
            if message_id is None:
                await self._exec("DELETE FROM sent_messages WHERE chat_id = ? AND slot = ?",
                                 (chat_id, slot))
                return
            await self._exec(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES (?, ?, '', ?, ?) ON CONFLICT (chat_id, slot) DO UPDATE"
                " SET message_id = excluded.message_id",
                (chat_id, slot, message_id, now),
            )

    async def prune_coordination(self, older_than: float) -> int:
        """Forget sent-message claims and group requests older than ``older_than``
        seconds; returns the rows deleted."""
        _time("older_than", older_than)
        async with self._write() as now:
            n = await self._exec("DELETE FROM sent_messages WHERE claimed <= ?",
                                 (now - older_than,))
            n += await self._exec("DELETE FROM group_sends WHERE at <= ?",
                                  (now - max(older_than, 60.0),))
        return n


def _stats(row: sqlite3.Row) -> PlayerStats:
    keys = row.keys()
    return PlayerStats(
        player=str(row["player"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        place_sum=float(row["place_sum"]),
        declared=int(row["declared"]),
        made=int(row["made"]),
        falls=int(row["falls"]),
        bolts=int(row["bolts"]),
        mu=_opt_float(row["mu"]),
        sigma=_opt_float(row["sigma"]),
        updated=float(row["updated"]),
        name=_opt_str(row["name"]) if "name" in keys else None,
    )


def _reason(reason: str) -> str:
    if not isinstance(reason, str):
        raise TypeError(f"reason must be text, got {type(reason).__name__}")
    return reason[:_REASON_MAX]


def _check_outcome(outcome: Outcome) -> None:
    if outcome.winner_seat is not None and (_int64("winner_seat", outcome.winner_seat) < 0):
        raise ValueError(f"winner_seat must be >= 0, got {outcome.winner_seat}")
    _json("totals", outcome.totals)


# --------------------------------------------------------------------------- on the thread
# Plain sqlite3 functions run on aiosqlite's thread by ``Storage._transact``.


class _Abandoned(Exception):
    """The caller was cancelled before COMMIT: the transaction is rolled back."""


def _in_transaction(
    conn: sqlite3.Connection,
    abandoned: Callable[[], bool],
    body: Callable[[sqlite3.Connection], _T],
) -> _T:
    if abandoned():
        raise _Abandoned
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = body(conn)
        if abandoned():
            raise _Abandoned
        conn.execute("COMMIT")
    except BaseException as e:
        try:
            conn.rollback()  # a no-op if COMMIT itself failed and ended the transaction
        except sqlite3.Error:
            LOG.error("rollback failed after %r", e, exc_info=True)
        raise
    return result


@dataclass(slots=True, eq=False)
class _Move:
    """A move waiting for ``Storage._flush_moves``: ``_append``'s arguments after ``now``."""

    args: tuple[int, int, str, str, float | None, list[tuple[int, str]], Outcome | None, bool]
    future: asyncio.Future[int]
    now: float = 0.0
    abandoned: bool = False  # the caller was cancelled (set on the loop, read on the thread)


def _settle(future: asyncio.Future[int], error: BaseException) -> None:
    if future.done():
        return
    if isinstance(error, asyncio.CancelledError):
        future.cancel()
    else:
        future.set_exception(error)


def _append_moves(
    conn: sqlite3.Connection, batch: list[_Move]
) -> list[int | BaseException]:
    """One transaction for ``batch``: each move's version or why it was refused."""
    if len(batch) == 1:
        (move,) = batch
        return [_in_transaction(
            conn, lambda: move.abandoned, lambda c: _append(c, move.now, *move.args)
        )]
    results: list[int | BaseException] = []

    def body(c: sqlite3.Connection) -> None:
        for move in batch:
            if move.abandoned:  # cancelled before its turn: not written
                results.append(_Abandoned())
                continue
            c.execute("SAVEPOINT move")
            try:
                results.append(_append(c, move.now, *move.args))
            except Exception as e:
                if not c.in_transaction:  # SQLite ended the whole transaction (disk, ...)
                    raise
                c.execute("ROLLBACK TO move")
                results.append(e)
            c.execute("RELEASE move")

    _in_transaction(conn, lambda: all(m.abandoned for m in batch), body)
    return results


_APPEND_SQL: Final = (
    "INSERT INTO game_actions (game_id, seq, action, created) VALUES (?, ?, ?, ?)"
)
_MOVE_SQL: Final = (
    "UPDATE games SET version = ?, snapshot = ?, deadline = ?, updated = ?,"
    " human_moved = CASE WHEN ? THEN ? ELSE human_moved END"
    " WHERE game_id = ? AND version = ? AND status = 'playing'"
)
_LAST_MOVE_SQL: Final = (  # the move that ends the game: finish_game's status change too
    "UPDATE games SET version = ?, snapshot = ?, deadline = NULL, updated = ?,"
    " human_moved = CASE WHEN ? THEN ? ELSE human_moved END, status = ?, lobby_code = NULL"
    " WHERE game_id = ? AND version = ? AND status = 'playing'"
)
_SHEET_SQL: Final = (
    "INSERT INTO score_sheets (game_id, deal_no, data, created, seq) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data"
)
_RESULT_SQL: Final = (
    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
    " VALUES (?, ?, ?, ?, ?)"
)


def _append(
    conn: sqlite3.Connection,
    now: float,
    game_id: int,
    expected: int,
    action: str,
    snapshot: str,
    deadline: float | None,
    rows: list[tuple[int, str]],
    outcome: Outcome | None,
    human: bool,
) -> int:
    """``append_action``'s statements: the action, the version-checked game update, the
    sheet rows, the result.  The action goes first because the log's trigger wants its seq
    to be the stored version + 1 (it refuses a stale version already); the update's
    ``version = ? AND status = 'playing'`` decides the rest.  Only a refused move reads
    the game, to raise the right conflict."""
    version = expected + 1
    try:
        conn.execute(_APPEND_SQL, (game_id, version, action, now))
    except sqlite3.IntegrityError:
        _refused(conn, game_id, expected)
        raise
    if outcome is None:
        changed = conn.execute(
            _MOVE_SQL,
            (version, snapshot, deadline, now, int(human), now, game_id, expected),
        ).rowcount
    else:
        changed = conn.execute(
            _LAST_MOVE_SQL,
            (version, snapshot, now, int(human), now,
             "stopped" if outcome.stopped else "finished", game_id, expected),
        ).rowcount
    if changed != 1:
        _refused(conn, game_id, expected)
        raise StorageFailure(f"game {game_id}: the move at version {expected} was not stored")
    if rows:
        conn.executemany(
            _SHEET_SQL, [(game_id, deal_no, data, now, version) for deal_no, data in rows]
        )
    if outcome is not None:
        conn.execute(
            _RESULT_SQL,
            (game_id, now, outcome.winner_seat, outcome.totals, int(outcome.stopped)),
        )
    return version


def _refused(conn: sqlite3.Connection, game_id: int, expected: int) -> None:
    """Raise why a move at ``expected`` cannot be stored, if that is the game's state."""
    row = conn.execute(
        "SELECT status, version FROM games WHERE game_id = ?", (game_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"game {game_id}")
    status, version = str(row[0]), int(row[1])
    if status != "playing":
        raise StatusConflict(game_id, status, ("playing",))
    if version != expected:
        raise VersionConflict(game_id, expected, version)


def _set_message_ids(conn: sqlite3.Connection, now: float, game_id: int, ids: str) -> None:
    changed = conn.execute(
        "UPDATE games SET message_ids = ?, updated = ? WHERE game_id = ?", (ids, now, game_id)
    ).rowcount
    if changed != 1:
        raise NotFound(f"game {game_id}")


def _upsert_user(
    conn: sqlite3.Connection,
    now: float,
    user_id: int,
    first_name: str,
    username: str | None,
    language: Language | None,
) -> User:
    conn.execute(
        "INSERT INTO users (user_id, first_name, username, language, created, updated)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name,"
        " username = excluded.username, updated = excluded.updated"
        " WHERE users.first_name IS NOT excluded.first_name"
        " OR users.username IS NOT excluded.username",
        (user_id, first_name, username, language, now, now),
    )
    row = conn.execute("SELECT * FROM users WHERE user_id = ?", (user_id,)).fetchone()
    assert row is not None
    return _user(row)


def _upsert_chat(
    conn: sqlite3.Connection, now: float, chat_id: int, kind: ChatKind, language: Language
) -> Chat:
    conn.execute(
        "INSERT INTO chats (chat_id, kind, language, created, updated) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id) DO UPDATE SET kind = excluded.kind,"
        " updated = excluded.updated WHERE chats.kind IS NOT excluded.kind",
        (chat_id, kind, language, now, now),
    )
    row = conn.execute("SELECT * FROM chats WHERE chat_id = ?", (chat_id,)).fetchone()
    assert row is not None
    return _chat(row)


_K = TypeVar("_K")


def _cached(cache: dict[int, tuple[float, _K]], key: int) -> _K | None:
    entry = cache.get(key)
    if entry is None or time.monotonic() - entry[0] > _CACHE_MAX_AGE:
        return None
    return entry[1]


def _remember(cache: dict[int, tuple[float, _K]], key: int, value: _K) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = (time.monotonic(), value)


async def _migrate(db: aiosqlite.Connection, path: str, migrations: Sequence[Migration]) -> None:
    """Apply the pending migrations, each in its own transaction with its user_version."""
    while True:
        await db.execute("BEGIN IMMEDIATE")
        try:
            async with db.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            version = int(row[0]) if row is not None else 0
            if version > len(migrations):
                raise SchemaTooNew(
                    f"{path}: schema version {version} is newer than this program's "
                    f"{len(migrations)}"
                )
            if version == len(migrations):
                await db.execute("COMMIT")
                return
            for statement in migrations[version]:
                await db.execute(statement)
            broken = list(await db.execute_fetchall("PRAGMA foreign_key_check"))
            if broken:
                raise StorageFailure(
                    f"{path}: migration {version + 1} breaks {len(broken)} foreign key(s), "
                    f"first in table {broken[0][0]!r}"
                )
            await db.execute(f"PRAGMA user_version = {version + 1:d}")
            await db.execute("COMMIT")
            LOG.info("%s: migrated the schema to version %d", path, version + 1)
        except BaseException:
            await db.rollback()
            raise
