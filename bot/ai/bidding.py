"""What ``hard`` expects of a hand before it sees the talon (bidding, two and three players).

``outlook(view, rng, deadline)`` deals the unseen cards many times (three players: the
talon of 3 among the 17 unseen cards, i.e. one of 680 talons, and the other two hands,
each deal weighted by how likely it makes the other seats' bids so far, ``inference``;
two players: every one of the 91 pairs of the 14 unseen cards the chosen talon may be).
For each deal it takes the talon, lets go of the cards its fast estimate likes least (the
two cards to pass, with ``normal``'s charges for marriage partners; two players: the two
to put back) and keeps the estimate of the hand it would play, and the highest contract
that hand may name. The fast estimate is ``evaluate.fitted_points`` (three players) or
``evaluate.declarer_points`` calibrated on two-player deals (two players), never the
solver, so a few hundred talons take a few tens of milliseconds.

From the outlook: ``make_chance(look, c)`` is the chance of reaching ``c``, averaged over
the talons; ``declarer_value(look, b)`` the expected deal score of becoming declarer at
``b`` when, after the talon, the contract is chosen as well as it can be for that talon
(``max_c c·(2p−1)`` over the contracts allowed from ``b`` up to the talon's cap).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from itertools import combinations

from bot.engine.views import TableView

from . import normal
from .evaluate import (
    HARD_WEIGHTS8,
    PLAY_EDGE,
    SD8,
    cap_of,
    chance_at_least,
    declarer_points,
    fitted_points,
)
from .inference import TEMPER, bid_events, dealt_log_likelihood, kept_hands

TALON_SAMPLES = 160  # three players: deals of the 17 unseen cards behind one decision
# two players: the points a declarer took against ``normal``'s estimate of the ten cards
# it kept, fitted by ``python -m bench.arena.tune 3000 --two`` (see docs/computer-players.md)
TWO_A, TWO_B, SD2 = -38.10, 1.111, 28.2


@dataclass(frozen=True, slots=True)
class Outlook:
    """Per sampled talon: its weight, the estimate of the hand kept and its highest
    contract; ``sd`` the spread of the estimate."""

    weights: tuple[float, ...]
    estimates: tuple[float, ...]
    caps: tuple[int, ...]
    sd: float

    @property
    def total(self) -> float:
        return sum(self.weights)


def kept_estimate(view: TableView, hand: frozenset[int], drop: int,
                  give: bool) -> tuple[float, tuple[int, ...]]:
    """The best cards to let go of ``hand`` and the estimate of what is kept (the
    points the declarer takes, with ``hard``'s card play)."""
    three = len(view.active) != 2
    best: tuple[float, tuple[int, ...]] | None = None
    for out in combinations(sorted(hand), drop):
        keep = hand - set(out)
        if three:
            v = fitted_points(keep, HARD_WEIGHTS8)
        else:
            v = TWO_A + TWO_B * declarer_points(keep, players=2)
        if give:
            v -= sum(normal.pass_penalty(view, hand, c) for c in out)
        if best is None or v > best[0]:
            best = (v, out)
    assert best is not None
    return best[0] + PLAY_EDGE, best[1]


def outlook(view: TableView, rng: random.Random, deadline: float | None = None,
            samples: int = TALON_SAMPLES) -> Outlook | None:
    """The hand's outlook over the talons it may take (None: not a bidding position)."""
    order = view.active
    mine = frozenset(view.hand)
    unknown = [c for c in range(24) if c not in mine]
    if len(order) == 3:
        others = [s for s in order if s != view.seat]
        sizes = [view.hand_sizes[s] for s in others]
        talon_n = len(unknown) - sum(sizes)
        if talon_n != 3 or len(mine) != 7:
            return None
        events = [e for e in bid_events(view) if e[0] != view.seat]
        kept = kept_hands(view)
        ws: list[float] = []
        es: list[float] = []
        cs: list[int] = []
        for k in range(samples):
            if deadline is not None and k >= 16 and time.monotonic() > deadline:
                break
            rng.shuffle(unknown)
            hand = mine | frozenset(unknown[:talon_n])
            w = 1.0
            if events or kept:
                dealt: dict[int, frozenset[int]] = {}
                at = talon_n
                for s, n in zip(others, sizes, strict=True):
                    dealt[s] = frozenset(unknown[at:at + n])
                    at += n
                w = math.exp(TEMPER * dealt_log_likelihood(events, kept, view.rules, dealt))
            est, out = kept_estimate(view, hand, 2, give=True)
            ws.append(w)
            es.append(est)
            cs.append(cap_of(view, hand - set(out)))
        return Outlook(tuple(ws), tuple(es), tuple(cs), SD8)
    if len(order) == 2 and not view.rules.stock_mode:
        if len(unknown) != 14 or len(mine) != 10:
            return None
        give = view.rules.two_player_pass == "give_one"
        drop = 1 if give else 2
        ws, es, cs = [], [], []
        for talon in combinations(unknown, 2):  # the chosen talon: any 2 of the unseen
            hand = mine | frozenset(talon)
            est, out = kept_estimate(view, hand, drop, give=give)
            ws.append(1.0)
            es.append(est)
            cs.append(cap_of(view, hand - set(out)))
        return Outlook(tuple(ws), tuple(es), tuple(cs), SD2)
    return None


def make_chance(look: Outlook, c: int) -> float:
    """The chance of reaching ``c`` over the talons."""
    t = look.total
    if t <= 0:
        return 0.0
    return sum(w * chance_at_least(e, c, look.sd)
               for w, e in zip(look.weights, look.estimates, strict=True)) / t


def declarer_value(look: Outlook, bid: int, step: int = 5) -> float:
    """The expected deal score of the declarer at ``bid``, naming after the talon the
    contract with the best expected score for that talon."""
    t = look.total
    if t <= 0:
        return -float(bid)
    total = 0.0
    for w, e, cap in zip(look.weights, look.estimates, look.caps, strict=True):
        best = bid * (2 * chance_at_least(e, bid, look.sd) - 1)
        c = bid + step
        while c <= cap and c <= e + 2 * look.sd:
            best = max(best, c * (2 * chance_at_least(e, c, look.sd) - 1))
            c += step
        total += w * best
    return total / t
