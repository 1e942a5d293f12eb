"""Weighting sampled worlds by the other seats' actions (``bot.ai.inference``)."""

from __future__ import annotations

import random

import pytest

from bot.ai.inference import (
    Inference,
    bid_chance,
    bid_events,
    contract_log_likelihood,
    kept_hands,
    pass_log_likelihood,
    redeals_log_likelihood,
    talon_kept,
    talon_log_likelihood,
)
from bot.ai.knowledge import Knowledge
from bot.engine.cards import POINTS, parse_cards
from bot.engine.game import apply, deal, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase
from bot.engine.views import view
from tests.ai.helpers import play_position, play_positions, true_world


def test_the_bidding_model_rises_with_the_hand() -> None:
    assert 0 < bid_chance(60, 120) < bid_chance(100, 120) < bid_chance(140, 120) < 1


def test_bid_events_read_bids_and_passes() -> None:
    rules = make_rules("classic")
    for _, real, _ in play_positions(rules, range(30), 0, mix=0.0):
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
    for seed, real, d in play_positions(rules, range(80), lambda s: 3 + s % 15, mix=0.0):
        seat = d.active[seed % 3]
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
    for _, real, d in play_positions(rules, range(40), 2, mix=0.0):
        for seat in d.active:
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


def test_a_hand_kept_though_it_could_ask_for_a_redeal_was_a_good_one() -> None:
    """RULES.md §5.3: three nines (or four, four jacks, under 14 points) may ask for a
    redeal with the seat's first decision. A seat that decided without asking more likely
    held a strong hand with its nines than a weak one; a hand that could not ask says
    nothing; with the rule off three nines say nothing either."""
    rules = make_rules("classic")
    weak = frozenset(parse_cards("9H 9S 9D QC KS KD QH"))  # three nines and little else
    strong = frozenset(parse_cards("9H 9S 9D AH TH AS TS"))
    plain = frozenset(parse_cards("JH JS QD KC AC TD 9C"))
    kept = ((1, False),)
    lw = redeals_log_likelihood(rules, kept, {1: weak})
    ls = redeals_log_likelihood(rules, kept, {1: strong})
    assert lw < ls < 0 and lw < -1.5
    assert redeals_log_likelihood(rules, kept, {1: plain}) == 0.0
    assert redeals_log_likelihood(rules, (), {1: weak}) == 0.0  # it did not decide yet
    off = make_rules("classic", redeal_three_nines="off")
    assert redeals_log_likelihood(off, kept, {1: weak}) == 0.0
    # "forehand": only the forehand's three nines could ask
    fh = make_rules("classic", redeal_three_nines="forehand")
    assert redeals_log_likelihood(fh, kept, {1: weak}) == 0.0
    assert redeals_log_likelihood(fh, ((1, True),), {1: weak}) == lw


def test_the_seats_that_kept_their_hands() -> None:
    """In bidding the seats that bid or passed kept their hands, the one to act has not
    decided yet; in play every other seat has, and the viewer never counts itself."""
    rules = make_rules("classic")
    st = deal(new_game(rules, seed=None, first_dealer=0), layout_from_seed(5, rules, 0))
    seen_bidding = seen_play = 0
    for _ in range(40):
        if st.phase == Phase.BIDDING:
            v = view(st, st.to_act)
            deciders = {s for s, _b in v.bids[1:]} - {v.seat}
            assert {s for s, _f in kept_hands(v)} == deciders
            seen_bidding += 1
        if st.phase == Phase.PLAY:
            for seat in st.deal.active:  # type: ignore[union-attr]
                v = view(st, seat)
                assert {s for s, _f in kept_hands(v)} == set(v.active) - {seat}
                assert all(f == (s == v.forehand) for s, f in kept_hands(v))
            seen_play += 1
            break
        legal = view(st, st.to_act).legal
        st = apply(st, next((a for a in legal if a.kind != "redeal"), legal[0]))
    assert seen_bidding >= 2 and seen_play == 1
    none = make_rules("classic", redeal_hand_below=None, redeal_four_nines=False,
                      redeal_three_nines="off", redeal_four_jacks=False)
    st2 = deal(new_game(none, seed=None, first_dealer=0), layout_from_seed(5, none, 0))
    while st2.phase != Phase.PLAY:
        st2 = apply(st2, view(st2, st2.to_act).legal[0])
    assert kept_hands(view(st2, 0)) == ()


def test_a_talon_kept_that_could_be_refused_says_the_declarer_is_strong() -> None:
    """A declarer shown a talon worth under 5 points (or two nines, three jacks) may ask
    for a redeal; keeping it is likelier with eight cards that make the bid. Only a talon
    shown to all tells the defenders (classic hides a talon taken at 100)."""
    strong = frozenset(parse_cards("AH TH KH QH AS TS AD KD"))
    weak = frozenset(parse_cards("9H JH 9S JS QS 9D JD QC"))
    assert talon_log_likelihood(strong, 120, 5.0) > talon_log_likelihood(weak, 120, 5.0) + 1.5
    assert talon_log_likelihood(weak, 120, 5.0) < 0
    # in play, a defender's view: the factor is on exactly when the shown talon qualifies
    rules = make_rules("classic")
    on = off = 0
    for _, real, d in play_positions(rules, range(60), 1, mix=0.0):
        poor = (sum(POINTS[c] for c in d.talon_taken) < 5
                or sum(1 for c in d.talon_taken if c % 6 == 0) >= 2
                or sum(1 for c in d.talon_taken if c % 6 == 1) >= 3)
        for seat in d.active:
            v = view(real, seat)
            assert talon_kept(v) == (poor and d.talon_shown and seat != d.declarer)
            inf = Inference(v, Knowledge(v))
            assert inf.talon == talon_kept(v)
        on += poor and d.talon_shown
        off += not poor
    assert on >= 3 and off >= 20
