"""A seat's view as the JSON the page gets, and the page's texts.

Built only from the engine's per-seat view (``bot/engine/views.py``: no other hand, no
unrevealed talon) and the table's public facts (``SeatPlace``).  Cards are written
``<rank><suit letter>`` ("10H", "QS"): the page draws them and the tests can find every
card in a payload.  No text of any language is made here but from the catalogs.
"""

from __future__ import annotations

from typing import Any, Final

from bot.engine import cards as C
from bot.engine.state import Action, Phase
from bot.i18n import CATALOGS, DEFAULT_LANG
from bot.webapp.port import SeatView

Json = dict[str, Any]

_RANK_CODES: Final = ("9", "J", "Q", "K", "10", "A")
CARD_CODES: Final = tuple(_RANK_CODES[c % 6] + C.SUIT_LETTERS[c // 6] for c in C.DECK)
_CARD_OF: Final = {code: c for c, code in enumerate(CARD_CODES)}
TEXT_PREFIX: Final = "webapp."


def card_code(c: int) -> str:
    return CARD_CODES[c]


def card_of(code: object) -> int | None:
    """The card of a code the page sent (None: not a card)."""
    return _CARD_OF.get(code) if isinstance(code, str) else None


def action_json(a: Action) -> Json:
    out: Json = {"kind": a.kind}
    if a.value:
        out["value"] = a.value
    if a.card >= 0:
        out["card"] = card_code(a.card)
    return out


def action_of(data: object) -> Action | None:
    """The action the page sent as ``{"kind", "value"?, "card"?}`` (None: malformed)."""
    if not isinstance(data, dict) or set(data) - {"kind", "value", "card"}:
        return None
    kind, value, code = data.get("kind"), data.get("value", 0), data.get("card")
    if not isinstance(kind, str) or not isinstance(value, int) or isinstance(value, bool):
        return None
    if not 0 <= value <= 10_000:
        return None
    card = -1
    if code is not None:
        got = card_of(code)
        if got is None:
            return None
        card = got
    return Action(kind, value=value, card=card)


def _sorted_hand(hand: tuple[int, ...], trump: int) -> list[int]:
    """By suit (♠ ♥ ♣ ♦: the colours alternate; the trump first), high cards first."""
    order = [0, 3, 1, 2]
    if trump >= 0:
        order.remove(trump)
        order.insert(0, trump)
    return sorted(hand, key=lambda c: (order.index(C.suit_of(c)), -C.rank_of(c)))


def seat_payload(sv: SeatView) -> Json:
    """Exactly what the seat may know now, as JSON."""
    v, p = sv.view, sv.place
    n = v.n
    last_bid: list[int | None] = [None] * n
    for seat, bid in v.bids:
        last_bid[seat] = bid
    cards = [card_code(c) for c in _sorted_hand(v.hand, v.trump)]
    trick = [[s, card_code(c)] for s, c in v.trick]
    last: Json | None = None
    if v.tricks:
        t = v.tricks[-1]
        last = {"cards": [[s, card_code(c)] for s, c in t.cards], "winner": t.winner}
    done = p.deal_last  # the finished deal's last trick, until the next deal's first card
    deal_last = None if done is None else {
        "cards": [[s, card_code(c)] for s, c in done.cards], "winner": done.winner}
    running = None
    if v.declarer >= 0 and v.phase == Phase.PLAY:
        running = v.taken[v.declarer] + sum(d.value for d in v.declared if d.seat == v.declarer)
    seats = [{
        "name": p.names[i] if i < len(p.names) else "",
        "computer": p.computers[i] if i < len(p.computers) else False,
        "total": v.totals[i],
        "cards": v.hand_sizes[i],
        "bid": last_bid[i],
        "passed": bool(v.passed[i]) if i < len(v.passed) else False,
        "barrel": v.barrel[i] >= 0,
        "bolts": v.bolts[i],
        "active": i in v.active,
        "tricks": v.ntricks[i],
    } for i in range(n)]
    return {
        "game": p.game_id,
        "version": v.version,
        "seat": v.seat,
        "n": n,
        "lang": sv.lang,
        "over": sv.over or v.phase == Phase.GAME_OVER,
        "solo": p.solo,
        "hints": p.hints,
        "deadline": p.deadline,
        "phase": str(v.phase),
        "kind": str(v.kind),
        "number": v.number,
        "dealer": v.dealer,
        "forehand": v.forehand,
        "to_act": v.to_act,
        "active": list(v.active),
        "seats": seats,
        "hand": cards,
        "legal": [action_json(a) for a in v.legal],
        "offers": [action_json(a) for a in v.offers],
        "bids": [[s, b] for s, b in v.bids],
        "bid": v.bid,
        "bidder": v.bidder,
        "declarer": v.declarer,
        "contract": v.contract,
        "running": running,
        "trump": C.SUIT_LETTERS[v.trump] if 0 <= v.trump < 4 else None,
        "talon": [card_code(c) for c in v.talon],
        "talon_shown": v.talon_shown,
        "talon_size": v.talon_size,
        "received": card_code(v.received) if v.received >= 0 else None,
        "gave": [[s, card_code(c)] for s, c in v.gave],
        "gave_count": v.gave_count,
        "discarded": [card_code(c) for c in v.discarded],
        "trick": trick,
        "last_trick": last,
        "deal_last_trick": deal_last,
        "rematch": p.rematch,
        "declared": [[d.seat, C.SUIT_LETTERS[d.suit] if d.suit < 4 else "A", d.value]
                     for d in v.declared],
        "taken": list(v.taken),
        "totals": list(v.totals),
        "winner": v.winner,
        "summary": p.summary,
        "summary_deal": p.summary_deal,
        "sheet": [list(r) for r in p.rows],
        "sheet_text": p.sheet,
        "rule_players": v.rules.players,
        "spectator": v.seat < 0,  # the public view: a member of the group watching
        "can_sit": p.free,  # … who may take a free seat from the page
    }


def page_texts(lang: str) -> dict[str, str]:
    """Every ``webapp.*`` text of ``lang`` (the page's words), by the key after the dot;
    placeholders stay ``{name}`` for the page to fill."""
    catalog = CATALOGS.get(lang) or CATALOGS[DEFAULT_LANG]
    base = CATALOGS[DEFAULT_LANG]
    out = {k[len(TEXT_PREFIX):]: v for k, v in base.items() if k.startswith(TEXT_PREFIX)}
    out.update({k[len(TEXT_PREFIX):]: v for k, v in catalog.items() if k.startswith(TEXT_PREFIX)})
    return out
