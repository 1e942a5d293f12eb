"""The open-card solver agrees with brute force over the engine on small endings."""

from __future__ import annotations

import random

import pytest

from bot.ai.solver import Solver, to_mask
from bot.engine.game import apply, legal_actions
from bot.engine.rules import make_rules
from bot.engine.state import GameState
from tests.ai.helpers import play_position, with_hands


def brute(st: GameState, decl: int) -> int:
    """V by plain minimax over the engine: declarer's points − the defenders' marriages."""
    d = st.deal
    assert d is not None
    best: int | None = None
    maxi = d.to_act == decl
    for a in legal_actions(st):
        nxt = apply(st, a)
        if len(nxt.history) > len(st.history):
            res = nxt.history[-1]
            declared = nxt.deal.declared if nxt.deal is not None and nxt.deal.number == d.number \
                else d.declared
            v = res.points[decl] - sum(m.value for m in declared if m.seat != decl)
        else:
            v = brute(nxt, decl)
        if best is None or (v > best if maxi else v < best):
            best = v
    assert best is not None
    return best


def _case(seed: int) -> tuple[GameState, int, list[int], int]:
    rng = random.Random(seed)
    players = rng.choice([2, 3, 3])
    rules = make_rules("classic", players=players, marriage_first_lead=rng.random() < 0.3,
                       last_trick_bonus=rng.choice([0, 0, 10]))
    pos = None
    s = seed
    while pos is None:
        pos = play_position(rules, s, 0)
        s += 1000
    _, st = pos
    assert st.deal is not None
    active = st.deal.active
    k = len(active)
    size = rng.randint(1, 3 if k == 3 else 4)
    # marriages more often than chance: deal from a deck that starts with K/Q pairs
    deck = list(range(24))
    rng.shuffle(deck)
    if rng.random() < 0.7:
        su = rng.randrange(4)
        deck.remove(6 * su + 2)
        deck.remove(6 * su + 3)
        deck = [6 * su + 2, 6 * su + 3, *deck]
    hands: list[tuple[int, ...]] = [() for _ in range(st.n)]
    for i, seat in enumerate(active):
        hands[seat] = tuple(deck[i * size:(i + 1) * size])
    decl = rng.choice(active)
    leader = rng.choice(active)
    trump = rng.choice([-1, -1, 0, 1, 2, 3])
    won = tuple(int(seat in active and rng.random() < 0.6) for seat in range(st.n))
    st = with_hands(st, hands, leader, trump, won, decl)
    return st, decl, [to_mask(hands[s]) for s in active], leader


@pytest.mark.parametrize("seed", range(120))
def test_solver_matches_brute_force(seed: int) -> None:
    st, decl, masks, leader = _case(seed)
    d = st.deal
    assert d is not None
    active = d.active
    pos = {s: i for i, s in enumerate(active)}
    won = sum(1 << pos[s] for s in active if d.ntricks[s])
    solver = Solver(len(active), pos[decl], st.rules.marriage_first_lead,
                    st.rules.last_trick_bonus)
    got = solver.value(masks, pos[leader], [], d.trump, won)
    assert got == brute(st, decl)
    # null windows answer "at least t?" the same way
    for t in (got - 5, got, got + 1):
        w = Solver(len(active), pos[decl], st.rules.marriage_first_lead,
                   st.rules.last_trick_bonus).value(masks, pos[leader], [], d.trump, won,
                                                    t - 1, t)
        assert (w >= t) == (got >= t)


@pytest.mark.parametrize("seed", range(40))
def test_value_after_each_move_matches_brute_force(seed: int) -> None:
    st, decl, masks, leader = _case(10_000 + seed)
    d = st.deal
    assert d is not None
    active = d.active
    pos = {s: i for i, s in enumerate(active)}
    won = sum(1 << pos[s] for s in active if d.ntricks[s])
    solver = Solver(len(active), pos[decl], st.rules.marriage_first_lead,
                    st.rules.last_trick_bonus)
    for a in legal_actions(st):
        if a.kind == "declare" and a.card % 6 == 5:
            continue
        got = solver.value_after(masks, pos[leader], [], d.trump, won, a.card,
                                 a.kind == "declare")
        nxt = apply(st, a)
        if len(nxt.history) > len(st.history):
            continue
        assert got == brute(nxt, decl), a  # the marriage counts in the engine's points


def test_the_solver_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from bench import solver as bench_solver

    assert bench_solver.main(["--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "positions" in out and "checksum" in out and "nodes/s" in out
