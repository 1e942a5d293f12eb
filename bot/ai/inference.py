"""How likely a sampled world makes what the other seats did (policy-based inference).

The sampler (``knowledge``) deals the unseen cards uniformly among the deals that
contradict nothing seen; but the other seats' choices say more than what they prove. A
world in which a seat that passed at 105 held two aces and a marriage, or in which a
defender played a king under the declarer's ace while holding a nine of that suit, is
possible but unlikely. ``Inference(view, know).log_weight(world)`` scores a world by
the log-likelihood of the other seats' observed actions under a softened model of play
(Rebstock et al., "Policy Based Inference in Trick-Taking Card Games", 2019):

- **bids and passes** (a normal deal of three): a seat bids ``b`` with a chance that grows
  with the fitted estimate of its dealt hand (``evaluate.HARD_WEIGHTS7``) against ``b``
  (half a bold bidder, half a careful one), and passes with the rest;
- **marriages not declared**: a seat that led after winning a trick (or on the first lead
  when the rules let it) while holding a king and queen of a suit, and did not declare;
- **cards played under an opponent's trick**: a follower that does not take a trick its
  opponents hold mostly plays its cheapest card that does not take it;
- **the contract named** (a defender's view of a normal deal of three): the declarer names,
  after seeing the talon, about the contract with the best expected score on the fitted
  estimate of the eight cards it kept (``evaluate.HARD_WEIGHTS8``); a raise says the hand
  is strong, a contract left at the bid that it is not (a softmax over the contracts it
  could have named, ``CONTRACT_SPREAD``, with a floor);
- **the cards passed** (a defender's view, three players): the declarer lets go of about
  the two cards whose loss costs its fitted estimate least, ``normal``'s charges included
  (a softmax over the 45 pairs of its ten cards, ``PASS_SPREAD``, with a floor): an ace,
  a ten or a king or queen received is seldom given from a hand that had a nine or a
  jack to spare, so it says what else the declarer held;
- **redeals not asked for** (three players): a seat that took a decision of the deal
  without asking for the redeal its dealt hand allowed (three or four nines, four jacks,
  too few points: §5.3) kept a hand it liked: a softened "keeps it when its fitted
  estimate reaches ``REDEAL_KEEP``" (``BID_SPREAD``, ``REDEAL_FLOOR``); a declarer that
  kept a talon it could refuse expects to make its bid about as often as it kept it (the
  fitted estimate of the eight cards it kept, as for the contract);
- (suits not followed, marriages declared, the shown talon, the card received and the
  cap of the contract are already hard facts in ``knowledge``).

Every factor has a floor, and the sum is tempered (``TEMPER``), so that no single world
takes all the weight: the weight of a world is ``exp(TEMPER * log L)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import exp, log

from bot.engine.cards import KING, POINTS, QUEEN
from bot.engine.facts import hand_redeal_reason, hand_redeals_possible, talon_reason
from bot.engine.rules import Rules
from bot.engine.state import Kind
from bot.engine.views import TableView

from . import normal
from .evaluate import (
    HARD_WEIGHTS7,
    HARD_WEIGHTS8,
    PLAY_EDGE,
    SD8,
    cap_of,
    chance_at_least,
    fitted_points,
)
from .knowledge import Knowledge, World

TEMPER = 0.5
# the bidding model: a mixture of a bold bidder (bids b about when its fitted estimate
# reaches b - 10, as ``normal`` and most people) and a careful one (b + 30, as ``hard``)
BID_MARGINS = (10.0, -30.0)
BID_SPREAD = 15.0  # softness of the bidding model (points)
BID_FLOOR = 0.05  # the least chance of any bid or pass
NO_DECLARE = 0.3  # chance that a seat able to declare a marriage leads without declaring
PLAY_SPREAD = 3.0  # softness (points) of "the cheapest card under an opponent's trick"
PLAY_FLOOR = 0.2  # share of a uniform choice in that model
CONTRACT_SPREAD = 10.0  # softness (points of expected score) of the contract model
CONTRACT_FLOOR = 0.2  # share of a uniform choice among the contracts in that model
CONTRACT_MODEL = True
PASS_SPREAD = 10.0  # softness (points of the fitted estimate) of the passing model
PASS_FLOOR = 0.2  # share of a uniform choice among the pairs in that model
PASS_MODEL = True
REDEAL_KEEP = 90.0  # the fitted estimate (seven cards) at which a hand that may ask for a
# redeal is kept about half the time (``hard`` asks below 90)
REDEAL_FLOOR = 0.1  # the least chance of keeping, or of refusing, a hand or a talon
REDEAL_MODEL = True

_PAIRS = tuple((1 << (6 * s + KING)) | (1 << (6 * s + QUEEN)) for s in range(4))
_SUIT = tuple(0x3F << (6 * s) for s in range(4))


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + exp(-x))


def bid_chance(est: float, bid: int) -> float:
    """The model's chance that a seat whose dealt hand is estimated at ``est`` bids ``bid``."""
    p = sum(_sigmoid((est - bid + m) / BID_SPREAD) for m in BID_MARGINS) / len(BID_MARGINS)
    return BID_FLOOR + (1 - 2 * BID_FLOOR) * p


def bid_events(view: TableView) -> list[tuple[int, int, bool]]:
    """(seat, the bid it made or refused, made) for the bidding of this deal."""
    r = view.rules
    if view.kind != Kind.NORMAL or len(view.active) != 3 or not view.bids:
        return []
    out: list[tuple[int, int, bool]] = []
    cur = view.bids[0][1]
    for seat, b in view.bids[1:]:
        if b == 0:
            out.append((seat, cur + r.bid_step, False))
        else:
            out.append((seat, b, True))
            cur = b
    return out


def kept_hands(view: TableView) -> tuple[tuple[int, bool], ...]:
    """(seat, is the forehand) for the other seats that took a decision of this deal, and so
    did not ask for the redeal their dealt hand may have allowed (RULES.md §2.3: the request
    comes with a seat's first decision). A forehand whose opening was not 100 (a dark game,
    or the barrel) is left out: a dark forehand is offered no redeal."""
    r = view.rules
    if (not REDEAL_MODEL or view.kind != Kind.NORMAL or len(view.active) != 3
            or not hand_redeals_possible(r)):
        return ()
    decided = {s for s, _b in view.bids[1:]}
    if view.declarer >= 0:
        decided.add(view.declarer)
    for t in view.tricks:
        decided.update(s for s, _c in t.cards)
    decided.update(s for s, _c in view.trick)
    fh = view.forehand
    if not view.bids or view.bids[0][1] != 100:
        decided.discard(fh)
    return tuple((s, s == fh) for s in sorted(decided) if s != view.seat)


def redeals_log_likelihood(rules: Rules, kept: tuple[tuple[int, bool], ...],
                           hands: dict[int, frozenset[int]]) -> float:
    """log P(the seats ``kept`` did not ask for a redeal | their dealt hands ``hands``)."""
    total = 0.0
    for seat, forehand in kept:
        h = hands.get(seat)
        if h is None or hand_redeal_reason(rules, tuple(h), forehand) is None:
            continue
        keep = _sigmoid((fitted_points(h, HARD_WEIGHTS7) - REDEAL_KEEP) / BID_SPREAD)
        total += log(REDEAL_FLOOR + (1 - 2 * REDEAL_FLOOR) * keep)
    return total


def dealt_log_likelihood(events: list[tuple[int, int, bool]],
                         kept: tuple[tuple[int, bool], ...], rules: Rules,
                         hands: dict[int, frozenset[int]]) -> float:
    """The factors of the hands as dealt: the bids and passes, and the redeals not asked."""
    return bids_log_likelihood(events, hands) + redeals_log_likelihood(rules, kept, hands)


def talon_kept(view: TableView) -> bool:
    """Whether the declarer (another seat) kept a talon shown to all that let it ask for a
    redeal (three players, a normal deal)."""
    if (not REDEAL_MODEL or view.kind != Kind.NORMAL or len(view.active) != 3
            or view.declarer < 0 or view.declarer == view.seat or not view.talon_shown
            or len(view.talon) != 3):
        return False
    raised = any(b > 0 for _s, b in view.bids[1:])
    return talon_reason(view.rules, view.talon, view.bid, raised) is not None


def talon_log_likelihood(hand8: frozenset[int], bid: int, edge: float) -> float:
    """log P(a declarer keeping the eight cards ``hand8`` kept a talon it could refuse at
    ``bid``): about its chance of making the bid on the fitted estimate."""
    p = chance_at_least(fitted_points(hand8, HARD_WEIGHTS8) + edge, bid, SD8)
    return log(REDEAL_FLOOR + (1 - 2 * REDEAL_FLOOR) * p)


def contract_log_likelihood(hand: frozenset[int], bid: int, named: int, cap: int,
                            step: int, edge: float) -> float:
    """log P(naming ``named`` on a bid of ``bid`` | the eight cards kept), under a soft
    version of "the contract with the best expected score" (``cap``: the highest allowed)."""
    if named > cap or named < bid:
        return log(CONTRACT_FLOOR / 8)  # cannot happen in this world (a hard fact elsewhere)
    est = fitted_points(hand, HARD_WEIGHTS8) + edge
    evs = []
    c = bid
    while c <= cap:
        evs.append((c, c * (2 * chance_at_least(est, c, SD8) - 1)))
        c += step
    top = max(v for _c, v in evs)
    den = 0.0
    num = 0.0
    for c, v in evs:
        e = exp((v - top) / CONTRACT_SPREAD)
        den += e
        if c == named:
            num = e
    return log(CONTRACT_FLOOR / len(evs) + (1 - CONTRACT_FLOOR) * num / den)


def pass_log_likelihood(view: TableView, hand: frozenset[int], out: frozenset[int]) -> float:
    """log P(the declarer holding ten cards ``hand`` lets go of the two ``out``)."""
    den = 0.0
    num = 0.0
    n = 0
    vals = []
    for pair in combinations(sorted(hand), 2):
        v = fitted_points(hand.difference(pair), HARD_WEIGHTS8)
        v -= normal.pass_penalty(view, hand, pair[0]) + normal.pass_penalty(view, hand, pair[1])
        vals.append((v, pair))
    top = max(v for v, _p in vals)
    for v, pair in vals:
        e = exp((v - top) / PASS_SPREAD)
        den += e
        n += 1
        if out.issuperset(pair):
            num = e
    return log(PASS_FLOOR / n + (1 - PASS_FLOOR) * num / den)


def bids_log_likelihood(events: list[tuple[int, int, bool]],
                        hands: dict[int, frozenset[int]]) -> float:
    """log P(the bids and passes of the seats in ``hands`` | their dealt hands)."""
    est: dict[int, float] = {}
    total = 0.0
    for seat, b, made in events:
        h = hands.get(seat)
        if h is None:
            continue
        if seat not in est:
            est[seat] = fitted_points(h, HARD_WEIGHTS7)
        p = bid_chance(est[seat], b)
        total += log(p if made else 1 - p)
    return total


@dataclass(frozen=True, slots=True)
class _Lead:
    seat: int
    later: int  # the seat's cards played on this trick and after (mask)
    declared: bool
    may_declare: bool


@dataclass(frozen=True, slots=True)
class _Under:
    """A card played that did not take a trick held by the seat's opponents."""

    seat: int
    later: int
    card: int
    lead_suit: int
    trump: int
    win_card: int


class Inference:
    """The other seats' observed actions in one seat's view (phase ``play``)."""

    def __init__(self, view: TableView, know: Knowledge) -> None:
        self.view = view
        self.know = know
        me = view.seat
        decl = view.declarer
        self.bids = [e for e in bid_events(view) if e[0] != me]
        tricks = [(t.cards, t.trump) for t in view.tricks]
        if view.trick:
            tricks.append((view.trick, view.trump))
        # the cards each seat played from trick i on
        later: dict[int, list[int]] = {s: [0] * (len(tricks) + 1) for s in view.active}
        for i in range(len(tricks) - 1, -1, -1):
            for s in view.active:
                later[s][i] = later[s][i + 1]
            for s, c in tricks[i][0]:
                later[s][i] |= 1 << c
        declared_on = {(m.trick, m.seat) for m in view.declared if m.suit < 4}
        rights: set[int] = set()
        first_lead = view.rules.marriage_first_lead
        self.leads: list[_Lead] = []
        self.unders: list[_Under] = []
        for i, (cards, trump) in enumerate(tricks):
            leader, lc = cards[0]
            if leader != me:
                self.leads.append(_Lead(leader, later[leader][i], (i, leader) in declared_on,
                                        first_lead or leader in rights))
            win_seat, win_card = leader, lc
            for seat, c in cards[1:]:
                beats = (c // 6 == win_card // 6 and c > win_card) or (
                    trump >= 0 and c // 6 == trump and win_card // 6 != trump)
                opponents = (win_seat == decl) != (seat == decl)
                if not beats and opponents and seat != me:
                    self.unders.append(_Under(seat, later[seat][i], c, cards[0][1] // 6,
                                              trump, win_card))
                if beats:
                    win_seat, win_card = seat, c
            if len(cards) == len(view.active):
                rights.add(win_seat)
        # the contract the declarer named (a defender's view of a normal deal of three)
        self.contract: tuple[int, int, int] | None = None
        if (CONTRACT_MODEL and me != decl and decl >= 0 and view.kind == Kind.NORMAL
                and len(view.active) == 3 and view.contract >= view.bid > 0):
            self.contract = (decl, view.bid, view.contract)
        # the cards the declarer passed (one of them to this seat)
        self.passed = (PASS_MODEL and me != decl and decl >= 0 and view.kind == Kind.NORMAL
                       and len(view.active) == 3 and view.received >= 0)
        # the redeals not asked for: the hands as dealt, the talon the declarer kept
        self.kept = kept_hands(view)
        self.talon = talon_kept(view)
        self.empty = not (self.bids or self.leads or self.unders or self.contract
                          or self.passed or self.kept or self.talon)

    def log_likelihood(self, world: World) -> float:
        if self.empty:
            return 0.0
        total = 0.0
        if self.bids or self.kept:
            seats = {e[0] for e in self.bids} | {s for s, _f in self.kept}
            hands = {s: self.know.orig_hand(world, s) for s in seats}
            total += dealt_log_likelihood(self.bids, self.kept, self.view.rules, hands)
        if self.talon:
            decl = self.view.declarer
            total += talon_log_likelihood(frozenset(world.hands[decl])
                                          | self.know.played_by[decl], self.view.bid,
                                          PLAY_EDGE)
        if self.contract is not None:
            decl, bid, named = self.contract
            hand = frozenset(world.hands[decl]) | self.know.played_by[decl]
            total += contract_log_likelihood(hand, bid, named, cap_of(self.view, hand),
                                             self.view.rules.bid_step, PLAY_EDGE)
        if self.passed:
            decl = self.view.declarer
            out = frozenset(c for s, c in world.received.items() if s != decl and c >= 0)
            if len(out) == 2:
                hand = frozenset(world.hands[decl]) | self.know.played_by[decl] | out
                total += pass_log_likelihood(self.view, hand, out)
        masks: dict[int, int] = {}
        for s, cards in world.hands.items():
            m = 0
            for c in cards:
                m |= 1 << c
            masks[s] = m
        for ld in self.leads:
            if ld.declared or not ld.may_declare:
                continue
            h = masks[ld.seat] | ld.later
            if any(h & p == p for p in _PAIRS):
                total += log(NO_DECLARE)
        for u in self.unders:
            h = masks[u.seat] | u.later
            legal = h & _SUIT[u.lead_suit]
            if not legal and u.trump >= 0:
                legal = h & _SUIT[u.trump]
            if not legal:
                legal = h
            ws = u.win_card // 6
            num = den = 0.0
            n = 0
            while legal:
                b = legal & -legal
                legal ^= b
                c = b.bit_length() - 1
                cs = c // 6
                if (cs == ws and c > u.win_card) or (u.trump >= 0 and cs == u.trump
                                                     and ws != u.trump):
                    continue  # it would have taken the trick
                e = exp(-POINTS[c] / PLAY_SPREAD)
                den += e
                n += 1
                if c == u.card:
                    num = e
            if n > 1 and den > 0:
                total += log(PLAY_FLOOR / n + (1 - PLAY_FLOOR) * num / den)
        return total

    def weight(self, world: World) -> float:
        return exp(TEMPER * self.log_likelihood(world))
