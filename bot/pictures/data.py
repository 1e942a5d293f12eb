"""The typed input of the pictures: one ``Deal`` per score-sheet row.

A score-sheet row is the JSON dict of ``bot.tg.model.sheet_row`` (stored in
``score_sheets.data``); ``Deal.from_row`` reads one and checks its shape, so a picture is
drawn from plain, validated data.  ``GameSheet`` is the seat names with the deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.stats import places

# Marks of a seat in a deal (bot/engine/scoring.py); try1.. try3 are the barrel tries.
KNOWN_MARKS = frozenset({
    "made", "failed", "conceded", "penalty", "sitting_out", "bolt", "barrel_on", "barrel_back",
    "knocked_off", "fall", "third_fall", "samosval", "winner",
})


def _ints(value: Any, n: int, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple) or len(value) != n:
        raise ValueError(f"{what}: {n} numbers expected, got {value!r}")
    return tuple(int(x) for x in value)


@dataclass(frozen=True, slots=True)
class Deal:
    """One deal of the score sheet."""

    n: int
    dealer: int
    kind: str  # normal, golden, dark
    declarer: int  # -1 for none
    bid: int
    contract: int
    outcome: str  # made, failed, conceded, redeal, played
    scores: tuple[int, ...]  # change of each total
    totals: tuple[int, ...]
    marks: tuple[tuple[str, ...], ...]
    winner: int = -1

    @classmethod
    def from_row(cls, row: Mapping[str, Any], players: int) -> Deal:
        """A deal from a ``sheet_row`` dict of a game of ``players`` seats."""
        marks = row.get("marks") or [[] for _ in range(players)]
        if len(marks) != players:
            raise ValueError(f"marks: {players} lists expected, got {marks!r}")
        return cls(
            n=int(row["n"]),
            dealer=int(row.get("dealer", -1)),
            kind=str(row.get("kind", "normal")),
            declarer=int(row.get("declarer", -1)),
            bid=int(row.get("bid", 0)),
            contract=int(row.get("contract", 0)),
            outcome=str(row.get("outcome", "")),
            scores=_ints(row["scores"], players, "scores"),
            totals=_ints(row["totals"], players, "totals"),
            marks=tuple(tuple(str(m) for m in ms) for ms in marks),
            winner=int(row.get("winner", -1)),
        )


@dataclass(frozen=True, slots=True)
class GameSheet:
    """Seat names and the deals played, in order."""

    names: tuple[str, ...]
    deals: tuple[Deal, ...]

    @classmethod
    def of(cls, names: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> GameSheet:
        if not 2 <= len(names) <= 4:
            raise ValueError(f"2 to 4 seats expected, got {len(names)}")
        return cls(tuple(names), tuple(Deal.from_row(r, len(names)) for r in rows))

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def totals(self) -> tuple[int, ...]:
        """The final (or current) totals."""
        return self.deals[-1].totals if self.deals else (0,) * self.players

    @property
    def winner(self) -> int:
        return self.deals[-1].winner if self.deals else -1

    def places(self) -> list[int]:
        """Each seat's place, 1 the best; ties share a place."""
        return places(self.totals, self.winner)
