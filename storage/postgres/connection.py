"""The PostgreSQL connection pool (asyncpg) of one ``PostgresStorage``, and how asyncpg's
errors become ``storage.errors``.

Every write is one transaction (usually one statement) that either commits everything or
nothing: :meth:`Pool.tx` (one transaction on one pooled connection) or a single statement
(:meth:`Pool.fetch`, ``fetchrow``, ``fetchval``, ``update_one``).  The query objects
(``people``, ``games``, ``stats``, ``coord``) are given the ``Pool``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any, Final, cast

import asyncpg

from storage.base import Migration
from storage.checks import check_busy_timeout
from storage.errors import (
    NotFound,
    StorageBusy,
    StorageClosed,
    StorageDiskError,
    StorageError,
    StorageFailure,
    StorageOffline,
    StorageReadOnly,
)
from storage.handle import Handle, undone_on_failure
from storage.postgres.migrations import migrate

__all__ = [
    "DRIVER_ERRORS",
    "Connection",
    "Pool",
    "Record",
    "count",
    "failure",
    "redact",
    "unique",
]

Record = Any
"""An ``asyncpg.Record`` (asyncpg ships no type information)."""
Connection = Any
"""An ``asyncpg.Connection``."""

_URL_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)


async def session_kept(conn: Connection) -> None:
    """The pool's reset of a released connection: nothing sent.  asyncpg's default sends
    ``SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL`` on every release
    (a round trip after every statement and transaction) to undo session state that this
    storage never makes: its advisory locks are transaction-level
    (``pg_advisory_xact_lock``), it holds no cursor past a transaction, ``LISTEN``s only on
    the feed's own connection (``feed.py``, not pooled) and ``SET``s nothing (the settings
    are given at connect).  An open transaction is still rolled back: asyncpg's own
    ``_reset`` runs before this.  ``tests/storage/test_pg_session_state.py`` keeps it so."""


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    return _QUERY_PASSWORD.sub(r"\1***", _URL_PASSWORD.sub(r"\1***@", url))


# --------------------------------------------------------------------------- failures

_BUSY: Final = (
    asyncpg.exceptions.LockNotAvailableError,  # lock_timeout (= busy_timeout) ran out
    asyncpg.exceptions.TransactionRollbackError,  # serialization failure, deadlock
    asyncpg.exceptions.QueryCanceledError,  # statement_timeout, or cancelled by an admin
    # Another process migrated the schema under this pool's prepared statements (asyncpg
    # retries by itself outside a transaction; inside one, the retry is the caller's).
    asyncpg.exceptions.InvalidCachedStatementError,
    asyncpg.exceptions.OutdatedSchemaCacheError,
)
_OFFLINE: Final = (
    asyncpg.exceptions.PostgresConnectionError,  # class 08: lost, refused, does not exist
    asyncpg.exceptions.TooManyConnectionsError,
    asyncpg.exceptions.CannotConnectNowError,  # starting up / shutting down
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.IdleSessionTimeoutError,
    asyncpg.exceptions.IdleInTransactionSessionTimeoutError,
    ConnectionError,
    TimeoutError,
)
_DISK: Final = (
    asyncpg.exceptions.DiskFullError,
    asyncpg.exceptions.OutOfMemoryError,
    asyncpg.exceptions.PostgresSystemError,  # class 58: I/O error, undefined file
)
DRIVER_ERRORS: Final = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    OSError,
    TimeoutError,
)


def failure(error: BaseException, where: str) -> StorageFailure:
    """The ``StorageFailure`` subclass for an asyncpg (or socket) error.

    Transient (``StorageUnavailable``): ``StorageBusy`` for a lock wait that ran out, a
    serialization failure or deadlock, a prepared statement outdated by a migration;
    ``StorageOffline`` when the server cannot be reached (refused, lost, starting or
    shutting down, no connection slot left); ``StorageReadOnly`` for a read-only server (a
    standby); ``StorageDiskError`` for a full disk, out of memory or an I/O error.
    Anything else is a plain ``StorageFailure``.  ``code_name`` is the SQLSTATE, if any.
    """
    sqlstate = str(getattr(error, "sqlstate", "") or "")
    text = str(error) or type(error).__name__
    message = f"{where}: {text}" + (f" (SQLSTATE {sqlstate})" if sqlstate else "")
    cls: type[StorageFailure] = StorageFailure
    if isinstance(error, _BUSY):
        cls = StorageBusy
    elif isinstance(error, asyncpg.exceptions.ReadOnlySQLTransactionError):
        cls = StorageReadOnly
    elif isinstance(error, _DISK):
        cls = StorageDiskError
    elif isinstance(error, (*_OFFLINE, OSError)) or (
        isinstance(error, asyncpg.InterfaceError) and "closed" in text.lower()
    ):
        cls = StorageOffline
        message = f"{where}: the PostgreSQL server cannot be reached: {text}"
    return cls(message, code=None, code_name=sqlstate)


def unique(error: StorageError) -> str | None:
    """The constraint a unique violation broke, if ``error`` is one."""
    cause = error.__cause__
    if isinstance(cause, asyncpg.exceptions.UniqueViolationError):
        return str(getattr(cause, "constraint_name", "") or "")
    return None


def count(status: str) -> int:
    """The row count of a command status such as ``UPDATE 1``."""
    try:
        return int(status.rsplit(" ", 1)[-1])
    except ValueError:
        return 0


# --------------------------------------------------------------------------- the pool


class Pool(Handle):
    """The asyncpg pool, where the messages name it (``where``, without the password) and
    the clock of the storage."""

    def __init__(self, pool: Any, where: str, clock: Callable[[], float]) -> None:
        super().__init__(clock)
        self.pool = pool
        self.where = where

    @classmethod
    async def open(
        cls,
        url: str,
        clock: Callable[[], float],
        busy_timeout: float,
        migrations: Sequence[Migration],
        min_size: int,
        max_size: int,
        connect_timeout: float,
    ) -> Pool:
        """Connect (``busy_timeout`` is the server's ``lock_timeout``) and migrate."""
        check_busy_timeout(busy_timeout)
        where = redact(url)
        settings = {
            "application_name": "thousand",
            "lock_timeout": str(round(busy_timeout * 1000)),
            "timezone": "UTC",
        }
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                timeout=connect_timeout,
                server_settings=settings,
                reset=session_kept,
            )
        except DRIVER_ERRORS as e:
            raise failure(e, where) from e
        except ValueError as e:  # a malformed URL
            raise StorageFailure(f"{where}: {e}") from e
        async def terminate() -> None:
            pool.terminate()

        async with undone_on_failure(terminate, DRIVER_ERRORS, lambda e: failure(e, where)):
            await migrate(pool, where, migrations, clock)
        return cls(pool, where, clock)

    async def close(self) -> None:
        """Close the pool (idempotent); waits for the running operations to finish."""
        if self.closed:
            return
        self.closed = True
        await self.pool.close()

    @contextlib.asynccontextmanager
    async def conn(self) -> AsyncIterator[Connection]:
        """A pooled connection; asyncpg's errors leave as ``StorageFailure`` subclasses."""
        self.check_open()
        try:
            async with self.pool.acquire() as conn:
                yield conn
        except DRIVER_ERRORS as e:
            if self.closed and isinstance(e, asyncpg.InterfaceError):
                raise StorageClosed("storage is closed") from e
            raise failure(e, self.where) from e

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[tuple[Connection, float]]:
        """One transaction on one connection; yields it and the operation's time."""
        async with self.conn() as conn, conn.transaction():
            yield conn, self.now()

    async def fetch(self, sql: str, *args: object) -> list[Record]:
        async with self.conn() as conn:
            return cast(list[Record], await conn.fetch(sql, *args))

    async def fetchrow(self, sql: str, *args: object) -> Record:
        """The first row, or None."""
        async with self.conn() as conn:
            return await conn.fetchrow(sql, *args)

    async def fetchval(self, sql: str, *args: object) -> object:
        async with self.conn() as conn:
            return cast(object, await conn.fetchval(sql, *args))

    async def update_one(self, what: str, sql: str, *args: object) -> None:
        async with self.conn() as conn:
            status = await conn.execute(sql, *args)
        if count(str(status)) != 1:
            raise NotFound(what)
