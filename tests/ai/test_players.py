"""Every level returns a legal action in every phase of every rule variant; choices replay."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest

from bot.ai import LEVELS, choose_action, hard, normal
from bot.engine.game import apply, new_game
from bot.engine.state import Action, GameState, Phase
from bot.engine.views import TableView, view
from tests.ai.helpers import VARIANTS, variant_rules


def _decide(v: TableView, level: str, seed: int) -> Action:
    rng = random.Random(seed)
    if level == "random":
        return rng.choice(v.legal)
    if level == "normal":
        return normal.choose(v, rng)
    return hard.choose(v, rng, time.monotonic() + 0.02)


def _play(rules_i: int, seed: int, deals: int, levels: tuple[str, ...]) -> Counter[str]:
    rules = variant_rules(rules_i)
    st: GameState = new_game(rules, seed=seed)
    phases: Counter[str] = Counter()
    start = len(st.history)
    while st.phase != Phase.GAME_OVER and len(st.history) - start < deals:
        seat = st.to_act
        v = view(st, seat)
        level = levels[seat % len(levels)]
        a = _decide(v, level, seed + len(st.history))
        assert a in v.legal, (level, st.phase, a, v.legal)
        phases[f"{st.phase}"] += 1
        for other in range(st.n):
            if other != seat:
                assert not view(st, other).legal
        st = apply(st, a)
    return phases


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_every_level_plays_legally(variant: int) -> None:
    seen: Counter[str] = Counter()
    for rep, levels in enumerate((("normal", "hard", "random"), ("hard", "random", "normal"),
                                  ("random", "normal", "hard"))):
        seen += _play(variant, 100 * variant + rep, 3, levels)
    assert seen["play"] > 0


def test_many_games_normal_and_random_stay_legal() -> None:
    for variant in range(len(VARIANTS)):
        for seed in range(3):
            _play(variant, 1000 + seed, 12, ("normal", "random", "normal"))


def test_same_view_and_seed_give_the_same_action() -> None:
    rules = variant_rules(0)
    st = new_game(rules, seed=7)
    checked = 0
    while st.phase != Phase.GAME_OVER and checked < 60:
        v = view(st, st.to_act)
        for level in LEVELS:
            if level == "hard" and st.phase == Phase.PLAY:
                continue  # timing decides how many samples: checked below with a fixed count
            assert choose_action(v, level, seed=3) == choose_action(v, level, seed=3)
        st = apply(st, choose_action(v, "normal", seed=1))
        checked += 1


def test_hard_replays_with_a_fixed_number_of_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "MAX_SAMPLES", 3)
    # the 0.9 s cap would cut a slow position's third sample on a loaded machine (CI
    # failed that way once): lift it, so that the count of samples alone decides
    monkeypatch.setattr(hard, "HARD_CAP", 60.0)
    rules = variant_rules(0)
    st = new_game(rules, seed=11)
    n = 0
    while n < 20:
        v = view(st, st.to_act)
        if st.phase == Phase.PLAY and len(v.legal) > 1:
            far = time.monotonic() + 30
            assert choose_action(v, "hard", 5, far) == choose_action(v, "hard", 5, far)
            n += 1
        st = apply(st, choose_action(v, "normal", seed=1))


def test_hard_keeps_its_deadline() -> None:
    rules = variant_rules(0)
    st = new_game(rules, seed=3)
    worst = 0.0
    for _ in range(60):
        if st.phase == Phase.GAME_OVER:
            break
        v = view(st, st.to_act)
        t0 = time.monotonic()
        a = choose_action(v, "hard", 1, t0 + 0.05)
        worst = max(worst, time.monotonic() - t0)
        st = apply(st, a)
    assert worst < 0.3


def test_a_seat_without_a_turn_is_refused() -> None:
    st = new_game(variant_rules(1), seed=2)  # four players: the dealer sits out
    assert st.deal is not None
    v = view(st, st.deal.dealer)
    with pytest.raises(ValueError):
        choose_action(v, "hard")
