"""The rule set: every rule id of RULES.md §5–6 with its type and default, presets, and the
refusal of values and combinations that cannot be played.

The tables below are a copy of RULES.md §5–6 (the rule book is not part of the project's
tree, so the test carries its own copy): if the rule book changes, update the copy."""

from __future__ import annotations

import typing
from typing import Any

import pytest

from bot.engine.rules import RULE_IDS, RulesError, make_rules, rules_from_dict
from bot.engine.rules import Rules as RulesModel

RULES_MD_TABLES = """
| `bid_step` | int | 5 | raise unit | all |
| `bid_jumps` | bool | true | false: each raise is exactly one step ("прыжки запрещены") | 000, 003 |
| `bid_needs_marriage` | bool | true | bids above 120 need marriages in hand (§2.4) | 000–003 |
| `max_bid` | int | 300 | absolute cap | 001–003 |
| `talon_hidden_on_100` | bool | true | talon won at 100 with no raise stays hidden | 000–002 |
| `pass_face_down` | bool | true | cards passed to defenders are seen only by the receiver ("снос втемную") | 000, 001, 004 |
| `min_total_to_bid` | int or null | null | seats whose total is below it may not raise; a silenced forehand keeps its forced 100 ("молчание", "торговля в минусе": 0/−100/−200/−300) | 000, 001 |
| `barrel_bidding` | normal / sitter_takes_talon | normal | sitter_takes_talon: the sitter gets the talon without bidding every deal, at its minimum M (§4.5) | 000, 001, 003 |
| `marriage_first_lead` | bool | false | a marriage may be declared before the seat has won a trick ("хвалить с первого хода", "простой марьяж") | 000, 003 |
| `ace_marriage` | bool | false | four aces: lead an ace after winning a trick (not won with an ace; with `marriage_first_lead` also on the first lead) → +200, trump unchanged; off by default because 000 and 001 call it an agreement | 000, 001, 003 |
| `no_lead_foreign_trump` | bool | false | on its first lead of the deal a seat may not lead the trump someone else declared while it holds other cards | 000 |
| `must_lead_trump` | bool | false | on its first lead of the deal a seat holding trumps must lead one | 000 |
| `last_trick_bonus` | int | 0 | points for the last trick (10 in one source) | 002 |
| `redeal_hand_below` | int or null | 14 | a hand worth fewer points may ask before bidding | 000 (<13), 001 (≤13), 002 (<14), 003 (<15) |
| `redeal_four_nines` | bool | true | four nines in hand may ask before bidding | 000–003 |
| `redeal_three_nines` | any / forehand / off | any | three nines may ask (002: only the forehand) | 000, 001, 002 |
| `redeal_four_jacks` | bool | true | four jacks may ask before bidding | 000, 001, 003 |
| `redeal_talon_below` | int or null | 5 | the declarer may ask, on seeing the talon, if it is worth fewer points | 000–003 |
| `redeal_talon_two_nines` | bool | true | the declarer may ask with two nines in the talon | 000, 001 |
| `redeal_talon_three_jacks` | bool | true | the declarer may ask with three jacks in the talon | 000, 001 |
| `redeal_talon_only_on_100` | bool | false | talon-based redeals only for a talon won at 100 without raises | 000 |
| `redeal_after_pass` | bool | false | a seat holding four nines after the pass may ask before the first lead | 000, 001 |
| `rospis` | bool | true | concession allowed | all |
| `rospis_pays` | half / sixty / half_max_60 | half | each defender gets ceil(bid/10)×5, or 60, or the smaller of the two | 000–003 |
| `rospis_keeps_contract` | bool | false | the declarer does not lose the bid but gets a bolt (then `rospis_limit` applies) | 000, 001 |
| `rospis_limit` | int or null | null | concessions a seat may make in a game (3 in one source) | 000 |
| `rospis_third_penalty` | bool | false | every third concession also costs `penalty` | 000, 002 |
| `rospis_barrel_blocks_all` | bool | false | while a seat sits on the barrel nobody may concede (the sitter never may) | 000, 001 |
| `golden_round` | bool | false | the first deals, one per seat, are golden: the forehand plays 120 without bidding, the talon stays hidden, cards are passed face down; the contract is checked on the real points, then every result, penalty and bolt of the deal counts double (concession too) | 000–002 |
| `golden_raise` | bool | false | the golden declarer may raise its 120 | 000 |
| `golden_reset` | bool | true | if nobody made 120 in the golden round, all totals and counters (bolts, concessions, falls) return to 0 and normal play starts; false: the golden round is played again, totals kept | 000 |
| `golden_double_bolts` | bool | true | a bolt in a golden deal counts twice | 000, 002 |
| `dark_play` | bool | false | before looking at its cards the forehand may declare dark: contract 120 (never raised), talon hidden, cards passed face down; the contract is checked on the real points, then every result of the deal counts double — defenders round first, then double (17 → 15 → 30); the declarer ±240; a dark concession −240 with doubled payouts | 000, 002–004 |
| `dark_unblind` | bool | false | a seat holding a marriage may cancel the dark game by bidding 125; the forehand's 120 stays as its bid, bidding goes on normally, the talon is shown and cards are passed face up ("растемнение") | 000 |
| `dark_unblind_takes_talon` | bool | false | the unblinding seat takes the talon without further bidding | 000 |
| `dark_cap_240` | bool | true | a made dark game scores exactly 240; false: twice the points taken, rounded to 5 | 000 |
| `dark_on_barrel` | bool | false | dark play allowed while a seat is on the barrel | 000 |
| `dark_rospis` | bool | false | concession allowed in a dark game | 000 |
| `dark_double_bolts` | bool | true | a bolt in a dark game counts twice | 000 |
| `penalty` | int | 120 | the fine used by all penalties | 000, 002 |
| `round_declarer` | bool | false | round the declarer's points before comparing with the contract | 000, 003 |
| `bolts_limit` | int | 3 | bolts that cost a penalty | all |
| `bolts_in_a_row` | bool | false | only consecutive bolts count | 000, 003 |
| `bolt_own_game_free` | bool | false | a declarer's own deal gives no bolt and breaks no streak | 000 |
| `samosval` | bool | true | exactly 555 → 0 | 000–003 |
| `samosval_negative` | bool | true | exactly −555 → 0 | 000, 001, 003 |
| `four_nines_bonus` | bool | false | four nines left in hand after the pass: +120 | 000 |
| `barrel` | bool | true | the barrel exists | all |
| `barrel_at` | 880 / 900 | 880 | where the barrel is | all |
| `barrel_attempts` | int | 3 | deals the sitter has | all |
| `barrel_knock_off` | bool | true | a seat climbing on knocks the sitter off | 000–003 |
| `barrel_simultaneous_fall` | bool | true | seats climbing on together all fall | 000, 001, 003 |
| `barrel_third_fall_zero` | bool | true | the third fall drops the total to 0 | 000, 002 |
| `barrel_fail_costs_contract` | bool | false | a sitter that fails its contract scores −contract and falls | 001 |
| `barrel_freezes_defenders` | bool | false | while the sitter is declarer, the defenders score nothing and get no bolts | 001, 002 |
| `win_over_1000` | bool | false | the winner must pass 1000 (sitter needs 125 at 880, 105 at 900) | 000, 001 |
| `players` | 2 / 3 / 4 | 3 | seats at the table | all |
| `two_player_mode` | two_talons / stock | two_talons | how two play (§6.2) | 000, 001, 003, 004 |
| `two_player_pass` | discard_two / give_one | discard_two | two_talons: put 2 cards back, or give 1 to the opponent | 001, 003, 004 |
| `unused_talon_to_last_trick` | bool | false | two_talons: the closed talon goes to the last trick's winner | 000, 001 |
| `dealer_scores_talon` | bool | true | four players: the sitting-out dealer scores the talon (§6.1) | 000, 001, 003 |
"""  # noqa: E501 - a verbatim copy of the rule book


def _value(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    try:
        return int(text)
    except ValueError:
        return text


def _table() -> dict[str, tuple[str, Any]]:
    out: dict[str, tuple[str, Any]] = {}
    for line in RULES_MD_TABLES.strip().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        out[cells[0].strip("`")] = (cells[1], _value(cells[2]))
    return out


TABLE = _table()


def test_the_copy_of_the_tables_is_complete() -> None:
    assert len(TABLE) == 61


def test_every_rule_id_is_present_with_the_rule_books_default() -> None:
    defaults = RulesModel()
    assert set(TABLE) == set(RULE_IDS)
    for rule_id, (_, default) in TABLE.items():
        assert getattr(defaults, rule_id) == default, rule_id


@pytest.mark.parametrize("rule_id", sorted(TABLE))
def test_rule_type(rule_id: str) -> None:
    kind, _ = TABLE[rule_id]
    ann = RulesModel.model_fields[rule_id].annotation
    if kind == "bool":
        assert ann is bool
    elif kind == "int":
        assert ann is int
    elif kind == "int or null":
        assert set(typing.get_args(ann)) == {int, type(None)}
    else:
        options = [_value(x.strip()) for x in kind.split("/")]
        assert typing.get_origin(ann) is typing.Literal
        assert list(typing.get_args(ann)) == options


def test_presets() -> None:
    assert make_rules("classic") == RulesModel()
    full = make_rules("full")
    for rule_id in ("golden_round", "dark_play", "dark_unblind", "ace_marriage"):
        assert getattr(full, rule_id) is True
    assert make_rules("full", ace_marriage=False).ace_marriage is False
    with pytest.raises(RulesError, match="preset"):
        make_rules("fancy")


def test_make_rules_changes_one_rule() -> None:
    r = make_rules(bid_step=10)
    assert r.bid_step == 10 and r.diff() == {"bid_step": 10}
    with pytest.raises(RulesError, match="unknown rule"):
        make_rules(no_such_rule=True)


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"dark_unblind": True}, "dark_unblind needs dark_play"),
        ({"dark_play": True, "dark_unblind_takes_talon": True},
         "dark_unblind_takes_talon needs dark_unblind"),
        ({"dark_rospis": True}, "dark_rospis needs dark_play"),
        ({"dark_cap_240": False}, "dark_cap_240 needs dark_play"),
        ({"golden_raise": True}, "golden_raise needs golden_round"),
        ({"golden_reset": False}, "golden_reset needs golden_round"),
        ({"must_lead_trump": True, "no_lead_foreign_trump": True}, "contradict"),
        ({"rospis": False, "rospis_pays": "sixty"}, "rospis_pays needs rospis"),
        ({"rospis": False, "rospis_limit": 3}, "rospis_limit needs rospis"),
        ({"barrel": False, "barrel_at": 900}, "barrel_at needs barrel"),
        ({"barrel": False, "win_over_1000": True}, "win_over_1000 needs barrel"),
        ({"barrel": False, "barrel_bidding": "sitter_takes_talon"}, "barrel_bidding needs"),
        ({"redeal_talon_below": None, "redeal_talon_two_nines": False,
          "redeal_talon_three_jacks": False, "redeal_talon_only_on_100": True},
         "redeal_talon_only_on_100 needs"),
        ({"two_player_mode": "stock"}, "two_player_mode needs players = 2"),
        ({"unused_talon_to_last_trick": True}, "needs players = 2"),
        ({"players": 4, "two_player_pass": "give_one"}, "two_player_pass needs players = 2"),
        ({"dealer_scores_talon": False}, "dealer_scores_talon needs players = 4"),
        ({"players": 2, "two_player_mode": "stock", "golden_round": True}, "stock"),
        ({"players": 2, "two_player_mode": "stock", "dark_play": True}, "stock"),
        ({"players": 2, "two_player_mode": "stock", "two_player_pass": "give_one"},
         "two_talons"),
    ],
)
def test_nonsense_combinations_are_refused_with_a_reason(
    changes: dict[str, Any], reason: str
) -> None:
    with pytest.raises(RulesError, match=reason):
        make_rules(**changes)


@pytest.mark.parametrize(
    "changes",
    [
        {"bid_step": 7}, {"bid_step": 0}, {"bid_step": -5},
        {"max_bid": 500}, {"max_bid": 110}, {"max_bid": 303},
        {"last_trick_bonus": -10}, {"last_trick_bonus": 7},
        {"redeal_hand_below": 99}, {"redeal_talon_below": -1},
        {"rospis_limit": 0},
        {"min_total_to_bid": -5000},
        {"penalty": -1}, {"penalty": 5000},
        {"bolts_limit": 0}, {"barrel_attempts": 0}, {"barrel_attempts": 11},
        {"barrel_at": 850}, {"players": 5}, {"rospis_pays": "all"},
        {"redeal_three_nines": "dealer"}, {"barrel_bidding": "auction"},
        {"bid_jumps": "maybe"},
    ],
)
def test_bad_values_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        make_rules(**changes)


def test_rules_from_a_record() -> None:
    assert rules_from_dict({}) == RulesModel()
    assert rules_from_dict({"players": 4}).players == 4
    with pytest.raises(RulesError, match="bid_step"):
        rules_from_dict({"bid_step": "five"})
    with pytest.raises(RulesError):
        rules_from_dict({"nonsense": 1})


def test_valid_combinations_are_accepted() -> None:
    make_rules(players=2, two_player_mode="stock")
    make_rules(players=2, two_player_pass="give_one", unused_talon_to_last_trick=True)
    make_rules(players=4, dealer_scores_talon=False)
    make_rules(barrel=False)
    make_rules(barrel_at=900, win_over_1000=True)
    make_rules(dark_play=True, dark_unblind=True, dark_unblind_takes_talon=True,
               dark_cap_240=False, dark_on_barrel=True, dark_rospis=True,
               dark_double_bolts=False)
    make_rules(golden_round=True, golden_raise=True, golden_reset=False,
               golden_double_bolts=False)
    make_rules(rospis_pays="half_max_60", rospis_keeps_contract=True, rospis_limit=3,
               rospis_third_penalty=True, rospis_barrel_blocks_all=True)
