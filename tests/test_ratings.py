"""Ratings (OpenSkill Plackett–Luce) and the per-seat statistics of a finished game."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.ratings import AI_IDS, DEFAULT, Rating, display, ranking_from_totals, update
from bot.stats import SeatStats, game_stats, places

# ------------------------------------------------------------------ ratings


def test_new_player_default_and_display() -> None:
    assert Rating(25.0, 25.0 / 3.0) == DEFAULT
    assert DEFAULT.ordinal == pytest.approx(0.0)
    assert display(DEFAULT) == 1000
    assert display(Rating(0.0, 10.0)) == 0  # never below 0


@pytest.mark.parametrize("n", [2, 3, 4])
def test_winner_up_last_down(n: int) -> None:
    ids = [f"p{i}" for i in range(n)]
    new = update({}, [[pid] for pid in ids])
    assert set(new) == set(ids)
    assert new["p0"].mu > DEFAULT.mu
    assert new[f"p{n - 1}"].mu < DEFAULT.mu
    mus = [new[pid].mu for pid in ids]
    assert mus == sorted(mus, reverse=True)
    assert display(new["p0"]) > display(new[f"p{n - 1}"])
    for r in new.values():
        assert r.sigma < DEFAULT.sigma  # a game teaches something about everyone


def test_existing_ratings_used_and_not_changed() -> None:
    old = {"a": Rating(30.0, 3.0), "b": Rating(20.0, 3.0)}
    before = dict(old)
    new = update(old, [["b"], ["a"]])  # the upset
    assert old == before
    assert new["b"].mu > 20.0 and new["a"].mu < 30.0
    upset = new["b"].mu - 20.0
    expected = update(old, [["a"], ["b"]])["a"].mu - 30.0
    assert upset > expected  # an upset moves more than the expected result


def test_tie() -> None:
    new = update({}, [["a", "b"]])
    assert new["a"] == new["b"]
    assert new["a"].mu == pytest.approx(DEFAULT.mu)
    new3 = update({}, [["a", "b"], ["c"]])
    assert new3["a"] == new3["b"]
    assert new3["a"].mu > DEFAULT.mu > new3["c"].mu


def test_places_mapping_equals_groups() -> None:
    old = {"a": Rating(27.0, 5.0), "ai:hard": Rating(30.0, 2.0)}
    by_groups = update(old, [["a"], ["ai:hard", "c"], ["d"]])
    by_places = update(old, {"d": 4, "c": 2, "ai:hard": 2, "a": 1})
    assert by_groups == by_places


def test_deterministic() -> None:
    old = {"a": Rating(27.0, 5.0), "b": Rating(22.0, 4.0)}
    runs = [update(old, [["b"], ["a"], ["c"]]) for _ in range(3)]
    assert runs[0] == runs[1] == runs[2]


def test_bad_rankings() -> None:
    with pytest.raises(ValueError):
        update({}, [["alone"]])
    with pytest.raises(TypeError):
        update({}, ["a", "b"])


def test_same_id_on_two_seats_gets_the_mean() -> None:
    new = update({}, [["me"], ["ai:hard", "ai:hard"]])
    assert set(new) == {"me", "ai:hard"}
    alone = update({}, [["me"], ["ai:hard", "x"]])
    assert new["ai:hard"].mu == pytest.approx(alone["ai:hard"].mu)


def _established() -> dict[str, Rating]:
    """The computer levels after many games against each other: hard > normal > random."""
    rng = random.Random(5)
    ratings: dict[str, Rating] = {}
    strength = {"ai:hard": 3.0, "ai:normal": 2.0, "ai:random": 0.5}
    for _ in range(150):
        noisy = {pid: s + rng.gauss(0, 1.0) for pid, s in strength.items()}
        order = sorted(AI_IDS, key=lambda pid: -noisy[pid])
        ratings.update(update(ratings, [[pid] for pid in order]))
    return ratings


def test_beating_hard_moves_more_than_beating_random() -> None:
    ratings = _established()
    assert ratings["ai:hard"].mu > ratings["ai:normal"].mu > ratings["ai:random"].mu
    assert display(ratings["ai:hard"]) > display(ratings["ai:random"])
    vs_hard = update(ratings, [["me"], ["ai:hard"]])
    vs_random = update(ratings, [["me"], ["ai:random"]])
    assert vs_hard["me"].mu - DEFAULT.mu > vs_random["me"].mu - DEFAULT.mu > 0
    # and losing to random costs more than losing to hard
    lost_hard = update(ratings, [["ai:hard"], ["me"]])
    lost_random = update(ratings, [["ai:random"], ["me"]])
    assert lost_random["me"].mu < lost_hard["me"].mu < DEFAULT.mu
    # a three-player table with two computer levels
    table = update(ratings, [["me"], ["ai:hard"], ["ai:random"]])
    assert table["me"].mu > DEFAULT.mu and table["ai:hard"].mu < ratings["ai:hard"].mu


def test_ranking_from_totals() -> None:
    assert ranking_from_totals(["a", "b", "c"], [1000, 700, 880], winner=0) == [
        ["a"], ["c"], ["b"]]
    # the winner comes first even with fewer points (no barrel: the declarer reaching 1000)
    assert ranking_from_totals(["a", "b"], [1000, 1010], winner=0) == [["a"], ["b"]]
    assert ranking_from_totals(["a", "b", "c", "d"], [500, 500, 300, 500]) == [
        ["a", "b", "d"], ["c"]]
    with pytest.raises(ValueError):
        ranking_from_totals(["a"], [1, 2])


# ------------------------------------------------------------------ stats


def test_places() -> None:
    assert places([1000, 700, 880], 0) == [1, 3, 2]
    assert places([500, 500, 300]) == [1, 1, 3]
    assert places([1000, 1010], 0) == [1, 2]
    assert places([0, 0, 0, 0]) == [1, 1, 1, 1]


def _row(n: int, decl: int, outcome: str, scores: list[int], totals: list[int],
         marks: list[list[str]], winner: int = -1, kind: str = "normal") -> dict[str, Any]:
    return {"n": n, "dealer": (n - 1) % 3, "kind": kind, "declarer": decl, "bid": 100,
            "contract": 120, "outcome": outcome, "points": [0, 0, 0], "scores": scores,
            "totals": totals, "marks": marks, "notes": [], "winner": winner}


GAME = [
    _row(1, 0, "made", [120, 40, 0], [120, 40, 0], [["made"], [], ["bolt"]]),
    _row(2, 1, "failed", [30, -120, 90], [150, -80, 90], [[], ["failed"], []]),
    _row(3, 2, "conceded", [60, 60, -120], [210, -20, -30], [[], [], ["conceded"]]),
    _row(4, -1, "redeal", [0, 0, 0], [210, -20, -30], [[], [], []]),
    _row(5, 0, "made", [670, 0, -120], [880, -20, -150],
         [["made", "barrel_on"], ["bolt"], ["bolt", "penalty"]], kind="golden"),
    _row(6, 1, "made", [-120, 575, 0], [760, 555, -150],
         [["try1", "fall"], ["made"], ["bolt"]]),
    _row(7, 2, "made", [0, -555, 0], [760, 0, -150], [[], ["samosval"], ["made"]]),
    _row(8, 0, "made", [240, 0, 0], [1000, 0, -150], [["made", "winner"], [], []], winner=0),
]


def test_game_stats() -> None:
    st = game_stats(GAME, 3)
    assert [s.seat for s in st] == [0, 1, 2]
    a, b, c = st
    assert a == SeatStats(seat=0, games=1, win=True, place=1, total=1000, declared=3, made=3,
                          failed=0, conceded=0, barrel_falls=1, bolts=0, bolt_fines=0,
                          dumps=0)
    assert (b.win, b.place, b.declared, b.made, b.failed, b.bolts, b.dumps) == (
        False, 2, 2, 1, 1, 1, 1)
    assert (c.place, c.declared, c.made, c.conceded, c.bolts, c.bolt_fines, c.total) == (
        3, 2, 1, 1, 3, 1, -150)
    assert sum(s.win for s in st) == 1


def test_game_stats_stopped_game_and_ties() -> None:
    rows = [_row(1, 0, "failed", [-120, 60, 60], [-120, 60, 60],
                 [["failed"], [], []])]
    st = game_stats(rows, 3)
    assert [s.place for s in st] == [3, 1, 1]
    assert not any(s.win for s in st)
    assert [s.games for s in game_stats([], 2)] == [1, 1]


def test_game_stats_rejects_other_seat_counts() -> None:
    with pytest.raises(ValueError):
        game_stats(GAME, 4)
    with pytest.raises(ValueError):
        game_stats(GAME, 5)
