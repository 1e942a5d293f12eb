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
