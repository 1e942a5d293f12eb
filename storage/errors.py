"""Errors raised by the storage layer.

Every error is raised *before* the transaction commits, so an operation that
raises has written nothing.
"""

from __future__ import annotations


class StorageError(Exception):
    """Base class of every error the storage layer raises on purpose."""


class NotFound(StorageError, LookupError):
    """The chat, user or game the operation refers to does not exist."""


class VersionConflict(StorageError):
    """The stored version is not the one the caller expected (a stale write)."""

    def __init__(self, game_id: int, expected: int, actual: int, what: str = "version") -> None:
        super().__init__(f"game {game_id}: expected {what} {expected}, stored {what} is {actual}")
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        self.what = what


class StatusConflict(StorageError):
    """The game is not in a status that allows the operation."""

    def __init__(self, game_id: int, status: str, allowed: tuple[str, ...]) -> None:
        super().__init__(
            f"game {game_id} is {status!r}; the operation needs {' or '.join(allowed)}"
        )
        self.game_id = game_id
        self.status = status
        self.allowed = allowed


class ActiveGameConflict(StorageError):
    """The chat already has a game in lobby or playing (at most one is allowed)."""

    def __init__(self, chat_id: int, game_id: int) -> None:
        super().__init__(f"chat {chat_id} already has the active game {game_id}")
        self.chat_id = chat_id
        self.game_id = game_id


class LobbyCodeTaken(StorageError):
    """Another game already uses this lobby code; pick another code and retry."""

    def __init__(self, code: str) -> None:
        super().__init__(f"lobby code {code!r} is taken")
        self.code = code


class SchemaTooNew(StorageError):
    """The database was written by a newer program (its user_version is unknown here)."""


class StorageClosed(StorageError):
    """The ``Storage`` was closed; open a new one."""


class StorageFailure(StorageError):
    """SQLite (or the file system under it) refused or failed the operation.

    Raised instead of ``sqlite3.Error`` / ``OSError``, which is kept as ``__cause__``.
    Nothing was written (the transaction was rolled back) and the ``Storage`` stays
    usable.  This class itself is for failures that retrying will not cure (a corrupt
    file, a schema or program bug); see ``StorageUnavailable`` for the transient ones.
    """

    def __init__(self, message: str, *, code: int | None = None, code_name: str = "") -> None:
        super().__init__(message)
        self.code = code
        """SQLite's extended result code (``sqlite3.Error.sqlite_errorcode``), if any."""
        self.code_name = code_name
        """Its name, e.g. ``SQLITE_BUSY`` (``sqlite3.Error.sqlite_errorname``)."""


class StorageUnavailable(StorageFailure):
    """Transient: the database cannot be written (or read) right now; retry with backoff.

    Nothing was written; once the condition clears, the same ``Storage`` works again.
    """


class StorageBusy(StorageUnavailable):
    """Another connection held the write lock longer than the busy timeout (SQLITE_BUSY,
    SQLITE_LOCKED: "database is locked").  Usually clears within seconds."""


class StorageReadOnly(StorageUnavailable):
    """The database refuses writes (SQLITE_READONLY: "attempt to write a readonly
    database"): the file, its directory or the -wal/-shm files are not writable."""


class StorageDiskError(StorageUnavailable):
    """The disk failed or is full (SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, or an
    ``OSError`` from the file system)."""


class StorageOffline(StorageUnavailable):
    """The database server cannot be reached right now (PostgreSQL): the connection was
    refused or lost, the server is starting or shutting down, or it has no connection
    slot left.  Retry with backoff; the pool reconnects once the server is back."""
