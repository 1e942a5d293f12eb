"""``python -m bot bench texts``: what the gettext catalogs cost — the start-up (importing
``bot.i18n`` in a fresh interpreter, and parsing the PO files alone) and one message
(``t``, a plural ``t``) against a bare dict look-up and ``str.format``, the cost of the
Python-dict catalogs it replaced."""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import timeit

from bot import i18n

_IMPORT = ("import time; t = time.perf_counter(); import bot.i18n; "
           "print(time.perf_counter() - t)")
_BABEL = ("import time; t = time.perf_counter(); import babel.messages.pofile; "
          "print(time.perf_counter() - t)")


def _fresh(code: str, runs: int) -> float:
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                  text=True, check=True).stdout) for _ in range(runs)]
    return statistics.median(times)


def _per_call(stmt: object, number: int) -> float:
    assert callable(stmt)
    return min(timeit.repeat(stmt, number=number, repeat=5)) / number


_OLD: dict[str, dict[str, str]] = {lang: dict(c) for lang, c in i18n.CATALOGS.items()}


def _dict_t(lang: str, key: str, **kw: object) -> str:
    """``t`` as it was with the Python-dict catalogs (bot/locales/*.py), for comparison."""
    catalog = _OLD.get(lang, _OLD["ru"])
    text = catalog.get(key)
    if text is None:
        text = _OLD["ru"].get(key)
    if text is None:
        raise KeyError(f"no text {key!r}")
    return text.format(**kw) if kw else text


def bench_texts(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench texts")
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters to start")
    parser.add_argument("--calls", type=int, default=200_000, help="messages per timing")
    args = parser.parse_args(argv)
    entries = sum(len(c) for c in i18n.CATALOGS.values())
    print(f"catalogs: {', '.join(i18n.LANGS)}; {entries} entries "
          f"({len(i18n.CATALOGS['ru'])} per language)")
    whole = _fresh(_IMPORT, args.runs)
    babel = _fresh(_BABEL, args.runs)
    t0 = time.perf_counter()
    for _ in range(args.runs):
        i18n._load()
    parse = (time.perf_counter() - t0) / args.runs
    print(f"start-up: import bot.i18n {whole * 1000:.0f} ms in a fresh interpreter "
          f"(import Babel's PO reader {babel * 1000:.0f} ms, parse the PO files "
          f"{parse * 1000:.0f} ms), median of {args.runs}")
    n = args.calls
    base = _per_call(lambda: _dict_t("uk", "popup.not_your_turn", name="Оксана"), n)
    one = _per_call(lambda: i18n.t("uk", "popup.not_your_turn", name="Оксана"), n)
    bare = _per_call(lambda: i18n.t("uk", "popup.stale"), n)
    many = _per_call(lambda: i18n.t("uk", "solo.players", n=3), n)
    print(f"one message: t() {one * 1e9:.0f} ns, without placeholders {bare * 1e9:.0f} ns, "
          f"plural {many * 1e9:.0f} ns; the old dict catalogs' t() {base * 1e9:.0f} ns")
    return 0
