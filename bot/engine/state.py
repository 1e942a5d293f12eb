"""Values of the engine: actions, the state of a deal and of a game, deal results.

Everything here is immutable; ``bot.engine.game.apply`` returns new values.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .cards import Card, fmt, parse
from .rules import Rules


class IllegalAction(ValueError):
    """The one error type of the engine: an action that may not be taken now.

    ``str(e)`` is an English sentence (logs, the terminal, records); ``code`` is a stable
    name of the reason and ``params`` its values (numbers, seats, card numbers, rule ids),
    from which ``bot.tg.view.render.refusal_text`` writes the reason in a person's language
    (catalog keys ``refuse.<code>``).
    """

    def __init__(self, message: str, code: str = "not_now", **params: int | str) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, int | str] = params


class Phase(StrEnum):
    DEALING = "dealing"  # waiting for the cards of the next deal (records with explicit cards)
    DARK = "dark"  # the forehand may declare a dark game
    REDEAL = "redeal"  # no longer entered: redeal requests are private (RULES.md §2.3)
    BIDDING = "bidding"
    # the declarer takes the talon: two players choose one of two talons; with three or
    # four, a declarer that has made no decision yet in the deal takes it by hand (its
    # private chance to ask for a redeal, RULES.md §2.3)
    TALON = "talon"
    PASSING = "passing"  # the declarer gives a card to each defender (or puts cards back)
    CONTRACT = "contract"  # the declarer names the contract or concedes
    PLAY = "play"
    GAME_OVER = "game_over"


class Kind(StrEnum):
    NORMAL = "normal"
    GOLDEN = "golden"
    DARK = "dark"


# Action kinds and what their ``value``/``card`` mean.
DARK = "dark"  # forehand plays dark
LIGHT = "light"  # forehand looks at its cards (no dark game)
REDEAL = "redeal"  # ask for a redeal
KEEP = "keep"  # do not ask for a redeal
BID = "bid"  # value: the bid
PASS = "pass"
TALON = "talon"  # value: 1 or 2 (two players); 1: take the one talon (three, four players)
GIVE = "give"  # card: to the next defender without a card
DISCARD = "discard"  # card: put back (two players)
CONTRACT = "contract"  # value: the contract
CONCEDE = "concede"  # роспись
PLAY = "play"  # card
DECLARE = "declare"  # card: lead a K or Q declaring its marriage (an ace: the ace marriage)

_VALUE_KINDS = {BID, TALON, CONTRACT}
_CARD_KINDS = {GIVE, DISCARD, PLAY, DECLARE}
_PLAIN_KINDS = {DARK, LIGHT, REDEAL, KEEP, PASS, CONCEDE}


@dataclass(frozen=True, slots=True, order=True)
class Action:
    kind: str
    value: int = 0
    card: Card = -1

    def __str__(self) -> str:
        if self.kind in _VALUE_KINDS:
            return f"{self.kind} {self.value}"
        if self.kind in _CARD_KINDS:
            return f"{self.kind} {fmt(self.card)}"
        return self.kind


def parse_action(text: str) -> Action:
    """Read ``bid 105``, ``pass``, ``give 9♠``, ``play A♥``, ``declare K♥`` …"""
    parts = text.split()
    if not parts:
        raise IllegalAction("empty action", "action_unknown", text="")
    kind = parts[0].lower()
    if kind in _PLAIN_KINDS and len(parts) == 1:
        return Action(kind)
    if kind in _VALUE_KINDS and len(parts) == 2 and parts[1].lstrip("-").isdigit():
        return Action(kind, value=int(parts[1]))
    if kind in _CARD_KINDS and len(parts) == 2:
        try:
            return Action(kind, card=parse(parts[1]))
        except ValueError as e:
            raise IllegalAction(str(e), "card_unknown", text=parts[1]) from None
    raise IllegalAction(f"unknown action {text!r}", "action_unknown", text=text)


@dataclass(frozen=True, slots=True)
class Layout:
    """The cards of one deal: a hand per seat (empty for a seat sitting out) and the talon.

    Three or four players: the talon is 3 cards. Two players (two talons): 4 cards,
    talon 1 = the first two, talon 2 = the last two. Two players (stock): the 12
    cards of the stock, drawn from the front.
    """

    hands: tuple[tuple[Card, ...], ...]
    talon: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Declared:
    seat: int
    suit: int  # 0..3, or 4 for the ace marriage
    value: int
    trick: int  # index of the trick it was declared on


@dataclass(frozen=True, slots=True)
class Trick:
    leader: int
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in order of play
    winner: int
    trump: int  # the trump the trick was played under, -1 for none


@dataclass(frozen=True, slots=True)
class DealState:
    number: int  # 1-based index of the deal in the game (redeals count)
    kind: Kind
    dealer: int
    forehand: int
    active: tuple[int, ...]  # seats in play, clockwise from the forehand
    layout: Layout
    hands: tuple[tuple[Card, ...], ...]
    talon: tuple[Card, ...]  # what is left of the talon (the stock in stock mode)
    to_act: int
    actions: tuple[str, ...] = ()  # "seat:action" in order
    bids: tuple[tuple[int, int], ...] = ()  # (seat, bid) in order; bid 0 = pass
    passed: tuple[bool, ...] = ()
    bid: int = 0
    bidder: int = -1
    raised: bool = False
    unblinded: bool = False
    declarer: int = -1
    contract: int = 0
    talon_shown: bool = False
    talon_taken: tuple[Card, ...] = ()  # the talon cards the declarer took
    talon_choice: int = 0  # two players: 1 or 2
    received: tuple[Card, ...] = ()  # per seat, the card given to it (-1 none)
    gave: tuple[tuple[int, Card], ...] = ()  # (to seat, card) in order
    discarded: tuple[Card, ...] = ()  # two players: put back by the declarer
    trump: int = -1
    trick: tuple[tuple[int, Card], ...] = ()
    leader: int = -1
    tricks: tuple[Trick, ...] = ()
    taken: tuple[int, ...] = ()  # card points per seat
    ntricks: tuple[int, ...] = ()
    declared: tuple[Declared, ...] = ()
    has_led: tuple[bool, ...] = ()
    four_nines: tuple[int, ...] = ()  # seats holding four nines after the pass


@dataclass(frozen=True, slots=True)
class Note:
    """One line of a deal's explanation: ``code`` for ``seat`` with ``value``."""

    code: str
    seat: int = -1
    value: int = 0


@dataclass(frozen=True, slots=True)
class DealResult:
    number: int
    dealer: int
    kind: Kind
    declarer: int  # -1 for none (a redeal before bidding ended, the stock game)
    bid: int
    contract: int
    outcome: str  # made, failed, conceded, redeal, played (stock game)
    points: tuple[int, ...]  # points taken in play per seat: cards + marriages
    scores: tuple[int, ...]  # change of each total, every effect included
    totals: tuple[int, ...]
    marks: tuple[tuple[str, ...], ...]
    notes: tuple[Note, ...]
    layout: Layout
    actions: tuple[str, ...]
    winner: int = -1


@dataclass(frozen=True, slots=True)
class GameState:
    rules: Rules
    seed: int | None
    version: int
    phase: Phase
    dealer: int  # dealer of the current (or next) deal
    totals: tuple[int, ...]
    bolts: tuple[int, ...]  # current bolt count towards the penalty
    bolts_game: tuple[int, ...]  # bolts in the whole game
    rospis_count: tuple[int, ...]
    falls: tuple[int, ...]
    barrel: tuple[int, ...]  # tries used by a seat on the barrel, -1 when not on it
    golden_left: int
    golden_made: bool
    history: tuple[DealResult, ...]
    winner: int
    deal: DealState | None
    first_dealer: int = 0

    @property
    def n(self) -> int:
        return self.rules.players

    @property
    def to_act(self) -> int:
        if self.deal is None or self.phase in (Phase.DEALING, Phase.GAME_OVER):
            return -1
        return self.deal.to_act
