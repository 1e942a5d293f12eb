"""The arena: two computer levels on duplicate deals, and whole games.

``python -m bot arena --a hard --b normal --deals 2000 --seed 1`` plays every deal
once per seating: for each active seat j, A sits in j against B everywhere else,
then B sits in j against A everywhere else (two players: A-B then B-A). Both see
the same cards, so the difference of A's and B's score in seat j measures the
players rather than the cards. Per deal, the mean over the seats of that
difference is one observation; the report gives its mean with a 95% bootstrap
interval (resampling deals), declarer success rates, games to 1000 won
(``--games N``: A against two B, A's seat rotating) and the decision time per
level. A progress bar goes to stderr.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import PRESETS, Rules, make_rules
from bot.engine.state import GameState, Phase
from bot.engine.views import view

from . import LEVELS, choose_action


@dataclass
class Stats:
    times: dict[str, list[float]] = field(default_factory=dict)
    made: dict[str, int] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    conceded: dict[str, int] = field(default_factory=dict)

    def add_time(self, level: str, dt: float) -> None:
        self.times.setdefault(level, []).append(dt)

    def add_outcome(self, level: str, outcome: str) -> None:
        box = {"made": self.made, "failed": self.failed, "conceded": self.conceded}.get(outcome)
        if box is not None:
            box[level] = box.get(level, 0) + 1


def play_deal(state: GameState, levels: tuple[str, ...], seed: int, stats: Stats,
              think: float | None = None) -> GameState:
    """Play the current deal of ``state`` to its end, seat i played at ``levels[i]``."""
    start = len(state.history)
    while state.phase not in (Phase.DEALING, Phase.GAME_OVER) and len(state.history) == start:
        seat = state.to_act
        v = view(state, seat)
        lvl = levels[seat]
        t0 = time.monotonic()
        deadline = t0 + think if think is not None else None
        act = choose_action(v, lvl, seed=seed * 31 + seat, deadline=deadline)
        stats.add_time(lvl, time.monotonic() - t0)
        state = apply(state, act)
    return state


def seatings(rules: Rules, dealer: int) -> list[tuple[int, tuple[bool, ...]]]:
    """(seat j, is-A per seat) for every duplicate seating of one deal."""
    n = rules.players
    active = [(dealer + i) % n for i in range(1, (3 if n == 4 else n) + 1)]
    out = []
    for j in active:
        out.append((j, tuple(s == j for s in range(n))))
        out.append((j, tuple(s != j for s in range(n))))
    return out


def duplicate_deal(rules: Rules, a: str, b: str, seed: int, k: int, stats: Stats,
                   think: float | None = None) -> float:
    """A's mean score minus B's over the seats of deal ``k``."""
    n = rules.players
    dealer = k % n
    layout = layout_from_seed(derive_seed(seed, k), rules, dealer)
    score: dict[tuple[int, bool], int] = {}
    for j, is_a in seatings(rules, dealer):
        levels = tuple(a if x else b for x in is_a)
        st = deal(new_game(rules, seed=None, first_dealer=dealer), layout)
        st = play_deal(st, levels, derive_seed(seed, 1_000_000 + k), stats, think)
        res = st.history[-1]
        score[(j, is_a[j])] = res.scores[j]
        if res.declarer >= 0:
            stats.add_outcome(levels[res.declarer], res.outcome)
    seats = sorted({j for j, _ in score})
    return sum(score[(j, True)] - score[(j, False)] for j in seats) / len(seats)


def play_game(rules: Rules, levels: tuple[str, ...], seed: int, stats: Stats,
              think: float | None = None, max_deals: int = 400) -> int:
    """A whole game to 1000; the winner's seat (-1 if ``max_deals`` ran out)."""
    st = new_game(rules, seed=seed)
    for _ in range(max_deals):
        if st.phase == Phase.GAME_OVER:
            break
        st = play_deal(st, levels, derive_seed(seed, len(st.history)), stats, think)
    return st.winner


def bootstrap(xs: list[float], rng: random.Random, rounds: int = 2000) -> tuple[float, float]:
    n = len(xs)
    if n < 2:
        return (float("nan"), float("nan"))
    means = sorted(sum(xs[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Progress:
    def __init__(self, total: int, label: str, out: Callable[[str], object]) -> None:
        self.total, self.label, self.out = total, label, out
        self.t0 = time.monotonic()
        self.last = -1.0

    def step(self, done: int) -> None:
        now = time.monotonic()
        if done < self.total and now - self.last < 0.5:
            return
        self.last = now
        width = 30
        fill = int(width * done / max(self.total, 1))
        el = now - self.t0
        eta = el / done * (self.total - done) if done else 0.0
        self.out(f"\r{self.label} [{'#' * fill}{'.' * (width - fill)}] {done}/{self.total} "
                 f"{el:6.0f}s eta {eta:5.0f}s")
        if done >= self.total:
            self.out("\n")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot arena",
                                description="Duplicate deals between two computer levels.")
    p.add_argument("--a", default="hard", choices=LEVELS)
    p.add_argument("--b", default="normal", choices=LEVELS)
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--games", type=int, default=0, help="whole games to 1000 (A vs two B)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    p.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    p.add_argument("--think", type=float, default=None,
                   help="seconds of thinking per decision (default: the level's own)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    rules = make_rules(args.preset, players=args.players)
    stats = Stats()
    err: Callable[[str], object] = (lambda s: None) if args.quiet else sys.stderr.write
    rng = random.Random(args.seed)
    print(f"arena: A={args.a} B={args.b}, {args.players} players, preset {args.preset}, "
          f"seed {args.seed}")
    if args.deals > 0:
        diffs: list[float] = []
        bar = Progress(args.deals, "deals", err)
        for k in range(args.deals):
            diffs.append(duplicate_deal(rules, args.a, args.b, args.seed, k, stats, args.think))
            bar.step(k + 1)
        mean = sum(diffs) / len(diffs)
        lo, hi = bootstrap(diffs, rng)
        plays = len(seatings(rules, 0)) * len(diffs)
        print(f"duplicate deals: {len(diffs)} ({plays} plays)")
        print(f"A - B: {mean:+.1f} points per deal, 95% bootstrap interval "
              f"[{lo:+.1f}, {hi:+.1f}]")
        for lvl in dict.fromkeys((args.a, args.b)):
            m, f, c = (stats.made.get(lvl, 0), stats.failed.get(lvl, 0),
                       stats.conceded.get(lvl, 0))
            tot = m + f + c
            rate = f"{100 * m / tot:.1f}%" if tot else "-"
            print(f"declarer {lvl}: made {m} of {tot} ({rate}), failed {f}, conceded {c}")
    if args.games > 0:
        wins_a = wins_b = unfinished = 0
        bar = Progress(args.games, "games", err)
        n = args.players
        for g in range(args.games):
            a_seat = g % n
            levels = tuple(args.a if s == a_seat else args.b for s in range(n))
            w = play_game(rules, levels, derive_seed(args.seed, 2_000_000 + g), stats,
                          args.think)
            if w < 0:
                unfinished += 1
            elif w == a_seat:
                wins_a += 1
            else:
                wins_b += 1
            bar.step(g + 1)
        done = wins_a + wins_b
        share = f"{100 * wins_a / done:.1f}%" if done else "-"
        print(f"games to 1000 (A against {n - 1} B, seats rotated): A won {wins_a} of {done} "
              f"({share}; parity {100 / n:.1f}%), B won {wins_b}, unfinished {unfinished}")
    for lvl, ts in sorted(stats.times.items()):
        print(f"decision time {lvl}: p50 {1000 * percentile(ts, 0.5):.1f} ms, "
              f"p95 {1000 * percentile(ts, 0.95):.1f} ms, max {1000 * max(ts):.1f} ms "
              f"({len(ts)} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
