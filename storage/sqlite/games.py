"""Games on SQLite: the lobby, the end of a game, the queries and the export
(``append_action``, the moves, is ``storage.sqlite.writer``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from storage.base import Ending, LobbyEdit, NewGame
from storage.checks import check_json, check_thread, check_time, cutoff
from storage.errors import NotFound, StatusConflict
from storage.models import Game, GameResult, Outcome, ScoreRow
from storage.record import build_record
from storage.rows import ACTIVE_SQL, GAME_COLUMNS, game_row, opt_int, result_row, score_row
from storage.sql import NEW_GAME_CLASHES
from storage.sqlite.connection import Database
from storage.state import (
    check_active,
    check_ending,
    check_lobby,
    check_new_game,
    check_playing,
)

__all__ = ["Games", "active_game", "clashing_game", "finish", "require_game"]


class Games:
    """The ``games`` table with its ``game_actions``, ``score_sheets`` and ``results``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # ------------------------------------------------------------------ lobby

    async def create_game(self, new: NewGame) -> int:
        db = self._db
        async with db.write() as now:
            clashes = await db.fetchone(
                NEW_GAME_CLASHES, (new.chat_id, new.chat_id, new.thread_id, new.lobby_code))
            assert clashes is not None
            check_new_game(new, clashes)
            game_id = await db.insert(
                "INSERT INTO games (chat_id, status, creator_id, created, updated, rules, seed,"
                " seats, deadline, lobby_code, thread_id)"
                " VALUES (?, 'lobby', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (new.chat_id, new.creator_id, now, now, new.rules, new.seed, new.seats,
                 new.deadline, new.lobby_code, new.thread_id),
            )
            db.changed(game_id, 0)
        return game_id

    async def update_lobby(self, edit: LobbyEdit) -> int:
        async with self._db.write() as now:
            game = await _lobby_game(self._db, edit)
            await self._db.execute(
                "UPDATE games SET seats = ?, rules = ?, lobby_rev = lobby_rev + 1, updated = ?"
                " WHERE game_id = ?",
                (*_lobby_values(game, edit), now, edit.game_id),
            )
        return edit.expected_lobby_rev + 1

    async def start_game(self, edit: LobbyEdit, snapshot: str, deadline: float | None) -> None:
        async with self._db.write() as now:
            game = await _lobby_game(self._db, edit)
            await self._db.execute(
                "UPDATE games SET status = 'playing', snapshot = ?, deadline = ?, seats = ?,"
                " rules = ?, lobby_rev = lobby_rev + 1, updated = ?, human_moved = ?"
                " WHERE game_id = ?",
                (snapshot, deadline, *_lobby_values(game, edit), now, now, edit.game_id),
            )

    async def cancel_lobby(self, game_id: int) -> None:
        """Stop a game that never started (lobby -> stopped, no result row).

        Clears its deadline and lobby code.  ``StatusConflict`` if it is not in lobby.
        """
        async with self._db.write() as now:
            game = _changing(self._db, await require_game(self._db, game_id))
            if game.status != "lobby":
                raise StatusConflict(game_id, game.status, ("lobby",))
            await self._db.execute(
                "UPDATE games SET status = 'stopped', deadline = NULL, lobby_code = NULL,"
                " updated = ? WHERE game_id = ?",
                (now, game_id),
            )

    # ------------------------------------------------------------------ play

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        """The game's actions (JSON text) in seq order, those with seq > ``after``."""
        async with self._db.read():
            rows = await self._db.fetchall(
                "SELECT action FROM game_actions WHERE game_id = ? AND seq > ? ORDER BY seq",
                (game_id, after),
            )
        return [str(r["action"]) for r in rows]

    async def set_message_ids(self, game_id: int, message_ids: str) -> None:
        """Store the ids of the messages showing the game (opaque JSON); ``NotFound``."""
        check_json("message_ids", message_ids)
        await self._db.transact(_set_message_ids, game_id, message_ids)

    async def set_seats(self, game_id: int, seats: str) -> None:
        """Store who sits in each seat now (JSON), whatever the game's status: a person
        took a computer's seat during the game (the action log has the truth); ``NotFound``."""
        check_json("seats", seats)
        await self._db.transact(_set_seats, game_id, seats, self._db.changed)

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        """Set or clear the game's deadline, optionally only at ``expected_version``.

        ``StatusConflict`` unless the game is active; ``VersionConflict`` on a stale version.
        """
        check_time("deadline", deadline)
        async with self._db.write() as now:
            _changing(self._db, check_active(await require_game(self._db, game_id),
                                             expected_version))
            await self._db.execute(
                "UPDATE games SET deadline = ?, updated = ? WHERE game_id = ?",
                (deadline, now, game_id),
            )

    async def finish_game(
        self, game_id: int, outcome: Outcome, expected_version: int | None
    ) -> GameResult:
        async with self._db.write() as now:
            _changing(self._db, check_playing(await require_game(self._db, game_id),
                                              expected_version))
            await finish(self._db, game_id, outcome, now)
            result = await _get_result(self._db, game_id)
        assert result is not None
        return result

    # ------------------------------------------------------------------ the end

    async def end_game(self, ending: Ending) -> Game:
        """``expire_game``/``mark_broken`` (``storage.facade``)."""
        db, game_id = self._db, ending.game_id
        async with db.write() as now:
            game = _changing(db, check_ending(await require_game(db, game_id), ending))
            if game.status == "playing" and ending.totals is not None:
                await db.execute(
                    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
                    " VALUES (?, ?, NULL, ?, 1)",
                    (game_id, now, ending.totals),
                )
            await db.execute(
                "UPDATE games SET status = ?, reason = ?, deadline = NULL, lobby_code = NULL,"
                " updated = ? WHERE game_id = ?",
                (ending.status, ending.reason, now, game_id),
            )
            ended = await _get_game(db, game_id)
        assert ended is not None
        return ended

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        """Lobbies not changed (``updated``) for more than ``idle_for`` seconds, oldest first.

        ``now`` defaults to the storage clock.
        """
        before = cutoff(idle_for, now, self._db.clock)
        async with self._db.read():
            rows = await self._db.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'lobby' AND updated < ?"
                " ORDER BY updated, game_id",
                (before,),
            )
        return [game_row(r) for r in rows]

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        """Playing games without a person's move (``human_moved``: ``append_action(...,
        human=True)`` or the start) for more than ``idle_for`` seconds, oldest first.
        """
        before = cutoff(idle_for, now, self._db.clock)
        async with self._db.read():
            rows = await self._db.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing'"
                " AND COALESCE(human_moved, updated) < ?"
                " ORDER BY COALESCE(human_moved, updated), game_id",
                (before,),
            )
        return [game_row(r) for r in rows]

    async def export_game(self, game_id: int) -> str:
        """The game's record as ``thousand-record/1`` JSON text (``docs/record-format.md``).

        Built from the stored columns, for any status (``broken`` included): ``rules`` as
        stored, ``seats`` their names, the game ``seed``, and the log's moves — entries
        ``{"s": seat, "a": action}`` become ``"seat:action"``, other entries (seat
        hand-overs) are left out — cut into deals at the actions that wrote the score-sheet
        rows.  An extra ``game`` object (id, status, reason, version, times, result) is
        ignored by the replay.  ``NotFound`` for an unknown game.
        """
        db = self._db
        async with db.read():
            game = await require_game(db, game_id)
            log = await db.fetchall(
                "SELECT seq, action FROM game_actions WHERE game_id = ? ORDER BY seq", (game_id,)
            )
            ends = await db.fetchall(
                "SELECT seq FROM score_sheets WHERE game_id = ? ORDER BY deal_no", (game_id,)
            )
            result = await _get_result(db, game_id)
        record = build_record(
            game,
            [(int(r["seq"]), str(r["action"])) for r in log],
            [opt_int(r["seq"]) for r in ends],
            result,
        )
        return json.dumps(record, ensure_ascii=False, indent=1)

    # ------------------------------------------------------------------ queries

    async def get_game(self, game_id: int) -> Game | None:
        async with self._db.read():
            return await _get_game(self._db, game_id)

    async def active_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        """The game in lobby or playing in the forum topic ``thread_id`` of the chat (None:
        General, or a chat without topics), if any (there is at most one)."""
        check_thread(thread_id)
        async with self._db.read():
            return await active_game(self._db, chat_id, thread_id)

    async def active_games(self, chat_id: int) -> list[Game]:
        """The chat's games in lobby or playing in every thread, by id."""
        async with self._db.read():
            rows = await self._db.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ? AND {ACTIVE_SQL}"
                " ORDER BY game_id",
                (chat_id,),
            )
        return [game_row(r) for r in rows]

    async def game_by_lobby_code(self, code: str) -> Game | None:
        async with self._db.read():
            return await _game_by_code(self._db, code)

    async def games_in_progress(self) -> list[Game]:
        """Every game in lobby or playing, by id (to re-arm timers at start-up)."""
        async with self._db.read():
            rows = await self._db.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games WHERE {ACTIVE_SQL} ORDER BY game_id", ()
            )
        return [game_row(r) for r in rows]

    async def last_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        """The latest game in the thread of the chat (None: General, or no topics) that is
        active, finished, or was stopped after starting."""
        check_thread(thread_id)
        async with self._db.read():
            row = await self._db.fetchone(
                f"SELECT {GAME_COLUMNS} FROM games g WHERE chat_id = ? AND thread_id IS ?"
                " AND (status IN ('lobby', 'playing', 'finished')"
                "      OR EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.game_id))"
                " ORDER BY game_id DESC LIMIT 1",
                (chat_id, thread_id),
            )
        return None if row is None else game_row(row)

    async def score_sheet(self, game_id: int) -> list[ScoreRow]:
        """The game's score-sheet rows by deal number."""
        async with self._db.read():
            rows = await self._db.fetchall(
                "SELECT game_id, deal_no, data, created FROM score_sheets WHERE game_id = ?"
                " ORDER BY deal_no",
                (game_id,),
            )
        return [score_row(r) for r in rows]

    async def get_result(self, game_id: int) -> GameResult | None:
        async with self._db.read():
            return await _get_result(self._db, game_id)


# --------------------------------------------------------------------------- helpers
# Statements of a transaction (``Database.read``/``write``) the caller holds.


async def _get_game(db: Database, game_id: int) -> Game | None:
    row = await db.fetchone(f"SELECT {GAME_COLUMNS} FROM games WHERE game_id = ?", (game_id,))
    return None if row is None else game_row(row)


async def require_game(db: Database, game_id: int) -> Game:
    """The game, or ``NotFound``."""
    game = await _get_game(db, game_id)
    if game is None:
        raise NotFound(f"game {game_id}")
    return game


async def active_game(db: Database, chat_id: int, thread_id: int | None) -> Game | None:
    """The game in lobby or playing in the thread of the chat (None: General), if any."""
    row = await db.fetchone(
        f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ? AND thread_id IS ?"
        f" AND {ACTIVE_SQL}",
        (chat_id, thread_id),
    )
    return None if row is None else game_row(row)


async def clashing_game(db: Database, old_id: int, new_id: int) -> Game | None:
    """``migrate_chat``: a game in lobby/playing of ``new_id`` in a thread where ``old_id``
    has one too (the move would leave two in one place), if any."""
    row = await db.fetchone(
        f"SELECT {GAME_COLUMNS} FROM games WHERE chat_id = ? AND {ACTIVE_SQL}"
        " AND EXISTS (SELECT 1 FROM games o WHERE o.chat_id = ?"
        "             AND o.status IN ('lobby', 'playing') AND o.thread_id IS games.thread_id)"
        " ORDER BY game_id LIMIT 1",
        (new_id, old_id),
    )
    return None if row is None else game_row(row)


async def _game_by_code(db: Database, code: str) -> Game | None:
    row = await db.fetchone(f"SELECT {GAME_COLUMNS} FROM games WHERE lobby_code = ?", (code,))
    return None if row is None else game_row(row)


async def _get_result(db: Database, game_id: int) -> GameResult | None:
    row = await db.fetchone("SELECT * FROM results WHERE game_id = ?", (game_id,))
    return None if row is None else result_row(row)


async def _lobby_game(db: Database, edit: LobbyEdit) -> Game:
    """The lobby ``edit`` changes, told to the feed as changed (``Database.changed``)."""
    return _changing(db, check_lobby(await require_game(db, edit.game_id), edit))


def _changing(db: Database, game: Game) -> Game:
    """``game`` is written by the transaction: the feed is told it once it commits."""
    db.changed(game.game_id, game.version)
    return game


def _lobby_values(game: Game, edit: LobbyEdit) -> tuple[str, str]:
    """The seats and rules a lobby has after ``edit``."""
    return (game.seats if edit.seats is None else edit.seats,
            game.rules if edit.rules is None else edit.rules)


async def finish(db: Database, game_id: int, outcome: Outcome, now: float) -> None:
    """The result row and the status change of a game that ends (``finish_game``)."""
    await db.execute(
        "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
        " VALUES (?, ?, ?, ?, ?)",
        (game_id, now, outcome.winner_seat, outcome.totals, int(outcome.stopped)),
    )
    await db.execute(
        "UPDATE games SET status = ?, deadline = NULL, lobby_code = NULL, updated = ?"
        " WHERE game_id = ?",
        ("stopped" if outcome.stopped else "finished", now, game_id),
    )


def _set_seats(conn: sqlite3.Connection, now: float, game_id: int, seats: str,
               changed: Callable[[int, int], None]) -> None:
    rows = conn.execute(  # every row fetched: the statement is done before the COMMIT
        "UPDATE games SET seats = ?, updated = ? WHERE game_id = ? RETURNING version",
        (seats, now, game_id),
    ).fetchall()
    if not rows:
        raise NotFound(f"game {game_id}")
    changed(game_id, int(rows[0][0]))


def _set_message_ids(conn: sqlite3.Connection, now: float, game_id: int, ids: str) -> None:
    changed = conn.execute(
        "UPDATE games SET message_ids = ?, updated = ? WHERE game_id = ?", (ids, now, game_id)
    ).rowcount
    if changed != 1:
        raise NotFound(f"game {game_id}")
