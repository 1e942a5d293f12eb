"""The PostgreSQL repository (asyncpg), behind the same interface as the SQLite one.

One :class:`PostgresStorage` holds an asyncpg connection pool (``self._pool``); several
processes may share one database.  Every write is one transaction (usually one statement)
that either commits everything or nothing; the rules that SQLite gets from its single
writer come from the database here: a version-checked ``UPDATE ... WHERE version = $n AND
status = 'playing'`` for a move (two processes appending the same version: one wins, the
other gets ``VersionConflict``), ``SELECT ... FOR UPDATE`` of the game row for the other
game writes, the unique indexes for "one active game per chat" and lobby codes, and an
advisory lock for the rating step.  Errors are the same ``storage.errors`` as SQLite's;
asyncpg's are mapped by :func:`_failure` (``docs/storage.md``).
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from types import TracebackType
from typing import Any, Final, Self, cast

import asyncpg

from storage.base import Opening, Rater, RatingPair
from storage.errors import (
    ActiveGameConflict,
    LobbyCodeTaken,
    NotFound,
    SchemaTooNew,
    StatusConflict,
    StorageBusy,
    StorageClosed,
    StorageDiskError,
    StorageError,
    StorageFailure,
    StorageOffline,
    StorageReadOnly,
    VersionConflict,
)
from storage.models import (
    ACTIVE_STATUSES,
    CHAT_KINDS,
    LANGUAGES,
    Chat,
    ChatKind,
    Game,
    GameResult,
    GameStatus,
    Language,
    Outcome,
    PlayerStats,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)
from storage.pg_schema import (
    CREATE_SCHEMA_TABLE,
    PG_MIGRATIONS,
    RATING_LOCK,
    SCHEMA_LOCK,
    SCHEMA_TABLE,
)
from storage.schema import Migration
from storage.sqlite import (
    _STATS_COLUMNS,
    _chat,
    _check_outcome,
    _choice,
    _game,
    _int64,
    _json,
    _reason,
    _record,
    _result,
    _score_row,
    _stats,
    _time,
    _user,
)

__all__ = ["PostgresStorage", "redact"]

LOG = logging.getLogger(__name__)

Record = Any
"""An ``asyncpg.Record`` (asyncpg ships no type information)."""
Connection = Any
"""An ``asyncpg.Connection``."""

_GAME_COLUMNS: Final = (
    "game_id, chat_id, status, creator_id, created, updated, rules, seed, seats, version,"
    " lobby_rev, snapshot, message_ids, deadline, lobby_code, human_moved, reason"
)
_ACTIVE_SQL: Final = "status IN ('lobby', 'playing')"

# A move in one statement: the version-checked UPDATE of the game, the action (seq = the new
# version), the score-sheet rows and, for the last move, the result.  When the UPDATE
# matches no row nothing is written, and the last SELECT tells why (its snapshot is the
# statement's start, so it shows the game as the UPDATE found it).
_APPEND_SQL: Final = """
WITH g AS (
    UPDATE games SET
        version = version + 1,
        snapshot = $4::text,
        updated = $6::double precision,
        deadline = CASE WHEN $10::boolean THEN NULL ELSE $5::double precision END,
        human_moved = CASE WHEN $7::boolean THEN $6::double precision ELSE human_moved END,
        status = CASE WHEN $10::boolean THEN $11::text ELSE status END,
        lobby_code = CASE WHEN $10::boolean THEN NULL ELSE lobby_code END
    WHERE game_id = $1::bigint AND version = $2::integer AND status = 'playing'
    RETURNING game_id, version
), a AS (
    INSERT INTO game_actions (game_id, seq, action, created)
    SELECT game_id, version, $3::text, $6::double precision FROM g
), s AS (
    INSERT INTO score_sheets (game_id, deal_no, data, created, seq)
    SELECT g.game_id, r.deal_no, r.data, $6::double precision, g.version
    FROM g, unnest($8::bigint[], $9::text[]) AS r (deal_no, data)
    ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data
), r AS (
    INSERT INTO results (game_id, finished, winner_seat, totals, stopped)
    SELECT game_id, $6::double precision, $12::bigint, $13::text, $14::boolean
    FROM g WHERE $10::boolean
)
SELECT (SELECT version FROM g) AS new_version, status, version
FROM games WHERE game_id = $1::bigint
"""

_URL_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


_QUERY_PASSWORD = re.compile(r"([?&]password=)[^&]*", re.IGNORECASE)


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
_DRIVER_ERRORS: Final = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    OSError,
    TimeoutError,
)


def _failure(error: BaseException, where: str) -> StorageFailure:
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


def _unique(error: StorageError) -> str | None:
    """The constraint a unique violation broke, if ``error`` is one."""
    cause = error.__cause__
    if isinstance(cause, asyncpg.exceptions.UniqueViolationError):
        return str(getattr(cause, "constraint_name", "") or "")
    return None


def _count(status: str) -> int:
    """The row count of a command status such as ``UPDATE 1``."""
    try:
        return int(status.rsplit(" ", 1)[-1])
    except ValueError:
        return 0


# --------------------------------------------------------------------------- storage


class PostgresStorage:
    """The repository on PostgreSQL.  ``await PostgresStorage.open(url)`` or
    ``async with PostgresStorage.open(url) as s``; every method behaves as the SQLite
    ``Storage``'s (``storage.base.Backend``)."""

    def __init__(self, pool: Any, where: str, clock: Callable[[], float]) -> None:
        self._pool = pool
        self._where = where
        self._clock = clock
        self._closed = False

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
        _time("busy_timeout", busy_timeout)
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout must be >= 0, got {busy_timeout}")
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
            )
        except _DRIVER_ERRORS as e:
            raise _failure(e, where) from e
        except ValueError as e:  # a malformed URL
            raise StorageFailure(f"{where}: {e}") from e
        try:
            await _migrate(pool, where, migrations, clock)
        except BaseException as e:
            pool.terminate()
            if isinstance(e, _DRIVER_ERRORS):
                raise _failure(e, where) from e
            raise
        return cls(pool, where, clock)

    async def close(self) -> None:
        """Close the pool (idempotent); waits for the running operations to finish."""
        if self._closed:
            return
        self._closed = True
        await self._pool.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def schema_version(self) -> int:
        """The schema version of the database (the highest applied migration)."""
        value = await self._fetchval(f"SELECT COALESCE(max(version), 0) FROM {SCHEMA_TABLE}")
        return int(cast(int, value))

    # ------------------------------------------------------------------ chats

    async def upsert_chat(self, chat_id: int, kind: ChatKind, *, language: Language = "ru") -> Chat:
        _int64("chat_id", chat_id)
        _choice("kind", kind, CHAT_KINDS)
        _choice("language", language, LANGUAGES)
        now = float(self._clock())
        row = await self._fetchrow(
            "INSERT INTO chats (chat_id, kind, language, created, updated)"
            " VALUES ($1, $2, $3, $4, $4)"
            " ON CONFLICT (chat_id) DO UPDATE SET kind = excluded.kind,"
            " updated = excluded.updated RETURNING *",
            chat_id, kind, language, now,
        )
        return _chat(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        _int64("chat_id", chat_id)
        row = await self._fetchrow("SELECT * FROM chats WHERE chat_id = $1", chat_id)
        return None if row is None else _chat(row)

    async def set_chat_language(self, chat_id: int, language: Language) -> None:
        _choice("language", language, LANGUAGES)
        await self._update_one(
            f"chat {chat_id}",
            "UPDATE chats SET language = $1, updated = $2 WHERE chat_id = $3",
            language, float(self._clock()), _int64("chat_id", chat_id),
        )

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None:
        if rules is not None:
            _json("rules", rules)
        await self._update_one(
            f"chat {chat_id}",
            "UPDATE chats SET default_rules = $1, updated = $2 WHERE chat_id = $3",
            rules, float(self._clock()), _int64("chat_id", chat_id),
        )

    async def migrate_chat(self, old_id: int, new_id: int) -> bool:
        _int64("old_id", old_id)
        _int64("new_id", new_id)
        if old_id == new_id:
            raise ValueError("old_id and new_id are the same")
        try:
            async with self._tx() as (conn, now):
                old = await conn.fetchrow(
                    "SELECT * FROM chats WHERE chat_id = $1 FOR UPDATE", old_id
                )
                if old is None:
                    return False
                if await _active_game(conn, old_id) is not None:
                    blocking = await _active_game(conn, new_id)
                    if blocking is not None:
                        raise ActiveGameConflict(new_id, blocking.game_id)
                await conn.execute(
                    "INSERT INTO chats (chat_id, kind, language, default_rules, created, updated)"
                    " VALUES ($1, 'supergroup', $2, $3, $4, $5)"
                    " ON CONFLICT (chat_id) DO UPDATE SET kind = 'supergroup',"
                    " language = excluded.language,"
                    " default_rules = COALESCE(excluded.default_rules, chats.default_rules),"
                    " updated = excluded.updated",
                    new_id, old["language"], old["default_rules"], old["created"], now,
                )
                await conn.execute(
                    "UPDATE games SET chat_id = $1, updated = $2 WHERE chat_id = $3",
                    new_id, now, old_id,
                )
                await conn.execute("DELETE FROM chats WHERE chat_id = $1", old_id)
        except StorageFailure as e:
            if _unique(e) == "games_one_active_per_chat":  # a game was created meanwhile
                blocking = await self.active_game(new_id)
                raise ActiveGameConflict(new_id, blocking.game_id if blocking else 0) from e
            raise
        return True

    # ------------------------------------------------------------------ users

    async def upsert_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        *,
        language: Language | None = None,
    ) -> User:
        _int64("user_id", user_id)
        if language is not None:
            _choice("language", language, LANGUAGES)
        now = float(self._clock())
        row = await self._fetchrow(
            "INSERT INTO users (user_id, first_name, username, language, created, updated)"
            " VALUES ($1, $2, $3, $4, $5, $5)"
            " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name,"
            " username = excluded.username, updated = excluded.updated RETURNING *",
            user_id, first_name, username, language, now,
        )
        return _user(row)

    async def get_user(self, user_id: int) -> User | None:
        _int64("user_id", user_id)
        row = await self._fetchrow("SELECT * FROM users WHERE user_id = $1", user_id)
        return None if row is None else _user(row)

    async def set_user_language(self, user_id: int, language: Language | None) -> None:
        if language is not None:
            _choice("language", language, LANGUAGES)
        await self._update_one(
            f"user {user_id}",
            "UPDATE users SET language = $1, updated = $2 WHERE user_id = $3",
            language, float(self._clock()), _int64("user_id", user_id),
        )

    async def mark_started(self, user_id: int) -> None:
        await self._update_one(
            f"user {user_id}",
            "UPDATE users SET started = TRUE, blocked = FALSE, updated = $1 WHERE user_id = $2",
            float(self._clock()), _int64("user_id", user_id),
        )

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None:
        await self._update_one(
            f"user {user_id}",
            "UPDATE users SET blocked = $1, updated = $2 WHERE user_id = $3",
            bool(blocked), float(self._clock()), _int64("user_id", user_id),
        )

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
    ) -> int:
        _int64("chat_id", chat_id)
        _int64("creator_id", creator_id)
        _int64("seed", seed)
        _json("rules", rules)
        _json("seats", seats)
        _time("deadline", deadline)
        try:
            async with self._tx() as (conn, now):
                if await conn.fetchval("SELECT 1 FROM chats WHERE chat_id = $1", chat_id) is None:
                    raise NotFound(f"chat {chat_id}")
                active = await _active_game(conn, chat_id)
                if active is not None:
                    raise ActiveGameConflict(chat_id, active.game_id)
                if lobby_code is not None and await _game_by_code(conn, lobby_code) is not None:
                    raise LobbyCodeTaken(lobby_code)
                game_id = await conn.fetchval(
                    "INSERT INTO games (chat_id, status, creator_id, created, updated, rules,"
                    " seed, seats, deadline, lobby_code)"
                    " VALUES ($1, 'lobby', $2, $3, $3, $4, $5, $6, $7, $8) RETURNING game_id",
                    chat_id, creator_id, now, rules, seed, seats, deadline, lobby_code,
                )
        except StorageFailure as e:
            # Another process created a game or took the code between the check and the
            # insert: the unique index refused it.
            constraint = _unique(e)
            if constraint == "games_one_active_per_chat":
                active = await self.active_game(chat_id)
                raise ActiveGameConflict(chat_id, active.game_id if active else 0) from e
            if constraint == "games_lobby_code" and lobby_code is not None:
                raise LobbyCodeTaken(lobby_code) from e
            if isinstance(e.__cause__, asyncpg.exceptions.ForeignKeyViolationError):
                raise NotFound(f"chat {chat_id}") from e  # the chat moved meanwhile
            raise
        return int(game_id)

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int:
        if seats is not None:
            _json("seats", seats)
        if rules is not None:
            _json("rules", rules)
        async with self._tx() as (conn, now):
            await _lobby_game(conn, game_id, expected_lobby_rev)
            await conn.execute(
                "UPDATE games SET seats = COALESCE($1, seats), rules = COALESCE($2, rules),"
                " lobby_rev = lobby_rev + 1, updated = $3 WHERE game_id = $4",
                seats, rules, now, game_id,
            )
        return expected_lobby_rev + 1

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
        _json("snapshot", snapshot)
        _time("deadline", deadline)
        if seats is not None:
            _json("seats", seats)
        if rules is not None:
            _json("rules", rules)
        async with self._tx() as (conn, now):
            await _lobby_game(conn, game_id, expected_lobby_rev)
            await conn.execute(
                "UPDATE games SET status = 'playing', snapshot = $1, deadline = $2,"
                " seats = COALESCE($3, seats), rules = COALESCE($4, rules),"
                " lobby_rev = lobby_rev + 1, updated = $5, human_moved = $5"
                " WHERE game_id = $6",
                snapshot, deadline, seats, rules, now, game_id,
            )

    async def cancel_lobby(self, game_id: int) -> None:
        async with self._tx() as (conn, now):
            game = await _require_game(conn, game_id, lock=True)
            if game.status != "lobby":
                raise StatusConflict(game_id, game.status, ("lobby",))
            await conn.execute(
                "UPDATE games SET status = 'stopped', deadline = NULL, lobby_code = NULL,"
                " updated = $1 WHERE game_id = $2",
                now, game_id,
            )

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
    ) -> int:
        """One statement (one round trip, its own transaction): see ``_APPEND_SQL``."""
        _int64("game_id", game_id)
        _int64("expected_version", expected_version)
        _json("action", action)
        _json("snapshot", snapshot)
        _time("deadline", deadline)
        sheet: dict[int, str] = {}
        for deal_no, data in sheet_rows:  # a deal given twice: the last data, as SQLite's
            sheet[_int64("deal_no", deal_no)] = _json("sheet data", data)
        if outcome is not None:
            _check_outcome(outcome)
        now = float(self._clock())
        finish = outcome is not None
        row = await self._fetchrow(
            _APPEND_SQL,
            game_id, expected_version, action, snapshot, deadline, now, bool(human),
            list(sheet), list(sheet.values()), finish,
            ("stopped" if outcome.stopped else "finished") if outcome else None,
            outcome.winner_seat if outcome else None,
            outcome.totals if outcome else None,
            bool(outcome.stopped) if outcome else None,
        )
        if row is not None and row["new_version"] is not None:
            return int(row["new_version"])
        if row is None:
            raise NotFound(f"game {game_id}")
        status, version = str(row["status"]), int(row["version"])
        if status == "playing" and version == expected_version:
            # Another transaction moved the game while this one waited for the row: the
            # statement's snapshot is older than what the UPDATE saw; read it again.
            game = await self.get_game(game_id)
            if game is None:
                raise NotFound(f"game {game_id}")
            status, version = game.status, game.version
        if status != "playing":
            raise StatusConflict(game_id, status, ("playing",))
        raise VersionConflict(game_id, expected_version, version)

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        _int64("game_id", game_id)
        rows = await self._fetch(
            "SELECT action FROM game_actions WHERE game_id = $1 AND seq > $2 ORDER BY seq",
            game_id, _int64("after", after),
        )
        return [str(r["action"]) for r in rows]

    async def set_message_ids(self, game_id: int, message_ids: str) -> None:
        _json("message_ids", message_ids)
        await self._update_one(
            f"game {game_id}",
            "UPDATE games SET message_ids = $1, updated = $2 WHERE game_id = $3",
            message_ids, float(self._clock()), _int64("game_id", game_id),
        )

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None:
        _time("deadline", deadline)
        async with self._tx() as (conn, now):
            game = await _require_game(conn, game_id, lock=True)
            if not game.active:
                raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await conn.execute(
                "UPDATE games SET deadline = $1, updated = $2 WHERE game_id = $3",
                deadline, now, game_id,
            )

    async def finish_game(
        self,
        game_id: int,
        *,
        winner_seat: int | None,
        totals: str,
        stopped: bool,
        expected_version: int | None = None,
    ) -> GameResult:
        outcome = Outcome(winner_seat=winner_seat, totals=totals, stopped=stopped)
        _check_outcome(outcome)
        async with self._tx() as (conn, now):
            game = await _require_game(conn, game_id, lock=True)
            if game.status != "playing":
                raise StatusConflict(game_id, game.status, ("playing",))
            if expected_version is not None and game.version != expected_version:
                raise VersionConflict(game_id, expected_version, game.version)
            await _finish(conn, game_id, outcome, now)
            row = await conn.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        return _result(row)

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
        if totals is not None:
            _json("totals", totals)
        text = _reason(reason)
        async with self._tx() as (conn, now):
            game = await _end_check(conn, game_id, expected_version, expected_lobby_rev)
            if game.status == "playing" and totals is not None:
                await conn.execute(
                    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
                    " VALUES ($1, $2, NULL, $3, TRUE)",
                    game_id, now, totals,
                )
            return await _end(conn, game_id, "expired", text, now)

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game:
        text = _reason(reason)
        async with self._tx() as (conn, now):
            await _end_check(conn, game_id, expected_version, None)
            return await _end(conn, game_id, "broken", text, now)

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'lobby' AND updated < $1"
            " ORDER BY updated, game_id",
            self._cutoff(idle_for, now),
        )
        return [_game(r) for r in rows]

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]:
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'playing'"
            " AND COALESCE(human_moved, updated) < $1"
            " ORDER BY COALESCE(human_moved, updated), game_id",
            self._cutoff(idle_for, now),
        )
        return [_game(r) for r in rows]

    async def export_game(self, game_id: int) -> str:
        _int64("game_id", game_id)
        async with self._conn() as conn, conn.transaction(
            isolation="repeatable_read", readonly=True
        ):
            game = await _require_game(conn, game_id)
            log = await conn.fetch(
                "SELECT seq, action FROM game_actions WHERE game_id = $1 ORDER BY seq", game_id
            )
            ends = await conn.fetch(
                "SELECT seq FROM score_sheets WHERE game_id = $1 ORDER BY deal_no", game_id
            )
            row = await conn.fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        record = _record(
            game,
            [(int(r["seq"]), str(r["action"])) for r in log],
            [None if r["seq"] is None else int(r["seq"]) for r in ends],
            None if row is None else _result(row),
        )
        return json.dumps(record, ensure_ascii=False, indent=1)

    # ------------------------------------------------------------------ games: queries

    async def get_game(self, game_id: int) -> Game | None:
        _int64("game_id", game_id)
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = $1", game_id
        )
        return None if row is None else _game(row)

    async def active_game(self, chat_id: int) -> Game | None:
        _int64("chat_id", chat_id)
        async with self._conn() as conn:
            return await _active_game(conn, chat_id)

    async def game_by_lobby_code(self, code: str) -> Game | None:
        async with self._conn() as conn:
            return await _game_by_code(conn, code)

    async def games_in_progress(self) -> list[Game]:
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE {_ACTIVE_SQL} ORDER BY game_id"
        )
        return [_game(r) for r in rows]

    async def last_game(self, chat_id: int) -> Game | None:
        _int64("chat_id", chat_id)
        row = await self._fetchrow(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE chat_id = $1"
            " AND (status IN ('lobby', 'playing', 'finished')"
            "      OR EXISTS (SELECT 1 FROM results r WHERE r.game_id = g.game_id))"
            " ORDER BY game_id DESC LIMIT 1",
            chat_id,
        )
        return None if row is None else _game(row)

    async def score_sheet(self, game_id: int) -> list[ScoreRow]:
        _int64("game_id", game_id)
        rows = await self._fetch(
            "SELECT game_id, deal_no, data, created FROM score_sheets WHERE game_id = $1"
            " ORDER BY deal_no",
            game_id,
        )
        return [_score_row(r) for r in rows]

    async def get_result(self, game_id: int) -> GameResult | None:
        _int64("game_id", game_id)
        row = await self._fetchrow("SELECT * FROM results WHERE game_id = $1", game_id)
        return None if row is None else _result(row)

    # ------------------------------------------------------------------ stats and ratings

    async def record_game_result(
        self, game_id: int, seats: Sequence[SeatResult], rate: Rater | None = None
    ) -> bool:
        """As SQLite's; the rating steps of all processes run one at a time under an
        advisory lock (``RATING_LOCK``), so two games ending at once lose nothing."""
        _int64("game_id", game_id)
        if not seats:
            raise ValueError("a game result needs its seats")
        if len({x.seat for x in seats}) != len(seats):
            raise ValueError("a seat is given twice")
        by_player: dict[str, list[SeatResult]] = {}
        for x in seats:
            if not isinstance(x.player, str) or not x.player:
                raise ValueError(f"seat {x.seat}: a player id is text, got {x.player!r}")
            if x.seat < 0 or x.place < 1:
                raise ValueError(f"seat {x.seat}: bad seat or place {x.place}")
            by_player.setdefault(x.player, []).append(x)
        async with self._tx() as (conn, now):
            await conn.execute("SELECT pg_advisory_xact_lock($1)", RATING_LOCK)
            game = await _require_game(conn, game_id, lock=True)
            if game.status != "finished":
                raise StatusConflict(game_id, game.status, ("finished",))
            if await conn.fetchval(
                "SELECT 1 FROM rated_games WHERE game_id = $1", game_id
            ) is not None:
                return False
            current: dict[str, RatingPair | None] = {p: None for p in by_player}
            for r in await conn.fetch(
                "SELECT player, mu, sigma FROM player_stats WHERE player = ANY($1::text[])",
                list(by_player),
            ):
                if r["mu"] is not None:
                    current[str(r["player"])] = (float(r["mu"]), float(r["sigma"]))
            new = dict(rate(current)) if rate is not None else {}
            for player, (mu, sigma) in new.items():
                if player not in by_player:
                    raise ValueError(f"a rating for {player!r}, who did not play")
                if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
                    raise ValueError(f"bad rating for {player!r}: {mu}, {sigma}")
            await conn.execute(
                "INSERT INTO rated_games (game_id, rated) VALUES ($1, $2)", game_id, now
            )
            await conn.executemany(
                "INSERT INTO game_players (game_id, seat, player, place, win)"
                " VALUES ($1, $2, $3, $4, $5)",
                [(game_id, x.seat, x.player, x.place, bool(x.win)) for x in seats],
            )
            stats = []
            for player, xs in by_player.items():
                rating = new.get(player)
                stats.append((
                    player, int(any(x.win for x in xs)), sum(x.place for x in xs) / len(xs),
                    sum(x.declared for x in xs), sum(x.made for x in xs),
                    sum(x.falls for x in xs), sum(x.bolts for x in xs),
                    None if rating is None else float(rating[0]),
                    None if rating is None else float(rating[1]), now,
                ))
            await conn.executemany(
                "INSERT INTO player_stats AS s (player, games, wins, place_sum, declared, made,"
                " falls, bolts, mu, sigma, updated)"
                " VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
                " ON CONFLICT (player) DO UPDATE SET games = s.games + 1,"
                " wins = s.wins + excluded.wins, place_sum = s.place_sum + excluded.place_sum,"
                " declared = s.declared + excluded.declared, made = s.made + excluded.made,"
                " falls = s.falls + excluded.falls, bolts = s.bolts + excluded.bolts,"
                " mu = COALESCE(excluded.mu, s.mu), sigma = COALESCE(excluded.sigma, s.sigma),"
                " updated = excluded.updated",
                stats,
            )
        return True

    async def is_rated(self, game_id: int) -> bool:
        _int64("game_id", game_id)
        return await self._fetchval(
            "SELECT 1 FROM rated_games WHERE game_id = $1", game_id
        ) is not None

    async def unrated_games(self) -> list[Game]:
        rows = await self._fetch(
            f"SELECT {_GAME_COLUMNS} FROM games g WHERE status = 'finished'"
            " AND NOT EXISTS (SELECT 1 FROM rated_games r WHERE r.game_id = g.game_id)"
            " ORDER BY game_id"
        )
        return [_game(r) for r in rows]

    async def player_stats(self, player: str) -> PlayerStats | None:
        row = await self._fetchrow(
            f"SELECT {_STATS_COLUMNS} FROM player_stats WHERE player = $1", player
        )
        return None if row is None else _stats(row)

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]:
        _int64("chat_id", chat_id)
        rows = await self._fetch(
            "SELECT " + ", ".join(f"s.{c.strip()}" for c in _STATS_COLUMNS.split(",")) +
            ", u.first_name AS name FROM player_stats s"
            " LEFT JOIN users u ON s.player = 'u:' || u.user_id"
            " WHERE s.player LIKE 'u:%' AND EXISTS ("
            "   SELECT 1 FROM game_players p JOIN games g ON g.game_id = p.game_id"
            "   WHERE p.player = s.player AND g.chat_id = $1)"
            " ORDER BY s.mu IS NULL, s.mu - 3 * s.sigma DESC, s.games DESC, s.player"
            " LIMIT $2",
            chat_id, max(0, int(limit)),
        )
        return [_stats(r) for r in rows]

    async def versus_computers(self, player: str) -> list[Versus]:
        rows = await self._fetch(
            "SELECT c.computer, count(*) AS games, count(*) FILTER (WHERE me.win) AS wins,"
            " sum(me.place) AS place_sum FROM game_players me"
            " JOIN (SELECT DISTINCT game_id, player AS computer FROM game_players"
            "       WHERE player LIKE 'ai:%') c ON c.game_id = me.game_id"
            " WHERE me.player = $1 GROUP BY c.computer ORDER BY c.computer",
            player,
        )
        return [Versus(str(r["computer"]), int(r["games"]), int(r["wins"]),
                       float(r["place_sum"])) for r in rows]

    # ------------------------------------------------------------------ internals

    def _check_open(self) -> None:
        if self._closed:
            raise StorageClosed("storage is closed")

    @contextlib.asynccontextmanager
    async def _conn(self) -> AsyncIterator[Connection]:
        """A pooled connection; asyncpg's errors leave as ``StorageFailure`` subclasses."""
        self._check_open()
        try:
            async with self._pool.acquire() as conn:
                yield conn
        except _DRIVER_ERRORS as e:
            if self._closed and isinstance(e, asyncpg.InterfaceError):
                raise StorageClosed("storage is closed") from e
            raise _failure(e, self._where) from e

    @contextlib.asynccontextmanager
    async def _tx(self) -> AsyncIterator[tuple[Connection, float]]:
        """One transaction on one connection; yields it and the operation's time."""
        async with self._conn() as conn, conn.transaction():
            yield conn, float(self._clock())

    async def _fetch(self, sql: str, *args: object) -> list[Record]:
        async with self._conn() as conn:
            return cast(list[Record], await conn.fetch(sql, *args))

    async def _fetchrow(self, sql: str, *args: object) -> Record:
        """The first row, or None."""
        async with self._conn() as conn:
            return await conn.fetchrow(sql, *args)

    async def _fetchval(self, sql: str, *args: object) -> object:
        async with self._conn() as conn:
            return cast(object, await conn.fetchval(sql, *args))

    async def _update_one(self, what: str, sql: str, *args: object) -> None:
        async with self._conn() as conn:
            status = await conn.execute(sql, *args)
        if _count(str(status)) != 1:
            raise NotFound(what)

    def _cutoff(self, idle_for: float, now: float | None) -> float:
        idle = _time("idle_for", idle_for)
        assert idle is not None
        if idle < 0:
            raise ValueError(f"idle_for must be >= 0, got {idle_for}")
        at = _time("now", now)
        return (float(self._clock()) if at is None else at) - idle

    # ------------------------------------------------------------------ coordination
    # As SQLite's (``storage/sqlite.py``); PostgreSQL serialises them with row locks (the
    # upserts) and a transaction-level advisory lock per group (``group_send``).

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool:
        _time("ttl", ttl)
        now = float(self._clock())
        async with self._conn() as conn:
            status = await conn.execute(
                "INSERT INTO leases (game_id, owner, expires) VALUES ($1, $2, $3)"
                " ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner,"
                " expires = EXCLUDED.expires"
                " WHERE $4 OR leases.owner = EXCLUDED.owner OR leases.expires <= $5",
                _int64("game_id", game_id), owner, now + ttl, bool(force), now,
            )
        return _count(str(status)) == 1

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]:
        _time("ttl", ttl)
        rows = await self._fetch(
            "UPDATE leases l SET expires = $1 FROM games g"
            " WHERE l.owner = $2 AND g.game_id = l.game_id RETURNING l.game_id, g.version",
            float(self._clock()) + ttl, owner,
        )
        return {int(r["game_id"]): int(r["version"]) for r in rows}

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]:
        _time("ttl", ttl)
        async with self._tx() as (conn, now):
            await conn.execute(
                "DELETE FROM leases l USING games g"
                " WHERE g.game_id = l.game_id AND g.status <> 'playing'")
            rows = await conn.fetch(
                "INSERT INTO leases (game_id, owner, expires)"
                " SELECT g.game_id, $1, $2 FROM games g LEFT JOIN leases l"
                " ON l.game_id = g.game_id"
                " WHERE g.status = 'playing'"
                " AND (l.expires <= $3 OR (l.game_id IS NULL AND g.updated <= $5))"
                " ORDER BY g.game_id LIMIT $4"
                " ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner,"
                " expires = EXCLUDED.expires WHERE leases.expires <= $3"
                " RETURNING game_id",
                owner, now + ttl, now, limit, now - ttl,
            )
        return sorted(int(r["game_id"]) for r in rows)

    async def release_leases(self, owner: str) -> int:
        async with self._conn() as conn:
            status = await conn.execute("DELETE FROM leases WHERE owner = $1", owner)
        return _count(str(status))

    async def lease_owner(self, game_id: int) -> str | None:
        value = await self._fetchval(
            "SELECT owner FROM leases WHERE game_id = $1 AND expires > $2",
            _int64("game_id", game_id), float(self._clock()),
        )
        return None if value is None else str(value)

    async def group_send(self, chat_id: int, limit: int, window: float) -> float:
        _time("window", window)
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        async with self._tx() as (conn, now):
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('group_sends:' || $1::bigint, 0))",
                _int64("chat_id", chat_id))
            await conn.execute("DELETE FROM group_sends WHERE chat_id = $1 AND at <= $2",
                               chat_id, now - window)
            rows = await conn.fetch(
                "SELECT at FROM group_sends WHERE chat_id = $1 ORDER BY at DESC LIMIT $2",
                chat_id, limit)
            if len(rows) >= limit:
                return max(0.001, float(rows[limit - 1]["at"]) + window - now)
            await conn.execute("INSERT INTO group_sends (chat_id, at) VALUES ($1, $2)",
                               chat_id, now)
        return 0.0

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]:
        async with self._tx() as (conn, now):
            status = await conn.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES ($1, $2, $3, NULL, $4)"
                " ON CONFLICT (chat_id, slot) DO UPDATE SET owner = EXCLUDED.owner,"
                " claimed = EXCLUDED.claimed"
                " WHERE sent_messages.message_id IS NULL"
                " AND (sent_messages.owner = EXCLUDED.owner OR sent_messages.claimed <= $5)",
                _int64("chat_id", chat_id), slot, owner, now, now - stale_after,
            )
            if _count(str(status)) == 1:
                return True, None
            value = await conn.fetchval(
                "SELECT message_id FROM sent_messages WHERE chat_id = $1 AND slot = $2",
                chat_id, slot)
        return False, None if value is None else int(value)

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        now = float(self._clock())
        async with self._conn() as conn:
            if message_id is None:
                await conn.execute(
                    "DELETE FROM sent_messages WHERE chat_id = $1 AND slot = $2",
                    _int64("chat_id", chat_id), slot)
                return
            await conn.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES ($1, $2, '', $3, $4) ON CONFLICT (chat_id, slot) DO UPDATE"
                " SET message_id = EXCLUDED.message_id",
                _int64("chat_id", chat_id), slot, _int64("message_id", message_id), now,
            )

    async def prune_coordination(self, older_than: float) -> int:
        _time("older_than", older_than)
        async with self._tx() as (conn, now):
            n = _count(str(await conn.execute(
                "DELETE FROM sent_messages WHERE claimed <= $1", now - older_than)))
            n += _count(str(await conn.execute(
                "DELETE FROM group_sends WHERE at <= $1", now - max(older_than, 60.0))))
        return n


# --------------------------------------------------------------------------- helpers


async def _require_game(conn: Connection, game_id: int, *, lock: bool = False) -> Game:
    row = await conn.fetchrow(
        f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = $1"
        + (" FOR UPDATE" if lock else ""),
        _int64("game_id", game_id),
    )
    if row is None:
        raise NotFound(f"game {game_id}")
    return _game(row)


async def _lobby_game(conn: Connection, game_id: int, expected_lobby_rev: int) -> Game:
    game = await _require_game(conn, game_id, lock=True)
    if game.status != "lobby":
        raise StatusConflict(game_id, game.status, ("lobby",))
    if game.lobby_rev != expected_lobby_rev:
        raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
    return game


async def _active_game(conn: Connection, chat_id: int) -> Game | None:
    row = await conn.fetchrow(
        f"SELECT {_GAME_COLUMNS} FROM games WHERE chat_id = $1 AND {_ACTIVE_SQL}", chat_id
    )
    return None if row is None else _game(row)


async def _game_by_code(conn: Connection, code: str) -> Game | None:
    row = await conn.fetchrow(
        f"SELECT {_GAME_COLUMNS} FROM games WHERE lobby_code = $1", code
    )
    return None if row is None else _game(row)


async def _end_check(
    conn: Connection, game_id: int, expected_version: int | None, expected_lobby_rev: int | None
) -> Game:
    game = await _require_game(conn, game_id, lock=True)
    if not game.active:
        raise StatusConflict(game_id, game.status, ACTIVE_STATUSES)
    if expected_version is not None and game.version != expected_version:
        raise VersionConflict(game_id, expected_version, game.version)
    if expected_lobby_rev is not None and game.lobby_rev != expected_lobby_rev:
        raise VersionConflict(game_id, expected_lobby_rev, game.lobby_rev, "lobby_rev")
    return game


async def _end(
    conn: Connection, game_id: int, status: GameStatus, reason: str, now: float
) -> Game:
    row = await conn.fetchrow(
        "UPDATE games SET status = $1, reason = $2, deadline = NULL, lobby_code = NULL,"
        f" updated = $3 WHERE game_id = $4 RETURNING {_GAME_COLUMNS}",
        status, reason, now, game_id,
    )
    return _game(row)


async def _finish(conn: Connection, game_id: int, outcome: Outcome, now: float) -> None:
    await conn.execute(
        "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
        " VALUES ($1, $2, $3, $4, $5)",
        game_id, now, outcome.winner_seat, outcome.totals, bool(outcome.stopped),
    )
    await conn.execute(
        "UPDATE games SET status = $1, deadline = NULL, lobby_code = NULL, updated = $2"
        " WHERE game_id = $3",
        "stopped" if outcome.stopped else "finished", now, game_id,
    )


async def _migrate(
    pool: Any, where: str, migrations: Sequence[Migration], clock: Callable[[], float]
) -> None:
    """Apply the pending migrations, each in its own transaction under the advisory lock
    ``SCHEMA_LOCK``: of two processes starting together, one migrates and the other waits,
    then finds the work done."""
    async with pool.acquire() as conn:
        while True:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
                await conn.execute(CREATE_SCHEMA_TABLE)
                version = int(
                    await conn.fetchval(f"SELECT COALESCE(max(version), 0) FROM {SCHEMA_TABLE}")
                )
                if version > len(migrations):
                    raise SchemaTooNew(
                        f"{where}: schema version {version} is newer than this program's "
                        f"{len(migrations)}"
                    )
                if version == len(migrations):
                    return
                for statement in migrations[version]:
                    await conn.execute(statement)
                await conn.execute(
                    f"INSERT INTO {SCHEMA_TABLE} (version, applied) VALUES ($1, $2)",
                    version + 1, float(clock()),
                )
            LOG.info("%s: migrated the schema to version %d", where, version + 1)
