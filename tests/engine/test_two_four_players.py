"""RULES.md §6: four players (the dealer sits out and scores the talon) and two players
(two talons, or the stock game)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import cards as C
from bot.engine.game import apply, deal
from bot.engine.rules import Rules, make_rules
from bot.engine.state import DealResult, GameState, IllegalAction, Kind, Layout, Phase
from bot.engine.views import public_view, view

from .helpers import (
    SWEEP_HAND,
    SWEEP_OTHER_1,
    SWEEP_OTHER_2,
    SWEEP_TALON,
    auction,
    card,
    cards,
    do,
    layout,
    legal,
    new,
    note_codes,
    play_out,
    result,
    start,
)

OFF = -1
FOUR = make_rules(players=4)

# --- four players ------------------------------------------------------------------------

# dealer 0 sits out; seat 1 (the forehand) sweeps; the talon 10♥ 9♠ J♣ is worth 12
SWEEP4 = ("", SWEEP_HAND, SWEEP_OTHER_1, SWEEP_OTHER_2)
# the talon K♦ Q♦ 9♠ holds the ♦ marriage: 7 + 80 = 87
MARRIAGE4 = ("", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "K♠ Q♠ J♠ K♣ Q♣ 9♣ 9♦",
             "J♣ J♦ 9♥ J♥ Q♥ K♥ 10♥")
MARRIAGE4_TALON = "K♦ Q♦ 9♠"


def sweep4(s: GameState, first: tuple[str, ...] = ()) -> GameState:
    s = auction(do(deal(s, layout(SWEEP4, SWEEP_TALON)), *first), 1)
    s = do(s, "1 give 9♠", "1 give J♣")
    if s.phase == Phase.CONTRACT:
        assert s.deal is not None
        s = apply(s, f"contract {s.deal.bid}")
    return play_out(s)


def test_four_players_dealer_sits_out_without_cards() -> None:
    s = start(FOUR, SWEEP4, SWEEP_TALON)
    d = s.deal
    assert d is not None
    assert d.active == (1, 2, 3)
    assert d.forehand == 1 and d.bids == ((1, 100),)
    assert view(s, 0).hand == ()
    assert [len(h) for h in d.hands] == [0, 7, 7, 7]
    with pytest.raises(IllegalAction):
        deal(new(FOUR), Layout((cards("9♠"), cards("A♠ 10♠ A♣ 10♣ A♦ 10♦"),
                                cards(SWEEP_OTHER_1), cards(SWEEP_OTHER_2)),
                               cards(SWEEP_TALON)))


def test_four_players_dealer_scores_the_talon_unrounded_and_no_bolt() -> None:
    s = sweep4(new(FOUR, bolts=(1, 0, 0, 0)))
    res = result(s)
    assert res.scores == (12, 100, 0, 0)  # 10 + 0 + 2, not rounded to 10
    assert s.bolts == (1, 0, 1, 1)  # the dealer's count does not change
    assert "sitting_out" in res.marks[0]


def test_four_players_talon_marriage_counts_also_on_a_concession() -> None:
    s = start(FOUR, MARRIAGE4, MARRIAGE4_TALON)
    s = do(s, "2 pass", "3 pass", "1 give 9♠", "1 give K♦", "1 concede")
    assert result(s).scores == (87, -100, 50, 50)


def test_four_players_dealer_scores_nothing_without_dealer_scores_talon() -> None:
    s = sweep4(new(make_rules(players=4, dealer_scores_talon=False)))
    assert result(s).scores == (0, 100, 0, 0)


def test_four_players_dealer_on_the_barrel_scores_nothing() -> None:
    s = sweep4(new(FOUR, totals=(880, 0, 0, 0), barrel=(0, OFF, OFF, OFF)))
    assert s.totals == (880, 100, 0, 0)
    assert s.barrel == (1, OFF, OFF, OFF)  # the deal still counts as a try


def test_four_players_golden_and_dark_double_the_talon() -> None:
    s = sweep4(new(make_rules(players=4, golden_round=True)))
    assert result(s).kind == Kind.GOLDEN
    assert result(s).scores == (24, 240, 0, 0)
    s = sweep4(new(make_rules(players=4, dark_play=True)), first=("1 dark",))
    assert result(s).kind == Kind.DARK
    assert result(s).scores == (24, 240, 0, 0)


def test_four_players_dealer_rotates_over_four_seats() -> None:
    s = sweep4(new(FOUR))
    assert s.dealer == 1
    lay = layout((SWEEP_OTHER_2, "", SWEEP_HAND, SWEEP_OTHER_1), SWEEP_TALON)
    s = deal(s, lay)
    assert s.deal is not None and s.deal.active == (2, 3, 0) and s.to_act == 3


def test_four_players_golden_round_has_four_deals() -> None:
    assert new(make_rules(players=4, golden_round=True)).golden_left == 4


# --- two players, two talons -------------------------------------------------------------

TWO = make_rules(players=2)
# dealer 0; seat 1 (the dealer's opponent) holds every ace and ten and 9♠ 9♣;
# talon 1 = J♠ J♣ (4 points), talon 2 = K♦ Q♦ (7 points, the ♦ marriage)
TWO_HANDS = ("K♠ Q♠ K♣ Q♣ J♦ 9♦ K♥ Q♥ J♥ 9♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥ 10♥ 9♠ 9♣")
TWO_TALON = "J♠ J♣ K♦ Q♦"


def two(rules: Rules | None = None, talon: int = 1, **position: Any) -> GameState:
    r = rules if rules is not None else TWO
    s = start(r, TWO_HANDS, TWO_TALON, **position)
    return do(s, "0 pass", f"1 talon {talon}")


def test_two_talons_deal_and_choice() -> None:
    s = start(TWO, TWO_HANDS, TWO_TALON)
    d = s.deal
    assert d is not None
    assert [len(h) for h in d.hands] == [10, 10] and len(d.talon) == 4
    assert d.bids == ((1, 100),) and s.to_act == 0  # the dealer's opponent sits on 100
    s = do(s, "0 pass")
    assert s.phase == Phase.TALON and legal(s) == ["talon 1", "talon 2"]
    s = do(s, "1 talon 2")
    d = s.deal
    assert d is not None
    assert d.talon_taken == cards("K♦ Q♦") and d.talon == cards("J♠ J♣")
    assert public_view(s).talon == cards("K♦ Q♦")  # shown
    assert len(d.hands[1]) == 12


def test_two_talons_discard_two_face_down() -> None:
    s = do(two(), "1 discard 9♠", "1 discard 9♣")
    d = s.deal
    assert d is not None
    assert [len(h) for h in d.hands] == [10, 10]
    assert s.phase == Phase.CONTRACT
    assert view(s, 1).discarded == cards("9♠ 9♣")
    assert view(s, 0).discarded == () and public_view(s).discarded == ()


def test_two_talons_set_aside_cards_count_for_nobody() -> None:
    s = play_out(do(two(), "1 discard 9♠", "1 discard 9♣", "1 contract 100"))
    res = result(s)
    # all 10 tricks to seat 1: 120 − the closed talon K♦ Q♦ (7) − the discards 9♠ 9♣ (0)
    assert res.points == (0, 120 - 7)
    assert res.scores == (0, 100)
    assert s.bolts == (1, 0)


def test_two_talons_120_every_trick_without_marriage_scores_the_contract() -> None:
    s = play_out(do(two(), "1 discard 9♠", "1 discard 9♣", "1 contract 120"))
    res = result(s)
    assert res.points == (0, 113)
    assert res.outcome == "made" and res.scores == (0, 120)
    assert "all_tricks_120" in note_codes(res)


def test_two_talons_the_exception_is_for_120_only() -> None:
    s = play_out(do(two(talon=2), "1 discard 9♠", "1 discard 9♣", "1 contract 125"))
    res = result(s)
    assert res.points == (0, 116)  # 120 − J♠ J♣
    assert res.outcome == "failed" and res.scores == (0, -125)


def test_unused_talon_to_last_trick() -> None:
    r = make_rules(players=2, unused_talon_to_last_trick=True)
    s = play_out(do(two(r), "1 discard 9♠", "1 discard 9♣", "1 contract 120"))
    res = result(s)
    assert res.points == (0, 120)  # 113 + K♦ Q♦
    assert res.outcome == "made" and "all_tricks_120" not in note_codes(res)


def test_two_player_give_one() -> None:
    r = make_rules(players=2, two_player_pass="give_one")
    s = two(r)
    assert legal(s)[0].startswith("give")
    s = do(s, "1 give 9♠")
    d = s.deal
    assert d is not None
    assert [len(h) for h in d.hands] == [11, 11]
    assert view(s, 0).received == card("9♠")
    s = play_out(do(s, "1 contract 100"))
    assert sum(result(s).points) == 120 - 7  # only the closed talon is set aside


def test_two_player_concession_pays_60() -> None:
    s = do(two(), "1 discard 9♠", "1 discard 9♣", "1 concede")
    assert result(s).scores == (60, -100)
    s = do(two(make_rules(players=2, rospis_pays="half")), "1 discard 9♠", "1 discard 9♣",
           "1 concede")
    assert result(s).scores == (60, -100)


# --- two players, the stock game -------------------------------------------------------------

STOCK = make_rules(players=2, two_player_mode="stock")
STOCK_HANDS = ("A♣ 10♣ K♠ Q♠ 9♦ J♦", "K♥ Q♥ A♠ 10♠ 9♣ J♣")
STOCK_TALON = "9♠ J♠ K♣ Q♣ Q♦ K♦ 10♦ A♦ 9♥ J♥ 10♥ A♥"


def recount(res: DealResult) -> list[int]:
    """The points of a stock deal recounted from its actions: tricks of two cards, the
    trump set by each declared marriage."""
    pts = [0, 0]
    trump: int | None = None
    trick: list[tuple[int, int]] = []
    for a in res.actions:
        seat_s, act = a.split(":")
        kind, text = act.split()
        c = card(text)
        if kind == "declare":
            trump = C.suit_of(c)
            pts[int(seat_s)] += C.MARRIAGE_VALUES[trump]
        trick.append((int(seat_s), c))
        if len(trick) == 2:
            w = trick[C.trick_winner_index([x for _, x in trick], trump)][0]
            pts[w] += sum(C.points(x) for _, x in trick)
            trick = []
    return pts


def stock(**position: Any) -> GameState:
    return start(STOCK, STOCK_HANDS, STOCK_TALON, **position)


def test_stock_six_cards_dealer_opponent_leads_marriage_on_the_first_lead() -> None:
    s = stock()
    assert s.phase == Phase.PLAY and s.to_act == 1
    assert "declare K♥" in legal(s) and "declare Q♥" in legal(s)


def test_stock_draw_after_each_trick_winner_first() -> None:
    s = do(stock(), "1 declare K♥", "0 play 9♦")
    d = s.deal
    assert d is not None
    assert d.tricks[-1].winner == 1 and d.trump == C.HEARTS
    assert card("9♠") in d.hands[1] and card("J♠") in d.hands[0]
    assert [len(h) for h in d.hands] == [6, 6] and len(d.talon) == 10
    assert s.to_act == 1


def test_stock_points_unrounded() -> None:
    s = play_out(do(stock(), "1 declare K♥", "0 play 9♦"))
    res = result(s)
    assert res.outcome == "played" and res.declarer == -1
    assert res.points == (52, 68 + 100)
    assert list(res.points) == recount(res)
    assert res.scores == (52, 168)  # not rounded to 50 and 170
    assert s.bolts == (0, 0)


def test_stock_no_barrel_first_to_1000() -> None:
    s = play_out(do(stock(totals=(870, 0)), "1 declare K♥", "0 play 9♦"))
    assert s.totals == (922, 168) and s.barrel == (OFF, OFF) and s.winner == -1
    s = play_out(do(stock(totals=(948, 0)), "1 declare K♥", "0 play 9♦"))
    assert s.winner == 0 and s.phase == Phase.GAME_OVER


def test_stock_both_pass_1000_the_higher_wins_a_tie_plays_on() -> None:
    s = play_out(do(stock(totals=(949, 833)), "1 declare K♥", "0 play 9♦"))
    assert s.totals == (1001, 1001)
    assert s.winner == -1 and s.phase == Phase.DEALING
    assert "tie_one_more" in note_codes(result(s))
    s = play_out(do(stock(totals=(949, 834)), "1 declare K♥", "0 play 9♦"))
    assert s.winner == 1


def test_two_player_layouts_are_checked() -> None:
    with pytest.raises(IllegalAction):
        deal(new(STOCK), Layout((cards("A♣ 10♣ K♠ Q♠ 9♦ J♦ 9♠"), cards(STOCK_HANDS[1])),
                                cards(STOCK_TALON)[1:]))
