"""``python -m bot bench solver``: the open-card solver's speed on a fixed position set.

The positions are the card decisions (two or more legal cards) of ``normal`` self-play on
seeded classic deals, with the real cards as the open-card world: for each legal move the
queries ``hard`` asks (does the declarer reach the contract; with six cards or fewer also
20 over and 20 under; with five or fewer the exact value). It prints the CPU time
(``time.process_time``: other processes' load counts less than in wall time), the nodes
(positions at the start of a trick the search entered), the positions solved per second
and a checksum of the answers, so that a faster solver can be checked to give the same
answers.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from dataclasses import dataclass

from bot.ai import normal
from bot.ai.solver import Solver, to_mask
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import DECLARE, Phase
from bot.engine.views import view


@dataclass(frozen=True)
class Query:
    hands: tuple[int, ...]
    turn: int
    trick: tuple[tuple[int, int], ...]
    trump: int
    won: int
    decl: int
    size: int
    moves: tuple[tuple[int, bool, int], ...]  # card, declare, extra
    need: int


def positions(deals: int, seed: int = 1) -> list[Query]:
    rules = make_rules("classic")
    out: list[Query] = []
    for k in range(deals):
        dealer = k % 3
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(derive_seed(seed, k), rules, dealer))
        rng = random.Random(k)
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER) and not st.history:
            d = st.deal
            assert d is not None
            v = view(st, st.to_act)
            if st.phase == Phase.PLAY and len(v.legal) > 1:
                order = d.active
                pos = {s: i for i, s in enumerate(order)}
                won = 0
                for s in order:
                    if d.ntricks[s] > 0:
                        won |= 1 << pos[s]
                decl_pts = d.taken[d.declarer] + sum(m.value for m in d.declared
                                                     if m.seat == d.declarer)
                moves = []
                for a in v.legal:
                    if a.kind == DECLARE and a.card % 6 == 5:
                        moves.append((a.card, False, 200 if st.to_act == d.declarer else -200))
                    else:
                        moves.append((a.card, a.kind == DECLARE, 0))
                out.append(Query(tuple(to_mask(d.hands[s]) for s in order), pos[st.to_act],
                                 tuple((pos[s], c) for s, c in d.trick), d.trump, won,
                                 pos[d.declarer], max(len(d.hands[s]) for s in order),
                                 tuple(moves), d.contract - decl_pts))
            st = apply(st, normal.choose(v, rng))
    return out


def run(qs: list[Query], solver_class: type[Solver] = Solver) -> tuple[float, int, list[int]]:
    """(CPU seconds, nodes, answers) of every query of ``qs``."""
    answers: list[int] = []
    nodes = 0
    t0 = time.process_time()
    for q in qs:
        solver = solver_class(3, q.decl, False, 10)
        for card, declare, extra in q.moves:
            if q.size <= 5:
                answers.append(extra + solver.value_after(q.hands, q.turn, q.trick, q.trump,
                                                          q.won, card, declare))
                continue
            probes = [q.need] + ([q.need + 20, q.need - 20] if q.size <= 6 else [])
            for t in probes:
                v = extra + solver.value_after(q.hands, q.turn, q.trick, q.trump, q.won, card,
                                               declare, t - 1 - extra, t - extra)
                answers.append(int(v >= t))
        nodes += solver.nodes
    return time.process_time() - t0, nodes, answers


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot bench solver")
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--min-cards", type=int, default=1, help="only positions with this many")
    args = p.parse_args(argv)
    qs = [q for q in positions(args.deals, args.seed) if q.size >= args.min_cards]
    el, nodes, answers = run(qs)
    digest = hashlib.sha256(repr(answers).encode()).hexdigest()[:16]
    big = [q for q in qs if q.size >= 7]
    el7, nodes7, _ = run(big)
    print(f"{len(qs)} positions, {len(answers)} answers (checksum {digest})")
    print(f"all: {el:.2f} s CPU, {nodes} nodes, {nodes / max(el, 1e-9):,.0f} nodes/s, "
          f"{len(qs) / max(el, 1e-9):,.1f} positions/s")
    print(f"7-8 cards ({len(big)} positions): {el7:.2f} s CPU, {nodes7} nodes, "
          f"{nodes7 / max(el7, 1e-9):,.0f} nodes/s, {len(big) / max(el7, 1e-9):,.1f} positions/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
