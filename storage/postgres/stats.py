"""Statistics and ratings on PostgreSQL; the rating steps of all processes run one at a
time under an advisory lock (``RATING_LOCK``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from storage.base import Rater, RatingPair
from storage.checks import check_int64, check_ratings, check_seats
from storage.errors import StatusConflict
from storage.models import Game, PlayerStats, SeatResult, Versus
from storage.postgres.connection import Pool
from storage.postgres.games import require_game
from storage.postgres.schema import RATING_LOCK
from storage.rows import GAME_COLUMNS, STATS_COLUMNS, game_row, stats_row
from storage.sql import CHAT_TOP, numbered

_CHAT_TOP: Final = numbered(CHAT_TOP)

__all__ = ["Stats"]


class Stats:
    """The ``rated_games``, ``game_players`` and ``player_stats`` tables."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    async def record_game_result(
        self, game_id: int, seats: Sequence[SeatResult], rate: Rater | None = None
    ) -> bool:
        """As SQLite's; the rating steps of all processes run one at a time under an
        advisory lock (``RATING_LOCK``), so two games ending at once lose nothing."""
        check_int64("game_id", game_id)
        by_player = check_seats(seats)
        async with self._pg.tx() as (conn, now):
            await conn.execute("SELECT pg_advisory_xact_lock($1)", RATING_LOCK)
            game = await require_game(conn, game_id, lock=True)
            if game.status != "finished":
                raise StatusConflict(game_id, game.status, ("finished",))
            if await conn.fetchval(
                "SELECT 1 FROM rated_games WHERE game_id = $1", game_id
            ) is not None:
                return False
            current: dict[str, RatingPair | None] = {p: None for p in by_player}
            for r in await conn.fetch(
                "SELECT player, mu, sigma FROM player_stats WHERE player = ANY($1::text[])",
                list(by_player),
            ):
                if r["mu"] is not None:
                    current[str(r["player"])] = (float(r["mu"]), float(r["sigma"]))
            new = dict(rate(current)) if rate is not None else {}
            check_ratings(new, by_player)
            await conn.execute(
                "INSERT INTO rated_games (game_id, rated) VALUES ($1, $2)", game_id, now
            )
            await conn.executemany(
                "INSERT INTO game_players (game_id, seat, player, place, win)"
                " VALUES ($1, $2, $3, $4, $5)",
                [(game_id, x.seat, x.player, x.place, bool(x.win)) for x in seats],
            )
            stats = []
            for player, xs in by_player.items():
                rating = new.get(player)
                stats.append((
                    player, int(any(x.win for x in xs)), sum(x.place for x in xs) / len(xs),
                    sum(x.declared for x in xs), sum(x.made for x in xs),
                    sum(x.falls for x in xs), sum(x.bolts for x in xs),
                    None if rating is None else float(rating[0]),
                    None if rating is None else float(rating[1]), now,
                ))
            await conn.executemany(
                "INSERT INTO player_stats AS s (player, games, wins, place_sum, declared, made,"
                " falls, bolts, mu, sigma, updated)"
                " VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                " ON CONFLICT (player) DO UPDATE SET games = s.games + 1,"
                " wins = s.wins + excluded.wins, place_sum = s.place_sum + excluded.place_sum,"
                " declared = s.declared + excluded.declared, made = s.made + excluded.made,"
                " falls = s.falls + excluded.falls, bolts = s.bolts + excluded.bolts,"
                " mu = COALESCE(excluded.mu, s.mu), sigma = COALESCE(excluded.sigma, s.sigma),"
                " updated = excluded.updated",
                stats,
            )
        return True

    async def is_rated(self, game_id: int) -> bool:
        check_int64("game_id", game_id)
        return await self._pg.fetchval(
            "SELECT 1 FROM rated_games WHERE game_id = $1", game_id
        ) is not None

    async def unrated_games(self) -> list[Game]:
        rows = await self._pg.fetch(
            f"SELECT {GAME_COLUMNS} FROM games g WHERE status = 'finished'"
            " AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.game_id)"
            " ORDER BY game_id"
        )
        return [game_row(r) for r in rows]

    async def player_stats(self, player: str) -> PlayerStats | None:
        row = await self._pg.fetchrow(
            f"SELECT {STATS_COLUMNS} FROM player_stats WHERE player = $1", player
        )
        return None if row is None else stats_row(row)

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]:
        check_int64("chat_id", chat_id)
        rows = await self._pg.fetch(_CHAT_TOP, chat_id, max(0, int(limit)))
        return [stats_row(r) for r in rows]

    async def versus_computers(self, player: str) -> list[Versus]:
        rows = await self._pg.fetch(
            "SELECT c.computer, count(*) AS games, count(*) FILTER (WHERE me.win) AS wins,"
            " sum(me.place) AS place_sum FROM game_players me"
            " JOIN (SELECT DISTINCT game_id, player AS computer FROM game_players"
            "       WHERE player LIKE 'ai:%') c ON c.game_id = me.game_id"
            " WHERE me.player = $1 GROUP BY c.computer ORDER BY c.computer",
            player,
        )
        return [Versus(str(r["computer"]), int(r["games"]), int(r["wins"]),
                       float(r["place_sum"])) for r in rows]
