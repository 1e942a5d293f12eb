"""Statistics and ratings on SQLite: counting a finished game once, the players' records,
a chat's top and the record against the computer players."""

from __future__ import annotations

from collections.abc import Sequence

from storage.base import Rater, RatingPair
from storage.checks import check_int64, check_ratings, check_seats
from storage.errors import StatusConflict
from storage.models import Game, PlayerStats, SeatResult, Versus
from storage.rows import GAME_COLUMNS, STATS_COLUMNS, game_row, stats_row
from storage.sql import CHAT_TOP
from storage.sqlite.connection import Database
from storage.sqlite.games import require_game

__all__ = ["Stats"]


class Stats:
    """The ``rated_games``, ``game_players`` and ``player_stats`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

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
        check_int64("game_id", game_id)
        by_player = check_seats(seats)
        db = self._db
        async with db.write() as now:
            game = await require_game(db, game_id)
            if game.status != "finished":
                raise StatusConflict(game_id, game.status, ("finished",))
            if await db.fetchone("SELECT 1 FROM rated_games WHERE game_id = ?",
                                 (game_id,)) is not None:
                return False
            current: dict[str, RatingPair | None] = {}
            for player in by_player:
                row = await db.fetchone(
                    "SELECT mu, sigma FROM player_stats WHERE player = ?", (player,))
                current[player] = None if row is None or row["mu"] is None \
                    else (float(row["mu"]), float(row["sigma"]))
            new = dict(rate(current)) if rate is not None else {}
            check_ratings(new, by_player)
            await db.execute("INSERT INTO rated_games (game_id, rated) VALUES (?, ?)",
                             (game_id, now))
            for x in seats:
                await db.execute(
                    "INSERT INTO game_players (game_id, seat, player, place, win)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (game_id, x.seat, x.player, x.place, int(x.win)))
            for player, xs in by_player.items():
                rating = new.get(player)
                await db.execute(
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
        async with self._db.read():
            return await self._db.fetchone("SELECT 1 FROM rated_games WHERE game_id = ?",
                                           (game_id,)) is not None

    async def unrated_games(self) -> list[Game]:
        """Finished games whose result was not counted yet, oldest first (a crash between
        the final move and the count, or games finished before schema version 3)."""
        async with self._db.read():
            rows = await self._db.fetchall(
                f"SELECT {GAME_COLUMNS} FROM games g WHERE status = 'finished'"
                " AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.game_id)"
                " ORDER BY game_id", ())
        return [game_row(r) for r in rows]

    async def player_stats(self, player: str) -> PlayerStats | None:
        """A player's record, or None before their first rated game."""
        async with self._db.read():
            row = await self._db.fetchone(
                f"SELECT {STATS_COLUMNS} FROM player_stats WHERE player = ?", (player,))
        return None if row is None else stats_row(row)

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]:
        """The people (players "u:<id>") with at least one rated game in the chat, best
        rating (mu − 3·sigma) first, then more games; their records are over all chats.
        ``name`` is the person's first name."""
        check_int64("chat_id", chat_id)
        async with self._db.read():
            rows = await self._db.fetchall(CHAT_TOP, (chat_id, max(0, int(limit))))
        return [stats_row(r) for r in rows]

    async def versus_computers(self, player: str) -> list[Versus]:
        """The player's rated games with each computer player ("ai:..." ids) at the table:
        the games, the player's wins and the sum of the player's places, by computer id."""
        async with self._db.read():
            rows = await self._db.fetchall(
                "SELECT c.computer, count(*) AS games, sum(me.win) AS wins,"
                " sum(me.place) AS place_sum FROM game_players me"
                " JOIN (SELECT DISTINCT game_id, player AS computer FROM game_players"
                "       WHERE player LIKE 'ai:%') c ON c.game_id = me.game_id"
                " WHERE me.player = ? GROUP BY c.computer ORDER BY c.computer",
                (player,))
        return [Versus(str(r["computer"]), int(r["games"]), int(r["wins"]),
                       float(r["place_sum"])) for r in rows]
