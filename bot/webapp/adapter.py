"""The one place where the Mini App meets today's rooms: ``TablePort`` on ``GameService``.

* a look: the session in memory (rebuilt first if pending, as a press does), the seat of
  the person, the engine's ``view`` of that seat;
* an action: written as the callback data of the very button it stands for and handed to
  ``GameService.press`` with the person's private chat as the place — the path of a press
  on the private hand message, with all its checks (place, seat, turn, version, legality,
  the table's lock) and its effects (stored, then shown in the group and the hand);
* "game G changed": ``table_event``, subscribed by the application (bot/tg/io/app.py) to
  the table owner's events (``bot/tg/rooms/events.py``), each published once its change
  is stored.
"""

from __future__ import annotations

import html
import logging
import re
import time
from collections import OrderedDict

from telegram.error import TelegramError

from bot.engine.record import last_trick
from bot.engine.state import GameState, Phase
from bot.engine.views import public_view, view
from bot.i18n import lang_of, t
from bot.tg.model import sheet_row
from bot.tg.rooms.events import TableEvent
from bot.tg.rooms.service import GameService, Session, UserRef, Where
from bot.tg.rooms.session import hints_allowed
from bot.tg.view import callbacks as cb
from bot.tg.view import keepers as K
from bot.tg.view.sheet import render_deal_end, render_score
from bot.webapp.auth import WebUser
from bot.webapp.payload import action_of
from bot.webapp.port import Changed, Intent, Refusal, SeatPlace, SeatView

log = logging.getLogger(__name__)

ENDED_KEPT = 256  # finished games whose last view stays readable by their pages
_TAGS = re.compile(r"<[^>]+>")
# the popups of a refused press, by key: a bounded label for each (the metrics)
MEMBER_TTL = 60.0  # seconds a getChatMember answer is trusted
MEMBERS_KEPT = 4096
MEMBER = ("creator", "administrator", "member")  # (restricted: by its is_member)
# the answers of a latecomer's "take a seat" that are not refusals (the keepers are asked)
_SIT_ASKED = ("keepers.asked", "keepers.asked_already")
_REFUSALS = ("popup.stale", "popup.not_seated", "popup.unknown", "guard.wrong_place",
             "popup.auto", "popup.paused", "guard.not_saved", "autopilot.off_popup",
             "end.already", "end.not_seated")


def _plain(text: str) -> str:
    return html.unescape(_TAGS.sub("", text))


class ServicePort:
    """``TablePort`` on the rooms of one process."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.listeners: list[Changed] = []
        self.ended: OrderedDict[int, Session] = OrderedDict()
        # (chat, user) -> (when asked, a member): getChatMember answers, MEMBER_TTL long
        self.members: OrderedDict[tuple[int, int], tuple[float, bool]] = OrderedDict()
        self.clock = time.monotonic

    def table_event(self, e: TableEvent) -> None:
        """A change of a table, stored (the owner's events, subscribed by the application:
        bot/tg/io/app.py): its open pages get their views."""
        self._changed(e.session)

    def on_change(self, listener: Changed) -> None:
        self.listeners.append(listener)

    def _changed(self, s: Session) -> None:
        st = s.state
        if st is None:
            return
        if st.phase == Phase.GAME_OVER:  # it leaves the registry: its pages still see it
            self.ended[s.game_id] = s
            while len(self.ended) > ENDED_KEPT:
                self.ended.popitem(last=False)
        for listener in list(self.listeners):
            listener(s.game_id, st.version)

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

    async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        await self.service.restore.touch_game(game_id)
        s = self.service.kit.registry.get(game_id) or self.ended.get(game_id)
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
        return SeatView(view(st, seat), self._place(s, st, lang, seat), lang,
                        over=st.phase == Phase.GAME_OVER)

    def _place(self, s: Session, st: GameState, lang: str, seat: int) -> SeatPlace:
        labels = s.labels()
        summary, summary_deal, deal_last = "", 0, None
        if st.history:
            last = st.history[-1]
            trick = last_trick(st.rules, last)  # (public: its cards were played)
            summary = _plain(render_deal_end(lang, sheet_row(last), labels, last=trick,
                                             me=seat).text)
            summary_deal = last.number
            # the finished deal's last trick stays in the middle until the next lead
            d = st.deal
            if d is None or d.number == last.number or not (d.trick or d.tricks):
                deal_last = trick
        timed = self.service.config.timeout(s.pace) is not None  # (unhurried: no clock)
        deadline = s.deadline if timed and not s.solo and st.to_act >= 0 else None
        return SeatPlace(
            game_id=s.game_id, names=tuple(x.name for x in labels),
            computers=tuple(x.computer for x in labels), solo=s.solo,
            hints=hints_allowed(s) and seat >= 0, deadline=deadline, summary=summary,
            summary_deal=summary_deal,
            sheet=_plain(render_score(lang, [sheet_row(h) for h in st.history], labels))
            if st.history else "",
            rows=tuple(h.totals for h in st.history),
            free=seat < 0 and not s.solo and s.status == "playing"
            and st.phase != Phase.GAME_OVER and bool(K.free_seats(s.seats)),
            deal_last=deal_last)

    async def watch_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        """The public view of a group's table for a member of that group who is not
        seated (a spectator): no hand, no talon before it shows, no passed card."""
        await self.service.restore.touch_game(game_id)
        s = self.service.kit.registry.get(game_id) or self.ended.get(game_id)
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
        return SeatView(public_view(st), self._place(s, st, lang, -1), lang,
                        over=st.phase == Phase.GAME_OVER)

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        """Is the person in the group now (Telegram's getChatMember, trusted a minute)?"""
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
        if kind == "hint" and len(intent) == 1:
            data = cb.encode(game_id, version, cb.HINT)
        elif kind == "rematch" and len(intent) == 1:
            data = cb.encode(game_id, 0, cb.REMATCH)
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
        where = Where(chat_id=user.id)  # the person's private chat: where hand buttons are
        ref = UserRef(user.id, user.first_name, user.username, user.language_code)
        answer = await self.service.press(data, ref, where)
        if answer.text is None:
            return None
        if kind in ("hint", "analyse"):
            return _plain(answer.text)
        return self._refusal(lang, answer.text)

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
    def _refusal(lang: str, text: str) -> Refusal:
        for key in _REFUSALS:
            if text == t(lang, key):
                return Refusal(key.split(".", 1)[1], _plain(text))
        turn = t(lang, "popup.not_your_turn", name="\x00").split("\x00", 1)[0]
        if turn and text.startswith(turn):
            return Refusal("not_your_turn", _plain(text))
        return Refusal("other", _plain(text))
