"""``python -m bot bench web`` runs and reports what it measures."""

from __future__ import annotations

import re

import pytest

from bench import main
from tests.pg import server_url


def test_bench_web_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", "--games", "2", "--pages", "6", "--moves", "30", "--rate", "200"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"CPU per move: [\d.]+ ms with the pages open, [\d.]+ ms without", out)
    sends = re.search(r"stored -> sent to each page: (\d+) sends, p50 [\d.]+ ms, p95", out)
    # each move reaches its game's 3 pages (two moves of a game close together may be sent
    # as one view: never more than 90)
    assert sends and 30 <= int(sends.group(1)) <= 90
    assert "memory per open page" in out and "pages dropped: 0" in out


def test_bench_web_open_runs_the_real_application(capsys: pytest.CaptureFixture[str]) -> None:
    """``--open N``: ``python -m bot`` with N pages and without, alternated in one run."""
    assert main(["web", "--open", "6", "--seconds", "3", "--think", "0.5"]) == 0
    out = capsys.readouterr().out
    stored = [(int(m), int(w)) for m, w in re.findall(r"(\d+) moves stored in (\d+) writes",
                                                        out)]
    assert len(stored) == 2 and all(m >= w > 0 for m, w in stored), out
    assert re.search(r"CPU per move, pages / no pages: [\d.]+x \(each round: [\d.]+x, "
                     r"[\d.]+x\)", out)
    pairs = re.search(r"stored -> on each page: (\d+) \(write, page\) pairs, p50 [\d.]+ ms, "
                      r"p95 [\d.]+ ms, max [\d.]+ ms; never arrived 0", out)
    # every write of moves stored while measured (with the pages) reaches its game's 3 pages
    assert pairs and int(pairs.group(1)) == 3 * stored[0][1], out
    assert re.search(r"memory: .* KiB a page", out)
    # one process holds every game live: no page is brought up to date by the feed
    assert "brought up to date for their pages: 0 by the moves the feed carried" in out, out


def test_bench_web_open_on_two_processes_follows_the_other_ones_games_by_the_feed(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--processes 2`` on PostgreSQL: each process's pages of the games the other one
    stored are brought up to date by the moves the feed carried; a read is the first look
    at a game (and after a gap)."""
    assert main(["web", "--open", "6", "--seconds", "3", "--think", "0.5", "--processes", "2",
                 "--database-url", server_url()]) == 0
    out = capsys.readouterr().out
    assert re.search(r"never arrived 0", out), out
    got = re.search(r"brought up to date for their pages: (\d+) by the moves the feed "
                    r"carried, (\d+) by a read", out)
    assert got is not None, out
    assert int(got.group(1)) > int(got.group(2)) > 0, out
