"""Weighting sampled worlds by the other seats' actions (``bot.ai.inference``)."""

from __future__ import annotations

import random

from bot.ai.inference import Inference, bid_chance, bid_events
from bot.ai.knowledge import Knowledge, World
from bot.engine.rules import make_rules
from bot.engine.state import GameState
from bot.engine.views import view
from tests.ai.helpers import play_position


def true_world(st: GameState) -> World:
    d = st.deal
    assert d is not None
    return World({s: frozenset(d.hands[s]) for s in d.active},
                 {s: d.received[s] for s in d.active if s != d.declarer},
                 tuple(d.layout.talon), (), ())


def test_the_bidding_model_rises_with_the_hand() -> None:
    assert 0 < bid_chance(60, 120) < bid_chance(100, 120) < bid_chance(140, 120) < 1


def test_bid_events_read_bids_and_passes() -> None:
    rules = make_rules("classic")
    for seed in range(30):
        pos = play_position(rules, seed, 0, mix=0.0)
        if pos is None:
            continue
        _, real = pos
        v = view(real, real.to_act)
        ev = bid_events(v)
        assert len(ev) == len(v.bids) - 1
        assert all(b >= 105 for _, b, _ in ev)
        assert sum(1 for _, _, made in ev if not made) == 2  # two seats passed


def test_the_real_deal_is_more_likely_than_the_sampled_ones() -> None:
    """Played by ``normal``, the real cards explain the other seats' actions better than
    the average sampled world does (the model knows what the actions say)."""
    rules = make_rules("classic")
    real_ll, sampled_ll = [], []
    for seed in range(80):
        pos = play_position(rules, seed, 3 + seed % 15, mix=0.0)
        if pos is None:
            continue
        _, real = pos
        assert real.deal is not None
        seat = real.deal.active[seed % 3]
        v = view(real, seat)
        know = Knowledge(v)
        inf = Inference(v, know)
        rng = random.Random(seed)
        truth = inf.log_likelihood(true_world(real))
        assert truth <= 0
        worlds = [know.sample(rng) for _ in range(8)]
        lls = [inf.log_likelihood(w) for w in worlds]
        assert all(ll <= 0 for ll in lls)
        assert all(0 < inf.weight(w) <= 1 for w in worlds)
        real_ll.append(truth)
        sampled_ll.append(sum(lls) / len(lls))
    assert len(real_ll) >= 40
    assert sum(real_ll) / len(real_ll) > sum(sampled_ll) / len(sampled_ll) + 0.5
