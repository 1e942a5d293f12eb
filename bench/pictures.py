"""How long the pictures take: ``python -m bot bench pictures [--deals 30] [--runs 15]``.

Renders the score sheet and the race chart of a made-up game (``bot.pictures.sample``)
and prints the median and the spread in milliseconds per picture, after one warm-up
render each (the first render loads fonts and matplotlib's caches).  The target is a
30-deal game in under 300 ms per picture.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot.i18n import LANGS
from bot.pictures import render_race_png, render_sheet_png
from bot.pictures.sample import sample_rows

Renderer = Callable[[str, Sequence[str], Sequence[Mapping[str, Any]]], bytes]
TARGET_MS = 300.0


def measure(render: Renderer, lang: str, names: Sequence[str],
            rows: Sequence[Mapping[str, Any]], runs: int
            ) -> tuple[list[float], list[float], int]:
    """Wall and CPU times in ms of ``runs`` renders after a warm-up one, and the PNG's size
    in bytes.  The CPU time (of this thread) does not grow when other processes share the
    machine; the wall time does."""
    size = len(render(lang, names, rows))
    wall, cpu = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.thread_time()
        render(lang, names, rows)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    return wall, cpu, size


def bench_pictures(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench pictures",
                                     description="Milliseconds per picture (median of N).")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=3)
    parser.add_argument("--runs", type=int, default=15, help="renders per picture (N)")
    parser.add_argument("--lang", choices=LANGS, default="ru")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    names = ["Анна", "Борис", "Вера", "Глеб"][: args.players]
    rows = sample_rows(args.deals, args.players, args.seed)
    print(f"pictures benchmark: {args.deals} deals, {args.players} players, {args.lang}, "
          f"median of {args.runs}")
    slow = False
    for label, render in (("score sheet", render_sheet_png), ("race chart", render_race_png)):
        wall, cpu, size = measure(render, args.lang, names, rows, args.runs)
        med = statistics.median(wall)
        slow = slow or med >= TARGET_MS
        print(f"  {label:<12} {med:7.1f} ms/picture  (min {min(wall):.1f}, "
              f"max {max(wall):.1f}; CPU {statistics.median(cpu):.1f} ms; "
              f"{size / 1024:.0f} KiB PNG)")
    print(f"  target: under {TARGET_MS:.0f} ms — {'MISSED' if slow else 'ok'}")
    return 1 if slow else 0
