"""Why ``hard`` plays what it plays (a hint for a person), and the open-card analysis of a
finished deal.

``hint(view, seed, deadline)`` returns the action ``hard`` would take in the seat's own view
and a short structured reason (``Reason``: a code and parameters, translated by the
Telegram layer through the catalog keys ``why.<code>``). Reasons come from ``hard``'s own
evaluation (the sampled deals and the solver's results for each card, the chance of a bid or
contract) and from public facts (the cards played); the only cards they name are the
seat's own and cards already played, so a hint never shows what the seat cannot see.

``analyse(state, number, deadline)`` looks at a finished deal with every hand open (the deal
is over: its cards may be shown): the exact solver's value of the play from its first card,
whether the contract could have been made, and the first card that turned a made contract
into a failed one (the declarer's mistake) or a failed one into a made one (the defenders').
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from bot.engine import cards as C
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import apply_recorded, split_action
from bot.engine.state import (
    BID,
    CONCEDE,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    LIGHT,
    PLAY,
    REDEAL,
    TALON,
    Action,
    GameState,
    Phase,
    parse_action,
)
from bot.engine.views import TableView

from . import hard, normal
from .evaluate import HARD_WEIGHTS7, fitted_points
from .knowledge import Knowledge
from .solver import Solver, Timeout, to_mask

HINT_THINK = 0.6  # seconds of sampling behind a hint (the answer must come within 1 s)
HINT_SAMPLES = 24  # at most (as many as before issue 21: a hint stays as quick)


@dataclass(frozen=True, slots=True)
class Reason:
    """``code`` names the catalog key ``why.<code>``; ``params`` fill it (cards as card
    numbers under the names ``card`` and ``gone``, chances in per cent)."""

    code: str
    params: tuple[tuple[str, int], ...] = ()

    def get(self, name: str, default: int = 0) -> int:
        return dict(self.params).get(name, default)


@dataclass(frozen=True, slots=True)
class Hint:
    action: Action
    reasons: tuple[Reason, ...]  # the main reason first, then (maybe) a chance


def _rng(view: TableView, seed: int) -> random.Random:
    return random.Random(f"hint:{seed}:{view.number}:{view.version}:{view.seat}")


def hint(view: TableView, seed: int = 0, deadline: float | None = None) -> Hint:
    """What ``hard`` would do in this view, and why (``view.legal`` must not be empty)."""
    if not view.legal:
        raise ValueError("the seat has nothing to do")
    now = time.monotonic()
    deadline = min(deadline if deadline is not None else now + HINT_THINK, now + hard.HARD_CAP)
    rng = _rng(view, seed)
    legal = view.legal
    if len(legal) == 1:
        return Hint(legal[0], (Reason("only"),))
    ph = view.phase
    if Action(DARK) in legal:
        return Hint(Action(LIGHT), (Reason("light"),))
    if ph != Phase.PASSING and Action(REDEAL) in legal:
        late = normal.late_redeal(view)  # four nines after the pass
        if len(view.active) == 3 and len(view.hand) == 7 and not late:
            est = fitted_points(view.hand, HARD_WEIGHTS7)
            ask = est < 90
        else:  # ``normal``'s choice, and the estimate it is made on
            est = normal.hand_estimate(view, view.hand, with_talon=not late)
            ask = normal.choose_redeal(view) == Action(REDEAL)
        if ask:
            if late and view.seat != view.declarer:  # a defender takes it whatever the hand
                return Hint(Action(REDEAL), (Reason("redeal_nines"),))
            return Hint(Action(REDEAL), (Reason("redeal", (("value", round(est)),)),))
        view = normal.without_redeal(view)
        if len(view.legal) == 1:
            keep = "nines_bonus" if late and view.rules.four_nines_bonus else "no_redeal"
            return Hint(view.legal[0], (Reason(keep),))
    three = len(view.active) == 3
    if ph == Phase.PLAY and not view.rules.stock_mode:
        h = _play_hint(view, rng, deadline)
        if h is not None:
            return h
    elif three and ph == Phase.BIDDING and view.kind.value != "dark":
        act, p = hard.bid_decision(view, rng, deadline)
        return Hint(act, (Reason("bid" if act.kind == BID else "pass",
                                 (("pct", _pct(p)), ("value", _lowest_bid(view)))),))
    elif three and ph == Phase.PASSING:
        act = hard.choose_pass(view)
        if act.kind == REDEAL:
            return Hint(act, (Reason("redeal_talon"),))
        return Hint(act, (_give_reason(view, act.card),))
    elif three and ph == Phase.CONTRACT:
        act, p = hard.contract_decision(view, rng, deadline)
        if act.kind == CONCEDE:
            return Hint(act, (Reason("concede", (("pct", _pct(p)),)),))
        return Hint(act, (Reason("contract", (("pct", _pct(p)), ("value", act.value))),))
    act = normal.choose(view, rng)
    if act not in view.legal:
        act = view.legal[0]
    if act.kind in (PLAY, DECLARE):
        return Hint(act, (_card_reason(view, act) or Reason("quick"),))
    if act.kind in (GIVE, DISCARD):
        return Hint(act, (_give_reason(view, act.card),))
    if act.kind == TALON:
        return Hint(act, (Reason("talon"),))
    return Hint(act, (Reason("estimate"),))


def _pct(p: float) -> int:
    return max(0, min(100, round(100 * p)))


def _lowest_bid(view: TableView) -> int:
    bids = [a.value for a in view.legal if a.kind == BID]
    return min(bids) if bids else view.bid


def _give_reason(view: TableView, card: int) -> Reason:
    hand = set(view.hand)
    su = C.suit_of(card)
    if C.rank_of(card) in (C.KING, C.QUEEN):
        other = C.card(C.QUEEN if C.rank_of(card) == C.KING else C.KING, su)
        if other not in hand:
            return Reason("give_loose", (("card", card),))
    return Reason("give_cheap", (("card", card),))


def _play_hint(view: TableView, rng: random.Random, deadline: float) -> Hint | None:
    scores = hard.play_scores(view, rng, deadline, HINT_SAMPLES)
    if scores is None:
        return None
    return play_hint(view, rng, scores)


def play_hint(view: TableView, rng: random.Random, scores: hard.PlayScores) -> Hint:
    """``hard``'s card from its search's ``scores`` and why: a fact of the position when
    one is true of that card, else what the search found; then the declarer's chance."""
    act = hard.pick_play(view, rng, scores)
    i = scores.moves.index(act)
    share = scores.share(i)
    decl = view.seat == view.declarer
    # "fit": the deals were weighted by the other seats' bids and play (``inference``)
    fit = "_fit" if scores.inferred else ""
    pct = ("pct", _pct(share if decl else 1.0 - share))
    chance = (Reason("made_pct" + fit, (pct,)) if decl
              else Reason("beaten_pct" + fit, (pct, ("seat", view.declarer))))
    why = _card_reason(view, act)
    if why is None:
        same = max(scores.made) - min(scores.made) <= 1e-9 * max(scores.weight, 1.0)
        why = Reason("search_points" if same else "search_best")
    return Hint(act, (why, chance))


def _played(view: TableView) -> set[int]:
    out = {c for tr in view.tricks for _, c in tr.cards}
    out.update(c for _, c in view.trick)
    return out


def may_hold(view: TableView) -> dict[int, frozenset[int]]:
    """For each other seat in play, every card it may hold in some layout consistent with
    what this seat knows (``Knowledge``'s places of the unseen cards: the voids shown, the
    cards passed and declared; a superset, as the hand sizes are not counted). Without that
    knowledge (the stock game) every unseen card may be anywhere."""
    others = [s for s in view.active if s != view.seat]
    played = _played(view)
    unseen = frozenset(c for c in C.DECK if c not in view.hand and c not in played
                       and c not in view.discarded)
    if view.phase != Phase.PLAY or view.rules.stock_mode or view.declarer < 0:
        return {s: unseen for s in others}
    know = Knowledge(view)
    out: dict[int, frozenset[int]] = {}
    for s in others:
        bit = 1 << know.places.index(s)
        out[s] = frozenset(c for c in know.unknown if know.allowed[c] & bit)
    return out


def _later(view: TableView) -> list[int]:
    """The seats that play to the current trick after this one."""
    order = view.active
    k = len(order)
    i = order.index(view.seat)
    return [order[(i + j) % k] for j in range(1, k - len(view.trick))]


def _stays(best: int, later: list[int], hold: dict[int, frozenset[int]],
           trump: int | None) -> bool:
    """Whether no later seat can beat ``best`` whatever it holds of ``hold``."""
    return not any(C.beats(c, best, trump) for s in later for c in hold[s])


def _card_reason(view: TableView, act: Action,
                 hold: dict[int, frozenset[int]] | None = None) -> Reason | None:
    """Why this card, in facts of the position that are true against every layout the
    seat cannot rule out (it names only its own cards and cards already played); None
    when no such fact explains the card."""
    card = act.card
    su, rank = C.suit_of(card), C.rank_of(card)
    if act.kind == DECLARE:
        if rank == C.ACE:
            return Reason("ace_marriage", (("card", card), ("value", C.ACE_MARRIAGE_VALUE)))
        return Reason("marriage", (("card", card), ("value", C.MARRIAGE_VALUES[su])))
    if hold is None:
        hold = may_hold(view)
    played = _played(view)
    hand = set(view.hand)
    unseen = set().union(*hold.values()) if hold else set()
    higher = [C.card(r, su) for r in range(rank + 1, 6)]
    gone = [c for c in higher if c in played]
    top = not any(c in unseen for c in higher)  # nobody else may hold a higher card
    trump = view.trump if view.trump >= 0 else None
    later = _later(view)
    cheapest = C.points(card) == min(C.points(a.card) for a in view.legal
                                      if a.kind in (PLAY, DECLARE))
    if not view.trick:  # leading
        if _stays(card, later, hold, trump):
            if gone:
                return Reason("top_left", (("card", card), ("gone", max(gone))))
            return Reason("lead_wins", (("card", card),))
        if top and trump is not None and su != trump:
            return Reason("lead_top", (("card", card),))
        if trump is not None and su == trump and any(
                C.suit_of(c) == trump for s in later for c in hold[s]):
            return Reason("draw_trumps", (("card", card),))
        mine = [c for c in hand if C.suit_of(c) == su]
        if card == min(mine) and len(mine) > 1:
            return Reason("lead_low", (("card", card),))
        if cheapest:
            return Reason("lead_cheap", (("card", card),))
        return None
    cards = [c for _, c in view.trick]
    best_i = C.trick_winner_index(cards, trump)
    best_seat, best = view.trick[best_i]
    if C.beats(card, best, trump):
        if not later:
            return Reason("takes_last", (("card", card),))
        if _stays(card, later, hold, trump):
            if trump is not None and su == trump and C.suit_of(cards[0]) != trump:
                return Reason("trumps_in", (("card", card),))
            if gone:
                return Reason("top_left", (("card", card), ("gone", max(gone))))
            return Reason("takes", (("card", card),))
        return Reason("beats_now", (("card", card),))
    partner = (view.seat != view.declarer and best_seat != view.declarer
               and view.declarer >= 0)
    if partner and C.points(card) > 0 and _stays(best, later, hold, trump):
        return Reason("load_partner", (("card", card),))
    if cheapest:
        can_beat = any(C.beats(a.card, best, trump) for a in view.legal if a.kind == PLAY)
        return Reason("duck_cheap" if can_beat else "cheap", (("card", card),))
    return None


# --------------------------------------------------------------------------- analysis


@dataclass(frozen=True, slots=True)
class Mistake:
    seat: int
    card: int
    trick: int  # 1-based number of the trick the card was played to
    declarer_side: bool  # the declarer's mistake (made → failed), else the defenders'


@dataclass(frozen=True, slots=True)
class Analysis:
    number: int
    declarer: int
    contract: int
    outcome: str  # the deal's outcome (made, failed, conceded, …)
    value: int | None  # the solver's value of the play from its first card (None: no time)
    makeable: bool  # could the declarer reach the contract with every hand open
    mistake: Mistake | None
    complete: bool  # every card was checked (False: the deadline came first)


@dataclass(frozen=True, slots=True)
class _Position:
    order: tuple[int, ...]
    hands: list[int]
    turn: int
    trick: list[tuple[int, int]]
    trump: int
    won: int
    need: int  # the declarer's points still needed for the contract


def play_of_deal(state: GameState, number: int) -> tuple[GameState, list[tuple[int, Action]]]:
    """The full state just before the first card of deal ``number`` and the play that
    followed (card and marriage moves by seat), replayed from the game's seed and actions.
    ValueError when the deal had no play (a redeal, a concession, the stock game)."""
    if state.seed is None:
        raise ValueError("a game without a seed")
    if not 1 <= number <= len(state.history):
        raise ValueError("no such finished deal")
    res = state.history[number - 1]
    if res.declarer < 0 or res.outcome not in ("made", "failed") or state.rules.stock_mode:
        raise ValueError("the deal had no play")
    st = new_game(state.rules, state.seed)
    for h in state.history[:number - 1]:
        for text in h.actions:
            seat, a = split_action(text)
            st = apply_recorded(st, parse_action(a), seat)
    start: GameState | None = None
    moves: list[tuple[int, Action]] = []
    for text in res.actions:
        seat, a = split_action(text)
        action = parse_action(a)
        if action.kind in (PLAY, DECLARE):
            if start is None:
                # a contract step the record leaves implied is taken before the first card
                start = _implied_contract(st, seat) if st.phase == Phase.CONTRACT else st
            moves.append((seat, action))
        st = apply_recorded(st, action, seat)
    if start is None:
        raise ValueError("the deal had no play")
    return start, moves


def _implied_contract(st: GameState, seat: int) -> GameState:
    """The state after a contract step the record leaves out (older records)."""
    only = legal_actions(st)
    return apply(st, only[0], seat) if len(only) == 1 else st


def _position(st: GameState) -> _Position:
    d = st.deal
    assert d is not None
    order = d.active
    pos = {s: i for i, s in enumerate(order)}
    won = 0
    for s in order:
        if d.ntricks[s] > 0:
            won |= 1 << pos[s]
    decl_pts = d.taken[d.declarer] + sum(m.value for m in d.declared if m.seat == d.declarer)
    return _Position(order, [to_mask(d.hands[s]) for s in order], pos[d.to_act],
                     [(pos[s], c) for s, c in d.trick], d.trump, won,
                     d.contract - decl_pts)


def _solver(st: GameState, deadline: float | None) -> Solver:
    d = st.deal
    assert d is not None
    order = d.active
    r = st.rules
    # the declarer's own points decide: the defenders' marriages do not count against them
    return Solver(len(order), order.index(d.declarer), r.marriage_first_lead,
                  r.last_trick_bonus, deadline,
                  defender_marriages=False)


def _reaches_after(st: GameState, seat: int, action: Action, deadline: float | None) -> bool:
    """Does the declarer reach the contract after this move, every hand open?"""
    p = _position(st)
    solver = _solver(st, deadline)
    d = st.deal
    assert d is not None
    me = p.order.index(seat)
    extra = 0
    declare = action.kind == DECLARE
    if declare and C.rank_of(action.card) == C.ACE:
        extra = C.ACE_MARRIAGE_VALUE if seat == d.declarer else -C.ACE_MARRIAGE_VALUE
        declare = False
    t = p.need
    v = extra + solver.value_after(p.hands, me, p.trick, p.trump, p.won, action.card, declare,
                                   t - 1 - extra, t - extra)
    return v >= t


def analyse(state: GameState, number: int, deadline: float | None = None) -> Analysis:
    """The open-card analysis of finished deal ``number`` of the game in ``state``
    (ValueError when the deal had no play)."""
    start, moves = play_of_deal(state, number)
    res = state.history[number - 1]
    d = start.deal
    assert d is not None
    p = _position(start)
    value: int | None = None
    try:
        value = _solver(start, deadline).value(p.hands, p.turn, p.trick, p.trump, p.won)
        makeable = value >= p.need
    except Timeout:
        try:
            t = p.need
            makeable = _solver(start, deadline).value(
                p.hands, p.turn, p.trick, p.trump, p.won, t - 1, t) >= t
        except Timeout:
            makeable = res.outcome == "made"
    reach = makeable
    mistake: Mistake | None = None
    complete = True
    st = start
    for seat, action in moves:
        dd = st.deal
        assert dd is not None
        if sum(len(h) for h in dd.hands) <= 1:
            break
        try:
            after = _reaches_after(st, seat, action, deadline)
        except Timeout:
            complete = False
            break
        if after != reach:
            mistake = Mistake(seat, action.card, len(dd.tricks) + 1, reach)
            break
        st = apply(st, action, seat)
    return Analysis(number, res.declarer, res.contract, res.outcome, value, makeable,
                    mistake, complete)
