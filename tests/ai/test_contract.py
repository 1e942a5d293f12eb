"""The bid and contract choices of ``hard``: the fitted estimate and open-card results on sampled
deals."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from itertools import pairwise

import pytest

from bot.ai import hard, normal
from bot.engine import cards as C
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import BID, CONTRACT, GameState, Phase
from bot.engine.views import TableView, view

RULES = make_rules("classic")


def views_of_deals(count: int, *, seed: int, play_seed: int, until: tuple[Phase, ...],
                   wanted: Callable[[TableView], bool], one_a_deal: bool) -> list[TableView]:
    """The first ``count`` views ``wanted`` of the seat to act, in deals of ``seed`` bid
    and passed by ``hard`` until a phase of ``until`` (``one_a_deal``: a deal's first)."""
    out: list[TableView] = []
    rng = random.Random(play_seed)
    k = 0
    while len(out) < count:
        dealer = k % 3
        st = deal(new_game(RULES, seed=None, first_dealer=dealer),
                  layout_from_seed(derive_seed(seed, k), RULES, dealer))
        k += 1
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER, *until):
            v = view(st, st.to_act)
            if wanted(v):
                out.append(v)
                if one_a_deal:
                    break
            st = apply(st, hard.choose(v, rng, time.monotonic() + 0.05))
    return out[:count]


def contract_views(count: int) -> list[TableView]:
    """Contract-phase views of the declarer, from deals bid and passed by ``hard``."""
    return views_of_deals(count, seed=7, play_seed=3, until=(Phase.PLAY,),
                          wanted=lambda v: v.phase == Phase.CONTRACT, one_a_deal=True)


def test_chances_fall_with_the_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "CONTRACT_SAMPLES", hard.CONTRACT_MIN_SAMPLES)
    for v in contract_views(4):
        values = sorted(a.value for a in v.legal if a.kind == CONTRACT)
        ch = hard.contract_chances(v, values, random.Random(1), time.monotonic() + 60.0)
        assert ch is not None and len(ch) == len(values)
        assert all(0.0 <= p <= 1.0 for p in ch)
        assert all(a >= b for a, b in pairwise(ch))


def test_contract_is_legal_and_within_the_deadline() -> None:
    for v in contract_views(5):
        t0 = time.monotonic()
        act = hard.choose_contract(v, random.Random(2), t0 + 0.2)
        assert act in v.legal
        assert time.monotonic() - t0 < 0.5


def test_bid_chance_and_bid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hard, "BID_SAMPLES", hard.CONTRACT_MIN_SAMPLES)
    seen = 0
    for k in range(12):
        st = deal(new_game(RULES, seed=None, first_dealer=k % 3),
                  layout_from_seed(derive_seed(11, k), RULES, k % 3))
        if st.phase != Phase.BIDDING:
            continue
        v = view(st, st.to_act)
        bids = sorted(a.value for a in v.legal if a.kind == BID)
        q = hard.bid_chance(v, bids[0], random.Random(1), time.monotonic() + 60.0)
        assert q is not None and 0.0 <= q <= 1.0
        assert hard.choose_bid(v, random.Random(1), time.monotonic() + 0.1) in v.legal
        seen += 1
    assert seen >= 6


def pass_views(count: int) -> list[TableView]:
    """Passing-phase views of the declarer (first and second card), deals bid by ``hard``."""
    return views_of_deals(
        count, seed=9, play_seed=4, until=(Phase.PLAY, Phase.CONTRACT),
        wanted=lambda v: v.phase == Phase.PASSING and any(a.kind == "give" for a in v.legal),
        one_a_deal=False)


def test_the_pass_is_chosen_on_open_card_deals(monkeypatch: pytest.MonkeyPatch) -> None:
    """With time enough every candidate is scored on the same deals; the pick is a
    candidate; the card given is in hand and the choice keeps the deadline."""
    monkeypatch.setattr(hard, "PASS_SAMPLES", hard.CONTRACT_MIN_SAMPLES)
    views = pass_views(6)
    assert any(v.gave_count == 1 for v in views) and any(v.gave_count == 0 for v in views)
    for v in views:
        opts = hard._pass_options(v)
        cands = [o for _, o in opts[:3]]
        assert all(len(c) == 2 - v.gave_count for c in cands)
        i = hard.pass_pick(v, cands, random.Random(1), time.monotonic() + 60.0)
        assert 0 <= i < len(cands)
        # no time at all: the fitted estimate's choice
        assert hard.pass_pick(v, cands, random.Random(1), time.monotonic() - 1.0) == 0
        t0 = time.monotonic()
        act = hard.choose_pass(v, random.Random(2), t0 + 0.2)
        assert act in v.legal
        assert time.monotonic() - t0 < 0.5



def bare_king_declarer() -> GameState:
    """A declarer of 100 about to pass, holding K♠ 9♠ A♦ 10♦ Q♦ A♥ 10♥ Q♥ J♥ 9♥ (the
    bidding of ``normal`` on classic deal 74, dealer 2)."""
    rng = random.Random(74)
    st = deal(new_game(RULES, seed=None, first_dealer=2), layout_from_seed(74, RULES, 2))
    while not (st.phase == Phase.PASSING and len(view(st, st.to_act).hand) == 10):
        st = apply(st, normal.choose(view(st, st.to_act), rng))
    v = view(st, st.to_act)
    assert v.bid == 100
    assert sorted(v.hand) == sorted(C.parse_cards("K♠ 9♠ A♦ 10♦ Q♦ A♥ 10♥ Q♥ J♥ 9♥"))
    return st


def test_the_pass_the_open_card_deals_prefer_over_the_fitted_estimate() -> None:
    """The fitted estimate lets go of 9♠ 9♥ and keeps K♠ alone, to be caught by A♠; on
    open-card deals the hand reaches 100 far more often without spades (9♠ and K♠
    given): the pass follows the deals, and the second card given completes the pair the
    first was chosen with."""
    st = bare_king_declarer()
    v = view(st, st.to_act)
    opts = hard._pass_options(v)
    assert sorted(opts[0][1]) == sorted(C.parse_cards("9♠ 9♥"))
    cands = hard.pass_candidates(opts)
    assert len(cands) == 4 and cands[1] == (cands[0][1], cands[0][0])
    for seed in range(3):
        i = hard.pass_pick(v, cands, random.Random(seed), time.monotonic() + 60.0)
        assert sorted(cands[i]) == sorted(C.parse_cards("9♠ K♠"))
    given = []
    for _ in range(2):
        act = hard.choose_pass(view(st, st.to_act), random.Random(5), time.monotonic() + 5.0)
        given.append(act.card)
        st = apply(st, act)
    assert sorted(given) == sorted(C.parse_cards("9♠ K♠"))


def test_the_passing_bench_reports(capsys: pytest.CaptureFixture[str]) -> None:
    """``bench passing`` finds declarers about to pass, plays a pair on the real deal
    (the declarer with the bare king fails 100 keeping it and makes it without spades)
    and prints how often each pair reaches the bid."""
    from bench import passing as bench_passing

    ps = bench_passing.positions(3, 1)
    assert len(ps) == 3
    for v, _st in ps:
        assert v.phase == Phase.PASSING and len(v.hand) == 10 and v.seat == v.to_act
    st = bare_king_declarer()
    v = view(st, st.to_act)
    assert not bench_passing.reaches(v, st, C.parse_cards("9♠ 9♥"))
    assert bench_passing.reaches(v, st, C.parse_cards("9♠ K♠"))
    assert bench_passing.main(["--positions", "3", "--think", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "3 declarers about to pass" in out and "the pair picked" in out
