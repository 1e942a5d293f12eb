"""Persistence of the Thousand bot: plain data (numbers, text, JSON text) in SQLite.

Nothing here imports the ``bot`` package or ``telegram``; callers serialise their
own objects to JSON text.  See ``docs/storage.md``.
"""

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
    StorageReadOnly,
    StorageUnavailable,
    VersionConflict,
)
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
    Pragmas,
    ScoreRow,
    User,
)
from storage.schema import MIGRATIONS, SCHEMA_VERSION
from storage.sqlite import MEMORY, RECORD_FORMAT, Storage

__all__ = [
    "ACTIVE_STATUSES",
    "CHAT_KINDS",
    "ENDED_STATUSES",
    "GAME_STATUSES",
    "LANGUAGES",
    "MEMORY",
    "MIGRATIONS",
    "RECORD_FORMAT",
    "SCHEMA_VERSION",
    "ActiveGameConflict",
    "Chat",
    "ChatKind",
    "Game",
    "GameResult",
    "GameStatus",
    "Language",
    "LobbyCodeTaken",
    "NotFound",
    "Outcome",
    "Pragmas",
    "SchemaTooNew",
    "ScoreRow",
    "StatusConflict",
    "Storage",
    "StorageBusy",
    "StorageClosed",
    "StorageDiskError",
    "StorageError",
    "StorageFailure",
    "StorageReadOnly",
    "StorageUnavailable",
    "User",
    "VersionConflict",
]
