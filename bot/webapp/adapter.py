"""The one place where the Mini App meets the rooms: ``TablePort`` on ``GameService``.

* a look: the session in memory (rebuilt first if pending, as a press does), the seat of
  the person, the engine's ``view`` of that seat (a spectator: the public view);
* an action: written as the callback data of the very button it stands for and handed to
  ``GameService.press`` with the person's private chat as the place — the path of a press
  on the private hand message, with all its checks (place, seat, turn, version, legality,
  the table's lock) and its effects (stored, then shown in the group and the hand);
* "game G changed": ``table_event``, subscribed by the application (bot/tg/io/app.py) to
  the table owner's events (``bot/tg/rooms/events.py``, each published once its change is
  stored), and the storage's feed (``store.feed``: every process's commits, through
  ``LISTEN``/``NOTIFY`` on PostgreSQL).

Where a page's view comes from: the session in memory when this process holds the game
live at the newest version it heard of; otherwise (another process stored the move, or
holds the game) the stored game, read and replayed here without taking the game over — a
process that does not own a game never starts driving it for a page.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass

from telegram.error import TelegramError

from bot.engine.record import last_trick
from bot.engine.rules import rules_from_dict
from bot.engine.state import DealResult, GameState, Phase, Trick
from bot.engine.views import public_view, view
from bot.i18n import lang_of, t
from bot.tg.model import (
    INLINE_BASE,
    Replayed,
    SeatInfo,
    is_inline_place,
    replay,
    seats_from_json,
    sheet_row,
)
from bot.tg.rooms.events import TableEvent
from bot.tg.rooms.service import GameService, Session, UserRef, Where
from bot.tg.rooms.session import ChatKind, hints_allowed, read_table_json
from bot.tg.view import callbacks as cb
from bot.tg.view import keepers as K
from bot.tg.view import render as R
from bot.tg.view.sheet import render_deal_end, render_score
from bot.webapp.auth import WebUser
from bot.webapp.payload import action_of
from bot.webapp.port import Changed, Intent, Refusal, SeatPlace, SeatView
from storage.base import Change
from storage.models import Game

log = logging.getLogger(__name__)

ENDED_KEPT = 256  # finished games whose last view stays readable by their pages
HEARD_KEPT = 16384  # games whose newest version heard from the feed is remembered
SHEETS_KEPT = 4096  # (game, language, seat): the summary and sheet made at a deal's end
STORED_KEPT = 1024  # games read back from storage (another process holds them) kept
MOVES_KEPT = 64  # changes carrying moves kept for a game read back (applied at its next read)
VIEWS_KEPT = 4096  # (game, seat, language): the last view made, shared by the pages asking
_TAGS = re.compile(r"<[^>]+>")
# the popups of a refused press, by key: a bounded label for each (the metrics)
MEMBER_TTL = 60.0  # seconds a getChatMember answer is trusted
MEMBERS_KEPT = 4096
MEMBER = ("creator", "administrator", "member")  # (restricted: by its is_member)
# the answers of a latecomer's "take a seat" that are not refusals (the keepers are asked)
_SIT_ASKED = ("keepers.asked", "keepers.asked_already")
# a 💡 or 🔍 refused (its other answers are the hint, the analysis sent)
_HINT_REFUSALS = ("hint.off", "hint.not_your_turn")
_REFUSALS = ("popup.stale", "popup.not_seated", "popup.unknown", "guard.wrong_place",
             "popup.auto", "popup.paused", "guard.not_saved", "autopilot.off_popup",
             "end.already", "end.not_seated")


@dataclass(slots=True)
class _Stored:
    """A game read back from storage: a session that is never registered, timed or driven."""

    version: int  # the stored version (records) it was read at
    session: Session
    replayed: Replayed  # its records replayed (the next read adds the new ones only)
    row: Game  # the game's row as it was read (its version: the records')


def _plain(text: str) -> str:
    return html.unescape(_TAGS.sub("", text))


class ServicePort:
    """``TablePort`` on the rooms of one process and the storage's feed."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.listeners: list[Changed] = []
        self.ended: OrderedDict[int, Session] = OrderedDict()
        # (chat, user) -> (when asked, a member): getChatMember answers, MEMBER_TTL long
        self.members: OrderedDict[tuple[int, int], tuple[float, bool]] = OrderedDict()
        self.clock = time.monotonic
        # the newest version of each game the feed told (a session behind it is stale)
        self.heard: OrderedDict[int, int] = OrderedDict()
        self.stored: OrderedDict[int, _Stored] = OrderedDict()
        # the changes carrying moves heard for a game read back (or being read), one run of
        # them that follow each other: its next read applies them instead of reading
        self.moves: dict[int, list[Change]] = {}
        # games read back whose row changed otherwise since their last read began (their
        # seats, a deadline): their next read reads the row
        self.changed: set[int] = set()
        self.reads = {"storage": 0, "feed": 0}  # how the stored games were brought up to date
        # a read of the stored game under way: the pages that ask meanwhile wait for it
        self.reading: dict[int, asyncio.Future[tuple[bool, _Stored | None]]] = {}
        # the newest version of each game its pages were told of (``_tell``): a session
        # found in memory at a version is not proof its pages were told of it (rebuilt from
        # storage by a press before the feed's notification came)
        self.told: OrderedDict[int, int] = OrderedDict()
        # (game, seat, language) -> (what it was made of, the view): every page of that
        # seat (a spectator's: of the public view) at that version gets the same one
        self.views: OrderedDict[tuple[int, int, str], tuple[tuple[object, ...], SeatView]] = \
            OrderedDict()
        # (each seat's kind, name, computer playing for it, why) -> the seats' labels
        self.labels: dict[tuple[tuple[str, str, bool, str], ...], tuple[R.SeatLabel, ...]] = {}
        self.waiting: set[asyncio.Task[None]] = set()
        # (game, language, seat) -> (deals, labels, (summary, its deal, sheet, last trick))
        self.sheets: OrderedDict[tuple[int, str, int], tuple[
            int, tuple[R.SeatLabel, ...], tuple[str, int, str, Trick | None]]] = OrderedDict()
        self.unsubscribe = service.storage.feed.subscribe(self._heard)

    def table_event(self, e: TableEvent) -> None:
        """A change of a table, stored (the owner's events, subscribed by the application:
        bot/tg/io/app.py): its open pages get their views."""
        self._changed(e.session)

    def on_change(self, listener: Changed) -> None:
        self.listeners.append(listener)

    def _tell(self, game_id: int | None, version: int) -> None:
        if game_id is None:
            self.told.clear()
        elif version > self.told.get(game_id, -1):
            self.told[game_id] = version
            self.told.move_to_end(game_id)
            while len(self.told) > HEARD_KEPT:
                self.told.popitem(last=False)
        for listener in list(self.listeners):
            listener(game_id, version)

    def _changed(self, s: Session) -> None:
        """A change of this process stored and in memory (a move, a seat handed over, the
        pace): its pages are told at once, by the stored version (``SeatView.rev``)."""
        st = s.state
        if st is None:
            return
        if st.phase == Phase.GAME_OVER:  # it leaves the registry: its pages still see it
            self.ended[s.game_id] = s
            while len(self.ended) > ENDED_KEPT:
                self.ended.popitem(last=False)
        self._tell(s.game_id, s.store_version)

    def _heard(self, change: Change | None) -> None:
        """The feed: a game changed (by any process), or ``None``: read everything again."""
        if change is None:
            self.heard.clear()
            self.stored.clear()
            self.moves.clear()
            self.changed.clear()
            self._tell(None, 0)
            return
        game_id, version = change.game_id, change.version
        if game_id in self.stored or game_id in self.reading:
            self._keep_moves(change)
        if version > self.heard.get(game_id, -1):
            self.heard[game_id] = version
        self.heard.move_to_end(game_id)
        while len(self.heard) > HEARD_KEPT:
            self.heard.popitem(last=False)
        if self.told.get(game_id, -1) >= version:
            return  # this process stored it: its pages were told (``_changed``)
        s = self.service.kit.registry.get(game_id)
        if s is not None and s.state is not None:
            if not self.service.coord.shared:
                return  # one process: every change is its own, told by ``_changed``
            if s.lock.locked():  # likely this process's move, in memory when the lock is
                task = asyncio.get_running_loop().create_task(  # free (then told by
                    self._after_lock(s, game_id, version))      # ``_changed``)
                self.waiting.add(task)
                task.add_done_callback(self.waiting.discard)
                return
        # (a session in memory at that version or later was not necessarily told of it: a
        # press here may have rebuilt it from storage before this notification came)
        self._tell(game_id, version)

    def _keep_moves(self, change: Change) -> None:
        """Keep a change of a game read back for its next read: a run of moves that follow
        each other (a change that does not carry its moves marks the game ``changed``: its
        next read reads it; one that does not follow the run starts it over)."""
        game_id, version, moved = change
        run = self.moves.get(game_id)
        if moved is None:
            self.changed.add(game_id)
            return
        if run and run[-1].version == version - len(moved.records):
            run.append(change)
            if len(run) > MOVES_KEPT:
                del run[0]
        elif not run or version > run[-1].version:
            self.moves[game_id] = [change]

    def _heard_moves(self, game_id: int, kept: _Stored) -> tuple[list[str], Game] | None:
        """The records after ``kept`` up to the newest version heard of, and the game's row
        after them, from the changes that carried them; None if they did not all come
        (read the game)."""
        run = self.moves.get(game_id)
        if not run or run[-1].version != self.heard.get(game_id) or game_id in self.changed:
            return None
        first = run[0]
        assert first.moved is not None
        base = first.version - len(first.moved.records)
        if not base <= kept.version < run[-1].version:
            return None
        records = [r for c in run if c.moved is not None for r in c.moved.records]
        last = run[-1].moved
        assert last is not None
        ids = next((c.moved.message_ids for c in reversed(run)
                    if c.moved is not None and c.moved.message_ids is not None),
                   kept.row.message_ids)
        row = dataclasses.replace(kept.row, version=run[-1].version, status=last.status,
                                  deadline=last.deadline, message_ids=ids)
        return records[kept.version - base:], row

    async def _after_lock(self, s: Session, game_id: int, version: int) -> None:
        """A change heard while this process held the game's lock: once it is free, told
        unless its pages were told of that version meanwhile (this process's own move
        reached it; not when its write failed against another process's, nor when a press
        rebuilt the session from storage meanwhile)."""
        async with s.lock:
            pass
        if self.told.get(game_id, -1) < version:
            self._tell(game_id, version)

    def _current(self, game_id: int) -> Session | None:
        """The session in memory if this process holds the game live, at the newest version
        heard of (else None: the stored game is read)."""
        s = self.service.kit.registry.get(game_id) or self.ended.get(game_id)
        coord = self.service.coord
        if s is None:
            return None if coord.shared else s
        if coord.shared and not coord.owns(game_id) and s.status != "finished":
            return None
        if s.state is not None and s.store_version < self.heard.get(game_id, -1):
            return None
        return s

    def _lang(self, s: Session | None, user_id: int) -> str:
        if s is not None and s.solo:
            return s.lang
        return self.service.kit.people.lang_for_user(user_id)

    def lang_for(self, user_id: int, language_code: str | None) -> str:
        known = self.service.kit.people.user_langs.get(user_id)
        return known if known is not None else lang_of(language_code)

    def games_of(self, user_id: int) -> list[int]:
        found = [gid for gid, s in self.service.sessions.items()
                 if s.status == "playing" and s.seat_of(user_id) >= 0]
        return sorted(found, reverse=True)

    async def _session(self, game_id: int) -> Session | None:
        """The game's session as this process may show it: in memory if it holds the game
        live at the newest version heard of, else read back from storage (never driven
        here), else rebuilt if pending (as a press does)."""
        s = self._current(game_id)
        if s is not None and self.service.coord.shared:
            return s  # held here, at the newest version heard of: nothing to read
        if s is None and (self.service.coord.shared or game_id in self.heard):
            stored = await self._read(game_id)
            if stored is not None:
                return stored.session
        await self.service.restore.touch_game(game_id)
        return self.service.kit.registry.get(game_id) or self.ended.get(game_id)

    async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        s = await self._session(game_id)
        lang = self._lang(s, user_id)
        if s is None or (s.state is None and s.status != "lobby"):
            return Refusal("stale", t(lang, "popup.stale"))
        seat = s.seat_of(user_id)
        if seat < 0:
            return Refusal("not_seated", t(lang, "popup.not_seated"))
        if s.status == "lobby":  # the table comes with "Play" (a group's: with "Start")
            return Refusal("not_started", t(lang, "webapp.not_started" if s.solo
                                              else "webapp.not_started_group"))
        st = s.state
        if st is None:
            return Refusal("stale", t(lang, "popup.stale"))
        return self._view(s, st, lang, seat)

    async def _read(self, game_id: int) -> _Stored | None:
        """The stored game at its stored version (kept while no newer one is heard of),
        rebuilt by replaying its records (the kept one's new records only); never
        registered, so nothing of it runs here.  One read of a game at a time: the pages
        asking meanwhile (a move's fan-out, each page of the game) share it, and read
        again if a newer version was heard while it ran."""
        while True:
            kept = self.stored.get(game_id)
            heard = self.heard.get(game_id)
            if kept is not None and heard is not None and kept.version >= heard:
                return kept
            running = self.reading.get(game_id)
            if running is None:
                break
            done, got = await asyncio.shield(running)
            if done and (got is None or got.version >= self.heard.get(game_id, -1)):
                return got
            # (it failed, or a newer version was heard while it ran: read again)
        future: asyncio.Future[tuple[bool, _Stored | None]] = \
            asyncio.get_running_loop().create_future()
        self.reading[game_id] = future
        try:
            got = await self._read_now(game_id, kept)
        except BaseException:
            future.set_result((False, None))
            raise
        else:
            future.set_result((True, got))
        finally:
            del self.reading[game_id]
        return got

    async def _read_now(self, game_id: int, kept: _Stored | None) -> _Stored | None:
        """The game brought up to date: by the moves its changes carried after ``kept``
        (``Change.moved``: nothing read), else read (its row, then its new records)."""
        storage = self.service.storage
        heard = self._heard_moves(game_id, kept) if kept is not None else None
        if heard is not None:
            self.reads["feed"] += 1
            new, row = heard
        else:
            self.reads["storage"] += 1
            self.changed.discard(game_id)  # (a change heard from now on: read again)
            got = await storage.get_game(game_id)
            if got is None:
                return None
            row, new = got, None
        if row.status not in ("playing", "finished"):
            return None
        if kept is not None and kept.version == row.version:
            return kept
        rules = kept.session.rules if kept is not None else rules_from_dict(json.loads(row.rules))
        if kept is not None and kept.version < row.version:
            records = new if new is not None else \
                await storage.actions(game_id, after=kept.version)
            version = kept.version + len(records)
            rep = replay(rules, row.seed, records, onto=dataclasses.replace(
                kept.replayed, auto=dict(kept.replayed.auto), sits=dict(kept.replayed.sits),
                events={}))
        else:
            records = await storage.actions(game_id)
            version = len(records)
            rep = replay(rules, row.seed, records)
        table = read_table_json(row.message_ids)
        settings = table.settings
        if rep.pace is not None:  # a keeper changed the pace during the game
            settings = dataclasses.replace(settings, pace=rep.pace)
        seats = seats_from_json(row.seats)
        for seat, (uid, name) in rep.sits.items():
            seats[seat] = SeatInfo("human", uid, name, "")
        for seat, why in rep.auto.items():
            seats[seat].auto, seats[seat].why = True, why
        # (an inline table's synthetic chat is positive and no private chat: inline.py)
        kind: ChatKind = "private" if 0 < row.chat_id < INLINE_BASE else "group"
        lang = self.service.kit.people.lang_for_user(row.chat_id) if kind == "private" else "ru"
        s = Session(game_id, row.chat_id, kind, lang, row.creator_id, row.status, rules,
                    row.seed, seats, thread_id=row.thread_id, settings=settings,
                    messages=table.messages, title=table.title, state=rep.state,
                    store_version=version, deadline=row.deadline)
        stored = _Stored(version, s, rep, row if row.version == version
                         else dataclasses.replace(row, version=version))
        self.stored[game_id] = stored
        run = self.moves.get(game_id)
        if run is not None:  # (those applied now are not needed again)
            run[:] = [c for c in run if c.version > version]
            if not run:
                del self.moves[game_id]
        self.stored.move_to_end(game_id)
        while len(self.stored) > STORED_KEPT:
            gone, _ = self.stored.popitem(last=False)
            self.moves.pop(gone, None)
            self.changed.discard(gone)
        return stored

    def _view(self, s: Session, st: GameState, lang: str, seat: int) -> SeatView:
        """The view of ``seat`` (-1: the public view) in ``lang``: made once for each
        state of the table and shared by every page that asks for it (the pages of a
        person, the spectators), until the table changes."""
        seats = tuple((x.kind, x.name, x.auto, x.why) for x in s.seats)
        made_of = (st, s.store_version, s.status, s.deadline, s.settings, seats)
        key = (s.game_id, seat, lang)
        kept = self.views.get(key)
        if kept is not None and kept[0][0] is st and kept[0][1:] == made_of[1:]:
            self.views.move_to_end(key)
            return kept[1]
        made = SeatView(view(st, seat) if seat >= 0 else public_view(st),
                        self._place(s, st, lang, seat, self._labels(s, seats)), lang,
                        over=st.phase == Phase.GAME_OVER, rev=s.store_version)
        self.views[key] = (made_of, made)
        self.views.move_to_end(key)
        while len(self.views) > VIEWS_KEPT:
            self.views.popitem(last=False)
        return made

    def _labels(self, s: Session, seats: tuple[tuple[str, str, bool, str], ...]
                ) -> tuple[R.SeatLabel, ...]:
        """The seats' labels (``Session.labels``), made once for each set of seats."""
        made = self.labels.get(seats)
        if made is None:
            made = self.labels[seats] = s.labels()
            while len(self.labels) > VIEWS_KEPT:
                del self.labels[next(iter(self.labels))]
        return made

    def _place(self, s: Session, st: GameState, lang: str, seat: int,
               labels: tuple[R.SeatLabel, ...]) -> SeatPlace:
        summary, summary_deal, sheet, trick = self._sheet(s.game_id, lang, st, labels, seat)
        deal_last = None
        if st.history:  # the finished deal's last trick stays in the middle until the next lead
            d = st.deal
            if d is None or d.number == summary_deal or not (d.trick or d.tricks):
                deal_last = trick
        timed = self.service.config.timeout(s.pace) is not None  # (unhurried: no clock)
        deadline = s.deadline if timed and not s.solo and st.to_act >= 0 else None
        return SeatPlace(
            game_id=s.game_id, names=tuple(x.name for x in labels),
            computers=tuple(x.computer for x in labels), solo=s.solo,
            hints=hints_allowed(s) and seat >= 0, deadline=deadline, summary=summary,
            summary_deal=summary_deal, sheet=sheet,
            rows=tuple(h.totals for h in st.history),
            free=seat < 0 and not s.solo and s.status == "playing"
            and st.phase != Phase.GAME_OVER and bool(K.free_seats(s.seats)),
            deal_last=deal_last, rematch=seat >= 0 and not is_inline_place(s.chat_id))

    def _sheet(self, game_id: int, lang: str, st: GameState, labels: tuple[R.SeatLabel, ...],
               seat: int) -> tuple[str, int, str, Trick | None]:
        """The last deal's summary (from ``seat``'s side, its last trick first), its number,
        the sheet and that last trick (public: its cards were played), in ``lang``: made
        once per deal, language and seat (they change with a deal's end, not each move)."""
        history: tuple[DealResult, ...] = st.history
        if not history:
            return "", 0, "", None
        key = (game_id, lang, seat)
        kept = self.sheets.get(key)
        if kept is not None and kept[0] == len(history) and kept[1] == labels:
            self.sheets.move_to_end(key)
            return kept[2]
        last = history[-1]
        trick = last_trick(st.rules, last)
        made = (_plain(render_deal_end(lang, sheet_row(last), labels, last=trick, me=seat).text),
                last.number,
                _plain(render_score(lang, [sheet_row(h) for h in history], labels)), trick)
        self.sheets[key] = (len(history), labels, made)
        while len(self.sheets) > SHEETS_KEPT:
            self.sheets.popitem(last=False)
        return made

    async def watch_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        """The public view of a group's table for a member of that group who is not
        seated (a spectator): no hand, no talon before it shows, no passed card."""
        s = await self._session(game_id)
        lang = self._lang(s, user_id)
        if s is None or (s.state is None and s.status != "lobby"):
            return Refusal("stale", t(lang, "popup.stale"))
        if s.solo:
            return Refusal("not_seated", t(lang, "popup.not_seated"))
        if not await self.is_member(s.chat_id, user_id):
            return Refusal("not_member", t(lang, "webapp.err.not_member"))
        st = s.state
        if s.status == "lobby" or st is None:  # a seat may be taken there ("sit")
            free = len(s.seats) < s.rules.players
            return Refusal("lobby" if free else "not_started",
                           t(lang, "webapp.lobby_watch" if free else "webapp.not_started_group"))
        return self._view(s, st, lang, -1)

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Is the person in the group now (Telegram's getChatMember, trusted a minute)?
        An inline table (inline.py) has no chat to ask: its link was posted into a chat
        the bot may not be in, so whoever holds it may watch (and sit while seats are free)."""
        if is_inline_place(chat_id):
            return True
        now = self.clock()
        got = self.members.get((chat_id, user_id))
        if got is not None and now - got[0] < MEMBER_TTL:
            return got[1]
        try:
            m = await self.service.kit.outbox.member(chat_id, user_id)
            ok = m.status in MEMBER or (m.status == "restricted"
                                        and bool(getattr(m, "is_member", False)))
        except TelegramError as e:
            log.info("getChatMember(%s, %s) failed: %s", chat_id, user_id, e)
            ok = False
        self.members[(chat_id, user_id)] = (now, ok)
        self.members.move_to_end((chat_id, user_id))
        while len(self.members) > MEMBERS_KEPT:
            self.members.popitem(last=False)
        return ok

    async def act(self, game_id: int, user: WebUser, intent: Intent,
                  version: int) -> Refusal | str | None:
        s = self.service.kit.registry.get(game_id) or self.ended.get(game_id)
        lang = self._lang(s, user.id)
        kind = intent.get("kind") if isinstance(intent, dict) else None
        if kind == "sit" and len(intent) == 1:
            return await self._sit(s, user, lang)
        where = Where(chat_id=user.id)  # the person's private chat: where hand buttons are
        if kind == "hint" and len(intent) == 1:
            data = cb.encode(game_id, version, cb.HINT)
        elif kind == "rematch" and len(intent) == 1:  # the final sheet's, where that is
            final = await self._final_place(s, game_id, user, lang)
            if isinstance(final, Refusal):
                return final
            data, where = cb.encode(game_id, 0, cb.REMATCH), final
        elif kind == "analyse" and set(intent) == {"kind", "deal"}:
            deal = intent.get("deal")
            if not isinstance(deal, int) or isinstance(deal, bool) or not 0 < deal < 10_000:
                return Refusal("malformed", t(lang, "popup.unknown"))
            data = cb.encode(game_id, 0, cb.ANALYSE, str(deal))
        else:  # a game action: the data of the hand button it stands for
            a = action_of(intent)
            try:
                code = cb.encode_action(a) if a is not None else None
            except ValueError:
                code = None
            if a is None or code is None:
                return Refusal("malformed", t(lang, "popup.unknown"))
            data = cb.encode(game_id, version, cb.ACT, code)
        ref = UserRef(user.id, user.first_name, user.username, user.language_code)
        answer = await self.service.press(data, ref, where)
        if answer.text is None:
            return None
        if kind in ("hint", "analyse"):  # the answer, unless it is a refusal (counted)
            known = self._known(lang, answer.text, (*_REFUSALS, *_HINT_REFUSALS))
            return known if known is not None else _plain(answer.text)
        return self._refusal(lang, answer.text)

    async def _final_place(self, s: Session | None, game_id: int, user: WebUser,
                           lang: str) -> Where | Refusal:
        """Where «Ещё партия» of an ended game is pressed from its page: where the final
        sheet's button is — the game's chat and topic (a group's for a group table; from
        the person's private chat it was refused as "not its place"), where the press has
        that button's checks (a seated person; no other game at that table now); and as
        the group's button, by a member of the group (asked as for a spectator)."""
        if s is not None:
            chat_id, thread_id = s.chat_id, s.thread_id
        else:  # (ended before this process kept it: a restart)
            game = await self.service.storage.get_game(game_id)
            if game is None:
                return Refusal("stale", t(lang, "popup.stale"))
            chat_id, thread_id = game.chat_id, game.thread_id
        if is_inline_place(chat_id):  # an inline table has no chat to post the game in
            return Refusal("stale", t(lang, "popup.stale"))
        if chat_id < 0 and not await self.is_member(chat_id, user.id):  # (left the group)
            return Refusal("not_member", t(lang, "webapp.err.not_member"))
        return Where(chat_id=chat_id, thread_id=thread_id)

    async def _sit(self, s: Session | None, user: WebUser, lang: str) -> Refusal | str | None:
        """A latecomer takes a free seat from the page: the lobby's "join" or the table's
        🪑 (a computer's seat), pressed as on the group's message — the same path and
        checks (a keeper sits down at once, anyone else asks the keepers)."""
        if s is None or s.solo:
            return Refusal("stale", t(lang, "popup.stale"))
        if not await self.is_member(s.chat_id, user.id):
            return Refusal("not_member", t(lang, "webapp.err.not_member_sit"))
        if s.status == "lobby":
            data = cb.encode(s.game_id, s.lobby_rev, cb.JOIN)
        else:
            data = cb.encode(s.game_id, K.seat_rev(s.seats), cb.SIT)
        where = Where(chat_id=s.chat_id, thread_id=s.thread_id)
        name = user.first_name
        if not name:  # (the session token carries no name: the stored one, as keepers do)
            row = await self.service.storage.get_user(user.id)
            name = row.first_name if row is not None else ""
        ref = UserRef(user.id, name, user.username, user.language_code)
        answer = await self.service.press(data, ref, where)
        if answer.url is not None:  # not started in the private chat: the cards go there
            return Refusal("start_first", t(lang, "keepers.start_first"))
        if answer.text is None:
            return None
        if any(answer.text == t(lang, key) for key in _SIT_ASKED):
            return _plain(answer.text)
        return Refusal("sit", _plain(answer.text))

    @staticmethod
    def _known(lang: str, text: str, keys: tuple[str, ...]) -> Refusal | None:
        """The refusal whose text (of one of ``keys``, in ``lang``) the press answered."""
        for key in keys:
            if text == t(lang, key):
                return Refusal(key.split(".", 1)[1], _plain(text))
        return None

    @classmethod
    def _refusal(cls, lang: str, text: str) -> Refusal:
        known = cls._known(lang, text, _REFUSALS)
        if known is not None:
            return known
        turn = t(lang, "popup.not_your_turn", name="\x00").split("\x00", 1)[0]
        if turn and text.startswith(turn):
            return Refusal("not_your_turn", _plain(text))
        return Refusal("other", _plain(text))
