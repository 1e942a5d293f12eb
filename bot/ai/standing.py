"""The game around a deal: from the totals and a deal's outcomes to the chance of winning.

``standing(...)`` is a small, hand-set model of the chance that ``seat`` wins the game
from the totals: every seat's distance to 1000 turns into a strength
``exp(-distance / SCALE)`` and the chance is the seat's share of the strengths; a seat on
the barrel wins at once with ``BARREL_TRY`` a try, so its share is its chance over the
tries it has left, and the others share the rest. ``after(...)`` applies one deal's
scores to the totals as the rules do (RULES.md §4.2–4.6: the sitter scores only its own
made contract, which wins the game; climbing the barrel caps the total and knocks the
sitter off; simultaneous climbers go back; bolts and their penalty; a try used; the fall;
the 555 dump). ``game_value(view, outcomes)`` is the expected standing over a deal's
outcomes, each a probability and the deal's scores: ``hard`` compares it between the
choices of dark play, unblinding, concession and bidding when a seat sits on the barrel.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import exp

from bot.engine.rules import Rules
from bot.engine.views import TableView

SCALE = 160.0  # points of distance to 1000 that cost a factor e in strength
BARREL_TRY = 0.35  # the chance that a try on the barrel wins the game


@dataclass(frozen=True, slots=True)
class Table:
    """What the model needs of the game: totals, tries used on the barrel (-1: not
    sitting), bolts in the current count, falls."""

    totals: tuple[int, ...]
    barrel: tuple[int, ...]
    bolts: tuple[int, ...]
    falls: tuple[int, ...]
    winner: int = -1


@dataclass(frozen=True, slots=True)
class Outcome:
    """One way a deal may end: its probability, every seat's deal score (before the
    barrel's and the bolts' rules), the declarer (-1: none), whether the declarer made
    it, and the seats that won no trick."""

    p: float
    scores: tuple[int, ...]
    declarer: int = -1
    made: bool = False
    bolted: tuple[int, ...] = ()
    played: bool = True  # a played or conceded deal (uses a try on the barrel)


def of_view(view: TableView) -> Table:
    return Table(tuple(view.totals), tuple(view.barrel), tuple(view.bolts), tuple(view.falls))


def standing(t: Table, seat: int, r: Rules) -> float:
    """The model's chance that ``seat`` wins the game from ``t``."""
    if t.winner >= 0:
        return 1.0 if t.winner == seat else 0.0
    n = len(t.totals)
    sitters = [i for i in range(n) if r.barrel and t.barrel[i] >= 0]
    sitter_share = {i: 1 - (1 - BARREL_TRY) ** max(r.barrel_attempts - t.barrel[i], 0)
                    for i in sitters}
    rest = 1.0
    for i in sitters:
        rest *= 1 - sitter_share[i] / max(len(sitters), 1)
    if seat in sitters:
        return sitter_share[seat] / max(len(sitters), 1) + rest * 0.5 * _share(t, seat, r)
    return rest * _share(t, seat, r)


def _share(t: Table, seat: int, r: Rules) -> float:
    strength = [exp(-max(1000 - x, 0) / SCALE) for x in t.totals]
    total = sum(strength)
    return strength[seat] / total if total > 0 else 1.0 / len(t.totals)


def after(t: Table, o: Outcome, r: Rules) -> Table:
    """The game after one deal's outcome (RULES.md §4.6, simplified where noted)."""
    n = len(t.totals)
    sitters = {i for i in range(n) if r.barrel and t.barrel[i] >= 0}
    if o.declarer in sitters and o.made:
        return Table(t.totals, t.barrel, t.bolts, t.falls, winner=o.declarer)
    totals = list(t.totals)
    for i in range(n):
        if i in sitters and not (i == o.declarer and r.barrel_fail_costs_contract):
            continue
        totals[i] += o.scores[i]
    if not r.barrel and o.declarer >= 0 and o.made and totals[o.declarer] >= 1000:
        return Table(tuple(totals), t.barrel, t.bolts, t.falls, winner=o.declarer)
    bolts = list(t.bolts)
    for i in o.bolted:
        if i in sitters:
            continue
        bolts[i] += 1
        if bolts[i] >= r.bolts_limit:
            bolts[i] = 0
            totals[i] -= r.penalty
    barrel = list(t.barrel)
    falls = list(t.falls)

    def fall(i: int) -> None:
        barrel[i] = -1
        falls[i] += 1
        if r.barrel_third_fall_zero and falls[i] >= 3:
            totals[i] = 0
            falls[i] = 0
        else:
            totals[i] = r.barrel_at - r.penalty

    if r.barrel:
        climbers = [i for i in range(n) if barrel[i] < 0 and totals[i] >= r.barrel_at]
        if len(climbers) > 1 and r.barrel_simultaneous_fall:
            for i in climbers:
                totals[i] = r.barrel_at - r.penalty
        elif climbers:
            for i in climbers:
                totals[i] = r.barrel_at
                barrel[i] = 0
            if r.barrel_knock_off:
                for i in sitters:
                    fall(i)
        if o.played:
            for i in sitters:
                if barrel[i] >= 0 and i not in climbers:
                    barrel[i] += 1
                    if barrel[i] >= r.barrel_attempts:
                        fall(i)
    for i in range(n):
        if (totals[i] == 555 and r.samosval) or (totals[i] == -555 and r.samosval_negative):
            totals[i] = 0
    return Table(tuple(totals), tuple(barrel), tuple(bolts), tuple(falls))


def game_value(view: TableView, outcomes: list[Outcome]) -> float:
    """The expected standing of the viewing seat over ``outcomes`` (probabilities summing
    to 1)."""
    t = of_view(view)
    return sum(o.p * standing(after(t, o, view.rules), view.seat, view.rules)
               for o in outcomes if o.p > 0)


def round5(x: float) -> int:
    """A defender's card points rounded to 5 (1–2 down, 3–4 up)."""
    return int((int(x) + 2) // 5 * 5)


def declarer_outcomes(view: TableView, declarer: int, contract: int, p: float,
                      factor: int = 1) -> list[Outcome]:
    """A deal the ``declarer`` plays at ``contract``, made with chance ``p``: the defenders
    take about 15 points each when it is made, 30 when not (×``factor``: dark games)."""
    n = len(view.totals)
    defs = [s for s in view.active if s != declarer]

    def scores(made: bool) -> tuple[int, ...]:
        out = [0] * n
        out[declarer] = factor * (contract if made else -contract)
        for d in defs:
            out[d] = factor * (15 if made else 30)
        return tuple(out)

    return [Outcome(p, scores(True), declarer, True), Outcome(1 - p, scores(False), declarer)]


def concession_outcome(view: TableView, factor: int = 1) -> Outcome:
    """The declarer concedes: −bid, each defender half the bid rounded up to 5 (RULES.md
    §4.3; two players: 60; a defender on the barrel gets nothing, which ``after`` does)."""
    r = view.rules
    n = len(view.totals)
    bid = view.bid
    pays = 60 if len(view.active) == 2 else -(-bid // 10) * 5
    if r.rospis_pays == "sixty":
        pays = 60
    elif r.rospis_pays == "half_max_60":
        pays = min(pays, 60)
    out = [0] * n
    out[view.seat] = 0 if r.rospis_keeps_contract else -factor * bid
    for d in view.active:
        if d != view.seat:
            out[d] = factor * pays
    bolted = (view.seat,) if r.rospis_keeps_contract else ()
    return Outcome(1.0, tuple(out), view.seat, False, bolted)
