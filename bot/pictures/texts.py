"""The few words on the pictures, Russian and English.

Keys carry the ``pic.`` prefix so they can move into ``bot/locales`` unchanged; they live
here to keep the picture package self-contained (the locale files are edited by others).
"""

from __future__ import annotations

from typing import Final

TEXTS: Final[dict[str, dict[str, str]]] = {
    "ru": {
        "pic.sheet_title": "Запись игры",
        "pic.deal_no": "№",
        "pic.game": "Игра",
        "pic.deal": "раздача",
        "pic.total": "итого",
        "pic.redeal": "пересдача",
        "pic.no_game": "—",
        "pic.place": "Место",
        "pic.empty": "Ещё не сыграно ни одной раздачи.",
        "pic.skipped": "… скрыто первых раздач: {k}",
        "pic.deals": "раздач: {n}",
        "pic.legend.made": "сыграл",
        "pic.legend.failed": "не сыграл",
        "pic.legend.conceded": "расписал",
        "pic.legend.bolt": "болт",
        "pic.legend.penalty": "штраф",
        "pic.legend.barrel_on": "на бочке (1 2 3 — попытки)",
        "pic.legend.fall": "слетел с бочки",
        "pic.legend.barrel_back": "сброшен с 880",
        "pic.legend.third_fall": "третий слёт — в 0",
        "pic.legend.samosval": "самосвал 555",
        "pic.legend.winner": "победа",
        "pic.legend.golden": "золотая",
        "pic.legend.dark": "тёмная",
        "pic.legend.sitting_out": "сдаёт (не играет)",
        "pic.race.barrel_on": "сел на бочку",
        "pic.race.fall": "слетел с бочки",
        "pic.race.penalty": "штраф",
        "pic.race.samosval": "самосвал 555",
        "pic.race.winner": "победа",
        "pic.race_title": "Гонка к 1000",
        "pic.axis_deal": "Раздача",
        "pic.axis_points": "Очки",
        "pic.barrel_line": "бочка 880",
        "pic.goal_line": "1000",
    },
    "en": {
        "pic.sheet_title": "Score sheet",
        "pic.deal_no": "#",
        "pic.game": "Game",
        "pic.deal": "deal",
        "pic.total": "total",
        "pic.redeal": "redeal",
        "pic.no_game": "—",
        "pic.place": "Place",
        "pic.empty": "No deal has been played yet.",
        "pic.skipped": "… first deals hidden: {k}",
        "pic.deals": "deals: {n}",
        "pic.legend.made": "made",
        "pic.legend.failed": "failed",
        "pic.legend.conceded": "conceded",
        "pic.legend.bolt": "bolt",
        "pic.legend.penalty": "fine",
        "pic.legend.barrel_on": "on the barrel (1 2 3 — tries)",
        "pic.legend.fall": "fell off the barrel",
        "pic.legend.barrel_back": "pushed back from 880",
        "pic.legend.third_fall": "third fall — to 0",
        "pic.legend.samosval": "555 dump",
        "pic.legend.winner": "won",
        "pic.legend.golden": "golden",
        "pic.legend.dark": "dark",
        "pic.legend.sitting_out": "deals (sits out)",
        "pic.race.barrel_on": "climbed the barrel",
        "pic.race.fall": "fell off the barrel",
        "pic.race.penalty": "fine",
        "pic.race.samosval": "555 dump",
        "pic.race.winner": "won",
        "pic.race_title": "Race to 1000",
        "pic.axis_deal": "Deal",
        "pic.axis_points": "Points",
        "pic.barrel_line": "barrel 880",
        "pic.goal_line": "1000",
    },
}


def pt(lang: str, key: str, **kw: object) -> str:
    """The picture text ``key`` in ``lang`` (Russian for an unknown language)."""
    text = TEXTS.get(lang, TEXTS["ru"])[key]
    return text.format(**kw) if kw else text
