"""The few words on the pictures: the ``pic.*`` keys of the bot's catalogs
(``bot/locales/<lang>.po``), checked there with every other text."""

from __future__ import annotations

from typing import Final

from bot.i18n import CATALOGS, DEFAULT_LANG

TEXTS: Final[dict[str, dict[str, str]]] = {
    lang: {k: v for k, v in catalog.items() if k.startswith("pic.")}
    for lang, catalog in CATALOGS.items()
}


def pt(lang: str, key: str, **kw: object) -> str:
    """The picture text ``key`` in ``lang`` (Russian for an unknown language)."""
    text = TEXTS.get(lang, TEXTS[DEFAULT_LANG])[key]
    return text.format(**kw) if kw else text
