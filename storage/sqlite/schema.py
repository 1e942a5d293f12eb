"""The SQLite schema, as an ordered list of migrations (applied by
``storage.sqlite.migrations``).

``PRAGMA user_version`` holds how many migrations the database has applied.
Migration ``n`` (1-based) brings a database from version ``n - 1`` to ``n``.
Never edit a migration that has shipped: append a new one.
"""

from __future__ import annotations

from typing import Final

from storage.base import Migration
from storage.sql import GAMES_INDEXES, ONE_ACTIVE_PER_THREAD, SHOWN_COLUMNS

_V1: Final[Migration] = (
    """
    CREATE TABLE chats (
        chat_id       INTEGER PRIMARY KEY,
        kind          TEXT    NOT NULL CHECK (kind IN ('private', 'group', 'supergroup')),
        language      TEXT    NOT NULL,
        default_rules TEXT,
        created       REAL    NOT NULL,
        updated       REAL    NOT NULL
    )
    """,
    """
    CREATE TABLE users (
        user_id    INTEGER PRIMARY KEY,
        first_name TEXT    NOT NULL,
        username   TEXT,
        language   TEXT,
        started    INTEGER NOT NULL DEFAULT 0 CHECK (started IN (0, 1)),
        blocked    INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
        created    REAL    NOT NULL,
        updated    REAL    NOT NULL
    )
    """,
    """
    CREATE TABLE games (
        game_id     INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id     INTEGER NOT NULL REFERENCES chats (chat_id) ON UPDATE CASCADE,
        status      TEXT    NOT NULL
                    CHECK (status IN ('lobby', 'playing', 'finished', 'stopped')),
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
        lobby_code  TEXT
    )
    """,
    *GAMES_INDEXES,
    """
    CREATE TABLE game_actions (
        game_id INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL CHECK (seq >= 1),
        action  TEXT    NOT NULL,
        created REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID
    """,
    # The log is contiguous: an action gets seq = the game's version + 1 ...
    """
    CREATE TRIGGER game_actions_contiguous
    BEFORE INSERT ON game_actions
    WHEN NEW.seq IS NOT (SELECT version + 1 FROM games WHERE game_id = NEW.game_id)
    BEGIN
        SELECT RAISE(ABORT, 'game_actions: seq must be the game version + 1');
    END
    """,
    # ... and append-only.
    """
    CREATE TRIGGER game_actions_append_only
    BEFORE UPDATE ON game_actions
    BEGIN
        SELECT RAISE(ABORT, 'game_actions is append-only');
    END
    """,
    """
    CREATE TABLE score_sheets (
        game_id INTEGER NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        deal_no INTEGER NOT NULL CHECK (deal_no >= 0),
        data    TEXT    NOT NULL,
        created REAL    NOT NULL,
        PRIMARY KEY (game_id, deal_no)
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE results (
        game_id     INTEGER PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        finished    REAL    NOT NULL,
        winner_seat INTEGER CHECK (winner_seat IS NULL OR winner_seat >= 0),
        totals      TEXT    NOT NULL,
        stopped     INTEGER NOT NULL CHECK (stopped IN (0, 1))
    )
    """,
)

_CONTIGUOUS_TRIGGER: Final = """
    CREATE TRIGGER game_actions_contiguous
    BEFORE INSERT ON game_actions
    WHEN NEW.seq IS NOT (SELECT version + 1 FROM games WHERE game_id = NEW.game_id)
    BEGIN
        SELECT RAISE(ABORT, 'game_actions: seq must be the game version + 1');
    END
    """

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

# Version 3: players' records and ratings (``docs/storage.md``, *Stats and ratings*).
# ``player_stats`` is one row per player ("u:<user_id>" a person, "ai:<level>" a computer
# level): sums over the rated games and the rating (mu, sigma; NULL until rated).
# ``game_players`` is one row per seat of a rated game (who sat there, the place, a win), so
# a chat's table and a person's results against the computers are read from the games.
# ``rated_games`` marks a game whose result was counted: written in the same transaction
# as the sums, so a game counts once.  Games finished before this version are not marked:
# the bot counts them at its next start-up.
_V3: Final[Migration] = (
    """
    CREATE TABLE player_stats (
        player    TEXT    PRIMARY KEY,
        games     INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),
        wins      INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0),
        place_sum REAL    NOT NULL DEFAULT 0,
        declared  INTEGER NOT NULL DEFAULT 0 CHECK (declared >= 0),
        made      INTEGER NOT NULL DEFAULT 0 CHECK (made >= 0),
        falls     INTEGER NOT NULL DEFAULT 0 CHECK (falls >= 0),
        bolts     INTEGER NOT NULL DEFAULT 0 CHECK (bolts >= 0),
        mu        REAL,
        sigma     REAL    CHECK (sigma IS NULL OR sigma > 0),
        updated   REAL    NOT NULL
    ) WITHOUT ROWID
    """,
    """
    CREATE TABLE rated_games (
        game_id INTEGER PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        rated   REAL    NOT NULL
    )
    """,
    """
    CREATE TABLE game_players (
        game_id INTEGER NOT NULL REFERENCES rated_games (game_id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL CHECK (seat >= 0),
        player  TEXT    NOT NULL,
        place   INTEGER NOT NULL CHECK (place >= 1),
        win     INTEGER NOT NULL CHECK (win IN (0, 1)),
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX game_players_by_player ON game_players (player, game_id)",
)

# Version 4: coordination of several bot processes on one database (``docs/deploy.md``,
# *How processes share the tables*).  ``leases``: the process (``owner``) that runs a
# game's timers and computer moves until ``expires`` (epoch seconds).  ``group_sends``: the
# requests made to a group in the last minute, by every process (its message budget).
# ``sent_messages``: a message slot of a chat ("the table of deal 5") claimed by the
# process that sends it, and the message id once sent, so that a message is sent once.
# A single process (the default) writes none of them.
_V4: Final[Migration] = (
    """
    CREATE TABLE leases (
        game_id INTEGER PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        owner   TEXT    NOT NULL,
        expires REAL    NOT NULL
    )
    """,
    "CREATE INDEX leases_by_owner ON leases (owner)",
    """
    CREATE TABLE group_sends (
        chat_id INTEGER NOT NULL,
        at      REAL    NOT NULL
    )
    """,
    "CREATE INDEX group_sends_by_chat ON group_sends (chat_id, at)",
    """
    CREATE TABLE sent_messages (
        chat_id    INTEGER NOT NULL,
        slot       TEXT    NOT NULL,
        owner      TEXT    NOT NULL,
        message_id INTEGER,
        claimed    REAL    NOT NULL,
        PRIMARY KEY (chat_id, slot)
    ) WITHOUT ROWID
    """,
)

# Version 5: the topic of a forum (Telegram's ``message_thread_id``) is part of a game
# (issue 18).  ``thread_id`` NULL is the chat's General topic, or a chat without topics
# (every game from before); a chat may have one game in lobby/playing per thread, NULL
# being a place of its own (``COALESCE(thread_id, 0)``: thread ids are >= 1).
_V5: Final[Migration] = (
    "ALTER TABLE games ADD COLUMN thread_id INTEGER CHECK (thread_id IS NULL OR thread_id >= 1)",
    *ONE_ACTIVE_PER_THREAD,
)

# Version 6: what a shared message shows (issue 22, no edit that changes nothing across
# processes).  ``shown``: the digest of the content Telegram shows, stored right after the
# send or edit that put it there; ``showing``: the digest of an edit in flight, by
# ``editor`` since ``showing_at`` (epoch seconds).  A process about to edit reads them in
# the transaction that checks the game's lease (``begin_edit``): the content already shown
# is not edited again, and another process's edit in flight is waited for.
_V6: Final[Migration] = (
    *SHOWN_COLUMNS,
    "ALTER TABLE sent_messages ADD COLUMN showing_at REAL",
)

MIGRATIONS: Final[tuple[Migration, ...]] = (_V1, _V2, _V3, _V4, _V5, _V6)
"""All migrations in order; ``len(MIGRATIONS)`` is the current schema version."""

SCHEMA_VERSION: Final[int] = len(MIGRATIONS)
