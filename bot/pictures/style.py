"""Colours and mark symbols shared by the score sheet and the race chart."""

from __future__ import annotations

from typing import Final

SEAT_COLOURS: Final = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")

# A seat's mark in a deal -> (symbol, badge colour); try1.. are drawn as their digit.
BADGES: Final[dict[str, tuple[str, str]]] = {
    "bolt": ("⊘", "#607d8b"),
    "penalty": ("!", "#e53935"),
    "barrel_on": ("⛁", "#8d5524"),
    "try": ("", "#c49a6c"),
    "fall": ("↓", "#b71c1c"),
    "knocked_off": ("↓", "#b71c1c"),
    "barrel_back": ("↩", "#ef6c00"),
    "third_fall": ("0", "#212121"),
    "samosval": ("♻", "#8e24aa"),
    "winner": ("♛", "#f9a825"),
}

# The declarer's outcome and the kind of deal, drawn as coloured symbols in the game column.
OUTCOME: Final[dict[str, tuple[str, str]]] = {
    "made": ("✓", "#2e7d32"),
    "failed": ("✗", "#c62828"),
    "conceded": ("⚐", "#ef6c00"),
}
KIND: Final[dict[str, tuple[str, str, str]]] = {  # symbol, colour, row background
    "golden": ("☀", "#e0a100", "#fff4d1"),
    "dark": ("☾", "#3949ab", "#e4e7f4"),
}


def badge_of(mark: str) -> tuple[str, str] | None:
    """The badge (symbol, colour) of a mark, None for marks not drawn as a badge."""
    if mark.startswith("try") and mark[3:].isdigit():
        return mark[3:], BADGES["try"][1]
    return BADGES.get(mark)


ALL_SYMBOLS: Final = "".join(
    [s for s, _ in BADGES.values()] + [s for s, _ in OUTCOME.values()]
    + [s for s, _, _ in KIND.values()] + ["0123456789+−—…№#·"]
)
