"""Why an action is illegal: the readable, coded ``IllegalAction`` that ``game.apply``
raises for an action outside ``legal_actions`` (a wrong bid, a card that must not be led,
a marriage that cannot be declared, a concession or a contract out of place)."""

from __future__ import annotations

from . import cards as C
from .facts import bid_cap, sitters
from .state import (
    BID,
    CONCEDE,
    CONTRACT,
    DECLARE,
    DISCARD,
    GIVE,
    PLAY,
    REDEAL,
    TALON,
    Action,
    GameState,
    IllegalAction,
    Kind,
    Phase,
)


def why_illegal(s: GameState, action: Action, legal: list[Action]) -> IllegalAction:
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
    if r.rospis_barrel_blocks_all and sitters(s):
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
