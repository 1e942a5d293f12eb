"""Plain rows the repository returns: numbers, text and JSON text only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

ChatKind = Literal["private", "group", "supergroup"]
Language = Literal["ru", "uk", "en"]  # the catalogs of bot/locales (bot.i18n.Lang)
GameStatus = Literal["lobby", "playing", "finished", "stopped", "expired", "broken"]

CHAT_KINDS: Final[tuple[ChatKind, ...]] = ("private", "group", "supergroup")
LANGUAGES: Final[tuple[Language, ...]] = ("ru", "uk", "en")
GAME_STATUSES: Final[tuple[GameStatus, ...]] = (
    "lobby",
    "playing",
    "finished",
    "stopped",
    "expired",
    "broken",
)
ACTIVE_STATUSES: Final[tuple[GameStatus, ...]] = ("lobby", "playing")
"""At most one game per chat is in one of these (a partial unique index)."""
ENDED_STATUSES: Final[tuple[GameStatus, ...]] = ("finished", "stopped", "expired", "broken")
"""Final: a game in one of these never changes status again; its record is kept."""


@dataclass(frozen=True, slots=True)
class Chat:
    chat_id: int
    kind: ChatKind
    language: Language
    default_rules: str | None
    """JSON text of the rules this chat used last, or None."""
    created: float
    updated: float


@dataclass(frozen=True, slots=True)
class User:
    user_id: int
    first_name: str
    username: str | None
    language: Language | None
    """None: the user has not chosen a language."""
    started: bool
    """The user started the bot in private, so the bot may message them."""
    blocked: bool
    """The user blocked the bot."""
    created: float
    updated: float


@dataclass(frozen=True, slots=True)
class Game:
    game_id: int
    chat_id: int
    status: GameStatus
    creator_id: int
    created: float
    updated: float
    rules: str
    """JSON text."""
    seed: int
    seats: str
    """JSON text: a list of {kind, user_id, name, level}."""
    version: int
    """The number of accepted actions (the seq of the last one; 0 for none)."""
    lobby_rev: int
    """Counts the lobby edits (update_lobby); the guard of lobby changes."""
    snapshot: str | None
    """JSON text: a cache of the state after ``version`` actions (None in the lobby)."""
    message_ids: str
    """JSON text, opaque to storage."""
    deadline: float | None
    """Epoch seconds when the current turn (or lobby) times out, or None."""
    lobby_code: str | None
    human_moved: float | None = None
    """Epoch seconds of the last move a person made (``append_action(human=True)``), or of
    the start (``start_game``); None in the lobby.  The clock of ``idle_games``."""
    reason: str | None = None
    """Why the game is ``broken`` or ``expired`` (``mark_broken``, ``expire_game``), or None."""
    thread_id: int | None = None
    """The forum topic the game is played in (Telegram's ``message_thread_id``, >= 1), or
    None: the chat's General topic, or a chat without topics.  A chat has at most one game
    in lobby/playing per thread (None being a place of its own)."""

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_STATUSES


@dataclass(frozen=True, slots=True)
class ScoreRow:
    game_id: int
    deal_no: int
    data: str
    """JSON text, opaque to storage."""
    created: float


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended; the input of ``finish_game`` and ``append_action(outcome=...)``."""

    winner_seat: int | None
    totals: str
    """JSON text of the final totals."""
    stopped: bool = False
    """True: the game was stopped before anyone won (status ``stopped``)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    game_id: int
    finished: float
    winner_seat: int | None
    totals: str
    """JSON text."""
    stopped: bool


@dataclass(frozen=True, slots=True)
class Pragmas:
    """The connection settings read back from SQLite."""

    journal_mode: str
    foreign_keys: bool
    synchronous: int
    busy_timeout_ms: int
    user_version: int


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished game, the input of ``record_game_result``.

    ``player`` is who sat there: any text id (the bot uses "u:<user_id>" for a person and
    "ai:<level>" for a computer level); one player may have several seats of a game.
    """

    seat: int
    player: str
    place: int
    """1 the best; equal places tie."""
    win: bool
    declared: int = 0
    """Deals the seat played as declarer."""
    made: int = 0
    """Contracts made."""
    falls: int = 0
    """Falls off the barrel."""
    bolts: int = 0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's record over the rated games (``player_stats``)."""

    player: str
    games: int
    wins: int
    place_sum: float
    """The sum of the places (a player with several seats in a game adds their mean)."""
    declared: int
    made: int
    falls: int
    bolts: int
    mu: float | None
    """The rating's mean; None until the player was rated."""
    sigma: float | None
    updated: float
    name: str | None = None
    """The person's first name from ``users`` (filled by ``chat_top`` for "u:<id>")."""

    @property
    def avg_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0


@dataclass(frozen=True, slots=True)
class Versus:
    """A player's games at a table with one computer level (``versus_computers``)."""

    computer: str
    """The computer's player id ("ai:hard")."""
    games: int
    wins: int
    """Games the player won."""
    place_sum: float
    """The sum of the player's places in those games."""
