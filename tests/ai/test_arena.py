"""The arena runs duplicate deals and reports what the issue asks for."""

from __future__ import annotations

import pytest

from bot.ai import arena
from bot.engine.rules import make_rules


def test_arena_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "4", "--games", "1",
                       "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    assert "A - B:" in out and "95% bootstrap interval" in out
    assert "declarer normal: made" in out and "declarer random: made" in out
    assert "games to 1000" in out and "A won" in out
    assert "decision time normal: p50" in out and "p95" in out and "max" in out
    assert "deals [" in err  # the progress bar


@pytest.mark.parametrize("players", [2, 4])
def test_arena_other_tables(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "2", "--players",
                       str(players), "--quiet"]) == 0
    assert "A - B:" in capsys.readouterr().out


def test_seatings_put_each_level_in_every_seat() -> None:
    rules = make_rules("classic")
    s = arena.seatings(rules, dealer=0)
    assert len(s) == 6
    assert {j for j, _ in s} == {0, 1, 2}
    for j, is_a in s:
        assert sum(is_a) in (1, 2) and 0 <= j < 3


def test_same_layout_gives_the_same_result_for_the_same_players() -> None:
    rules = make_rules("classic")
    one = arena.duplicate_deal(rules, "normal", "normal", 5, 0, arena.Stats())
    assert one == 0.0  # same players on the same cards: no difference
