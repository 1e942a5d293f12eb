"""Every text a person sees, in Russian (the default) and English: ``t(lang, key, **kw)``.

The catalogs are ``bot/locales/ru.py`` and ``bot/locales/en.py`` (``MESSAGES``: key ->
text with ``str.format`` placeholders), plus the terminal commands' texts of
``bot/locales/terminal.py`` (keys ``term_*``).  Both languages have the same keys and the
same placeholders (a test checks it).  Values put into HTML texts must be escaped by the
caller (``esc``).
"""

from __future__ import annotations

import html
import string
from typing import Any, Final, Literal

from bot.locales import terminal
from bot.locales.en import MESSAGES as EN
from bot.locales.ru import MESSAGES as RU

Lang = Literal["ru", "en"]
LANGS: Final[tuple[Lang, ...]] = ("ru", "en")
DEFAULT_LANG: Final[Lang] = "ru"

CATALOGS: Final[dict[str, dict[str, str]]] = {
    "ru": {**RU, **terminal.RU},
    "en": {**EN, **terminal.EN},
}

# Telegram language codes answered in Russian; every other known code gets English and an
# unknown (missing) one the default, Russian.
_RUSSIAN_CODES: Final = frozenset({"ru", "uk", "be", "kk", "ky", "uz", "tg", "hy", "az", "ka",
                                   "mo", "tk"})


def lang_of(language_code: str | None) -> Lang:
    """The catalog for a Telegram ``language_code`` ("en-GB" -> en; None -> ru)."""
    if not language_code:
        return DEFAULT_LANG
    code = language_code.lower().split("-")[0].split("_")[0]
    return "ru" if code in _RUSSIAN_CODES else "en"


def norm_lang(value: str | None) -> Lang:
    return "en" if value == "en" else "ru"


def t(lang: str, key: str, **kw: Any) -> str:
    """The text ``key`` in ``lang`` (Russian if the language is unknown) with ``kw`` filled in."""
    catalog = CATALOGS.get(lang, CATALOGS[DEFAULT_LANG])
    text = catalog.get(key)
    if text is None:
        text = CATALOGS[DEFAULT_LANG].get(key)
    if text is None:
        raise KeyError(f"no text {key!r}")
    return text.format(**kw) if kw else text


def has(key: str) -> bool:
    return key in CATALOGS[DEFAULT_LANG]


def esc(value: object) -> str:
    """Escape a value (a user's name, …) for an HTML message."""
    return html.escape(str(value), quote=False)


def placeholders(text: str) -> frozenset[str]:
    """The ``{name}`` fields of a catalog text."""
    return frozenset(
        name.split(".")[0].split("[")[0]
        for _, name, _, _ in string.Formatter().parse(text)
        if name is not None and name != ""
    )
