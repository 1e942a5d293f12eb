"""RULES.md §1: the cards, their points and order, marriages; the defenders' rounding."""

from __future__ import annotations

from itertools import pairwise

import pytest

from bot.engine import cards as C

from .helpers import card, cards


def test_rank_points() -> None:
    assert [C.points(card(f"{r}♠")) for r in ("9", "J", "Q", "K", "10", "A")] == [
        0, 2, 3, 4, 10, 11,
    ]


def test_24_cards_30_a_suit_120_in_the_deck() -> None:
    assert len(C.DECK) == 24
    for suit in "♠♣♦♥":
        assert C.hand_points(cards(f"9{suit} J{suit} Q{suit} K{suit} 10{suit} A{suit}")) == 30
    assert C.hand_points(C.DECK) == 120 == C.DECK_POINTS


def test_order_inside_a_suit_9_j_q_k_10_a() -> None:
    order = cards("9♦ J♦ Q♦ K♦ 10♦ A♦")
    for lo, hi in pairwise(order):
        assert C.beats(hi, lo, None)
        assert not C.beats(lo, hi, None)


def test_marriage_values() -> None:
    assert C.MARRIAGE_VALUES[C.HEARTS] == 100
    assert C.MARRIAGE_VALUES[C.DIAMONDS] == 80
    assert C.MARRIAGE_VALUES[C.CLUBS] == 60
    assert C.MARRIAGE_VALUES[C.SPADES] == 40
    assert C.ACE_MARRIAGE_VALUE == 200
    assert C.marriages_in(cards("K♥ Q♥ K♠ Q♣ 9♦")) == (C.HEARTS,)
    assert C.has_four_aces(cards("A♠ A♣ A♦ A♥ 9♥"))
    assert not C.has_four_aces(cards("A♠ A♣ A♦ 10♥"))


@pytest.mark.parametrize(
    ("taken", "rounded"),
    [(17, 15), (18, 20), (67, 65), (68, 70), (12, 10), (13, 15), (0, 0), (20, 20), (1, 0),
     (4, 5), (119, 120)],
)
def test_defender_rounding(taken: int, rounded: int) -> None:
    """§4.1: a remainder of 1 or 2 rounds down, of 3 or 4 rounds up (17 → 15, 18 → 20)."""
    assert C.round5(taken) == rounded


def test_trick_winner_highest_of_led_suit_without_trump() -> None:
    # a higher card of another suit does not win when there is no trump
    assert C.trick_winner_index(cards("K♠ A♥ 9♠"), None) == 0
    assert C.trick_winner_index(cards("K♠ 9♠ 10♠"), None) == 2


def test_trick_winner_highest_trump() -> None:
    assert C.trick_winner_index(cards("A♠ 9♥ 10♠"), C.HEARTS) == 1
    assert C.trick_winner_index(cards("A♠ 9♥ J♥"), C.HEARTS) == 2
    # trump led: a higher card of another suit does not win
    assert C.trick_winner_index(cards("9♥ A♠ A♣"), C.HEARTS) == 0


def test_parse_and_format() -> None:
    assert C.fmt(card("10♠")) == "10♠"
    assert cards("AH th 9♣️") == cards("A♥ 10♥ 9♣")
    with pytest.raises(C.CardError):
        C.parse("1♠")
