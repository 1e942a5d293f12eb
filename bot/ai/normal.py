"""The ``normal`` computer player: careful rules, no search.

It counts the cards played, knows which of its cards are the highest left in their
suit, remembers who showed a void, values marriages and the talon with the hand
estimate of ``evaluate``, never passes a king or queen that could complete a
defender's marriage when it has a choice, and declares its best marriage as soon
as it may.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import combinations

from bot.engine import cards as C
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    KEEP,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
    Phase,
)
from bot.engine.views import TableView

from .evaluate import declarer_points, talon_bonus

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)
POINTS = C.POINTS


# --- what the seat has seen -------------------------------------------------------


class Seen:
    """Cards played, unseen cards and shown voids, from one view."""

    def __init__(self, view: TableView) -> None:
        self.view = view
        self.hand = frozenset(view.hand)
        played: set[int] = set()
        self.voids: dict[int, set[int]] = {s: set() for s in range(view.n)}
        tricks = [(t.cards, t.trump) for t in view.tricks]
        if view.trick:
            tricks.append((view.trick, view.trump))
        for cards, trump in tricks:
            led = cards[0][1] // 6
            for seat, c in cards:
                played.add(c)
                if c // 6 != led:
                    self.voids[seat].add(led)
                    if trump >= 0 and c // 6 != trump:
                        self.voids[seat].add(trump)
        self.played = frozenset(played)
        known = set(self.hand) | played | set(view.discarded)
        self.unseen = frozenset(set(range(24)) - known)

    def boss(self, c: int) -> bool:
        """No unseen card of the suit is higher."""
        s = c // 6
        return not any(x in self.unseen for x in range(c + 1, 6 * s + 6))

    def higher_unseen(self, c: int) -> int:
        s = c // 6
        return sum(1 for x in range(c + 1, 6 * s + 6) if x in self.unseen)

    def unseen_in(self, suit: int) -> int:
        return sum(1 for x in range(6 * suit, 6 * suit + 6) if x in self.unseen)


def _marriage_cards(hand: frozenset[int]) -> set[int]:
    out: set[int] = set()
    for s in C.marriages_in(hand):
        out |= {6 * s + KING, 6 * s + QUEEN}
    return out


# --- bidding and the talon ----------------------------------------------------------


def hand_estimate(view: TableView, hand: tuple[int, ...] | frozenset[int],
                  with_talon: bool) -> float:
    players = len(view.active) if view.active else view.n
    est = declarer_points(hand, players=2 if players == 2 else 3)
    if with_talon:
        est += talon_bonus(players)
    return est


def choose_bid(view: TableView, margin: float = 5.0) -> Action:
    bids = sorted(a.value for a in view.legal if a.kind == BID)
    if not bids:
        return Action(PASS)
    est = hand_estimate(view, view.hand, with_talon=True)
    if view.kind.value == "dark":  # unblinding: only with a hand that wants the game
        return Action(BID, value=bids[0]) if est >= bids[0] + margin + 10 else Action(PASS)
    ok = [b for b in bids if b <= est - margin]
    if not ok:
        return Action(PASS)
    # raise by one step at a time; jump straight to the barrel minimum when required
    return Action(BID, value=ok[0])


def late_redeal(view: TableView) -> bool:
    """Whether a redeal offered now is the one of four nines after the pass (else the
    request with the seat's first decision, on the hand it was dealt)."""
    return (view.rules.redeal_after_pass and view.phase in (Phase.CONTRACT, Phase.PLAY)
            and C.count_rank(view.hand, NINE) == 4 and view.declarer >= 0)


def without_redeal(view: TableView) -> TableView:
    """The view with the redeal request dropped from the legal actions (it was declined)."""
    return replace(view, legal=tuple(a for a in view.legal if a.kind != REDEAL))


def choose_redeal(view: TableView) -> Action:
    r = view.rules
    if late_redeal(view):  # after the pass: four nines
        if r.four_nines_bonus:
            return Action(KEEP)
        if view.seat == view.declarer:
            est = hand_estimate(view, view.hand, with_talon=False)
            return Action(REDEAL) if est < view.contract - 10 else Action(KEEP)
        return Action(REDEAL)
    est = hand_estimate(view, view.hand, with_talon=True)
    return Action(REDEAL) if est < 95 else Action(KEEP)


def pass_penalty(view: TableView, hand: frozenset[int], c: int) -> float:
    """What giving ``c`` away (to a defender) costs beyond the hand estimate."""
    rank, s = c % 6, c // 6
    pen = POINTS[c] * 0.4
    if rank in (KING, QUEEN):
        partner = 6 * s + (QUEEN if rank == KING else KING)
        if partner not in hand:  # half the time the defender holds the partner
            pen += C.MARRIAGE_VALUES[s] * 0.5
    if rank == ACE:
        pen += 8
    if rank == TEN:
        pen += 4
    return pen


def best_keep(view: TableView, hand: tuple[int, ...], drop: int, give: bool,
              weights_penalty: bool = True) -> tuple[float, tuple[int, ...]]:
    """The best cards to let go (``drop`` of them) and the estimate of the kept hand."""
    best: tuple[float, tuple[int, ...]] | None = None
    hs = frozenset(hand)
    for out in combinations(sorted(hand), drop):
        keep = hs - set(out)
        v = hand_estimate(view, keep, with_talon=False)
        if give and weights_penalty:
            v -= sum(pass_penalty(view, hs, c) for c in out)
        elif not give:
            v -= sum(POINTS[c] for c in out) * 0.3
        if best is None or v > best[0] or (v == best[0] and out < best[1]):
            best = (v, out)
    assert best is not None
    return best


def choose_pass(view: TableView) -> Action:
    kinds = {a.kind for a in view.legal}
    kind = GIVE if GIVE in kinds else DISCARD
    hand = view.hand
    r = view.rules
    if len(view.active) == 2:
        drop = (1 if r.two_player_pass == "give_one" else 2) - len(view.discarded) - len(view.gave)
    else:
        drop = len(view.active) - 1 - view.gave_count
    drop = max(drop, 1)
    est, out = best_keep(view, hand, drop, give=kind == GIVE)
    if REDEAL in kinds and est < view.bid - 15:
        return Action(REDEAL)
    return Action(kind, card=out[0])


def choose_contract(view: TableView, margin: float = 8.0) -> Action:
    values = sorted(a.value for a in view.legal if a.kind == CONTRACT)
    est = hand_estimate(view, view.hand, with_talon=False)
    can_concede = any(a.kind == CONCEDE for a in view.legal)
    if can_concede and est < view.bid - 35:
        return Action(CONCEDE)
    ok = [v for v in values if v <= est - margin]
    return Action(CONTRACT, value=ok[-1] if ok else values[0])


# --- card play ------------------------------------------------------------------------


def _side(view: TableView, seat: int) -> int:
    return 1 if seat == view.declarer else 0


def choose_play(view: TableView, rng: random.Random) -> Action:
    seen = Seen(view)
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    if not view.trick:
        return _lead(view, seen, rng)
    return _follow(view, seen)


def _lead(view: TableView, seen: Seen, rng: random.Random) -> Action:
    legal = view.legal
    hand = seen.hand
    trump = view.trump
    declares = [a for a in legal if a.kind == DECLARE]
    plays = [a.card for a in legal if a.kind == PLAY]
    if declares:
        aces = [a for a in declares if a.card % 6 == ACE]
        if aces:
            return max(aces, key=lambda a: (seen.boss(a.card), a.card))
        best_suit = max({a.card // 6 for a in declares})
        q, k = 6 * best_suit + QUEEN, 6 * best_suit + KING
        lead = k if seen.higher_unseen(k) == 0 else q
        return Action(DECLARE, card=lead)
    keep = _marriage_cards(hand)
    me = view.seat
    opponents = [s for s in view.active if _side(view, s) != _side(view, me)]

    def risky(c: int) -> bool:
        s = c // 6
        if trump < 0 or s == trump:
            return False
        return any(s in seen.voids[o] and trump not in seen.voids[o] for o in opponents)

    # draw trumps with the top trump when the declarer holds it
    if trump >= 0 and view.seat == view.declarer:
        top = [c for c in plays if c // 6 == trump and seen.boss(c) and c not in keep]
        if top and seen.unseen_in(trump) > 0:
            return Action(PLAY, card=max(top))
    bosses = [c for c in plays if seen.boss(c) and not risky(c) and c not in keep]
    if bosses:
        return Action(PLAY, card=max(bosses, key=lambda c: (POINTS[c], c % 6)))
    # a low card, away from tens that an ace could catch and from marriage cards
    def cost(c: int) -> tuple[float, int]:
        s = c // 6
        v = float(POINTS[c])
        if c in keep:
            v += 40
        if c % 6 == TEN and seen.higher_unseen(c):
            v += 15
        if trump >= 0 and s == trump:
            v += 12
        if risky(c):
            v += 6
        return (v, c)
    return Action(PLAY, card=min(plays, key=cost))


def _follow(view: TableView, seen: Seen) -> Action:
    legal = [a.card for a in view.legal]
    hand = seen.hand
    trump = view.trump
    tr = trump if trump >= 0 else None
    cards = [c for _, c in view.trick]
    win_i = C.trick_winner_index(cards, tr)
    win_seat, win_card = view.trick[win_i]
    me = view.seat
    mine = _side(view, me)
    partner_wins = _side(view, win_seat) == mine and win_seat != me
    k = len(view.active)
    last = len(view.trick) == k - 1
    keep = _marriage_cards(hand)
    trick_pts = sum(POINTS[c] for c in cards)
    winners = [c for c in legal if C.beats(c, win_card, tr)]

    def low_cost(c: int) -> tuple[float, int]:
        v = float(POINTS[c])
        if c in keep:
            v += 30
        if seen.boss(c):
            v += 8
        if tr is not None and c // 6 == tr:
            v += 6
        return (v, c)

    def smear_value(c: int) -> tuple[float, int]:
        v = float(POINTS[c])
        if c in keep:
            v -= 40
        if seen.boss(c) and c % 6 == ACE:
            v -= 12
        if tr is not None and c // 6 == tr:
            v -= 8
        return (v, -c)

    if partner_wins:
        safe = last
        if not last:
            nxt = view.active[(view.active.index(me) + 1) % k]
            led = cards[0] // 6
            follow_possible = led not in seen.voids[nxt]
            safe = seen.boss(win_card) and (tr is None or win_card // 6 == tr or follow_possible)
        if safe:
            return Action(PLAY, card=max(legal, key=smear_value))
        return Action(PLAY, card=min(legal, key=low_cost))
    if winners:
        if last:
            # take it with the cheapest winner, or with a vulnerable ten
            tens = [c for c in winners if c % 6 == TEN and seen.higher_unseen(c)]
            if tens:
                return Action(PLAY, card=tens[0])
            return Action(PLAY, card=min(winners, key=lambda c: (c // 6 == trump, c % 6, c)))
        sure = [c for c in winners if seen.boss(c) or (tr is not None and c // 6 == tr
                                                       and seen.boss(c))]
        if sure and (trick_pts >= 3 or any(c % 6 == ACE for c in sure)):
            return Action(PLAY, card=max(sure, key=lambda c: (POINTS[c], c)))
        if sure:
            return Action(PLAY, card=min(sure, key=lambda c: (c % 6, c)))
    return Action(PLAY, card=min(legal, key=low_cost))


# --- one decision ----------------------------------------------------------------------


def choose(view: TableView, rng: random.Random) -> Action:
    ph = view.phase
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    if ph == Phase.DARK:
        return Action(LIGHT) if Action(LIGHT) in legal else Action(DARK)
    if ph != Phase.PASSING and Action(REDEAL) in legal:
        # a private request: with the seat's first decision, or four nines after the pass
        if choose_redeal(view) == Action(REDEAL):
            return Action(REDEAL)
        view = without_redeal(view)
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
    if ph == Phase.BIDDING:
        return choose_bid(view)
    if ph == Phase.TALON:
        talons = [a for a in legal if a.kind == TALON]
        return rng.choice(talons)
    if ph == Phase.PASSING:
        return choose_pass(view)
    if ph == Phase.CONTRACT:
        return choose_contract(view)
    if ph == Phase.PLAY:
        return choose_play(view, rng)
    return legal[0]
