"""The game of Thousand as a pure state machine.

``new_game`` makes a state, ``legal_actions`` lists what the seat to act may do,
``apply`` returns a new state or raises ``IllegalAction`` with a readable reason.
A game with a seed deals itself (deal *k* from ``derive_seed(seed, k)``); a game
without one waits in ``Phase.DEALING`` for ``deal`` with explicit cards.
"""

from __future__ import annotations

import random
from dataclasses import replace

from . import cards as C
from .facts import (
    active_seats,
    bid_cap,
    check_layout,
    defenders,
    derive_seed,
    hand_redeal_open,
    hand_redeal_reason,
    hand_redeals_possible,
    hand_size,
    has_decided,
    late_redeal_open,
    layout_from_seed,
    next_in,
    out_of_turn_actions,
    sitters,
    talon_redeal_reason,
    went_dark,
)
from .refusals import why_illegal
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


def _dark_offered(s: GameState) -> bool:
    r, d = s.rules, s.deal
    assert d is not None
    if not r.dark_play or d.kind != Kind.NORMAL:
        return False
    on_barrel = sitters(s)
    if on_barrel and not r.dark_on_barrel:
        return False
    return not (d.forehand in on_barrel and r.barrel_min_bid > 120)


def _start_auction(s: GameState) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    if d.kind == Kind.GOLDEN:
        return _take_talon(s, d.forehand, 120)
    if d.kind == Kind.DARK and not r.dark_unblind:
        return _take_talon(s, d.forehand, 120)
    if d.kind == Kind.NORMAL and r.barrel and r.barrel_bidding == "sitter_takes_talon":
        on_barrel = [seat for seat in d.active if s.barrel[seat] >= 0]
        if on_barrel:
            return _take_talon(s, on_barrel[0], r.barrel_min_bid)
    if d.kind == Kind.DARK:
        opening = 120
    elif s.barrel[d.forehand] >= 0:
        opening = r.barrel_min_bid
    else:
        opening = 100
    d = replace(d, bids=((d.forehand, opening),), bid=opening, bidder=d.forehand)
    d = replace(d, to_act=_next_bidder(d, d.forehand))
    return replace(s, phase=Phase.BIDDING, deal=d)


def _next_bidder(d: DealState, seat: int) -> int:
    nxt = next_in(d.active, seat)
    while d.passed[nxt]:
        nxt = next_in(d.active, nxt)
    return nxt


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
            and not went_dark(d, declarer))


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
    if r.rospis_barrel_blocks_all and sitters(s):
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
    if hand_redeals_possible(r) and not has_decided(d, seat) and not went_dark(d, seat):
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
            raise why_illegal(state, action, legal)
    d = replace(d, actions=(*d.actions, f"{actor}:{action}"))
    s = replace(state, deal=d, version=state.version + 1)
    if action.kind == REDEAL:
        if state.phase == Phase.PASSING:
            reason = talon_redeal_reason(s.rules, d) or "talon"
        else:
            reason = hand_redeal_open(state, actor) or "four_nines_after_pass"
        return _redeal(s, actor, reason)
    return _APPLY[s.phase](s, actor, action)


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
        return replace(s, deal=replace(d, to_act=next_in(d.active, seat)))
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


__all__ = [  # with the facts of a deal that callers take from here
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
    "defenders",
    "derive_seed",
    "forced_action",
    "hand_redeal_reason",
    "hand_size",
    "layout_from_seed",
    "legal_actions",
    "new_game",
    "out_of_turn_actions",
    "play_random_deal",
    "seat_actions",
    "talon_redeal_reason",
]
