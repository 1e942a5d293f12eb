"""Cards of Thousand: 24 cards, six ranks in four suits.

A card is an ``int`` 0..23: ``suit * 6 + rank``. Ranks from low to high are
9, J, Q, K, 10, A (indices 0..5); suits are ♠ ♣ ♦ ♥ (indices 0..3), the
order of their marriage values 40, 60, 80, 100.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

RANKS = ("9", "J", "Q", "K", "10", "A")
SUITS = ("♠", "♣", "♦", "♥")
SUIT_LETTERS = ("S", "C", "D", "H")
RANK_POINTS = (0, 2, 3, 4, 10, 11)
MARRIAGE_VALUES = (40, 60, 80, 100)
ACE_MARRIAGE_VALUE = 200

NINE, JACK, QUEEN, KING, TEN, ACE = range(6)
SPADES, CLUBS, DIAMONDS, HEARTS = range(4)

DECK: tuple[Card, ...] = tuple(range(24))
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % 6] for c in DECK)
DECK_POINTS = 120


class CardError(ValueError):
    """A card written in a way that cannot be read."""


def card(rank: int, suit: int) -> Card:
    return suit * 6 + rank


def suit_of(c: Card) -> int:
    return c // 6


def rank_of(c: Card) -> int:
    return c % 6


def points(c: Card) -> int:
    return POINTS[c]


def hand_points(cards: Iterable[Card]) -> int:
    return sum(POINTS[c] for c in cards)


def fmt(c: Card) -> str:
    """``A♥``, ``10♠``."""
    return RANKS[c % 6] + SUITS[c // 6]


def fmt_cards(cards: Iterable[Card]) -> str:
    return " ".join(fmt(c) for c in cards)


_RANK_READ = {"9": NINE, "J": JACK, "В": JACK, "Q": QUEEN, "Д": QUEEN, "K": KING, "К": KING,
              "10": TEN, "T": TEN, "A": ACE, "Т": ACE}
_SUIT_READ = {"♠": SPADES, "♣": CLUBS, "♦": DIAMONDS, "♥": HEARTS, "S": SPADES, "C": CLUBS,
              "D": DIAMONDS, "H": HEARTS, "♤": SPADES, "♧": CLUBS, "♢": DIAMONDS, "♡": HEARTS}


def parse(text: str) -> Card:
    """Read ``A♥``, ``10♠``, ``T♠``, ``AH``, ``ah``, ``9♣️`` (emoji variation selector ignored)."""
    s = text.strip().replace("\ufe0f", "").upper()
    if len(s) < 2:
        raise CardError(f"unknown card {text!r}")
    rank_s, suit_s = s[:-1], s[-1]
    if rank_s not in _RANK_READ or suit_s not in _SUIT_READ:
        raise CardError(f"unknown card {text!r}")
    return card(_RANK_READ[rank_s], _SUIT_READ[suit_s])


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    items = text.split() if isinstance(text, str) else list(text)
    return tuple(parse(t) for t in items)


def sort_hand(cards: Iterable[Card]) -> tuple[Card, ...]:
    """By suit (♠ ♣ ♦ ♥), high rank first inside a suit."""
    return tuple(sorted(cards, key=lambda c: (c // 6, -(c % 6))))


def marriages_in(cards: Iterable[Card]) -> tuple[int, ...]:
    """Suits in which ``cards`` hold both K and Q."""
    s = set(cards)
    return tuple(su for su in range(4) if card(KING, su) in s and card(QUEEN, su) in s)


def has_four_aces(cards: Iterable[Card]) -> bool:
    s = set(cards)
    return all(card(ACE, su) in s for su in range(4))


def count_rank(cards: Iterable[Card], rank: int) -> int:
    return sum(1 for c in cards if c % 6 == rank)


def beats(challenger: Card, best: Card, trump: int | None) -> bool:
    """Whether ``challenger`` beats the card ``best`` currently winning a trick."""
    cs, bs = challenger // 6, best // 6
    if cs == bs:
        return challenger % 6 > best % 6
    return trump is not None and cs == trump


def trick_winner_index(cards: Iterable[Card], trump: int | None) -> int:
    it = list(cards)
    best = 0
    for i in range(1, len(it)):
        if beats(it[i], it[best], trump):
            best = i
    return best


def round5(p: int) -> int:
    """Round card points to 5 as the defenders do: 17 → 15, 18 → 20."""
    r = p % 5
    return p - r if r <= 2 else p + 5 - r
