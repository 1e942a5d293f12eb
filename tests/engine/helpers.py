"""Building positions for the engine tests: explicit deals, scripted play, standard deals.

Seats are numbered clockwise; with dealer ``d`` the forehand is ``d + 1``. Hands are given
by seat. The standard deals below are built so that their result is forced (SWEEP: one
hand takes every trick whatever the others play) or played by a script (SCRIPT_98,
HEARTS_220); the comments give the tricks, so every number the tests assert can be
checked by hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.engine import cards as C
from bot.engine.cards import DECK, Card, parse_cards
from bot.engine.game import apply, deal, hand_redeal_reason, legal_actions, new_game
from bot.engine.rules import Rules, make_rules
from bot.engine.state import DECLARE, PLAY, Action, DealResult, GameState, Layout, Phase

# --- cards and layouts ---------------------------------------------------------------


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def card(text: str) -> Card:
    (c,) = parse_cards(text)
    return c


def layout(hands: Sequence[str], talon: str) -> Layout:
    """A layout by seat; checks that each of the 24 cards is dealt exactly once."""
    lay = Layout(tuple(cards(h) for h in hands), cards(talon))
    every = [c for h in lay.hands for c in h] + list(lay.talon)
    assert len(every) == len(set(every)), "a card is dealt twice"
    assert len(every) == 24 and set(every) == set(DECK), "the deal must use the 24 cards"
    return lay


# --- positions -----------------------------------------------------------------------


def new(rules: Rules | None = None, *, dealer: int = 0, **position: Any) -> GameState:
    """A game without a seed waiting for its cards.

    ``position`` replaces fields of the GameState (totals, barrel, bolts, falls, …): a
    position built by hand with ``dataclasses.replace`` to reach e.g. a seat on the barrel
    without playing the deals that lead there.
    """
    s = new_game(rules if rules is not None else make_rules(), first_dealer=dealer)
    return replace(s, **position) if position else s


def start(
    rules: Rules | None, hands: Sequence[str], talon: str, *, dealer: int = 0, **position: Any
) -> GameState:
    """``new`` then deal explicit hands (by seat)."""
    return deal(new(rules, dealer=dealer, **position), layout(hands, talon))


def do(state: GameState, *steps: str) -> GameState:
    """Apply steps written ``"SEAT action"`` (``"1 bid 105"``); the seat must be the one to act.

    A declarer of three or four players that takes the talon by hand (phase TALON) takes it
    before any step of its other than ``talon 1`` or ``redeal``."""
    for step in steps:
        seat, action = step.split(" ", 1)
        if (state.phase == Phase.TALON and state.to_act == int(seat)
                and not action.startswith(("talon", "redeal"))):
            state = take_talon(state)
        state = apply(state, action, seat=int(seat))
    return state


def legal(state: GameState) -> list[str]:
    return [str(a) for a in legal_actions(state)]


def bids(state: GameState) -> list[int]:
    """The bids the seat to act may make."""
    return [a.value for a in legal_actions(state) if a.kind == "bid"]


def result(state: GameState) -> DealResult:
    return state.history[-1]


def note_codes(res: DealResult) -> list[str]:
    return [n.code for n in res.notes]


def play_out(state: GameState, prefer: Mapping[int, str] | None = None) -> GameState:
    """Play the current deal to its end.

    Each seat plays the first card of its ``prefer`` list (``"*K♥"`` = declare the marriage
    with K♥) that is legal now, else its first legal plain card. Cards of the list that were
    already played are skipped, so a list in playing order is a script.
    """
    start_len = len(state.history)
    wants: dict[int, list[tuple[str, Card]]] = {}
    for seat, text in (prefer or {}).items():
        items = []
        for tok in text.split():
            kind = DECLARE if tok.startswith("*") else PLAY
            items.append((kind, card(tok.lstrip("*"))))
        wants[seat] = items
    while len(state.history) == start_len:
        assert state.phase == Phase.PLAY, f"the deal stopped in phase {state.phase}"
        options = legal_actions(state)
        chosen: Action | None = None
        for kind, c in wants.get(state.to_act, []):
            if Action(kind, card=c) in options:
                chosen = Action(kind, card=c)
                break
        if chosen is None:
            chosen = next(a for a in options if a.kind == PLAY)
        state = apply(state, chosen)
    return state


# --- standard deals --------------------------------------------------------------------

# SWEEP: the hand with every ace and ten (A♥'s ten is in the talon) takes all 8 tricks
# whatever the others play: it leads an ace then the ten of each suit, and nobody else
# ever leads, so nobody can declare a marriage. It gives away 9♠ and J♣.
SWEEP_HAND = "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥"
SWEEP_OTHER_1 = "K♠ Q♠ J♠ K♣ Q♣ 9♣ 9♦"  # 16 points, marriages ♠ ♣
SWEEP_OTHER_2 = "9♥ K♦ Q♦ J♦ K♥ Q♥ J♥"  # 18 points, marriages ♦ ♥
SWEEP_TALON = "10♥ 9♠ J♣"
SWEEP_GIVE = ("9♠", "J♣")


def deal_sweep(state: GameState, declarer: int) -> GameState:
    """Deal the SWEEP layout (three players) with the winning hand at ``declarer``."""
    n = state.n
    assert n == 3
    others = [s for s in ((declarer + 1) % n, (declarer + 2) % n)]
    hands = [""] * n
    hands[declarer] = SWEEP_HAND
    hands[others[0]] = SWEEP_OTHER_1
    hands[others[1]] = SWEEP_OTHER_2
    return deal(state, layout(hands, SWEEP_TALON))


def auction(state: GameState, declarer: int, bid: int | None = None) -> GameState:
    """Every seat passes except ``declarer``, which bids ``bid`` once (if it is not the
    forehand holding the opening already)."""
    while state.phase == Phase.BIDDING:
        d = state.deal
        assert d is not None
        if state.to_act == declarer and d.bidder != declarer and bid is not None:
            state = apply(state, f"bid {bid}")
        else:
            state = apply(state, "pass")
    return take_talon(state)


def take_talon(state: GameState) -> GameState:
    """Three or four players: a declarer that made no decision yet takes the talon by hand
    (``talon 1``, its private chance to ask for a redeal, RULES.md §2.3)."""
    if state.phase == Phase.TALON and state.n != 2:
        state = apply(state, "talon 1")
    return state


def sweep(
    state: GameState,
    declarer: int,
    bid: int | None = None,
    contract: int | None = None,
    first: Sequence[str] = (),
) -> GameState:
    """A whole SWEEP deal: ``declarer`` wins the auction (bidding ``bid`` if it is not the
    forehand), passes 9♠ and J♣, names ``contract`` (default: its bid) and takes all 8
    tricks (120 card points); the other two take no trick. ``first``: steps applied right
    after dealing (``"1 dark"``)."""
    state = auction(do(deal_sweep(state, declarer), *first), declarer, bid)
    for c in SWEEP_GIVE:
        state = apply(state, f"give {c}")
    if state.phase == Phase.CONTRACT:
        d = state.deal
        assert d is not None
        state = apply(state, f"contract {contract if contract is not None else d.bid}")
    return play_out(state)


def concede_deal(
    state: GameState, declarer: int, bid: int | None = None, first: Sequence[str] = ()
) -> GameState:
    """A SWEEP deal that ``declarer`` concedes after taking the talon."""
    state = auction(do(deal_sweep(state, declarer), *first), declarer, bid)
    for c in SWEEP_GIVE:
        state = apply(state, f"give {c}")
    return apply(state, "concede")


# SCRIPT_98: dealer 0, the forehand (seat 1) declares 100 and takes exactly 98 card points;
# seat 2 takes one trick of 17 (K♣ 10♣ Q♣), seat 0 one trick of 5 (9♦ Q♦ J♦).
#   T1 A♠ J♠ 9♠  T2 10♠ Q♠ K♠  T3 A♥ 9♥ J♥  T4 10♥ K♥ Q♥  T5 A♣ J♣ 9♣   (seat 1: 30+30+13)
#   T6 K♣ 10♣ Q♣ → seat 2 (17)  T7 9♦ Q♦ J♦ → seat 0 (5)  T8 10♦ A♦ K♦ → seat 1 (25)
SCRIPT_98_HANDS = (
    "9♠ K♠ J♥ Q♥ 9♣ Q♣ Q♦",  # seat 0: 15 points, no marriage
    "A♠ 10♠ A♥ 10♥ A♣ K♣ 9♦",  # seat 1, the forehand
    "J♠ Q♠ 9♥ K♥ J♣ 10♣ K♦",  # seat 2
)
SCRIPT_98_TALON = "J♦ A♦ 10♦"
SCRIPT_98_GIVE = ("9♦", "10♦")  # 9♦ to seat 2, 10♦ to seat 0
SCRIPT_98_PLAY = {
    1: "A♠ 10♠ A♥ 10♥ A♣ K♣ J♦ A♦",
    2: "J♠ Q♠ 9♥ K♥ J♣ 10♣ 9♦ K♦",
    0: "9♠ K♠ J♥ Q♥ 9♣ Q♣ Q♦ 10♦",
}


def script_98(
    state: GameState | None = None,
    contract: int = 100,
    *,
    variant: int = 98,
    first: Sequence[str] = (),
    bid: int | None = None,
) -> GameState:
    """Deal SCRIPT_98 (or SCRIPT_97 with ``variant=97``) to ``state`` (waiting for cards;
    default a new game): seat 1 wins the auction — at its opening as the forehand of dealer
    0, else by bidding ``bid`` —, names ``contract`` if asked and the deal is played by the
    script (the same tricks whoever deals)."""
    s = state if state is not None else new()
    assert s.phase == Phase.DEALING
    hands, play = (SCRIPT_98_HANDS, SCRIPT_98_PLAY) if variant == 98 else (
        SCRIPT_97_HANDS, SCRIPT_97_PLAY)
    s = do(deal(s, layout(hands, SCRIPT_98_TALON)), *first)
    s = auction(s, 1, bid)
    for c in SCRIPT_98_GIVE:
        s = apply(s, f"give {c}")
    if s.phase == Phase.CONTRACT:
        s = apply(s, f"contract {contract}")
    return play_out(s, play)


# SCRIPT_97: SCRIPT_98 with A♣ and 10♣ swapped between seats 1 and 2: seat 2's trick is
# K♣ A♣ Q♣ = 18, seat 1 takes 97 (T5 is 10♣ J♣ 9♣ = 12), seat 0 still 5.
SCRIPT_97_HANDS = (
    "9♠ K♠ J♥ Q♥ 9♣ Q♣ Q♦",
    "A♠ 10♠ A♥ 10♥ 10♣ K♣ 9♦",
    "J♠ Q♠ 9♥ K♥ J♣ A♣ K♦",
)
SCRIPT_97_PLAY = {
    1: "A♠ 10♠ A♥ 10♥ 10♣ K♣ J♦ A♦",
    2: "J♠ Q♠ 9♥ K♥ J♣ A♣ 9♦ K♦",
    0: "9♠ K♠ J♥ Q♥ 9♣ Q♣ Q♦ 10♦",
}


# HEARTS_220: dealer 0, the forehand (seat 1) holds every heart and A♠ A♣: it wins T1 with
# A♠, declares K♥ (hearts trump, +100) and takes all 8 tricks: 120 + 100 = 220.
HEARTS_HANDS = (
    "10♣ 9♦ J♦ Q♦ K♦ 10♦ A♦",  # seat 0: 40 points
    "A♥ 10♥ K♥ Q♥ J♥ 9♥ A♠",  # seat 1: 41 points
    "9♠ Q♠ K♠ 10♠ 9♣ Q♣ K♣",  # seat 2: 24 points
)
HEARTS_TALON = "A♣ J♠ J♣"
HEARTS_GIVE = ("J♠", "J♣")
HEARTS_PLAY = {1: "A♠ *K♥ A♥ 10♥ Q♥ J♥ 9♥ A♣"}


def hearts_220(
    state: GameState | None = None, contract: int = 170, first: Sequence[str] = ()
) -> GameState:
    """Deal HEARTS_220 to ``state`` (dealer 0; default a new game): the forehand wins at its
    opening, names ``contract`` and takes all 8 tricks with the ♥ marriage: 220 points."""
    s = state if state is not None else new()
    assert s.dealer == 0 and s.phase == Phase.DEALING
    s = auction(do(deal(s, layout(HEARTS_HANDS, HEARTS_TALON)), *first), 1)
    for c in HEARTS_GIVE:
        s = apply(s, f"give {c}")
    if s.phase == Phase.CONTRACT:
        s = apply(s, f"contract {contract}")
    return play_out(s, HEARTS_PLAY)


def layout_with(fixed: Mapping[int, str], talon: str | None = None, n: int = 3) -> Layout:
    """A three-player layout with the hands of ``fixed`` seats (and the talon) as given; the
    other cards go, strongest first, in turn to the other seats (the rest to the talon), so
    that those seats never qualify for a redeal."""
    hands: list[list[Card]] = [list(cards(fixed[i])) if i in fixed else [] for i in range(n)]
    tal = list(cards(talon)) if talon is not None else []
    used = {c for h in hands for c in h} | set(tal)
    pool = sorted((c for c in DECK if c not in used), key=lambda c: (-C.points(c), c))
    free = [i for i in range(n) if i not in fixed]
    k = 0
    for c in pool:
        open_seats = [i for i in free if len(hands[i]) < 7]
        if open_seats:
            hands[open_seats[k % len(open_seats)]].append(c)
            k += 1
        else:
            tal.append(c)
    lay = Layout(tuple(tuple(h) for h in hands), tuple(tal))
    classic = make_rules()
    for i in free:
        assert hand_redeal_reason(classic, lay.hands[i], False) is None, lay.hands[i]
    return lay
