"""The game of Thousand as a pure state machine.

``new_game`` makes a state, ``legal_actions`` lists what the seat to act may do,
``apply`` returns a new state or raises ``IllegalAction`` with a readable reason.
A game with a seed deals itself (deal *k* from ``derive_seed(seed, k)``); a game
without one waits in ``Phase.DEALING`` for ``deal`` with explicit cards.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import replace
from typing import Protocol

from . import cards as C
from .rules import Rules
from .scoring import score_deal
from .state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
    DealResult,
    DealState,
    Declared,
    GameState,
    IllegalAction,
    Kind,
    Layout,
    Note,
    Phase,
    Trick,
    parse_action,
)

# --- dealing -------------------------------------------------------------------


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


def new_game(rules: Rules, seed: int | None = None, first_dealer: int | None = None) -> GameState:
    n = rules.players
    if first_dealer is None:
        first_dealer = random.Random(derive_seed(seed, -1)).randrange(n) if seed is not None else 0
    if not 0 <= first_dealer < n:
        raise IllegalAction(f"no seat {first_dealer} at a table of {n}", "no_seat",
                            seat=first_dealer, n=n)
    zero = (0,) * n
    state = GameState(
        rules=rules,
        seed=seed,
        version=0,
        phase=Phase.DEALING,
        dealer=first_dealer,
        totals=zero,
        bolts=zero,
        bolts_game=zero,
        rospis_count=zero,
        falls=zero,
        barrel=(-1,) * n,
        golden_left=n if rules.golden_round and not rules.stock_mode else 0,
        golden_made=False,
        history=(),
        winner=-1,
        deal=None,
        first_dealer=first_dealer,
    )
    if seed is not None:
        state = _deal(state, layout_from_seed(derive_seed(seed, 0), rules, first_dealer))
    return state


def deal(state: GameState, layout: Layout) -> GameState:
    """Deal explicit cards (a game without a seed, or a record written by hand)."""
    if state.phase != Phase.DEALING:
        raise IllegalAction(f"cards can only be dealt between deals, not in phase {state.phase}",
                            "deal_not_now", phase=str(state.phase))
    return _deal(state, layout)  # dealing is not a seat's action: the version stays


def _deal(state: GameState, layout: Layout) -> GameState:
    r = state.rules
    check_layout(r, state.dealer, layout)
    n = r.players
    active = active_seats(r, state.dealer)
    forehand = active[0]
    kind = Kind.GOLDEN if state.golden_left > 0 else Kind.NORMAL
    d = DealState(
        number=len(state.history) + 1,
        kind=kind,
        dealer=state.dealer,
        forehand=forehand,
        active=active,
        layout=layout,
        hands=tuple(C.sort_hand(h) for h in layout.hands),
        talon=layout.talon,
        to_act=forehand,
        passed=(False,) * n,
        received=(-1,) * n,
        taken=(0,) * n,
        ntricks=(0,) * n,
        has_led=(False,) * n,
    )
    s = replace(state, deal=d, phase=Phase.PLAY)
    if r.stock_mode:
        return replace(s, deal=replace(d, leader=forehand, to_act=forehand))
    if _dark_offered(s):
        return replace(s, phase=Phase.DARK)
    return _start_auction(s)


def _sitters(state: GameState) -> list[int]:
    return [i for i, t in enumerate(state.barrel) if t >= 0]


def _dark_offered(s: GameState) -> bool:
    r, d = s.rules, s.deal
    assert d is not None
    if not r.dark_play or d.kind != Kind.NORMAL:
        return False
    sitters = _sitters(s)
    if sitters and not r.dark_on_barrel:
        return False
    return not (d.forehand in sitters and r.barrel_min_bid > 120)


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
    if rules.redeal_talon_only_on_100 and (d.bid != 100 or d.raised):
        return None
    talon = d.talon_taken
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


def _went_dark(d: DealState, seat: int) -> bool:
    return seat == d.forehand and (d.kind == Kind.DARK or d.unblinded)


def hand_redeal_open(s: GameState, seat: int) -> str | None:
    """The reason ``seat`` may ask for a redeal now, privately, with its first decision of
    the deal (§2.3), or None. Only the seat to act, only before its first decision."""
    d = s.deal
    if d is None or s.phase not in (Phase.BIDDING, Phase.TALON, Phase.PLAY):
        return None
    if seat != d.to_act or s.rules.stock_mode or has_decided(d, seat) or _went_dark(d, seat):
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


def _start_auction(s: GameState) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    if d.kind == Kind.GOLDEN:
        return _take_talon(s, d.forehand, 120)
    if d.kind == Kind.DARK and not r.dark_unblind:
        return _take_talon(s, d.forehand, 120)
    if d.kind == Kind.NORMAL and r.barrel and r.barrel_bidding == "sitter_takes_talon":
        sitters = [seat for seat in d.active if s.barrel[seat] >= 0]
        if sitters:
            return _take_talon(s, sitters[0], r.barrel_min_bid)
    if d.kind == Kind.DARK:
        opening = 120
    elif s.barrel[d.forehand] >= 0:
        opening = r.barrel_min_bid
    else:
        opening = 100
    d = replace(d, bids=((d.forehand, opening),), bid=opening, bidder=d.forehand)
    d = replace(d, to_act=_next_bidder(d, d.forehand))
    return replace(s, phase=Phase.BIDDING, deal=d)


def _next_in(active: tuple[int, ...], seat: int) -> int:
    return active[(active.index(seat) + 1) % len(active)]


def _next_bidder(d: DealState, seat: int) -> int:
    nxt = _next_in(d.active, seat)
    while d.passed[nxt]:
        nxt = _next_in(d.active, nxt)
    return nxt


def bid_cap(rules: Rules, hand: tuple[int, ...]) -> int:
    """The highest bid or contract a hand allows (§2.4)."""
    if not rules.bid_needs_marriage:
        return rules.max_bid
    cap = 120 + sum(C.MARRIAGE_VALUES[su] for su in C.marriages_in(hand))
    if rules.ace_marriage and C.has_four_aces(hand):
        cap += C.ACE_MARRIAGE_VALUE
    return min(cap, rules.max_bid)


def bid_options(s: GameState, seat: int) -> list[int]:
    r, d = s.rules, s.deal
    assert d is not None
    hand = d.hands[seat]
    if r.min_total_to_bid is not None and s.totals[seat] < r.min_total_to_bid:
        return []  # silenced: no raise, and no unblinding a dark game either (§5.1)
    if d.kind == Kind.DARK and not d.unblinded:
        if seat != d.forehand and C.marriages_in(hand):
            return [125]
        return []
    cap = bid_cap(r, hand)
    step = r.bid_step
    lo = d.bid + step
    sitter = r.barrel and s.barrel[seat] >= 0
    if sitter and lo < r.barrel_min_bid:
        lo = r.barrel_min_bid  # the sitter's first bid may jump straight to M
    if not r.bid_jumps:
        return [lo] if lo <= cap else []
    return list(range(lo, cap + 1, step))


def _take_talon(s: GameState, declarer: int, bid: int) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    d = replace(d, declarer=declarer, bid=bid, bidder=declarer, contract=bid, to_act=declarer)
    if r.players == 2 or _takes_by_hand(s, d, declarer):
        return replace(s, phase=Phase.TALON, deal=d)
    return _open_talon(replace(s, deal=d))


def _takes_by_hand(s: GameState, d: DealState, declarer: int) -> bool:
    """Three or four players: a declarer that has made no decision yet in this deal (a
    forehand both opponents passed, a golden forehand, a sitter taking the talon without
    bidding) takes the talon by hand, its chance to ask for a redeal first. Decided on
    public facts only, so the pause says nothing about any hand."""
    return (hand_redeals_possible(s.rules) and not has_decided(d, declarer)
            and not _went_dark(d, declarer))


def _open_talon(s: GameState) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    declarer, bid = d.declarer, d.bid
    hidden = d.kind in (Kind.GOLDEN, Kind.DARK) or (
        r.talon_hidden_on_100 and bid == 100 and not d.raised and declarer == d.forehand
    )
    hands = list(d.hands)
    hands[declarer] = C.sort_hand(hands[declarer] + d.talon)
    d = replace(d, hands=tuple(hands), talon_taken=d.talon, talon=(), talon_shown=not hidden)
    return replace(s, phase=Phase.PASSING, deal=d)


class _Seating(Protocol):
    """A deal or a view of it: the seats in play and the declarer."""

    @property
    def active(self) -> tuple[int, ...]: ...

    @property
    def declarer(self) -> int: ...


def defenders(d: _Seating) -> tuple[int, ...]:
    """The declarer's opponents, clockwise from the declarer (of a deal or a seat's view)."""
    out = []
    seat = d.declarer
    for _ in range(len(d.active) - 1):
        seat = _next_in(d.active, seat)
        out.append(seat)
    return tuple(out)


def _pass_target(d: DealState) -> int:
    for seat in defenders(d):
        if d.received[seat] < 0:
            return seat
    return -1


def _passing_done(s: GameState) -> bool:
    r, d = s.rules, s.deal
    assert d is not None
    if r.players == 2:
        if r.two_player_pass == "give_one":
            return len(d.gave) == 1
        return len(d.discarded) == 2
    return _pass_target(d) < 0


def contract_options(s: GameState) -> list[int]:
    r, d = s.rules, s.deal
    assert d is not None
    if d.kind == Kind.DARK:
        return [120]
    if d.kind == Kind.GOLDEN and not r.golden_raise:
        return [120]
    cap = bid_cap(r, d.hands[d.declarer])
    return [d.bid, *range(d.bid + r.bid_step, cap + 1, r.bid_step)]


def may_concede(s: GameState) -> bool:
    r, d = s.rules, s.deal
    assert d is not None
    if not r.rospis or r.stock_mode:
        return False
    if r.barrel and s.barrel[d.declarer] >= 0:
        return False
    if r.rospis_barrel_blocks_all and _sitters(s):
        return False
    if r.rospis_limit is not None and s.rospis_count[d.declarer] >= r.rospis_limit:
        return False
    return not (d.kind == Kind.DARK and not r.dark_rospis)


def contract_forced(s: GameState) -> bool:
    """Whether the contract is the bid whatever the declarer holds and it may not concede:
    then the contract step is skipped. Decided on public facts only (the kind of deal, the
    bid, the rules), never on the hand, so skipping it tells nobody anything; a declarer
    whose hand alone allows no higher contract is still asked (one button)."""
    r, d = s.rules, s.deal
    assert d is not None
    if may_concede(s):
        return False
    if d.kind == Kind.DARK or (d.kind == Kind.GOLDEN and not r.golden_raise):
        return True
    return d.bid + r.bid_step > r.max_bid


def _after_passing(s: GameState) -> GameState:
    d = s.deal
    assert d is not None
    nines = tuple(seat for seat in d.active if C.count_rank(d.hands[seat], C.NINE) == 4)
    d = replace(d, four_nines=nines)
    s = replace(s, deal=d)
    if contract_forced(s):
        return _start_play(replace(s, deal=replace(d, contract=contract_options(s)[0])))
    return replace(s, phase=Phase.CONTRACT)


def _start_play(s: GameState) -> GameState:
    d = s.deal
    assert d is not None
    return replace(s, phase=Phase.PLAY, deal=replace(d, leader=d.declarer, to_act=d.declarer))


# --- legal actions ---------------------------------------------------------------


def _won_trick_without_ace(d: DealState, seat: int) -> bool:
    for t in d.tricks:
        if t.winner == seat:
            card = next(c for st, c in t.cards if st == seat)
            if C.rank_of(card) != C.ACE:
                return True
    return False


def _trump_declarer(d: DealState) -> int:
    for m in reversed(d.declared):
        if m.suit < 4:
            return m.seat
    return -1


def play_options(s: GameState) -> list[Action]:
    r, d = s.rules, s.deal
    assert d is not None
    seat = d.to_act
    hand = d.hands[seat]
    trump = d.trump
    if d.trick:
        led = C.suit_of(d.trick[0][1])
        follow = [c for c in hand if C.suit_of(c) == led]
        if not follow and trump >= 0:
            follow = [c for c in hand if C.suit_of(c) == trump]
        return [Action(PLAY, card=c) for c in (follow or hand)]
    cands = list(hand)
    if not d.has_led[seat] and trump >= 0:
        trumps = [c for c in hand if C.suit_of(c) == trump]
        if r.must_lead_trump and trumps:
            cands = trumps
        elif r.no_lead_foreign_trump and _trump_declarer(d) not in (seat, -1):
            others = [c for c in hand if C.suit_of(c) != trump]
            if others:
                cands = others
    out = [Action(PLAY, card=c) for c in cands]
    may_declare = r.stock_mode or r.marriage_first_lead or d.ntricks[seat] > 0
    if may_declare:
        for su in C.marriages_in(hand):
            for rank in (C.KING, C.QUEEN):
                c = C.card(rank, su)
                if c in cands:
                    out.append(Action(DECLARE, card=c))
    if (
        r.ace_marriage
        and C.has_four_aces(hand)
        and not any(m.seat == seat and m.suit == 4 for m in d.declared)
        and (r.marriage_first_lead or _won_trick_without_ace(d, seat))
    ):
        out.extend(Action(DECLARE, card=c) for c in cands if C.rank_of(c) == C.ACE)
    return out


def legal_actions(state: GameState) -> list[Action]:
    """Every action the seat to act may take now (empty between deals and after the game)."""
    s, d = state, state.deal
    if d is None or s.phase in (Phase.DEALING, Phase.GAME_OVER):
        return []
    r = s.rules
    ph = s.phase
    seat = d.to_act
    redeal = [Action(REDEAL)] if (
        hand_redeal_open(s, seat) is not None or late_redeal_open(s, seat)
    ) else []
    if ph == Phase.DARK:
        return [Action(DARK), Action(LIGHT)]
    if ph == Phase.BIDDING:
        return [Action(PASS)] + [Action(BID, value=v) for v in bid_options(s, seat)] + redeal
    if ph == Phase.TALON:
        if r.players == 2:
            return [Action(TALON, value=1), Action(TALON, value=2), *redeal]
        return [Action(TALON, value=1), *redeal]
    if ph == Phase.PASSING:
        hand = d.hands[d.declarer]
        if r.players == 2:
            kind = GIVE if r.two_player_pass == "give_one" else DISCARD
            out = [Action(kind, card=c) for c in hand]
        else:
            out = [Action(GIVE, card=c) for c in hand]
        if talon_redeal_reason(r, d) is not None:
            out.append(Action(REDEAL))
        return out
    if ph == Phase.CONTRACT:
        out = [Action(CONTRACT, value=v) for v in contract_options(s)]
        if may_concede(s):
            out.append(Action(CONCEDE))
        return out + redeal
    if ph == Phase.PLAY:
        return play_options(s) + redeal
    return []


def forced_action(state: GameState) -> Action | None:
    """The move of the seat to act when it has no choice on public facts alone — its last
    card, or a pass forced by min_total_to_bid or by the cap after its first decision — so
    that playing it at once tells nobody anything about a hand; None otherwise. A move that
    is the only legal one because of the hand (one card of the suit led, one contract
    without a marriage, no redeal to offer) is not forced: answering it at once would
    show the hand."""
    s, d = state, state.deal
    if d is None or s.phase not in (Phase.BIDDING, Phase.PLAY):
        return None
    seat = d.to_act
    legal = legal_actions(s)
    if len(legal) != 1:
        return None
    if s.phase == Phase.PLAY:
        return legal[0] if len(d.hands[seat]) == 1 else None
    r = s.rules
    if hand_redeals_possible(r) and not has_decided(d, seat) and not _went_dark(d, seat):
        return None  # its first decision: a redeal may be offered to another hand
    silenced = r.min_total_to_bid is not None and s.totals[seat] < r.min_total_to_bid
    capped = d.bid + r.bid_step > r.max_bid and not (d.kind == Kind.DARK and not d.unblinded)
    return legal[0] if silenced or capped else None


def seat_actions(state: GameState, seat: int) -> list[Action]:
    """What ``seat`` may do now: its legal actions on its turn, else a late redeal request
    (``redeal_after_pass``) or nothing."""
    if seat == state.to_act:
        return legal_actions(state)
    return out_of_turn_actions(state, seat)


# --- applying actions ---------------------------------------------------------------


def apply(state: GameState, action: Action | str, seat: int | None = None) -> GameState:
    """The state after ``action`` by the seat to act; ``seat`` (if given) must be that seat."""
    if isinstance(action, str):
        action = parse_action(action)
    d = state.deal
    if state.phase == Phase.GAME_OVER:
        raise IllegalAction("the game is over", "game_over")
    if d is None or state.phase == Phase.DEALING:
        raise IllegalAction("no deal in progress: the cards must be dealt first", "no_deal")
    actor = d.to_act
    if seat is not None and seat != d.to_act:
        if action not in out_of_turn_actions(state, seat):
            raise IllegalAction(f"it is seat {d.to_act}'s turn, not seat {seat}'s",
                                "not_your_turn", seat=seat, to_act=d.to_act)
        actor = seat
    else:
        legal = legal_actions(state)
        if action not in legal:
            raise _why_illegal(state, action, legal)
    d = replace(d, actions=(*d.actions, f"{actor}:{action}"))
    s = replace(state, deal=d, version=state.version + 1)
    if action.kind == REDEAL:
        if state.phase == Phase.PASSING:
            reason = talon_redeal_reason(s.rules, d) or "talon"
        else:
            reason = hand_redeal_open(state, actor) or "four_nines_after_pass"
        return _redeal(s, actor, reason)
    return _APPLY[s.phase](s, actor, action)


def _why_illegal(s: GameState, action: Action, legal: list[Action]) -> IllegalAction:
    """Why ``action`` is refused: an English sentence, a code and its parameters."""
    r, d = s.rules, s.deal
    assert d is not None
    seat = d.to_act
    kinds = {a.kind for a in legal}
    hand = d.hands[seat]
    holds = action.kind in (PLAY, DECLARE, GIVE, DISCARD) and action.card in hand
    if action.kind in (PLAY, DECLARE, GIVE, DISCARD) and action.kind in kinds and not holds:
        return IllegalAction(f"{C.fmt(action.card)} is not in seat {seat}'s hand",
                             "card_not_in_hand", card=action.card, seat=seat)
    if action.kind == DECLARE:
        return _why_not_declare(s, action.card)
    if action.kind == REDEAL:
        if s.phase == Phase.PASSING:
            return IllegalAction("a redeal on seeing the talon is not allowed with this talon",
                                 "redeal_talon_not_allowed")
        return IllegalAction(
            "a redeal may be asked only with the seat's first decision of the deal, by a hand "
            "that qualifies (or, with redeal_after_pass, holding four nines until its first "
            "card)", "redeal_not_now")
    if action.kind == CONCEDE and s.phase == Phase.CONTRACT:
        return _why_not_concede(s)
    if action.kind == BID and s.phase == Phase.BIDDING:
        return _why_not_bid(s, action.value, [a.value for a in legal if a.kind == BID])
    if action.kind not in kinds:
        return IllegalAction(f"{action} is not possible now (phase {s.phase}; possible: "
                             f"{', '.join(sorted(kinds))})", "not_now", kind=action.kind,
                             phase=str(s.phase))
    if action.kind == CONTRACT:
        return _why_not_contract(s, action.value, [a.value for a in legal if a.kind == CONTRACT])
    if action.kind == TALON:
        if r.players == 2:
            return IllegalAction("choose talon 1 or 2", "talon_choice")
        return IllegalAction("there is one talon: take it with 'talon 1'", "talon_one")
    if action.kind == PLAY:
        if d.trick:
            led = C.suit_of(d.trick[0][1])
            if any(C.suit_of(c) == led for c in hand):
                return IllegalAction(f"must follow suit ({C.SUITS[led]})", "must_follow",
                                     suit=led)
            return IllegalAction(f"must play a trump ({C.SUITS[d.trump]})", "must_trump",
                                 suit=d.trump)
        return _why_not_lead(s, action.card)
    return IllegalAction(f"{action} is not possible now", "not_now", kind=action.kind,
                         phase=str(s.phase))


def _why_not_lead(s: GameState, card: int) -> IllegalAction:
    r, d = s.rules, s.deal
    assert d is not None
    if r.must_lead_trump and d.trump >= 0 and C.suit_of(card) != d.trump:
        return IllegalAction(
            f"must_lead_trump: on its first lead of the deal a seat holding trumps must lead "
            f"one ({C.SUITS[d.trump]})", "must_lead_trump", suit=d.trump, rule="must_lead_trump")
    if r.no_lead_foreign_trump and d.trump >= 0:
        return IllegalAction(
            f"no_lead_foreign_trump: on its first lead of the deal a seat may not lead the "
            f"trump another seat declared ({C.SUITS[d.trump]}) while it holds other cards",
            "no_lead_foreign_trump", suit=d.trump, rule="no_lead_foreign_trump")
    return IllegalAction(f"{C.fmt(card)} may not be led now", "lead_not_now", card=card)


def _why_not_declare(s: GameState, card: int) -> IllegalAction:
    r, d = s.rules, s.deal
    assert d is not None
    seat = d.to_act
    hand = d.hands[seat]
    if s.phase != Phase.PLAY:
        return IllegalAction("a marriage is declared in play, by the seat on lead",
                             "declare_not_in_play", card=card)
    if card not in hand:
        return IllegalAction(f"{C.fmt(card)} is not in seat {seat}'s hand",
                             "card_not_in_hand", card=card, seat=seat)
    if d.trick:
        return IllegalAction(
            f"declare {C.fmt(card)} is not possible now: a marriage can be declared only by "
            "the player on lead, leading its K or Q", "declare_not_on_lead", card=card)
    if C.rank_of(card) == C.ACE:
        if not r.ace_marriage:
            return IllegalAction("the ace marriage is not played at this table (ace_marriage)",
                                 "declare_ace_marriage_off", rule="ace_marriage")
        if not C.has_four_aces(hand):
            return IllegalAction("the ace marriage needs all four aces in hand",
                                 "declare_no_four_aces")
        if any(m.seat == seat and m.suit == 4 for m in d.declared):
            return IllegalAction("the ace marriage was already declared",
                                 "declare_ace_marriage_done")
        return IllegalAction(
            "the ace marriage can be declared only after taking a trick not won with an ace",
            "declare_ace_needs_trick")
    if C.rank_of(card) not in (C.KING, C.QUEEN):
        return IllegalAction(f"a marriage is declared by leading its K or Q, not {C.fmt(card)}",
                             "declare_not_king_queen", card=card)
    su = C.suit_of(card)
    if su not in C.marriages_in(hand):
        return IllegalAction(f"declare {C.fmt(card)}: the hand does not hold both K and Q of "
                             f"{C.SUITS[su]}", "declare_no_marriage", card=card, suit=su)
    if not (r.stock_mode or r.marriage_first_lead or d.ntricks[seat] > 0):
        return IllegalAction(
            f"declare {C.fmt(card)} is not possible now: a marriage can be declared only by "
            "the player on lead after taking a trick in this deal", "declare_needs_trick",
            card=card)
    return _why_not_lead(s, card)


def _why_not_concede(s: GameState) -> IllegalAction:
    r, d = s.rules, s.deal
    assert d is not None
    if not r.rospis:
        return IllegalAction("concession is not played at this table (rospis)",
                             "concede_rule_off", rule="rospis")
    if r.barrel and s.barrel[d.declarer] >= 0:
        return IllegalAction("a seat on the barrel may not concede", "concede_sitter")
    if r.rospis_barrel_blocks_all and _sitters(s):
        return IllegalAction("rospis_barrel_blocks_all: nobody may concede while a seat sits "
                             "on the barrel", "concede_barrel_blocks_all",
                             rule="rospis_barrel_blocks_all")
    if r.rospis_limit is not None and s.rospis_count[d.declarer] >= r.rospis_limit:
        return IllegalAction(f"rospis_limit: no more than {r.rospis_limit} concessions in a game",
                             "concede_limit", limit=r.rospis_limit, rule="rospis_limit")
    return IllegalAction("a dark game may not be conceded (dark_rospis)", "concede_dark",
                         rule="dark_rospis")


def _why_not_bid(s: GameState, value: int, values: list[int]) -> IllegalAction:
    r, d = s.rules, s.deal
    assert d is not None
    seat = d.to_act
    dark = d.kind == Kind.DARK and not d.unblinded
    if r.min_total_to_bid is not None and s.totals[seat] < r.min_total_to_bid:
        return IllegalAction(
            f"bid {value} refused: min_total_to_bid: a seat whose total "
            f"({s.totals[seat]}) is below {r.min_total_to_bid} may only pass",
            "bid_min_total", total=s.totals[seat], least=r.min_total_to_bid,
            rule="min_total_to_bid")
    if dark:
        if not values:
            return IllegalAction("a dark game can be unblinded only by a seat holding a marriage",
                                 "unblind_needs_marriage")
        return IllegalAction("a dark game is unblinded by a bid of exactly 125",
                             "unblind_only_125", bid=values[0])
    if value % r.bid_step:
        return IllegalAction(f"bid {value} refused: bids go in steps of {r.bid_step}",
                             "bid_step", step=r.bid_step)
    lo = values[0] if values else d.bid + r.bid_step
    if value < lo:
        return IllegalAction(f"bid {value} refused: the least possible bid is {lo}",
                             "bid_too_low", least=lo)
    if value > r.max_bid:
        return IllegalAction(f"bid {value} refused: max_bid: no bid above {r.max_bid}",
                             "bid_above_max", most=r.max_bid, rule="max_bid")
    cap = bid_cap(r, d.hands[seat])
    if value > cap:
        return IllegalAction(
            f"bid {value} refused: the highest bid this hand allows is {cap} (above 120 a bid "
            "needs a marriage)", "bid_needs_marriage", most=cap)
    return IllegalAction(f"bid {value} refused: bid_jumps is off, each raise is one step "
                         f"(only {lo})", "bid_no_jumps", least=lo, rule="bid_jumps")


def _why_not_contract(s: GameState, value: int, values: list[int]) -> IllegalAction:
    r, d = s.rules, s.deal
    assert d is not None
    if d.kind == Kind.DARK:
        return IllegalAction("a dark game is played at 120", "contract_dark")
    if d.kind == Kind.GOLDEN and not r.golden_raise:
        return IllegalAction("a golden deal is played at 120 (golden_raise is off)",
                             "contract_golden", rule="golden_raise")
    if value < d.bid:
        return IllegalAction(f"contract {value} refused: the contract is at least the bid "
                             f"{d.bid}", "contract_below_bid", bid=d.bid)
    if value % r.bid_step:
        return IllegalAction(f"contract {value} refused: contracts go in steps of {r.bid_step}",
                             "bid_step", step=r.bid_step)
    if value > r.max_bid:
        return IllegalAction(f"contract {value} refused: max_bid: no contract above "
                             f"{r.max_bid}", "bid_above_max", most=r.max_bid, rule="max_bid")
    return IllegalAction(
        f"contract {value} refused: the highest contract this hand allows is {values[-1]} "
        "(above 120 a contract needs a marriage)", "contract_needs_marriage", most=values[-1])


def _apply_dark(s: GameState, seat: int, a: Action) -> GameState:
    d = s.deal
    assert d is not None
    if a.kind == DARK:
        s = replace(s, deal=replace(d, kind=Kind.DARK))
    return _start_auction(s)


def _redeal(s: GameState, seat: int, reason: str) -> GameState:
    d = s.deal
    assert d is not None
    n = s.n
    res = DealResult(
        number=d.number,
        dealer=d.dealer,
        kind=d.kind,
        declarer=d.declarer,
        bid=d.bid,
        contract=0,
        outcome="redeal",
        points=(0,) * n,
        scores=(0,) * n,
        totals=s.totals,
        marks=tuple(("redeal",) if i == seat else () for i in range(n)),
        notes=(Note("redeal_" + reason, seat),),
        layout=d.layout,
        actions=d.actions,
    )
    return _next_deal(replace(s, history=(*s.history, res)), same_dealer=True)


def _next_deal(s: GameState, same_dealer: bool = False) -> GameState:
    if s.winner >= 0:
        return replace(s, phase=Phase.GAME_OVER)
    dealer = s.dealer if same_dealer else (s.dealer + 1) % s.n
    s = replace(s, dealer=dealer, phase=Phase.DEALING, deal=None)
    if s.seed is not None:
        return _deal(s, layout_from_seed(derive_seed(s.seed, len(s.history)), s.rules, dealer))
    return s


def _apply_bidding(s: GameState, seat: int, a: Action) -> GameState:
    d = s.deal
    assert d is not None
    if a.kind == PASS:
        passed = list(d.passed)
        passed[seat] = True
        d = replace(d, passed=tuple(passed), bids=(*d.bids, (seat, 0)))
        remaining = [x for x in d.active if not d.passed[x]]
        if len(remaining) == 1:
            return _take_talon(replace(s, deal=d), d.bidder, d.bid)
        return replace(s, deal=replace(d, to_act=_next_bidder(d, seat)))
    unblind = d.kind == Kind.DARK and not d.unblinded
    d = replace(d, bids=(*d.bids, (seat, a.value)), bid=a.value, bidder=seat, raised=True)
    if unblind:
        d = replace(d, kind=Kind.NORMAL, unblinded=True)
        if s.rules.dark_unblind_takes_talon:
            return _take_talon(replace(s, deal=d), seat, a.value)
    return replace(s, deal=replace(d, to_act=_next_bidder(d, seat)))


def _apply_talon(s: GameState, seat: int, a: Action) -> GameState:
    d = s.deal
    assert d is not None
    if s.rules.players != 2:
        return _open_talon(s)
    chosen = d.talon[:2] if a.value == 1 else d.talon[2:]
    rest = d.talon[2:] if a.value == 1 else d.talon[:2]
    hands = list(d.hands)
    hands[seat] = C.sort_hand(hands[seat] + chosen)
    # shown, except in golden and dark deals, whose talon stays hidden (§5.5, §5.6)
    d = replace(d, hands=tuple(hands), talon=rest, talon_taken=chosen, talon_choice=a.value,
                talon_shown=d.kind == Kind.NORMAL)
    return replace(s, phase=Phase.PASSING, deal=d)


def _apply_passing(s: GameState, seat: int, a: Action) -> GameState:
    d = s.deal
    assert d is not None
    hands = list(d.hands)
    hands[seat] = tuple(c for c in hands[seat] if c != a.card)
    if a.kind == DISCARD:
        d = replace(d, hands=tuple(hands), discarded=(*d.discarded, a.card))
    else:
        target = _pass_target(d) if s.n != 2 else next(x for x in d.active if x != seat)
        hands[target] = C.sort_hand((*hands[target], a.card))
        received = list(d.received)
        received[target] = a.card
        d = replace(d, hands=tuple(hands), received=tuple(received),
                    gave=(*d.gave, (target, a.card)))
    s = replace(s, deal=d)
    return _after_passing(s) if _passing_done(s) else s


def _apply_contract(s: GameState, seat: int, a: Action) -> GameState:
    d = s.deal
    assert d is not None
    if a.kind == CONCEDE:
        return _finish_deal(s, conceded=True)
    return _start_play(replace(s, deal=replace(d, contract=a.value)))


def _apply_play(s: GameState, seat: int, a: Action) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    c = a.card
    hands = list(d.hands)
    hands[seat] = tuple(x for x in hands[seat] if x != c)
    leading = not d.trick
    trick_index = len(d.tricks)
    if leading:
        has_led = list(d.has_led)
        has_led[seat] = True
        d = replace(d, has_led=tuple(has_led))
    if a.kind == DECLARE:
        if C.rank_of(c) == C.ACE:
            d = replace(d, declared=(*d.declared, Declared(seat, 4, C.ACE_MARRIAGE_VALUE,
                                                            trick_index)))
        else:
            su = C.suit_of(c)
            d = replace(d, trump=su, declared=(*d.declared, Declared(seat, su,
                                                                     C.MARRIAGE_VALUES[su],
                                                                     trick_index)))
    trick = (*d.trick, (seat, c))
    d = replace(d, hands=tuple(hands), trick=trick)
    if len(trick) < len(d.active):
        return replace(s, deal=replace(d, to_act=_next_in(d.active, seat)))
    # the trick is complete
    win_i = C.trick_winner_index([x for _, x in trick], d.trump if d.trump >= 0 else None)
    winner = trick[win_i][0]
    pts = sum(C.POINTS[x] for _, x in trick)
    taken = list(d.taken)
    ntricks = list(d.ntricks)
    ntricks[winner] += 1
    talon = d.talon
    if r.stock_mode and talon:
        other = next(x for x in d.active if x != winner)
        hands[winner] = C.sort_hand((*hands[winner], talon[0]))
        if len(talon) > 1:
            hands[other] = C.sort_hand((*hands[other], talon[1]))
        talon = talon[2:]
    last = all(not hands[x] for x in d.active)
    if last:
        pts += r.last_trick_bonus
        if r.players == 2 and not r.stock_mode and r.unused_talon_to_last_trick:
            pts += C.hand_points(d.talon)
    taken[winner] += pts
    d = replace(
        d,
        hands=tuple(hands),
        talon=talon,
        trick=(),
        tricks=(*d.tricks, Trick(trick[0][0], trick, winner, d.trump)),
        taken=tuple(taken),
        ntricks=tuple(ntricks),
        leader=winner,
        to_act=winner,
    )
    s = replace(s, deal=d)
    if last:
        return _finish_deal(s, conceded=False)
    return s


def _finish_deal(s: GameState, conceded: bool) -> GameState:
    s = score_deal(s, conceded)
    return _next_deal(s)


_APPLY = {
    Phase.DARK: _apply_dark,
    Phase.BIDDING: _apply_bidding,
    Phase.TALON: _apply_talon,
    Phase.PASSING: _apply_passing,
    Phase.CONTRACT: _apply_contract,
    Phase.PLAY: _apply_play,
}


def play_random_deal(state: GameState, rng: random.Random) -> GameState:
    """Random legal actions until the current deal ends (a helper for tests and benchmarks)."""
    start = len(state.history)
    while state.phase not in (Phase.DEALING, Phase.GAME_OVER) and len(state.history) == start:
        state = apply(state, rng.choice(legal_actions(state)))
    return state


__all__ = [
    "Action",
    "DealResult",
    "GameState",
    "IllegalAction",
    "Layout",
    "Phase",
    "active_seats",
    "apply",
    "bid_cap",
    "deal",
    "derive_seed",
    "layout_from_seed",
    "legal_actions",
    "new_game",
]
