"""RULES.md §3 (winning) and §4.5 (the barrel), with the barrel's house rules of §5.8.

Positions on or near the barrel are built by hand with ``dataclasses.replace`` (through
``helpers.new``): totals, ``barrel`` (tries used, -1 when not sitting) and ``falls``.
"""

from __future__ import annotations

import pytest

from bot.engine.game import apply
from bot.engine.rules import Rules, make_rules
from bot.engine.state import GameState, IllegalAction, Phase

from .helpers import (
    HEARTS_HANDS,
    HEARTS_TALON,
    SCRIPT_98_HANDS,
    SCRIPT_98_TALON,
    SWEEP_HAND,
    SWEEP_OTHER_1,
    SWEEP_OTHER_2,
    SWEEP_TALON,
    bids,
    concede_deal,
    deal_sweep,
    do,
    hearts_220,
    legal,
    new,
    note_codes,
    play_out,
    result,
    script_98,
    start,
    sweep,
)

OFF = -1


def test_climbing_caps_the_total_at_880_and_sits() -> None:
    s = sweep(new(totals=(0, 800, 0)), 1, contract=120)
    res = result(s)
    assert s.totals == (0, 880, 0)
    assert s.barrel == (OFF, 0, OFF)
    assert "barrel_on" in res.marks[1]
    assert res.scores[1] == 80


def test_exactly_880_sits() -> None:
    s = sweep(new(totals=(0, 780, 0)), 1)
    assert s.totals[1] == 880 and s.barrel[1] == 0


def test_sitter_forehand_opens_at_120() -> None:
    s = deal_sweep(new(totals=(0, 880, 0), barrel=(OFF, 0, OFF)), 1)
    d = s.deal
    assert d is not None
    assert d.bids == ((1, 120),)
    assert bids(s)[0] == 125  # the others must go above


def test_sitter_bids_at_least_120() -> None:
    # dealer 0, seat 2 sits; it holds the ♠ and ♣ marriages (cap 220)
    s = start(None, HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, 880), barrel=(OFF, OFF, 0))
    assert s.to_act == 2
    assert bids(s) == list(range(120, 221, 5))
    with pytest.raises(IllegalAction):
        apply(s, "bid 105")


def test_sitter_first_bid_jumps_to_120_without_bid_jumps() -> None:
    r = make_rules(bid_jumps=False)
    s = start(r, HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, 880), barrel=(OFF, OFF, 0))
    assert bids(s) == [120]
    s = do(s, "2 bid 120")
    assert bids(s) == [125]  # the others: one step


def test_winner_from_the_barrel() -> None:
    s = sweep(new(totals=(0, 880, 300), barrel=(OFF, 1, OFF)), 1)
    res = result(s)
    assert res.contract == 120
    assert res.winner == 1 == s.winner
    assert s.totals == (0, 1000, 300)
    assert s.phase == Phase.GAME_OVER
    assert "winner" in res.marks[1]
    with pytest.raises(IllegalAction):
        apply(s, "pass")


def test_no_win_without_the_barrel_even_above_1000() -> None:
    # a seat not on the barrel cannot win: 850 + 170 is capped at 880
    s = hearts_220(new(totals=(0, 850, 0)), contract=170)
    assert s.winner == -1
    assert s.totals[1] == 880 and s.barrel[1] == 0


def test_sitter_declarer_that_fails_scores_nothing_and_uses_a_try() -> None:
    s = script_98(new(totals=(0, 880, 0), barrel=(OFF, 0, OFF)), contract=120)
    res = result(s)
    assert res.outcome == "failed"
    assert s.totals == (5, 880, 15)
    assert s.barrel == (OFF, 1, OFF)


def test_three_tries_then_the_fall_880_to_760() -> None:
    # seat 1 sits (0 tries used); dealer 1, 2, then 0 (seat 1 is the forehand and fails)
    s = new(dealer=1, totals=(100, 880, 200), barrel=(OFF, 0, OFF))
    s = sweep(s, 2)  # forehand 2 declares 100
    assert s.barrel == (OFF, 1, OFF) and s.totals == (100, 880, 300)
    s = sweep(s, 0)  # forehand 0 declares 100
    assert s.barrel == (OFF, 2, OFF) and s.totals == (200, 880, 300)
    assert s.bolts == (1, 0, 1)  # the sitter gets no bolts
    s = script_98(s, contract=120)  # the sitter opens 120 and takes 98
    res = result(s)
    assert s.barrel == (OFF, OFF, OFF)
    assert s.totals == (205, 760, 315)
    assert s.falls == (0, 1, 0)
    assert "fall" in res.marks[1]
    assert "barrel_tries_out" in note_codes(res)


def test_a_redeal_uses_no_try() -> None:
    hands = ("K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦")
    s = start(None, hands, "9♥ J♥ Q♥", totals=(0, 880, 0), barrel=(OFF, 2, OFF))
    s = do(s, "2 redeal")
    assert s.barrel == (OFF, 2, OFF) and s.totals == (0, 880, 0)


def test_a_conceded_deal_uses_a_try() -> None:
    s = concede_deal(new(totals=(0, 0, 880), barrel=(OFF, OFF, 0)), 1)
    assert s.barrel == (OFF, OFF, 1)
    assert s.totals == (50, -100, 880)  # the sitter gets no concession payout


def test_defender_on_the_barrel_scores_nothing_and_gets_no_bolt() -> None:
    s = script_98(new(totals=(0, 0, 880), barrel=(OFF, OFF, 0)))
    assert result(s).scores == (5, -100, 0)
    s = sweep(new(totals=(880, 0, 0), barrel=(0, OFF, OFF)), 1)
    assert s.totals == (880, 100, 0)
    assert s.bolts == (0, 0, 1)


def test_sitter_may_not_concede() -> None:
    s = start(None, HEARTS_HANDS, HEARTS_TALON, totals=(0, 880, 0), barrel=(OFF, 0, OFF))
    s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
    assert s.phase == Phase.CONTRACT
    assert legal(s) == [f"contract {v}" for v in range(120, 221, 5)]
    with pytest.raises(IllegalAction) as e:
        apply(s, "concede")
    assert e.value.code == "concede_sitter"
    # a hand that allows no other contract is still asked (one button): skipping the step
    # would tell the table that the sitter holds no marriage
    s = start(None, SCRIPT_98_HANDS, SCRIPT_98_TALON, totals=(0, 880, 0), barrel=(OFF, 0, OFF))
    s = do(s, "2 pass", "0 pass", "1 give 9♦", "1 give 10♦")
    assert s.phase == Phase.CONTRACT and legal(s) == ["contract 120"]
    s = do(s, "1 contract 120")
    assert s.phase == Phase.PLAY
    assert s.deal is not None and s.deal.contract == 120


def test_knock_off() -> None:
    s = sweep(new(totals=(880, 800, 0), barrel=(1, OFF, OFF)), 1, contract=120)
    res = result(s)
    assert s.totals == (760, 880, 0)
    assert s.barrel == (OFF, 0, OFF)
    assert s.falls == (1, 0, 0)
    assert "knocked_off" in res.marks[0]


def test_simultaneous_climbing_all_go_back_to_760() -> None:
    # seat 1 concedes 100: seats 0 and 2 both get 50 and both reach the barrel
    s = concede_deal(new(totals=(850, 0, 840)), 1)
    assert s.totals == (760, -100, 760)
    assert s.barrel == (OFF, OFF, OFF)
    assert s.falls == (0, 0, 0)  # going back is not a fall
    assert "barrel_back" in result(s).marks[0]


def test_simultaneous_climbing_the_sitter_stays() -> None:
    # seat 1 sits and fails its 120; the defenders 875 + 5 and 870 + 15 both climb
    s = script_98(new(totals=(875, 880, 870), barrel=(OFF, 0, OFF)), contract=120)
    assert s.totals == (760, 880, 760)
    assert s.barrel == (OFF, 1, OFF)


def test_third_fall_drops_to_zero() -> None:
    s = script_98(new(totals=(0, 880, 0), barrel=(OFF, 2, OFF), falls=(0, 2, 0)), contract=120)
    res = result(s)
    assert s.totals == (5, 0, 15)
    assert s.falls == (0, 0, 0)
    assert "third_fall" in res.marks[1]


def test_third_fall_by_knock_off() -> None:
    s = sweep(new(totals=(880, 800, 0), barrel=(0, OFF, OFF), falls=(2, 0, 0)), 1,
              contract=120)
    assert s.totals == (0, 880, 0)
    assert s.falls == (0, 0, 0)


# --- house rules of §5.8 -----------------------------------------------------------------


def test_barrel_off_first_to_1000_wins() -> None:
    r = make_rules(barrel=False)
    s = hearts_220(new(r, totals=(0, 850, 0)), contract=170)
    assert s.totals == (0, 1020, 0)
    assert s.winner == 1 and s.phase == Phase.GAME_OVER
    assert s.barrel == (OFF, OFF, OFF)


def test_barrel_off_several_reach_1000_the_higher_total_wins() -> None:
    r = make_rules(barrel=False)
    s = script_98(new(r, totals=(995, 900, 990)), contract=100)
    assert s.totals == (1000, 800, 1005)
    assert s.winner == 2


def test_barrel_off_several_reach_1000_the_declarer_wins() -> None:
    r = make_rules(barrel=False, round_declarer=True)
    s = script_98(new(r, totals=(995, 900, 990)), contract=100)  # 98 rounds to 100: made
    assert s.totals == (1000, 1000, 1005)
    assert s.winner == 1


def test_barrel_off_a_conceding_declarer_does_not_win() -> None:
    r = make_rules(barrel=False)
    s = concede_deal(new(r, totals=(950, 900, 0)), 1)
    assert s.totals == (1000, 800, 50)
    assert s.winner == 0


def test_barrel_off_tie_goes_nearest_the_dealers_left() -> None:
    r = make_rules(barrel=False)
    s = concede_deal(new(r, totals=(950, 0, 950)), 1)  # both defenders reach 1000
    assert s.totals == (1000, -100, 1000)
    assert s.winner == 2  # dealer 0: seat 2 comes before seat 0 clockwise from the forehand


def test_barrel_at_900_with_win_over_1000_sitter_needs_105() -> None:
    r = make_rules(barrel_at=900, win_over_1000=True)
    s = deal_sweep(new(r, totals=(0, 900, 0), barrel=(OFF, 0, OFF)), 1)
    d = s.deal
    assert d is not None
    assert d.bids == ((1, 105),)
    s = sweep(new(r, totals=(0, 900, 0), barrel=(OFF, 0, OFF)), 1)
    assert s.winner == 1 and s.totals[1] == 1005


def test_barrel_at_900() -> None:
    r = make_rules(barrel_at=900)
    s = sweep(new(r, totals=(0, 790, 0)), 1, contract=120)
    assert s.totals[1] == 900 and s.barrel[1] == 0
    s = sweep(new(r, totals=(0, 900, 0), barrel=(OFF, 0, OFF)), 1)
    assert result(s).contract == 100 and s.winner == 1  # 900 + 100 = 1000


def test_win_over_1000_sitter_at_880_needs_125() -> None:
    r = make_rules(win_over_1000=True)
    s = hearts_220(new(r, totals=(0, 880, 0), barrel=(OFF, 0, OFF)), contract=125)
    res = result(s)
    assert res.bid == 125 and res.contract == 125
    assert s.winner == 1 and s.totals[1] == 1005


def test_barrel_attempts_one() -> None:
    r = make_rules(barrel_attempts=1)
    s = sweep(new(r, totals=(0, 0, 880), barrel=(OFF, OFF, 0)), 1)
    assert s.totals == (0, 100, 760) and s.barrel == (OFF, OFF, OFF)


def test_barrel_knock_off_off_several_sit() -> None:
    r = make_rules(barrel_knock_off=False)
    s = sweep(new(r, totals=(880, 800, 0), barrel=(1, OFF, OFF)), 1, contract=120)
    assert s.totals == (880, 880, 0)
    assert s.barrel == (2, 0, OFF)  # each with its own tries
    s = concede_deal(new(r, totals=(850, 0, 840)), 1)
    assert s.totals == (880, -100, 880) and s.barrel == (0, OFF, 0)


def test_barrel_simultaneous_fall_off_the_higher_sits() -> None:
    r = make_rules(barrel_simultaneous_fall=False)
    s = concede_deal(new(r, totals=(850, 0, 840)), 1)  # 900 and 890 before capping
    assert s.totals == (880, -100, 760)
    assert s.barrel == (0, OFF, OFF)


def test_barrel_simultaneous_fall_off_tie_nearest_the_dealers_left() -> None:
    r = make_rules(barrel_simultaneous_fall=False)
    s = concede_deal(new(r, totals=(840, 0, 840)), 1)
    assert s.totals == (760, -100, 880)
    assert s.barrel == (OFF, OFF, 0)


def test_barrel_simultaneous_fall_off_tie_goes_to_the_declarer() -> None:
    r = make_rules(barrel_simultaneous_fall=False, round_declarer=True)
    # seat 1 makes 100 (98 rounded): 790 + 100 = 890; seat 2 takes 17 → 15: 875 + 15 = 890
    s = script_98(new(r, totals=(0, 790, 875)), contract=100)
    assert s.totals == (5, 880, 760)
    assert s.barrel == (OFF, 0, OFF)


def test_barrel_simultaneous_fall_off_tie_goes_to_the_declarer_before_the_forehand() -> None:
    r = make_rules(barrel_simultaneous_fall=False, last_trick_bonus=10)
    # dealer 2: seat 0 is the forehand; seat 1 bids 105 and makes it (98 + 10 for the last
    # trick): 779 + 105 = 884; the forehand takes 5: 879 + 5 = 884
    s = script_98(new(r, dealer=2, totals=(879, 779, 0)), contract=105, bid=105)
    res = result(s)
    assert (res.declarer, res.outcome, res.points) == (1, "made", (5, 108, 17))
    assert s.totals == (760, 880, 15)  # both at 884 before capping: the declarer sits
    assert s.barrel == (OFF, 0, OFF)


def test_barrel_third_fall_zero_off() -> None:
    r = make_rules(barrel_third_fall_zero=False)
    s = script_98(new(r, totals=(0, 880, 0), barrel=(OFF, 2, OFF), falls=(0, 2, 0)),
                  contract=120)
    assert s.totals == (5, 760, 15)
    assert s.falls == (0, 3, 0)


def test_barrel_fail_costs_contract() -> None:
    r = make_rules(barrel_fail_costs_contract=True)
    s = script_98(new(r, totals=(0, 880, 0), barrel=(OFF, 0, OFF)), contract=120)
    assert s.totals == (5, 760, 15)  # −120 for the contract, no fine on top
    assert s.barrel == (OFF, OFF, OFF)
    assert s.falls == (0, 1, 0)


def test_barrel_fail_costs_the_contract_not_the_penalty() -> None:
    r = make_rules(barrel_fail_costs_contract=True, penalty=100)
    s = script_98(new(r, totals=(0, 880, 0), barrel=(OFF, 0, OFF)), contract=120)
    assert s.totals[1] == 880 - 120  # the contract, not the fine of 100


def test_barrel_freezes_defenders() -> None:
    r = make_rules(barrel_freezes_defenders=True)
    s = script_98(new(r, totals=(0, 880, 0), barrel=(OFF, 0, OFF)), contract=120)
    assert s.totals == (0, 880, 0)
    # a sitter that is not the declarer freezes nobody
    s = sweep(new(r, totals=(880, 0, 0), barrel=(0, OFF, OFF)), 1)
    assert s.bolts == (0, 0, 1)


def sitter_fails(rules: Rules | None = None) -> GameState:
    """Dealer 0; seat 2 sits (880), declares 120 and takes no trick: seat 1 (the SWEEP hand,
    given 10♥) takes all eight, seat 0 none."""
    s = start(rules, (SWEEP_OTHER_2, SWEEP_HAND, SWEEP_OTHER_1), SWEEP_TALON,
              totals=(0, 0, 880), barrel=(OFF, OFF, 0))
    s = do(s, "2 bid 120", "0 pass", "1 pass", "2 give 9♠", "2 give 10♥", "2 contract 120")
    return play_out(s, {1: "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥ 10♥"})


def test_barrel_freezes_defenders_no_bolts() -> None:
    s = sitter_fails()
    res = result(s)
    assert res.outcome == "failed" and res.points == (0, 120, 0)
    assert s.bolts == (1, 0, 0)  # seat 0's bolt; the sitter gets none
    assert res.scores == (0, 120, 0) and s.barrel == (OFF, OFF, 1)
    r = make_rules(barrel_freezes_defenders=True)
    s = sitter_fails(r)
    assert s.bolts == (0, 0, 0)
    assert result(s).scores == (0, 0, 0)  # seat 1's 120 frozen too


def test_barrel_bidding_sitter_takes_talon() -> None:
    r = make_rules(barrel_bidding="sitter_takes_talon")
    # dealer 0, seat 2 sits: it takes the talon at 120 without bidding
    s = start(r, HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, 880), barrel=(OFF, OFF, 0))
    d = s.deal
    assert d is not None
    assert s.phase == Phase.TALON and legal(s) == ["talon 1"]  # by hand: no decision yet
    assert (d.declarer, d.bid) == (2, 120)
    s = do(s, "2 talon 1")
    d = s.deal
    assert d is not None
    assert s.phase == Phase.PASSING
    assert d.talon_shown
    s = start(make_rules(), HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, 880),
              barrel=(OFF, OFF, 0))
    assert s.phase == Phase.BIDDING
