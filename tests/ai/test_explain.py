"""The explainer: hints (``hard``'s move and a reason) and the open-card deal analysis."""

from __future__ import annotations

import time
from dataclasses import replace

from bot.ai import choose_action
from bot.ai.explain import Reason, _card_reason, analyse, hint
from bot.engine import cards as C
from bot.engine.game import apply, new_game
from bot.engine.rules import CLASSIC
from bot.engine.state import DECLARE, PLAY, Action, GameState, Phase
from bot.engine.views import TableView, view

CODES = {"only", "light", "redeal", "no_redeal", "bid", "pass", "redeal_talon", "give_loose",
         "give_cheap", "contract", "concede", "talon", "estimate", "marriage", "lead_ace",
         "top_left", "lead_top", "draw_trumps", "lead_low", "trumps_in", "takes_last", "takes",
         "load_partner", "cheap", "made_pct", "beaten_pct", "made_pct_fit", "beaten_pct_fit"}


def _game(seed: int, deals: int) -> GameState:
    st = new_game(CLASSIC, seed)
    while len(st.history) < deals:
        st = apply(st, choose_action(view(st, st.to_act), "normal", seed=1), st.to_act)
    return st


def _play_view(seed: int = 11) -> TableView:
    st = new_game(CLASSIC, seed)
    while st.phase != Phase.PLAY:
        st = apply(st, choose_action(view(st, st.to_act), "normal", seed=1), st.to_act)
    return view(st, st.to_act)


def test_hints_are_legal_and_name_only_cards_the_seat_sees() -> None:
    st = new_game(CLASSIC, 5)
    seen = 0
    while len(st.history) < 2:
        v = view(st, st.to_act)
        h = hint(v, seed=1, deadline=time.monotonic() + 0.05)
        assert h.action in v.legal
        visible = set(v.hand) | {c for tr in v.tricks for _, c in tr.cards} | {
            c for _, c in v.trick} | set(v.talon)
        for r in h.reasons:
            assert r.code in CODES
            for name, value in r.params:
                if name in ("card", "gone"):
                    assert value in visible, (r, v.hand)
        seen += 1
        st = apply(st, choose_action(v, "normal", seed=1), st.to_act)
    assert seen > 20


def test_reasons_of_constructed_positions() -> None:
    v = _play_view()
    A_h, T_h, K_h, Q_h, N_h = (C.card(r, 3) for r in (C.ACE, C.TEN, C.KING, C.QUEEN, C.NINE))
    J_s = C.card(C.JACK, 0)
    lead = replace(v, hand=(A_h, T_h, J_s), trick=(), tricks=(), trump=-1)
    assert _card_reason(lead, Action(PLAY, card=A_h)).code == "lead_ace"
    assert _card_reason(lead, Action(PLAY, card=J_s)).code == "lead_low"
    marriage = _card_reason(replace(lead, hand=(K_h, Q_h)), Action(DECLARE, card=K_h))
    assert marriage == Reason("marriage", (("card", K_h), ("value", 100)))
    # the ace of hearts already went: the ten is the highest heart left
    from bot.engine.state import Trick
    gone = Trick(leader=v.active[0], cards=((v.active[0], A_h), (v.active[1], N_h),
                                           (v.active[2], J_s)), winner=v.active[0], trump=-1)
    r = _card_reason(replace(lead, hand=(T_h, J_s), tricks=(gone,)), Action(PLAY, card=T_h))
    assert r == Reason("top_left", (("card", T_h), ("gone", A_h)))
    # following, last to play, with a winner
    me = v.seat
    others = [s for s in v.active if s != me]
    follow = replace(v, hand=(A_h, N_h), trick=((others[0], K_h), (others[1], Q_h)), tricks=(),
                     trump=-1)
    assert _card_reason(follow, Action(PLAY, card=A_h)).code == "takes_last"
    assert _card_reason(follow, Action(PLAY, card=N_h)).code == "cheap"


def test_analysis_agrees_with_the_outcome() -> None:
    st = _game(11, 6)
    done = 0
    for h in st.history:
        if h.outcome not in ("made", "failed"):
            continue
        a = analyse(st, h.number)
        assert a.complete and a.value is not None
        assert a.makeable == (a.value >= a.contract)
        declarer_points = h.points[h.declarer]
        if a.mistake is None:  # nobody changed the outcome: it is the open-card one
            assert (h.outcome == "made") == a.makeable, (a, declarer_points)
        else:
            assert a.mistake.declarer_side == a.makeable
        done += 1
    assert done >= 2
