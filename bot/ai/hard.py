"""The ``hard`` computer player: sampling and an exact open-card solver for the play.

For a card to play it samples the hidden cards consistently with what the seat
knows (``knowledge``), solves every sample with the open-card solver for each
legal move and averages the results, each sample weighted by how likely it makes the
other seats' bids and play (``inference``); it stops at the deadline (and after
``MAX_SAMPLES``). With many cards left it asks the solver only whether the
declarer reaches the contract (and reaches it with 20 to spare, or misses it by
more than 20), which is far faster than the exact value; near the end it uses
the exact value. Bidding (two and three players) looks at the talons the hand may take
(``bidding``: per sampled talon the pass and the best contract, the other seats' bids
weighting the deals); passing and the contract use the hand estimate of ``evaluate``;
close bids and the contract also average in the open-card chance on sampled deals. Dark
play, unblinding, concession and bidding with a seat on the barrel compare the choices by
the expected chance of winning the game (``standing``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from itertools import combinations

from bot.engine.cards import round5
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    GIVE,
    LIGHT,
    PASS,
    REDEAL,
    Action,
    Phase,
)
from bot.engine.views import TableView

from . import bidding, normal, standing
from .evaluate import (
    HARD_WEIGHTS7,
    HARD_WEIGHTS8,
    PLAY_EDGE,
    SD7,
    SD8,
    cap_of,
    chance_at_least,
    declarer_points,
    fitted_points,
)
from .inference import TEMPER, Inference, bid_events, dealt_log_likelihood, kept_hands
from .knowledge import Knowledge
from .solver import Solver, Timeout, to_mask

MAX_SAMPLES = 64
INFERENCE = True  # weight the sampled worlds by the other seats' actions (``inference``)
EXACT_CARDS = 5  # exact values when every hand holds at most this many cards
PROBE_CARDS = 6  # three thresholds instead of one from this many cards down
DEFAULT_THINK = 0.25
HARD_CAP = 0.9
# A defender's score is its own points, not the defenders' together: beside failing the
# contract (and, in the last tricks, the points the two take together) a defender of three
# counts what it takes itself, by a second search per move in which it plays alone against
# both others (exact with EXACT_CARDS or fewer: OWN_WEIGHT a point; with more cards one
# null-window question per OWN_PROBES, "does it take t points or more?", OWN_PROBE_WEIGHT
# each: a step function of its own points, about one a point between 5 and 40; eight
# questions 5 apart played better than four 10 apart, see docs/computer-players.md)
DEFENDER_OWN = True
OWN_WEIGHT = 1.0
OWN_PROBES = (5, 10, 15, 20, 25, 30, 35, 40)
OWN_PROBE_WEIGHT = 5.0
# ... counted as the score sheet counts them: rounded to 5 (a remainder of 3 or 4 up), so
# exact values are rounded and the questions sit where the rounded score steps (a total
# of 3, 8, 13, ... card points), not at 5, 10, 15, ...
OWN_ROUNDED = True
# such a defender's view of a point the declarer takes, in the exact search of the last
# tricks: the "made" term already prices the contract, and beyond it a declarer's card
# points count for nothing, while each is one the other defender (an opponent in the
# game too) does not take; so +0.5, the same as -0.5 for each of the other defender's
OWN_DECL_WEIGHT = 0.5
# the weight of the contract (made or failed, times the contract) in such a defender's
# utility, beside its own points at 1 a point
OWN_MADE_WEIGHT = 2.0
# the declarer's card points beyond the contract, a point (exact search of the last tricks)
DECL_POINTS_WEIGHT = 0.25


def own_steps(mine: int, n: int) -> tuple[int, ...]:
    """The first ``n`` numbers of points more at which a defender holding ``mine`` card
    points scores 5 more on the sheet (its points are rounded to 5, 3 and 4 up)."""
    first = (3 - mine) % 5 or 5
    return tuple(first + 5 * i for i in range(n))


def highest_reached(solver: Solver, hands: list[int], me: int, values: Sequence[int]) -> int:
    """The index of the highest of ``values`` (ascending contracts) the declarer ``me``
    reaches with every hand open, by a binary search of null-window searches (-1: none).
    ``Timeout`` from the solver passes through."""
    lo, hi = -1, len(values)  # values[lo] is reached, values[hi] is not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        c = values[mid]
        if solver.value(hands, me, [], -1, 0, c - 1, c) >= c:
            lo = mid
        else:
            hi = mid
    return lo


def choose(view: TableView, rng: random.Random, deadline: float | None) -> Action:
    now = time.monotonic()
    if deadline is None:  # the default thinking: a quarter second, the pass longer
        think = PASS_THINK if view.phase == Phase.PASSING else DEFAULT_THINK
        deadline = now + think
    deadline = min(deadline, now + HARD_CAP)
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    ph = view.phase
    if ph != Phase.PASSING and Action(REDEAL) in legal:
        if len(view.active) == 3 and len(view.hand) == 7 and not normal.late_redeal(view):
            est = fitted_points(view.hand, HARD_WEIGHTS7)
            ask = est < 90
        else:
            ask = normal.choose_redeal(view) == Action(REDEAL)
        if ask:
            return Action(REDEAL)
        view = normal.without_redeal(view)
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
    if ph == Phase.PLAY and not view.rules.stock_mode:
        act = choose_play(view, rng, deadline)
        if act is not None:
            return act
    three = len(view.active) == 3  # the fitted estimate is for hands of seven and eight
    two = len(view.active) == 2 and not view.rules.stock_mode
    if ph == Phase.DARK:
        return choose_dark(view)
    if ph == Phase.BIDDING and view.kind.value == "dark":
        return choose_unblind(view, rng, deadline)
    if (three or two) and ph == Phase.BIDDING:
        return choose_bid(view, rng, deadline)
    if three and ph == Phase.PASSING:
        return choose_pass(view, rng, deadline)
    if three and ph == Phase.CONTRACT:
        return choose_contract(view, rng, deadline)
    if two and ph == Phase.CONTRACT:
        return choose_contract_two(view)
    return normal.choose(view, rng)


# --- decisions in the game's terms (``standing``) ----------------------------------------

DARK_CHANCE = 0.32  # a forehand's chance of making 120 on unseen cards (see the docs)
BARREL_BID = 0.05  # on the barrel: bid with at least this chance of making M


def choose_dark(view: TableView) -> Action:
    """Dark only when the game's standing says the gamble is worth it (±240)."""
    if Action(DARK) not in view.legal or Action(LIGHT) not in view.legal:
        return normal.choose(view, random.Random(0))
    dark = standing.game_value(view, standing.declarer_outcomes(
        view, view.seat, 120, DARK_CHANCE, factor=2))
    light = standing.game_value(view, [standing.Outcome(1.0, (0,) * len(view.totals))])
    return Action(DARK) if dark > light else Action(LIGHT)


def choose_unblind(view: TableView, rng: random.Random, deadline: float | None) -> Action:
    """Unblind a dark game (bid 125) when declaring from here is worth more in the game
    than letting the forehand play dark."""
    bids = sorted(a.value for a in view.legal if a.kind == BID)
    if not bids:
        return Action(PASS)
    b = bids[0]
    look = bidding.outlook(view, rng, _soon(deadline, 0.5))
    if look is None:
        return normal.choose(view, rng)
    p = bidding.make_chance(look, b)
    mine = standing.game_value(view, standing.declarer_outcomes(view, view.seat, b, p))
    dark = standing.game_value(view, standing.declarer_outcomes(
        view, view.forehand, 120, DARK_CHANCE, factor=2))
    return Action(BID, value=b) if mine > dark else Action(PASS)


def _soon(deadline: float | None, share: float) -> float:
    now = time.monotonic()
    end = now + DEFAULT_THINK if deadline is None else deadline
    return now + share * max(end - now, 0.0)


DEFENDER_VALUE = 60.0  # a contract must promise this much more than defending (tuned)


BID_SAMPLES = 24  # open-card deals behind a bid


def bid_chance(view: TableView, bid: int, rng: random.Random, deadline: float) -> float | None:
    """The share of sampled deals (talon and other hands) in which this seat, declarer at
    ``bid`` after taking the talon and passing the two cards its estimate prefers, reaches
    ``bid`` with every hand open; None when fewer than CONTRACT_MIN_SAMPLES finished."""
    order = view.active
    if len(order) != 3:
        return None
    pos = {s: i for i, s in enumerate(order)}
    me = pos[view.seat]
    defs = [pos[s] for s in order if s != view.seat]
    sizes = [view.hand_sizes[order[d]] for d in defs]
    mine = frozenset(view.hand)
    unknown = [c for c in range(24) if c not in mine]
    talon_n = len(unknown) - sum(sizes)
    if talon_n <= 0:
        return None
    r = view.rules
    events = [e for e in bid_events(view) if e[0] != view.seat] if INFERENCE else []
    kept = kept_hands(view) if INFERENCE else ()
    made = weight = 0.0
    samples = 0
    while samples < BID_SAMPLES and time.monotonic() < deadline:
        rng.shuffle(unknown)
        talon = unknown[:talon_n]
        w = 1.0
        if events or kept:  # the others' bids so far and redeals not asked, on their hands
            dealt: dict[int, frozenset[int]] = {}
            at = talon_n
            for d, n in zip(defs, sizes, strict=True):
                dealt[order[d]] = frozenset(unknown[at:at + n])
                at += n
            w = math.exp(TEMPER * dealt_log_likelihood(events, kept, r, dealt))
        hand = mine | frozenset(talon)
        best: tuple[float, tuple[int, ...]] | None = None
        for out in combinations(sorted(hand), 2):
            v = fitted_points(hand - set(out), HARD_WEIGHTS8)
            v -= sum(normal.pass_penalty(view, hand, c) for c in out)
            if best is None or v > best[0]:
                best = (v, out)
        assert best is not None
        hands = [0, 0, 0]
        hands[me] = to_mask(sorted(hand - set(best[1])))
        at = talon_n
        for d, n, given in zip(defs, sizes, best[1], strict=True):
            hands[d] = to_mask([*unknown[at:at + n], given])
            at += n
        solver = Solver(3, me, r.marriage_first_lead, r.last_trick_bonus, deadline,
                        defender_marriages=False)
        try:
            v = solver.value(hands, me, [], -1, 0, bid - 1, bid)
        except Timeout:
            break
        made += w * (v >= bid)
        weight += w
        samples += 1
    if samples < CONTRACT_MIN_SAMPLES or weight <= 0:
        return None
    return made / weight


def choose_bid(view: TableView, rng: random.Random | None = None,
               deadline: float | None = None) -> Action:
    return bid_decision(view, rng, deadline)[0]


def bid_decision(view: TableView, rng: random.Random | None = None,
                 deadline: float | None = None) -> tuple[Action, float]:
    """The bid (or pass) and the chance of reaching the lowest bid (1.0: none).

    The chance is over the talons the hand may take (``bidding.outlook``). Off the barrel
    it bids when the expected score of declaring at the bid, naming the best contract for
    each talon, reaches ``DEFENDER_VALUE``; close calls (three players) also average in the
    open-card chance. With a seat on the barrel the choice is made on the game's standing.
    """
    bids = sorted(a.value for a in view.legal if a.kind == BID)
    if not bids:
        return Action(PASS), 1.0
    b = bids[0]
    look = bidding.outlook(view, rng or random.Random(0), _soon(deadline, 0.4))
    if look is None:
        return _old_bid_decision(view, rng, deadline)
    p = bidding.make_chance(look, b)
    r = view.rules
    bid, stay = (Action(BID, value=b), 1.0), Action(PASS)
    if r.barrel and view.barrel[view.seat] >= 0:
        if not r.barrel_fail_costs_contract:
            # a failed contract costs only the try the deal uses anyway; a made one wins
            return (bid[0] if p >= BARREL_BID else stay), p
        mine = standing.game_value(view, standing.declarer_outcomes(view, view.seat, b, p))
        other = standing.game_value(view, [standing.Outcome(1.0, (0,) * len(view.totals))])
        return (bid[0] if mine > other else stay), p
    rivals = [s for s in view.active if s != view.seat and r.barrel and view.barrel[s] >= 0
              and not view.passed[s]]
    if rivals:  # passing lets the sitter play for the game
        s = rivals[0]
        mine = standing.game_value(view, standing.declarer_outcomes(view, view.seat, b, p))
        theirs = standing.game_value(view, standing.declarer_outcomes(
            view, s, max(r.barrel_min_bid, view.bid), standing.BARREL_TRY))
        return (bid[0] if mine > theirs else stay), p
    value = bidding.declarer_value(look, b, r.bid_step)
    limit = DEFENDER_VALUE if len(view.active) == 3 else DEFENDER_VALUE_TWO
    if (len(view.active) == 3 and abs(value - limit) < CLOSE and rng is not None
            and deadline is not None):
        q = bid_chance(view, b, rng, deadline)
        if q is not None:
            value = 0.5 * (value + b * (2 * q - 1))
            p = 0.5 * (p + q)
    return (bid[0] if value >= limit else stay), p


DEFENDER_VALUE_TWO = 50.0  # two players: what declaring must promise (a choice, untuned)
CLOSE = 25.0  # a bid this close to the limit also asks the open-card search


def _old_bid_decision(view: TableView, rng: random.Random | None = None,
                      deadline: float | None = None) -> tuple[Action, float]:
    """main's rule (before the talon outlook): the fitted chance of the hand of seven."""
    bids = sorted(a.value for a in view.legal if a.kind == BID)
    if not bids or len(view.active) != 3:
        return normal.choose_bid(view), 1.0
    b = bids[0]
    est = fitted_points(view.hand, HARD_WEIGHTS7)
    p = chance_at_least(est, b, SD7)
    barrel = view.barrel[view.seat] >= 0  # on the barrel only its own contracts count
    # the open-card chance (averaged with the fitted one) can only change a close call
    close = (p + 1) / 2 >= 0.3 and p / 2 < 0.3 if barrel else b * p >= DEFENDER_VALUE
    if close and rng is not None and deadline is not None:
        q = bid_chance(view, b, rng, deadline)
        if q is not None:
            p = 0.5 * (p + q)
    if barrel:
        return (Action(BID, value=b) if p >= 0.3 else Action(PASS)), p
    return (Action(BID, value=b) if b * (2 * p - 1) >= DEFENDER_VALUE else Action(PASS)), p


def _pass_options(view: TableView) -> list[tuple[float, tuple[int, ...]]]:
    """Every set of cards to let go (two, then the one left to give) with the fitted
    estimate of the hand kept less ``normal``'s charges, best first."""
    hand = view.hand
    drop = max(len(view.active) - 1 - view.gave_count, 1)
    hs = frozenset(hand)
    out_: list[tuple[float, tuple[int, ...]]] = []
    for out in combinations(sorted(hand), drop):
        keep = hs - set(out)
        v = fitted_points(keep, HARD_WEIGHTS8)
        v -= sum(normal.pass_penalty(view, hs, c) for c in out)
        out_.append((v, out))
    out_.sort(key=lambda e: -e[0])  # stable: the first of equal ones as before
    return out_


def _pass_choice(view: TableView) -> tuple[float, tuple[int, ...]]:
    return _pass_options(view)[0]


PASS_CANDIDATES = 3  # the best passes by the fitted estimate that the open-card deals compare
PASS_SAMPLES = 24  # open-card deals behind the pass, at most
PASS_MIN_SAMPLES = 4  # fewer finished: the fitted estimate's pass
PASS_THINK = 0.6  # seconds for each card passed when the caller sets no deadline
SOLVER_PASS = True  # three players: choose among them on open-card deals


def choose_pass(view: TableView, rng: random.Random | None = None,
                deadline: float | None = None) -> Action:
    options = _pass_options(view)
    out = options[0][1]
    if any(a.kind == REDEAL for a in view.legal) and talon_redeal(view, out):
        return Action(REDEAL)
    if SOLVER_PASS and rng is not None and deadline is not None and len(view.active) == 3:
        cands = pass_candidates(options)
        i = pass_pick(view, cands, rng, _soon(deadline, 0.9))
        out = cands[i]
    return Action(GIVE, card=out[0])


def pass_candidates(options: list[tuple[float, tuple[int, ...]]]) -> list[tuple[int, ...]]:
    """What ``pass_pick`` compares: the PASS_CANDIDATES best of ``_pass_options`` and,
    for a pair, the best one the other way round (which defender gets which card)."""
    cands = [o for _, o in options[:PASS_CANDIDATES]]
    if len(cands[0]) == 2:
        cands.insert(1, (cands[0][1], cands[0][0]))
    return cands


TALON_REDEAL_BY_STANDING = True  # False: main's rule before issue 21 (a chance below 0.3)


def talon_redeal(view: TableView, out: tuple[int, ...]) -> bool:
    """Whether the declarer, offered a redeal on seeing the talon, takes it: when the
    expected standing in the game of playing the best contract on the hand it keeps
    (letting ``out`` go) is below that of a redeal, in which nobody scores. A deal
    played gives the defenders points too (``standing.declarer_outcomes``), so at equal
    totals (0 each, at 100) a contract must be made about 55% of the time to be worth
    playing, not 30% as main asked before issue 21 (the chance of the fitted estimate)."""
    keep = frozenset(view.hand) - set(out)
    est = fitted_points(keep, HARD_WEIGHTS8) + PLAY_EDGE
    if not TALON_REDEAL_BY_STANDING:
        return chance_at_least(_pass_options(view)[0][0], view.bid, SD8) < 0.3
    step = max(view.rules.bid_step, 1)
    cap = max(cap_of(view, keep), view.bid)
    best_c, best_p = view.bid, chance_at_least(est, view.bid, SD8)
    for c in range(view.bid, cap + 1, step):
        p = chance_at_least(est, c, SD8)
        if c * (2 * p - 1) > best_c * (2 * best_p - 1):
            best_c, best_p = c, p
    factor = 2 if view.kind.value in ("dark", "golden") else 1
    play = standing.game_value(view, standing.declarer_outcomes(
        view, view.seat, best_c, best_p, factor))
    redeal = standing.game_value(view, [standing.Outcome(1.0, (0,) * len(view.totals),
                                                         played=False)])
    return redeal > play


def pass_pick(view: TableView, cands: list[tuple[int, ...]], rng: random.Random,
              deadline: float) -> int:
    """The index of the candidate pass (the card for the next defender without one first)
    that reaches the bid in the largest weighted share of sampled deals (the defenders'
    bids weighting them), the declarer to lead with every hand open: one null-window
    search per candidate and deal, the same deals for every candidate, one solver (and
    its table) per deal. Ties go to the earlier candidate; 0 (the fitted estimate's
    choice) when fewer than PASS_MIN_SAMPLES deals finished."""
    if len(cands) < 2:
        return 0
    order = view.active
    pos = {s: i for i, s in enumerate(order)}
    me = pos[view.seat]
    given = dict(view.gave)
    defs = [s for s in order if s != view.seat]
    to = [s for s in defs if s not in given]  # the defenders still to receive, in turn
    need = [view.hand_sizes[s] - (1 if s in given else 0) for s in defs]
    mine = set(view.hand)
    unknown = [c for c in range(24) if c not in mine and c not in given.values()]
    if len(unknown) != sum(need) or any(len(o) != len(to) for o in cands):
        return 0
    r = view.rules
    bid = view.bid
    events = [e for e in bid_events(view) if e[0] != view.seat] if INFERENCE else []
    kept = kept_hands(view) if INFERENCE else ()
    reached = [0.0] * len(cands)
    samples = 0
    while samples < PASS_SAMPLES and time.monotonic() < deadline:
        rng.shuffle(unknown)
        base = [0] * len(order)
        at = 0
        dealt: dict[int, frozenset[int]] = {}
        for s, n in zip(defs, need, strict=True):
            dealt[s] = frozenset(unknown[at:at + n])
            base[pos[s]] = to_mask(unknown[at:at + n] + ([given[s]] if s in given else []))
            at += n
        w = (math.exp(TEMPER * dealt_log_likelihood(events, kept, r, dealt))
             if events or kept else 1.0)
        row: list[bool] = []
        solver = Solver(len(order), me, r.marriage_first_lead, r.last_trick_bonus, deadline,
                        defender_marriages=False)
        try:
            for cand in cands:
                hands = list(base)
                hands[me] = to_mask([c for c in view.hand if c not in cand])
                for s, c in zip(to, cand, strict=True):
                    hands[pos[s]] |= 1 << c
                row.append(solver.value(hands, me, [], -1, 0, bid - 1, bid) >= bid)
        except Timeout:
            break
        for i, made in enumerate(row):
            if made:
                reached[i] += w
        samples += 1
    if samples < PASS_MIN_SAMPLES:
        return 0
    best_i = 0
    for i, v in enumerate(reached):
        if v > reached[best_i] + 1e-12:
            best_i = i
    return best_i


CONTRACT_SAMPLES = 24  # open-card deals behind the contract choice
CONTRACT_MIN_SAMPLES = 8  # fewer finished: the fitted estimate alone


def contract_chances(view: TableView, values: list[int], rng: random.Random,
                     deadline: float) -> list[float] | None:
    """For each contract in ``values`` (ascending), the share of sampled deals in which the
    declarer (to lead, every hand open) reaches it; None when too few samples finished."""
    order = view.active
    pos = {s: i for i, s in enumerate(order)}
    mine = set(view.hand)
    given = dict(view.gave)
    defs = [s for s in order if s != view.seat]
    need = [view.hand_sizes[s] - (1 if s in given else 0) for s in defs]
    unknown = [c for c in range(24) if c not in mine and c not in given.values()]
    if len(unknown) != sum(need):
        return None
    r = view.rules
    events = [e for e in bid_events(view) if e[0] != view.seat] if INFERENCE else []
    kept = kept_hands(view) if INFERENCE else ()
    made = [0.0] * len(values)
    samples = 0
    weight = 0.0
    while samples < CONTRACT_SAMPLES and time.monotonic() < deadline:
        rng.shuffle(unknown)
        hands = [0] * len(order)
        hands[pos[view.seat]] = to_mask(view.hand)
        at = 0
        dealt: dict[int, frozenset[int]] = {}
        for s, n in zip(defs, need, strict=True):
            dealt[s] = frozenset(unknown[at:at + n])
            cards = unknown[at:at + n] + ([given[s]] if s in given else [])
            at += n
            hands[pos[s]] = to_mask(cards)
        # the defenders' bids and redeals not asked, on the hands they were dealt
        w = (math.exp(TEMPER * dealt_log_likelihood(events, kept, r, dealt))
             if events or kept else 1.0)
        me = pos[view.seat]
        solver = Solver(len(order), me, r.marriage_first_lead, r.last_trick_bonus, deadline,
                        defender_marriages=False)
        try:
            lo = highest_reached(solver, hands, me, values)
        except Timeout:
            break
        for i in range(lo + 1):
            made[i] += w
        samples += 1
        weight += w
    if samples < CONTRACT_MIN_SAMPLES or weight <= 0:
        return None
    return [m / weight for m in made]


def choose_contract(view: TableView, rng: random.Random | None = None,
                    deadline: float | None = None) -> Action:
    return contract_decision(view, rng, deadline)[0]


def contract_decision(view: TableView, rng: random.Random | None = None,
                      deadline: float | None = None) -> tuple[Action, float]:
    """The contract (or concession) and the chance of reaching it (of the bid: conceding)."""
    est = fitted_points(view.hand, HARD_WEIGHTS8) + PLAY_EDGE
    values = sorted(a.value for a in view.legal if a.kind == CONTRACT)
    chance = {c: chance_at_least(est, c, SD8) for c in values}
    if rng is not None and deadline is not None and len(values) > 1:
        # the fitted estimate misjudges hands that live on a marriage: average it with the
        # open-card result on sampled deals
        dd = contract_chances(view, values, rng, deadline)
        if dd is not None:
            chance = {c: 0.5 * (chance[c] + q) for c, q in zip(values, dd, strict=True)}
    r = view.rules
    if r.barrel and view.barrel[view.seat] >= 0 and not r.barrel_fail_costs_contract:
        # on the barrel a made contract wins whatever its size: the likeliest one
        best = max(values, key=lambda c: (chance[c], -c))
    else:
        best = max(values, key=lambda c: (c * (2 * chance[c] - 1), -c))
    return _concede_or(view, best, chance[best])


def _concede_or(view: TableView, best: int, p: float) -> tuple[Action, float]:
    """Concede when the game's standing after conceding beats playing ``best``."""
    if any(a.kind == CONCEDE for a in view.legal):
        factor = 2 if view.kind.value in ("dark", "golden") else 1
        play = standing.game_value(view, standing.declarer_outcomes(
            view, view.seat, best, p, factor))
        give_up = standing.game_value(view, [standing.concession_outcome(view, factor)])
        if give_up > play:
            return Action(CONCEDE), p
    return Action(CONTRACT, value=best), p


def choose_contract_two(view: TableView) -> Action:
    """Two players: the contract with the best expected score on the calibrated estimate
    of the hand kept (``bidding``)."""
    values = sorted(a.value for a in view.legal if a.kind == CONTRACT)
    if not values:
        return normal.choose_contract(view)
    est = bidding.TWO_A + bidding.TWO_B * declarer_points(view.hand, players=2)
    est += PLAY_EDGE
    chance = {c: chance_at_least(est, c, bidding.SD2) for c in values}
    if view.rules.barrel and view.barrel[view.seat] >= 0:
        best = max(values, key=lambda c: (chance[c], -c))
    else:
        best = max(values, key=lambda c: (c * (2 * chance[c] - 1), -c))
    return _concede_or(view, best, chance[best])[0]


class PlayScores:
    """What ``hard`` found for each legal card over ``samples`` sampled worlds, each
    weighted by how likely it makes the other seats' actions (``inference``; ``weight``
    the sum of the weights): ``totals`` (weighted utility) and ``made`` (the weight of
    the samples in which the declarer reaches the contract after the move); ``inferred``:
    the other seats' actions said something (the weights are not all equal)."""

    __slots__ = ("inferred", "made", "moves", "samples", "totals", "weight")

    def __init__(self, moves: list[Action], totals: list[float], made: list[float],
                 samples: int, weight: float | None = None, inferred: bool = False) -> None:
        self.moves = moves
        self.totals = totals
        self.made = made
        self.samples = samples
        self.weight = float(samples) if weight is None else weight
        self.inferred = inferred

    def share(self, i: int) -> float:
        """The weighted share of the worlds in which the declarer makes it after move i."""
        return self.made[i] / self.weight if self.weight > 0 else 0.0


def choose_play(view: TableView, rng: random.Random, deadline: float) -> Action | None:
    scores = play_scores(view, rng, deadline)
    return None if scores is None else pick_play(view, rng, scores)


def pick_play(view: TableView, rng: random.Random, scores: PlayScores) -> Action:
    """The best average; ties go to the move ``normal`` would play."""
    totals = scores.totals
    best = max(totals)
    near = [i for i, t in enumerate(totals) if t >= best - 1e-9]
    if len(near) == 1:
        return scores.moves[near[0]]
    fallback = normal.choose(view, rng)
    for i in near:
        if scores.moves[i] == fallback:
            return fallback
    return scores.moves[near[0]]


def play_scores(view: TableView, rng: random.Random, deadline: float,
                max_samples: int = MAX_SAMPLES) -> PlayScores | None:
    """Sample the hidden cards and solve each sample for every legal move (None when no
    sample finished by the deadline)."""
    legal = view.legal
    know = Knowledge(view)
    order = view.active
    pos = {s: i for i, s in enumerate(order)}
    k = len(order)
    decl = view.declarer
    dpos = pos[decl]
    me = pos[view.seat]
    my_side_decl = view.seat == decl
    trick = [(pos[s], c) for s, c in view.trick]
    won = 0
    for s in order:
        if view.ntricks[s] > 0:
            won |= 1 << pos[s]
    trump = view.trump
    r = view.rules
    decl_pts = view.taken[decl] + sum(m.value for m in view.declared if m.seat == decl)
    need = view.contract - decl_pts
    contract = max(view.contract, 1)
    size = max(view.hand_sizes[s] for s in order)
    exact = size <= EXACT_CARDS or (k == 2 and size <= EXACT_CARDS + 1)
    last_bonus = r.last_trick_bonus  # (two players: the closed talon's points are left out)
    moves: list[tuple[Action, int, bool, int]] = []  # action, card, declare, extra gain
    for a in legal:
        if a.kind == DECLARE and a.card % 6 == 5:  # the ace marriage: +200, trump unchanged
            moves.append((a, a.card, False, 200 if my_side_decl else -200))
        else:
            moves.append((a, a.card, a.kind == DECLARE, 0))
    # with many cards left only "does the declarer make it?"; then also "by 20 more or less?"
    # (not for a defender of three, whose own points are asked instead)
    own_search = DEFENDER_OWN and k == 3 and not my_side_decl
    # the declarer's points decide made or failed: the defenders' marriages do not count
    # against them (RULES.md §4.1). The one defender of two players, which has no search
    # of its own points, keeps them subtracted: there the value is its side's points too
    # (its marriages are worth declaring), as before round 6.
    dm = k == 2 and not my_side_decl
    made_weight = (OWN_MADE_WEIGHT if own_search else 2.0) * contract
    probes: tuple[tuple[int, float], ...] = ((need, made_weight),)
    if size <= PROBE_CARDS and not own_search:
        probes = (*probes, (need + 20, 10.0), (need - 20, 10.0))
    mine = view.taken[view.seat]  # this seat's card points so far
    own_probes = own_steps(mine, len(OWN_PROBES)) if OWN_ROUNDED else OWN_PROBES
    totals = [0.0] * len(moves)
    made_n = [0.0] * len(moves)
    samples = 0
    weight = 0.0
    infer = Inference(view, know) if INFERENCE else None
    while samples < max_samples and time.monotonic() < deadline:
        world = know.sample(rng)
        w = 1.0 if infer is None else infer.weight(world)
        hands = [to_mask(sorted(world.hands[s])) for s in order]
        solver = Solver(k, dpos, r.marriage_first_lead, last_bonus, deadline,
                        defender_marriages=dm)
        # a defender's own points: the same search with this seat as the side that
        # maximises and both others against it ("paranoid"); with two seats the one
        # defender's points are the defenders' already
        own = (Solver(k, me, r.marriage_first_lead, last_bonus, deadline,
                      defender_marriages=False)
               if own_search else None)
        vals: list[float] = []
        hits: list[bool] = []
        try:
            for _a, card, declare, extra in moves:
                vx = extra if my_side_decl or dm else 0  # a defender's ace marriage: its own
                # points (the search of its own points counts them), not the declarer's
                if exact:
                    v = vx + solver.value_after(hands, me, trick, trump, won, card, declare)
                    made = v >= need
                    if my_side_decl:
                        u = made_weight * made + DECL_POINTS_WEIGHT * v
                    else:
                        u = -made_weight * made + (OWN_DECL_WEIGHT if own_search
                                                    else -0.5) * v
                        if own is not None:  # and its own points
                            o = -extra + own.value_after(hands, me, trick, trump, won, card,
                                                         declare)
                            if OWN_ROUNDED:
                                o = round5(mine + o) - mine
                            u += OWN_WEIGHT * o
                    hits.append(made)
                else:
                    u = 0.0
                    for t, pw in probes:
                        v = vx + solver.value_after(hands, me, trick, trump, won, card,
                                                    declare, t - 1 - vx, t - vx)
                        u += pw * (v >= t)
                        if t == need:
                            hits.append(v >= t)
                    if not my_side_decl:
                        u = -u
                    if own is not None:  # does it take t points or more itself?
                        for t in own_probes:
                            m = -extra + own.value_after(hands, me, trick, trump, won, card,
                                                         declare, t - 1 + extra, t + extra)
                            u += OWN_PROBE_WEIGHT * (m >= t)
                vals.append(u)
        except Timeout:
            break
        for i, u in enumerate(vals):
            totals[i] += w * u
            made_n[i] += w * hits[i]
        samples += 1
        weight += w
    if samples == 0:
        return None
    return PlayScores([m[0] for m in moves], totals, made_n, samples, weight,
                      infer is not None and not infer.empty)
