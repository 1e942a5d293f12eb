"""What the rules say about a deal in progress, without changing it: the seeds and the
layout of a deal, who sits out, who has decided, the reasons for a redeal, who defends, the
highest bid a hand may make.  ``game`` (the state machine) and ``refusals`` build on it."""

from __future__ import annotations

import hashlib
import random
from typing import Protocol

from . import cards as C
from .rules import Rules
from .state import (
    DARK,
    LIGHT,
    REDEAL,
    Action,
    DealState,
    GameState,
    IllegalAction,
    Kind,
    Layout,
    Phase,
)


def derive_seed(seed: int, k: int) -> int:
    """The seed of deal ``k`` of a game with ``seed`` (k = -1 draws the first dealer)."""
    digest = hashlib.sha256(f"thousand:{seed}:{k}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def hand_size(rules: Rules) -> int:
    if rules.players == 2:
        return 6 if rules.two_player_mode == "stock" else 10
    return 7


def active_seats(rules: Rules, dealer: int) -> tuple[int, ...]:
    """Seats in play, clockwise from the forehand; the four-player dealer sits out."""
    n = rules.players
    count = 3 if n == 4 else n
    return tuple((dealer + i) % n for i in range(1, count + 1))


def layout_from_seed(seed: int, rules: Rules, dealer: int) -> Layout:
    deck = list(C.DECK)
    random.Random(seed).shuffle(deck)
    size = hand_size(rules)
    hands: list[tuple[int, ...]] = [() for _ in range(rules.players)]
    pos = 0
    for seat in sorted(active_seats(rules, dealer)):
        hands[seat] = C.sort_hand(deck[pos : pos + size])
        pos += size
    return Layout(tuple(hands), tuple(deck[pos:]))


def check_layout(rules: Rules, dealer: int, layout: Layout) -> None:
    n = rules.players
    if len(layout.hands) != n:
        raise IllegalAction(f"the deal needs {n} hands, got {len(layout.hands)}",
                            "layout_hands", want=n, got=len(layout.hands))
    size = hand_size(rules)
    active = set(active_seats(rules, dealer))
    for seat, hand in enumerate(layout.hands):
        want = size if seat in active else 0
        if len(hand) != want:
            raise IllegalAction(f"seat {seat} must get {want} cards, got {len(hand)}",
                                "layout_hand_size", seat=seat, want=want, got=len(hand))
    talon_size = 24 - size * len(active)
    if len(layout.talon) != talon_size:
        raise IllegalAction(f"the talon must have {talon_size} cards, got {len(layout.talon)}",
                            "layout_talon_size", want=talon_size, got=len(layout.talon))
    every = [c for h in layout.hands for c in h] + list(layout.talon)
    bad = [c for c in every if not 0 <= c < 24]
    if bad:
        raise IllegalAction(f"unknown card number {bad[0]}", "layout_card_number", number=bad[0])
    seen: set[int] = set()
    for c in every:
        if c in seen:
            raise IllegalAction(f"duplicate card {C.fmt(c)}", "layout_duplicate", card=c)
        seen.add(c)


def sitters(state: GameState) -> list[int]:
    return [i for i, t in enumerate(state.barrel) if t >= 0]


def hand_redeal_reason(rules: Rules, hand: tuple[int, ...], is_forehand: bool) -> str | None:
    """Why a hand may ask for a redeal before bidding, or None."""
    nines = C.count_rank(hand, C.NINE)
    if rules.redeal_four_nines and nines >= 4:
        return "four_nines"
    if nines == 3 and (
        rules.redeal_three_nines == "any"
        or (rules.redeal_three_nines == "forehand" and is_forehand)
    ):
        return "three_nines"
    if rules.redeal_four_jacks and C.count_rank(hand, C.JACK) >= 4:
        return "four_jacks"
    if rules.redeal_hand_below is not None and C.hand_points(hand) < rules.redeal_hand_below:
        return "hand_below"
    return None


def talon_redeal_reason(rules: Rules, d: DealState) -> str | None:
    """Why the declarer may ask for a redeal on seeing the talon, or None."""
    if not d.talon_taken or d.gave or d.discarded:
        return None
    return talon_reason(rules, d.talon_taken, d.bid, d.raised)


def talon_reason(rules: Rules, talon: tuple[int, ...], bid: int, raised: bool) -> str | None:
    """Why a talon ``talon`` taken at ``bid`` (``raised``: after a raise) lets the declarer
    ask for a redeal, or None."""
    if rules.redeal_talon_only_on_100 and (bid != 100 or raised):
        return None
    if rules.redeal_talon_below is not None and C.hand_points(talon) < rules.redeal_talon_below:
        return "talon_below"
    if rules.redeal_talon_two_nines and C.count_rank(talon, C.NINE) >= 2:
        return "talon_two_nines"
    if rules.redeal_talon_three_jacks and C.count_rank(talon, C.JACK) >= 3:
        return "talon_three_jacks"
    return None


def hand_redeals_possible(rules: Rules) -> bool:
    """Whether any hand may ask for a redeal before bidding under ``rules`` (§5.3)."""
    return not rules.stock_mode and (
        rules.redeal_hand_below is not None
        or rules.redeal_four_nines
        or rules.redeal_three_nines != "off"
        or rules.redeal_four_jacks
    )


def has_decided(d: DealState, seat: int) -> bool:
    """Whether ``seat`` has taken a decision in this deal after looking at its cards (the
    forehand's choice of a dark game is taken before looking and does not count)."""
    prefix = f"{seat}:"
    return any(a.startswith(prefix) and a[len(prefix):] not in (DARK, LIGHT) for a in d.actions)


def went_dark(d: DealState, seat: int) -> bool:
    return seat == d.forehand and (d.kind == Kind.DARK or d.unblinded)


def hand_redeal_open(s: GameState, seat: int) -> str | None:
    """The reason ``seat`` may ask for a redeal now, privately, with its first decision of
    the deal (§2.3), or None. Only the seat to act, only before its first decision."""
    d = s.deal
    if d is None or s.phase not in (Phase.BIDDING, Phase.TALON, Phase.PLAY):
        return None
    if seat != d.to_act or s.rules.stock_mode or has_decided(d, seat) or went_dark(d, seat):
        return None
    return hand_redeal_reason(s.rules, d.layout.hands[seat], seat == d.forehand)


def late_redeal_open(s: GameState, seat: int) -> bool:
    """``redeal_after_pass``: ``seat`` holds four nines after the pass and has not played a
    card yet; it may ask at any moment, even out of turn (§2.3, §5.3)."""
    d = s.deal
    if d is None or not s.rules.redeal_after_pass or s.phase not in (Phase.CONTRACT, Phase.PLAY):
        return False
    if seat not in d.four_nines:
        return False
    played = any(st == seat for t in d.tricks for st, _ in t.cards)
    return not played and all(st != seat for st, _ in d.trick)


def out_of_turn_actions(s: GameState, seat: int) -> list[Action]:
    """What ``seat`` may do now although it is not its turn: a late redeal request."""
    if s.deal is None or seat == s.to_act or not late_redeal_open(s, seat):
        return []
    return [Action(REDEAL)]


def next_in(active: tuple[int, ...], seat: int) -> int:
    return active[(active.index(seat) + 1) % len(active)]


def bid_cap(rules: Rules, hand: tuple[int, ...]) -> int:
    """The highest bid or contract a hand allows (§2.4)."""
    if not rules.bid_needs_marriage:
        return rules.max_bid
    cap = 120 + sum(C.MARRIAGE_VALUES[su] for su in C.marriages_in(hand))
    if rules.ace_marriage and C.has_four_aces(hand):
        cap += C.ACE_MARRIAGE_VALUE
    return min(cap, rules.max_bid)


class Seating(Protocol):
    """A deal or a view of it: the seats in play and the declarer."""

    @property
    def active(self) -> tuple[int, ...]: ...

    @property
    def declarer(self) -> int: ...


def defenders(d: Seating) -> tuple[int, ...]:
    """The declarer's opponents, clockwise from the declarer (of a deal or a seat's view)."""
    out = []
    seat = d.declarer
    for _ in range(len(d.active) - 1):
        seat = next_in(d.active, seat)
        out.append(seat)
    return tuple(out)
