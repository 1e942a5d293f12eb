"""The benchmark runs (a tiny one): the real bot, the fake server in a child process."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bot import main as bench_bot

TINY = ["--games", "3", "--presses", "3", "--think", "0", "--arrive", "0",
        "--computer-delay", "0"]


def test_bench_bot_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_bot(TINY) == 0
    out = capsys.readouterr().out
    assert "bot overhead per update" in out and "p95" in out and "peak memory" in out
    assert "spec violations 0" in out
    assert "requests per update" in out and "answerCallbackQuery" in out
    assert "editMessageText" in out
    # the floor ran too, driven by the same people, without stuck people or violations
    assert "floor: a bare python-telegram-bot bot" in out
    assert out.count("spec violations 0") == 2 and out.count("stuck people 0") == 2
    assert "× floor" in out


def test_bench_bot_profile_without_floor(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    stats = tmp_path / "bot.prof"
    assert bench_bot([*TINY, "--no-floor", "--profile", str(stats)]) == 0
    out = capsys.readouterr().out
    assert stats.stat().st_size > 0
    assert "top 25 by cumulative" in out and "top 25 by total (own) time" in out
    assert "× floor" not in out and "floor: " not in out
