"""The SQLite schema, as an ordered list of migrations (applied by
``storage.sqlite.migrations``).

``PRAGMA user_version`` holds how many migrations the database has applied.
Migration ``n`` (1-based) brings a database from version ``n - 1`` to ``n``.
Never edit a migration that has shipped: append a new one.
"""

from __future__ import annotations

from typing import Final

from storage.base import Migration
from storage.sql import GAMES_INDEXES, Types, game_tables, result_tables, shared_migrations

TYPES: Final = Types(
    id="INTEGER", time="REAL", serial="INTEGER PRIMARY KEY AUTOINCREMENT",
    keyed=") WITHOUT ROWID", boolean=False,
)
"""How this dialect spells the column types of the tables both backends share."""

_CONTIGUOUS_TRIGGER: Final = """
    CREATE TRIGGER game_actions_contiguous
    BEFORE INSERT ON game_actions
    WHEN NEW.seq IS NOT (SELECT version + 1 FROM games WHERE game_id = NEW.game_id)
    BEGIN
        SELECT RAISE(ABORT, 'game_actions: seq must be the game version + 1');
    END
    """

_V1: Final[Migration] = (
    *game_tables(TYPES),
    # The log is contiguous: an action gets seq = the game's version + 1 ...
    _CONTIGUOUS_TRIGGER,
    # ... and append-only.
    """
    CREATE TRIGGER game_actions_append_only
    BEFORE UPDATE ON game_actions
    BEGIN
        SELECT RAISE(ABORT, 'game_actions is append-only');
    END
    """,
    *result_tables(TYPES),
)

# Version 2: the statuses ``expired`` and ``broken`` (a new CHECK, so the games table is
# rebuilt: SQLite cannot alter a CHECK in place), ``games.human_moved`` (the last move a
# person made; for a game already playing, its ``updated``), ``games.reason`` (why a game is
# broken or expired), and ``score_sheets.seq`` (the action that ended the deal, so the
# record can be cut into deals; for old rows, the action written in the same transaction,
# which has the same ``created`` time).
#
# Migrations run with foreign_keys OFF (``Storage.open`` turns them on afterwards and checks
# ``PRAGMA foreign_key_check`` before each migration commits): dropping ``games`` with them
# ON would cascade-delete every action.  The trigger that names ``games`` is dropped first
# and recreated, because renaming a table re-parses every trigger.
_V2: Final[Migration] = (
    "DROP TRIGGER game_actions_contiguous",
    """
    CREATE TABLE games_v2 (
        game_id     INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id) ON UPDATE CASCADE,
        status      TEXT    NOT NULL
                    CHECK (status IN ('lobby', 'playing', 'finished', 'stopped',
                                      'expired', 'broken')),
        creator_id  INTEGER NOT NULL,
        created     REAL    NOT NULL,
        updated     REAL    NOT NULL,
        rules       TEXT    NOT NULL,
        seed        INTEGER NOT NULL,
        seats       TEXT    NOT NULL,
        version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
        lobby_rev   INTEGER NOT NULL DEFAULT 0 CHECK (lobby_rev >= 0),
        snapshot    TEXT,
        message_ids TEXT    NOT NULL DEFAULT '{}',
        deadline    REAL,
        lobby_code  TEXT,
        human_moved REAL,
        reason      TEXT
    )
    """,
    """
    INSERT INTO games_v2 (game_id, chat_id, status, creator_id, created, updated, rules, seed,
                          seats, version, lobby_rev, snapshot, message_ids, deadline,
                          lobby_code, human_moved, reason)
    SELECT game_id, chat_id, status, creator_id, created, updated, rules, seed, seats, version,
           lobby_rev, snapshot, message_ids, deadline, lobby_code,
           CASE WHEN status = 'lobby' THEN NULL ELSE updated END, NULL
    FROM games ORDER BY game_id
    """,
    # Keep AUTOINCREMENT's high-water mark: ids are never reused.
    """
    UPDATE sqlite_sequence
    SET seq = max(seq, COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'games'), 0))
    WHERE name = 'games_v2'
    """,
    "DROP TABLE games",
    "ALTER TABLE games_v2 RENAME TO games",
    *GAMES_INDEXES,
    # The expiry queries look at the active games only.
    "CREATE INDEX games_active_by_status ON games (status) WHERE status IN ('lobby', 'playing')",
    _CONTIGUOUS_TRIGGER,
    "ALTER TABLE score_sheets ADD COLUMN seq INTEGER CHECK (seq IS NULL OR seq >= 1)",
    """
    UPDATE score_sheets SET seq = (
        SELECT min(a.seq) FROM game_actions a
        WHERE a.game_id = score_sheets.game_id AND a.created = score_sheets.created
    )
    """,
)

# Versions 3 on: the same on both backends but for the types (``storage.sql``).
MIGRATIONS: Final[tuple[Migration, ...]] = (_V1, _V2, *shared_migrations(TYPES))
"""All migrations in order; ``len(MIGRATIONS)`` is the current schema version."""

SCHEMA_VERSION: Final[int] = len(MIGRATIONS)
