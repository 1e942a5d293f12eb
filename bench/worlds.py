"""``python -m bot bench worlds``: how many worlds ``hard`` solves per card decision.

The positions are the card decisions (two or more legal cards) of ``normal`` self-play on
seeded classic deals, each seen from the seat to play. At each, ``hard.play_scores``
samples and solves worlds until its thinking time runs out, with no cap on their number;
the report gives, per number of cards in hand, the fewest, the median and the most worlds
solved, and how many decisions would have stopped at ``hard``'s own cap
(``hard.MAX_SAMPLES``) before the time ran out. Wall-clock time: run it on an idle machine
(the load average is printed).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import defaultdict

from bot.ai import choose_action, hard
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase
from bot.engine.views import view


def worlds(deals: int, seed: int, think: float) -> dict[int, list[int]]:
    """Cards in hand -> the worlds solved at each decision with that many."""
    rules = make_rules("classic")
    out: dict[int, list[int]] = defaultdict(list)
    for k in range(deals):
        dealer = k % 3
        st = deal(new_game(rules, seed=None, first_dealer=dealer),
                  layout_from_seed(derive_seed(seed, k), rules, dealer))
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER) and not st.history:
            v = view(st, st.to_act)
            if st.phase == Phase.PLAY and len(v.legal) > 1:
                scores = hard.play_scores(v, random.Random(k), time.monotonic() + think,
                                          max_samples=10**9)
                out[len(v.hand)].append(0 if scores is None else scores.samples)
            st = apply(st, choose_action(v, "normal", seed=k))
    return out


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot bench worlds", description=__doc__)
    p.add_argument("--deals", type=int, default=6)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--think", type=float, default=hard.DEFAULT_THINK,
                   help="seconds per decision (default: hard's own)")
    args = p.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"bench worlds: {args.deals} deals of seed {args.seed}, {args.think:g} s a decision, "
          f"no cap (hard's cap: {hard.MAX_SAMPLES}); load average {load:.2f}")
    res = worlds(args.deals, args.seed, args.think)
    capped = total = 0
    for size in sorted(res, reverse=True):
        xs = sorted(res[size])
        n_cap = sum(1 for x in xs if x > hard.MAX_SAMPLES)
        capped += n_cap
        total += len(xs)
        print(f"{size} cards: {len(xs)} decisions, worlds min {xs[0]}, median "
              f"{xs[len(xs) // 2]}, max {xs[-1]}; {n_cap} would stop at the cap")
    print(f"in all: {total} decisions, {capped} ({100 * capped / max(total, 1):.0f}%) would "
          f"stop at the cap of {hard.MAX_SAMPLES} before the time ran out")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
