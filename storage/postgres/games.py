"""Games on PostgreSQL: the lobby, the end of a game, the queries and the export (the
moves are ``storage.postgres.writer``).  The game writes lock the game row (``SELECT ...
FOR UPDATE``); the unique indexes keep one active game per chat and lobby codes unique
across processes.  Each write of a game's row notifies the change feed in the same
statement (``RETURNING pg_notify(...)``, delivered when the transaction commits)."""

from __future__ import annotations

import json
from typing import Final

import asyncpg

from storage.base import Ending, LobbyEdit, NewGame
from storage.checks import check_int64, check_json, check_thread, check_time, cutoff
from storage.errors import (
    ActiveGameConflict,
    LobbyCodeTaken,
    NotFound,
    StatusConflict,
    StorageFailure,
)
from storage.models import Game, GameResult, Outcome, ScoreRow
from storage.postgres.connection import Connection, Pool, unique
from storage.postgres.feed import NOTIFY_SQL
from storage.record import build_record
from storage.rows import ACTIVE_SQL, GAME_COLUMNS, game_row, result_row, score_row
from storage.sql import NEW_GAME_CLASHES, numbered
from storage.state import (
    check_active,
    check_ending,
    check_lobby,
    check_new_game,
    check_playing,
)

__all__ = ["ONE_ACTIVE_INDEX", "Games", "active_game", "clashing_game", "require_game"]

ONE_ACTIVE_INDEX: Final = "games_one_active_per_thread"
"""The unique index of one game in lobby/playing per (chat, thread) (schema version 5)."""
_NEW_GAME_CLASHES: Final = numbered(NEW_GAME_CLASHES)
_NOTIFY: Final = f" RETURNING {NOTIFY_SQL}"
"""Every write of a game's row tells the feed (``storage.postgres.feed``) in its statement."""

class Games:
    """The ``games`` table with its ``game_actions``, ``score_sheets`` and ``results``."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    # ------------------------------------------------------------------ lobby

    async def create_game(self, new: NewGame) -> int:
        chat_id, code = new.chat_id, new.lobby_code
        try:
            async with self._pg.tx() as (conn, now):
                check_new_game(new, await conn.fetchrow(
                    _NEW_GAME_CLASHES, chat_id, chat_id, new.thread_id, code))
                game_id = await conn.fetchval(
                    "INSERT INTO games (chat_id, status, creator_id, created, updated, rules,"
                    " seed, seats, deadline, lobby_code, thread_id)"
                    " VALUES ($1, 'lobby', $2, $3, $3, $4, $5, $6, $7, $8, $9)"
                    f" RETURNING game_id, {NOTIFY_SQL}",
                    chat_id, new.creator_id, now, new.rules, new.seed, new.seats, new.deadline,
                    code, new.thread_id,
                )
        except StorageFailure as e:
            # Another process created a game or took the code between the check and the
            # insert: the unique index refused it.
            constraint = unique(e)
            if constraint == ONE_ACTIVE_INDEX:
                active = await self.active_game(chat_id, thread_id=new.thread_id)
                raise ActiveGameConflict(chat_id, active.game_id if active else 0) from e
            if constraint == "games_lobby_code" and code is not None:
                raise LobbyCodeTaken(code) from e
            if isinstance(e.__cause__, asyncpg.exceptions.ForeignKeyViolationError):
                raise NotFound(f"chat {chat_id}") from e  # the chat moved meanwhile
            raise
        return int(game_id)

    async def update_lobby(self, edit: LobbyEdit) -> int:
        async with self._pg.tx() as (conn, now):
            await _lobby_game(conn, edit)
            await conn.execute(
                "UPDATE games SET seats = COALESCE($1, seats), rules = COALESCE($2, rules),"
                f" lobby_rev = lobby_rev + 1, updated = $3 WHERE game_id = $4{_NOTIFY}",
                edit.seats, edit.rules, now, edit.game_id,
            )
        return edit.expected_lobby_rev + 1

    async def start_game(self, edit: LobbyEdit, snapshot: str, deadline: float | None) -> None:
        async with self._pg.tx() as (conn, now):
            await _lobby_game(conn, edit)
            await conn.execute(
                "UPDATE games SET status = 'playing', snapshot = $1, deadline = $2,"
                " seats = COALESCE($3, seats), rules = COALESCE($4, rules),"
                " lobby_rev = lobby_rev + 1, updated = $5, human_moved = $5"
                f" WHERE game_id = $6{_NOTIFY}",
                snapshot, deadline, edit.seats, edit.rules, now, edit.game_id,
            )

    async def cancel_lobby(self, game_id: int) -> None:
        async with self._pg.tx() as (conn, now):
            game = await require_game(conn, game_id, lock=True)
            if game.status != "lobby":
                raise StatusConflict(game_id, game.status, ("lobby",))
            await conn.execute(
                "UPDATE games SET status = 'stopped', deadline = NULL, lobby_code = NULL,"
                f" updated = $1 WHERE game_id = $2{_NOTIFY}",
                now, game_id,
            )

    # ------------------------------------------------------------------ play

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
            f"UPDATE games SET seats = $1, updated = $2 WHERE game_id = $3{_NOTIFY}",
            seats, self._pg.now(), check_int64("game_id", game_id),
        )

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        check_time("deadline", deadline)
        async with self._pg.tx() as (conn, now):
            check_active(await require_game(conn, game_id, lock=True), expected_version)
            await conn.execute(
                f"UPDATE games SET deadline = $1, updated = $2 WHERE game_id = $3{_NOTIFY}",
                deadline, now, game_id,
            )

    async def finish_game(
        self, game_id: int, outcome: Outcome, expected_version: int | None
    ) -> GameResult:
        async with self._pg.tx() as (conn, now):
            check_playing(await require_game(conn, game_id, lock=True), expected_version)
            await _finish(conn, game_id, outcome, now)
            row = await conn.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        return result_row(row)

    # ------------------------------------------------------------------ the end

    async def end_game(self, ending: Ending) -> Game:
        game_id = ending.game_id
        async with self._pg.tx() as (conn, now):
            game = check_ending(await require_game(conn, game_id, lock=True), ending)
            if game.status == "playing" and ending.totals is not None:
                await conn.execute(
                    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
                    " VALUES ($1, $2, NULL, $3, TRUE)",
                    game_id, now, ending.totals,
                )
            row = await conn.fetchrow(
                "UPDATE games SET status = $1, reason = $2, deadline = NULL, lobby_code = NULL,"
                f" updated = $3 WHERE game_id = $4 RETURNING {GAME_COLUMNS}, {NOTIFY_SQL}",
                ending.status, ending.reason, now, game_id,
            )
        return game_row(row)

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


async def _lobby_game(conn: Connection, edit: LobbyEdit) -> Game:
    return check_lobby(await require_game(conn, edit.game_id, lock=True), edit)


async def active_game(conn: Connection, chat_id: int, thread_id: int | None) -> Game | None:
    """As SQLite's (``storage.sqlite.games.active_game``)."""
    row = await conn.fetchrow(
        f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = $1"
        f" AND thread_id IS NOT DISTINCT FROM $2 AND {ACTIVE_SQL}",
        chat_id, thread_id,
    )
    return None if row is None else game_row(row)


async def clashing_game(conn: Connection, old_id: int, new_id: int) -> Game | None:
    """As SQLite's (``storage.sqlite.games.clashing_game``)."""
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


async def _finish(conn: Connection, game_id: int, outcome: Outcome, now: float) -> None:
    await conn.execute(
        "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
        " VALUES ($1, $2, $3, $4, $5)",
        game_id, now, outcome.winner_seat, outcome.totals, bool(outcome.stopped),
    )
    await conn.execute(
        "UPDATE games SET status = $1, deadline = NULL, lobby_code = NULL, updated = $2"
        f" WHERE game_id = $3{_NOTIFY}",
        "stopped" if outcome.stopped else "finished", now, game_id,
    )
