"""Weighting sampled worlds by the other seats' actions (``bot.ai.inference``)."""

from __future__ import annotations

import random

import pytest

from bot.ai.inference import (
    Inference,
    bid_chance,
    bid_events,
    contract_log_likelihood,
    pass_log_likelihood,
)
from bot.ai.knowledge import Knowledge
from bot.engine.cards import parse_cards
from bot.engine.rules import make_rules
from bot.engine.views import view
from tests.ai.helpers import play_position, true_world


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


def test_the_contract_named_says_how_strong_the_declarer_is() -> None:
    """A contract left at the bid is likelier from a weak hand, a raise to 160 from one
    with marriages: a defender weighs the declarer's hand by the contract it named."""
    strong = frozenset(parse_cards("AH TH KH QH AS TS AD KD"))
    weak = frozenset(parse_cards("9H JH 9S JS QS 9D JD QC"))
    assert contract_log_likelihood(weak, 100, 100, 120, 5, 5.0) > \
        contract_log_likelihood(strong, 100, 100, 200, 5, 5.0) + 2
    assert contract_log_likelihood(strong, 100, 160, 200, 5, 5.0) > \
        contract_log_likelihood(weak, 100, 160, 200, 5, 5.0) + 1
    # above what the hand allows: only the floor
    assert contract_log_likelihood(weak, 100, 140, 120, 5, 5.0) < \
        contract_log_likelihood(weak, 100, 120, 120, 5, 5.0)


def test_a_defender_reads_the_contract() -> None:
    """In play, a defender's inference includes the contract (and the declarer's does
    not: it knows its own hand)."""
    rules = make_rules("classic")
    seen = 0
    for seed in range(40):
        pos = play_position(rules, seed, 2, mix=0.0)
        if pos is None:
            continue
        _, real = pos
        assert real.deal is not None
        for seat in real.deal.active:
            v = view(real, seat)
            inf = Inference(v, Knowledge(v))
            assert (inf.contract is not None) == (seat != v.declarer)
            seen += 1
    assert seen >= 30


def test_the_cards_passed_say_what_the_declarer_kept() -> None:
    """Passing a king that breaks a marriage, or an ace, is unlikely; a nine and a jack
    are what a declarer lets go of."""
    v = view(play_position(make_rules("classic"), 0, 2, mix=0.0)[1], 0)  # type: ignore[index]
    kh, qh, nine, js, ace = parse_cards("KH QH 9H JS AS")
    hand = frozenset([*parse_cards("TS AD 9C JC 9D"), ace, kh, qh, nine, js])
    cheap = pass_log_likelihood(v, hand, frozenset([nine, js]))
    assert cheap > pass_log_likelihood(v, hand, frozenset([kh, nine])) + 1
    assert cheap > pass_log_likelihood(v, hand, frozenset([ace, js])) + 1


def test_the_inference_bench_finds_the_passes_telling(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``bench inference``: over defenders of normal self-play the cards passed give the
    real deal a clearly higher likelihood than sampled worlds (normal passes much as the
    model says), and the report names every factor."""
    from bench import inference as bench_inference

    n, real, sampled = bench_inference.measure(40, 1, 4)
    assert n >= 40
    assert all(len(real[f]) == len(sampled[f]) == n for f in bench_inference.FACTORS)
    gap = sum(real["passed"]) / n - sum(sampled["passed"]) / n
    assert gap > 0.5
    assert all(x <= 0 for f in bench_inference.FACTORS for x in real[f])
    assert bench_inference.main(["--deals", "10", "--worlds", "2"]) == 0
    out = capsys.readouterr().out
    assert all(f in out for f in bench_inference.FACTORS) and "defender positions" in out
