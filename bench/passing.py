"""``python -m bot bench passing``: does ``hard``'s pass reach the bid on the real deal?

The positions are the declarers of three players about to pass, in ``normal`` self-play
on seeded classic deals. At each, ``hard``'s candidates (the three pairs that leave the
best fitted estimate, and the best one with its cards the other way round) are given to
``hard.pass_pick`` with the pass's default thinking time, and both the fitted estimate's
pair and the pair picked are then played on the real deal with every hand open: does the
declarer reach its bid? A pick that knows something reaches it more often. The real
deal is an open-card proxy (the declarer sees every card), the same for both pairs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from bot.ai import hard, normal
from bot.ai.solver import Solver, to_mask
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import GameState, Phase
from bot.engine.views import TableView, view


def reaches(v: TableView, st: GameState, cand: tuple[int, ...]) -> bool:
    """Whether the declarer of ``v``, passing ``cand`` (the first card to the next
    defender), reaches its bid on the real deal of ``st`` with every hand open."""
    assert st.deal is not None
    r = v.rules
    order = v.active
    pos = {s: i for i, s in enumerate(order)}
    me = pos[v.seat]
    hands = [to_mask(list(st.deal.hands[s])) for s in order]
    hands[me] = to_mask([c for c in v.hand if c not in cand])
    for s, c in zip([s for s in order if s != v.seat], cand, strict=True):
        hands[pos[s]] |= 1 << c
    solver = Solver(len(order), me, r.marriage_first_lead, r.last_trick_bonus,
                    defender_marriages=False)
    return solver.value(hands, me, [], -1, 0, v.bid - 1, v.bid) >= v.bid


def positions(count: int, seed: int) -> list[tuple[TableView, GameState]]:
    """The first ``count`` declarers about to pass their two cards."""
    rules = make_rules("classic")
    out: list[tuple[TableView, GameState]] = []
    k = 0
    while len(out) < count:
        dealer = k % 3
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(derive_seed(seed, k), rules, dealer))
        rng = random.Random(k)
        k += 1
        while st.phase not in (Phase.PLAY, Phase.DEALING, Phase.GAME_OVER):
            v = view(st, st.to_act)
            if st.phase == Phase.PASSING and len(v.hand) == 10 and len(v.active) == 3:
                out.append((v, st))
                break
            st = apply(st, normal.choose(v, rng))
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot bench passing", description=__doc__)
    p.add_argument("--positions", type=int, default=100)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", type=float, default=0.9 * hard.PASS_THINK,
                   help="seconds for each pick (default: what the pass gets by default)")
    args = p.parse_args(argv)
    fitted = picked = better = worse = changed = 0
    times: list[float] = []
    ps = positions(args.positions, args.seed)
    for i, (v, st) in enumerate(ps):
        cands = hard.pass_candidates(hard._pass_options(v))
        t0 = time.monotonic()
        j = hard.pass_pick(v, cands, random.Random(i), t0 + args.think)
        times.append(time.monotonic() - t0)
        a, b = reaches(v, st, cands[0]), reaches(v, st, cands[j])
        fitted += a
        picked += b
        better += b > a
        worse += b < a
        changed += j != 0
    n = len(ps)
    print(f"bench passing: {n} declarers about to pass, normal self-play, classic deals of "
          f"seed {args.seed}, {args.think:.2f} s a pick")
    print(f"reach the bid on the real deal (open cards): the fitted pair {fitted} of {n}, "
          f"the pair picked {picked} of {n}")
    print(f"picks other than the fitted pair: {changed}; better on the real deal {better}, "
          f"worse {worse}")
    print(f"time a pick: p50 {1000 * statistics.median(times):.0f} ms, "
          f"max {1000 * max(times):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
