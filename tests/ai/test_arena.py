"""The arena runs duplicate deals and reports what the issue asks for."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.arena import arena, remote
from bot.engine.rules import make_rules


def test_arena_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "4", "--games", "1",
                       "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    assert "A - B:" in out and "95% bootstrap interval" in out
    assert "declarer normal: made" in out and "declarer random: made" in out
    assert "games to 1000" in out and "A won" in out
    assert "decision time normal: p50" in out and "p95" in out and "max" in out
    assert "deals [" in err  # the progress bar


@pytest.mark.parametrize("players", [2, 4])
def test_arena_other_tables(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "2", "--players",
                       str(players), "--quiet"]) == 0
    assert "A - B:" in capsys.readouterr().out


def test_seatings_put_each_level_in_every_seat() -> None:
    rules = make_rules("classic")
    s = arena.seatings(rules, dealer=0)
    assert len(s) == 6
    assert {j for j, _ in s} == {0, 1, 2}
    for j, is_a in s:
        assert sum(is_a) in (1, 2) and 0 <= j < 3


def test_same_layout_gives_the_same_result_for_the_same_players() -> None:
    rules = make_rules("classic")
    one = arena.duplicate_deal(rules, "normal", "normal", 5, 0, arena.Stats())
    assert one == 0.0  # same players on the same cards: no difference


# --- another commit's players (``level@ref``) and the sequential test --------------------


def test_a_ref_equal_to_head_plays_exactly_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    # the worker rebuilds every state from the start and the actions; with the same code
    # and fixed choices (normal, random) the duplicate difference is exactly 0
    with arena.Players() as players:
        rules = make_rules("classic")
        for lvl in ("normal", "random"):
            for k in range(3):
                d = arena.duplicate_deal(rules, lvl, f"{lvl}@HEAD", 11, k, arena.Stats(),
                                         players=players)
                assert d == 0.0
        assert list(players.remote) == ["HEAD"]
        stats = arena.Stats()
        a = arena.play_game(rules, ("normal", "normal@HEAD", "normal@HEAD"), 5, stats,
                            players=players)
        b = arena.play_game(rules, ("normal", "normal", "normal"), 5, arena.Stats())
        assert a == b >= 0
        assert {"normal", "normal@HEAD"} <= set(stats.times)


def test_the_arena_reports_a_remote_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", "normal@HEAD", "--deals", "2", "--quiet",
                       "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "HEAD = commit " in out
    assert "A - B: +0.0 points per deal" in out
    assert "declarer normal@HEAD: made" in out
    assert "decision time normal@HEAD: p50" in out


def test_remote_hard_gives_legal_answers() -> None:
    with arena.Players() as players:
        d = arena.duplicate_deal(make_rules("classic"), "hard", "hard@HEAD", 2, 0,
                                 arena.Stats(), think=0.02, players=players)
    assert -1000 < d < 1000


@pytest.mark.parametrize("spec", ["normal@no-such-ref-xyz", "normal@", "great@HEAD",
                                  "hard@0000000000000000000000000000000000000000"])
def test_a_bad_level_or_ref_is_a_clear_error(spec: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert arena.main(["--a", "normal", "--b", spec, "--deals", "1", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: ") and ("unknown" in err or "no git ref" in err)
    assert "Traceback" not in err


def test_sprt_decides_on_clear_differences() -> None:
    rng = __import__("random").Random(1)
    better = [10 + rng.gauss(0, 30) for _ in range(400)]
    same = [rng.gauss(0, 30) for _ in range(400)]
    lo, hi = arena.sprt_bounds(0.05, 0.05)
    assert lo < 0 < hi and abs(lo + hi) < 1e-9
    assert arena.sprt_decision(better[:5], 0, 5, 0.05, 0.05) is None  # too few deals
    assert arena.sprt_llr(better, 0, 5) >= hi
    assert arena.sprt_decision(better, 0, 5, 0.05, 0.05) == "H1"
    assert arena.sprt_decision(same, 0, 5, 0.05, 0.05) == "H0"
    assert arena.sprt_llr([3.0, 3.0, 3.0], 0, 5) == 0.0  # no variance: no evidence


def test_sprt_stops_the_arena(capsys: pytest.CaptureFixture[str],
                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arena, "SPRT_MIN_DEALS", 5)
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "200", "--quiet",
                       "--sprt", "0,5", "--every", "2"]) == 0
    out = capsys.readouterr().out
    assert "after 2 deals: A - B " in out and "LLR" in out
    assert "SPRT +0 vs +5" in out and "H1 accepted" in out
    n = int(out.split("duplicate deals: ")[1].split()[0])
    assert 5 <= n < 200


# --- several deals or games at once (``--jobs``) ------------------------------------------


def _report(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("decision time")]


def test_jobs_give_the_same_report_as_one_process(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["--a", "normal", "--b", "random", "--deals", "6", "--games", "2", "--seed", "4",
            "--quiet"]
    assert arena.main(argv) == 0
    one = _report(capsys.readouterr().out)

    def here(*args: object, **kw: object) -> None:
        raise AssertionError("played in the parent process")

    # with jobs the deals and games are played in the job processes, not here
    monkeypatch.setattr(arena, "duplicate_deal", here)
    monkeypatch.setattr(arena, "play_game", here)
    assert arena.main([*argv, "--jobs", "2"]) == 0
    two = _report(capsys.readouterr().out)
    assert one == two
    assert any(line.startswith("games to 1000") and "of 2" in line for line in two)


def test_jobs_play_another_commit_in_each_process(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where the workers' exports go
    tempfile.tempdir = None  # read TMPDIR again (the jobs start afresh and read it anyway)
    try:
        assert arena.main(["--a", "normal@HEAD", "--b", "normal", "--deals", "4", "--seed",
                           "2", "--quiet", "--jobs", "2"]) == 0
    finally:
        tempfile.tempdir = None
    out = capsys.readouterr().out
    assert "A - B: +0.0 points per deal" in out
    assert "decision time normal@HEAD" in out  # the jobs' figures reach the report
    # the parent's worker and each job's were started and every export is removed
    assert list(tmp_path.iterdir()) == []


# A job told to stop (SIGTERM, as the pool does) while it starts its worker of another
# commit: the stop waits until the worker is started and its closing is registered.
_STOPPED_WHILE_STARTING = r"""
import os, signal, sys
from bench.arena import arena
start = arena.Players.start
def start_and_get_stopped(self, spec):
    start(self, spec)
    os.kill(os.getpid(), signal.SIGTERM)  # the export is made, the start not yet over
arena.Players.start = start_and_get_stopped
try:
    arena._job_init(("normal@HEAD",))
except SystemExit:
    print("stopped")
    raise
print("not stopped")
"""


def test_a_job_stopped_while_it_starts_removes_its_export(tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", _STOPPED_WHILE_STARTING], env=env,
                         cwd=Path(__file__).resolve().parents[2],  # bench/ is the checkout's
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.stdout.strip() == "stopped", res.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_worker_whose_player_vanished_removes_its_export(tmp_path: Path) -> None:
    tempfile.tempdir = str(tmp_path)
    try:
        player = remote.RemotePlayer("HEAD")
    finally:
        tempfile.tempdir = None
    assert player.proc is not None and player.proc.stdin is not None
    assert player.dir.exists()
    # the arena's process died without closing: the worker's input ends
    player.proc.stdin.close()
    assert player.proc.wait(timeout=60) == 0
    assert not player.dir.exists()
    assert player.proc.stdout is not None
    player.proc.stdout.close()


def test_jobs_stop_with_the_sequential_test(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # the jobs import the arena afresh (spawn), so they keep the real minimum; the
    # decision is taken in the parent
    monkeypatch.setattr(arena, "SPRT_MIN_DEALS", 5)
    assert arena.main(["--a", "normal", "--b", "random", "--deals", "300", "--quiet",
                       "--sprt", "0,5", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "H1 accepted" in out
    n = int(out.split("duplicate deals: ")[1].split()[0])
    assert 5 <= n < 300


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        arena.main(["--a", "normal", "--b", "random", "--jobs", "0"])
    assert e.value.code == 2
    assert "--jobs must be at least 1" in capsys.readouterr().err


def test_a_series_of_games_may_be_played_in_parts(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["--a", "normal", "--b", "random", "--deals", "0", "--seed", "6", "--quiet",
            "--every", "1"]

    def games(out: str) -> list[str]:
        return sorted(line for line in out.splitlines() if line.startswith("game "))

    assert arena.main([*base, "--games", "4"]) == 0
    whole = games(capsys.readouterr().out)
    assert arena.main([*base, "--games", "2"]) == 0
    first = games(capsys.readouterr().out)
    assert arena.main([*base, "--games", "2", "--games-from", "2", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert sorted(first + games(out)) == whole
    assert [g.split(":")[0] for g in whole] == ["game 0", "game 1", "game 2", "game 3"]
    assert "of 2 (" in out and "95% interval" in out


def test_wilson_interval() -> None:
    lo, hi = arena.wilson(80, 200)
    assert 0.33 < lo < 0.34 and 0.46 < hi < 0.47  # 40% of 200: about 33.5-47.0%
    assert arena.wilson(0, 10)[0] == 0.0 and arena.wilson(10, 10)[1] == 1.0
