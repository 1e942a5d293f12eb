"""The SQLite backend: :class:`Storage`, the facade (``storage.facade.Backend``) over the
SQLite roles.

``Database`` (``connection.py``) owns the aiosqlite connection, its lock and the
transactions; the role objects are given it: ``People`` (chats and users,
``people.py``), ``Games`` (lobby, end, queries, export; ``games.py``), ``MoveWriter``
(the moves, with group commit; ``writer.py``), ``Stats`` (results and ratings;
``stats.py``) and ``Coordination`` (leases, group budget, send-once messages;
``coord.py``); the feed is the ``Database``'s (``storage.feed.Fanout``: one process, in
memory, told after each COMMIT).  ``Storage`` adds only how to open the database and
SQLite's extras (``path``, ``pragmas()``).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

import aiosqlite

from storage.base import Migration, Opening
from storage.facade import Backend
from storage.models import Pragmas
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


class Storage(Backend):
    """The storage on SQLite.  Create it with ``await Storage.open(path)`` or
    ``async with Storage.open(path) as s``."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._moves = MoveWriter(database)
        super().__init__(
            games=Games(database), moves=self._moves, people=People(database),
            stats=Stats(database), coord=Coordination(database), feed=database.feed,
            close=database.close,
        )
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
