"""What happens to a table, as typed events, and the bus they are published on.

The table's owner (``owner.py``) publishes each event once the change it tells of is
stored, never before; what shows a table (the table room: the group message and the
private hands; the lobby: the final sheet; the media room: the pictures; the ratings room:
the count) subscribes to them in the composition root (``service.py``) and nowhere else.
The listeners of one kind of event are called in the order they were subscribed, each
once, one after the other (a listener that returns an awaitable is awaited before the
next is called).

| event | published when | listeners (service.py) |
|---|---|---|
| ``MovesStored`` | a move, or a press's replies, stored (one write) | table (``moved``) |
| ``DealOver`` | a stored move ended a deal | — (the next front end) |
| ``SeatChanged`` | a seat handed to the computer, given back, taken by a person | table |
| ``SettingChanged`` | a table setting changed (pace, level, forced, hints) | table |
| ``GameStarted`` | a lobby became a game | table (``started``) |
| ``GameOver`` | the last move stored | lobby (final sheet), media (pictures), ratings |
| ``GameStopped`` | a playing game stopped or expired (results kept) | table (``stopped``) |
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.engine.state import Action, GameState
from bot.tg.rooms.session import Session


@dataclass(frozen=True, slots=True, eq=False)
class TableEvent:
    """Something that happened to the table ``session`` (stored already)."""

    session: Session


@dataclass(frozen=True, slots=True, eq=False)
class MovesStored(TableEvent):
    """Moves that follow each other (a person's press, or a computer's reply and the moves
    made at once after it), stored in one write: ``states[i]`` is the state before
    ``moves[i]``, ``states[-1]`` the state after the last; ``version`` the stored version."""

    moves: tuple[tuple[int, Action, str], ...]
    states: tuple[GameState, ...]
    version: int

    @property
    def after(self) -> GameState:
        return self.states[-1]


@dataclass(frozen=True, slots=True, eq=False)
class DealOver(TableEvent):
    """A deal ended (its score-sheet row, ``model.sheet_row``, is stored)."""

    number: int
    row: dict[str, Any]


@dataclass(frozen=True, slots=True, eq=False)
class SeatChanged(TableEvent):
    """A seat changed hands during a game: ``change`` "auto" (to the computer), "human"
    (given back), "sit" (a person sat down in a computer's seat); ``why`` as recorded;
    ``keeper`` (id, name) of the keeper who decided it, if one did."""

    seat: int
    change: str
    why: str
    keeper: tuple[int, str] | None
    version: int


@dataclass(frozen=True, slots=True, eq=False)
class SettingChanged(TableEvent):
    """A table setting (``owner.Settings``) changed and is stored."""

    name: str
    value: object
    by: int = 0


@dataclass(frozen=True, slots=True, eq=False)
class GameStarted(TableEvent):
    """A lobby became a game (stored)."""


@dataclass(frozen=True, slots=True, eq=False)
class GameOver(TableEvent):
    """The last move of the game is stored (with its outcome); ``rows``: its score sheet."""

    rows: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True, eq=False)
class GameStopped(TableEvent):
    """A playing game ended before its last move (stopped, expired, its topic deleted);
    results kept."""

    reason: str


E = TypeVar("E", bound=TableEvent)
Listener = Callable[[Any], Awaitable[None] | None]


class Bus:
    """Listeners by kind of event, called in the order they were subscribed."""

    def __init__(self) -> None:
        self._listeners: dict[type[TableEvent], list[Listener]] = {}

    def subscribe(self, kind: type[E], listener: Callable[[E], Awaitable[None] | None]) -> None:
        self._listeners.setdefault(kind, []).append(listener)

    def listeners(self, kind: type[TableEvent]) -> list[Listener]:
        """The listeners of ``kind``, in order (the list itself: a test may wrap them)."""
        return self._listeners.setdefault(kind, [])

    async def publish(self, event: TableEvent) -> None:
        for listener in self._listeners.get(type(event), ()):
            result = listener(event)
            if inspect.isawaitable(result):
                await result
