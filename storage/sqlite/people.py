"""Chats and users on SQLite, with the caches that let an unchanged ``upsert_user`` /
``upsert_chat`` return without touching the database."""

from __future__ import annotations

import sqlite3
import time
from typing import Final, TypeVar

from storage.checks import check_choice, check_int64, check_json
from storage.models import CHAT_KINDS, LANGUAGES, Chat, ChatKind, Language, User
from storage.rows import chat_row, user_row
from storage.sql import MIGRATE_CHAT
from storage.sqlite.connection import Database
from storage.sqlite.games import clashing_game
from storage.state import check_no_clash

__all__ = ["People"]

_CACHE_MAX_AGE: Final = 60.0
"""Seconds ``upsert_user``/``upsert_chat`` trust the row they last stored or read (other
processes on the same database may change it; their own changes drop the entry at once)."""
_CACHE_LIMIT: Final = 10_000
"""Entries per cache (users, chats) before it is emptied."""

_K = TypeVar("_K")


def _cached(cache: dict[int, tuple[float, _K]], key: int) -> _K | None:
    entry = cache.get(key)
    if entry is None or time.monotonic() - entry[0] > _CACHE_MAX_AGE:
        return None
    return entry[1]


def _remember(cache: dict[int, tuple[float, _K]], key: int, value: _K) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = (time.monotonic(), value)


class People:
    """The ``chats`` and ``users`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # The rows upsert_user/upsert_chat last stored or read (monotonic time, row): an
        # upsert that would change nothing returns the row without touching the database.
        # Every method that writes users/chats drops the ids it writes BEFORE writing.
        self._users: dict[int, tuple[float, User]] = {}
        self._chats: dict[int, tuple[float, Chat]] = {}

    # ------------------------------------------------------------------ chats

    async def upsert_chat(self, chat_id: int, kind: ChatKind, *, language: Language = "ru") -> Chat:
        """Insert the chat or update its kind; ``language`` is only the initial value.

        Writes only what changes: a known chat of that kind is returned as stored
        (``updated`` stays), from memory when this Storage stored or read it in the last
        minute (``_CACHE_MAX_AGE``), else in one trip to the database.
        """
        check_int64("chat_id", chat_id)
        check_choice("kind", kind, CHAT_KINDS)
        check_choice("language", language, LANGUAGES)
        self._db.check_open()
        known = _cached(self._chats, chat_id)
        if known is not None and known.kind == kind:
            return known
        self._chats.pop(chat_id, None)
        chat = await self._db.transact(_upsert_chat, chat_id, kind, language)
        _remember(self._chats, chat_id, chat)  # no await since the commit: nothing ran between
        return chat

    async def get_chat(self, chat_id: int) -> Chat | None:
        async with self._db.read():
            return await self._get_chat(chat_id)

    async def set_chat_language(self, chat_id: int, language: Language) -> None:
        """Raises ``NotFound`` for an unknown chat."""
        check_choice("language", language, LANGUAGES)
        async with self._db.write() as now:
            self._chats.pop(chat_id, None)
            await self._db.update_one(
                f"chat {chat_id}",
                "UPDATE chats SET language = ?, updated = ? WHERE chat_id = ?",
                (language, now, chat_id),
            )

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None:
        """Store the chat's last used rules (JSON text) or clear them; ``NotFound`` if unknown."""
        if rules is not None:
            check_json("rules", rules)
        async with self._db.write() as now:
            self._chats.pop(chat_id, None)
            await self._db.update_one(
                f"chat {chat_id}",
                "UPDATE chats SET default_rules = ?, updated = ? WHERE chat_id = ?",
                (rules, now, chat_id),
            )

    async def migrate_chat(self, old_id: int, new_id: int) -> bool:
        """Move a group that became a supergroup to its new id, in one transaction.

        The settings (language, default rules) and every game (with its actions, sheet and
        result) move to ``new_id``; the new chat's kind is ``supergroup``; the old chat row
        is deleted.  If a chat row for ``new_id`` exists already (the bot saw the
        supergroup first) it is kept and gets the old settings.  Returns False (and writes
        nothing) if ``old_id`` is unknown, so calling it twice is harmless.  Raises
        ``ActiveGameConflict`` (writing nothing) if both ids have an active game in the
        same thread (games keep their ``thread_id``).
        """
        check_int64("old_id", old_id)
        check_int64("new_id", new_id)
        if old_id == new_id:
            raise ValueError("old_id and new_id are the same")
        db = self._db
        async with db.write() as now:
            self._chats.pop(old_id, None)
            self._chats.pop(new_id, None)
            old = await self._get_chat(old_id)
            if old is None:
                return False
            check_no_clash(new_id, await clashing_game(db, old_id, new_id))
            await db.execute(
                MIGRATE_CHAT, (new_id, old.language, old.default_rules, old.created, now),
            )
            await db.execute(
                "UPDATE games SET chat_id = ?, updated = ? WHERE chat_id = ?",
                (new_id, now, old_id),
            )
            await db.execute("DELETE FROM chats WHERE chat_id = ?", (old_id,))
        return True

    async def _get_chat(self, chat_id: int) -> Chat | None:
        row = await self._db.fetchone("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        return None if row is None else chat_row(row)

    # ------------------------------------------------------------------ users

    async def upsert_user(self, user_id: int, first_name: str, username: str | None = None, *,
                          language: Language | None = None) -> User:
        """Insert the user or update the names; ``language`` is only the initial value.

        Writes only what changes: a known user with these names is returned as stored
        (``updated`` stays), from memory when this Storage stored or read it in the last
        minute (``_CACHE_MAX_AGE``), else in one trip to the database.
        """
        check_int64("user_id", user_id)
        if language is not None:
            check_choice("language", language, LANGUAGES)
        self._db.check_open()
        known = _cached(self._users, user_id)
        if known is not None and (known.first_name, known.username) == (first_name, username):
            return known
        self._users.pop(user_id, None)
        user = await self._db.transact(_upsert_user, user_id, first_name, username, language)
        _remember(self._users, user_id, user)  # no await since the commit: nothing ran between
        return user

    async def get_user(self, user_id: int) -> User | None:
        async with self._db.read():
            row = await self._db.fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
        return None if row is None else user_row(row)

    async def set_user_language(self, user_id: int, language: Language | None) -> None:
        """Set (or clear with None) the user's language; ``NotFound`` if unknown."""
        if language is not None:
            check_choice("language", language, LANGUAGES)
        async with self._db.write() as now:
            self._users.pop(user_id, None)
            await self._db.update_one(
                f"user {user_id}",
                "UPDATE users SET language = ?, updated = ? WHERE user_id = ?",
                (language, now, user_id),
            )

    async def mark_started(self, user_id: int) -> None:
        """The user started the bot in private: started, and no longer blocked."""
        async with self._db.write() as now:
            self._users.pop(user_id, None)
            await self._db.update_one(
                f"user {user_id}",
                "UPDATE users SET started = 1, blocked = 0, updated = ? WHERE user_id = ?",
                (now, user_id),
            )

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None:
        """The user blocked (or unblocked) the bot; ``NotFound`` if unknown."""
        async with self._db.write() as now:
            self._users.pop(user_id, None)
            await self._db.update_one(
                f"user {user_id}",
                "UPDATE users SET blocked = ?, updated = ? WHERE user_id = ?",
                (int(blocked), now, user_id),
            )


# --------------------------------------------------------------------------- on the thread
# Plain sqlite3 functions run on aiosqlite's thread by ``Database.transact``.


def _upsert_user(
    conn: sqlite3.Connection,
    now: float,
    user_id: int,
    first_name: str,
    username: str | None,
    language: Language | None,
) -> User:
    conn.execute(
        "INSERT INTO users (user_id, first_name, username, language, created, updated)"
        " VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name,"
        " username = excluded.username, updated = excluded.updated"
        " WHERE users.first_name IS NOT excluded.first_name"
        " OR users.username IS NOT excluded.username",
        (user_id, first_name, username, language, now, now),
    )
    row = conn.execute("SELECT * FROM users WHERE user_id = ?", (user_id,)).fetchone()
    assert row is not None
    return user_row(row)


def _upsert_chat(
    conn: sqlite3.Connection, now: float, chat_id: int, kind: ChatKind, language: Language
) -> Chat:
    conn.execute(
        "INSERT INTO chats (chat_id, kind, language, created, updated) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (chat_id) DO UPDATE SET kind = excluded.kind,"
        " updated = excluded.updated WHERE chats.kind IS NOT excluded.kind",
        (chat_id, kind, language, now, now),
    )
    row = conn.execute("SELECT * FROM chats WHERE chat_id = ?", (chat_id,)).fetchone()
    assert row is not None
    return chat_row(row)
