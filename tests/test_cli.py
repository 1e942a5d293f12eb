"""The terminal commands: replay (sheet, --json, broken records → exit 2) and play: moves
typed as people type cards, in the person's language, nothing shown the seat may not know,
every trick, «вы», a sheet with whole names (issue 47, point 12; the game through tmux:
tests/test_cli_tmux.py)."""

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
from bot.cli.moves import read_card, read_move
from bot.cli.play import MARK_SYMBOLS, _width, env_lang, play_game, sheet_lines
from bot.engine import cards as C
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import game_record, load_record, read_record
from bot.engine.rules import make_rules
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DECLARE,
    PASS,
    PLAY,
    REDEAL,
    Action,
    Phase,
)
from tests.terminal import FORMS, Player

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


def _play(lang: str, seed: int, deals: int, tmp_path: Path, extra: tuple[str, ...] = (),
          level: str = "normal") -> tuple[str, Player, Path]:
    """A game typed by ``Player`` until deal ``deals + 1`` starts, then ``extra`` and quit."""
    out = io.StringIO()
    player = Player(lang)
    tail = iter([*extra, {"ru": "выход", "uk": "вихід", "en": "quit"}[lang]])
    header = re.compile(r"^── \S+ (\d+) ·", re.M)

    def read(prompt: str) -> str:
        screen = out.getvalue()
        started = [int(n) for n in header.findall(screen)]
        move = None if started and started[-1] > deals else player.move(screen)
        answer = move if move is not None else next(tail)
        out.write(prompt + answer + "\n")
        return answer

    save = tmp_path / f"{lang}-{seed}.json"
    assert play_game(lang, seed, level, "classic", save, read, out) == 0
    return out.getvalue(), player, save


def _deals(text: str) -> list[str]:
    """The transcript cut at the deals' headers."""
    return re.split(r"\n(?=── )", text)[1:]


def test_play_in_terminal_saves_a_replayable_record(tmp_path: Path) -> None:
    text, player, save = _play("ru", 2, 4, tmp_path, ("счёт", "bogus"))
    assert "Ваши карты" in text and "Кон 1" in text
    assert "Нет такого хода: bogus. Можно: " in text
    assert "Запись" in text and "Партия прервана." in text
    # every way of typing a card was used, and none was refused
    assert set(player.typed_forms) == set(FORMS), player.typed_forms
    assert text.count("Нет такого хода") == 1 and "У вас нет" not in text
    record = json.loads(save.read_text(encoding="utf-8"))
    state = load_record(copy.deepcopy(record))
    assert len(state.history) == 4 and state.phase != Phase.GAME_OVER
    assert game_record(state, record["seats"]) == record


def test_the_terminal_game_shows_what_the_seat_knows_and_every_trick(tmp_path: Path) -> None:
    text, _, save = _play("ru", 3, 6, tmp_path)
    state = load_record(json.loads(save.read_text(encoding="utf-8")))
    played = [h for h in state.history if h.outcome in ("made", "failed")]
    assert len(played) >= 3
    for deal, res in zip(_deals(text), state.history, strict=False):
        if res.outcome in ("made", "failed"):  # eight tricks, the last one too
            assert deal.count("Взятка → ") == 8, deal
            last = deal.splitlines()[-2:]
            assert last[0].startswith("Взятка → ") and last[1].startswith("Итог кона"), last
    # the card a computer passes to the other computer is never named
    hidden = re.findall(r"^Компьютер \d: снос карты → Компьютер \d$", text, re.M)
    assert hidden, "no deal where a computer passed a card to the other one"
    assert not re.search(r"^Компьютер \d: снос (?:10|[9JQKA])[♠♣♦♥] → Компьютер \d$", text,
                         re.M)
    assert re.search(r"^Компьютер \d: снос (?:10|[9JQKA])[♠♣♦♥] → Вы$", text, re.M)
    # «вы»: the person deals and declares in the plural, nobody is "сдаёт Вы" or "сыграл"
    assert "сдаёте вы" in text and "сдаёт Вы" not in text
    assert not re.search(r"сыграл|сыграла", text)
    assert re.search(r"^Итог кона \d+: Вы: заказ \d+ — (?:сыграно|недобор), взято \d+ —",
                     text, re.M)
    # a card keeps its number for the whole deal
    for deal in _deals(text):
        seen: dict[str, str] = {}
        for number, card in re.findall(r"\[(\d+)\](\d+|[JQKA])[♠♣♦♥]", deal):
            assert seen.setdefault(number, card) == card, deal
    by_card: dict[str, set[str]] = {}
    for deal in _deals(text)[:1]:
        for number, card in re.findall(r"\[(\d+)\]((?:10|[9JQKA])[♠♣♦♥])", deal):
            by_card.setdefault(card, set()).add(number)
    assert by_card and all(len(n) == 1 for n in by_card.values()), by_card


def test_a_refused_card_says_why_in_the_persons_language(tmp_path: Path) -> None:
    """A card of the hand that may not be played, one not in the hand, a card during the
    bidding: each answered in Russian with the moves there are; then the game goes on."""
    out = io.StringIO()
    player = Player("ru")
    tried: list[str] = []

    def read(prompt: str) -> str:
        screen = out.getvalue()
        options = [x for x in screen.splitlines() if x.startswith("Ваш ход: ")][-1]
        hand = [x for x in screen.splitlines() if x.startswith("Ваши карты: ")][-1]
        offered = set(re.findall(r"\](\S+)", options))
        held = re.findall(r"\](\S+)", hand)
        answer: str | None = None
        if "bidding" not in tried and options.startswith("Ваш ход: пас"):
            answer, kind = held[0], "bidding"
        elif "follow" not in tried and offered and set(held) - offered:
            answer, kind = sorted(set(held) - offered)[0], "follow"
        elif "absent" not in tried and offered:
            absent = next(c for c in ("A♠", "A♣", "A♦", "A♥", "9♠", "9♥") if c not in held)
            answer, kind = absent, "absent"
        elif len(tried) == 3:
            answer, kind = "выход", "quit"
        if answer is not None:
            tried.append(kind)
        else:
            answer = player.move(screen) or "выход"
        out.write(prompt + answer + "\n")
        return answer

    assert play_game("ru", 3, "normal", "classic", None, read, out) == 0
    text = out.getvalue()
    assert tried == ["bidding", "follow", "absent", "quit"], tried
    assert re.search(r"^Ваш ход > (\S+)\n\1: Сейчас так нельзя: ход картой "
                     r"\(сейчас идёт торговля\)\. Можно: пас · ", text, re.M), text[:3000]
    assert re.search(r"^Ваш ход > (\S+)\n\1: Нужно ходить в масть", text, re.M)
    assert re.search(r"^У вас нет (?:A|9)[♠♣♦♥]\. Можно: \[\d+\]", text, re.M)
    assert not re.search(r"[A-Za-z]{3,}", text.replace("Компьютер", "")), "English words"


def test_the_sheet_keeps_names_whole_and_columns_straight(tmp_path: Path) -> None:
    _, _, save = _play("ru", 3, 6, tmp_path)
    state = load_record(json.loads(save.read_text(encoding="utf-8")))
    lines = sheet_lines("ru", state, ["Вы", "Компьютер 1", "Компьютер 2"])
    assert lines[0] == "Запись"
    assert lines[1].split() == ["#", "сдаёт", "заказ", "Вы", "Компьютер", "1", "Компьютер", "2"]
    widths = {_width(x) for x in lines[1:]}
    assert len(widths) == 1, lines  # the last column right-aligned: every line as wide
    assert len(lines) == len(state.history) + 2
    for row, h in zip(lines[2:], state.history, strict=True):
        assert row.split()[1:3] == ["Компьютер", "1"] or row.split()[1] == "Вы" \
            or row.split()[1:3] == ["Компьютер", "2"]
        if h.declarer > 0:
            assert f"Компьютер {h.declarer} {h.contract} " in row
        assert row.rstrip().endswith(str(h.totals[2]) + "".join(
            MARK_SYMBOLS.get(m, "") for m in h.marks[2]))
    marks = sheet_lines("ru", state, ["Анна", "Борис", "Вера"])
    assert " А " not in marks[2] and " Б " not in marks[2]


def test_the_terminal_game_in_ukrainian(tmp_path: Path) -> None:
    text, player, _ = _play("uk", 2, 3, tmp_path, ("рахунок", "bogus"))
    assert "Ваші карти" in text and "Кін 1" in text and "Немає такого ходу: bogus" in text
    assert "Запис" in text and "Партію перервано." in text
    assert set(player.typed_forms) == set(FORMS)
    assert text.count("Немає такого ходу") == 1
    assert "здаєте ви" in text
    assert not re.search(r"[ЫыЭэЪъЁё]", text)


def test_the_terminal_game_in_english(tmp_path: Path) -> None:
    text, _, _ = _play("en", 2, 2, tmp_path, ("score", "bogus"))
    assert "Your cards" in text and "Deal 1" in text and "No such move: bogus" in text
    assert text.count("No such move") == 1 and "Game interrupted." in text
    assert not re.search(r"[А-Яа-яЁёІіЇїЄєҐґ]", text.replace("Вы", "")), "Cyrillic"


def test_cards_as_people_type_them() -> None:
    nine_spades = C.parse("9♠")
    for text in ("9♠", "9♠️", "9s", "9S", "9 пик", "9п", "9 пік", "девятка пик",
                 "nine of spades", "9 spades", " 9  ПИК ", "9♤"):
        assert read_card(text) == nine_spades, text
    assert read_card("10♦") == read_card("10 бубен") == read_card("10б") == read_card("td") \
        == read_card("десятка бубон") == C.parse("10♦")
    assert read_card("тч") == read_card("туз червей") == read_card("ah") == C.parse("A♥")
    assert read_card("кк") == read_card("король крести") == read_card("к хрести") \
        == C.parse("K♣")
    assert read_card("дб") == read_card("дама бубон") == read_card("queen of diamonds") \
        == C.parse("Q♦")
    assert read_card("вт") == read_card("валет треф") == read_card("J♣") == C.parse("J♣")
    for text in ("", "9", "пик", "11♠", "9x", "bogus", "9 ♠ ♠"):
        assert read_card(text) is None, text


def test_a_move_typed_declares_a_marriage_unless_told_not_to() -> None:
    king = C.parse("K♥")
    legal = [Action(PLAY, card=king), Action(PLAY, card=C.parse("9♠")),
             Action(DECLARE, card=king)]
    numbers = {3: king, 1: C.parse("9♠"), 7: C.parse("A♦")}
    assert read_move("K♥", legal, numbers) == Action(DECLARE, card=king)
    assert read_move("3", legal, numbers) == Action(DECLARE, card=king)
    for text in ("K♥ без", "3 без", "к черви без марьяжа", "Kh plain", "3 без марʼяжу"):
        assert read_move(text, legal, numbers) == Action(PLAY, card=king), text
    assert read_move("1", legal, numbers) == Action(PLAY, card=C.parse("9♠"))
    assert read_move("7", legal, numbers) == C.parse("A♦")  # a card, not a move: told why
    assert read_move("пас", legal, numbers) is None and read_move("9", legal, numbers) is None
    bids = [Action(PASS), Action(BID, value=105), Action(BID, value=110), Action(REDEAL)]
    assert read_move("110", bids, {}) == Action(BID, value=110)
    assert read_move("Пас", bids, {}) == read_move("p", bids, {}) == Action(PASS)
    assert read_move("перездача", bids, {}) == Action(REDEAL)
    assert read_move("115", bids, {}) is None
    contract = [Action(CONTRACT, value=120), Action(CONTRACT, value=125), Action(CONCEDE)]
    assert read_move("играю 125", contract, {}) == read_move("125", contract, {}) \
        == Action(CONTRACT, value=125)
    assert read_move("розпис", contract, {}) == Action(CONCEDE)


@pytest.mark.parametrize(("env", "lang"), [
    ({}, "ru"), ({"LANG": "C.UTF-8"}, "ru"), ({"LANG": "uk_UA.UTF-8"}, "uk"),
    ({"LANG": "en_GB.UTF-8"}, "en"), ({"LANG": "ru_RU.UTF-8", "LC_ALL": "uk_UA.UTF-8"}, "uk"),
    ({"LANG": "uk_UA.UTF-8", "LC_MESSAGES": "POSIX"}, "ru"), ({"LC_ALL": "de_DE"}, "en"),
])
def test_the_terminal_language_follows_the_locale(env: dict[str, str], lang: str) -> None:
    assert env_lang(env) == lang


def test_play_speaks_the_locales_language_unless_told(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    def eof(_prompt: str) -> str:
        raise EOFError

    monkeypatch.setattr("builtins.input", eof)
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "uk_UA.UTF-8")
    assert main(["play", "--seed", "3"]) == 0
    assert "Ваші карти" in capsys.readouterr().out
    assert main(["play", "--seed", "3", "--lang", "en"]) == 0
    assert "Your cards" in capsys.readouterr().out
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert main(["play", "--seed", "3"]) == 0
    assert "Ваши карты" in capsys.readouterr().out


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
