"""A fast estimate of the points a declarer takes with a hand (bidding, passing, contract).

``declarer_points(hand, ...)`` is linear in a few features of each suit: the ace,
a ten with or without its ace, a marriage (its value counts only when the hand can
hope to win a trick first), length, and loose kings and queens. The weights in
``WEIGHTS`` were tuned on self-play deals (see docs/computer-players.md): the
hand a declarer held after passing against the points it took with the
``normal`` player's card play.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import erf, sqrt

from bot.engine.cards import MARRIAGE_VALUES, marriages_in
from bot.engine.views import TableView

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)

# feature weights (points)
WEIGHTS: dict[str, float] = {
    "base": 14.0,  # the defenders' throw-ins a declarer collects on average
    "ace": 17.0,
    "ten_with_ace": 14.0,
    "ten_guarded": 7.0,  # a ten with two or more others in its suit, no ace
    "ten_bare": 2.0,
    "king": 3.0,
    "queen": 2.0,
    "marriage": 0.82,  # times the marriage's value
    "marriage_no_entry": 0.55,  # times the value when the hand holds no ace
    "long": 6.0,  # per card beyond three in a suit
    "void": 3.0,  # per empty suit (8-card hands)
    "jack": 0.5,
}


def suits_of(hand: Iterable[int]) -> list[list[int]]:
    out: list[list[int]] = [[], [], [], []]
    for c in hand:
        out[c // 6].append(c % 6)
    return out


def declarer_points(hand: Iterable[int], weights: dict[str, float] | None = None,
                    players: int = 3) -> float:
    """Points the declarer may expect to take with ``hand`` (after passing)."""
    w = WEIGHTS if weights is None else weights
    suits = suits_of(hand)
    has_ace = any(ACE in s for s in suits)
    pts = w["base"]
    marr = 0.0
    for su, ranks in enumerate(suits):
        n = len(ranks)
        if n == 0:
            pts += w["void"]
            continue
        if ACE in ranks:
            pts += w["ace"]
        if TEN in ranks:
            if ACE in ranks:
                pts += w["ten_with_ace"]
            elif n >= 3:
                pts += w["ten_guarded"]
            else:
                pts += w["ten_bare"]
        if KING in ranks and QUEEN in ranks:
            marr += MARRIAGE_VALUES[su] * (w["marriage"] if has_ace else w["marriage_no_entry"])
        else:
            if KING in ranks:
                pts += w["king"]
            if QUEEN in ranks:
                pts += w["queen"]
        if JACK in ranks:
            pts += w["jack"]
        if n > 3:
            pts += w["long"] * (n - 3)
    if players == 2:
        pts *= 1.1
    return pts + marr


def features(hand: Iterable[int]) -> dict[str, float]:
    """The feature counts behind ``declarer_points`` (for tuning)."""
    suits = suits_of(hand)
    has_ace = any(ACE in s for s in suits)
    f = dict.fromkeys(WEIGHTS, 0.0)
    f["base"] = 1.0
    for su, ranks in enumerate(suits):
        n = len(ranks)
        if n == 0:
            f["void"] += 1
            continue
        if ACE in ranks:
            f["ace"] += 1
        if TEN in ranks:
            if ACE in ranks:
                f["ten_with_ace"] += 1
            elif n >= 3:
                f["ten_guarded"] += 1
            else:
                f["ten_bare"] += 1
        if KING in ranks and QUEEN in ranks:
            f["marriage" if has_ace else "marriage_no_entry"] += MARRIAGE_VALUES[su]
        else:
            if KING in ranks:
                f["king"] += 1
            if QUEEN in ranks:
                f["queen"] += 1
        if JACK in ranks:
            f["jack"] += 1
        if n > 3:
            f["long"] += n - 3
    return f


def talon_bonus(players: int) -> float:
    """What the talon adds on average to a hand of seven (three of the unseen cards)."""
    return 16.0 if players != 2 else 8.0


# Fitted by ``python -m bench.arena.tune 6000`` (least squares on self-play deals: the points a
# declarer took against the features of its hand). ``hard`` uses them; SD_* is the spread of
# the residuals, which turns an estimate into a chance of reaching a contract.
HARD_WEIGHTS7: dict[str, float] = {
    "ace": 19.19, "base": 29.92, "jack": 0.26, "king": 7.36, "long": 6.73, "marriage": 0.91,
    "marriage_no_entry": 0.50, "queen": 7.50, "ten_bare": 4.00, "ten_guarded": 2.20,
    "ten_with_ace": 10.51, "void": 6.58,
}
SD7 = 46.6
HARD_WEIGHTS8: dict[str, float] = {
    "ace": 21.86, "base": -12.79, "jack": 0.57, "king": 1.90, "long": 10.33, "marriage": 0.98,
    "marriage_no_entry": 0.20, "queen": 1.66, "ten_bare": 7.75, "ten_guarded": 6.34,
    "ten_with_ace": 14.48, "void": 7.79,
}
SD8 = 26.4
PLAY_EDGE = 5.0  # ``hard``'s card play takes about this much more than ``normal``'s


def fitted_points(hand: Iterable[int], weights: dict[str, float]) -> float:
    f = features(hand)
    return sum(weights[k] * v for k, v in f.items())


def chance_at_least(estimate: float, target: float, sd: float) -> float:
    """P(points >= target) for a normal spread ``sd`` around ``estimate``."""
    return 0.5 * (1.0 + erf((estimate - target + 0.5) / (sd * sqrt(2.0))))


def cap_of(view: TableView, hand: frozenset[int]) -> int:
    """The highest contract the declarer may name holding ``hand`` (RULES.md §2.4)."""
    r = view.rules
    if not r.bid_needs_marriage:
        return r.max_bid
    cap = 120 + sum(MARRIAGE_VALUES[s] for s in marriages_in(hand))
    if r.ace_marriage and sum(1 for c in hand if c % 6 == 5) == 4:
        cap += 200
    return min(cap, r.max_bid)
