"""Games on PostgreSQL: the lobby, the moves, the end of a game, the queries and the
export.  A move is one statement (``_APPEND_SQL``); the other game writes lock the game
row (``SELECT ... FOR UPDATE``); the unique indexes keep one active game per chat and
lobby codes unique across processes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Final, NoReturn

import asyncpg

from storage.checks import (
    check_int64,
    check_json,
    check_outcome,
    check_reason,
    check_thread,
    check_time,
    cutoff,
)
from storage.errors import (
    ActiveGameConflict,
    LobbyCodeTaken,
    NotFound,
    StatusConflict,
    StorageFailure,
    VersionConflict,
)
from storage.models import ACTIVE_STATUSES, Game, GameResult, GameStatus, Outcome, ScoreRow
from storage.postgres.connection import Connection, Pool, unique
from storage.record import build_record
from storage.rows import ACTIVE_SQL, GAME_COLUMNS, game_row, result_row, score_row

__all__ = ["ONE_ACTIVE_INDEX", "Games", "active_game", "clashing_game", "require_game"]

ONE_ACTIVE_INDEX: Final = "games_one_active_per_thread"
"""The unique index of one game in lobby/playing per (chat, thread) (schema version 5)."""

# A move in one statement: the version-checked UPDATE of the game, the action (seq = the new
# version), the score-sheet rows and, for the last move, the result.  When the UPDATE
# matches no row nothing is written, and the last SELECT tells why (its snapshot is the
# statement's start, so it shows the game as the UPDATE found it).
_APPEND_SQL: Final = """
WITH g AS (
    UPDATE games SET
        version = version + 1,
        snapshot = $4::text,
        updated = $6::double precision,
        deadline = CASE WHEN $10::boolean THEN NULL ELSE $5::double precision END,
        human_moved = CASE WHEN $7::boolean THEN $6::double precision ELSE human_moved END,
        status = CASE WHEN $10::boolean THEN $11::text ELSE status END,
        lobby_code = CASE WHEN $10::boolean THEN NULL ELSE lobby_code END
    WHERE game_id = $1::bigint AND version = $2::integer AND status = 'playing'
    RETURNING game_id, version
), a AS (
    INSERT INTO game_actions (game_id, seq, action, created)
    SELECT game_id, version, $3::text, $6::double precision FROM g
), s AS (
    INSERT INTO score_sheets (game_id, deal_no, data, created, seq)
    SELECT g.game_id, r.deal_no, r.data, $6::double precision, g.version
    FROM g, unnest($8::bigint[], $9::text[]) AS r (deal_no, data)
    ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data
), r AS (
    INSERT INTO results (game_id, finished, winner_seat, totals, stopped)
    SELECT game_id, $6::double precision, $12::bigint, $13::text, $14::boolean
    FROM g WHERE $10::boolean
)
SELECT (SELECT version FROM g) AS new_version, status, version
FROM games WHERE game_id = $1::bigint
"""


class Games:
    """The ``games`` table with its ``game_actions``, ``score_sheets`` and ``results``."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    # ------------------------------------------------------------------ lobby

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
        thread_id: int | None = None,
    ) -> int:
        check_int64("chat_id", chat_id)
        check_int64("creator_id", creator_id)
        check_int64("seed", seed)
        check_json("rules", rules)
        check_json("seats", seats)
        check_time("deadline", deadline)
        check_thread(thread_id)
        try:
            async with self._pg.tx() as (conn, now):
                if await conn.fetchval("SELECT 1 FROM chats WHERE chat_id = $1", chat_id) is None:
                    raise NotFound(f"chat {chat_id}")
                active = await active_game(conn, chat_id, thread_id)
                if active is not None:
                    raise ActiveGameConflict(chat_id, active.game_id)
                if lobby_code is not None and await _game_by_code(conn, lobby_code) is not None:
                    raise LobbyCodeTaken(lobby_code)
                game_id = await conn.fetchval(
                    "INSERT INTO games (chat_id, status, creator_id, created, updated, rules,"
                    " seed, seats, deadline, lobby_code, thread_id)"
                    " VALUES ($1, 'lobby', $2, $3, $3, $4, $5, $6, $7, $8, $9) RETURNING game_id",
                    chat_id, creator_id, now, rules, seed, seats, deadline, lobby_code, thread_id,
                )
        except StorageFailure as e:
            # Another process created a game or took the code between the check and the
            # insert: the unique index refused it.
            constraint = unique(e)
            if constraint == ONE_ACTIVE_INDEX:
                active = await self.active_game(chat_id, thread_id=thread_id)
                raise ActiveGameConflict(chat_id, active.game_id if active else 0) from e
            if constraint == "games_lobby_code" and lobby_code is not None:
                raise LobbyCodeTaken(lobby_code) from e
            if isinstance(e.__cause__, asyncpg.exceptions.ForeignKeyViolationError):
                raise NotFound(f"chat {chat_id}") from e  # the chat moved meanwhile
            raise
        return int(game_id)

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int:
        if seats is not None:
            check_json("seats", seats)
        if rules is not None:
            check_json("rules", rules)
        async with self._pg.tx() as (conn, now):
            await _lobby_game(conn, game_id, expected_lobby_rev)
            await conn.execute(
                "UPDATE games SET seats = COALESCE($1, seats), rules = COALESCE($2, rules),"
                " lobby_rev = lobby_rev + 1, updated = $3 WHERE game_id = $4",
                seats, rules, now, game_id,
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
        check_json("snapshot", snapshot)
        check_time("deadline", deadline)
        if seats is not None:
            check_json("seats", seats)
        if rules is not None:
            check_json("rules", rules)
        async with self._pg.tx() as (conn, now):
            await _lobby_game(conn, game_id, expected_lobby_rev)
            await conn.execute(
                "UPDATE games SET status = 'playing', snapshot = $1, deadline = $2,"
                " seats = COALESCE($3, seats), rules = COALESCE($4, rules),"
                " lobby_rev = lobby_rev + 1, updated = $5, human_moved = $5"
                " WHERE game_id = $6",
                snapshot, deadline, seats, rules, now, game_id,
            )

    async def cancel_lobby(self, game_id: int) -> None:
        async with self._pg.tx() as (conn, now):
            game = await require_game(conn, game_id, lock=True)
            if game.status != "lobby":
                raise StatusConflict(game_id, game.status, ("lobby",))
            await conn.execute(
                "UPDATE games SET status = 'stopped', deadline = NULL, lobby_code = NULL,"
                " updated = $1 WHERE game_id = $2",
                now, game_id,
            )

    # ------------------------------------------------------------------ play

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
        message_ids: str | None = None,
    ) -> int:
        """One statement (one round trip, its own transaction): see ``_APPEND_SQL``."""
        return await self.append_actions(
            game_id, expected_version, (action,), snapshot, deadline=deadline,
            sheet_rows=sheet_rows, outcome=outcome, human=human, message_ids=message_ids)

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[str],
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
        message_ids: str | None = None,
    ) -> int:
        """Moves that follow each other in ONE transaction (see the SQLite backend): one
        ``_APPEND_SQL`` per action, the sheet rows and the outcome with the last; a single
        action is the statement alone, its own transaction.  ``message_ids``: the game's
        message ids (``set_message_ids``) stored in the same transaction."""
        check_int64("game_id", game_id)
        check_int64("expected_version", expected_version)
        if not actions:
            raise ValueError("append_actions: no actions")
        for action in actions:
            check_json("action", action)
        check_json("snapshot", snapshot)
        check_time("deadline", deadline)
        sheet: dict[int, str] = {}
        for deal_no, data in sheet_rows:  # a deal given twice: the last data, as SQLite's
            sheet[check_int64("deal_no", deal_no)] = check_json("sheet data", data)
        if outcome is not None:
            check_outcome(outcome)
        if message_ids is not None:
            check_json("message_ids", message_ids)
        finish = outcome is not None

        def args(i: int, action: str, now: float) -> tuple[object, ...]:
            last = i == len(actions) - 1
            return (
                game_id, expected_version + i, action, snapshot, deadline, now, bool(human),
                list(sheet) if last else [], list(sheet.values()) if last else [],
                finish and last,
                ("stopped" if outcome.stopped else "finished") if outcome else None,
                outcome.winner_seat if outcome else None,
                outcome.totals if outcome else None,
                bool(outcome.stopped) if outcome else None,
            )

        if len(actions) == 1 and message_ids is None:
            row = await self._pg.fetchrow(_APPEND_SQL, *args(0, actions[0], self._pg.now()))
            if row is not None and row["new_version"] is not None:
                return int(row["new_version"])
            await self._refused(row, game_id, expected_version)
        async with self._pg.tx() as (conn, now):
            for i, action in enumerate(actions):
                row = await conn.fetchrow(_APPEND_SQL, *args(i, action, now))
                if row is None or row["new_version"] is None:
                    await self._refused(row, game_id, expected_version + i)
            if message_ids is not None:
                await conn.execute("UPDATE games SET message_ids = $1 WHERE game_id = $2",
                                   message_ids, game_id)
        return expected_version + len(actions)

    async def _refused(self, row: asyncpg.Record | None, game_id: int,
                       expected: int) -> NoReturn:
        """Raise why ``_APPEND_SQL`` at version ``expected`` changed nothing."""
        if row is None:
            raise NotFound(f"game {game_id}")
        status, version = str(row["status"]), int(row["version"])
        if status == "playing" and version == expected:
            # Another transaction moved the game while this one waited for the row: the
            # statement's snapshot is older than what the UPDATE saw; read it again.
            game = await self.get_game(game_id)
            if game is None:
                raise NotFound(f"game {game_id}")
            status, version = game.status, game.version
        if status != "playing":
            raise StatusConflict(game_id, status, ("playing",))
        raise VersionConflict(game_id, expected, version)

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        check_int64("game_id", game_id)
        rows = await self._pg.fetch(
            "SELECT action FROM game_actions WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            game_id, check_int64("after", after),
        )
        return [str(r["action"]) for r in rows]

    async def set_message_ids(self, game_id: int, message_ids: str) -> None:
        check_json("message_ids", message_ids)
        await self._pg.update_one(
            f"game {game_id}",
            "UPDATE games SET message_ids = $1, updated = $2 WHERE game_id = $3",
            message_ids, self._pg.now(), check_int64("game_id", game_id),
        )

    async def set_seats(self, game_id: int, seats: str) -> None:
        """Who sits in each seat now (see the SQLite backend); ``NotFound``."""
        check_json("seats", seats)
        await self._pg.update_one(
            f"game {game_id}",
            "UPDATE games SET seats = $1, updated = $2 WHERE game_id = $3",
            seats, self._pg.now(), check_int64("game_id", game_id),
        )

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        check_time("deadline", deadline)
        async with self._pg.tx() as (conn, now):
            game = await require_game(conn, game_id, lock=True)
            if not game.active:
                raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await conn.execute(
                "UPDATE games SET deadline = $1, updated = $2 WHERE game_id = $3",
                deadline, now, game_id,
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
        outcome = Outcome(winner_seat=winner_seat, totals=totals, stopped=stopped)
        check_outcome(outcome)
        async with self._pg.tx() as (conn, now):
            game = await require_game(conn, game_id, lock=True)
            if game.status != "playing":
                raise StatusConflict(game_id, game.status, ("playing",))
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await _finish(conn, game_id, outcome, now)
            row = await conn.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        return result_row(row)

    # ------------------------------------------------------------------ the end

    async def expire_game(
        self,
        game_id: int,
        *,
        reason: str = "idle",
        totals: str | None = None,
        expected_version: int | None = None,
        expected_lobby_rev: int | None = None,
    ) -> Game:
        if totals is not None:
            check_json("totals", totals)
        text = check_reason(reason)
        async with self._pg.tx() as (conn, now):
            game = await _end_check(conn, game_id, expected_version, expected_lobby_rev)
            if game.status == "playing" and totals is not None:
                await conn.execute(
                    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
                    " VALUES ($1, $2, NULL, $3, TRUE)",
                    game_id, now, totals,
                )
            return await _end(conn, game_id, "expired", text, now)

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game:
        text = check_reason(reason)
        async with self._pg.tx() as (conn, now):
            await _end_check(conn, game_id, expected_version, None)
            return await _end(conn, game_id, "broken", text, now)

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        rows = await self._pg.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'lobby' AND updated < $1"
            " ORDER BY updated, game_id",
            cutoff(idle_for, now, self._pg.clock),
        )
        return [game_row(r) for r in rows]

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        rows = await self._pg.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing'"
            " AND COALESCE(human_moved, updated) < $1"
            " ORDER BY COALESCE(human_moved, updated), game_id",
            cutoff(idle_for, now, self._pg.clock),
        )
        return [game_row(r) for r in rows]

    async def export_game(self, game_id: int) -> str:
        check_int64("game_id", game_id)
        async with self._pg.conn() as conn, conn.transaction(
            isolation="repeatable_read", readonly=True
        ):
            game = await require_game(conn, game_id)
            log = await conn.fetch(
                "SELECT seq, action FROM game_actions WHERE game_id = $1 ORDER BY seq", game_id
            )
            ends = await conn.fetch(
                "SELECT seq FROM score_sheets WHERE game_id = $1 ORDER BY deal_no", game_id
            )
            row = await conn.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        record = build_record(
            game,
            [(int(r["seq"]), str(r["action"])) for r in log],
            [None if r["seq"] is None else int(r["seq"]) for r in ends],
            None if row is None else result_row(row),
        )
        return json.dumps(record, ensure_ascii=False, indent=1)

    # ------------------------------------------------------------------ queries

    async def get_game(self, game_id: int) -> Game | None:
        check_int64("game_id", game_id)
        row = await self._pg.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = $1", game_id
        )
        return None if row is None else game_row(row)

    async def active_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        check_int64("chat_id", chat_id)
        check_thread(thread_id)
        async with self._pg.conn() as conn:
            return await active_game(conn, chat_id, thread_id)

    async def active_games(self, chat_id: int) -> list[Game]:
        rows = await self._pg.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1 AND {ACTIVE_SQL}"
            " ORDER BY game_id",
            check_int64("chat_id", chat_id),
        )
        return [game_row(r) for r in rows]

    async def game_by_lobby_code(self, code: str) -> Game | None:
        async with self._pg.conn() as conn:
            return await _game_by_code(conn, code)

    async def games_in_progress(self) -> list[Game]:
        rows = await self._pg.fetch(
            f"SELECT {GAME_COLUMNS} FROM games WHERE {ACTIVE_SQL} ORDER BY game_id"
        )
        return [game_row(r) for r in rows]

    async def last_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        check_int64("chat_id", chat_id)
        check_thread(thread_id)
        row = await self._pg.fetchrow(
            f"SELECT {GAME_COLUMNS} FROM games g WHERE chat_id = $1"
            " AND thread_id IS NOT DISTINCT FROM $2"
            " AND (status IN ('lobby', 'playing', 'finished')"
            "      OR EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.game_id))"
            " ORDER BY game_id DESC LIMIT 1",
            chat_id, thread_id,
        )
        return None if row is None else game_row(row)

    async def score_sheet(self, game_id: int) -> list[ScoreRow]:
        check_int64("game_id", game_id)
        rows = await self._pg.fetch(
            "SELECT game_id, deal_no, data, created FROM score_sheets WHERE game_id = $1"
            " ORDER BY deal_no",
            game_id,
        )
        return [score_row(r) for r in rows]

    async def get_result(self, game_id: int) -> GameResult | None:
        check_int64("game_id", game_id)
        row = await self._pg.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        return None if row is None else result_row(row)


# --------------------------------------------------------------------------- helpers
# Statements on a connection (in a transaction) the caller holds.


async def require_game(conn: Connection, game_id: int, *, lock: bool = False) -> Game:
    row = await conn.fetchrow(
        f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = $1"
        + (" FOR UPDATE" if lock else ""),
        check_int64("game_id", game_id),
    )
    if row is None:
        raise NotFound(f"game {game_id}")
    return game_row(row)


async def _lobby_game(conn: Connection, game_id: int, expected_lobby_rev: int) -> Game:
    game = await require_game(conn, game_id, lock=True)
    if game.status != "lobby":
        raise StatusConflict(game_id, game.status, ("lobby",))
    if game.lobby_rev != expected_lobby_rev:
        raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
    return game


async def active_game(conn: Connection, chat_id: int, thread_id: int | None) -> Game | None:
    """The game in lobby or playing in the thread of the chat (None: General), if any."""
    row = await conn.fetchrow(
        f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1"
        f" AND thread_id IS NOT DISTINCT FROM $2 AND {ACTIVE_SQL}",
        chat_id, thread_id,
    )
    return None if row is None else game_row(row)


async def clashing_game(conn: Connection, old_id: int, new_id: int) -> Game | None:
    """``migrate_chat``: a game in lobby/playing of ``new_id`` in a thread where ``old_id``
    has one too (the move would leave two in one place), if any."""
    row = await conn.fetchrow(
        f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $2 AND {ACTIVE_SQL}"
        " AND EXISTS (SELECT 1 FROM games o WHERE o.chat_id = $1"
        "             AND o.status IN ('lobby', 'playing')"
        "             AND o.thread_id IS NOT DISTINCT FROM games.thread_id)"
        " ORDER BY game_id LIMIT 1",
        old_id, new_id,
    )
    return None if row is None else game_row(row)


async def _game_by_code(conn: Connection, code: str) -> Game | None:
    row = await conn.fetchrow(
        f"SELECT {GAME_COLUMNS} FROM games WHERE lobby_code = $1", code
    )
    return None if row is None else game_row(row)


async def _end_check(
    conn: Connection, game_id: int, expected_version: int | None, expected_lobby_rev: int | None
) -> Game:
    game = await require_game(conn, game_id, lock=True)
    if not game.active:
        raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
    if expected_version is not None and game.version != expected_version:
        raise VersionConflict(game_id, expected_version, game.version)
    if expected_lobby_rev is not None and game.lobby_rev != expected_lobby_rev:
        raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
    return game


async def _end(
    conn: Connection, game_id: int, status: GameStatus, reason: str, now: float
) -> Game:
    row = await conn.fetchrow(
        "UPDATE games SET status = $1, reason = $2, deadline = NULL, lobby_code = NULL,"
        f" updated = $3 WHERE game_id = $4 RETURNING {GAME_COLUMNS}",
        status, reason, now, game_id,
    )
    return game_row(row)


async def _finish(conn: Connection, game_id: int, outcome: Outcome, now: float) -> None:
    await conn.execute(
        "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
        " VALUES ($1, $2, $3, $4, $5)",
        game_id, now, outcome.winner_seat, outcome.totals, bool(outcome.stopped),
    )
    await conn.execute(
        "UPDATE games SET status = $1, deadline = NULL, lobby_code = NULL, updated = $2"
        " WHERE game_id = $3",
        "stopped" if outcome.stopped else "finished", now, game_id,
    )
