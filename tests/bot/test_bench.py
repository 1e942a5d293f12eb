"""The benchmark runs (a tiny one): the real bot, the fake server in a child process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.bot import main as bench_bot
from bench.faults import main as bench_faults

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
    assert "once everybody is playing" in out
    assert out.count("garbage collections meanwhile: gen0") == 2  # the floor's and the bot's


def test_bench_bot_profile_without_floor(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    stats = tmp_path / "bot.prof"
    assert bench_bot([*TINY, "--no-floor", "--profile", str(stats)]) == 0
    out = capsys.readouterr().out
    assert stats.stat().st_size > 0
    assert "top 25 by cumulative" in out and "top 25 by total (own) time" in out
    assert "× floor" not in out and "floor: " not in out


FAULTS = ["--games", "2", "--groups", "1", "--seconds", "6", "--fail", "0.2", "--delay", "0.1",
          "--delay-seconds", "1", "--request-timeout", "0.4", "--send-timeout", "10",
          "--computer-delay", "0", "--think", "0.2", "--wait", "30"]


def test_bench_faults_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """A solo game and a group table through a Bot API failing 20 % and answering 10 % late
    (after the bot's read timeout), then going on: every target met."""
    code = bench_faults(FAULTS)
    out = capsys.readouterr().out
    assert code == 0, out
    faults = re.search(r"502s: (\d+) .*late answers: (\d+)", out)
    assert faults is not None and int(faults[1]) > 0 and int(faults[2]) > 0, out
    assert "messages posted twice: 0" in out
    assert "tracebacks in the bot's log: 0" in out
    assert "games that went on once the faults stopped: 2 of 2" in out
    assert "spec violations 0, fake server errors 0" in out
    assert "all targets met" in out


def test_bench_faults_fails_on_a_message_posted_twice(capsys: pytest.CaptureFixture[str]) -> None:
    """Every answer late and SEND_TIMEOUT as short as REQUEST_TIMEOUT (the old behaviour):
    a send that timed out is sent again, posted twice (the person is still looking at the
    first copy: the same content), and the command says so."""
    code = bench_faults(["--games", "1", "--groups", "0", "--seconds", "3", "--fail", "0",
                         "--delay", "1", "--delay-seconds", "1", "--request-timeout", "0.3",
                         "--send-timeout", "0.3", "--computer-delay", "0", "--think", "2",
                         "--wait", "15"])
    out = capsys.readouterr().out
    assert code == 1, out
    twice = re.search(r"messages posted twice: (\d+)", out)
    assert twice is not None and int(twice[1]) >= 1, out
    assert "target missed: messages posted twice" in out
