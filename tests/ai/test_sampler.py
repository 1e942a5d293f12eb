"""The hidden-card sampler never deals a world that contradicts what the seat knows.

Each world is checked the strongest way there is: the real deal's actions are
replayed on the sampled cards (with the hidden choices, the cards passed and
discarded, taken from the world) and every legal check of the engine must pass
and the seat's view must come out the same.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ai.knowledge import Knowledge
from bot.engine.views import view
from tests.ai.helpers import (
    VARIANTS,
    play_position,
    play_positions,
    replay,
    variant_rules,
    visible,
)

_CARD_VARIANTS = [i for i, v in enumerate(VARIANTS) if v.get("two_player_mode") != "stock"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(_CARD_VARIANTS), seed=st.integers(0, 10**9),
       cards=st.integers(0, 22), viewer=st.integers(0, 3), mix=st.sampled_from([0.0, 0.3, 1.0]))
def test_sampled_worlds_replay_to_the_same_view(variant: int, seed: int, cards: int,
                                                viewer: int, mix: float) -> None:
    rules = variant_rules(variant)
    pos = play_position(rules, seed, cards, mix)
    if pos is None:
        return
    pre, real = pos
    assert real.deal is not None
    seat = real.deal.active[viewer % len(real.deal.active)]
    v = view(real, seat)
    know = Knowledge(v)
    rng = random.Random(seed)
    for _ in range(4):
        world = know.sample(rng)
        for s in real.deal.active:
            assert len(world.hands[s]) == len(real.deal.hands[s])
        assert world.hands[seat] == frozenset(v.hand)
        replayed = replay(pre, real, seat, know, world)
        assert visible(view(replayed, seat)) == visible(v)
        assert know.check(world)


def test_voids_under_every_trump_are_kept() -> None:
    """A seat that showed a void in trump never gets a card of that suit."""
    rules = variant_rules(0)
    checked = 0
    for seed, real, d in play_positions(rules, range(400), 15, mix=0.0):
        seat = d.to_act
        know = Knowledge(view(real, seat))
        rng = random.Random(seed)
        for s, suits in know.voids.items():
            if s == seat or not suits:
                continue
            checked += 1
            for _ in range(5):
                w = know.sample(rng)
                assert not any(c // 6 in suits for c in w.hands[s])
    assert checked > 50
