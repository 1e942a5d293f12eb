"""Chats and users on PostgreSQL."""

from __future__ import annotations

from typing import Final

from storage.checks import check_choice, check_int64, check_json
from storage.errors import ActiveGameConflict, StorageFailure
from storage.models import CHAT_KINDS, LANGUAGES, Chat, ChatKind, Language, User
from storage.postgres.connection import Pool, unique
from storage.postgres.games import ONE_ACTIVE_INDEX, clashing_game
from storage.rows import chat_row, user_row
from storage.sql import MIGRATE_CHAT, numbered
from storage.state import check_no_clash

_MIGRATE_CHAT: Final = numbered(MIGRATE_CHAT)

__all__ = ["People"]


class People:
    """The ``chats`` and ``users`` tables."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    # ------------------------------------------------------------------ chats

    async def upsert_chat(self, chat_id: int, kind: ChatKind, *, language: Language = "ru") -> Chat:
        check_int64("chat_id", chat_id)
        check_choice("kind", kind, CHAT_KINDS)
        check_choice("language", language, LANGUAGES)
        now = self._pg.now()
        row = await self._pg.fetchrow(
            "INSERT INTO chats (chat_id, kind, language, created, updated)"
            " VALUES ($1, $2, $3, $4, $4)"
            " ON CONFLICT (chat_id) DO UPDATE SET kind = excluded.kind,"
            " updated = excluded.updated RETURNING *",
            chat_id, kind, language, now,
        )
        return chat_row(row)

    async def get_chat(self, chat_id: int) -> Chat | None:
        check_int64("chat_id", chat_id)
        row = await self._pg.fetchrow("SELECT * FROM chats WHERE chat_id = $1", chat_id)
        return None if row is None else chat_row(row)

    async def set_chat_language(self, chat_id: int, language: Language) -> None:
        check_choice("language", language, LANGUAGES)
        await self._pg.update_one(
            f"chat {chat_id}",
            "UPDATE chats SET language = $1, updated = $2 WHERE chat_id = $3",
            language, self._pg.now(), check_int64("chat_id", chat_id),
        )

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None:
        if rules is not None:
            check_json("rules", rules)
        await self._pg.update_one(
            f"chat {chat_id}",
            "UPDATE chats SET default_rules = $1, updated = $2 WHERE chat_id = $3",
            rules, self._pg.now(), check_int64("chat_id", chat_id),
        )

    async def migrate_chat(self, old_id: int, new_id: int) -> bool:
        check_int64("old_id", old_id)
        check_int64("new_id", new_id)
        if old_id == new_id:
            raise ValueError("old_id and new_id are the same")
        try:
            async with self._pg.tx() as (conn, now):
                old = await conn.fetchrow(
                    "SELECT * FROM chats WHERE chat_id = $1 FOR UPDATE", old_id
                )
                if old is None:
                    return False
                check_no_clash(new_id, await clashing_game(conn, old_id, new_id))
                await conn.execute(
                    _MIGRATE_CHAT,
                    new_id, old["language"], old["default_rules"], old["created"], now,
                )
                await conn.execute(
                    "UPDATE games SET chat_id = $1, updated = $2 WHERE chat_id = $3",
                    new_id, now, old_id,
                )
                await conn.execute("DELETE FROM chats WHERE chat_id = $1", old_id)
        except StorageFailure as e:
            if unique(e) == ONE_ACTIVE_INDEX:  # a game was created meanwhile
                async with self._pg.conn() as conn:
                    blocking = await clashing_game(conn, old_id, new_id)
                raise ActiveGameConflict(new_id, blocking.game_id if blocking else 0) from e
            raise
        return True

    # ------------------------------------------------------------------ users

    async def upsert_user(self, user_id: int, first_name: str, username: str | None = None, *,
                          language: Language | None = None) -> User:
        check_int64("user_id", user_id)
        if language is not None:
            check_choice("language", language, LANGUAGES)
        now = self._pg.now()
        row = await self._pg.fetchrow(
            "INSERT INTO users (user_id, first_name, username, language, created, updated)"
            " VALUES ($1, $2, $3, $4, $5, $5)"
            " ON CONFLICT (user_id) DO UPDATE SET first_name = excluded.first_name,"
            " username = excluded.username, updated = excluded.updated RETURNING *",
            user_id, first_name, username, language, now,
        )
        return user_row(row)

    async def get_user(self, user_id: int) -> User | None:
        check_int64("user_id", user_id)
        row = await self._pg.fetchrow("SELECT * FROM users WHERE user_id = $1", user_id)
        return None if row is None else user_row(row)

    async def set_user_language(self, user_id: int, language: Language | None) -> None:
        if language is not None:
            check_choice("language", language, LANGUAGES)
        await self._pg.update_one(
            f"user {user_id}",
            "UPDATE users SET language = $1, updated = $2 WHERE user_id = $3",
            language, self._pg.now(), check_int64("user_id", user_id),
        )

    async def mark_started(self, user_id: int) -> None:
        await self._pg.update_one(
            f"user {user_id}",
            "UPDATE users SET started = TRUE, blocked = FALSE, updated = $1 WHERE user_id = $2",
            self._pg.now(), check_int64("user_id", user_id),
        )

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None:
        await self._pg.update_one(
            f"user {user_id}",
            "UPDATE users SET blocked = $1, updated = $2 WHERE user_id = $3",
            bool(blocked), self._pg.now(), check_int64("user_id", user_id),
        )
