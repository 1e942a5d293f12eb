"""RULES.md §5.1–5.4 and §5.7: the house rules of bidding, play, redeal, concession,
penalties and scoring. Each test switches one rule and checks the change RULES.md gives.
(The barrel's rules are in test_barrel.py, the golden round and dark play in
test_golden_dark.py.)"""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine import cards as C
from bot.engine.game import apply, deal
from bot.engine.rules import Rules, make_rules
from bot.engine.state import GameState, IllegalAction, Phase
from bot.engine.views import public_view, view

from .helpers import (
    HEARTS_HANDS,
    HEARTS_TALON,
    SWEEP_HAND,
    SWEEP_OTHER_1,
    SWEEP_OTHER_2,
    SWEEP_TALON,
    bids,
    card,
    cards,
    concede_deal,
    do,
    layout_with,
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
SWEEP = (SWEEP_OTHER_2, SWEEP_HAND, SWEEP_OTHER_1)  # dealer 0: seat 1 sweeps


def contracts(s: GameState) -> list[int]:
    return [int(a.split()[1]) for a in legal(s) if a.startswith("contract")]


# --- 5.1 limits and bidding ------------------------------------------------------------


def test_bid_step_10() -> None:
    s = start(make_rules(bid_step=10), SWEEP, SWEEP_TALON)
    assert bids(s) == list(range(110, 221, 10))
    with pytest.raises(IllegalAction):
        apply(s, "bid 105")
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give J♣")
    assert contracts(s) == [100, 110, 120]


def test_bid_jumps_off() -> None:
    s = start(make_rules(bid_jumps=False), SWEEP, SWEEP_TALON)
    assert bids(s) == [105]
    s = do(s, "2 bid 105")
    assert bids(s) == [110]
    with pytest.raises(IllegalAction):
        apply(s, "bid 120")


def test_bid_needs_marriage_off() -> None:
    s = start(make_rules(bid_needs_marriage=False), SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 bid 105")
    assert bids(s) == list(range(110, 301, 5))  # seat 1 holds no marriage
    s = do(s, "1 bid 200", "0 pass", "1 give 9♠", "1 give J♣")
    assert contracts(s) == list(range(200, 301, 5))


def test_max_bid() -> None:
    s = do(start(make_rules(max_bid=200), SWEEP, SWEEP_TALON), "2 pass")
    assert bids(s)[-1] == 200  # seat 0 holds ♦ and ♥: 300 by default
    hands = ("A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "K♥ Q♥ K♦ Q♦ K♣ Q♣ 9♠", "K♠ Q♠ J♠ J♣ 9♣ 10♥ J♦")
    s = start(make_rules(max_bid=400), hands, "9♦ J♥ 9♥")
    s = do(s, "2 pass", "0 bid 105")
    assert bids(s)[-1] == 360  # seat 1: 120 + 100 + 80 + 60


def test_talon_hidden_on_100_off() -> None:
    s = do(start(make_rules(talon_hidden_on_100=False), SWEEP, SWEEP_TALON), "2 pass", "0 pass",
           "1 talon 1")
    assert s.deal is not None and s.deal.talon_shown
    assert public_view(s).talon == view(s, 2).talon == cards(SWEEP_TALON)


def test_pass_face_down_off_shows_the_passed_cards_to_all() -> None:
    for rules, shown in ((make_rules(), False), (make_rules(pass_face_down=False), True)):
        s = do(start(rules, SWEEP, SWEEP_TALON), "2 pass", "0 pass", "1 give 9♠", "1 give J♣")
        gave = ((2, card("9♠")), (0, card("J♣")))
        assert view(s, 1).gave == gave
        assert (public_view(s).gave == gave) is shown
        assert (view(s, 2).gave == gave) is shown
        assert (view(s, 0).gave == gave) is shown


def test_min_total_to_bid() -> None:
    r = make_rules(min_total_to_bid=0)
    s = start(r, SWEEP, SWEEP_TALON, totals=(-5, -50, 0))
    d = s.deal
    assert d is not None
    assert d.bids == ((1, 100),)  # the silenced forehand keeps its forced 100
    assert bids(s)[0] == 105  # seat 2 at 0 is not below 0
    s = do(s, "2 bid 105")
    assert bids(s) == []  # seat 0 at −5 may only pass
    assert legal(s) == ["pass"]
    s = do(s, "0 pass")
    assert bids(s) == [] and legal(s) == ["pass"]  # the forehand at −50 may not raise
    s = do(s, "1 pass")
    assert s.deal is not None and s.deal.declarer == 2
    # by default everybody bids
    s = do(start(None, SWEEP, SWEEP_TALON, totals=(-5, -50, 0)), "2 bid 105")
    assert bids(s)[0] == 110


# --- 5.2 play ----------------------------------------------------------------------------

# TRUMP2: dealer 0, seat 1 declares 100, gives 9♠ to seat 2 and 9♦ to seat 0. Seat 1 wins
# T1 (A♦), declares K♥; seat 0 wins T2 with 10♥ and has its first lead holding J♥ (the
# trump seat 1 declared) and other cards.
TRUMP2_HANDS = (
    "10♥ J♥ K♣ Q♣ J♣ 10♦ J♦",
    "K♥ Q♥ A♥ 9♣ A♦ K♦ 9♦",
    "A♠ 10♠ K♠ Q♠ J♠ 9♥ 10♣",
)
TRUMP2_TALON = "Q♦ 9♠ A♣"


def trump2(rules: Rules | None = None) -> GameState:
    s = start(rules if rules is not None else make_rules(), TRUMP2_HANDS, TRUMP2_TALON)
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give 9♦", "1 contract 100",
           "1 play A♦", "2 play 9♠", "0 play 9♦", "1 declare K♥", "2 play 9♥", "0 play 10♥")
    assert s.to_act == 0 and s.deal is not None and s.deal.trump == C.HEARTS
    return s


def lead_options(s: GameState) -> list[str]:
    return sorted(a.split()[1] for a in legal(s) if a.startswith("play"))


def test_first_lead_default_any_card() -> None:
    assert lead_options(trump2()) == sorted(["J♥", "K♣", "Q♣", "J♣", "10♦", "J♦"])


def test_must_lead_trump() -> None:
    s = trump2(make_rules(must_lead_trump=True))
    assert lead_options(s) == ["J♥"]
    s = do(s, "0 play J♥", "1 play A♥", "2 play A♠")
    # seat 1 won and has led before: no duty any more
    assert len(lead_options(s)) == 5


def test_no_lead_foreign_trump() -> None:
    s = trump2(make_rules(no_lead_foreign_trump=True))
    assert lead_options(s) == sorted(["K♣", "Q♣", "J♣", "10♦", "J♦"])
    with pytest.raises(IllegalAction):
        apply(s, "play J♥")


def test_marriage_first_lead() -> None:
    s = start(make_rules(marriage_first_lead=True), TRUMP2_HANDS, TRUMP2_TALON)
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give 9♦", "1 contract 100")
    assert "declare K♥" in legal(s) and "declare Q♦" in legal(s)
    s = do(s, "1 declare Q♦")
    assert s.deal is not None and s.deal.trump == C.DIAMONDS
    assert s.deal.declared[0].value == 80


def test_last_trick_bonus() -> None:
    # SCRIPT_98: the declarer takes the last trick: 98 + 10 = 108 ≥ 100
    res = result(script_98(new(make_rules(last_trick_bonus=10))))
    assert res.points == (5, 108, 17)
    assert res.scores == (5, 100, 15)


# SWEEP holds four aces: with ace_marriage, seat 1 wins T1 with 10♠ (not an ace), then leads
# A♥ declaring the ace marriage: +200, trump unchanged; it takes all 8 tricks: 320.
def test_ace_marriage() -> None:
    r = make_rules(ace_marriage=True)
    s = start(r, SWEEP, SWEEP_TALON)
    s = do(s, "2 bid 105", "0 pass")
    assert bids(s)[-1] == 300  # 120 + 200 for four aces
    s = do(s, "1 bid 300", "2 pass", "1 give 9♠", "1 give J♣")
    assert contracts(s) == [300]
    s = do(s, "1 contract 300")
    assert not [a for a in legal(s) if a.startswith("declare")]  # no trick yet
    s = do(s, "1 play 10♠", "2 play K♠", "0 play J♣")
    assert sorted(a for a in legal(s) if a.startswith("declare")) == sorted(
        ["declare A♠", "declare A♣", "declare A♦", "declare A♥"]
    )
    s = do(s, "1 declare A♥")
    d = s.deal
    assert d is not None
    assert d.trump == -1  # the ace marriage sets no trump
    assert d.declared[-1].value == 200
    s = play_out(s)
    res = result(s)
    assert res.points == (0, 320, 0)
    assert res.scores == (0, 300, 0)


def test_ace_marriage_needs_the_four_aces_in_hand() -> None:
    s = start(make_rules(ace_marriage=True), SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give J♣", "1 contract 100",
           "1 play A♠", "2 play K♠", "0 play J♣")
    # it won a trick, but with A♠: it holds three aces now
    assert not [a for a in legal(s) if a.startswith("declare")]


def test_ace_marriage_off_by_default() -> None:
    s = start(None, SWEEP, SWEEP_TALON)
    s = do(s, "2 bid 105", "0 pass")
    assert bids(s)[-1] == 120
    s = do(s, "1 pass", "2 give K♠", "2 give Q♠", "2 contract 105")
    s = play_out(s)
    assert ":declare A" not in " ".join(result(s).actions)


def test_ace_marriage_with_marriage_first_lead() -> None:
    s = start(make_rules(ace_marriage=True, marriage_first_lead=True), SWEEP, SWEEP_TALON)
    s = do(s, "2 pass", "0 pass", "1 give 9♠", "1 give J♣", "1 contract 100")
    assert "declare A♥" in legal(s)


# --- 5.3 redeal ----------------------------------------------------------------------------

H13 = "9♠ 9♣ J♠ Q♠ K♠ J♣ J♦"  # 13 points
H14 = "9♠ 9♣ J♠ Q♠ K♠ Q♣ J♦"  # 14 points
NINES4 = "9♠ 9♣ 9♦ 9♥ A♠ A♣ A♦"
NINES3 = "9♠ 9♣ 9♦ A♠ A♣ A♦ 10♠"
JACKS4 = "J♠ J♣ J♦ J♥ A♠ A♣ A♦"


def offered(rules: Rules | None, hand: str, seat: int = 2) -> bool:
    """Whether ``seat`` (dealt ``hand``) is offered a redeal with its first decision: seat 2
    with its first bid, the forehand (seat 1) before taking the talon when both pass."""
    r = rules if rules is not None else make_rules()
    s = deal(new(r), layout_with({seat: hand}))
    while s.to_act != seat:
        s = apply(s, "pass")
    assert s.phase == (Phase.BIDDING if seat == 2 else Phase.TALON)
    return "redeal" in legal(s)


@pytest.mark.parametrize(
    ("changes", "hand", "expected"),
    [
        ({}, H13, True),
        ({}, H14, False),
        ({"redeal_hand_below": None}, H13, False),
        ({"redeal_hand_below": 15}, H14, True),
        ({"redeal_hand_below": 13}, H13, False),
        ({}, NINES4, True),
        ({"redeal_four_nines": False}, NINES4, False),
        ({}, NINES3, True),
        ({"redeal_three_nines": "off"}, NINES3, False),
        ({"redeal_three_nines": "forehand"}, NINES3, False),  # seat 2 is not the forehand
        ({}, JACKS4, True),
        ({"redeal_four_jacks": False}, JACKS4, False),
    ],
)
def test_hand_redeal_conditions(changes: dict[str, Any], hand: str, expected: bool) -> None:
    assert offered(make_rules(**changes), hand) is expected


def test_three_nines_forehand_only() -> None:
    r = make_rules(redeal_three_nines="forehand")
    assert offered(r, NINES3, seat=1)
    assert not offered(r, NINES3, seat=2)


def talon_redeal_offered(rules: Rules | None, talon: str, raise_bid: bool = False) -> bool:
    r = rules if rules is not None else make_rules()
    lay = layout_with({1: SWEEP_HAND.replace("A♥", "K♥")}, talon=talon)
    s = deal(new(r), lay)
    s = do(s, "2 bid 105", "0 pass", "1 bid 110", "2 pass") if raise_bid else do(
        s, "2 pass", "0 pass", "1 talon 1")
    assert s.phase == Phase.PASSING and s.to_act == 1
    return "redeal" in legal(s)


@pytest.mark.parametrize(
    ("changes", "talon", "raise_bid", "expected"),
    [
        ({}, "J♠ J♣ 9♦", False, True),  # 4 points < 5
        ({}, "J♠ Q♣ 9♦", False, False),  # 5 points
        ({"redeal_talon_below": None}, "J♠ J♣ 9♦", False, False),
        ({"redeal_talon_below": 10}, "J♠ Q♣ 9♦", False, True),
        ({}, "9♠ 9♣ A♥", False, True),  # two nines
        ({"redeal_talon_two_nines": False}, "9♠ 9♣ A♥", False, False),
        ({}, "J♠ J♣ J♦", False, True),  # three jacks (6 points)
        ({"redeal_talon_three_jacks": False}, "J♠ J♣ J♦", False, False),
        ({}, "J♠ J♣ 9♦", True, True),
        ({"redeal_talon_only_on_100": True}, "J♠ J♣ 9♦", True, False),
        ({"redeal_talon_only_on_100": True}, "J♠ J♣ 9♦", False, True),
    ],
)
def test_talon_redeal_conditions(
    changes: dict[str, Any], talon: str, raise_bid: bool, expected: bool
) -> None:
    assert talon_redeal_offered(make_rules(**changes), talon, raise_bid) is expected


def test_talon_redeal_keeps_the_dealer_and_scores_nothing() -> None:
    lay = layout_with({1: SWEEP_HAND.replace("A♥", "K♥")}, talon="J♠ J♣ 9♦")
    s = deal(new(totals=(10, 20, 30)), lay)
    s = do(s, "2 pass", "0 pass", "1 talon 1", "1 redeal")
    res = result(s)
    assert res.outcome == "redeal" and res.scores == (0, 0, 0)
    assert s.totals == (10, 20, 30) and s.dealer == 0 and s.phase == Phase.DEALING
    assert "redeal_talon_below" in note_codes(res)


# NINES: dealer 0; the forehand (seat 1) is dealt four nines and three jacks (it keeps its
# hand), takes J♥ A♠ A♣, passes the aces and holds every nine and jack: it cannot win a
# trick (the others hold no marriage, so there is never a trump).
NINES_HANDS = (
    "Q♠ Q♣ K♦ K♥ 10♦ 10♥ A♥",
    "9♠ 9♣ 9♦ 9♥ J♠ J♣ J♦",
    "K♠ K♣ Q♦ Q♥ 10♠ 10♣ A♦",
)
NINES_TALON = "J♥ A♠ A♣"


def nines(rules: Rules | None = None, **position: Any) -> GameState:
    s = start(rules, NINES_HANDS, NINES_TALON, **position)
    return do(s, "2 pass", "0 pass", "1 talon 1", "1 give A♠", "1 give A♣")


def test_nines_deal_declarer_takes_nothing() -> None:
    s = play_out(do(nines(), "1 contract 100"))
    res = result(s)
    assert res.points[1] == 0 and res.scores[1] == -100
    assert "bolt" in res.marks[1] and s.bolts[1] == 1


def test_redeal_after_pass() -> None:
    s = do(nines(make_rules(redeal_after_pass=True)), "1 contract 100")
    # no pause: the play starts and the request comes with the declarer's first card
    assert s.phase == Phase.PLAY and s.to_act == 1
    assert legal(s)[-1] == "redeal"
    s2 = do(s, "1 redeal")
    res = result(s2)
    assert res.outcome == "redeal" and s2.dealer == 0 and s2.totals == (0, 0, 0)
    assert res.notes[0].code == "redeal_four_nines_after_pass"
    s3 = do(s, "1 play 9♠")
    assert "redeal" not in legal(do(s3, "2 play K♠", "0 play Q♠"))  # lapsed with its card
    # off by default: no request
    assert "redeal" not in legal(do(nines(), "1 contract 100"))


# NINES_D: dealer 0; seat 2 (a defender) holds the four nines and keeps them after the pass
NINES_D_HANDS = (
    "Q♠ Q♣ K♦ K♥ 10♦ 10♥ A♥",
    "J♠ J♣ J♦ A♠ A♣ K♠ K♣",
    "9♠ 9♣ 9♦ 9♥ 10♠ 10♣ A♦",
)
NINES_D_TALON = "J♥ Q♦ Q♥"


def test_redeal_after_pass_out_of_turn_by_a_defender() -> None:
    r = make_rules(redeal_after_pass=True)
    s = start(r, NINES_D_HANDS, NINES_D_TALON)
    assert legal(s)[-1] == "redeal"  # four nines before bidding: with its first bid
    s = do(s, "2 pass", "0 pass", "1 talon 1", "1 give J♥", "1 give Q♦")
    assert s.phase == Phase.CONTRACT and s.to_act == 1
    # seat 2 may ask now, out of turn; only its own view shows it
    assert view(s, 2).legal == () and [str(a) for a in view(s, 2).offers] == ["redeal"]
    assert view(s, 0).offers == () and public_view(s).offers == ()
    with pytest.raises(IllegalAction) as e:
        apply(s, "redeal", seat=0)
    assert e.value.code == "not_your_turn"
    s2 = apply(s, "redeal", seat=2)
    assert result(s2).actions[-1] == "2:redeal"
    assert result(s2).marks[2] == ("redeal",) and s2.dealer == 0
    # until its first card
    s3 = do(s, "1 contract 100", "1 play A♠")
    assert legal(s3)[-1] == "redeal"
    s4 = do(s3, "2 play 10♠")
    assert view(s4, 2).offers == ()
    with pytest.raises(IllegalAction):
        apply(s4, "redeal", seat=2)


# --- 5.4 concession -----------------------------------------------------------------------


def concede_140(rules: Rules | None = None, **position: Any) -> GameState:
    s = start(rules, HEARTS_HANDS, HEARTS_TALON, **position)
    return do(s, "2 bid 135", "0 pass", "1 bid 140", "2 pass", "1 give J♠", "1 give J♣",
              "1 concede")


@pytest.mark.parametrize(
    ("pays", "at_105", "at_140"),
    [("half", 55, 70), ("sixty", 60, 60), ("half_max_60", 55, 60)],
)
def test_rospis_pays(pays: str, at_105: int, at_140: int) -> None:
    r = make_rules(rospis_pays=pays)
    assert result(concede_deal(new(r), 2, bid=105)).scores == (at_105, at_105, -105)
    assert result(concede_140(r)).scores == (at_140, -140, at_140)


def test_rospis_off() -> None:
    s = start(make_rules(rospis=False), HEARTS_HANDS, HEARTS_TALON)
    s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
    assert "concede" not in legal(s)


def test_rospis_keeps_contract() -> None:
    s = concede_deal(new(make_rules(rospis_keeps_contract=True)), 1)
    res = result(s)
    assert res.scores == (50, 0, 50)
    assert s.bolts == (0, 1, 0)
    assert s.rospis_count == (0, 1, 0)


def test_rospis_limit() -> None:
    r = make_rules(rospis_limit=1)
    s = start(r, HEARTS_HANDS, HEARTS_TALON, rospis_count=(0, 1, 0))
    s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
    assert "concede" not in legal(s)
    s = start(r, HEARTS_HANDS, HEARTS_TALON, rospis_count=(1, 0, 1))
    s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
    assert "concede" in legal(s)


def test_rospis_counted() -> None:
    s = concede_deal(new(), 1)
    assert s.rospis_count == (0, 1, 0)


def test_rospis_third_penalty() -> None:
    r = make_rules(rospis_third_penalty=True)
    s = concede_deal(new(r, rospis_count=(0, 2, 0)), 1)
    assert result(s).scores == (50, -100 - 120, 50)
    assert s.rospis_count == (0, 3, 0)
    s = concede_deal(new(r, rospis_count=(0, 1, 0)), 1)
    assert result(s).scores == (50, -100, 50)
    s = concede_deal(new(make_rules(), rospis_count=(0, 2, 0)), 1)
    assert result(s).scores == (50, -100, 50)


def test_rospis_barrel_blocks_all() -> None:
    for rules, allowed in ((make_rules(), True), (make_rules(rospis_barrel_blocks_all=True),
                                                   False)):
        s = start(rules, HEARTS_HANDS, HEARTS_TALON, totals=(880, 0, 0), barrel=(0, OFF, OFF))
        s = do(s, "2 pass", "0 pass", "1 give J♠", "1 give J♣")
        assert ("concede" in legal(s)) is allowed


# --- 5.7 penalties and scoring ---------------------------------------------------------------


def test_penalty() -> None:
    r = make_rules(penalty=100)
    s = sweep(new(r, bolts=(2, 0, 0)), 1)
    assert s.totals == (-100, 100, 0)
    s = script_98(new(make_rules(penalty=100), totals=(0, 880, 0), barrel=(OFF, 2, OFF)),
                  contract=120)
    assert s.totals == (5, 780, 15)  # the fall from the barrel


def test_bolts_limit() -> None:
    s = sweep(new(make_rules(bolts_limit=2), bolts=(1, 0, 0)), 1)
    assert s.totals == (-120, 100, 0)
    assert s.bolts == (0, 0, 1)


def test_bolts_in_a_row() -> None:
    # every seat takes a trick in SCRIPT_98: consecutive bolts start again
    s = script_98(new(make_rules(bolts_in_a_row=True), bolts=(2, 2, 2)))
    assert s.bolts == (0, 0, 0)
    s = script_98(new(bolts=(2, 2, 2)))
    assert s.bolts == (2, 2, 2)  # bolts in a game: kept


def test_bolt_own_game_free() -> None:
    s = play_out(do(nines(make_rules(bolt_own_game_free=True)), "1 contract 100"))
    assert s.bolts[1] == 0
    assert "bolt" not in result(s).marks[1]


def test_bolt_own_game_free_breaks_no_streak() -> None:
    r = make_rules(bolts_in_a_row=True, bolt_own_game_free=True)
    s = sweep(new(r, bolts=(2, 2, 2)), 1)
    assert s.bolts == (0, 2, 0)  # the declarer's own deal leaves its streak alone
    assert s.totals == (-120, 100, -120)
    s = sweep(new(make_rules(bolts_in_a_row=True), bolts=(2, 2, 2)), 1)
    assert s.bolts == (0, 0, 0)


def test_samosval_off() -> None:
    s = sweep(new(make_rules(samosval=False), totals=(0, 435, 0)), 1, contract=120)
    assert s.totals[1] == 555


def test_samosval_negative_off() -> None:
    s = concede_deal(new(make_rules(samosval_negative=False), totals=(0, -455, 0)), 1)
    assert s.totals[1] == -555
    s = concede_deal(new(make_rules(samosval_negative=False), totals=(505, 0, 0)), 1)
    assert s.totals[0] == 0  # +555 still dumps


def test_four_nines_bonus() -> None:
    s = play_out(do(nines(make_rules(four_nines_bonus=True)), "1 contract 100"))
    res = result(s)
    assert res.scores[1] == -100 + 120
    assert "four_nines_bonus" in note_codes(res)
    s = play_out(do(nines(), "1 contract 100"))
    assert result(s).scores[1] == -100
