"""The open-card solver agrees with brute force over the engine on small endings."""

from __future__ import annotations

import random

import pytest

from bot.ai import hard
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


def plain(k: int, decl: int, first_lead: bool, bonus: int, def_marr: int,
          hands: list[int], turn: int, trick: list[tuple[int, int]], trump: int,
          won: int) -> int:
    """V by plain minimax over the masks: no bounds, no table, no move pruning."""
    from bot.engine.cards import MARRIAGE_VALUES, POINTS

    maxi = turn == decl
    best: int | None = None
    h = hands[turn]
    cards = [c for c in range(24) if h >> c & 1]
    moves: list[tuple[int, bool]] = []
    if trick:
        lead = trick[0][1] // 6
        ok = [c for c in cards if c // 6 == lead] or (
            [c for c in cards if c // 6 == trump] if trump >= 0 else []) or cards
        moves = [(c, False) for c in ok]
    else:
        moves = [(c, False) for c in cards]
        if first_lead or won >> turn & 1:
            moves += [(c, True) for c in cards
                      if c % 6 in (2, 3) and h >> (c - c % 6 + 2) & 1 and h >> (c - c % 6 + 3) & 1]
    for c, declare in moves:
        hs = list(hands)
        hs[turn] &= ~(1 << c)
        t = trump
        gain = 0
        if declare:
            t = c // 6
            gain = MARRIAGE_VALUES[t] if maxi else -MARRIAGE_VALUES[t] * def_marr
        nt = [*trick, (turn, c)]
        if len(nt) == k:
            wp, wc = nt[0]
            for p, x in nt[1:]:
                if (x // 6 == wc // 6 and x > wc) or (t >= 0 and x // 6 == t and wc // 6 != t):
                    wp, wc = p, x
            pts = sum(POINTS[x] for _, x in nt) + (bonus if not any(hs) else 0)
            v = gain + (pts if wp == decl else 0)
            if any(hs):
                v += plain(k, decl, first_lead, bonus, def_marr, hs, wp, [], t, won | 1 << wp)
        else:
            v = gain + plain(k, decl, first_lead, bonus, def_marr, hs, (turn + 1) % k, nt, t, won)
        if best is None or (v > best if maxi else v < best):
            best = v
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(150))
def test_solver_matches_plain_minimax_on_random_positions(seed: int) -> None:
    """Random positions (mid-trick too, marriages often, every option of the solver): the
    value, null windows around it and the value after each move equal plain minimax."""
    rng = random.Random(seed)
    k = rng.choice([2, 3, 3])
    size = rng.randint(2, 4 if k == 3 else 5)
    deck = list(range(24))
    rng.shuffle(deck)
    for _ in range(rng.choice([0, 1, 2])):  # K/Q pairs into one hand, sequences
        su = rng.randrange(4)
        deck.remove(6 * su + 2)
        deck.remove(6 * su + 3)
        at = rng.randrange(k) * size
        deck[at:at] = [6 * su + 2, 6 * su + 3]
    hands = [to_mask(deck[i * size:(i + 1) * size]) for i in range(k)]
    leader = rng.randrange(k)
    trick: list[tuple[int, int]] = []
    for i in range(rng.randrange(k)):  # a trick under way: legal cards of the next seats
        p = (leader + i) % k
        cands = [c for c in range(24) if hands[p] >> c & 1]
        if trick:
            lead = trick[0][1] // 6
            cands = [c for c in cands if c // 6 == lead] or cands
        c = rng.choice(cands)
        hands[p] &= ~(1 << c)
        trick.append((p, c))
    turn = (leader + len(trick)) % k
    trump = rng.choice([-1, -1, 0, 1, 2, 3])
    won = rng.randrange(1 << k)
    decl = rng.randrange(k)
    first_lead = rng.random() < 0.3
    bonus = rng.choice([0, 10])
    dm = rng.random() < 0.8

    def solver() -> Solver:
        return Solver(k, decl, first_lead, bonus, defender_marriages=dm)

    want = plain(k, decl, first_lead, bonus, int(dm), hands, turn, trick, trump, won)
    s = solver()
    assert s.value(hands, turn, trick, trump, won) == want
    for t in (want - 7, want - 1, want, want + 1, want + 12):
        assert (solver().value(hands, turn, trick, trump, won, t - 1, t) >= t) == (want >= t)
        assert (s.value(hands, turn, trick, trump, won, t - 1, t) >= t) == (want >= t)
    for card, declare in s.moves(hands, turn, trick, won):
        got = s.value_after(hands, turn, trick, trump, won, card, declare)
        hs = list(hands)
        hs[turn] &= ~(1 << card)
        t2 = card // 6 if declare else trump
        gain = 0
        if declare:
            from bot.engine.cards import MARRIAGE_VALUES
            gain = MARRIAGE_VALUES[t2] if turn == decl else -MARRIAGE_VALUES[t2] * int(dm)
        nt = [*trick, (turn, card)]
        if len(nt) == k:
            continue  # value_after of a finished trick: covered by the value above
        assert got == gain + plain(k, decl, first_lead, bonus, int(dm), hs, (turn + 1) % k,
                                   nt, t2, won), (card, declare)


def test_the_worlds_bench_counts_the_worlds_of_each_decision(
        capsys: pytest.CaptureFixture[str]) -> None:
    from bench import worlds as bench_worlds

    res = bench_worlds.worlds(1, 5, 0.02)
    assert res and all(1 <= size <= 8 for size in res)
    assert all(n >= 0 for xs in res.values() for n in xs)
    assert sum(len(xs) for xs in res.values()) >= 8  # a deal has card choices at many sizes
    assert bench_worlds.main(["--deals", "1", "--think", "0.02"]) == 0
    out = capsys.readouterr().out
    assert f"no cap (hard's cap: {hard.MAX_SAMPLES})" in out and "would stop at the cap" in out
