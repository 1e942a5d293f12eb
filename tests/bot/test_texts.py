"""Every text a person may see, in every language: the Russian and Ukrainian ones speak their
language (no Latin words but commands and a proper name, "English"; no letter of the
other language: ы э ъ ё are Russian only, і ї є ґ Ukrainian only), the English ones have no
Cyrillic (but the languages' own names, «русский», «українська»), every text and every
plural form formats with sample values into balanced HTML, and Russian and Ukrainian lines
about a person never use a gendered past tense (Telegram does not tell the bot anybody's
gender).

The tests walk the whole catalog, so texts added later (engine refusals, settings errors)
are covered without a change here."""

from __future__ import annotations

import re
import string
from typing import Any

import pytest

from bot.i18n import CATALOGS, LANGS, PLURALS, placeholders

# Latin words a Russian or Ukrainian text may contain, each a true proper name: "English",
# the English language's name in itself, shown beside «русский» and «українська» in /lang
# (its argument: an English reader finds the language by it, as the others find theirs).
# Nothing else: commands keep their Latin names (stripped below), but their arguments and
# every explanation are in the reader's language (issue 47: "/pace быстрый", "/newgame 3
# полные", rules by their names, never their ids).
ALLOWED_LATIN = frozenset({"English"})
# The languages' names in themselves (/lang), which any text may show
SELF_NAMES = ("русский", "Русский", "українська", "Українська")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_TAG = re.compile(r"</?[a-z]+(?:\s[^<>]*)?>")
_COMMAND = re.compile(r"/[a-z_]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CYRILLIC = re.compile(r"[А-Яа-яЁёІіЇїЄєҐґ]")
_RUSSIAN_ONLY = re.compile(r"[ЫыЭэЪъЁё]")
_UKRAINIAN_ONLY = re.compile(r"[ІіЇїЄєҐґ]")
# "{name} сел", "{name}: ушла", "{name} растемнил" — a past tense after a person's name
_PAST_AFTER_NAME = re.compile(r"\{(?:name|who|keeper)\}:?\s+(?:не\s+)?([а-яё]+(?:л|ла|лся|лась))\b")
# "{name} сів", "{name}: пішла", "{name} розтемнив" — the same in Ukrainian
_PAST_AFTER_NAME_UK = re.compile(
    r"\{(?:name|who|keeper)\}:?\s+(?:не\s+)?([а-яіїєґʼ]+(?:в|ла|вся|лася|лась))(?![а-яіїєґʼ])")

# "{name} снова играет сам", "{name} готов": a gendered word about the person later in the
# same clause (ru and uk)
_GENDERED_AFTER_NAME = re.compile(
    r"\{(?:name|who|keeper)\}[^.·\n(:]*?(?<![а-яёіїєґʼ])(сам|сама|один|одна|одного|готов|готова|готовий"
    r"|рад|рада|радий|должен|должна|повинен|повинна|уверен|уверена|впевнений|впевнена)"
    r"(?![а-яёіїєґʼ])")


def _prose(text: str) -> str:
    """The words of ``text`` without placeholders, HTML tags, commands and the languages'
    own names."""
    out = _COMMAND.sub(" ", _TAG.sub(" ", _PLACEHOLDER.sub(" ", text)))
    for word in SELF_NAMES:
        out = out.replace(word, " ")
    return out


def texts(lang: str, key: str) -> tuple[str, ...]:
    """The text ``key`` in ``lang``: every plural form of a plural entry, else the one text."""
    return PLURALS[lang].get(key) or (CATALOGS[lang][key],)


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


KEYS = sorted(set().union(*(CATALOGS[lang] for lang in LANGS)))


def test_the_catalog_is_big_and_every_language_has_every_key() -> None:
    assert len(KEYS) > 250
    assert set(LANGS) >= {"ru", "uk", "en"}
    for lang in LANGS:
        assert set(CATALOGS[lang]) == set(CATALOGS["ru"]), lang
        assert set(PLURALS[lang]) == set(PLURALS["ru"]), lang


@pytest.mark.parametrize("key", KEYS)
def test_russian_text_speaks_russian(key: str) -> None:
    for text in texts("ru", key):
        foreign = [w for w in _LATIN_WORD.findall(_prose(text)) if w not in ALLOWED_LATIN]
        assert not foreign, f"{key}: Latin words {foreign} in {text!r}"
        assert not _UKRAINIAN_ONLY.search(_prose(text)), f"{key}: і ї є ґ in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_ukrainian_text_speaks_ukrainian(key: str) -> None:
    for text in texts("uk", key):
        foreign = [w for w in _LATIN_WORD.findall(_prose(text)) if w not in ALLOWED_LATIN]
        assert not foreign, f"{key}: Latin words {foreign} in {text!r}"
        assert not _RUSSIAN_ONLY.search(_prose(text)), f"{key}: ы э ъ ё in {text!r}"
        assert "'" not in _prose(text), f"{key}: the apostrophe is ʼ, not ', in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_english_text_has_no_cyrillic(key: str) -> None:
    for text in texts("en", key):
        assert not _CYRILLIC.search(_prose(text)), f"{key}: Cyrillic in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_every_text_formats_with_sample_values_into_balanced_html(key: str) -> None:
    for lang in LANGS:
        for text in texts(lang, key):
            out = _filled(text)
            assert "{" not in out and "}" not in out, (lang, key, out)
            for tag in ("b", "i", "pre", "code", "u", "s"):
                opened = len(re.findall(rf"<{tag}>", out))
                assert opened == out.count(f"</{tag}>"), (lang, key, out)


@pytest.mark.parametrize("key", KEYS)
def test_russian_lines_about_a_person_are_gender_neutral(key: str) -> None:
    for text in texts("ru", key):
        found = _PAST_AFTER_NAME.findall(text)
        assert not found, f"{key}: a gendered past tense after a name ({found}) in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_ukrainian_lines_about_a_person_are_gender_neutral(key: str) -> None:
    for text in texts("uk", key):
        found = _PAST_AFTER_NAME_UK.findall(text)
        assert not found, f"{key}: a gendered past tense after a name ({found}) in {text!r}"


@pytest.mark.parametrize("key", KEYS)
def test_no_gendered_word_about_a_person_in_the_slavic_languages(key: str) -> None:
    for lang in ("ru", "uk"):
        for text in texts(lang, key):
            found = _GENDERED_AFTER_NAME.findall(text)
            assert not found, f"{lang} {key}: a gendered word after a name ({found}) in {text!r}"


def test_the_checks_catch_what_they_are_for() -> None:
    assert _PAST_AFTER_NAME.findall("{name} сел за стол") == ["сел"]
    assert _PAST_AFTER_NAME.findall("{name}: растемнила игру") == ["растемнила"]
    assert not _PAST_AFTER_NAME.findall("{name} — за столом · {name} играет втемную")
    assert _LATIN_WORD.findall(_prose("Нажмите Start: /newgame <b>{name}</b>")) == ["Start"]
    assert _LATIN_WORD.findall(_prose("/pace — темп стола: quick или unhurried")) == [
        "quick", "unhurried"]
    assert _LATIN_WORD.findall(_prose("<b>{name}</b> (<code>barrel</code>)")) == ["barrel"]
    assert _CYRILLIC.search(_prose("Press «Сесть»"))
    assert not _CYRILLIC.search(_prose("/lang uk — українська, /lang ru — русский"))
    assert _PAST_AFTER_NAME_UK.findall("{name} сів за стіл") == ["сів"]
    assert _PAST_AFTER_NAME_UK.findall("{name}: розтемнила гру") == ["розтемнила"]
    assert not _PAST_AFTER_NAME_UK.findall("{name} — за столом · {name} грає втемну")
    assert _GENDERED_AFTER_NAME.findall("👤 {name} снова играет сам (решение)") == ["сам"]
    assert _GENDERED_AFTER_NAME.findall("{name} знову грає сама") == ["сама"]
    assert not _GENDERED_AFTER_NAME.findall("{name} снова играет без компьютера · самый")
    assert _RUSSIAN_ONLY.search("объявлено") and _UKRAINIAN_ONLY.search("їжак")
    assert not _UKRAINIAN_ONLY.search("Ещё партия") and not _RUSSIAN_ONLY.search("Ще партія")


# the words each language's rules use for the deal's final trick (rule.last_trick_bonus)
_FINAL_TRICK = {"ru": "последн", "uk": "остан", "en": "last trick"}


@pytest.mark.parametrize("lang", LANGS)
def test_the_previous_trick_is_not_named_as_the_deals_final_one(lang: str) -> None:
    """The table's line of the trick just taken says "previous", not the rules' word for
    the deal's final trick (which a house rule scores): "Last trick: …" in the middle of a
    deal reads as if the deal were over."""
    from bot.i18n import t

    assert _FINAL_TRICK[lang] in t(lang, "rule.last_trick_bonus.name").lower()
    line = t(lang, "table.last_trick", cards="A♠️", winner="Анна").lower()
    assert _FINAL_TRICK[lang] not in line
    assert line.startswith({"ru": "прошлая", "uk": "попередня", "en": "previous"}[lang])


@pytest.mark.parametrize("lang", LANGS)
def test_the_take_a_seat_button_says_whose_seat(lang: str) -> None:
    """The table's 🪑 button (shown while a computer plays a seat, to everyone, seated or
    not) asks for the computer's seat: its label says so, not just "take a seat"."""
    from bot.i18n import t

    computer = {"ru": "компьютер", "uk": "компʼютер", "en": "computer"}[lang]
    assert computer in t(lang, "keepers.btn_sit").lower()
