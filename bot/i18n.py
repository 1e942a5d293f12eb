"""Every text a person sees, in Russian (the default), Ukrainian and English: ``t()``.

The catalogs are gettext PO files, one per language: ``bot/locales/<lang>.po`` (``ru.po``,
``uk.po``, ``en.po``), read once at import with Babel.  A fourth language is a new file
there (docs/bot.md, "Languages").  In every file an entry is::

    msgctxt "popup.not_your_turn"       <- the key the code asks for
    msgid "Сейчас ходит {name}"         <- the Russian text (the source language)
    msgstr "Зараз ходить {name}"        <- the text in this file's language

The key is the ``msgctxt``, so callers keep the short stable keys they always used, the
translators see the Russian source in ``msgid`` (Poedit, Weblate and Crowdin show it), and
a changed Russian text makes the other files' ``msgid`` stale, which a test reports.
Placeholders are ``str.format`` fields (flag ``python-brace-format``); every language has
every key with the same placeholders (a test checks it).  Values put into HTML texts must
be escaped by the caller (``esc``).

Where a number meets a noun the entry has plural forms (``msgid_plural``, ``msgstr[0..]``,
chosen by the file's ``Plural-Forms`` header, CLDR's rules: three forms in Russian and
Ukrainian, two in English).  The number is the placeholder named by the entry's
``#. count: NAME`` comment (``n`` when there is none); ``t`` picks the form from that
keyword, and ``tn(lang, key, n, **kw)`` takes the number explicitly.
"""

from __future__ import annotations

import functools
import gettext
import html
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final, Literal, cast, get_args

from babel.messages.pofile import read_po

# The languages: the names of the catalog files.  A new language's code is added here and
# to storage.models.Language (a test checks that the three agree).
Lang = Literal["ru", "uk", "en"]

LOCALES: Final = Path(__file__).resolve().parent / "locales"
DEFAULT_LANG: Final[Lang] = "ru"
_COUNT_COMMENT: Final = "count:"


class _Catalog:
    """One language's texts: the plain ones, the plural ones and the plural rule."""

    __slots__ = ("counts", "plural", "plurals", "texts")

    def __init__(self, path: Path) -> None:
        with path.open("rb") as f:
            po = read_po(f, locale=None, abort_invalid=True)
        self.texts: dict[str, str] = {}
        self.plurals: dict[str, tuple[str, ...]] = {}
        self.counts: dict[str, str] = {}
        for m in po:
            if not m.id or m.context is None or m.fuzzy:
                continue
            if isinstance(m.string, tuple | list):
                forms = tuple(str(s) for s in m.string)
                if all(forms):
                    self.plurals[m.context] = forms
                    self.counts[m.context] = _count_name(m.auto_comments)
            elif m.string:
                self.texts[m.context] = str(m.string)
        # the form index for a number (cached: the compiled C expression is slowish)
        self.plural: Callable[[int], int] = functools.lru_cache(maxsize=512)(
            gettext.c2py(po.plural_expr))


def _count_name(comments: list[str]) -> str:
    for c in comments:
        if c.startswith(_COUNT_COMMENT):
            return c[len(_COUNT_COMMENT):].strip()
    return "n"


def _load() -> dict[str, _Catalog]:
    found = {p.stem: _Catalog(p) for p in sorted(LOCALES.glob("*.po"))}
    if DEFAULT_LANG not in found:
        raise RuntimeError(f"no {DEFAULT_LANG}.po in {LOCALES}")
    return found


_CATALOGS: Final[dict[str, _Catalog]] = _load()

# The languages, the default first, then in the order of their codes.
LANGS: Final[tuple[Lang, ...]] = cast(
    "tuple[Lang, ...]", (DEFAULT_LANG, *sorted(k for k in _CATALOGS if k != DEFAULT_LANG)))
KNOWN_LANGS: Final[frozenset[str]] = frozenset(get_args(Lang))

# key -> text for every key of each language; a plural entry gives its last form (the
# "many"/"other" one: "5 очков").  The pictures and the tests read these.
CATALOGS: Final[dict[str, dict[str, str]]] = {
    lang: {**c.texts, **{k: forms[-1] for k, forms in c.plurals.items()}}
    for lang, c in _CATALOGS.items()
}
# key -> every plural form, for the plural entries of each language.
PLURALS: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    lang: dict(c.plurals) for lang, c in _CATALOGS.items()
}

# Telegram language codes without a catalog of their own that get Russian rather than
# English (neighbours whose speakers mostly read Russian); every other code without a
# catalog gets English, and an unknown (missing) one the default, Russian.
_RUSSIAN_CODES: Final = frozenset({"be", "kk", "ky", "uz", "tg", "hy", "az", "ka", "mo", "tk"})


def lang_of(language_code: str | None) -> Lang:
    """The catalog for a Telegram ``language_code`` ("uk" -> uk, "en-GB" -> en, None -> ru)."""
    if not language_code:
        return DEFAULT_LANG
    code = language_code.lower().split("-")[0].split("_")[0]
    if code in _CATALOGS:
        return cast(Lang, code)
    return "ru" if code in _RUSSIAN_CODES else "en"


def norm_lang(value: str | None) -> Lang:
    """A stored language made a known one (the default for anything else)."""
    return cast(Lang, value) if value is not None and value in _CATALOGS else DEFAULT_LANG


def t(lang: str, key: str, **kw: Any) -> str:
    """The text ``key`` in ``lang`` (Russian if the language or the text is missing there)
    with ``kw`` filled in; a plural text takes its form from its count keyword."""
    catalog = _CATALOGS.get(lang) or _CATALOGS[DEFAULT_LANG]
    text = catalog.texts.get(key)
    if text is None:
        if key in catalog.plurals:
            return _plural(catalog, key, kw.get(catalog.counts[key], 0), kw)
        catalog = _CATALOGS[DEFAULT_LANG]
        text = catalog.texts.get(key)
        if text is None:
            if key in catalog.plurals:
                return _plural(catalog, key, kw.get(catalog.counts[key], 0), kw)
            raise KeyError(f"no text {key!r}")
    return text.format(**kw) if kw else text


def tn(lang: str, key: str, n: int, **kw: Any) -> str:
    """The plural text ``key`` in ``lang`` in the form for the number ``n``; ``n`` also
    fills the entry's count placeholder unless ``kw`` gives it."""
    catalog = _CATALOGS.get(lang) or _CATALOGS[DEFAULT_LANG]
    if key not in catalog.plurals:
        catalog = _CATALOGS[DEFAULT_LANG]
    if key not in catalog.plurals:
        return t(lang, key, **({"n": n} | kw))
    return _plural(catalog, key, n, {catalog.counts[key]: n} | kw)


def _plural(catalog: _Catalog, key: str, n: object, kw: dict[str, Any]) -> str:
    forms = catalog.plurals[key]
    try:
        count = abs(int(str(n)))
    except ValueError:
        count = 0
    index = catalog.plural(count)
    return forms[min(index, len(forms) - 1)].format(**kw)


def has(key: str) -> bool:
    c = _CATALOGS[DEFAULT_LANG]
    return key in c.texts or key in c.plurals


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
