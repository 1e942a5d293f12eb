"""Rules from /newgame's words and from the settings menu's changes."""

from __future__ import annotations

import pytest

from bot.engine.rules import RulesError, make_rules
from bot.tg.rooms.service import fit_rules, rules_from_args
from bot.tg.view.render import refusal_text


def test_newgame_words() -> None:
    base = make_rules("classic", golden_round=True)
    assert rules_from_args(base, []) == base
    assert rules_from_args(base, ["4"]) == make_rules("classic", golden_round=True, players=4)
    assert rules_from_args(base, ["full", "2"]) == make_rules("full", players=2)
    assert rules_from_args(base, ["классика"]) == make_rules("classic")
    with pytest.raises(RulesError):
        rules_from_args(base, ["7"])


def test_switching_a_rule_off_resets_what_depends_on_it() -> None:
    on = make_rules("classic", golden_round=True, golden_raise=True, dark_play=True,
                    dark_unblind=True, dark_unblind_takes_talon=True)
    data = on.model_dump()
    data["dark_play"] = False
    fixed = fit_rules(data, "dark_play")
    assert fixed == make_rules("classic", golden_round=True, golden_raise=True)
    data = make_rules("classic", players=2, two_player_mode="stock").model_dump()
    data["players"] = 3
    assert fit_rules(data, "players") == make_rules("classic")


def test_a_rule_that_needs_another_is_refused_with_the_reason() -> None:
    data = make_rules("classic").model_dump()
    data["dark_unblind"] = True
    reason = fit_rules(data, "dark_unblind")
    assert isinstance(reason, RulesError) and reason.code == "rule_needs"
    assert "dark_unblind needs dark_play" in str(reason)
    ru = refusal_text("ru", reason)
    assert ru == "Правило «Растемнение» действует только вместе с «Игра втемную»."
