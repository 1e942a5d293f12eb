"""A seat's private hand message: its lines, the action buttons, the hand popups."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from bot.engine import cards as C
from bot.engine.game import hand_redeal_reason
from bot.engine.rules import (
    Rules,
)
from bot.engine.scoring import rospis_payout
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
    Kind,
    Phase,
)
from bot.engine.views import TableView
from bot.i18n import t
from bot.tg.view import callbacks as cb
from bot.tg.view.common import (
    RANK_NAMES,
    Button,
    Rendered,
    SeatLabel,
    button_rows,
    card_button,
    card_text,
    cards_text,
    fit,
    hand_text,
    num,
    popup,
    seat_name,
)
from bot.tg.view.table import (
    TableInfo,
    table_lines,
)


def render_hand(lang: str, v: TableView, info: TableInfo, page: str = "") -> Rendered:
    """A player's private message: the table in a few lines, the hand, and what to do now.

    ``page`` (callbacks.PAGE) shows the seat's other buttons: "m" the bids or contracts that
    are not on the first page, "l" the plain leads of the cards that may declare a marriage
    (a page that does not apply now shows the first)."""
    me = v.seat
    lines = table_lines(lang, v, info, me)
    if v.received >= 0:
        lines.append(t(lang, "hand.received", card=card_text(v.received)))
    if v.gave and me == v.declarer:
        gave = ", ".join(f"{card_text(c)} → {seat_name(info.seats, s)}" for s, c in v.gave)
        lines.append(t(lang, "hand.gave", cards=gave))
    if v.discarded:
        lines.append(t(lang, "hand.discarded", cards=cards_text(v.discarded)))
    if v.phase == Phase.DARK and me == v.forehand:
        lines.append(t(lang, "hand.closed"))
    elif v.hand:
        lines.append(t(lang, "hand.cards", cards=hand_text(v.hand)))
    rows: list[tuple[Button, ...]] = []
    if v.legal:
        prompt, rows = _actions(lang, v, info, page)
        lines.append(f"<b>{prompt}</b>")
        if info.hints and len(v.legal) > 1:  # nothing to advise on a single move
            rows.append((Button(t(lang, "btn.hint"), cb.encode(info.game_id, v.version,
                                                               cb.HINT)),))
    elif v.to_act >= 0:
        lines.append(t(lang, "hand.waiting", name=seat_name(info.seats, v.to_act)))
        if v.offers:  # four nines after the pass: a redeal may be asked out of turn
            lines.append(t(lang, "prompt.redeal",
                           reason=t(lang, "redeal.four_nines_after_pass")))
            rows.append((Button(t(lang, "btn.redeal"),
                                cb.action_data(info.game_id, v.version, Action(REDEAL))),))
    if info.webapp:  # the table as a page (bot/webapp/)
        rows.append((Button(t(lang, "btn.webapp"), web_app=webapp_link(info.webapp,
                                                                       info.game_id)),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def webapp_link(url: str, game_id: int) -> str:
    """The Mini App's address for one game (the page asks for that game's view)."""
    return f"{url}?game={game_id}"


NEXT_VALUES: Final = 3  # the next bids (or contracts) always on the first page
ONE_PAGE: Final = 12  # this many values or fewer: all on the first page


def value_pages(values: Sequence[int]) -> tuple[list[int], list[int]]:
    """The bids (or contracts) of the first page and of the "more" page: every value is one
    press away or two.  The first page has the next few and the round ones (…, 170, 180,
    190, 200, …), the other page the rest; a short list is all on the first page."""
    vals = list(values)
    if len(vals) <= ONE_PAGE:
        return vals, []
    first = vals[:NEXT_VALUES] + [x for x in vals[NEXT_VALUES:] if x % 10 == 0]
    more = [x for x in vals if x not in first]
    if len(more) <= 2:  # a page for one or two buttons is a press for nothing
        return vals, []
    return first, more


def page_button(lang: str, g: int, ver: int, page: str, key: str, **kw: object) -> Button:
    return Button(t(lang, key, **kw), cb.encode(g, ver, cb.PAGE, page))


def _more_button(lang: str, g: int, ver: int, more: Sequence[int]) -> Button:
    return page_button(lang, g, ver, "m", "btn.more_values", first=more[0], last=more[-1])


def _card_rows(g: int, ver: int, acts: list[Action], label: Any = None) -> list[tuple[Button, ...]]:
    by_suit: dict[int, list[Button]] = {}
    for a in sorted(acts, key=lambda a: (C.suit_of(a.card), -C.rank_of(a.card), a.kind)):
        text = card_button(a.card) if label is None else label(a)
        by_suit.setdefault(C.suit_of(a.card), []).append(Button(text, cb.action_data(g, ver, a)))
    return [tuple(by_suit[s]) for s in sorted(by_suit)]


def _talon_reason(r: Rules, talon: Sequence[int]) -> str:
    if r.redeal_talon_below is not None and C.hand_points(talon) < r.redeal_talon_below:
        return "talon_below"
    if r.redeal_talon_two_nines and C.count_rank(talon, C.NINE) >= 2:
        return "talon_two_nines"
    return "talon_three_jacks"


def _actions(lang: str, v: TableView, info: TableInfo,
             page: str = "") -> tuple[str, list[tuple[Button, ...]]]:
    """The prompt and the buttons of exactly the actions this seat may take now (those of
    ``page`` when it applies: ``render_hand``)."""
    g, ver, seats = info.game_id, v.version, info.seats
    legal = list(v.legal)
    kinds = {a.kind for a in legal}

    def btn(text: str, a: Action) -> Button:
        return Button(text, cb.action_data(g, ver, a))

    rows: list[tuple[Button, ...]] = []
    if DARK in kinds:
        rows.append((btn(t(lang, "btn.dark"), Action(DARK)), btn(t(lang, "btn.light"),
                                                                Action(LIGHT))))
        return t(lang, "prompt.dark"), rows
    if REDEAL in kinds and v.phase != Phase.PASSING:
        # the private request (§2.3): a button beside the seat's first decision, or with
        # four nines after the pass until its first card
        prompt, rows = _actions(lang, replace(v, legal=tuple(a for a in legal
                                                              if a.kind != REDEAL)), info, page)
        late = (v.rules.redeal_after_pass and v.phase in (Phase.CONTRACT, Phase.PLAY)
                and C.count_rank(v.hand, C.NINE) == 4)
        reason = "four_nines_after_pass" if late else (
            hand_redeal_reason(v.rules, v.hand, v.seat == v.forehand) or "hand")
        rows.append((btn(t(lang, "btn.redeal_talon", reason=t(lang, f"redeal.{reason}")),
                         Action(REDEAL)),))
        return prompt, rows
    if v.phase == Phase.BIDDING:
        bids = [a.value for a in legal if a.kind == BID]
        buttons = [btn(t(lang, "btn.pass"), Action(PASS))]
        if v.kind == Kind.DARK:
            buttons += [btn(t(lang, "btn.unblind", bid=b), Action(BID, value=b)) for b in bids]
            rows.extend(button_rows(buttons, 2))
            return t(lang, "prompt.unblind", name=seat_name(seats, v.bidder), bid=v.bid), rows
        key = "prompt.bid" if bids else "prompt.bid_pass_only"
        prompt = t(lang, key, bid=v.bid, name=seat_name(seats, v.bidder))
        first, more = value_pages(bids)
        if more and page == "m":
            rows.extend(button_rows([btn(str(b), Action(BID, value=b)) for b in more], 5))
            rows.append((page_button(lang, g, ver, "", "btn.back"),))
            return prompt, rows
        # the pass and the next bids on the first row, then the round ones
        head = buttons + [btn(str(b), Action(BID, value=b)) for b in first[:NEXT_VALUES]]
        rows.append(tuple(head))
        rows.extend(button_rows([btn(str(b), Action(BID, value=b))
                                 for b in first[NEXT_VALUES:]], 5))
        if more:
            rows.append((_more_button(lang, g, ver, more),))
        return prompt, rows
    if v.phase == Phase.TALON:
        if v.n != 2:  # one talon, taken by hand
            rows.append((btn(t(lang, "btn.take_talon"), Action(TALON, value=1)),))
            return t(lang, "prompt.take_talon"), rows
        rows.append(tuple(btn(t(lang, "btn.talon", n=a.value), a) for a in legal))
        return t(lang, "prompt.talon"), rows
    if v.phase == Phase.PASSING:
        cards = [a for a in legal if a.kind in (GIVE, DISCARD)]
        rows.extend(_card_rows(g, ver, cards))
        if REDEAL in kinds:
            reason = _talon_reason(v.rules, v.talon)
            rows.append((btn(t(lang, "btn.redeal_talon", reason=t(lang, f"redeal.{reason}")),
                             Action(REDEAL)),))
        if any(a.kind == DISCARD for a in cards):
            return t(lang, "prompt.discard", k=len(v.discarded) + 1), rows
        return t(lang, "prompt.give", name=seat_name(seats, _give_target(v))), rows
    if v.phase == Phase.CONTRACT:
        values = [a.value for a in legal if a.kind == CONTRACT]
        prompt = t(lang, "prompt.contract", bid=v.bid)
        first, more = value_pages(values)
        if more and page == "m":
            rows.extend(button_rows([btn(str(x), Action(CONTRACT, value=x)) for x in more], 5))
            rows.append((page_button(lang, g, ver, "", "btn.back"),))
            return prompt, rows
        buttons = [btn(t(lang, "btn.contract_first", bid=first[0]),
                       Action(CONTRACT, value=first[0]))] if first else []
        buttons += [btn(str(x), Action(CONTRACT, value=x)) for x in first[1:NEXT_VALUES]]
        if buttons:
            rows.append(tuple(buttons))
        rows.extend(button_rows([btn(str(x), Action(CONTRACT, value=x))
                                 for x in first[NEXT_VALUES:]], 5))
        if more:
            rows.append((_more_button(lang, g, ver, more),))
        if CONCEDE in kinds:
            pay = rospis_payout(v.rules.rospis_pays, v.bid, v.rules.players)
            mult = 2 if v.kind in (Kind.DARK, Kind.GOLDEN) else 1
            rows.append((btn(t(lang, "btn.concede", bid=v.bid * mult, pay=pay * mult),
                             Action(CONCEDE)),))
        return prompt, rows
    # play: a card that may declare a marriage is shown declaring (K♣ 💍 60); its plain
    # lead is a deliberate second step ("without the marriage…"), never a look-alike
    plays = [a for a in legal if a.kind == PLAY]
    declares = [a for a in legal if a.kind == DECLARE]
    declaring = {a.card for a in declares}
    plain = [a for a in plays if a.card in declaring]
    if plain and page == "l":
        rows.extend(_card_rows(g, ver, plain))
        rows.append((page_button(lang, g, ver, "", "btn.back"),))
        return t(lang, "prompt.play_plain"), rows
    if declares:
        def label(a: Action) -> str:
            value = C.ACE_MARRIAGE_VALUE if C.rank_of(a.card) == C.ACE \
                else C.MARRIAGE_VALUES[C.suit_of(a.card)]
            return f"{card_button(a.card)} 💍 {value}"
        rows.extend(_card_rows(g, ver, declares, label))
    rows.extend(_card_rows(g, ver, [a for a in plays if a.card not in declaring]))
    if plain:
        rows.append((page_button(lang, g, ver, "l", "btn.no_marriage"),))
    key = "prompt.play_lead" if not v.trick else "prompt.play"
    return t(lang, key), rows


def _give_target(v: TableView) -> int:
    if v.n == 2:
        return next((s for s in v.active if s != v.seat), -1)
    given = {s for s, _ in v.gave}
    i = v.active.index(v.declarer)
    for k in range(1, len(v.active)):
        s = v.active[(i + k) % len(v.active)]
        if s not in given:
            return s
    return -1


def hand_popup(lang: str, v: TableView) -> str:
    if not v.hand:
        return popup(t(lang, "popup.no_cards"))
    groups: dict[int, list[int]] = {}
    for c in C.sort_hand(v.hand):
        groups.setdefault(C.suit_of(c), []).append(c)
    text = " · ".join(C.SUITS[s] + " " + " ".join(RANK_NAMES[c % 6] for c in groups[s])
                      for s in sorted(groups))
    extra = ""
    if v.received >= 0:
        extra = " " + t(lang, "popup.received", card=C.fmt(v.received))
    return popup(t(lang, "popup.hand", cards=text) + extra)


def totals_popup(lang: str, v: TableView, seats: Sequence[SeatLabel]) -> str:
    items = []
    for i in range(v.n):
        s = seats[i] if i < len(seats) else SeatLabel("?")
        mark = " 🛢" if v.rules.barrel and v.barrel[i] >= 0 else ""
        items.append(f"{('🤖 ' if s.computer else '')}{s.name} {num(v.totals[i])}{mark}")
    return popup(t(lang, "popup.totals", totals=" · ".join(items)))
