"""RULES.md §2.8: the play of the tricks — following suit, trumping, the trick's winner,
declaring marriages (захвалить) and the trump they set."""

from __future__ import annotations

import random

import pytest

from bot.engine import cards as C
from bot.engine.game import apply, new_game, play_random_deal
from bot.engine.rules import make_rules
from bot.engine.state import DealState, GameState, IllegalAction, Phase

from .helpers import card, cards, do, legal, play_out, result, start

# TRUMP deal, dealer 0, seat 1 (forehand) declares 100 and gives 9♠ to seat 2, 9♦ to seat 0.
# Hands in play: seat 1  K♥ Q♥ A♥ 9♣ A♦ A♣ K♦ Q♦
#                seat 2  A♠ 10♠ K♠ Q♠ J♠ 9♠ 9♥ 10♣   (void in ♦)
#                seat 0  10♥ J♥ K♣ Q♣ J♣ 10♦ J♦ 9♦   (void in ♠)
TRUMP_HANDS = (
    "10♥ J♥ K♣ Q♣ J♣ 10♦ J♦",
    "K♥ Q♥ A♥ 9♣ A♦ K♦ 9♦",
    "A♠ 10♠ K♠ Q♠ J♠ 9♥ 10♣",
)
TRUMP_TALON = "Q♦ 9♠ A♣"


def trump_deal() -> GameState:
    s = start(None, TRUMP_HANDS, TRUMP_TALON)
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give 9♦", "1 contract 100")
    assert s.phase == Phase.PLAY
    return s


def plays(s: GameState) -> list[str]:
    return sorted(a.split()[1] for a in legal(s) if a.startswith("play"))


def deal_of(s: GameState) -> DealState:
    assert s.deal is not None
    return s.deal


def test_declarer_leads_first_and_no_trump_at_the_start() -> None:
    s = trump_deal()
    assert s.to_act == 1
    assert deal_of(s).trump == -1


def test_no_marriage_on_the_first_lead() -> None:
    s = trump_deal()
    assert not [a for a in legal(s) if a.startswith("declare")]
    with pytest.raises(IllegalAction):
        apply(s, "declare K♥")


def test_leading_k_without_the_right_is_a_plain_lead() -> None:
    s = trump_deal()
    s = do(s, "1 play K♥")
    d = deal_of(s)
    assert d.trump == -1 and d.declared == ()


def test_follow_suit_void_without_trump_plays_anything() -> None:
    s = do(trump_deal(), "1 play A♦")
    # seat 2 holds no diamond and there is no trump: any card
    assert len(plays(s)) == 8
    s = do(s, "2 play 9♥")
    # seat 0 holds diamonds: it must follow suit
    assert plays(s) == sorted(["10♦", "J♦", "9♦"])
    with pytest.raises(IllegalAction, match="follow suit"):
        apply(s, "play 10♥")
    s = do(s, "0 play 10♦")  # the trick goes to the highest card of the suit led
    d = deal_of(s)
    assert d.tricks[-1].winner == 1 and d.ntricks[1] == 1
    assert d.taken[1] == 11 + 0 + 10
    assert s.to_act == 1  # the winner leads the next trick


def test_marriage_after_a_trick_sets_trump_must_trump_no_duty_to_overtrump() -> None:
    s = do(trump_deal(), "1 play A♦", "2 play 9♠", "0 play 9♦")
    # having won a trick, seat 1 may declare either of its marriages with K or Q
    assert sorted(a for a in legal(s) if a.startswith("declare")) == [
        "declare K♥", "declare K♦", "declare Q♥", "declare Q♦",
    ]
    s = do(s, "1 declare K♥")
    d = deal_of(s)
    assert d.trump == C.HEARTS  # trump from this trick on
    assert d.declared[-1].seat == 1 and d.declared[-1].value == 100
    # no duty to beat: seat 0 may play J♥ though 10♥ would win
    s = do(s, "2 play 9♥")
    assert plays(s) == sorted(["10♥", "J♥"])
    s = do(s, "0 play J♥")
    assert deal_of(s).tricks[-1].winner == 1
    assert deal_of(s).tricks[-1].trump == C.HEARTS
    # seat 1 leads 9♣; seat 2 wins with 10♣ (K♣ Q♣ J♣ of seat 0 are lower)
    s = do(s, "1 play 9♣", "2 play 10♣", "0 play K♣")
    assert deal_of(s).tricks[-1].winner == 2 and s.to_act == 2
    s = do(s, "2 play A♠")
    # seat 0 is void in spades and holds a trump: it must play it
    assert plays(s) == ["10♥"]
    with pytest.raises(IllegalAction, match="trump"):
        apply(s, "play Q♣")
    s = do(s, "0 play 10♥")
    # seat 1 is void in spades: it must trump, but need not overtrump
    assert plays(s) == sorted(["A♥", "Q♥"])
    s = do(s, "1 play Q♥")
    t = deal_of(s).tricks[-1]
    assert t.winner == 0  # the highest trump wins: 10♥ over Q♥ and A♠
    assert deal_of(s).taken[0] == 11 + 10 + 3


def test_trump_beats_a_higher_card_of_the_led_suit() -> None:
    s = do(trump_deal(), "1 play A♦", "2 play 9♠", "0 play 9♦", "1 declare Q♥", "2 play 9♥",
           "0 play J♥", "1 play 9♣", "2 play 10♣", "0 play J♣", "2 play A♠", "0 play 10♥",
           "1 play A♥")
    t = deal_of(s).tricks[-1]
    assert t.winner == 1 and t.trump == C.HEARTS


# MARRIAGES deal: dealer 0, seat 1 declares 100 (others pass), gives J♠ to seat 2 and 9♣ to
# seat 0, names 200. Seat 1 wins T1 (A♣), declares K♥ (trump ♥, +100) and wins T2, declares
# K♦ (trump ♦, +80) and loses T3 to A♦ of seat 2, which declares K♠ (trump ♠, +40) and
# takes the rest. Cards: seat 1 24 + 17 = 41, seat 2 25 + 6 + 13 + 16 + 12 + 7 = 79,
# seat 0 nothing.
MARRIAGE_HANDS = (
    "9♥ J♥ 10♦ J♦ 9♦ Q♣ J♣",
    "A♣ A♥ K♥ Q♥ K♦ Q♦ 9♠",
    "A♠ 10♠ K♠ Q♠ A♦ 10♣ K♣",
)
MARRIAGE_TALON = "10♥ J♠ 9♣"
MARRIAGE_PLAY = {
    1: "A♣ *K♥ *K♦ 9♠ Q♦ A♥ 10♥ Q♥",
    2: "10♣ A♠ A♦ *K♠ 10♠ Q♠ J♠ K♣",
    0: "Q♣ J♥ 10♦ J♣ 9♣ J♦ 9♦ 9♥",
}


def marriages_start() -> GameState:
    s = start(None, MARRIAGE_HANDS, MARRIAGE_TALON)
    return do(s, "2 pass", "0 pass", "1 give J♠", "1 give 9♣", "1 contract 200")


def marriages_deal() -> GameState:
    return play_out(marriages_start(), MARRIAGE_PLAY)


def test_several_marriages_change_trump_each_time() -> None:
    s = do(marriages_start(), "1 play A♣", "2 play 10♣", "0 play Q♣")
    s = do(s, "1 declare K♥", "2 play A♠", "0 play J♥")
    assert deal_of(s).trump == C.HEARTS
    s = do(s, "1 declare K♦", "2 play A♦", "0 play 10♦")
    assert deal_of(s).trump == C.DIAMONDS  # replaces the earlier trump
    # the defender that won the trick declares its own marriage
    s = do(s, "2 declare K♠", "0 play J♣", "1 play 9♠")
    d = deal_of(s)
    assert d.trump == C.SPADES
    assert [t.trump for t in d.tricks] == [-1, C.HEARTS, C.DIAMONDS, C.SPADES]
    assert [t.winner for t in d.tricks] == [1, 1, 2, 2]
    assert [(m.seat, m.suit, m.value, m.trick) for m in d.declared] == [
        (1, C.HEARTS, 100, 1), (1, C.DIAMONDS, 80, 2), (2, C.SPADES, 40, 3),
    ]
    assert result(play_out(s, MARRIAGE_PLAY)).actions == result(marriages_deal()).actions


def test_marriages_score_with_the_cards() -> None:
    res = result(marriages_deal())
    assert res.points == (0, 41 + 100 + 80, 79 + 40)
    assert res.outcome == "made"
    # declarer: the contract; defender seat 2: cards 79 → 80, plus its marriage 40
    assert res.scores == (0, 200, 120)
    assert res.marks[0] == ("bolt",)


@pytest.mark.parametrize("seed", range(8))
def test_every_played_deal_has_120_card_points(seed: int) -> None:
    rng = random.Random(seed)
    s = new_game(make_rules(), seed=seed)
    played = 0
    while played < 3 and s.phase != Phase.GAME_OVER:
        s = play_random_deal(s, rng)
        res = result(s)
        if res.outcome not in ("made", "failed"):
            continue
        played += 1
        marriages = sum(
            C.MARRIAGE_VALUES[C.suit_of(card(a.split()[-1]))]
            for a in res.actions if ":declare " in a
        )
        assert sum(res.points) == 120 + marriages


def test_cards_of_every_deal_total_120_points_in_tricks() -> None:
    # the hands of a deal in play hold all 24 cards: the talon joined the declarer's hand
    s = trump_deal()
    d = deal_of(s)
    assert sorted(c for h in d.hands for c in h) == sorted(C.DECK)
    assert C.hand_points(c for h in d.hands for c in h) == 120
    assert cards(TRUMP_TALON) == d.talon_taken
