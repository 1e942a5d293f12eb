"""The terminal commands: replay (sheet, --json, broken records → exit 2) and play."""

from __future__ import annotations

import copy
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.cli.play import play_game
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import game_record, load_record, read_record
from bot.engine.rules import make_rules
from bot.engine.state import Phase

SAMPLE = Path(__file__).parent / "data" / "records" / "sample.json"


def sample() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SAMPLE.read_text(encoding="utf-8"))
    return data


def write(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def finished_record(seed: int, deals: int) -> dict[str, Any]:
    state = new_game(make_rules(), seed=seed)
    while len(state.history) < deals:
        state = apply(state, legal_actions(state)[0])
    return game_record(state, ["Анна", "Борис", "Вера"])


def test_replay_json_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = finished_record(seed=5, deals=4)
    state = load_record(record)
    assert main(["replay", write(tmp_path, record), "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert set(sheet) == {"deals", "totals", "winner"}
    assert sheet["totals"] == list(state.totals)
    assert sheet["winner"] is None
    assert len(sheet["deals"]) == len(state.history) >= 4
    running = [0, 0, 0]
    for row, res in zip(sheet["deals"], state.history, strict=True):
        assert set(row) >= {"number", "dealer", "declarer", "contract", "outcome", "scores",
                            "totals", "marks"}
        assert row["outcome"] in ("made", "failed", "conceded", "redeal")
        running = [a + b for a, b in zip(running, row["scores"], strict=True)]
        assert running == row["totals"] == list(res.totals)


def test_replay_text_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", write(tmp_path, finished_record(seed=3, deals=2)), "--lang",
                 "en"]) == 0
    out = capsys.readouterr().out
    assert "Score sheet" in out and "Анна" in out


def test_sample_record_replays() -> None:
    state = read_record(SAMPLE)
    d = state.deal
    assert d is not None and d.declarer == 2 and d.contract == 105
    assert d.received[0] >= 0 and d.received[1] >= 0
    assert len(d.tricks) == 1 and d.tricks[0].winner == 2


def broken(kind: str) -> Iterator[tuple[dict[str, Any], str]]:
    data = sample()
    deal = data["deals"][0]
    if kind == "unknown card":
        deal["hands"][0] = deal["hands"][0].replace("A♣", "X♣")
        yield data, "deal 1"
    elif kind == "duplicate card":
        deal["talon"] = "Q♥ J♥ A♠"
        yield data, "duplicate card A♠"
    elif kind == "illegal action":
        deal["actions"].append("2:play J♦")  # seat 2 gave J♦ away
        yield data, "deal 1, action 10"
    elif kind == "wrong seat":
        deal["actions"][0] = "1:bid 105"
        yield data, "deal 1, action 1"
    elif kind == "bid without marriage":
        deal["actions"][0] = "2:bid 205"
        yield data, "highest bid this hand allows is 200"
    elif kind == "bad rule":
        data["rules"] = {"dark_unblind": True}
        yield data, "dark_unblind needs dark_play"


@pytest.mark.parametrize("kind", ["unknown card", "duplicate card", "illegal action",
                                  "wrong seat", "bid without marriage", "bad rule"])
def test_broken_record_exit_2(kind: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    for data, expected in broken(kind):
        assert main(["replay", write(tmp_path, data)]) == 2
        err = capsys.readouterr().err
        assert expected in err, err


def test_not_json_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.json"
    path.write_text("{", encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_play_in_terminal_saves_a_replayable_record(tmp_path: Path) -> None:
    answers = iter(["1"] * 60 + ["score", "bogus", "quit"])
    out = io.StringIO()
    save = tmp_path / "game.json"
    code = play_game("ru", 11, "random", "classic", save, lambda _p: next(answers), out)
    assert code == 0
    text = out.getvalue()
    assert "Ваши карты" in text and "Кон 1" in text and "Нет такого хода: bogus" in text
    assert "Запись" in text
    record = json.loads(save.read_text(encoding="utf-8"))
    state = load_record(copy.deepcopy(record))
    assert state.version > 20 and state.phase != Phase.GAME_OVER
    assert game_record(state, record["seats"]) == record


def test_the_terminal_game_in_ukrainian(tmp_path: Path) -> None:
    answers = iter(["1"] * 40 + ["рахунок", "bogus", "вихід"])
    out = io.StringIO()
    code = play_game("uk", 11, "random", "classic", tmp_path / "g.json",
                     lambda _p: next(answers), out)
    assert code == 0
    text = out.getvalue()
    assert "Ваші карти" in text and "Кін 1" in text and "Немає такого ходу: bogus" in text
    assert "Запис" in text and "Партію перервано." in text
    assert not re.search(r"[ЫыЭэЪъЁё]", text)


@pytest.mark.parametrize(
    ("env", "code", "expected"),
    [
        ({}, 2, "TELEGRAM_BOT_TOKEN is not set"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCdefGhIjkLmnoPQRstuVWxyz", "TURN_TIMEOUT": "abc"}, 2,
         "TURN_TIMEOUT"),
        ({"TELEGRAM_BOT_TOKEN": "123456:ABCdefGhIjkLmnoPQRstuVWxyz",
          "TELEGRAM_API_URL": "http://127.0.0.1:9/bot"}, 1, "cannot talk to the Bot API"),
    ],
)
def test_bot_start_up_problems_are_one_clear_line(tmp_path: Path, env: dict[str, str], code: int,
                                                  expected: str) -> None:
    """A missing token, a bad value or an unreachable Bot API: one line, no traceback, and
    the token never printed."""
    import os
    import subprocess
    import sys

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "TURN_"))}
    clean.update(env, DATABASE_PATH=str(tmp_path / "db.sqlite3"))
    res = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=clean,
                         capture_output=True, text=True, timeout=60,
                         check=False)
    assert res.returncode == code
    assert expected in res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    assert "ABCdefGhIjkLmnoPQRstuVWxyz" not in res.stderr + res.stdout
    assert [line for line in res.stderr.splitlines() if line.strip()] == [
        res.stderr.strip()], res.stderr
