"""The catalogs (gettext PO files, one per language), and the settings."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.config import ConfigError, load_settings
from bot.engine.rules import RULE_IDS
from bot.i18n import (
    CATALOGS,
    KNOWN_LANGS,
    LANGS,
    LOCALES,
    PLURALS,
    lang_of,
    norm_lang,
    placeholders,
    t,
    tn,
)
from storage import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"


def test_both_catalogs_have_the_same_keys_and_placeholders() -> None:
    ru, en = CATALOGS["ru"], CATALOGS["en"]
    assert set(ru) == set(en)
    for key in ru:
        assert placeholders(ru[key]) == placeholders(en[key]), key
        assert ru[key].strip() and en[key].strip(), key


def _forms(lang: str, key: str) -> tuple[str, ...]:
    return PLURALS[lang].get(key) or (CATALOGS[lang][key],)


def test_every_language_has_every_message_with_the_same_placeholders() -> None:
    assert LANGS[0] == "ru" and set(LANGS) == {"ru", "uk", "en"}
    for lang in LANGS:
        assert set(CATALOGS[lang]) == set(CATALOGS["ru"]), lang
        assert set(PLURALS[lang]) == set(PLURALS["ru"]), lang
        for key in CATALOGS["ru"]:
            want = set().union(*(placeholders(f) for f in _forms("ru", key)))
            for form in _forms(lang, key):
                assert form.strip(), (lang, key)
                assert placeholders(form) == want, (lang, key, form)


def _po(lang: str) -> Catalog:
    with (LOCALES / f"{lang}.po").open("rb") as f:
        return read_po(f, abort_invalid=True)


def test_the_po_files_are_complete_current_and_flagged() -> None:
    """Every entry of every file is translated, not fuzzy, has the Russian source of ru.po
    as its msgid (a changed Russian text shows up here until every language follows), is
    marked python-brace-format where it has placeholders, and has as many plural forms as
    the file's Plural-Forms header says: CLDR's three for Russian and Ukrainian."""
    source = {m.context: m.id for m in _po("ru") if m.id}
    assert len(source) > 600
    nplurals = {"ru": 3, "uk": 3, "en": 2}
    for lang in LANGS:
        po = _po(lang)
        assert str(po.locale) == lang
        if lang in nplurals:
            assert po.num_plurals == nplurals[lang], lang
        seen = set()
        for m in po:
            if not m.id:
                continue
            assert m.context is not None and not m.fuzzy, (lang, m.id)
            seen.add(m.context)
            assert m.id == source[m.context], (lang, m.context, "stale msgid")
            strings = m.string if isinstance(m.string, tuple | list) else (m.string,)
            assert all(strings), (lang, m.context, "untranslated")
            if isinstance(m.id, tuple | list):
                assert len(strings) == po.num_plurals, (lang, m.context)
            has_fields = any(placeholders(str(x)) for x in strings)
            assert ("python-brace-format" in m.flags) == has_fields, (lang, m.context)
        assert seen == set(source), lang


def test_plural_forms_follow_cldr() -> None:
    assert [tn("ru", "solo.players", n) for n in (1, 2, 5, 11, 21, 22, 25, 112)] == [
        "1 игрок", "2 игрока", "5 игроков", "11 игроков", "21 игрок", "22 игрока",
        "25 игроков", "112 игроков"]
    assert [tn("uk", "solo.players", n) for n in (1, 3, 5, 14, 21, 24)] == [
        "1 гравець", "3 гравці", "5 гравців", "14 гравців", "21 гравець", "24 гравці"]
    assert [tn("en", "solo.players", n) for n in (1, 2, 5)] == [
        "1 player", "2 players", "5 players"]
    # t() picks the form from the entry's count keyword (here: points), as refusals do
    assert t("uk", "analysis.makeable", points=1).endswith("— 1 очко.")
    assert t("uk", "analysis.makeable", points=2).endswith("— 2 очки.")
    assert t("uk", "analysis.makeable", points=5).endswith("— 5 очок.")
    assert t("ru", "analysis.not_makeable", points=5).endswith("— 5 очков.")
    assert t("ru", "analysis.not_makeable", points=22).endswith("— 22 очка.")
    assert t("ru", "refuse.concede_limit", rule="rospis_limit", limit="3").endswith(
        "не больше 3 раз.")
    assert t("uk", "refuse.concede_limit", rule="rospis_limit", limit="1").endswith(
        "не більше 1 разу.")
    assert t("xx", "solo.players", n=3) == "3 игрока"


def test_every_key_the_code_uses_exists() -> None:
    used: set[str] = set()
    pattern = re.compile(r"""\bt\(\s*[a-z_.]+,\s*["']([a-z_0-9.]+)["']""")
    for path in (ROOT / "bot").rglob("*.py"):
        used |= set(pattern.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 100
    missing = sorted(k for k in used if k not in CATALOGS["ru"])
    assert not missing


def test_languages() -> None:
    assert lang_of(None) == "ru" and lang_of("ru") == "ru" and lang_of("be") == "ru"
    assert lang_of("uk") == "uk" and lang_of("uk-UA") == "uk"
    assert lang_of("en-GB") == "en" and lang_of("de") == "en"
    assert norm_lang("uk") == "uk" and norm_lang("en") == "en" and norm_lang(None) == "ru"
    assert norm_lang("xx") == "ru"
    assert t("en", "popup.not_your_turn", name="Bob") == "It is Bob's turn"
    assert t("uk", "popup.not_your_turn", name="Богдан") == "Зараз ходить Богдан"
    assert t("xx", "popup.stale") == "Эта кнопка устарела"


def test_the_language_lists_agree() -> None:
    """A catalog file, the ``Lang`` type and the codes storage accepts name the same
    languages (docs/bot.md, "Languages": a new language touches all three)."""
    assert set(LANGS) == KNOWN_LANGS == set(LANGUAGES)


def test_the_catalogs_are_package_data() -> None:
    """The PO files ship with the package: pyproject's package-data patterns take every one
    of them, so an installed bot (``pip install .``, the Dockerfile) finds them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]
    patterns = [*data.get("*", []), *data.get("bot.locales", [])]
    for path in LOCALES.glob("*.po"):
        assert any(fnmatch.fnmatch(path.name, p) for p in patterns), path.name
    assert {p.stem for p in LOCALES.glob("*.po")} == set(LANGS)
    assert LOCALES == ROOT / "bot" / "locales"


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


@pytest.mark.parametrize("book", ["rules.md", "rules.uk.md", "rules.en.md"])
def test_every_rule_book_names_every_rule_and_the_other_books(book: str) -> None:
    text = (ROOT / "docs" / book).read_text(encoding="utf-8")
    assert not [rid for rid in RULE_IDS if f"`{rid}`" not in text]
    others = {"rules.md", "rules.uk.md", "rules.en.md"} - {book}
    assert all(f"({other})" in text for other in others)


def test_the_ukrainian_rule_book_speaks_ukrainian() -> None:
    text = (ROOT / "docs" / "rules.uk.md").read_text(encoding="utf-8")
    prose = text.replace("По-русски", "")
    assert not re.search(r"[ЫыЭэЪъЁё]", prose)
    assert "'" not in prose and "марʼяж" in prose
