"""The table message of a game in progress (the group's, and the top of each hand)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.engine.state import (
    Kind,
    Phase,
    Trick,
)
from bot.engine.views import TableView
from bot.i18n import esc, has, t
from bot.tg.model import Event
from bot.tg.view import callbacks as cb
from bot.tg.view import keepers as K
from bot.tg.view.common import (
    SUIT_EMOJI,
    Button,
    Rendered,
    SeatLabel,
    card_text,
    cards_text,
    fit,
    num,
    pace_name,
    seat_name,
    waited_text,
    who,
)

# --------------------------------------------------------------------------- the game


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What a game message needs besides the view."""

    game_id: int
    seats: tuple[SeatLabel, ...]
    events: tuple[Event, ...] = ()  # events of the current deal
    solo: bool = False
    hints: bool = False  # a 💡 button on the hand message (solo, or the table allows it)
    pace: str = "normal"  # quick, normal or unhurried (model.PACES)
    since: float | None = None  # an unhurried table: when the turn now began to wait
    now: float = 0.0  # (with ``since``) the time it is shown at: "ждём 2 ч"
    keepers: K.KeepersInfo | None = None  # the keepers' controls of a group table (keepers.py)
    webapp: str = ""  # the Mini App's URL (WEBAPP_URL): a 🃏 button on the hand message
    link: str = ""  # a group table: the link that opens it as a page (t.me/…?startapp=…)


def _header(lang: str, v: TableView, seats: Sequence[SeatLabel]) -> list[str]:
    head = t(lang, "table.head", n=v.number, dealer=seat_name(seats, v.dealer))
    if v.kind == Kind.GOLDEN:
        head += " · " + t(lang, "table.golden")
    lines = [head]
    if v.history and v.history[-1].outcome == "redeal" and v.history[-1].number == v.number - 1:
        lines.append("🔄 " + redeal_line(lang, v.history[-1].notes[0].code,
                                         v.history[-1].notes[0].seat, seats))
    if v.kind == Kind.DARK:
        lines.append("🌑 " + t(lang, "event.dark", name=seat_name(seats, v.forehand)))
    return lines


def redeal_line(lang: str, code: str, seat: int, seats: Sequence[SeatLabel]) -> str:
    reason = code.removeprefix("redeal_")
    key = f"redeal.{reason}"
    why = t(lang, key) if has(key) else reason
    return t(lang, "event.redeal", name=seat_name(seats, seat), reason=why)


def _event_lines(lang: str, info: TableInfo) -> list[str]:
    out = []
    timed_out: list[int] = []  # one line a seat, however often its time ran out
    # a keeper's decisions (keepers.py): the last one of each seat in this deal
    kept = {e.seat: e for e in info.events if e.code in ("kauto", "khuman", "ksit")}
    for e in info.events:
        if kept.get(e.seat) is e:
            line = K.event_line(lang, e, info.seats)
            if line:
                out.append(line)
        if e.code == "unblind":
            out.append("🌗 " + t(lang, "event.unblind", name=seat_name(info.seats, e.seat),
                                bid=e.value))
        elif e.code == "pace":
            out.append("⏱ " + t(lang, "pace.changed", pace=pace_name(lang, e.why)))
        elif e.code == "timeout" and e.seat not in timed_out and not (
                0 <= e.seat < len(info.seats) and info.seats[e.seat].away):
            timed_out.append(e.seat)
            out.append("⏰ " + t(lang, "event.timeout", name=seat_name(info.seats, e.seat)))
    for i, s in enumerate(info.seats):
        if s.auto and not (i in kept and kept[i].code == "kauto"):
            out.append(t(lang, "autopilot.on", name=esc(s.name)) if s.away
                       else "🤖 " + t(lang, "event.auto", name=esc(s.name)))
    return out


def _seat_lines(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> list[str]:
    out = []
    r = v.rules
    for i in range(v.n):
        name = seat_name(seats, i)
        if i == me:
            name = f"<b>{name}</b>"
        parts = [f"{name} — {num(v.totals[i])}"]
        if r.barrel and v.barrel[i] >= 0:
            parts.append(f"🛢 {v.barrel[i]}/{r.barrel_attempts}")
        if v.bolts[i]:
            parts.append("· " + (t(lang, "table.bolt") if v.bolts[i] == 1
                                 else t(lang, "table.bolts", n=v.bolts[i])))
        if v.number and i == v.dealer and v.n == 4:
            parts.append(t(lang, "table.sits_out"))
        if v.declarer == i and v.phase != Phase.GAME_OVER:
            parts.append(f"📣 {v.contract or v.bid}")
        out.append(" ".join(parts))
    return out


def _bids_line(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str:
    items = []
    for seat, bid in v.bids:
        word = t(lang, "table.pass") if bid == 0 else str(bid)
        items.append(f"{who(lang, seats, seat, me)} {word}")
    return t(lang, "table.bids", bids=" · ".join(items))


def _marriages(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str:
    items = []
    for m in v.declared:
        what = t(lang, "table.aces") if m.suit == 4 else SUIT_EMOJI[m.suit]
        items.append(f"{who(lang, seats, m.seat, me)} {what} {m.value}")
    return ", ".join(items)


def _trick_line(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str | None:
    if v.trick:
        items = [f"{who(lang, seats, s, me)} {card_text(c)}" for s, c in v.trick]
        if v.to_act >= 0:
            items.append(f"{who(lang, seats, v.to_act, me)} …")
        return t(lang, "table.trick", cards=" · ".join(items))
    if v.tricks:
        return done_trick_line(lang, "table.last_trick", v.tricks[-1], seats, me)
    return None


def done_trick_line(lang: str, key: str, trick: Trick, seats: Sequence[SeatLabel],
                    me: int) -> str:
    """A trick played out, its cards in order and who took it (``key``: the previous
    trick of the table, the last one of a deal)."""
    items = [f"{who(lang, seats, s, me)} {card_text(c)}" for s, c in trick.cards]
    return t(lang, key, cards=" · ".join(items), winner=who(lang, seats, trick.winner, me))


def table_lines(lang: str, v: TableView, info: TableInfo, me: int) -> list[str]:
    """The table: header, events, seats and totals, auction, talon, contract, trick, turn."""
    seats = info.seats
    lines = _header(lang, v, seats)
    lines += _event_lines(lang, info)
    lines += _seat_lines(lang, v, seats, me)
    if v.bids and v.phase in (Phase.BIDDING, Phase.TALON, Phase.PASSING, Phase.CONTRACT,
                              Phase.REDEAL):
        lines.append(_bids_line(lang, v, seats, me))
    if v.declarer >= 0:
        key = "table.contract" if v.phase == Phase.PLAY else "table.declarer"
        if v.declarer == me:
            key += "_me"
        lines.append(t(lang, key, name=seat_name(seats, v.declarer),
                       bid=v.contract if v.phase == Phase.PLAY else v.bid))
    if v.talon and (v.talon_shown or me == v.declarer):
        key = "table.talon" if v.talon_shown else "table.talon_yours"
        lines.append(t(lang, key, cards=cards_text(v.talon)))
    elif v.declarer >= 0 and not v.talon_shown and v.phase in (Phase.PASSING, Phase.CONTRACT):
        lines.append(t(lang, "table.talon_closed"))
    if v.phase == Phase.TALON and v.n == 2:
        lines.append(t(lang, "table.two_talons"))
    if v.phase == Phase.PLAY and v.rules.stock_mode:
        lines.append(t(lang, "table.stock", n=v.talon_size))
    if v.trump >= 0:
        lines.append(t(lang, "table.trump", suit=SUIT_EMOJI[v.trump],
                       marriages=_marriages(lang, v, seats, me)))
    elif v.declared:
        lines.append(t(lang, "table.marriages", marriages=_marriages(lang, v, seats, me)))
    if v.phase == Phase.PLAY:
        trick = _trick_line(lang, v, seats, me)
        if trick:
            lines.append(trick)
        if v.tricks:
            counts = " · ".join(f"{who(lang, seats, s, me)} {v.ntricks[s]}"
                                for s in sorted(v.active))  # seat order, every deal the same
            lines.append(t(lang, "table.tricks", counts=counts))
            lines.append(points_line(lang, v, seats, me))
    return lines


def deal_points(v: TableView) -> list[int]:
    """Each seat's points in this deal so far: the card points of the tricks it won and the
    marriages it declared (RULES.md §4.1).  Both are on the table for everybody (every
    trick's cards and every declaration are shown), so the public view gives them: nothing
    from a hand, the talon or the cards passed face down."""
    pts = list(v.taken)
    for m in v.declared:
        if 0 <= m.seat < len(pts):
            pts[m.seat] += m.value
    return pts


def points_line(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str:
    """The running points: the declarer's against the contract, then each defender's where
    the rules count them (not a defender sitting on the barrel); every seat's in the
    marriage game without bidding (stock)."""
    pts = deal_points(v)
    if v.declarer < 0:
        counts = " · ".join(f"{who(lang, seats, s, me)} {pts[s]}" for s in sorted(v.active))
        return t(lang, "table.points_all", counts=counts)
    line = t(lang, "table.points", name=who(lang, seats, v.declarer, me),
             points=pts[v.declarer], contract=v.contract)
    others = [f"{who(lang, seats, s, me)} {pts[s]}" for s in sorted(v.active)
              if s != v.declarer and not (v.rules.barrel and v.barrel[s] >= 0)]
    return " · ".join([line, *others])


def render_table(lang: str, pv: TableView, info: TableInfo) -> Rendered:
    """The group's table message (from the public view)."""
    lines = table_lines(lang, pv, info, -1)
    if pv.number == 1 and info.pace != "normal":  # the pace said once, as the game begins
        lines.insert(1, "⏱ " + t(lang, "table.pace", pace=pace_name(lang, info.pace)))
    if pv.to_act >= 0:
        turn = t(lang, "table.turn", name=seat_name(info.seats, pv.to_act))
        waited = waited_text(lang, info.now - info.since) if info.since is not None else ""
        if waited and not (0 <= pv.to_act < len(info.seats)
                           and info.seats[pv.to_act].computer):
            turn += " · " + t(lang, "table.waits", time=waited)
        lines.append(turn)
    g = info.game_id
    base = (Button(t(lang, "btn.my_cards"), cb.encode(g, 0, cb.HAND)),
            Button(t(lang, "btn.score"), cb.encode(g, 0, cb.SCORE)))
    rows = K.table_keyboard(lang, g, info.seats, info.keepers, base)
    if info.link:  # the table as a page (the keepers' menu is a message of its own)
        rows = (*rows, (Button(t(lang, "btn.webapp_table"), url=info.link),))
    return Rendered(fit("\n".join(lines)), rows)
