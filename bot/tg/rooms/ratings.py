"""Players' records and ratings: counting a finished game, /stats and /top.

``RatingsRoom``: the end of a game (the owner's ``GameOver``) calls ``record_later``, the
restore room ``record_unrated`` at start-up, the handlers ``show_stats`` and ``show_top``.

Who is who: a person's seat is the player ``u:<user_id>`` (also when the computer finished
the game for them), a computer seat is ``ai:<level>`` — one rated player per level
(``bot.ratings.AI_IDS``), so a solo player's rating is measured against something that
keeps its strength.  A game is counted from what storage holds (seats, score sheet), in one
transaction with its ``rated_games`` marker (``Backend.record_game_result``): it counts once
whatever happens, and a game whose count was lost (a crash right after the final move) is
counted at the next start-up.  Only games that ended with a winner (status ``finished``)
count; stopped, expired and broken games do not.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from bot.i18n import Lang, esc, t
from bot.ratings import Rating, display, ranking_from_totals, update
from bot.stats import game_stats
from bot.tg.model import SeatInfo, seats_from_json
from bot.tg.rooms.base import Kit
from bot.tg.rooms.session import Backoff, ChatRef, Session, UserRef, clean_name
from bot.tg.view import render as R
from storage import (
    Backend,
    NotFound,
    PlayerStats,
    SeatResult,
    StatusConflict,
    StorageError,
)
from storage.base import RatingPair

log = logging.getLogger(__name__)

TOP_LIMIT = 20  # people in a group's table


def player_id(seat: SeatInfo) -> str:
    """The rated player of a seat: "u:<user_id>" or "ai:<level>"."""
    if seat.kind == "human":
        return f"u:{seat.user_id}"
    return f"ai:{seat.level if seat.level in R.LEVELS else 'hard'}"


async def record(storage: Backend, game_id: int) -> bool:
    """Count a finished game (its seats' numbers and the new ratings); False if it was
    counted already.  Raises StorageError (StatusConflict for a game not finished)."""
    game = await storage.get_game(game_id)
    if game is None:
        raise NotFound(f"game {game_id}")
    if game.status != "finished":
        raise StatusConflict(game_id, game.status, ("finished",))
    seats = seats_from_json(game.seats)
    rows: list[dict[str, Any]] = [json.loads(r.data) for r in await storage.score_sheet(game_id)]
    stats = game_stats(rows, len(seats))
    ids = [player_id(x) for x in seats]
    winner = next((x.seat for x in stats if x.win), -1)
    ranking = ranking_from_totals(ids, [x.total for x in stats], winner)

    def rate(current: Mapping[str, RatingPair | None]) -> dict[str, RatingPair]:
        now = {p: Rating(r[0], r[1]) for p, r in current.items() if r is not None}
        return {p: (r.mu, r.sigma) for p, r in update(now, ranking).items()}

    results = [SeatResult(x.seat, ids[x.seat], x.place, x.win, declared=x.declared,
                          made=x.made, falls=x.barrel_falls, bolts=x.bolts) for x in stats]
    return await storage.record_game_result(game_id, results, rate)


# ------------------------------------------------------------------ /stats and /top


def _number(lang: Lang, x: float) -> str:
    text = f"{x:.1f}"
    return text if lang == "en" else text.replace(".", ",")


def _rating(p: PlayerStats | None) -> int:
    if p is None or p.mu is None or p.sigma is None:
        return display(Rating())
    return display(Rating(p.mu, p.sigma))


def _percent(wins: int, games: int) -> int:
    return round(100 * wins / games) if games else 0


def render_stats(lang: Lang, name: str, p: PlayerStats | None) -> str:
    if p is None or p.games == 0:
        return t(lang, "stats.none", name=esc(name))
    return "\n".join([
        t(lang, "stats.title", name=esc(name)),
        t(lang, "stats.rating", rating=_rating(p)),
        t(lang, "stats.games", games=p.games, wins=p.wins, percent=_percent(p.wins, p.games)),
        t(lang, "stats.place", place=_number(lang, p.avg_place)),
        t(lang, "stats.declared", declared=p.declared, made=p.made),
        t(lang, "stats.falls", falls=p.falls, bolts=p.bolts),
    ])


class RatingsRoom:
    """Counts finished games (once) and answers /stats and /top; owns no state in memory
    (the records are storage's)."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.people = kit.people
        self.tasks = kit.tasks

    async def _record_until_done(self, game_id: int) -> None:
        """``record`` retried with backoff while the database fails; a game that cannot be
        counted (not finished, or its record does not read) is logged and left."""
        backoff = Backoff(game_id, "counting the result")
        while not self.tasks.closing:
            try:
                await record(self.storage, game_id)
                backoff.ok()
                return
            except (NotFound, StatusConflict) as e:
                log.warning("game %s: not counted: %s", game_id, e)
                return
            except StorageError as e:
                backoff.failed(e)
                await backoff.wait()
            except ValueError:
                log.exception("game %s: its result cannot be counted", game_id)
                return

    def record_later(self, s: Session) -> None:
        """The end-of-game hook: count the game in a supervised background task (retried
        until the database answers; if the bot stops first, ``record_unrated`` counts it at
        the next start-up)."""
        self.tasks.spawn(s, self._record_until_done(s.game_id), f"stats:{s.game_id}")

    async def record_unrated(self) -> int:
        """At start-up: count the finished games not counted yet, oldest first; a game the
        database fails for is retried in the background.  Returns how many were counted."""
        counted = 0
        for game in await self.storage.unrated_games():
            try:
                if await record(self.storage, game.game_id):
                    counted += 1
            except (NotFound, StatusConflict):
                continue
            except StorageError as e:
                log.warning("game %s: counting at start-up failed (%s); retrying", game.game_id, e)
                self.tasks.spawn_free(self._record_until_done(game.game_id),
                                      f"stats:{game.game_id}")
            except ValueError:
                log.exception("game %s: its result cannot be counted", game.game_id)
        if counted:
            log.info("%d finished games counted at start-up", counted)
        return counted

    def _reply(self, chat: ChatRef, text: str) -> None:
        self.kit.reply(chat.id, text, thread=chat.thread_id)

    async def show_stats(self, chat: ChatRef, user: UserRef) -> None:
        """``/stats``: the presser's own record and rating, in any chat."""
        lang = await self.people.chat_lang(chat, user)
        p = await self.storage.player_stats(f"u:{user.id}")
        self._reply(chat, render_stats(lang, user.name, p))

    async def show_top(self, chat: ChatRef, user: UserRef) -> None:
        """``/top``: in a group, its people with a finished game, best rating first; in
        private, the presser's results against each computer level."""
        lang = await self.people.chat_lang(chat, user)
        if chat.kind != "private":
            top = await self.storage.chat_top(chat.id, limit=TOP_LIMIT)
            if not top:
                self._reply(chat, t(lang, "top.none"))
                return
            lines = [t(lang, "top.title")]
            for i, p in enumerate(top, 1):
                name = p.name or p.player
                lines.append(t(lang, "top.row", n=i, name=esc(clean_name(name) or p.player),
                               rating=_rating(p), games=p.games, wins=p.wins))
            lines.append(t(lang, "top.legend"))
            self._reply(chat, "\n".join(lines))
            return
        me = f"u:{user.id}"
        versus = await self.storage.versus_computers(me)
        if not versus:
            self._reply(chat, t(lang, "top.vs_none"))
            return
        lines = [t(lang, "top.vs_title"),
                 t(lang, "top.vs_mine", rating=_rating(await self.storage.player_stats(me)))]
        for v in versus:
            level = v.computer.partition(":")[2]
            ai = await self.storage.player_stats(v.computer)
            lines.append(t(lang, "top.vs_row", level=R.level_name(lang, level), rating=_rating(ai),
                           games=v.games, wins=v.wins, percent=_percent(v.wins, v.games),
                           place=_number(lang, v.place_sum / v.games if v.games else 0.0)))
        self._reply(chat, "\n".join(lines))
