"""The SQLite connection: one aiosqlite connection, its lock, and the transactions.

One :class:`Database` per process.  Every operation runs under its :class:`asyncio.Lock`,
so two coroutines never interleave statements on the connection; every write runs in one
explicit ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction that is rolled back on any error
(cancellation included), so an operation either writes everything or nothing.  An
operation that returned has been committed to the database file (``journal_mode=WAL``,
``synchronous=FULL``).

The query objects (``people``, ``games``, ``writer``, ``stats``, ``coord``) are given the
``Database`` and run their statements through it: :meth:`Database.read` and
:meth:`Database.write` (one trip to aiosqlite's thread a statement), or
:meth:`Database.transact` (a plain-sqlite3 function, the whole transaction in one trip).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import stat
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Concatenate, Final, ParamSpec, TypeVar, cast

import aiosqlite

from storage.base import Change, Migration
from storage.checks import check_busy_timeout
from storage.errors import (
    NotFound,
    StorageBusy,
    StorageDiskError,
    StorageFailure,
    StorageReadOnly,
)
from storage.feed import Fanout
from storage.handle import Handle, undone_on_failure
from storage.models import Pragmas
from storage.sqlite.migrations import migrate

__all__ = ["MEMORY", "Abandoned", "Database", "Params", "failure", "in_transaction"]

LOG = logging.getLogger(__name__)

MEMORY: Final = ":memory:"
"""Pass as the path to get a private in-memory database (for tests)."""

# SQLite's primary result codes (the low byte of an extended code).
_SQLITE_BUSY: Final = 5
_SQLITE_LOCKED: Final = 6
_SQLITE_READONLY: Final = 8
_SQLITE_IOERR: Final = 10
_SQLITE_FULL: Final = 13
_SQLITE_CANTOPEN: Final = 14

_T = TypeVar("_T")
_A = TypeVar("_A")
_P = ParamSpec("_P")

Params = Sequence[object]


# --------------------------------------------------------------------------- failures


def failure(error: sqlite3.Error | OSError, path: str) -> StorageFailure:
    """The ``StorageFailure`` subclass for an ``sqlite3.Error`` (or ``OSError``).

    Transient (``StorageUnavailable``): busy/locked, read-only, I/O error, disk full,
    cannot open.  Anything else (corruption, a bug) is a plain ``StorageFailure``.
    """
    if isinstance(error, OSError):
        return StorageDiskError(f"{path}: {error}")
    code = getattr(error, "sqlite_errorcode", None)
    name = str(getattr(error, "sqlite_errorname", "") or "")
    text = str(error)
    message = f"{path}: {text}" + (f" ({name})" if name else "")
    primary = code & 0xFF if isinstance(code, int) else None
    lowered = text.lower()
    cls: type[StorageFailure] = StorageFailure
    if primary in (_SQLITE_BUSY, _SQLITE_LOCKED) or (
        primary is None and "database is locked" in lowered
    ):
        cls = StorageBusy
    elif primary == _SQLITE_READONLY or (primary is None and "readonly database" in lowered):
        cls = StorageReadOnly
    elif primary in (_SQLITE_IOERR, _SQLITE_FULL, _SQLITE_CANTOPEN) or (
        primary is None and ("disk i/o error" in lowered or "database or disk is full" in lowered)
    ):
        cls = StorageDiskError
    return cls(message, code=code if isinstance(code, int) else None, code_name=name)


# --------------------------------------------------------------------------- permissions


def _is_file_path(path: str) -> bool:
    return path not in (MEMORY, "")


def _make_private(path: str) -> None:
    """Create the database file 0600 if it is missing; take group/other bits off it and its
    -wal/-shm/-journal files if it exists (SQLite gives -wal/-shm the main file's mode).

    Raises ``OSError`` if the file cannot be created; a file that is not ours to chmod is
    logged and left as it is (SQLite then decides whether it can be used).
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        os.close(fd)
    for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        try:
            mode = stat.S_IMODE(os.stat(name).st_mode)
            if mode & 0o077:
                os.chmod(name, mode & ~0o077)
        except FileNotFoundError:
            continue
        except PermissionError as e:
            LOG.warning("%s: cannot make it private (owner-only): %s", name, e)


# --------------------------------------------------------------------------- on the thread


class Abandoned(Exception):
    """The caller was cancelled before COMMIT: the transaction is rolled back."""


def in_transaction(
    conn: sqlite3.Connection,
    abandoned: Callable[[], bool],
    body: Callable[[sqlite3.Connection], _T],
) -> _T:
    """``body(conn)`` in ``BEGIN IMMEDIATE`` ... ``COMMIT``, on aiosqlite's thread; rolled
    back on any error, and instead of the COMMIT when ``abandoned()`` says so."""
    if abandoned():
        raise Abandoned
    conn.execute("BEGIN IMMEDIATE")
    try:
        result = body(conn)
        if abandoned():
            raise Abandoned
        conn.execute("COMMIT")
    except BaseException as e:
        try:
            conn.rollback()  # a no-op if COMMIT itself failed and ended the transaction
        except sqlite3.Error:
            LOG.error("rollback failed after %r", e, exc_info=True)
        raise
    return result


def _commit(conn: sqlite3.Connection, then: Callable[[_A], None], arg: _A) -> None:
    """``COMMIT``, then ``then(arg)`` (on aiosqlite's thread)."""
    conn.execute("COMMIT")
    then(arg)


# --------------------------------------------------------------------------- the connection


class Database(Handle):
    """The aiosqlite connection of one ``Storage``, with its lock and clock, and the feed
    its writes publish their changes to once committed (``changed``)."""

    def __init__(
        self, conn: aiosqlite.Connection, path: str, clock: Callable[[], float]
    ) -> None:
        super().__init__(clock)
        self.conn = conn
        self.path = path
        self.lock = asyncio.Lock()
        self.feed = Fanout()
        self._changes: list[Change] = []  # of the transaction under the lock

    def changed(self, game_id: int, version: int) -> None:
        """Inside ``write()`` or ``transact()`` (also from the function on the thread): the
        game is at ``version`` once this transaction commits.  Told to the feed right after
        the COMMIT (``_tell_committed``), before the lock is free, so in commit order;
        dropped if the transaction does not commit."""
        self._changes.append(Change(game_id, version))

    def _tell_committed(self, loop: asyncio.AbstractEventLoop) -> None:
        """On aiosqlite's thread, right after a COMMIT: the transaction's changes go to the
        feed in the loop's next step (queued before the answer that frees the lock)."""
        changes, self._changes = self._changes, []
        if changes:
            with contextlib.suppress(RuntimeError):  # a closed loop: no one is listening
                loop.call_soon_threadsafe(self._publish, changes)

    def _publish(self, changes: list[Change]) -> None:
        for change in changes:
            self.feed.publish(change)

    @classmethod
    async def open(
        cls,
        path: str,
        clock: Callable[[], float],
        busy_timeout: float,
        migrations: Sequence[Migration],
    ) -> Database:
        """Connect (creating the file owner-only), switch to WAL and migrate."""
        check_busy_timeout(busy_timeout)
        try:
            if _is_file_path(path):
                _make_private(path)
            db = await aiosqlite.connect(path, isolation_level=None, timeout=busy_timeout)
        except (sqlite3.Error, OSError) as e:
            raise failure(e, path) from e
        async with undone_on_failure(db.close, sqlite3.Error, lambda e: failure(e, path)):
            db.row_factory = sqlite3.Row
            # Pragmas that cannot change inside a transaction: set them first.
            async with db.execute("PRAGMA journal_mode=WAL") as cur:
                row = await cur.fetchone()
            mode = str(row[0]).lower() if row is not None else ""
            if mode != "wal" and not (path == MEMORY and mode == "memory"):
                raise StorageFailure(f"{path}: cannot switch to WAL (journal_mode is {mode!r})")
            await db.execute("PRAGMA synchronous=FULL")
            # Migrations run with foreign keys off (a table rebuild must not cascade) and
            # check them before each commit; then they are on for good.
            await db.execute("PRAGMA foreign_keys=OFF")
            await migrate(db, path, migrations)
            await db.execute("PRAGMA foreign_keys=ON")
        return cls(db, path, clock)

    async def close(self) -> None:
        """Close the connection (idempotent); waits for the running operation to finish."""
        if self.closed:
            return
        async with self.lock:
            self.closed = True
            await self.conn.close()

    async def pragmas(self) -> Pragmas:
        """Read back the connection's settings (journal mode, foreign keys, ...)."""
        async with self.read():
            values: list[object] = []
            for name in ("journal_mode", "foreign_keys", "synchronous", "busy_timeout"):
                values.append(await self.scalar(f"PRAGMA {name}"))
            version = await self.scalar("PRAGMA user_version")
        return Pragmas(
            journal_mode=str(values[0]),
            foreign_keys=bool(values[1]),
            synchronous=int(cast(int, values[2])),
            busy_timeout_ms=int(cast(int, values[3])),
            user_version=int(cast(int, version)),
        )

    # ------------------------------------------------------------------ transactions

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[None]:
        """The lock, for reads; ``sqlite3`` errors leave as ``StorageFailure``."""
        async with self.lock:
            self.check_open()
            try:
                yield
            except sqlite3.Error as e:
                raise failure(e, self.path) from e

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[float]:
        """One ``BEGIN IMMEDIATE`` ... ``COMMIT`` transaction; yields its time."""
        async with self.lock:
            self.check_open()
            try:
                # Inside the try: if we are cancelled while BEGIN is queued it still runs
                # in aiosqlite's thread, and the rollback below (queued after it) undoes it.
                await self.conn.execute("BEGIN IMMEDIATE")
                yield self.now()
                await self.on_thread(_commit, self._tell_committed, asyncio.get_running_loop())
            except BaseException as e:
                try:
                    await self.rollback(e)  # (queued after a COMMIT in flight: waits for it)
                finally:
                    self._changes.clear()  # not committed (a COMMIT that ran told them)
                if isinstance(e, sqlite3.Error):
                    raise failure(e, self.path) from e
                raise

    async def transact(
        self,
        body: Callable[Concatenate[sqlite3.Connection, float, _P], _T],
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> _T:
        """``body(conn, now, *args, **kwargs)`` in one ``BEGIN IMMEDIATE`` ... ``COMMIT``
        transaction, all of it ONE function run on aiosqlite's thread (one trip, where
        ``write`` makes one per statement); rolled back there on any error.

        ``body`` is plain ``sqlite3`` code: it must not touch the event loop.  If the caller
        is cancelled meanwhile, the function is told to roll back instead of committing
        (unless COMMIT ran already) and the lock is kept until it ended, as ``write`` does.
        """
        async with self.lock:
            self.check_open()
            now = self.now()
            abandoned = threading.Event()
            loop = asyncio.get_running_loop()

            def run(conn: sqlite3.Connection) -> _T:
                return body(conn, now, *args, **kwargs)

            def run_and_tell(conn: sqlite3.Connection) -> _T:
                result = in_transaction(conn, abandoned.is_set, run)
                self._tell_committed(loop)
                return result

            try:
                return await self.on_thread(run_and_tell)
            except BaseException as e:
                try:
                    if not isinstance(e, Exception):  # cancelled: the function may still run
                        abandoned.set()
                        await self.rollback(e)  # queued after it: waits for its end
                finally:
                    self._changes.clear()  # not committed (a COMMIT that ran told them)
                if isinstance(e, sqlite3.Error):
                    raise failure(e, self.path) from e
                raise

    async def on_thread(
        self, fn: Callable[Concatenate[sqlite3.Connection, _P], _T],
        *args: _P.args, **kwargs: _P.kwargs,
    ) -> _T:
        """``fn(conn, *args, **kwargs)`` on aiosqlite's thread, with its sqlite3 connection.

        aiosqlite (0.22) has no public call for this: ``Connection._execute(fn, ...)``
        queues a function to the connection's thread (every public method is built on it)
        and ``Connection._conn`` is the ``sqlite3.Connection``.  Both are private, pinned by
        ``tests/storage/test_one_transaction.py`` (which fails if they change).
        """
        db = self.conn
        execute = cast(Callable[..., Awaitable[_T]], db._execute)
        return await execute(fn, db._conn, *args, **kwargs)

    async def rollback(self, error: BaseException) -> None:
        """Roll back and wait for it even if cancelled again (the lock is still held)."""
        task = asyncio.ensure_future(self.conn.rollback())  # a no-op outside a transaction
        cancelled = False
        while not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                if task.done():
                    break
                cancelled = True
            except Exception:
                break
        if not task.cancelled() and task.exception() is not None:
            LOG.error("rollback failed after %r", error, exc_info=task.exception())
        if cancelled and not isinstance(error, asyncio.CancelledError):
            raise asyncio.CancelledError from error

    # ------------------------------------------------------------------ statements
    # Under ``read()`` or ``write()``: one trip to aiosqlite's thread each.

    async def execute(self, sql: str, params: Params) -> int:
        """Run a statement; returns its row count."""
        async with self.conn.execute(sql, params) as cur:
            return cur.rowcount

    async def insert(self, sql: str, params: Params) -> int:
        """Run an INSERT; returns the new row's id."""
        async with self.conn.execute(sql, params) as cur:
            rowid = cur.lastrowid
        assert rowid is not None
        return rowid

    async def update_one(self, what: str, sql: str, params: Params) -> None:
        """Run an UPDATE that must change one row, else ``NotFound(what)``."""
        if await self.execute(sql, params) != 1:
            raise NotFound(what)

    async def fetchone(self, sql: str, params: Params) -> sqlite3.Row | None:
        async with self.conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def fetchall(self, sql: str, params: Params) -> list[sqlite3.Row]:
        return list(await self.conn.execute_fetchall(sql, params))

    async def scalar(self, sql: str) -> object:
        row = await self.fetchone(sql, ())
        return None if row is None else cast(object, row[0])
