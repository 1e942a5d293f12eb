"""The arena: two computer levels on duplicate deals, and whole games.

``python -m bot arena --a hard --b normal --deals 2000 --seed 1`` (from a source checkout;
or ``python -m bench.arena ...``) plays every deal
once per seating: for each active seat j, A sits in j against B everywhere else,
then B sits in j against A everywhere else (two players: A-B then B-A). Both see
the same cards, so the difference of A's and B's score in seat j measures the
players rather than the cards. Per deal, the mean over the seats of that
difference is one observation; the report gives its mean with a 95% bootstrap
interval (resampling deals), declarer success rates, games to 1000 won
(``--games N``: A against two B, A's seat rotating) and the decision time per
level. A progress bar goes to stderr.

A level may name another commit: ``--b hard@58babca`` plays ``hard`` as it is in that
commit (``remote``: its ``bot`` package exported into a temporary directory, one worker
process), on the same duplicate deals and seatings. ``--sprt MU0,MU1`` stops the deals
as soon as a sequential probability ratio test (as chess engines are tested; the
per-deal differences taken as normal with their sample variance) decides between a mean
of MU0 and of MU1 points per deal at the error rates ``--alpha``/``--beta``.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import multiprocessing.util
import random
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable
from dataclasses import dataclass, field
from typing import Any

from bot.ai import LEVELS, choose_action
from bot.engine.game import apply, deal, derive_seed, layout_from_seed, new_game
from bot.engine.rules import PRESETS, Rules, make_rules
from bot.engine.state import Action, GameState, Layout, Phase
from bot.engine.views import view

from .remote import ArenaError, RemotePlayer


class Players:
    """Who plays a level spec: ``hard`` here, ``hard@<ref>`` in a worker of that commit
    (one worker per ref, started on first use; ``close()`` stops them)."""

    def __init__(self) -> None:
        self.remote: dict[str, RemotePlayer] = {}

    @staticmethod
    def check(spec: str) -> None:
        level, _, ref = spec.partition("@")
        if level not in LEVELS:
            raise ArenaError(f"unknown level {level!r} in {spec!r} "
                             f"(known: {', '.join(LEVELS)}, each optionally @<git-ref>)")
        if "@" in spec and not ref:
            raise ArenaError(f"no git ref after '@' in {spec!r}")

    def start(self, spec: str) -> None:
        self.check(spec)
        ref = spec.partition("@")[2]
        if ref and ref not in self.remote:
            self.remote[ref] = RemotePlayer(ref)

    def choose(self, spec: str, table: Table, seat: int, seed: int,
               think: float | None) -> Action:
        level, _, ref = spec.partition("@")
        if not ref:
            t0 = time.monotonic()
            deadline = t0 + think if think is not None else None
            return choose_action(view(table.state, seat), level, seed=seed, deadline=deadline)
        self.start(spec)
        act = self.remote[ref].choose(table.key, table.start, table.actions, seat, level,
                                      seed, think)
        if act not in view(table.state, seat).legal:
            raise ArenaError(f"{spec} chose {act}, which this version's engine refuses")
        return act

    def close(self) -> None:
        for r in self.remote.values():
            r.close()
        self.remote.clear()

    def __enter__(self) -> Players:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Table:
    """A game in progress: its state, how it started and the actions since (as text), so
    that a worker of another commit can rebuild it."""

    key: object
    start: dict[str, Any]
    state: GameState
    actions: list[str] = field(default_factory=list)

    @classmethod
    def for_deal(cls, key: object, rules: Rules, dealer: int, layout: Layout) -> Table:
        st = deal(new_game(rules, seed=None, first_dealer=dealer), layout)
        return cls(key, {"rules": rules.model_dump(), "mode": "deal", "dealer": dealer,
                         "hands": layout.hands, "talon": layout.talon}, st)

    @classmethod
    def for_game(cls, key: object, rules: Rules, seed: int) -> Table:
        return cls(key, {"rules": rules.model_dump(), "mode": "game", "seed": seed},
                   new_game(rules, seed=seed))


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

    def merge(self, other: Stats) -> None:
        """Add ``other``'s figures (those of a job process) to these."""
        for level, ts in other.times.items():
            self.times.setdefault(level, []).extend(ts)
        for mine, theirs in ((self.made, other.made), (self.failed, other.failed),
                             (self.conceded, other.conceded)):
            for level, n in theirs.items():
                mine[level] = mine.get(level, 0) + n


def play_deal(state: GameState | Table, levels: tuple[str, ...], seed: int, stats: Stats,
              think: float | None = None, players: Players | None = None) -> GameState:
    """Play the current deal of ``state`` to its end, seat i played at ``levels[i]``."""
    table = state if isinstance(state, Table) else Table(None, {}, state)
    own = players is None
    players = players or Players()
    try:
        st = table.state
        start = len(st.history)
        while st.phase not in (Phase.DEALING, Phase.GAME_OVER) and len(st.history) == start:
            seat = st.to_act
            lvl = levels[seat]
            t0 = time.monotonic()
            act = players.choose(lvl, table, seat, seed * 31 + seat, think)
            stats.add_time(lvl, time.monotonic() - t0)
            st = apply(st, act)
            table.state = st
            table.actions.append(str(act))
    finally:
        if own:
            players.close()
    return st


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
                   think: float | None = None, players: Players | None = None) -> float:
    """A's mean score minus B's over the seats of deal ``k``."""
    n = rules.players
    dealer = k % n
    layout = layout_from_seed(derive_seed(seed, k), rules, dealer)
    score: dict[tuple[int, bool], int] = {}
    own = players is None
    players = players or Players()
    try:
        for i, (j, is_a) in enumerate(seatings(rules, dealer)):
            levels = tuple(a if x else b for x in is_a)
            table = Table.for_deal(("deal", seed, k, i), rules, dealer, layout)
            st = play_deal(table, levels, derive_seed(seed, 1_000_000 + k), stats, think,
                           players)
            res = st.history[-1]
            score[(j, is_a[j])] = res.scores[j]
            if res.declarer >= 0:
                stats.add_outcome(levels[res.declarer], res.outcome)
    finally:
        if own:
            players.close()
    seats = sorted({j for j, _ in score})
    return sum(score[(j, True)] - score[(j, False)] for j in seats) / len(seats)


def play_game(rules: Rules, levels: tuple[str, ...], seed: int, stats: Stats,
              think: float | None = None, max_deals: int = 400,
              players: Players | None = None) -> int:
    """A whole game to 1000; the winner's seat (-1 if ``max_deals`` ran out)."""
    table = Table.for_game(("game", seed, levels), rules, seed)
    own = players is None
    players = players or Players()
    try:
        for _ in range(max_deals):
            if table.state.phase == Phase.GAME_OVER:
                break
            play_deal(table, levels, derive_seed(seed, len(table.state.history)), stats,
                      think, players)
    finally:
        if own:
            players.close()
    return table.state.winner


# --- several deals or games at once (``--jobs N``): one process each, its own players ---

_JOB_PLAYERS: Players | None = None


def _job_exit(signum: int, frame: object) -> None:
    raise SystemExit(0)  # so that the finalizer below stops the workers of other commits


def _job_init(specs: tuple[str, ...]) -> None:
    """A job process: Ctrl-C is the parent's to handle; its own players of ``specs``.

    The pool stops its jobs with SIGTERM (when the parent stops early, or right after the
    last task). A stop that arrives while the workers start waits until they are started
    and the finalizer that closes them is registered; otherwise it would leave a worker's
    export behind in the temporary directory."""
    global _JOB_PLAYERS
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stopped: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, frame: stopped.append(signum))
    players = Players()
    _JOB_PLAYERS = players
    multiprocessing.util.Finalize(players, _job_close, (players,), exitpriority=10)
    for spec in specs:
        players.start(spec)
    signal.signal(signal.SIGTERM, _job_exit)
    if stopped:
        raise SystemExit(0)


def _job_close(players: Players) -> None:
    # the pool sends SIGTERM right after its last task, maybe while this runs: finish first
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    players.close()


def _deal_job(task: tuple[Rules, str, str, int, int, float | None]) -> tuple[int, float, Stats]:
    rules, a, b, seed, k, think = task
    stats = Stats()
    return k, duplicate_deal(rules, a, b, seed, k, stats, think, _JOB_PLAYERS), stats


def _game_job(task: tuple[Rules, tuple[str, ...], int, float | None, int]
              ) -> tuple[int, int, Stats]:
    rules, levels, seed, think, g = task
    stats = Stats()
    return g, play_game(rules, levels, seed, stats, think, players=_JOB_PLAYERS), stats


def _in_jobs(job: Callable[[Any], tuple[int, Any, Stats]], tasks: Iterable[Any],
             specs: tuple[str, ...], jobs: int, stats: Stats
             ) -> Generator[tuple[int, Any], None, None]:
    """(number, result) of each task as the job processes finish it, their figures added
    to ``stats``; closing the generator stops the jobs."""
    with multiprocessing.get_context("spawn").Pool(jobs, _job_init, (specs,)) as pool:
        for i, res, st in pool.imap_unordered(job, tasks):
            stats.merge(st)
            yield i, res
        # all done: let the jobs end by themselves (leaving the ``with`` would terminate
        # them, possibly while they close their workers)
        pool.close()
        pool.join()


def deal_results(rules: Rules, a: str, b: str, seed: int, deals: int, stats: Stats,
                 think: float | None, players: Players, jobs: int = 1
                 ) -> Generator[tuple[int, float], None, None]:
    """(k, A - B) for the duplicate deals 0..deals-1: in order with one job, in the order
    they finish with several (each deal's result is the same either way: its cards and
    seeds depend on k alone). Closing the iterator stops the jobs."""
    if jobs <= 1:
        for k in range(deals):
            yield k, duplicate_deal(rules, a, b, seed, k, stats, think, players)
        return
    tasks = ((rules, a, b, seed, k, think) for k in range(deals))
    yield from _in_jobs(_deal_job, tasks, (a, b), jobs, stats)


def game_levels(a: str, b: str, n: int, g: int) -> tuple[str, ...]:
    """Game g: A in seat g mod n, B in the others."""
    return tuple(a if s == g % n else b for s in range(n))


def game_results(rules: Rules, a: str, b: str, seed: int, games: int, stats: Stats,
                 think: float | None, players: Players, jobs: int = 1, first: int = 0
                 ) -> Generator[tuple[int, int], None, None]:
    """(g, the winner's seat or -1) for the games first..first+games-1, as
    ``deal_results`` (game g's seed and seats depend on g alone, so a long series may be
    played in parts)."""
    n = rules.players
    tasks = [(rules, game_levels(a, b, n, g), derive_seed(seed, 2_000_000 + g), think, g)
             for g in range(first, first + games)]
    if jobs <= 1:
        for t in tasks:
            yield t[4], play_game(rules, t[1], t[2], stats, think, players=players)
        return
    yield from _in_jobs(_game_job, tasks, (a, b), jobs, stats)


def sprt_llr(xs: list[float], mu0: float, mu1: float) -> float:
    """The log-likelihood ratio of mean ``mu1`` against ``mu0`` for the observations, taken
    as normal with their sample variance (the GSPRT approximation of chess testing)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    if var <= 0:
        return 0.0
    return n * ((mu1 - mu0) * mean - (mu1 * mu1 - mu0 * mu0) / 2) / var


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): below the lower bound H0 is accepted, above the upper one H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


SPRT_MIN_DEALS = 60  # no decision on fewer deals (the variance estimate is too rough:
# many duplicate deals of two close versions differ by exactly 0)


def sprt_decision(xs: list[float], mu0: float, mu1: float, alpha: float,
                  beta: float) -> str | None:
    """'H0', 'H1' or None (go on)."""
    if len(xs) < SPRT_MIN_DEALS:
        return None
    lo, hi = sprt_bounds(alpha, beta)
    llr = sprt_llr(xs, mu0, mu1)
    return "H1" if llr >= hi else "H0" if llr <= lo else None


def bootstrap(xs: list[float], rng: random.Random, rounds: int = 2000) -> tuple[float, float]:
    n = len(xs)
    if n < 2:
        return (float("nan"), float("nan"))
    means = sorted(sum(xs[rng.randrange(n)] for _ in range(n)) / n for _ in range(rounds))
    return means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share k/n (95% by default)."""
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


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


def _sprt_arg(text: str) -> tuple[float, float]:
    try:
        mu0, mu1 = (float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("expected MU0,MU1 (points per deal)") from None
    if mu0 == mu1:
        raise argparse.ArgumentTypeError("MU0 and MU1 must differ")
    return mu0, mu1


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _interruptible() -> list[tuple[int, Any]]:
    """Ctrl-C and SIGTERM stop the deals with a report (also when started in the
    background, where a shell ignores SIGINT); the handlers it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return []
    old: list[tuple[int, Any]] = [(signal.SIGINT, signal.getsignal(signal.SIGINT)),
                                  (signal.SIGTERM, signal.getsignal(signal.SIGTERM))]
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    return old


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot arena",
                                description="Duplicate deals between two computer levels.")
    levels_help = f"{', '.join(LEVELS)}, or LEVEL@GIT-REF: that level as in that commit"
    p.add_argument("--a", default="hard", help=levels_help)
    p.add_argument("--b", default="normal", help=levels_help)
    p.add_argument("--deals", type=int, default=100, help="duplicate deals (at most, with --sprt)")
    p.add_argument("--games", type=int, default=0, help="whole games to 1000 (A vs two B)")
    p.add_argument("--games-from", type=int, default=0, metavar="K",
                   help="play games K..K+N-1 of the seed's series (a long series in parts)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    p.add_argument("--preset", default="classic", choices=sorted(PRESETS))
    p.add_argument("--think", type=float, default=None,
                   help="seconds of thinking per decision (default: the level's own)")
    p.add_argument("--sprt", type=_sprt_arg, default=None, metavar="MU0,MU1",
                   help="stop the deals when a sequential test decides between a mean "
                        "A - B of MU0 and of MU1 points per deal")
    p.add_argument("--alpha", type=float, default=0.05, help="SPRT: false H1 rate")
    p.add_argument("--beta", type=float, default=0.05, help="SPRT: false H0 rate")
    p.add_argument("--every", type=int, default=0, metavar="N",
                   help="print the running mean every N deals")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="play N deals (or games) at once, each in a process of its own "
                        "(at most one per core: the levels think against the clock)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    if args.games_from < 0:
        p.error("--games-from must be at least 0")
    handlers = _interruptible()
    try:
        with Players() as players:
            for spec in (args.a, args.b):
                players.start(spec)
            return _run(args, players)
    except ArenaError as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    finally:
        for sig, h in handlers:
            signal.signal(sig, h)


def _run(args: argparse.Namespace, players: Players) -> int:
    rules = make_rules(args.preset, players=args.players)
    stats = Stats()
    err: Callable[[str], object] = (lambda s: None) if args.quiet else sys.stderr.write
    rng = random.Random(args.seed)
    print(f"arena: A={args.a} B={args.b}, {args.players} players, preset {args.preset}, "
          f"seed {args.seed}")
    for ref, r in players.remote.items():
        print(f"{ref} = commit {r.sha[:12]} (worker process, bot from {r.dir})")
    if args.deals > 0:
        diffs: list[float] = []
        bar = Progress(args.deals, "deals", err)
        verdict = None
        interrupted = False
        results = deal_results(rules, args.a, args.b, args.seed, args.deals, stats,
                               args.think, players, args.jobs)
        keyed: list[tuple[int, float]] = []
        while True:
            try:
                k, d = next(results)
            except StopIteration:
                break
            except KeyboardInterrupt:  # Ctrl-C: report the deals played so far
                interrupted = True
                bar.out("\n")
                break
            diffs.append(d)
            keyed.append((k, d))
            bar.step(len(diffs))
            if args.every and len(diffs) % args.every == 0:
                m = sum(diffs) / len(diffs)
                line = f"after {len(diffs)} deals: A - B {m:+.1f}"
                if args.sprt is not None:
                    line += f", LLR {sprt_llr(diffs, *args.sprt):+.2f}"
                print(line, flush=True)
            if args.sprt is not None:
                mu0, mu1 = args.sprt
                verdict = sprt_decision(diffs, mu0, mu1, args.alpha, args.beta)
                if verdict is not None:
                    bar.out("\n")
                    break
        results.close()  # stops the jobs still playing
        if not diffs:
            print("no deal finished")
            return 1
        if interrupted:
            print(f"interrupted after {len(diffs)} deals")
            args.games = 0
        diffs = [d for _k, d in sorted(keyed)]  # the same interval whatever the jobs
        mean = sum(diffs) / len(diffs)
        lo, hi = bootstrap(diffs, rng)
        plays = len(seatings(rules, 0)) * len(diffs)
        print(f"duplicate deals: {len(diffs)} ({plays} plays)")
        print(f"A - B: {mean:+.1f} points per deal, 95% bootstrap interval "
              f"[{lo:+.1f}, {hi:+.1f}]")
        if args.sprt is not None:
            mu0, mu1 = args.sprt
            b_lo, b_hi = sprt_bounds(args.alpha, args.beta)
            llr = sprt_llr(diffs, mu0, mu1)
            what = {"H1": f"H1 accepted (mean {mu1:+g} rather than {mu0:+g})",
                    "H0": f"H0 accepted (mean {mu0:+g} rather than {mu1:+g})",
                    None: "no decision yet"}[verdict]
            print(f"SPRT {mu0:+g} vs {mu1:+g} (alpha {args.alpha}, beta {args.beta}): {what}, "
                  f"LLR {llr:+.2f} in [{b_lo:.2f}, {b_hi:.2f}] after {len(diffs)} deals")
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
        played = 0
        results = game_results(rules, args.a, args.b, args.seed, args.games, stats,
                               args.think, players, args.jobs, args.games_from)
        while True:
            try:
                g, w = next(results)
            except StopIteration:
                break
            except KeyboardInterrupt:
                bar.out("\n")
                print(f"interrupted after {played} games")
                break
            played += 1
            if w < 0:
                unfinished += 1
            elif w == g % n:
                wins_a += 1
            else:
                wins_b += 1
            if args.every:  # one line a game, as they finish: a series played in parts adds up
                who = "unfinished" if w < 0 else "A won" if w == g % n else "B won"
                print(f"game {g}: {who}", flush=True)
            bar.step(played)
        results.close()
        done = wins_a + wins_b
        share = f"{100 * wins_a / done:.1f}%" if done else "-"
        if done:
            w_lo, w_hi = wilson(wins_a, done)
            share += f", 95% interval {100 * w_lo:.1f}-{100 * w_hi:.1f}%"
        print(f"games to 1000 (A against {n - 1} B, seats rotated): A won {wins_a} of {done} "
              f"({share}; parity {100 / n:.1f}%), B won {wins_b}, unfinished {unfinished}")
    for lvl, ts in sorted(stats.times.items()):
        print(f"decision time {lvl}: p50 {1000 * percentile(ts, 0.5):.1f} ms, "
              f"p95 {1000 * percentile(ts, 0.95):.1f} ms, max {1000 * max(ts):.1f} ms "
              f"({len(ts)} decisions)")
    return 0
