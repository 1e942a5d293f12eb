"""The narrow port between the page and the tables: what the Mini App needs of a table.

Today ``adapter.py`` implements it on the rooms (bot/tg/rooms); the owner of each table
(issue "One owner for each table") will implement it with its events.  Nothing else of
bot/webapp knows the rooms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from bot.engine.state import Trick
from bot.engine.views import TableView
from bot.webapp.auth import WebUser


@dataclass(frozen=True, slots=True)
class Refusal:
    """An action or a look refused: ``text`` is the reason in the person's language (from
    the catalogs), ``code`` a bounded label for the metrics."""

    code: str
    text: str


@dataclass(frozen=True, slots=True)
class SeatPlace:
    """The table around a seat, besides the engine's view: the names, the clock."""

    game_id: int
    names: tuple[str, ...]  # each seat's name as the table shows it
    computers: tuple[bool, ...]
    solo: bool
    hints: bool  # 💡 allowed at this table
    deadline: float | None  # when the turn times out (unix seconds), None: no clock
    summary: str = ""  # the last finished deal's summary, plain text from the catalogs
    summary_deal: int = 0  # that deal's number (its 🔍 analysis)
    rows: tuple[tuple[int, ...], ...] = field(default=())  # the sheet: totals after each deal
    sheet: str = ""  # the score sheet like the paper one (monospace, marks, legend: /score)
    free: bool = False  # a spectator may take a seat (a computer's, or one its person left)
    # the last trick of the finished deal, until the next deal's first card (the middle)
    deal_last: Trick | None = None
    # at the game's end «Ещё партия» is offered: to a seat, where the table's chat can hold
    # the next game (not an inline table: its message is in a chat the bot may not be in)
    rematch: bool = False


@dataclass(frozen=True, slots=True)
class SeatView:
    view: TableView  # the engine's per-seat view (bot/engine/views.py)
    place: SeatPlace
    lang: str
    over: bool = False  # the game ended (the view is its final state)
    rev: int = -1
    """The stored version of the table it shows (its records: moves, and also a seat handed
    to the computer or taken, a pace changed — changes that leave the engine's version);
    -1: the view's own version.  A page gets a view only of a newer ``rev``."""


# {"kind": "bid", "value": 105}, {"kind": "play", "card": "QS"}, … (the engine's actions,
# bot/webapp/payload.py ``action_of``), or {"kind": "hint"}, {"kind": "rematch"},
# {"kind": "sit"}
Intent = dict[str, object]
# (game id, version): game G changed to stored version V (or later; ``SeatView.rev``);
# (None, 0): changes may have been missed (the database's feed reconnected): every open
# page reads its view again
Changed = Callable[[int | None, int], None]


class TablePort(Protocol):
    async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        """What the person's seat at ``game_id`` may know now, or why not."""

    async def watch_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        """The public view (``bot/engine/views.py`` ``public_view``) of a group's table for
        a member of that group who is not seated; refused for anybody else."""

    async def act(self, game_id: int, user: WebUser, intent: Intent,
                  version: int) -> Refusal | str | None:
        """The intent, through the same path and checks as a button press: None done, a
        ``str`` done with an answer to show (a hint), a ``Refusal`` refused.
        ``{"kind": "sit"}``: a latecomer takes a free seat (the lobby's join, the table's
        🪑), with the same checks as those buttons."""

    def lang_for(self, user_id: int, language_code: str | None) -> str:
        """The person's language (their choice in the bot, else Telegram's code)."""

    def games_of(self, user_id: int) -> list[int]:
        """The games in memory where the person has a seat, newest first."""

    def on_change(self, listener: Changed) -> None:
        """Call ``listener(game, version)`` after each stored change of a game, by any
        process (``listener(None, 0)``: changes may have been missed)."""
