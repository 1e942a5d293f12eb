"""The storage interface every backend implements: SQLite (``storage.sqlite.Storage``, the
default) and PostgreSQL (``storage.postgres.PostgresStorage``).

The bot names only :class:`Backend`; ``storage.open_storage`` picks the implementation.
Both backends pass the same contract tests (``tests/storage/test_contract.py``): the same
results, the same exceptions (``storage.errors``) and the same all-or-nothing writes.
Backend-specific extras (SQLite's ``pragmas()`` and ``path``) are not part of it.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

from storage.models import (
    Chat,
    ChatKind,
    Game,
    GameResult,
    Language,
    Outcome,
    PlayerStats,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)

__all__ = ["Backend", "Migration", "Opening", "Rater", "RatingPair"]


class _Closable(Protocol):
    async def close(self) -> None: ...


_S = TypeVar("_S", bound=_Closable)


class Opening(Generic[_S]):
    """What a backend's ``open(...)`` returns: await it, or use it as ``async with`` (the
    storage is closed at the end of the block)."""

    def __init__(self, opener: Callable[[], Coroutine[Any, Any, _S]]) -> None:
        self._opener = opener
        self._storage: _S | None = None

    def __await__(self) -> Generator[Any, None, _S]:
        return self._opener().__await__()

    async def __aenter__(self) -> _S:
        self._storage = await self
        return self._storage

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._storage is not None:
            await self._storage.close()

Migration = tuple[str, ...]
"""The SQL statements of one migration, run in order in one transaction (the lists are
``storage/sqlite/schema.py`` and ``storage/postgres/schema.py``)."""

RatingPair = tuple[float, float]
"""A rating as (mu, sigma)."""
Rater = Callable[[Mapping[str, RatingPair | None]], Mapping[str, RatingPair]]
"""``record_game_result``'s rating step: the players' current ratings (None: not rated
yet) to their new ones, called inside the transaction."""


class Backend(Protocol):
    """The repository of chats, users, games, their action logs, score sheets and results.

    The methods' documentation is on the SQLite implementation (the modules of
    ``storage/sqlite/``) and in ``docs/storage.md``; every backend behaves the same.
    """

    # ------------------------------------------------------------------ lifecycle

    async def close(self) -> None: ...

    async def __aenter__(self) -> Self: ...

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    # ------------------------------------------------------------------ chats

    async def upsert_chat(
        self, chat_id: int, kind: ChatKind, *, language: Language = "ru"
    ) -> Chat: ...

    async def get_chat(self, chat_id: int) -> Chat | None: ...

    async def set_chat_language(self, chat_id: int, language: Language) -> None: ...

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None: ...

    async def migrate_chat(self, old_id: int, new_id: int) -> bool: ...

    # ------------------------------------------------------------------ users

    async def upsert_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        *,
        language: Language | None = None,
    ) -> User: ...

    async def get_user(self, user_id: int) -> User | None: ...

    async def set_user_language(self, user_id: int, language: Language | None) -> None: ...

    async def mark_started(self, user_id: int) -> None: ...

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None: ...

    # ------------------------------------------------------------------ games: lobby

    async def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        rules: str,
        seed: int,
        seats: str,
        lobby_code: str | None = None,
        deadline: float | None = None,
        thread_id: int | None = None,
    ) -> int: ...

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int: ...

    async def start_game(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        snapshot: str,
        deadline: float | None,
        seats: str | None = None,
        rules: str | None = None,
    ) -> None: ...

    async def cancel_lobby(self, game_id: int) -> None: ...

    # ------------------------------------------------------------------ games: play

    async def append_action(
        self,
        game_id: int,
        expected_version: int,
        action: str,
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
        message_ids: str | None = None,
    ) -> int: ...

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[str],
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
        message_ids: str | None = None,
    ) -> int: ...

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]: ...

    async def set_message_ids(self, game_id: int, message_ids: str) -> None: ...

    async def set_seats(self, game_id: int, seats: str) -> None: ...

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None: ...

    async def finish_game(
        self,
        game_id: int,
        *,
        winner_seat: int | None,
        totals: str,
        stopped: bool,
        expected_version: int | None = None,
    ) -> GameResult: ...

    # ------------------------------------------------------------------ games: the end

    async def expire_game(
        self,
        game_id: int,
        *,
        reason: str = "idle",
        totals: str | None = None,
        expected_version: int | None = None,
        expected_lobby_rev: int | None = None,
    ) -> Game: ...

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game: ...

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]: ...

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]: ...

    async def export_game(self, game_id: int) -> str: ...

    # ------------------------------------------------------------------ games: queries

    async def get_game(self, game_id: int) -> Game | None: ...

    async def active_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None: ...

    async def active_games(self, chat_id: int) -> list[Game]: ...

    async def game_by_lobby_code(self, code: str) -> Game | None: ...

    async def games_in_progress(self) -> list[Game]: ...

    async def last_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None: ...

    async def score_sheet(self, game_id: int) -> list[ScoreRow]: ...

    async def get_result(self, game_id: int) -> GameResult | None: ...

    # ------------------------------------------------------------------ stats and ratings

    async def record_game_result(
        self, game_id: int, seats: Sequence[SeatResult], rate: Rater | None = None
    ) -> bool: ...

    async def is_rated(self, game_id: int) -> bool: ...

    async def unrated_games(self) -> list[Game]: ...

    async def player_stats(self, player: str) -> PlayerStats | None: ...

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]: ...

    async def versus_computers(self, player: str) -> list[Versus]: ...

    # ------------------------------------------------------------------ coordination
    # Several bot processes on one database (``bot/tg/io/coord.py``, ``docs/deploy.md``).

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool: ...

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]: ...

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]: ...

    async def release_leases(self, owner: str) -> int: ...

    async def lease_owner(self, game_id: int) -> str | None: ...

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]: ...

    async def group_sent(self, chat_id: int, counted: float) -> None: ...

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]: ...

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None: ...

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str: ...

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None: ...

    async def prune_coordination(self, older_than: float) -> int: ...
