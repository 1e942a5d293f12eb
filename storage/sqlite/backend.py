"""The SQLite backend: :class:`Storage`, composed of one object per concern.

``Database`` (``connection.py``) owns the aiosqlite connection, its lock and the
transactions; the query objects are given it: ``People`` (chats and users,
``people.py``), ``Games`` (lobby, end, queries, export; ``games.py``), ``MoveWriter``
(``append_action`` with group commit; ``writer.py``), ``Stats`` (results and ratings;
``stats.py``) and ``Coordination`` (leases, group budget, send-once messages;
``coord.py``).  ``Storage`` is the ``storage.base.Backend`` they make together; each
method's documentation is on the object that does the work.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Concatenate, ParamSpec, Self, TypeVar

import aiosqlite

from storage.base import Migration, Opening, Rater
from storage.models import (
    Chat,
    ChatKind,
    Game,
    GameResult,
    Language,
    Outcome,
    PlayerStats,
    Pragmas,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)
from storage.sqlite.connection import Database
from storage.sqlite.coord import Coordination
from storage.sqlite.games import Games
from storage.sqlite.people import People
from storage.sqlite.schema import MIGRATIONS
from storage.sqlite.stats import Stats
from storage.sqlite.writer import MoveWriter

__all__ = ["Storage"]

_T = TypeVar("_T")
_P = ParamSpec("_P")


class Storage:
    """The repository of chats, users, games, their action logs, score sheets and results.

    Create it with ``await Storage.open(path)`` or ``async with Storage.open(path) as s``.
    """

    def __init__(self, database: Database) -> None:
        self._database = database
        self._people = People(database)
        self._games = Games(database)
        self._moves = MoveWriter(database)
        self._stats = Stats(database)
        self._coord = Coordination(database)
        # The connection and its lock, for tests that watch or hold them.
        self._db: aiosqlite.Connection = database.conn
        self._lock = database.lock

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = 5.0,
        migrations: Sequence[Migration] = MIGRATIONS,
    ) -> Opening[Storage]:
        """Open (creating and migrating) the database at ``path``; ``MEMORY`` for a private one.

        ``clock`` gives the created/updated times (epoch seconds); ``busy_timeout`` is how
        long to wait for another connection's write lock; ``migrations`` is for tests.
        """
        return Opening(lambda: cls._open(os.fspath(path), clock, busy_timeout, migrations))

    @classmethod
    async def _open(
        cls,
        path: str,
        clock: Callable[[], float],
        busy_timeout: float,
        migrations: Sequence[Migration],
    ) -> Storage:
        return cls(await Database.open(path, clock, busy_timeout, migrations))

    async def close(self) -> None:
        """Close the connection (idempotent); waits for the running operation to finish."""
        await self._database.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    @property
    def path(self) -> str:
        return self._database.path

    async def pragmas(self) -> Pragmas:
        """Read back the connection's settings (journal mode, foreign keys, ...)."""
        return await self._database.pragmas()

    async def _on_thread(
        self, fn: Callable[Concatenate[sqlite3.Connection, _P], _T],
        *args: _P.args, **kwargs: _P.kwargs,
    ) -> _T:
        """``Database.on_thread`` (for the test that pins aiosqlite's private calls)."""
        return await self._database.on_thread(fn, *args, **kwargs)

    # ------------------------------------------------------------------ chats

    async def upsert_chat(
        self, chat_id: int, kind: ChatKind, *, language: Language = "ru"
    ) -> Chat:
        return await self._people.upsert_chat(chat_id, kind, language=language)

    async def get_chat(self, chat_id: int) -> Chat | None:
        return await self._people.get_chat(chat_id)

    async def set_chat_language(self, chat_id: int, language: Language) -> None:
        await self._people.set_chat_language(chat_id, language)

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None:
        await self._people.set_default_rules(chat_id, rules)

    async def migrate_chat(self, old_id: int, new_id: int) -> bool:
        return await self._people.migrate_chat(old_id, new_id)

    # ------------------------------------------------------------------ users

    async def upsert_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        *,
        language: Language | None = None,
    ) -> User:
        return await self._people.upsert_user(user_id, first_name, username, language=language)

    async def get_user(self, user_id: int) -> User | None:
        return await self._people.get_user(user_id)

    async def set_user_language(self, user_id: int, language: Language | None) -> None:
        await self._people.set_user_language(user_id, language)

    async def mark_started(self, user_id: int) -> None:
        await self._people.mark_started(user_id)

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None:
        await self._people.mark_blocked(user_id, blocked)

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
    ) -> int:
        return await self._games.create_game(
            chat_id, creator_id, rules=rules, seed=seed, seats=seats, lobby_code=lobby_code,
            deadline=deadline, thread_id=thread_id,
        )

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int:
        return await self._games.update_lobby(game_id, expected_lobby_rev, seats=seats, rules=rules)

    async def start_game(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        snapshot: str,
        deadline: float | None,
        seats: str | None = None,
        rules: str | None = None,
    ) -> None:
        await self._games.start_game(
            game_id, expected_lobby_rev, snapshot=snapshot, deadline=deadline, seats=seats,
            rules=rules,
        )

    async def cancel_lobby(self, game_id: int) -> None:
        await self._games.cancel_lobby(game_id)

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
    ) -> int:
        return await self._moves.append_action(
            game_id, expected_version, action, snapshot, deadline=deadline, sheet_rows=sheet_rows,
            outcome=outcome, human=human, message_ids=message_ids,
        )

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
    ) -> int:
        return await self._moves.append_actions(
            game_id, expected_version, actions, snapshot, deadline=deadline,
            sheet_rows=sheet_rows, outcome=outcome, human=human, message_ids=message_ids,
        )

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        return await self._games.actions(game_id, after=after)

    async def set_message_ids(self, game_id: int, message_ids: str) -> None:
        await self._games.set_message_ids(game_id, message_ids)

    async def set_seats(self, game_id: int, seats: str) -> None:
        await self._games.set_seats(game_id, seats)

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        await self._games.set_deadline(game_id, deadline, expected_version=expected_version)

    async def finish_game(
        self,
        game_id: int,
        *,
        winner_seat: int | None,
        totals: str,
        stopped: bool,
        expected_version: int | None = None,
    ) -> GameResult:
        return await self._games.finish_game(
            game_id, winner_seat=winner_seat, totals=totals, stopped=stopped,
            expected_version=expected_version,
        )

    # ------------------------------------------------------------------ games: the end

    async def expire_game(
        self,
        game_id: int,
        *,
        reason: str = "idle",
        totals: str | None = None,
        expected_version: int | None = None,
        expected_lobby_rev: int | None = None,
    ) -> Game:
        return await self._games.expire_game(
            game_id, reason=reason, totals=totals, expected_version=expected_version,
            expected_lobby_rev=expected_lobby_rev,
        )

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game:
        return await self._games.mark_broken(game_id, reason, expected_version=expected_version)

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        return await self._games.idle_lobbies(idle_for, now=now)

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        return await self._games.idle_games(idle_for, now=now)

    async def export_game(self, game_id: int) -> str:
        return await self._games.export_game(game_id)

    # ------------------------------------------------------------------ games: queries

    async def get_game(self, game_id: int) -> Game | None:
        return await self._games.get_game(game_id)

    async def active_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        return await self._games.active_game(chat_id, thread_id=thread_id)

    async def active_games(self, chat_id: int) -> list[Game]:
        return await self._games.active_games(chat_id)

    async def game_by_lobby_code(self, code: str) -> Game | None:
        return await self._games.game_by_lobby_code(code)

    async def games_in_progress(self) -> list[Game]:
        return await self._games.games_in_progress()

    async def last_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None:
        return await self._games.last_game(chat_id, thread_id=thread_id)

    async def score_sheet(self, game_id: int) -> list[ScoreRow]:
        return await self._games.score_sheet(game_id)

    async def get_result(self, game_id: int) -> GameResult | None:
        return await self._games.get_result(game_id)

    # ------------------------------------------------------------------ stats and ratings

    async def record_game_result(
        self, game_id: int, seats: Sequence[SeatResult], rate: Rater | None = None
    ) -> bool:
        return await self._stats.record_game_result(game_id, seats, rate)

    async def is_rated(self, game_id: int) -> bool:
        return await self._stats.is_rated(game_id)

    async def unrated_games(self) -> list[Game]:
        return await self._stats.unrated_games()

    async def player_stats(self, player: str) -> PlayerStats | None:
        return await self._stats.player_stats(player)

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]:
        return await self._stats.chat_top(chat_id, limit=limit)

    async def versus_computers(self, player: str) -> list[Versus]:
        return await self._stats.versus_computers(player)

    # ------------------------------------------------------------------ coordination
    # Several bot processes on one database (``bot/tg/io/coord.py``, ``docs/deploy.md``).

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool:
        return await self._coord.take_lease(game_id, owner, ttl, force=force)

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]:
        return await self._coord.renew_leases(owner, ttl)

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]:
        return await self._coord.claim_expired_leases(owner, ttl, limit=limit)

    async def release_leases(self, owner: str) -> int:
        return await self._coord.release_leases(owner)

    async def lease_owner(self, game_id: int) -> str | None:
        return await self._coord.lease_owner(game_id)

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]:
        return await self._coord.group_send(chat_id, limit, window)

    async def group_sent(self, chat_id: int, counted: float) -> None:
        await self._coord.group_sent(chat_id, counted)

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]:
        return await self._coord.claim_message(chat_id, slot, owner, stale_after=stale_after)

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str:
        return await self._coord.begin_edit(game_id, chat_id, slot, owner, digest,
                                            busy_for=busy_for)

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None:
        await self._coord.end_edit(chat_id, slot, owner, shown)

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        await self._coord.message_sent(chat_id, slot, message_id)

    async def prune_coordination(self, older_than: float) -> int:
        return await self._coord.prune_coordination(older_than)

