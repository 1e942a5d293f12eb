"""The rule book's last gaps (RULES.md §2.3, end of §4.6, §5.1, §5.7, §6.2): the deal that
wins ends after step 3, the four-nines bonus on a conceded deal, no unblinding below
min_total_to_bid, refusals that say why (with a code), options that do nothing refused,
records that write or leave out a forced contract."""

from __future__ import annotations

from typing import Any

import pytest

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import RecordError, game_record, load_record
from bot.engine.rules import (
    RULE_IDS,
    RulesError,
    inert_rules,
    make_rules,
    rules_from_args,
)
from bot.engine.state import IllegalAction, Kind, Phase

from .helpers import (
    HEARTS_HANDS,
    HEARTS_TALON,
    SCRIPT_98_HANDS,
    SCRIPT_98_TALON,
    SWEEP_HAND,
    SWEEP_OTHER_1,
    SWEEP_OTHER_2,
    SWEEP_TALON,
    do,
    legal,
    new,
    note_codes,
    result,
    start,
    sweep,
)

OFF = -1
# dealer 0: seat 1 (forehand) the aces and tens, seat 2 the ♠ ♣ marriages (cap 220)
SWEEP = (SWEEP_OTHER_2, SWEEP_HAND, SWEEP_OTHER_1)

# --- §4.6: the deal that wins ends the game after step 3 -------------------------------


def test_winning_from_the_barrel_writes_no_bolt_and_no_bolt_penalty() -> None:
    # seat 1 sits (880), opens with 120 and makes it: 1000, the game.
    # Seats 0 and 2 take no trick with two bolts each: a third bolt would cost 120 each.
    s = sweep(new(totals=(0, 880, 0), barrel=(OFF, 0, OFF), bolts=(2, 0, 2),
                  bolts_game=(2, 0, 2)), 1)
    res = result(s)
    assert s.winner == 1 and s.phase == Phase.GAME_OVER
    assert res.scores == (0, 120, 0) and s.totals == (0, 1000, 0)
    assert s.bolts == (2, 0, 2) and s.bolts_game == (2, 0, 2)
    assert "bolt" not in res.marks[0] and "bolt" not in res.marks[2]
    assert "bolt_penalty" not in note_codes(res)


def test_winning_with_the_barrel_off_writes_no_bolt_penalty() -> None:
    r = make_rules(barrel=False)
    s = sweep(new(r, totals=(0, 900, 0), bolts=(2, 0, 2)), 1)  # the forehand makes 100
    assert s.winner == 1
    assert s.totals == (0, 1000, 0)  # not (−120, 1000, −120)
    assert s.bolts == (2, 0, 2)


def test_winning_deal_uses_no_try_and_makes_no_fall() -> None:
    # knock-offs off: seats 0 and 1 both sit; seat 0 has used 2 of its 3 tries. Seat 1
    # wins: seat 0's third try (and its fall, 880 → 760) does not happen.
    r = make_rules(barrel_knock_off=False)
    s = sweep(new(r, totals=(880, 880, 0), barrel=(2, 0, OFF)), 1)
    assert s.winner == 1
    assert s.totals == (880, 1000, 0)
    assert s.barrel[0] == 2 and s.falls == (0, 0, 0)
    # the same deal without the win (seat 1 does not sit): seat 0 falls
    s2 = sweep(new(r, totals=(880, 0, 0), barrel=(2, OFF, OFF)), 1)
    assert s2.winner < 0 and s2.totals == (760, 100, 0) and s2.falls[0] == 1


# --- §5.7: four nines left in hand after the pass, on a conceded deal ----------------------

# dealer 0: the forehand (seat 1) is dealt four nines and three jacks; it takes J♥ A♠ A♣ and
# gives the aces away, keeping the four nines
NINES_HANDS = ("Q♠ Q♣ K♦ K♥ 10♦ 10♥ A♥", "9♠ 9♣ 9♦ 9♥ J♠ J♣ J♦", "K♠ K♣ Q♦ Q♥ 10♠ 10♣ A♦")
NINES_TALON = "J♥ A♠ A♣"
# dealer 0: seat 2, a defender, holds the four nines
NINES_D_HANDS = ("Q♠ Q♣ K♦ K♥ 10♦ 10♥ A♥", "J♠ J♣ J♦ A♠ A♣ K♠ K♣", "9♠ 9♣ 9♦ 9♥ 10♠ 10♣ A♦")
NINES_D_TALON = "J♥ Q♦ Q♥"
BONUS = make_rules(four_nines_bonus=True)


def test_four_nines_bonus_paid_to_a_conceding_declarer() -> None:
    s = do(start(BONUS, NINES_HANDS, NINES_TALON), "2 pass", "0 pass", "1 talon 1",
           "1 give A♠", "1 give A♣", "1 concede")
    res = result(s)
    assert res.outcome == "conceded"
    assert res.scores == (50, -100 + 120, 50)
    assert "four_nines_bonus" in note_codes(res)


def test_four_nines_bonus_paid_to_a_defender_on_a_concession() -> None:
    s = do(start(BONUS, NINES_D_HANDS, NINES_D_TALON), "2 pass", "0 pass", "1 talon 1",
           "1 give J♥", "1 give Q♦", "1 concede")
    assert result(s).scores == (50, -100, 50 + 120)
    s = do(start(None, NINES_D_HANDS, NINES_D_TALON), "2 pass", "0 pass", "1 talon 1",
           "1 give J♥", "1 give Q♦", "1 concede")
    assert result(s).scores == (50, -100, 50)  # off by default


def test_four_nines_bonus_doubled_in_a_golden_concession() -> None:
    r = make_rules(golden_round=True, four_nines_bonus=True)
    s = do(start(r, NINES_D_HANDS, NINES_D_TALON), "1 talon 1", "1 give J♥", "1 give Q♦",
           "1 concede")
    res = result(s)
    assert res.kind == Kind.GOLDEN
    # −120 × 2; payouts 60 × 2; the bonus 120 × 2
    assert res.scores == (120, -240, 120 + 240)


def test_four_nines_bonus_not_paid_to_a_sitter() -> None:
    s = do(start(BONUS, NINES_D_HANDS, NINES_D_TALON, totals=(0, 0, 880),
                 barrel=(OFF, OFF, 0)), "2 pass", "0 pass", "1 talon 1", "1 give J♥",
           "1 give Q♦", "1 concede")
    assert result(s).scores[2] == 0 and s.totals[2] == 880


# --- §5.1: min_total_to_bid silences unblinding too ------------------------------------------


def test_a_seat_below_min_total_to_bid_may_not_unblind() -> None:
    r = make_rules(dark_play=True, dark_unblind=True, min_total_to_bid=0)
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, -20)), "1 dark")
    assert s.to_act == 2 and legal(s) == ["pass"]  # holds ♠ and ♣ marriages, but at −20
    with pytest.raises(IllegalAction) as e:
        apply(s, "bid 125")
    assert e.value.code == "bid_min_total"
    assert e.value.params == {"total": -20, "least": 0, "rule": "min_total_to_bid"}
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON, totals=(0, 0, 0)), "1 dark")
    assert legal(s) == ["pass", "bid 125"]


# --- refusals say why ------------------------------------------------------------------------


def refused(state: Any, action: str, seat: int | None = None) -> IllegalAction:
    with pytest.raises(IllegalAction) as e:
        apply(state, action, seat)
    return e.value


def test_a_marriage_declared_out_of_turn_or_before_a_trick_says_why() -> None:
    # HEARTS_220: the forehand holds the ♥ marriage and leads the first trick
    s = do(start(None, HEARTS_HANDS, HEARTS_TALON), "2 pass", "0 pass", "1 give J♠",
           "1 give J♣", "1 contract 120")
    e = refused(s, "declare K♥")
    assert e.code == "declare_needs_trick"
    assert "only by the player on lead after taking a trick" in str(e)
    s = do(s, "1 play A♠")
    e = refused(s, "declare K♠")  # seat 2 answers a lead
    assert e.code == "declare_not_on_lead" and "player on lead" in str(e)
    e = refused(s, "declare Q♦")
    assert e.code == "card_not_in_hand"


def test_a_lead_refused_by_a_house_rule_names_it() -> None:
    # seat 1 wins T1 (A♠), declares K♥ (hearts trump); seat 0 wins T2 with A♥ and leads for
    # the first time in the deal, holding the trump 9♥
    r2 = make_rules(must_lead_trump=True)
    hands = ("A♥ 9♥ A♦ 10♦ K♦ Q♦ J♦", "K♥ Q♥ A♠ 10♠ K♠ Q♠ J♠", "9♠ 9♣ J♣ Q♣ K♣ 10♣ A♣")
    s = do(start(r2, hands, "10♥ J♥ 9♦"), "2 pass", "0 pass", "1 give J♠", "1 give 9♦",
           "1 contract 100", "1 play A♠", "2 play 9♠", "0 play A♦", "1 declare K♥",
           "2 play J♠", "0 play A♥")
    # seat 0 took the trick and leads for the first time with 9♥ (a trump) in hand
    assert s.to_act == 0
    e = refused(s, "play K♦")
    assert e.code == "must_lead_trump" and e.params["rule"] == "must_lead_trump"
    assert "must_lead_trump" in str(e)
    r3 = make_rules(no_lead_foreign_trump=True)
    s = do(start(r3, hands, "10♥ J♥ 9♦"), "2 pass", "0 pass", "1 give J♠", "1 give 9♦",
           "1 contract 100", "1 play A♠", "2 play 9♠", "0 play A♦", "1 declare K♥",
           "2 play J♠", "0 play A♥")
    e = refused(s, "play 9♥")
    assert e.code == "no_lead_foreign_trump" and "no_lead_foreign_trump" in str(e)


def test_an_unblinding_bid_above_125_does_not_blame_marriages() -> None:
    r = make_rules(dark_play=True, dark_unblind=True)
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON), "1 dark")
    e = refused(s, "bid 130")
    assert e.code == "unblind_only_125" and e.params == {"bid": 125}
    assert "marriage" not in str(e) and "exactly 125" in str(e)


def test_bid_refusals_give_the_reason() -> None:
    s = start(None, SWEEP, SWEEP_TALON)  # seat 2: cap 220 (♠ ♣ marriages)
    assert refused(s, "bid 225").code == "bid_needs_marriage"
    assert refused(s, "bid 225").params == {"most": 220}
    assert refused(s, "bid 100").code == "bid_too_low"
    assert refused(s, "bid 107").code == "bid_step"
    assert refused(s, "bid 305").code == "bid_above_max"
    assert refused(s, "play A♠").code == "not_now"
    assert refused(s, "pass", seat=0).code == "not_your_turn"


def test_concession_refusals_name_the_rule() -> None:
    s = do(start(make_rules(rospis=False), SWEEP, SWEEP_TALON), "2 pass", "0 pass",
           "1 give 9♠", "1 give J♣")
    e = refused(s, "concede")
    assert e.code == "concede_rule_off" and e.params == {"rule": "rospis"}


# --- options that do nothing are refused, and not offered -----------------------------------


@pytest.mark.parametrize(
    ("changes", "code", "names"),
    [
        ({"players": 2, "two_player_mode": "stock", "bolts_limit": 4}, "inert_stock",
         "two_player_mode = stock"),
        ({"players": 2, "two_player_mode": "stock", "samosval": False}, "inert_stock",
         "two_player_mode = stock"),
        ({"players": 2, "two_player_mode": "stock", "golden_round": True}, "inert_stock",
         "two_player_mode = stock"),
        ({"barrel_knock_off": False, "barrel_simultaneous_fall": False},
         "inert_simultaneous_fall", "barrel_knock_off"),
        ({"players": 2, "redeal_talon_three_jacks": False}, "inert_two_card_talon",
         "players = 3 or 4"),
        ({"players": 2, "talon_hidden_on_100": False}, "inert_two_players_talon_shown",
         "players = 3 or 4"),
        ({"players": 2, "rospis_pays": "sixty"}, "inert_two_players_rospis", "players = 3 or 4"),
        ({"players": 2, "pass_face_down": False}, "inert_pass_face_down", "give_one"),
        ({"rospis_limit": 2, "rospis_third_penalty": True}, "inert_third_rospis",
         "rospis_limit"),
        ({"barrel": False, "rospis_barrel_blocks_all": True}, "rule_needs", "barrel"),
    ],
)
def test_options_that_do_nothing_are_refused_naming_the_other_rule(
    changes: dict[str, Any], code: str, names: str
) -> None:
    with pytest.raises(RulesError) as e:
        make_rules(**changes)
    assert e.value.code == code
    assert names in str(e.value)
    inert = next(k for k in changes if e.value.params.get("rule") == k)
    assert inert in str(e.value)


def test_inert_options_are_listed_for_the_menu() -> None:
    stock = make_rules(players=2, two_player_mode="stock")
    assert inert_rules(stock) == frozenset(RULE_IDS) - {"players", "two_player_mode"}
    assert "barrel_simultaneous_fall" in inert_rules(make_rules(barrel_knock_off=False))
    assert "barrel_simultaneous_fall" not in inert_rules(make_rules())
    assert "redeal_talon_three_jacks" in inert_rules(make_rules(players=2))
    assert "golden_raise" in inert_rules(make_rules())  # needs golden_round
    assert "golden_raise" not in inert_rules(make_rules(golden_round=True))
    assert "dealer_scores_talon" not in inert_rules(make_rules(players=4))


def test_a_record_that_sets_an_inert_rule_is_refused_with_the_reason() -> None:
    rec = {"rules": {"preset": "classic", "players": 2, "two_player_mode": "stock",
                     "penalty": 100}, "seed": 1, "deals": []}
    with pytest.raises(RecordError, match="penalty needs two_player_mode = two_talons"):
        load_record(rec)


def test_newgame_arguments() -> None:
    base = make_rules()
    assert rules_from_args(base, []) == base
    assert rules_from_args(base, ["4", "full"]) == make_rules("full", players=4)
    assert rules_from_args(base, ["bolts_limit=4"]) == make_rules(bolts_limit=4)
    # a chat's default rules are fitted to another number of players
    stock = make_rules(players=2, two_player_mode="stock")
    assert rules_from_args(stock, ["3"]) == make_rules()
    two = make_rules(talon_hidden_on_100=False)
    assert rules_from_args(two, ["2"]) == make_rules(players=2)
    # an argument that sets a rule doing nothing is refused, with the reason
    with pytest.raises(RulesError) as e:
        rules_from_args(stock, ["bolts_limit=4"])
    assert e.value.code == "inert_stock" and e.value.params == {"rule": "bolts_limit"}
    with pytest.raises(RulesError) as e:
        rules_from_args(base, ["barrel_knock_off=off", "barrel_simultaneous_fall=off"])
    assert e.value.code == "inert_simultaneous_fall"
    with pytest.raises(RulesError) as e:
        rules_from_args(base, ["seven"])
    assert e.value.code == "newgame_unknown_word" and e.value.params == {"word": "seven"}
    with pytest.raises(RulesError) as e:
        rules_from_args(base, ["bolts_limit=many"])
    assert e.value.code == "rule_value"
    with pytest.raises(RulesError) as e:
        rules_from_args(base, ["nothing=1"])
    assert e.value.code == "unknown_rule"


# --- records: a forced contract may be written or left out -----------------------------------


def test_a_written_forced_contract_is_accepted() -> None:
    # a dark deal: the contract (120) is forced on public facts and the step is skipped
    r = make_rules(dark_play=True)
    s = do(start(r, HEARTS_HANDS, HEARTS_TALON), "1 dark", "1 give J♠", "1 give J♣")
    assert s.phase == Phase.PLAY and s.deal is not None and s.deal.contract == 120
    rec = game_record(s)
    assert rec["deals"][0]["actions"] == ["1:dark", "1:give J♠", "1:give J♣"]
    rec["deals"][0]["actions"].append("1:contract 120")
    assert load_record(rec) == load_record(game_record(s))
    rec["deals"][0]["actions"][-1] = "1:contract 125"
    with pytest.raises(RecordError):
        load_record(rec)


def test_a_record_without_a_one_choice_contract_is_accepted() -> None:
    # seat 1 (no marriage, cap 120) wins at 120 and may not concede (rospis off): the step
    # is asked with one button; a record that leaves it out (as older records did for a
    # sitter) still replays, the contract 120 implied
    r = make_rules(rospis=False)
    steps = ["2:bid 115", "0:pass", "1:bid 120", "2:pass", "1:give 9♦", "1:give 10♦"]
    rec: dict[str, Any] = {"rules": {"preset": "classic", "rospis": False}, "first_dealer": 0,
                           "deals": [{
        "hands": list(SCRIPT_98_HANDS), "talon": SCRIPT_98_TALON, "actions": steps}]}
    st = load_record(rec)
    assert st.phase == Phase.CONTRACT and legal_actions(st) == [legal_actions(st)[0]]
    assert legal(st) == ["contract 120"]
    rec["deals"][0]["actions"] = [*steps, "1:play A♠"]
    st = load_record(rec)
    assert st.phase == Phase.PLAY and st.deal is not None and st.deal.contract == 120
    assert st.deal.trick == ((1, st.deal.trick[0][1]),) and st.rules == r


def test_older_records_with_keep_and_without_taking_the_talon_replay() -> None:
    rec = {"rules": {"preset": "classic"}, "first_dealer": 0, "deals": [{
        "hands": list(SWEEP), "talon": SWEEP_TALON,
        "actions": ["2:keep", "2:pass", "0:pass", "1:give 9♠", "1:give J♣", "1:contract 100",
                    "1:play A♠"]}]}
    st = load_record(rec)
    assert st.phase == Phase.PLAY and st.deal is not None and len(st.deal.trick) == 1


def test_seeded_games_replay_from_their_records() -> None:
    import random
    rng = random.Random(5)
    s = new_game(make_rules(), seed=42)
    for _ in range(200):
        if s.phase == Phase.GAME_OVER:
            break
        s = apply(s, rng.choice(legal_actions(s)))
    assert load_record(game_record(s)) == s


def test_a_move_is_forced_only_on_public_facts() -> None:
    from bot.engine.game import forced_action

    # seat 2 at its first bid may ask for a redeal (12 points) or not: never forced there
    hands = ("K♠ K♣ Q♦ K♦ 9♦ 10♥ K♥", "A♠ 10♠ A♣ 10♣ A♦ 10♦ A♥", "9♠ 9♣ J♠ J♣ Q♠ Q♣ J♦")
    r = make_rules(min_total_to_bid=0)
    s = start(r, hands, "9♥ J♥ Q♥", totals=(0, 0, -50))
    assert legal(s) == ["pass", "redeal"] and forced_action(s) is None
    s = start(make_rules(min_total_to_bid=0, redeal_hand_below=None), hands, "9♥ J♥ Q♥",
              totals=(0, 0, -50))
    assert legal(s) == ["pass"] and forced_action(s) is None  # (a first decision still)
    # the take-the-talon step and a one-button contract are never forced
    s = do(start(None, SWEEP, SWEEP_TALON), "2 pass", "0 pass")
    assert legal(s) == ["talon 1"] and forced_action(s) is None
    # the last card is
    s = do(start(None, SWEEP, SWEEP_TALON), "2 pass", "0 pass", "1 give 9♠", "1 give J♣",
           "1 contract 100")
    while s.deal is not None and len(s.deal.hands[s.to_act]) > 1:
        assert forced_action(s) is None or len(legal(s)) == 1
        s = apply(s, legal_actions(s)[0])
    assert s.deal is not None and forced_action(s) == legal_actions(s)[0]
