"""The two catalogs, and the settings."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings
from bot.i18n import CATALOGS, lang_of, placeholders, t

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"


def test_both_catalogs_have_the_same_keys_and_placeholders() -> None:
    ru, en = CATALOGS["ru"], CATALOGS["en"]
    assert set(ru) == set(en)
    for key in ru:
        assert placeholders(ru[key]) == placeholders(en[key]), key
        assert ru[key].strip() and en[key].strip(), key


def test_every_key_the_code_uses_exists() -> None:
    used: set[str] = set()
    pattern = re.compile(r"""\bt\(\s*[a-z_.]+,\s*["']([a-z_0-9.]+)["']""")
    for path in (ROOT / "bot").rglob("*.py"):
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 100
    missing = sorted(k for k in used if k not in CATALOGS["ru"])
    assert not missing


def test_languages() -> None:
    assert lang_of(None) == "ru" and lang_of("ru") == "ru" and lang_of("uk") == "ru"
    assert lang_of("en-GB") == "en" and lang_of("de") == "en"
    assert t("en", "popup.not_your_turn", name="Bob") == "It is Bob's turn"
    assert t("xx", "popup.stale") == "Эта кнопка устарела"


def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("TELEGRAM_", "DATABASE_", "TURN_", "COMPUTER_", "LOG_", "GROUP_",
                            "MESSAGES_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env around


def test_settings_defaults_and_environment(monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    _clean_env(monkeypatch, tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    s = load_settings()
    assert s.telegram_api_url == "https://api.telegram.org/bot"
    assert s.file_url == "https://api.telegram.org/file/bot"
    assert s.database_path == "thousand.sqlite3"
    assert s.turn_timeout == 90 and s.computer_move_delay == 1 and s.log_level == "INFO"
    assert s.computer_level == "hard" and s.group_messages_per_minute == 20
    assert TOKEN not in repr(s)
    monkeypatch.setenv("TELEGRAM_API_URL", "http://127.0.0.1:8081/bot")
    monkeypatch.setenv("TURN_TIMEOUT", "30")
    (tmp_path / ".env").write_text("COMPUTER_MOVE_DELAY=0\nLOG_LEVEL=DEBUG\n")
    s = load_settings()
    assert s.file_url == "http://127.0.0.1:8081/file/bot"
    assert s.turn_timeout == 30 and s.computer_move_delay == 0 and s.log_level == "DEBUG"


@pytest.mark.parametrize(("env", "words"), [
    ({}, "TELEGRAM_BOT_TOKEN is not set"),
    ({"TELEGRAM_BOT_TOKEN": "nonsense"}, "TELEGRAM_BOT_TOKEN: does not look like a bot token"),
    ({"TELEGRAM_BOT_TOKEN": TOKEN, "TURN_TIMEOUT": "soon"}, "TURN_TIMEOUT"),
    ({"TELEGRAM_BOT_TOKEN": TOKEN, "COMPUTER_MOVE_DELAY": "-1"}, "COMPUTER_MOVE_DELAY"),
    ({"TELEGRAM_BOT_TOKEN": TOKEN, "LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
    ({"TELEGRAM_BOT_TOKEN": TOKEN, "TELEGRAM_API_URL": "ftp://x"}, "TELEGRAM_API_URL"),
])
def test_a_bad_setting_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         env: dict[str, str], words: str) -> None:
    _clean_env(monkeypatch, tmp_path)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ConfigError) as e:
        load_settings()
    text = str(e.value)
    assert words in text and "\n" not in text and TOKEN not in text


def test_running_without_a_token_stops_with_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TELEGRAM_")}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from bot.run import main; sys.exit(main())"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "TELEGRAM_BOT_TOKEN is not set" in proc.stderr
    assert "Traceback" not in proc.stderr
