"""The moves on PostgreSQL (``append_action``): a move is one statement (``_APPEND_SQL``),
one round trip and its own transaction; moves that follow each other (``append_actions``)
are one statement each in ONE transaction."""

from __future__ import annotations

from typing import Final, NoReturn

import asyncpg

from storage.base import Moves
from storage.errors import NotFound, StatusConflict, VersionConflict
from storage.postgres.connection import Pool
from storage.postgres.feed import MOVED_SQL, moved_tail
from storage.postgres.games import require_game
from storage.sql import SET_MESSAGE_IDS, numbered

__all__ = ["MoveWriter"]

# A move in one statement: the version-checked UPDATE of the game, the action (seq = the new
# version), the score-sheet rows and, for the last move, the result.  When the UPDATE
# matches no row nothing is written, and the last SELECT tells why (its snapshot is the
# statement's start, so it shows the game as the UPDATE found it).  The last move of a call
# notifies the change feed ($15; ``storage.postgres.feed``), delivered on COMMIT, with the
# call's moves ($16: ``moved_tail``; NULL when the feed does not carry them).
_APPEND_SQL: Final = f"""
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
SELECT (SELECT version FROM g) AS new_version, status, version,
    (SELECT {MOVED_SQL.format("$16")} FROM g WHERE $15::boolean) AS notified
FROM games WHERE game_id = $1::bigint
"""


_SET_MESSAGE_IDS: Final = numbered(SET_MESSAGE_IDS)

class MoveWriter:
    """The moves of the games in play (``games``, ``game_actions``, ``score_sheets``,
    ``results``)."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    async def append(self, moves: Moves) -> int:
        """One ``_APPEND_SQL`` per action, the sheet rows and the outcome with the last; a
        single action is the statement alone, its own transaction."""
        game_id, expected_version, actions = moves.game_id, moves.expected_version, moves.actions
        outcome = moves.outcome
        deals = [deal_no for deal_no, _ in moves.sheet_rows]
        tail = moved_tail(moves.moved())
        data = [data for _, data in moves.sheet_rows]

        def args(i: int, action: str, now: float) -> tuple[object, ...]:
            last = i == len(actions) - 1
            return (
                game_id, expected_version + i, action, moves.snapshot, moves.deadline, now,
                moves.human, deals if last else [], data if last else [],
                outcome is not None and last,
                ("stopped" if outcome.stopped else "finished") if outcome else None,
                outcome.winner_seat if outcome else None,
                outcome.totals if outcome else None,
                bool(outcome.stopped) if outcome else None,
                last,
                tail if last else None,
            )

        if len(actions) == 1 and moves.message_ids is None:
            row = await self._pg.fetchrow(_APPEND_SQL, *args(0, actions[0], self._pg.now()))
            if row is not None and row["new_version"] is not None:
                return int(row["new_version"])
            await self._refused(row, game_id, expected_version)
        async with self._pg.tx() as (conn, now):
            for i, action in enumerate(actions):
                row = await conn.fetchrow(_APPEND_SQL, *args(i, action, now))
                if row is None or row["new_version"] is None:
                    await self._refused(row, game_id, expected_version + i)
            if moves.message_ids is not None:
                await conn.execute(_SET_MESSAGE_IDS, moves.message_ids, game_id)
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
            async with self._pg.conn() as conn:
                game = await require_game(conn, game_id)
            status, version = game.status, game.version
        if status != "playing":
            raise StatusConflict(game_id, status, ("playing",))
        raise VersionConflict(game_id, expected, version)
