"""The house rules in words: their names, descriptions and value labels from the catalogs
(``rule.<id>.name``, ``rule.<id>.text``, ``choice.<id>.<value>`` in ``bot/locales/*.po``),
the rule a player means by a typed word, in any of the languages, and the words of the
commands' arguments (``/newgame``, ``/pace``, ``/lang``) in every language."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, cast

from bot.engine.rule_texts import RULE_ALIASES
from bot.engine.rules import PRESETS, RULE_IDS, RULE_SPECS
from bot.i18n import CATALOGS, Lang, has, t

_APOSTROPHES: Final = str.maketrans({"'": "ʼ", "’": "ʼ", "`": "ʼ", "ё": "е"})


def normal_word(word: str) -> str:
    """A typed word as the look-up compares it: lower case, single spaces, ``е`` for ``ё``
    and ``ʼ`` for any apostrophe."""
    return " ".join(word.lower().translate(_APOSTROPHES).split())


def rule_name(lang: str, rule_id: str) -> str:
    """The rule's short name (a button, a heading); the id itself for an unknown rule."""
    key = f"rule.{rule_id}.name"
    return t(lang, key) if has(key) else rule_id


def rule_text(lang: str, rule_id: str) -> str | None:
    """What the rule does, in one or two sentences (None for an unknown rule)."""
    key = f"rule.{rule_id}.text"
    return t(lang, key) if has(key) else None


def choice_name(lang: str, rule_id: str, value: object) -> str | None:
    """The label of one value of a choice rule ("Половина", "880"), or None."""
    key = f"choice.{rule_id}.{value}"
    return t(lang, key) if has(key) else None


def _names() -> dict[str, str]:
    out: dict[str, str] = {}
    for catalog in CATALOGS.values():
        for rid in RULE_IDS:
            name = catalog.get(f"rule.{rid}.name")
            if name:
                out.setdefault(normal_word(name), rid)
    return out


_ALIASES: Final[dict[str, str]] = {normal_word(k): v for k, v in RULE_ALIASES.items()}
_NAMES: Final[dict[str, str]] = _names()


def find_rule(word: str) -> str | None:
    """The rule id a player means by ``word`` (an id, a name or an alias, any language)."""
    w = normal_word(word)
    if w in RULE_IDS:
        return w
    if w.replace(" ", "_") in RULE_IDS:
        return w.replace(" ", "_")
    return _ALIASES.get(w) or _NAMES.get(w)


# --- the words of /newgame, /pace and /lang ------------------------------------------
# Each command takes the words of every language: the catalog's names (``preset.*``,
# ``pace.*``, ``lang.name``, ``choice.<rule>.<value>``), a few more spellings and the yes/no
# words listed here, and the old Latin ids.

_PRESET_ALIASES: Final[dict[str, str]] = {
    "классика": "classic", "классические": "classic", "классическая": "classic",
    "класика": "classic", "класичні": "classic", "класична": "classic",
    "полные": "full", "полная": "full", "все": "full",
    "повні": "full", "повна": "full", "усі": "full", "всі": "full",
}
_PACE_ALIASES: Final[dict[str, str]] = {
    "быстро": "quick", "быстрая": "quick", "швидко": "quick", "fast": "quick",
    "обычно": "normal", "обычная": "normal", "звичайно": "normal", "звичайна": "normal",
    "неспешный": "unhurried", "неспешно": "unhurried", "неспешная": "unhurried",
    "медленный": "unhurried", "медленно": "unhurried",
    "неквапливий": "unhurried", "неквапно": "unhurried", "повільний": "unhurried",
    "повільно": "unhurried", "slow": "unhurried",
}
_LANG_ALIASES: Final[dict[str, str]] = {
    "русский": "ru", "российский": "ru", "русский язык": "ru", "російська": "ru",
    "рус": "ru", "russian": "ru",
    "українська": "uk", "украинский": "uk", "украинская": "uk", "укр": "uk",
    "ukrainian": "uk",
    "english": "en", "английский": "en", "англійська": "en", "англ": "en", "eng": "en",
}
_ON: Final = frozenset({"да", "вкл", "включено", "так", "увімк", "увімкнено", "on", "yes"})
_OFF: Final = frozenset({"нет", "выкл", "выключено", "ні", "вимк", "вимкнено", "off", "no"})


def _catalog_words(prefix: str, ids: tuple[str, ...] | frozenset[str]) -> dict[str, str]:
    """The names ``<prefix>.<id>`` in every language, as typed words -> id."""
    out: dict[str, str] = {}
    for catalog in CATALOGS.values():
        for i in ids:
            name = catalog.get(f"{prefix}.{i}")
            if name:
                out.setdefault(normal_word(name), i)
    return out


_PACE_IDS: Final = ("quick", "normal", "unhurried")  # = bot.tg.model.PACES (a test checks)
_PACES: Final[dict[str, str]] = {**_catalog_words("pace", _PACE_IDS), **_PACE_ALIASES}
_PRESETS: Final[dict[str, str]] = {**_catalog_words("preset", tuple(PRESETS)),
                                   **_PRESET_ALIASES}
_LANGS: Final[dict[str, str]] = {
    **{normal_word(c["lang.name"]): code for code, c in CATALOGS.items() if "lang.name" in c},
    **_LANG_ALIASES}


def pace_word(word: str) -> str | None:
    """The pace ``/pace WORD`` names (quick, normal, unhurried): its id, its name in any
    language ("быстрый", "без поспіху") or another spelling ("неспешный"); None else."""
    w = normal_word(word)
    return w if w in _PACE_IDS else _PACES.get(w)


def lang_word(word: str) -> Lang | None:
    """The language ``/lang WORD`` names: a code ("uk"), the language's name in itself
    ("українська", "English") or in another language ("украинский"); None else."""
    w = normal_word(word)
    code = w if w in CATALOGS else _LANGS.get(w)
    return cast("Lang", code) if code in CATALOGS else None


def _choice_values(rule_id: str) -> dict[str, str]:
    """The labels of a rule's values in every language -> the value as typed."""
    return _catalog_words(f"choice.{rule_id}", tuple(str(o) for o in RULE_SPECS[rule_id].options))


def newgame_args(args: Sequence[str]) -> list[str]:
    """``/newgame``'s words as the engine reads them (``rules_from_args``): a preset's name
    in any language ("полные", "повні") becomes its id, ``NAME=VALUE`` takes a rule's name
    or alias (``_`` for a space) and a value's label or yes/no in any language.  Anything
    else is passed on unchanged, for the engine to refuse with its reason."""
    out: list[str] = []
    words = list(args)
    while words:
        a = words.pop(0)
        w = normal_word(a)
        if words and f"{w} {normal_word(words[0])}" in _PRESETS:  # "полные правила"
            w = f"{w} {normal_word(words.pop(0))}"
        if w in _PRESETS:
            out.append(_PRESETS[w])
            continue
        name, eq, value = a.partition("=")
        rule = (find_rule(name) or find_rule(name.replace("_", " "))) if eq else None
        if rule is None:
            out.append(a)
            continue
        v = normal_word(value.replace("_", " "))
        spec = RULE_SPECS[rule]
        if spec.kind == "bool" and v in _ON | _OFF:
            value = "on" if v in _ON else "off"
        elif spec.kind == "int" and spec.nullable and v in _OFF:
            value = "none"
        else:
            value = _choice_values(rule).get(v, value)
        out.append(f"{rule}={value.strip()}")
    return out
