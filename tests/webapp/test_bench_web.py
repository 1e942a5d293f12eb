"""``python -m bot bench web`` runs and reports what it measures."""

from __future__ import annotations

import re

import pytest

from bench import main


def test_bench_web_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", "--games", "2", "--pages", "6", "--moves", "30", "--rate", "200"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"CPU per move: [\d.]+ ms with the pages open, [\d.]+ ms without", out)
    sends = re.search(r"stored -> sent to each page: (\d+) sends, p50 [\d.]+ ms, p95", out)
    # each move reaches its game's 3 pages (two moves of a game close together may be sent
    # as one view: never more than 90)
    assert sends and 30 <= int(sends.group(1)) <= 90
    assert "memory per open page" in out and "pages dropped: 0" in out
