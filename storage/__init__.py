"""Persistence of the Thousand bot: plain data (numbers, text, JSON text) in SQLite (the
default) or PostgreSQL (``DATABASE_URL``), behind one facade, ``Backend``
(``storage/facade.py``), over the roles each backend supplies (``storage/base.py``).

Nothing here imports the ``bot`` package or ``telegram``; callers serialise their
own objects to JSON text.  See ``docs/storage.md``.
"""

import os
import time
from collections.abc import Callable

from storage.base import Rater, RatingPair
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
    StorageUnavailable,
    VersionConflict,
)
from storage.facade import Backend
from storage.models import (
    ACTIVE_STATUSES,
    CHAT_KINDS,
    ENDED_STATUSES,
    GAME_STATUSES,
    LANGUAGES,
    Chat,
    ChatKind,
    Game,
    GameResult,
    GameStatus,
    Language,
    Outcome,
    PlayerStats,
    Pragmas,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)
from storage.sqlite import MEMORY, RECORD_FORMAT, Storage
from storage.sqlite.schema import MIGRATIONS, SCHEMA_VERSION

DEFAULT_DATABASE_PATH = "thousand.sqlite3"


async def open_storage(
    *,
    database_url: str = "",
    database_path: str | os.PathLike[str] = DEFAULT_DATABASE_PATH,
    busy_timeout: float = 5.0,
    clock: Callable[[], float] = time.time,
) -> Backend:
    """Open the bot's storage: PostgreSQL when ``database_url`` is set
    (``postgresql://user:password@host:port/db``), else SQLite at ``database_path``.

    Either is created or migrated to the current schema first.  ``busy_timeout`` is how
    long a write waits for another connection's lock (SQLite's busy timeout, PostgreSQL's
    ``lock_timeout``).  The caller closes it (``await storage.close()`` or ``async with``).
    """
    if database_url.strip():
        from storage.postgres import PostgresStorage  # asyncpg only when it is used

        return await PostgresStorage.open(
            database_url.strip(), busy_timeout=busy_timeout, clock=clock
        )
    return await Storage.open(database_path, busy_timeout=busy_timeout, clock=clock)

__all__ = [
    "ACTIVE_STATUSES",
    "CHAT_KINDS",
    "DEFAULT_DATABASE_PATH",
    "ENDED_STATUSES",
    "GAME_STATUSES",
    "LANGUAGES",
    "MEMORY",
    "MIGRATIONS",
    "RECORD_FORMAT",
    "SCHEMA_VERSION",
    "ActiveGameConflict",
    "Backend",
    "Chat",
    "ChatKind",
    "Game",
    "GameResult",
    "GameStatus",
    "Language",
    "LobbyCodeTaken",
    "NotFound",
    "Outcome",
    "PlayerStats",
    "Pragmas",
    "Rater",
    "RatingPair",
    "SchemaTooNew",
    "ScoreRow",
    "SeatResult",
    "StatusConflict",
    "Storage",
    "StorageBusy",
    "StorageClosed",
    "StorageDiskError",
    "StorageError",
    "StorageFailure",
    "StorageOffline",
    "StorageReadOnly",
    "StorageUnavailable",
    "User",
    "VersionConflict",
    "Versus",
    "open_storage",
]
