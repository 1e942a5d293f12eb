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
    StorageError,
    VersionConflict,
)
from storage.models import (
    ACTIVE_STATUSES,
    CHAT_KINDS,
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
from storage.sqlite import MEMORY, Storage

__all__ = [
    "ACTIVE_STATUSES",
    "CHAT_KINDS",
    "GAME_STATUSES",
    "LANGUAGES",
    "MEMORY",
    "MIGRATIONS",
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
    "StorageError",
    "User",
    "VersionConflict",
]
