"""RULES.md §5.5 (the golden round) and §5.6 (dark play)."""

from __future__ import annotations

from bot.engine.rules import Rules, make_rules
from bot.engine.state import GameState, Kind, Phase
from bot.engine.views import public_view, view

from .helpers import (
    HEARTS_HANDS,
    HEARTS_TALON,
    SCRIPT_98_HANDS,
    SCRIPT_98_TALON,
    bids,
    cards,
    concede_deal,
    deal_sweep,
    do,
    hearts_220,
    legal,
    new,
    note_codes,
    result,
    script_98,
    start,
    sweep,
)

OFF = -1
GOLDEN = make_rules(golden_round=True)
DARK = make_rules(dark_play=True)


def kind(s: GameState) -> Kind:
    assert s.deal is not None
    return s.deal.kind


# --- golden round ------------------------------------------------------------------------


def test_golden_deal_forehand_plays_120_without_bidding_talon_hidden() -> None:
    s = start(GOLDEN, SCRIPT_98_HANDS, SCRIPT_98_TALON)
    d = s.deal
    assert d is not None
    assert kind(s) == Kind.GOLDEN and s.golden_left == 3
    assert s.phase == Phase.TALON  # takes the talon by hand: its first decision (§2.3)
    assert (d.declarer, d.bid) == (1, 120)
    s = do(s, "1 talon 1")
    d = s.deal
    assert d is not None
    assert s.phase == Phase.PASSING
    assert not d.talon_shown and public_view(s).talon == ()
    s = do(s, "1 give 9♦", "1 give 10♦")
    assert legal(s) == ["contract 120", "concede"]


def test_golden_cards_passed_face_down_even_with_pass_face_down_off() -> None:
    r = make_rules(golden_round=True, pass_face_down=False)
    s = do(start(r, SCRIPT_98_HANDS, SCRIPT_98_TALON), "1 give 9♦", "1 give 10♦")
    assert public_view(s).gave == () and view(s, 2).gave == ()


def test_golden_failed_doubles_everything() -> None:
    s = script_98(new(GOLDEN), contract=120)
    res = result(s)
    assert res.kind == Kind.GOLDEN
    assert res.outcome == "failed"
    assert res.scores == (10, -240, 30)  # 5 → 10, −120 → −240, 17 → 15 → 30
    assert s.golden_left == 2


def test_golden_made_scores_240_and_bolts_count_twice() -> None:
    s = sweep(new(GOLDEN), 1)
    assert result(s).scores == (0, 240, 0)
    assert s.bolts == (2, 0, 2)
    s = sweep(new(make_rules(golden_round=True, golden_double_bolts=False)), 1)
    assert s.bolts == (1, 0, 1)


def test_golden_double_bolt_on_two_costs_one_doubled_penalty_and_leaves_one() -> None:
    s = sweep(new(GOLDEN, bolts=(2, 0, 1)), 1)
    assert s.bolts == (1, 0, 0)
    assert s.totals == (-240, 240, -240)


def test_golden_concession_doubled() -> None:
    s = concede_deal(new(GOLDEN), 1)
    assert result(s).scores == (120, -240, 120)


def test_golden_raise() -> None:
    s = start(GOLDEN, HEARTS_HANDS, HEARTS_TALON)
    s = do(s, "1 give J♠", "1 give J♣")
    assert legal(s) == ["contract 120", "concede"]
    r = make_rules(golden_round=True, golden_raise=True)
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON), "1 give J♠", "1 give J♣")
    assert [a for a in legal(s) if a.startswith("contract")][-1] == "contract 220"
    s = hearts_220(new(r), contract=170)
    assert result(s).scores == (0, 340, 0)


def three_golden_deals_nobody_makes(rules: Rules) -> GameState:
    s = script_98(new(rules), contract=120)
    assert s.totals == (10, -240, 30)
    s = concede_deal(s, 2)  # dealer 1: the forehand, seat 2, concedes 120 (doubled)
    assert s.totals == (130, -120, -210)
    return concede_deal(s, 0)  # dealer 2: the forehand, seat 0, concedes


def test_golden_reset_when_nobody_made_120() -> None:
    s = three_golden_deals_nobody_makes(GOLDEN)
    assert s.totals == (0, 0, 0)
    assert s.rospis_count == (0, 0, 0) and s.bolts == (0, 0, 0) and s.falls == (0, 0, 0)
    assert s.golden_left == 0
    assert "golden_reset" in note_codes(result(s))
    s = deal_sweep(s, 1)  # dealer 0 again: a normal deal with bidding
    assert kind(s) == Kind.NORMAL and s.phase == Phase.BIDDING


def test_golden_reset_off_plays_the_golden_round_again() -> None:
    s = three_golden_deals_nobody_makes(make_rules(golden_round=True, golden_reset=False))
    assert s.totals == (-110, 0, -90)
    assert s.rospis_count == (1, 0, 1)
    assert s.golden_left == 3
    s = deal_sweep(s, 1)
    assert kind(s) == Kind.GOLDEN and s.phase == Phase.TALON


def test_golden_round_made_then_normal_play() -> None:
    s = hearts_220(new(GOLDEN), contract=120)  # made: +240
    s = concede_deal(s, 2)
    s = concede_deal(s, 0)
    assert s.totals == (0 + 120 - 240, 240 + 120 + 120, -240 + 120)
    s = deal_sweep(s, 1)
    assert kind(s) == Kind.NORMAL and s.phase == Phase.BIDDING


def test_golden_redeal_is_not_a_golden_deal() -> None:
    hands = ("K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦")
    # seat 2 (12 points) has no bid in a golden deal: its first decision is its first card
    s = do(start(GOLDEN, hands, "9♥ J♥ Q♥"), "1 talon 1", "1 give 9♥", "1 give J♥",
           "1 contract 120", "1 play A♠")
    assert s.to_act == 2 and legal(s)[-1] == "redeal"
    s = do(s, "2 redeal")
    assert result(s).notes[0].code == "redeal_hand_below"
    assert s.golden_left == 3 and s.dealer == 0


# --- dark play ---------------------------------------------------------------------------


def test_dark_offered_to_the_forehand_before_it_looks() -> None:
    s = start(DARK, SCRIPT_98_HANDS, SCRIPT_98_TALON)
    assert s.phase == Phase.DARK and s.to_act == 1
    assert legal(s) == ["dark", "light"]
    assert view(s, 1).hand == ()  # not looked at yet
    assert sorted(view(s, 2).hand) == sorted(cards(SCRIPT_98_HANDS[2]))
    s = do(s, "1 light")
    assert s.phase == Phase.BIDDING and kind(s) == Kind.NORMAL
    assert view(s, 1).hand != ()


def test_dark_game_contract_120_talon_hidden_face_down() -> None:
    r = make_rules(dark_play=True, pass_face_down=False)
    s = do(start(r, SCRIPT_98_HANDS, SCRIPT_98_TALON), "1 dark")
    d = s.deal
    assert d is not None
    assert kind(s) == Kind.DARK and s.phase == Phase.PASSING
    assert (d.declarer, d.bid, d.contract) == (1, 120, 120)
    assert public_view(s).talon == ()
    s = do(s, "1 give 9♦", "1 give 10♦")
    assert public_view(s).gave == ()
    assert s.phase == Phase.PLAY  # contract 120, never raised, no concession


def test_dark_failed_doubled_defenders_round_then_double() -> None:
    s = script_98(new(DARK), first=("1 dark",))
    res = result(s)
    assert res.kind == Kind.DARK and res.contract == 120
    assert res.points == (5, 98, 17)
    assert res.scores == (10, -240, 30)  # 17 → 15 → 30


def test_dark_made_scores_240() -> None:
    s = hearts_220(new(DARK), first=("1 dark",))
    res = result(s)
    assert res.points == (0, 220, 0)
    assert res.scores == (0, 240, 0)


def test_dark_cap_240_off() -> None:
    s = hearts_220(new(make_rules(dark_play=True, dark_cap_240=False)), first=("1 dark",))
    assert result(s).scores == (0, 440, 0)  # twice the points taken


def test_dark_double_bolts() -> None:
    s = sweep(new(DARK), 1, first=("1 dark",))
    assert result(s).scores == (0, 240, 0)
    assert s.bolts == (2, 0, 2)
    s = sweep(new(make_rules(dark_play=True, dark_double_bolts=False)), 1, first=("1 dark",))
    assert s.bolts == (1, 0, 1)


def test_dark_rospis() -> None:
    r = make_rules(dark_play=True, dark_rospis=True)
    s = do(start(r, SCRIPT_98_HANDS, SCRIPT_98_TALON), "1 dark", "1 give 9♦", "1 give 10♦")
    assert legal(s) == ["contract 120", "concede"]
    s = do(s, "1 concede")
    assert result(s).scores == (120, -240, 120)


def test_dark_on_barrel() -> None:
    s = start(DARK, SCRIPT_98_HANDS, SCRIPT_98_TALON, totals=(880, 0, 0), barrel=(0, OFF, OFF))
    assert s.phase == Phase.BIDDING
    r = make_rules(dark_play=True, dark_on_barrel=True)
    s = start(r, SCRIPT_98_HANDS, SCRIPT_98_TALON, totals=(880, 0, 0), barrel=(0, OFF, OFF))
    assert s.phase == Phase.DARK


UNBLIND = make_rules(dark_play=True, dark_unblind=True)


def test_dark_unblind_needs_a_marriage() -> None:
    s = do(start(UNBLIND, SCRIPT_98_HANDS, SCRIPT_98_TALON), "1 dark")
    assert s.phase == Phase.BIDDING and legal(s) == ["pass"]  # seat 2 holds no marriage
    s = do(s, "2 pass")
    assert legal(s) == ["pass"]
    s = do(s, "0 pass")
    assert kind(s) == Kind.DARK and s.deal is not None and s.deal.declarer == 1


def test_dark_unblind_125_bidding_goes_on_talon_shown_face_up() -> None:
    s = do(start(UNBLIND, HEARTS_HANDS, HEARTS_TALON), "1 dark")
    assert legal(s) == ["pass", "bid 125"]  # seat 2 holds ♠ and ♣ marriages
    s = do(s, "2 bid 125")
    d = s.deal
    assert d is not None
    assert kind(s) == Kind.NORMAL
    assert d.bids == ((1, 120), (2, 125))  # the forehand's 120 stays
    assert s.to_act == 0 and bids(s) == list(range(130, 201, 5))  # seat 0: ♦ marriage
    s = do(s, "0 pass")
    assert bids(s) == list(range(130, 221, 5))  # the forehand bids as usual
    s = do(s, "1 pass")
    d = s.deal
    assert d is not None
    assert (d.declarer, d.bid) == (2, 125)
    assert public_view(s).talon == cards(HEARTS_TALON)
    s = do(s, "2 give 9♠", "2 give 9♣")
    assert public_view(s).gave == view(s, 2).gave != ()  # passed face up


def test_dark_unblind_takes_talon() -> None:
    r = make_rules(dark_play=True, dark_unblind=True, dark_unblind_takes_talon=True)
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON), "1 dark", "2 bid 125")
    d = s.deal
    assert d is not None
    assert s.phase == Phase.PASSING
    assert (d.declarer, d.bid) == (2, 125)
    assert public_view(s).talon == cards(HEARTS_TALON)


def test_dark_forehand_is_not_asked_for_a_redeal() -> None:
    # the forehand holds 13 points: asked for a redeal after looking, not in a dark game
    hands = ("A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "9♠ 9♣ J♠ Q♠ K♠ J♣ J♦", "K♣ K♥ Q♦ K♦ 10♥ Q♥ Q♣")
    s = start(DARK, hands, "9♥ J♥ 9♦")
    s1 = do(s, "1 light", "2 pass", "0 pass")
    assert s1.phase == Phase.TALON and legal(s1) == ["talon 1", "redeal"]
    s2 = do(s, "1 dark")
    assert s2.phase == Phase.PASSING  # no step to take the talon by hand, no request
    assert s2.deal is not None and s2.deal.talon_taken  # (its redeal now: the talon's 2 points)


# --- doubling of penalties and bolts in a golden deal; hidden talons of two players ---------


def test_golden_third_concession_penalty_counts_double() -> None:
    # §5.5: every result, penalty and bolt of a golden deal counts double
    r = make_rules(golden_round=True, rospis_third_penalty=True)
    s = concede_deal(new(r, rospis_count=(0, 2, 0)), 1)
    assert result(s).scores == (120, -240 - 240, 120)


def test_golden_concession_bolt_counts_double() -> None:
    r = make_rules(golden_round=True, rospis_keeps_contract=True)
    s = concede_deal(new(r), 1)
    assert result(s).scores == (120, 0, 120)
    assert s.bolts == (0, 2, 0)
    r = make_rules(golden_round=True, rospis_keeps_contract=True, golden_double_bolts=False)
    assert concede_deal(new(r), 1).bolts == (0, 1, 0)


def test_dark_concession_bolt_counts_double() -> None:
    r = make_rules(dark_play=True, dark_rospis=True, rospis_keeps_contract=True)
    s = concede_deal(new(r), 1, first=("1 dark",))
    assert result(s).scores == (120, 0, 120)
    assert s.bolts == (0, 2, 0)


TWO_HANDS = ("K♠ Q♠ K♣ Q♣ J♦ 9♦ K♥ Q♥ J♥ 9♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥ 10♥ 9♠ 9♣")
TWO_TALON = "J♠ J♣ K♦ Q♦"


def test_two_players_golden_talon_stays_hidden() -> None:
    s = start(make_rules(players=2, golden_round=True), TWO_HANDS, TWO_TALON)
    assert s.phase == Phase.TALON and kind(s) == Kind.GOLDEN
    s = do(s, "1 talon 1")
    assert public_view(s).talon == () and view(s, 0).talon == ()
    assert view(s, 1).talon == cards("J♠ J♣")


def test_two_players_dark_talon_stays_hidden() -> None:
    s = start(make_rules(players=2, dark_play=True), TWO_HANDS, TWO_TALON)
    s = do(s, "1 dark", "1 talon 2")
    assert kind(s) == Kind.DARK
    assert public_view(s).talon == ()
    s = do(start(make_rules(players=2, dark_play=True), TWO_HANDS, TWO_TALON), "1 light",
           "0 pass", "1 talon 2")
    assert public_view(s).talon == cards("K♦ Q♦")


def test_golden_reset_takes_the_sitter_off_the_barrel() -> None:
    # a position built by hand: the last golden deal, seat 2 sits; nobody made 120
    s = script_98(new(GOLDEN, golden_left=1, totals=(0, 0, 880), barrel=(OFF, OFF, 0)),
                  contract=120)
    assert s.totals == (0, 0, 0)
    assert s.barrel == (OFF, OFF, OFF)
