"""💡 hints and 🔍 analyses: presses, texts, and the finished games they may look at.

A hint is ``hard``'s choice in the presser's own view with its reason (``bot.ai.explain``),
thought in the process pool within ``thinking.HINT_BOX`` seconds; an analysis looks at a
finished deal with every hand open (``thinking.ANALYSIS_BOX``).  Both are cached by the
``Thinker`` (per state and seat, per game and deal).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from bot.ai.explain import Analysis, Hint, Reason
from bot.engine.rules import rules_from_dict
from bot.engine.state import (
    BID,
    CONTRACT,
    DECLARE,
    DISCARD,
    GIVE,
    PLAY,
    TALON,
    Action,
    GameState,
)
from bot.engine.views import view
from bot.i18n import esc, t
from bot.tg.model import SeatInfo, replay, seats_from_json
from bot.tg.rooms.base import Kit
from bot.tg.rooms.session import Answer, Session, UserRef, Where, hints_allowed
from bot.tg.view import callbacks as cb
from bot.tg.view import render as R

_CARD_PARAMS = ("card", "gone")


def action_words(lang: str, a: Action, players: int = 3) -> str:
    """An action in a few words, the buttons' words ("10♥", "ставка 115", "заказ 120",
    "взять прикуп", "пас")."""
    if a.kind == PLAY:
        return R.card_text(a.card)
    if a.kind == DECLARE:
        return t(lang, "hint.act.declare", card=R.card_text(a.card))
    if a.kind in (GIVE, DISCARD):
        return t(lang, f"hint.act.{a.kind}", card=R.card_text(a.card))
    if a.kind == TALON and players != 2:  # one talon, taken by the button "Взять прикуп"
        return t(lang, "hint.act.take_talon")
    if a.kind in (BID, CONTRACT, TALON):
        return t(lang, f"hint.act.{a.kind}", value=a.value)
    return t(lang, f"hint.act.{a.kind}")


def reason_text(lang: str, r: Reason, names: Sequence[str] = ()) -> str:
    params: dict[str, object] = {}
    for name, value in r.params:
        if name in _CARD_PARAMS:
            params[name] = R.card_text(value)
        elif name == "seat":
            params["name"] = names[value] if 0 <= value < len(names) else "—"
        else:
            params[name] = value
    return t(lang, f"why.{r.code}", **params)


def hint_text(lang: str, h: Hint | None, names: Sequence[str] = (), players: int = 3) -> str:
    """One popup line: "💡 10♥: берёт взятку при любом раскладе · вы выполните заказ в 62%
    раскладов" (``names`` by seat, for whose contract it is)."""
    if h is None:
        return t(lang, "hint.late")
    why = " · ".join(reason_text(lang, r, names) for r in h.reasons)
    return R.popup(t(lang, "hint.line", action=action_words(lang, h.action, players),
                     why=why))


def analysis_text(lang: str, a: Analysis | bool | None, names: Sequence[str]) -> str:
    """Plain text (no HTML): the analysis of one deal."""
    if a is None:
        return t(lang, "analysis.late")
    if a is False or a is True:
        return t(lang, "analysis.no_play")
    who = names[a.declarer] if 0 <= a.declarer < len(names) else "—"
    head = t(lang, "analysis.head", n=a.number, name=who, contract=a.contract)
    if a.value is not None:
        key = "analysis.makeable" if a.makeable else "analysis.not_makeable"
        body = t(lang, key, points=a.value)
    else:
        body = t(lang, "analysis.makeable_only" if a.makeable else "analysis.not_makeable_only")
    if a.mistake is not None:
        m = a.mistake
        mname = names[m.seat] if 0 <= m.seat < len(names) else "—"
        key = "analysis.mistake_declarer" if m.declarer_side else "analysis.mistake_defenders"
        tail = t(lang, key, name=mname, card=R.card_text(m.card), trick=m.trick)
    elif not a.complete:
        tail = t(lang, "analysis.partial")
    else:
        tail = t(lang, "analysis.no_mistake")
    return f"🔍 {head} {body} {tail}"


def _names(seats: Sequence[SeatInfo]) -> list[str]:
    return [x.name for x in seats]


class HintsRoom:
    """💡 and 🔍 presses (routed here by ``buttons.py``); reads games, changes none."""

    def __init__(self, kit: Kit) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.thinker = kit.thinker
        self.registry = kit.registry
        self.people = kit.people

    async def hint_press(self, s: Session, c: cb.Callback, user: UserRef) -> Answer:
        """💡 on a hand message (the caller checked the chat: the presser's own private chat)."""
        lang = self.people.lang_for_user(user.id) if not s.solo else s.lang
        st = s.state
        if s.status != "playing" or st is None:
            return Answer(t(lang, "popup.stale"))
        if not hints_allowed(s):
            return Answer(t(lang, "hint.off"))
        seat = s.seat_of(user.id)
        if seat < 0:
            return Answer(t(lang, "popup.not_seated"))
        if c.version != st.version:
            return Answer(t(lang, "popup.stale"))
        v = view(st, seat)  # the seat's own view and nothing else
        if not v.legal:
            return Answer(t(lang, "hint.not_your_turn"))
        h = await self.thinker.hint((s.game_id, st.version, seat), v, s.seed)
        names = [label.name for label in s.labels()]  # as the table shows them
        return Answer(hint_text(lang, h, names, st.rules.players), alert=True)

    async def analysis_press(self, c: cb.Callback, user: UserRef,
                             where: Where) -> Answer:
        """🔍 on a deal's summary: in the game's chat, or a seat's private chat; a finished
        game is read back from storage."""
        lang = self.people.lang_for_user(user.id)
        number = int(c.arg) if c.arg.isdigit() else 0
        s = self.registry.get(c.game_id)
        state: GameState | None
        if s is not None and s.state is not None:
            chat_id, seats, state = s.chat_id, s.seats, s.state
            lang = s.lang if s.solo else lang
        else:
            game = await self.storage.get_game(c.game_id)
            if game is None or game.status not in ("playing", "finished", "stopped"):
                return Answer(t(lang, "popup.stale"))
            chat_id, seats = game.chat_id, seats_from_json(game.seats)
            state = None
        mine = any(x.kind == "human" and x.user_id == user.id for x in seats)
        if where.chat_id != chat_id and not (mine and where.chat_id == user.id):
            return Answer(t(lang, "guard.wrong_place"))
        if state is None:
            game = await self.storage.get_game(c.game_id)
            if game is None:
                return Answer(t(lang, "popup.stale"))
            rules = rules_from_dict(json.loads(game.rules))
            state = replay(rules, game.seed, await self.storage.actions(c.game_id)).state
        if not 1 <= number <= len(state.history):
            return Answer(t(lang, "popup.stale"))
        got = await self.thinker.analysis((c.game_id, number), state, number)
        text = analysis_text(lang, got, _names(seats))
        if len(text) <= R.MAX_POPUP:
            return Answer(text, alert=True)
        self.kit.reply(where.chat_id or user.id, esc(text),
                       thread=where.thread_id if where.chat_id else None)
        return Answer(t(lang, "analysis.sent"))
