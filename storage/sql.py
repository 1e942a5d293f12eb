"""SQL that is the same on both backends, written once.

The statements use SQLite's ``?`` placeholders; the PostgreSQL backend numbers them
(``numbered``: ``$1``, ``$2``, ... in order).  Only text that is the same in both dialects
belongs here: where they differ (``IS ?`` against ``IS NOT DISTINCT FROM $n``, ``REAL``
against ``DOUBLE PRECISION``, ``RETURNING``), each backend writes its own.
"""

from __future__ import annotations

from typing import Final

from storage.rows import STATS_COLUMNS

__all__ = [
    "CHAT_TOP",
    "FORGET_EDIT",
    "GAMES_INDEXES",
    "MARK_SHOWING",
    "MIGRATE_CHAT",
    "NEW_GAME_CLASHES",
    "ONE_ACTIVE_PER_THREAD",
    "SHOWN_COLUMNS",
    "numbered",
]


def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered for PostgreSQL (no ``?`` may stand in
    a literal)."""
    parts = sql.split("?")
    return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], 1)) + parts[-1]


MIGRATE_CHAT: Final = (
    "INSERT INTO chats (chat_id, kind, language, default_rules, created, updated)"
    " VALUES (?, 'supergroup', ?, ?, ?, ?)"
    " ON CONFLICT (chat_id) DO UPDATE SET kind = 'supergroup',"
    " language = excluded.language,"
    " default_rules = COALESCE(excluded.default_rules, chats.default_rules),"
    " updated = excluded.updated"
)
"""``migrate_chat``: the new chat row (new id, old language, rules, created; now), or the
supergroup's own row given the old settings."""

CHAT_TOP: Final = (
    "SELECT " + ", ".join(f"s.{c.strip()}" for c in STATS_COLUMNS.split(",")) +
    ", u.first_name AS name FROM player_stats s"
    " LEFT JOIN users u ON s.player = 'u:' || u.user_id"
    " WHERE s.player LIKE 'u:%' AND EXISTS ("
    "   SELECT 1 FROM game_players p JOIN games g ON g.game_id = p.game_id"
    "   WHERE p.player = s.player AND g.chat_id = ?)"
    " ORDER BY s.mu IS NULL, s.mu - 3 * s.sigma DESC, s.games DESC, s.player"
    " LIMIT ?"
)
"""``chat_top``: (chat id, limit)."""

NEW_GAME_CLASHES: Final = (
    "SELECT (SELECT 1 FROM chats WHERE chat_id = ?) AS chat,"
    " (SELECT game_id FROM games WHERE chat_id = ?"
    "  AND COALESCE(thread_id, 0) = COALESCE(CAST(? AS BIGINT), 0)"
    "  AND status IN ('lobby', 'playing')) AS active,"
    " (SELECT game_id FROM games WHERE lobby_code = ?) AS code_holder"
)
"""``create_game``, before the insert: (chat id, chat id, thread id, lobby code) to the chat
(NULL: unknown), the game in lobby/playing in that thread and the game with that code
(``state.check_new_game``; the thread as the unique index of one active game has it)."""

FORGET_EDIT: Final = (
    "UPDATE sent_messages SET showing = NULL, editor = NULL"
    " WHERE chat_id = ? AND slot = ? AND editor = ?"
)
"""``begin_edit``, the lease lost: (chat id, slot, owner)'s edit in flight is forgotten."""

MARK_SHOWING: Final = (
    "UPDATE sent_messages SET showing = ?, editor = ?, showing_at = ?"
    " WHERE chat_id = ? AND slot = ?"
)
"""``begin_edit``'s "go": (digest, owner, now, chat id, slot), the edit in flight."""

# Migrations (``storage/sqlite/schema.py``, ``storage/postgres/schema.py``): statements
# of shipped migrations, kept to the letter.

GAMES_INDEXES: Final = (
    # At most one game in lobby/playing per chat.
    """
    CREATE UNIQUE INDEX games_one_active_per_chat
        ON games (chat_id) WHERE status IN ('lobby', 'playing')
    """,
    # Lobby codes are unique while not null.
    """
    CREATE UNIQUE INDEX games_lobby_code
        ON games (lobby_code) WHERE lobby_code IS NOT NULL
    """,
    "CREATE INDEX games_by_chat ON games (chat_id, game_id)",
)
"""Migration 1 (and SQLite's 2, which rebuilds ``games``): the indexes of ``games``."""

ONE_ACTIVE_PER_THREAD: Final = (
    "DROP INDEX games_one_active_per_chat",
    """
    CREATE UNIQUE INDEX games_one_active_per_thread
        ON games (chat_id, COALESCE(thread_id, 0)) WHERE status IN ('lobby', 'playing')
    """,
)
"""Migration 5: one game in lobby/playing per (chat, thread) instead of per chat."""

SHOWN_COLUMNS: Final = (
    "ALTER TABLE sent_messages ADD COLUMN shown TEXT",
    "ALTER TABLE sent_messages ADD COLUMN showing TEXT",
    "ALTER TABLE sent_messages ADD COLUMN editor TEXT",
)
"""Migration 6: what a shared message shows, and the edit in flight (with ``showing_at``,
whose type differs)."""
