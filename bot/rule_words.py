"""The house rules in words: their names, descriptions and value labels from the catalogs
(``rule.<id>.name``, ``rule.<id>.text``, ``choice.<id>.<value>`` in ``bot/locales/*.po``),
and the rule a player means by a typed word, in any of the languages."""

from __future__ import annotations

from typing import Final

from bot.engine.rule_texts import RULE_ALIASES
from bot.engine.rules import RULE_IDS
from bot.i18n import CATALOGS, has, t

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
