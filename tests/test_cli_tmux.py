"""The terminal game played as a person plays it (issue 47, point 12): ``python -m bot play``
runs in a tmux pane; the test reads the pane (``capture-pane``) and types cards the ways
people type them (``9♠``, ``9s``, ``9 пик``, ``9п``, a card's number) with ``send-keys``,
through a whole deal to its summary, then asks for the sheet and quits.

tmux is a program of the system, not a Python package.  Without it the test is skipped with
the reason ``SKIP_REASON``; in CI (``CI=true``, or ``THOUSAND_REQUIRE_TMUX=1``, which
``.ci/run`` sets after installing tmux when it is missing) a missing tmux fails the test
instead, so CI never passes with it silently skipped — as ``tests/pg.py`` does for
PostgreSQL."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.terminal import Player

ROOT = Path(__file__).resolve().parents[1]
REQUIRE_ENV = "THOUSAND_REQUIRE_TMUX"
SKIP_REASON = ("no tmux: install it (apt-get install tmux) to play the terminal game "
               "through it; .ci/run installs it")
PROMPT = "Ваш ход > "
SEED = 3  # deal 1: a computer declares and passes a card to each of the others


def required() -> bool:
    return (os.environ.get(REQUIRE_ENV, "").strip() == "1"
            or os.environ.get("CI", "").strip().lower() == "true")


class Pane:
    """One tmux server of its own (``-L``: a socket nobody else uses) with one pane."""

    def __init__(self, tmux: str, tmp: Path) -> None:
        self.tmux = tmux
        self.socket = f"thousand-test-{uuid.uuid4().hex[:12]}"
        self.conf = tmp / "tmux.conf"
        # the whole game stays in the pane's history; the pane stays after the game ends
        self.conf.write_text("set -g history-limit 100000\nset -g remain-on-exit on\n",
                             encoding="utf-8")

    def run(self, *args: str) -> str:
        res = subprocess.run([self.tmux, "-u", "-L", self.socket, "-f", str(self.conf), *args],
                             capture_output=True, text=True, timeout=30, check=True,
                             encoding="utf-8")
        return res.stdout

    def start(self, command: list[str]) -> None:
        env = ["-e", "LANG=C.UTF-8", "-e", "PYTHONIOENCODING=utf-8"]
        self.run("new-session", "-d", "-s", "game", "-x", "220", "-y", "50", "-c", str(ROOT),
                 *env, shlex.join(command))

    def screen(self) -> str:
        """Everything the pane showed, wrapped lines joined."""
        return self.run("capture-pane", "-p", "-J", "-S", "-", "-t", "game").rstrip("\n")

    def type(self, text: str) -> None:
        self.run("send-keys", "-t", "game", "-l", text)
        self.run("send-keys", "-t", "game", "Enter")

    def wait(self, what: str, until: re.Pattern[str] | str, after: int = 0,
             timeout: float = 30) -> str:
        """The screen once ``until`` shows after the first ``after`` characters."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            tail = screen[after:]
            found = until.search(tail) if isinstance(until, re.Pattern) else until in tail
            if found:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s; the pane:\n{screen[-3000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        subprocess.run([self.tmux, "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30, check=False)


@pytest.fixture
def pane(tmp_path: Path) -> Iterator[Pane]:
    tmux = shutil.which("tmux")
    if tmux is None:
        if required():
            pytest.fail(f"{REQUIRE_ENV}=1 or CI=true, but {SKIP_REASON}", pytrace=False)
        pytest.skip(SKIP_REASON)
    p = Pane(tmux, tmp_path)
    try:
        yield p
    finally:
        p.stop()


def _ends_with_prompt(screen: str) -> bool:
    return screen.rstrip(" ").endswith(PROMPT.rstrip(" "))


def test_a_whole_deal_typed_into_the_terminal_game(pane: Pane, tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    pane.start([sys.executable, "-m", "bot", "play", "--seed", str(SEED), "--lang", "ru",
                "--save", str(save)])
    player = Player("ru")
    screen = pane.wait("first prompt", PROMPT)
    typed: list[str] = []
    while "Итог кона 1:" not in screen:
        assert _ends_with_prompt(screen), screen[-2000:]
        move = player.move(screen)
        assert move is not None, screen[-2000:]
        typed.append(move)
        seen = len(screen)
        pane.type(move)
        # the next prompt (or the game's end) after what was there
        screen = pane.wait(f"an answer to {move!r}", re.compile(r"Ваш ход >\s*$|Итог кона 1:"),
                           after=seen)
        assert len(typed) < 40, typed
    screen = pane.wait("the prompt of deal 2",
                       re.compile(r"── Кон 2 [^\n]*\n(?:.*\n)*Ваш ход >\s*$"))
    # every way of typing a card was used, and every move was taken as typed
    assert {"shown", "latin", "words", "short", "number"} <= set(player.typed_forms), typed
    assert "Нет такого хода" not in screen and "У вас нет" not in screen, screen
    assert any(re.fullmatch(r"\d+", m) for m in typed) and any("♠" in m or "♣" in m or
                                                                "♦" in m or "♥" in m
                                                                for m in typed)
    deal1 = screen[screen.index("── Кон 1"):screen.index("Итог кона 1:")]
    # what the seat may know: the card passed to the other computer is never named
    assert re.search(r"^Компьютер \d: снос карты → Компьютер \d$", deal1, re.M), deal1
    assert not re.search(r"^Компьютер \d: снос (?:10|[9JQKA])[♠♣♦♥] → Компьютер", deal1, re.M)
    # every trick, the last one too, then the summary
    assert deal1.count("Взятка → ") == 8, deal1
    summary = re.search(r"^Итог кона 1: .*$", screen, re.M)
    assert summary and re.search(r"заказ \d+ — (?:сыграно|недобор), взято \d+ — Вы [+-]\d+",
                                 summary.group(0)), summary
    # the sheet, then quit: the record is saved
    seen = len(screen)
    pane.type("счёт")
    screen = pane.wait("the sheet", re.compile(r"Запись\n#\s+сдаёт\s+заказ\s+Вы\s+Компьютер 1\s+"
                                               r"Компьютер 2\n\s*1\s"), after=seen)
    seen = len(screen)
    pane.type("выход")
    screen = pane.wait("the end", "Партия прервана.", after=seen)
    assert save.exists() and '"seats"' in save.read_text(encoding="utf-8")
