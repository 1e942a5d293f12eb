"""``python -m bot bench hints [--games N] [--seed S]``: how long a 💡 hint and a 🔍 analysis
take on this machine (median and p95), over the decisions and deals of a few seeded games
played by ``normal`` (three players, classic rules). Hints think with the bot's budget
(``explain.HINT_THINK``, the worker's share of the 1 s box); analyses with 2.5 s."""

from __future__ import annotations

import argparse
import statistics
import time

from bot.ai import choose_action
from bot.ai.explain import analyse, hint
from bot.engine.game import apply, new_game
from bot.engine.rules import CLASSIC
from bot.engine.state import Phase
from bot.engine.views import view

HINT_THINK = 0.7  # as bot/tg/io/thinking.py
ANALYSIS_THINK = 2.5


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.95 * len(xs)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bot bench hints")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    hints: list[float] = []
    plays: list[float] = []
    analyses: list[float] = []
    for g in range(args.games):
        st = new_game(CLASSIC, args.seed + g)
        while len(st.history) < args.deals and st.phase != Phase.GAME_OVER:
            v = view(st, st.to_act)
            t0 = time.monotonic()
            hint(v, seed=1, deadline=t0 + HINT_THINK)
            took = time.monotonic() - t0
            hints.append(took)
            if v.phase == Phase.PLAY and len(v.legal) > 1:
                plays.append(took)
            st = apply(st, choose_action(v, "normal", seed=1), st.to_act)
        for h in st.history:
            if h.outcome not in ("made", "failed"):
                continue
            t0 = time.monotonic()
            analyse(st, h.number, t0 + ANALYSIS_THINK)
            analyses.append(time.monotonic() - t0)
    for name, xs in (("hint (every decision)", hints), ("hint (a card, 2+ legal)", plays),
                     ("analysis (a deal)", analyses)):
        if xs:
            print(f"{name:26} n={len(xs):4}  median {statistics.median(xs) * 1000:7.1f} ms"
                  f"  p95 {_p95(xs) * 1000:7.1f} ms  max {max(xs) * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
