"""``python -m bot bench engine``: how fast the rules engine plays random legal games."""

from __future__ import annotations

import argparse
import random
import time
import tracemalloc

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase


def bench_engine(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench engine")
    parser.add_argument("--deals", type=int, default=3000, help="random whole deals to play")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--preset", default="classic")
    args = parser.parse_args(argv)
    rules = make_rules(args.preset, players=args.players)
    rng = random.Random(args.seed)
    deals = steps = 0
    game = 0
    t0 = time.perf_counter()
    legal_time = 0.0
    while deals < args.deals:
        state = new_game(rules, seed=args.seed * 1_000_003 + game)
        game += 1
        while state.phase != Phase.GAME_OVER and deals < args.deals:
            before = len(state.history)
            t = time.perf_counter()
            acts = legal_actions(state)
            legal_time += time.perf_counter() - t
            state = apply(state, rng.choice(acts))
            steps += 1
            if len(state.history) != before:
                deals += 1
            if len(state.history) > 200:  # random players rarely finish a game: start another
                break
    elapsed = time.perf_counter() - t0
    tracemalloc.start()
    state = new_game(rules, seed=args.seed)
    while len(state.history) < 30 and state.phase != Phase.GAME_OVER:
        state = apply(state, rng.choice(legal_actions(state)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"engine benchmark: {rules.players} players, preset {args.preset}, seed {args.seed}")
    print(f"  random whole deals:   {deals} in {elapsed:.2f} s = {deals / elapsed:,.0f} deals/s")
    print(f"  legal-move steps:     {steps} in {elapsed:.2f} s = {steps / elapsed:,.0f} steps/s "
          f"(legal_actions + apply; legal_actions alone {steps / legal_time:,.0f}/s)")
    print(f"  memory: a 30-deal game with its history peaks at {peak / 1024:,.0f} KiB traced")
    return 0
