"""The PostgreSQL backend (asyncpg), behind the same interface as the SQLite one.

One :class:`PostgresStorage` holds an asyncpg connection pool (``Pool``,
``connection.py``); several processes may share one database.  Every write is one
transaction (usually one statement) that either commits everything or nothing; the rules
that SQLite gets from its single writer come from the database here: a version-checked
``UPDATE ... WHERE version = $n AND status = 'playing'`` for a move (two processes
appending the same version: one wins, the other gets ``VersionConflict``), ``SELECT ...
FOR UPDATE`` of the game row for the other game writes, the unique indexes for "one active
game per chat" and lobby codes, and an advisory lock for the rating step.  Errors are the
same ``storage.errors`` as SQLite's; asyncpg's are mapped by ``connection.failure``
(``docs/storage.md``).

``PostgresStorage`` is the facade (``storage.facade.Backend``) over one object per role,
each given the ``Pool``: ``People`` (chats and users, ``people.py``), ``Games`` (lobby,
end, queries, export; ``games.py``), ``MoveWriter`` (the moves, ``writer.py``), ``Stats``
(results and ratings, ``stats.py``) and ``Coordination`` (leases, group budget, send-once
messages; ``coord.py``), and the ``ChangeFeed`` (``feed.py``: a ``LISTEN`` connection of its
own); it adds only how to connect and ``schema_version()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from storage.base import Migration, Opening
from storage.facade import Backend
from storage.handle import undone_on_failure
from storage.postgres.connection import DRIVER_ERRORS, Pool, failure
from storage.postgres.coord import Coordination
from storage.postgres.feed import NOTE_SQL, ChangeFeed
from storage.postgres.games import Games
from storage.postgres.people import People
from storage.postgres.schema import PG_MIGRATIONS, SCHEMA_TABLE
from storage.postgres.stats import Stats
from storage.postgres.writer import MoveWriter

__all__ = ["PostgresStorage"]


class PostgresStorage(Backend):
    """The storage on PostgreSQL.  ``await PostgresStorage.open(url)`` or
    ``async with PostgresStorage.open(url) as s``; every method behaves as the SQLite
    ``Storage``'s."""

    def __init__(self, pg: Pool, feed: ChangeFeed) -> None:
        self._pg = pg
        self._pool: Any = pg.pool  # the asyncpg pool, for tests that inspect the database

        async def close() -> None:
            await feed.close()
            await pg.close()

        super().__init__(
            games=Games(pg), moves=MoveWriter(pg), people=People(pg), stats=Stats(pg),
            coord=Coordination(pg), feed=feed, close=close,
        )

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def open(
        cls,
        url: str,
        *,
        clock: Callable[[], float] = time.time,
        busy_timeout: float = 5.0,
        migrations: Sequence[Migration] = PG_MIGRATIONS,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
    ) -> Opening[PostgresStorage]:
        """Connect to the database at ``url`` (``postgresql://user:pw@host:port/db``) and
        apply the pending migrations.

        ``busy_timeout`` is the server's ``lock_timeout``: how long a statement waits for
        another transaction's lock before ``StorageBusy``.  ``min_size``/``max_size`` bound
        the pool.  Raises ``StorageOffline`` when the server cannot be reached,
        ``SchemaTooNew`` for a database migrated by a newer program.
        """
        return Opening(
            lambda: cls._open(
                url, clock, busy_timeout, migrations, min_size, max_size, connect_timeout
            )
        )

    @classmethod
    async def _open(
        cls,
        url: str,
        clock: Callable[[], float],
        busy_timeout: float,
        migrations: Sequence[Migration],
        min_size: int,
        max_size: int,
        connect_timeout: float,
    ) -> PostgresStorage:
        pg = await Pool.open(
            url, clock, busy_timeout, migrations, min_size, max_size, connect_timeout
        )
        async with undone_on_failure(pg.close, DRIVER_ERRORS, lambda e: failure(e, pg.where)):
            feed = await ChangeFeed.open(
                url, pg.where, connect_timeout,
                send=lambda note: pg.fetchval(NOTE_SQL, note))
        return cls(pg, feed)

    async def schema_version(self) -> int:
        """The schema version of the database (the highest applied migration)."""
        value = await self._pg.fetchval(f"SELECT COALESCE(max(version), 0) FROM {SCHEMA_TABLE}")
        return int(cast(int, value))
