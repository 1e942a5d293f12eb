"""What a seat may know (``view``) and what the group may see (``public_view``).

Every message and every computer player is built from these, never from the
full state: a view holds no other seat's hand, no hidden talon, no card passed
to somebody else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cards import Card
from .game import legal_actions, out_of_turn_actions
from .rules import Rules
from .state import Action, DealResult, Declared, GameState, Kind, Layout, Phase, Trick

_NO_LAYOUT = Layout((), ())


@dataclass(frozen=True, slots=True)
class TableView:
    seat: int  # -1: the public view
    rules: Rules
    phase: Phase
    version: int
    number: int  # the deal's number, 0 before the first deal
    kind: Kind
    dealer: int
    forehand: int
    active: tuple[int, ...]
    to_act: int
    hand: tuple[Card, ...]  # this seat's hand (empty in the public view)
    hand_sizes: tuple[int, ...]
    bids: tuple[tuple[int, int], ...]
    bid: int
    bidder: int
    passed: tuple[bool, ...]
    declarer: int
    contract: int
    talon: tuple[Card, ...]  # talon cards this viewer may see
    talon_shown: bool  # shown to everybody
    talon_size: int  # cards still lying in the talon or stock
    received: Card  # the card this seat received from the declarer, -1 none
    gave: tuple[tuple[int, Card], ...]  # the declarer's own view: cards it gave
    gave_count: int
    discarded: tuple[Card, ...]  # the declarer's own view (two players)
    trump: int
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[Trick, ...]
    declared: tuple[Declared, ...]
    taken: tuple[int, ...]
    ntricks: tuple[int, ...]
    totals: tuple[int, ...]
    bolts: tuple[int, ...]
    bolts_game: tuple[int, ...]
    rospis_count: tuple[int, ...]
    falls: tuple[int, ...]
    barrel: tuple[int, ...]
    golden_left: int
    history: tuple[DealResult, ...]  # results without cards or actions
    winner: int
    legal: tuple[Action, ...]  # what this seat may do now (empty if not its turn)
    # what this seat may do although it is not its turn: a redeal request with four nines
    # (redeal_after_pass); empty in the public view
    offers: tuple[Action, ...] = ()

    @property
    def n(self) -> int:
        return self.rules.players


def _strip(res: DealResult) -> DealResult:
    return replace(res, layout=_NO_LAYOUT, actions=())


# The stripped history of the last states viewed, by the identity of their history tuple
# (states share it until a deal ends, and every view of every seat strips the same one):
# each entry keeps its tuple, so an id is never taken for another's while it is here.
# Views are made on the computer players' threads too: only atomic dict steps here.
_HISTORIES: dict[int, tuple[tuple[DealResult, ...], tuple[DealResult, ...]]] = {}
_HISTORIES_KEPT = 256


def _stripped(history: tuple[DealResult, ...]) -> tuple[DealResult, ...]:
    if not history:
        return ()
    got = _HISTORIES.get(id(history))
    if got is not None and got[0] is history:
        return got[1]
    out = tuple(_strip(h) for h in history)
    if len(_HISTORIES) >= _HISTORIES_KEPT:
        _HISTORIES.clear()  # (one atomic step: computer players view states on threads)
    _HISTORIES[id(history)] = (history, out)
    return out


def _view(state: GameState, seat: int) -> TableView:
    n = state.n
    d = state.deal
    history = _stripped(state.history)
    common = dict(
        seat=seat,
        rules=state.rules,
        phase=state.phase,
        version=state.version,
        totals=state.totals,
        bolts=state.bolts,
        bolts_game=state.bolts_game,
        rospis_count=state.rospis_count,
        falls=state.falls,
        barrel=state.barrel,
        golden_left=state.golden_left,
        history=history,
        winner=state.winner,
    )
    if d is None:
        return TableView(
            number=len(state.history), kind=Kind.NORMAL, dealer=state.dealer, forehand=-1,
            active=(), to_act=-1, hand=(), hand_sizes=(0,) * n, bids=(), bid=0, bidder=-1,
            passed=(False,) * n, declarer=-1, contract=0, talon=(), talon_shown=False,
            talon_size=0, received=-1, gave=(), gave_count=0, discarded=(), trump=-1,
            trick=(), tricks=(), declared=(), taken=(0,) * n, ntricks=(0,) * n, legal=(),
            **common,  # type: ignore[arg-type]
        )
    own = 0 <= seat < n
    hand = d.hands[seat] if own else ()
    if own and state.phase == Phase.DARK and seat == d.forehand:
        hand = ()  # the forehand decides on a dark game before looking at its cards
    talon = d.talon_taken if d.talon_shown or (own and seat == d.declarer) else ()
    is_declarer = own and seat == d.declarer
    passed_open = d.unblinded or (not state.rules.pass_face_down and d.kind == Kind.NORMAL)
    legal = tuple(legal_actions(state)) if own and seat == state.to_act else ()
    offers = tuple(out_of_turn_actions(state, seat)) if own and seat != state.to_act else ()
    return TableView(
        number=d.number,
        kind=d.kind,
        dealer=d.dealer,
        forehand=d.forehand,
        active=d.active,
        to_act=state.to_act,
        hand=hand,
        hand_sizes=tuple(len(h) for h in d.hands),
        bids=d.bids,
        bid=d.bid,
        bidder=d.bidder,
        passed=d.passed,
        declarer=d.declarer,
        contract=d.contract,
        talon=talon,
        talon_shown=d.talon_shown,
        talon_size=len(d.talon),
        received=d.received[seat] if own else -1,
        gave=d.gave if is_declarer or passed_open else (),
        gave_count=len(d.gave),
        discarded=d.discarded if is_declarer else (),
        trump=d.trump,
        trick=d.trick,
        tricks=d.tricks,
        declared=d.declared,
        taken=d.taken,
        ntricks=d.ntricks,
        legal=legal,
        offers=offers,
        **common,  # type: ignore[arg-type]
    )


def view(state: GameState, seat: int) -> TableView:
    """What ``seat`` may know now."""
    if not 0 <= seat < state.n:
        raise ValueError(f"no seat {seat} at a table of {state.n}")
    return _view(state, seat)


def public_view(state: GameState) -> TableView:
    """What everybody at the table may see."""
    return _view(state, -1)
