"""The benchmark runs (a tiny one): the real bot, the fake server in a child process."""

from __future__ import annotations

import pytest

from bot.run import bench_bot


def test_bench_bot_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_bot(["--games", "3", "--presses", "3", "--think", "0", "--arrive", "0",
                      "--computer-delay", "0"]) == 0
    out = capsys.readouterr().out
    assert "bot overhead per update" in out and "p95" in out and "peak memory" in out
    assert "spec violations 0" in out
