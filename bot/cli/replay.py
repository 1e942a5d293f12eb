"""``python -m bot replay FILE [--json]``: the score sheet of a game record.

A broken record (unknown or duplicate card, illegal action, wrong seat) is reported with
the deal and the action, and exit status 2."""

from __future__ import annotations

import argparse
import json
import sys

from bot.cli.play import sheet_lines
from bot.engine.record import RecordError, read_record, score_sheet
from bot.i18n import LANGS, t


def replay_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot replay")
    parser.add_argument("file", help="a game record (docs/record-format.md)")
    parser.add_argument("--json", action="store_true", help="print the sheet as JSON")
    parser.add_argument("--lang", choices=LANGS, default="ru")
    args = parser.parse_args(argv)
    try:
        state = read_record(args.file)
    except RecordError as e:
        print(t(args.lang, "term_replay_error", error=e), file=sys.stderr)
        return 2
    sheet = score_sheet(state)
    if args.json:
        print(json.dumps(sheet, ensure_ascii=False))
        return 0
    with open(args.file, encoding="utf-8") as f:
        seats = json.load(f).get("seats") or [f"P{i}" for i in range(state.n)]
    for line in sheet_lines(args.lang, state, [str(s) for s in seats]):
        print(line)
    if state.winner >= 0:
        print(t(args.lang, "term_winner", who=seats[state.winner]))
    return 0
