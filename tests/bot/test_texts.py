"""Every text a person may see, in both languages: the Russian ones speak Russian (no Latin
words but commands, their arguments and a few names), the English ones have no Cyrillic
(but the name «русский»), every text formats with sample values into balanced HTML, and
Russian lines about a person never use a gendered past tense (Telegram does not tell the
bot anybody's gender).

The tests walk the whole catalog, so texts added later (engine refusals, settings errors)
are covered without a change here."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest

from bot.engine.rules import PRESETS, RULE_IDS, RULE_SPECS
from bot.i18n import CATALOGS, placeholders

# Latin words a Russian text may contain: command arguments (presets, levels, languages),
# rule ids and the values of choice rules (as typed in /newgame and /rules), "English"
ALLOWED_LATIN = frozenset(
    {"ru", "en", "English", "random", "normal", "hard", *PRESETS, *RULE_IDS}
    | {str(o) for spec in RULE_SPECS.values() for o in spec.options if isinstance(o, str)}
)
# Cyrillic an English text may contain: the name of the language in itself (/lang)
ALLOWED_CYRILLIC = ("русский", "Русский")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_TAG = re.compile(r"</?[a-z]+(?:\s[^<>]*)?>")
_COMMAND = re.compile(r"/[a-z_]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
# "{name} сел", "{name}: ушла", "{name} растемнил" — a past tense after a person's name
_PAST_AFTER_NAME = re.compile(r"\{name\}:?\s+(?:не\s+)?([а-яё]+(?:л|ла|лся|лась))\b")


def _prose(text: str) -> str:
    """The words of ``text`` without placeholders, HTML tags and commands."""
    return _COMMAND.sub(" ", _TAG.sub(" ", _PLACEHOLDER.sub(" ", text)))


class Sample:
    """A placeholder value that formats as a number and also allows ``x[0]`` and ``x.y``."""

    def __format__(self, spec: str) -> str:
        return format(7, spec)

    def __getitem__(self, key: Any) -> Sample:
        return self

    def __getattr__(self, name: str) -> Sample:
        return self


def _filled(text: str) -> str:
    fields = [f for _, f, _, _ in string.Formatter().parse(text) if f is not None]
    if not fields:
        return text.format() if "{{" in text or "}}" in text else text
    return text.format(**{name: Sample() for name in placeholders(text)})


KEYS = sorted(set(CATALOGS["ru"]) | set(CATALOGS["en"]))


def test_the_catalog_is_big_and_both_languages_have_every_key() -> None:
    assert len(KEYS) > 250
    assert set(CATALOGS["ru"]) == set(CATALOGS["en"])


@pytest.mark.parametrize("key", KEYS)
def test_russian_text_speaks_russian(key: str) -> None:
    text = CATALOGS["ru"][key]
    foreign = [w for w in _LATIN_WORD.findall(_prose(text)) if w not in ALLOWED_LATIN]
    assert not foreign, f"{key}: Latin words {foreign} in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_english_text_has_no_cyrillic(key: str) -> None:
    text = CATALOGS["en"][key]
    prose = _prose(text)
    for word in ALLOWED_CYRILLIC:
        prose = prose.replace(word, " ")
    assert not _CYRILLIC.search(prose), f"{key}: Cyrillic in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_every_text_formats_with_sample_values_into_balanced_html(key: str) -> None:
    for lang in ("ru", "en"):
        text = CATALOGS[lang][key]
        out = _filled(text)
        assert "{" not in out and "}" not in out, (lang, key, out)
        for tag in ("b", "i", "pre", "code", "u", "s"):
            opened = len(re.findall(rf"<{tag}>", out))
            assert opened == out.count(f"</{tag}>"), (lang, key, out)


@pytest.mark.parametrize("key", KEYS)
def test_russian_lines_about_a_person_are_gender_neutral(key: str) -> None:
    text = CATALOGS["ru"][key]
    found = _PAST_AFTER_NAME.findall(text)
    assert not found, f"{key}: a gendered past tense after a name ({found}) in {text!r}"


def test_the_checks_catch_what_they_are_for() -> None:
    assert _PAST_AFTER_NAME.findall("{name} сел за стол") == ["сел"]
    assert _PAST_AFTER_NAME.findall("{name}: растемнила игру") == ["растемнила"]
    assert not _PAST_AFTER_NAME.findall("{name} — за столом · {name} играет втемную")
    assert _LATIN_WORD.findall(_prose("Нажмите Start: /newgame <b>{name}</b>")) == ["Start"]
    assert _CYRILLIC.search(_prose("Press «Сесть»"))
