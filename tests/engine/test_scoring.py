"""RULES.md §4.1–4.4 and §4.6: scoring a deal, bolts, concession, the 555 dump, the order
of effects."""

from __future__ import annotations

from bot.engine.rules import make_rules

from .helpers import (
    concede_deal,
    do,
    hearts_220,
    new,
    note_codes,
    play_out,
    result,
    script_98,
    start,
    sweep,
)


def test_defenders_round_17_to_15() -> None:
    res = result(script_98())
    assert res.points == (5, 98, 17)
    assert res.scores == (5, -100, 15)


def test_defenders_round_18_to_20() -> None:
    res = result(script_98(variant=97))
    assert res.points == (5, 97, 18)
    assert res.scores == (5, -100, 20)


def test_contract_170_with_220_taken_scores_170() -> None:
    s = hearts_220(contract=170)
    res = result(s)
    assert res.points == (0, 220, 0)
    assert res.outcome == "made"
    assert res.scores == (0, 170, 0)
    assert s.totals == (0, 170, 0)


def test_contract_equal_to_the_points_is_made() -> None:
    s = hearts_220(contract=220)
    assert result(s).scores == (0, 220, 0)


def test_contract_100_with_98_taken_fails() -> None:
    res = result(script_98())
    assert res.outcome == "failed"
    assert res.scores[1] == -100


def test_round_declarer_makes_100_with_98() -> None:
    s = script_98(new(make_rules(round_declarer=True)))
    res = result(s)
    assert res.outcome == "made"
    assert res.scores == (5, 100, 15)


def test_round_declarer_97_rounds_to_95_and_fails() -> None:
    res = result(script_98(new(make_rules(round_declarer=True)), variant=97))
    assert res.outcome == "failed"
    assert res.scores == (5, -100, 20)


def test_sweep_gives_bolts_to_trickless_defenders() -> None:
    s = sweep(new(), 1)
    res = result(s)
    assert res.scores == (0, 100, 0)
    assert s.bolts == (1, 0, 1)
    assert s.bolts_game == (1, 0, 1)
    assert "bolt" in res.marks[0] and "bolt" in res.marks[2]


def test_third_bolt_costs_120_and_the_count_starts_again() -> None:
    # a position built by hand: seat 0 has two bolts already
    s = sweep(new(bolts=(2, 1, 0), bolts_game=(2, 1, 0), totals=(300, 0, 0)), 1)
    res = result(s)
    assert s.totals == (180, 100, 0)
    assert res.scores == (-120, 100, 0)
    assert s.bolts == (0, 1, 1)
    assert s.bolts_game == (3, 1, 1)
    assert "bolt_penalty" in note_codes(res)
    assert "penalty" in res.marks[0]


def test_bolts_count_over_the_game() -> None:
    # seat 2 gets a bolt in each of three sweeps by other seats: the third costs 120
    s = new(dealer=0)
    s = sweep(s, 1)  # dealer 0: seat 1 declares 100, seats 0 and 2 bolt
    s = sweep(s, 0, bid=105)  # dealer 1: forehand 2 opens, seat 0 bids 105
    s = sweep(s, 0)  # dealer 2: forehand 0
    # bolts: seat 0 in deal 1; seat 1 in deals 2 and 3; seat 2 in all three
    assert s.totals == (105 + 100, 100, -120)
    assert s.bolts == (1, 2, 0)
    assert s.bolts_game == (1, 2, 3)


# ZERO deal: the declarer (seat 1) wins only T1, three nines (0 points), then loses the rest:
# a trick worth nothing still saves from a bolt.
ZERO_HANDS = (
    "9♦ 10♣ Q♣ 10♦ J♦ 10♥ K♥",
    "A♠ 10♠ K♠ Q♠ J♠ 9♠ 9♥",
    "9♣ A♣ K♣ J♣ Q♦ A♥ Q♥",
)
ZERO_TALON = "J♥ A♦ K♦"


def test_a_trick_of_nines_is_a_trick_no_bolt() -> None:
    s = start(None, ZERO_HANDS, ZERO_TALON)
    s = do(s, "2 pass", "0 pass", "1 give A♦", "1 give K♦", "1 contract 100")
    s = play_out(s, {1: "9♠ 9♥", 2: "9♣ A♥", 0: "9♦"})
    res = result(s)
    assert res.actions[6:9] == ("1:play 9♠", "2:play 9♣", "0:play 9♦")
    assert res.points[1] == 0
    assert res.outcome == "failed" and res.scores[1] == -100
    assert "bolt" not in res.marks[1]
    assert s.bolts[1] == 0


def test_concession_writes_no_bolts() -> None:
    s = concede_deal(new(bolts=(2, 2, 2), bolts_game=(2, 2, 2)), 1)
    assert s.bolts == (2, 2, 2)
    assert result(s).scores == (50, -100, 50)


def test_555_dump() -> None:
    # a position built by hand: seat 1 at 435 makes 120 → exactly 555 → 0
    s = sweep(new(totals=(0, 435, 0)), 1, contract=120)
    res = result(s)
    assert s.totals[1] == 0
    assert res.scores[1] == -435
    assert "samosval" in res.marks[1]


def test_minus_555_dump() -> None:
    s = concede_deal(new(totals=(0, -455, 0)), 1)
    assert s.totals == (50, 0, 50)


def test_not_555_no_dump() -> None:
    s = sweep(new(totals=(0, 440, 0)), 1, contract=120)
    assert s.totals[1] == 560


def test_third_bolt_then_555() -> None:
    # docs/rules.md §13: 675 − 120 (third bolt) = 555 → 0
    s = sweep(new(totals=(675, 0, 0), bolts=(2, 0, 0), bolts_game=(2, 0, 0)), 1)
    assert s.totals == (0, 100, 0)
    codes = note_codes(result(s))
    assert codes.index("bolt_penalty") < codes.index("samosval")


def test_deal_result_records_the_deal() -> None:
    s = hearts_220(contract=170)
    res = result(s)
    assert (res.number, res.dealer, res.declarer, res.bid, res.contract) == (1, 0, 1, 100, 170)
    assert res.totals == s.totals


def test_seed_002_example_concession_sends_a_to_555_and_0() -> None:
    # seed 002: A, B, C have 495, 200, 760; C took the talon at 120 and concedes, 60 each:
    # A reaches exactly 555 and drops to 0. Here A = seat 0, B = seat 1, C = seat 2.
    s = concede_deal(new(totals=(495, 200, 760)), 2, bid=120)
    assert result(s).scores == (-495, 60, -120)
    assert s.totals == (0, 260, 640)
