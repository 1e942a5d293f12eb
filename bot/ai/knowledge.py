"""What a seat knows about the hidden cards, and worlds sampled consistently with it.

``Knowledge(view)`` reads one seat's view during play: the cards played, the voids
each seat has shown (a void in the suit led, and a void in trump whenever a seat
neither followed suit nor trumped under the trump of that trick), the shown
talon, the cards this seat gave or received, declared marriages (the partner card
still in that seat's hand), and the marriages a bid above 120 or a raised
contract proved. ``sample(rng)`` deals the unseen cards into a ``World`` that
contradicts none of it.

The unseen cards go to *places*: the other seats' hands and, with two players,
the closed talon and the declarer's discards. Each card has the set of places it
may be in; a deal that respects every set and every size exists exactly when
Hall's condition holds, so cards are placed one by one, each time keeping the
rest placeable. Marriages proved by the bidding are placed first, then checked
on the whole world (rejection, a few tries).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.engine import cards as C
from bot.engine.state import Phase
from bot.engine.views import TableView

_ALL = frozenset(range(24))


@dataclass(frozen=True, slots=True)
class World:
    """One guess at every hidden card during play."""

    hands: dict[int, frozenset[int]]  # current hand of every active seat
    received: dict[int, int]  # card each defender got from the declarer (-1 none/unknown)
    talon: tuple[int, ...]  # the talon cards the declarer took
    discarded: tuple[int, ...]  # two players: the declarer's discards
    closed: tuple[int, ...]  # two players: the closed talon


@dataclass(frozen=True, slots=True)
class Requirement:
    """``seat`` held marriages worth at least ``need`` in a hand (``orig`` before the
    talon, else after passing), or (``need`` == 1) at least one marriage."""

    seat: int
    need: int
    orig: bool


def marriage_worth(hand: frozenset[int] | set[int], ace_marriage: bool) -> int:
    worth = sum(C.MARRIAGE_VALUES[s] for s in range(4)
                if 6 * s + C.KING in hand and 6 * s + C.QUEEN in hand)
    if ace_marriage and all(6 * s + C.ACE in hand for s in range(4)):
        worth += C.ACE_MARRIAGE_VALUE
    return worth


class Knowledge:
    """The hidden-card constraints of one seat's view (phase ``play``)."""

    def __init__(self, view: TableView) -> None:
        if view.phase != Phase.PLAY or view.rules.stock_mode:
            raise ValueError("knowledge is built during play of a deal with bidding")
        r = view.rules
        self.view = view
        self.seat = view.seat
        self.active = view.active
        self.declarer = view.declarer
        self.two = len(view.active) == 2
        self.mine = frozenset(view.hand)
        played_by: dict[int, set[int]] = {s: set() for s in view.active}
        voids: dict[int, set[int]] = {s: set() for s in view.active}
        tricks = [(t.cards, t.trump) for t in view.tricks]
        if view.trick:
            tricks.append((view.trick, view.trump))
        for cards, trump in tricks:
            led = cards[0][1] // 6
            for seat, c in cards:
                played_by[seat].add(c)
                if c // 6 != led:
                    voids[seat].add(led)
                    if trump >= 0 and c // 6 != trump:
                        voids[seat].add(trump)
        self._lead_rules(view, voids)
        self.played_by = {s: frozenset(v) for s, v in played_by.items()}
        self.played = frozenset().union(*self.played_by.values())
        self.voids = {s: frozenset(v) for s, v in voids.items()}
        decl = view.declarer
        self.is_declarer = self.seat == decl
        self.defenders = tuple(s for s in view.active if s != decl)
        # cards whose place is known: (card -> seat) for cards not yet played
        self.gave_known: dict[int, int] = {}  # defender -> card it received
        for to, c in view.gave:
            self.gave_known[to] = c
        if not self.is_declarer and view.received >= 0:
            self.gave_known[self.seat] = view.received
        self.talon = tuple(view.talon)
        self.talon_known = bool(view.talon) or self.is_declarer
        two_pass = r.two_player_pass
        self.discards_known = tuple(view.discarded)
        # places: other active seats, then (two players) closed talon and discards
        places: list[int] = [s for s in view.active if s != self.seat]
        caps = [view.hand_sizes[s] for s in places]
        self.n_seat_places = len(places)
        if self.two:
            places.append(-1)  # closed talon
            caps.append(view.talon_size)
            if not self.is_declarer and two_pass == "discard_two":
                places.append(-2)  # the declarer's discards
                caps.append(2)
        self.places = tuple(places)
        self.caps = tuple(caps)
        known_out = set(self.mine) | set(self.played) | set(self.discards_known)
        self.unknown = tuple(sorted(_ALL - known_out))
        # allowed places per unknown card, as a bit mask over places
        full = (1 << len(places)) - 1
        allowed = {c: full for c in self.unknown}
        seat_bit = {s: 1 << i for i, s in enumerate(places) if s >= 0}
        for s, vs in self.voids.items():
            if s == self.seat:
                continue
            for c in self.unknown:
                if c // 6 in vs:
                    allowed[c] &= ~seat_bit[s]
        for m in view.declared:
            if m.seat == self.seat:
                continue
            suit_cards = [6 * su + C.ACE for su in range(4)] if m.suit == 4 else [
                6 * m.suit + C.KING, 6 * m.suit + C.QUEEN]
            for c in suit_cards:
                if c in allowed:
                    allowed[c] &= seat_bit[m.seat]
        for to, c in self.gave_known.items():
            if c in allowed and to != self.seat:
                allowed[c] &= seat_bit[to]
        if self.two and -1 in places:
            closed_bit = 1 << places.index(-1)
            for c in self.talon:  # the shown talon never lies in the closed one
                if c in allowed:
                    allowed[c] &= ~closed_bit
        # with three seats, a card the declarer kept or passed: not in the closed talon
        self.allowed = allowed
        # the latent card passed to the other defender (a defender's own view)
        self.g2_seat = -1
        self.g2_options: list[int] = []  # talon cards that may be it; -2 = "another card"
        self.g2_fixed = -1
        if not self.two and not self.is_declarer and decl >= 0:
            other = next(s for s in self.defenders if s != self.seat)
            if other not in self.gave_known:
                self.g2_seat = other
                if self.talon_known:
                    loose = [c for c in self.talon if c != view.received]
                    by_other = [c for c in loose if c in self.played_by[other]]
                    if by_other:
                        self.g2_fixed = by_other[0]
                    else:
                        self.g2_options = [c for c in loose if c in allowed]
            placed_known = set(self.gave_known.values())
            for c in self.talon:
                if c in allowed and c not in placed_known:
                    allowed[c] &= seat_bit[decl] | (seat_bit[other] if self.g2_seat >= 0 else 0)
        elif self.two and not self.is_declarer:
            for c in self.talon:
                if c in allowed and c != view.received:
                    keep = seat_bit[decl]
                    if -2 in places:
                        keep |= 1 << places.index(-2)
                    allowed[c] &= keep
        self.requirements = self._requirements()

    @staticmethod
    def _lead_rules(view: TableView, voids: dict[int, set[int]]) -> None:
        """Voids proved by the rules on a seat's first lead (must_lead_trump: it led no
        trump, so it had none; no_lead_foreign_trump: it led another's trump, so it had
        nothing else)."""
        r = view.rules
        if not (r.must_lead_trump or r.no_lead_foreign_trump):
            return
        tricks = [(t.cards, t.trump) for t in view.tricks]
        if view.trick:
            tricks.append((view.trick, view.trump))
        led_before: set[int] = set()
        trump_before = -1
        trump_owner = -1
        for i, (cards, trump_after) in enumerate(tricks):
            leader, card = cards[0]
            if leader not in led_before and trump_before >= 0:
                if r.must_lead_trump and card // 6 != trump_before:
                    voids[leader].add(trump_before)
                if (r.no_lead_foreign_trump and trump_owner not in (leader, -1)
                        and card // 6 == trump_before):
                    voids[leader] |= {s for s in range(4) if s != trump_before}
            led_before.add(leader)
            for m in view.declared:
                if m.trick == i and m.suit < 4:
                    trump_owner = m.seat
            trump_before = trump_after

    # --- the bidding ------------------------------------------------------------------
    def _requirements(self) -> list[Requirement]:
        v, r = self.view, self.view.rules
        out: list[Requirement] = []
        first_raise = True
        for i, (seat, b) in enumerate(v.bids):
            if i == 0 or b == 0:
                continue
            need = 0
            if r.bid_needs_marriage and b > 120:
                need = b - 120
            if first_raise and r.dark_unblind and b == 125 and v.bids[0][1] == 120:
                need = max(need, 1)  # unblinding a dark game needs a marriage
            first_raise = False
            if seat == self.seat:
                continue
            if need:
                out.append(Requirement(seat, need, True))
        if (v.declarer >= 0 and v.declarer != self.seat and r.bid_needs_marriage
                and v.contract > v.bid and v.contract > 120):
            out.append(Requirement(v.declarer, v.contract - 120, False))
        # keep the strongest per (seat, orig)
        best: dict[tuple[int, bool], Requirement] = {}
        for q in out:
            key = (q.seat, q.orig)
            if key not in best or best[key].need < q.need:
                best[key] = q
        return list(best.values())

    # --- sampling -------------------------------------------------------------------
    def _feasible(self, allowed: dict[int, int], caps: list[int]) -> bool:
        count: dict[int, int] = {}
        for m in allowed.values():
            if m == 0:
                return False
            count[m] = count.get(m, 0) + 1
        if sum(count.values()) != sum(caps):
            return False
        k = len(caps)
        for sub in range(1, 1 << k):
            cap = sum(caps[i] for i in range(k) if sub >> i & 1)
            inside = sum(n for m, n in count.items() if m & ~sub == 0)
            if inside > cap:
                return False
        return True

    def _place(self, rng: random.Random, allowed: dict[int, int]) -> list[set[int]] | None:
        caps = list(self.caps)
        if not self._feasible(allowed, caps):
            return None
        left = dict(allowed)
        out: list[set[int]] = [set() for _ in caps]
        order = list(left)
        rng.shuffle(order)
        order.sort(key=lambda c: bin(left[c]).count("1"))  # most constrained first
        constrained = any(m != (1 << len(caps)) - 1 for m in left.values())
        for c in order:
            m = left.pop(c)
            opts = [i for i in range(len(caps)) if m >> i & 1 and caps[i] > 0]
            while opts:
                weights = [caps[i] for i in opts]
                i = rng.choices(opts, weights)[0]
                caps[i] -= 1
                if not constrained or self._feasible(left, caps):
                    out[i].add(c)
                    break
                caps[i] += 1
                opts.remove(i)
            else:
                return None
        return out

    def sample(self, rng: random.Random, tries: int = 40) -> World:
        """A world consistent with everything this seat knows."""
        last: World | None = None
        for attempt in range(tries):
            allowed = dict(self.allowed)
            g2 = self.g2_fixed
            if self.g2_seat >= 0 and g2 < 0 and self.g2_options:
                opts = [*self.g2_options, -2]
                rng.shuffle(opts)
                for g in opts:
                    trial = dict(allowed)
                    for c in self.g2_options:
                        trial[c] &= self._bit(self.declarer if c != g else self.g2_seat)
                    if self._feasible(trial, list(self.caps)):
                        allowed, g2 = trial, g
                        break
            elif self.g2_seat >= 0 and self.talon_known:
                for c in self.talon:
                    if c in allowed and c != g2:
                        allowed[c] &= self._bit(self.declarer)
            if attempt < tries - 1:
                self._force_requirements(rng, allowed)
            placed = self._place(rng, allowed)
            if placed is None:
                continue
            world = self._world(rng, placed, g2)
            last = world
            if self.check(world):
                return world
        if last is None:  # the forcing was too strict: place without it
            placed = self._place(rng, dict(self.allowed))
            assert placed is not None, "the view admits no deal"
            last = self._world(rng, placed, self.g2_fixed)
        return last

    def _bit(self, place: int) -> int:
        return 1 << self.places.index(place)

    def _force_requirements(self, rng: random.Random, allowed: dict[int, int]) -> None:
        ace = self.view.rules.ace_marriage
        for q in self.requirements:
            have = set(self.played_by[q.seat])
            if q.orig and q.seat == self.declarer:
                have |= {c for to, c in self.gave_known.items() if to == self.seat}
            combos = _combos(q.need, ace)
            rng.shuffle(combos)
            for combo in combos:
                trial = dict(allowed)
                ok = True
                for c in combo:
                    if q.orig and q.seat == self.declarer and c in self.talon:
                        ok = False
                        break
                    if c in have:
                        continue
                    if c not in trial or not trial[c] & self._bit(q.seat):
                        ok = False
                        break
                    trial[c] &= self._bit(q.seat)
                if ok and self._feasible(trial, list(self.caps)):
                    allowed.update(trial)
                    break

    def _world(self, rng: random.Random, placed: list[set[int]], g2: int) -> World:
        v = self.view
        hands: dict[int, frozenset[int]] = {self.seat: self.mine}
        closed: tuple[int, ...] = ()
        discarded = self.discards_known
        for i, p in enumerate(self.places):
            if p >= 0:
                hands[p] = frozenset(placed[i])
            elif p == -1:
                closed = tuple(sorted(placed[i]))
            else:
                discarded = tuple(sorted(placed[i]))
        received = {s: -1 for s in self.defenders}
        received.update(self.gave_known)
        if self.g2_seat >= 0:
            if g2 < 0:
                post = hands[self.g2_seat] | self.played_by[self.g2_seat]
                cands = sorted(post - set(self.talon))
                rng.shuffle(cands)
                g2 = cands[0] if cands else -1
                if self.requirements:  # the card that keeps the proved marriages, if any
                    for g in cands:
                        received[self.g2_seat] = g
                        if self.check(World(hands, received, self.talon, discarded, closed)):
                            g2 = g
                            break
            received[self.g2_seat] = g2
        talon = self.talon
        if not self.talon_known:
            pool = hands[self.declarer] | self.played_by[self.declarer]
            pool |= {c for c in received.values() if c >= 0}
            talon = tuple(sorted(rng.sample(sorted(pool), _talon_size(v))))
        return World(hands, received, talon, discarded, closed)

    # --- checking ---------------------------------------------------------------------
    def orig_hand(self, world: World, seat: int) -> frozenset[int]:
        """``seat``'s hand as dealt, in ``world``."""
        post = world.hands[seat] | self.played_by[seat]
        if seat != self.declarer:
            g = world.received.get(seat, -1)
            return post - {g}
        gone = {c for c in world.received.values() if c >= 0} | set(world.discarded)
        return (post | gone) - set(world.talon)

    def check(self, world: World) -> bool:
        """Whether ``world`` keeps every proved marriage (the rest holds by construction)."""
        ace = self.view.rules.ace_marriage
        for q in self.requirements:
            hand = self.orig_hand(world, q.seat) if q.orig else (
                world.hands[q.seat] | self.played_by[q.seat])
            if marriage_worth(hand, ace) < q.need:
                return False
        return True


def _talon_size(v: TableView) -> int:
    return 2 if len(v.active) == 2 else 3


def _combos(need: int, ace: bool) -> list[tuple[int, ...]]:
    """Sets of K/Q (and aces) whose marriages are worth at least ``need``."""
    out: list[tuple[int, ...]] = []
    for mask in range(1, 32 if ace else 16):
        worth = sum(C.MARRIAGE_VALUES[s] for s in range(4) if mask >> s & 1)
        cards = [c for s in range(4) if mask >> s & 1 for c in (6 * s + C.KING, 6 * s + C.QUEEN)]
        if mask & 16:
            worth += C.ACE_MARRIAGE_VALUE
            cards += [6 * s + C.ACE for s in range(4)]
        minimal = not any(mask & ~(1 << b) and _worth(mask & ~(1 << b)) >= need
                          for b in range(5) if mask >> b & 1)
        if worth >= need and minimal:
            out.append(tuple(cards))
    return out


def _worth(mask: int) -> int:
    return sum(C.MARRIAGE_VALUES[s] for s in range(4) if mask >> s & 1) + (
        C.ACE_MARRIAGE_VALUE if mask & 16 else 0)
