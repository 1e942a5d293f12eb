"""SQL that is the same on both backends, written once.

The statements use SQLite's ``?`` placeholders; the PostgreSQL backend numbers them
(``numbered``: ``$1``, ``$2``, ... in order).  Only text that is the same in both dialects
belongs here: where they differ (``IS ?`` against ``IS NOT DISTINCT FROM $n``, ``REAL``
against ``DOUBLE PRECISION``, ``RETURNING``), each backend writes its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from storage.rows import STATS_COLUMNS

__all__ = [
    "CHAT_TOP",
    "FORGET_EDIT",
    "GAMES_INDEXES",
    "MARK_SHOWING",
    "MIGRATE_CHAT",
    "NEW_GAME_CLASHES",
    "Types",
    "coordination_tables",
    "game_tables",
    "numbered",
    "result_tables",
    "shared_migrations",
    "shown_messages",
    "stats_tables",
    "thread_of_game",
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


@dataclass(frozen=True, slots=True)
class Types:
    """How a dialect spells what the shared tables' columns differ in."""

    id: str
    """Telegram ids, game ids: ``INTEGER`` (SQLite) or ``BIGINT``."""
    time: str
    """Epoch seconds: ``REAL`` or ``DOUBLE PRECISION``."""
    serial: str
    """``games.game_id``: a key the database gives, never reused."""
    keyed: str
    """What ends a table stored by its primary key: ``) WITHOUT ROWID`` on SQLite."""
    boolean: bool
    """Flags are ``BOOLEAN`` (else ``INTEGER`` 0 or 1)."""

    def flag(self, name: str, default: bool | None = None) -> str:
        """The type, default and constraint of the flag column ``name``."""
        if self.boolean:
            return "BOOLEAN NOT NULL" + ("" if default is None else f" DEFAULT {default!s}".upper())
        return ("INTEGER NOT NULL" + ("" if default is None else f" DEFAULT {int(default)}")
                + f" CHECK ({name} IN (0, 1))")


def game_tables(t: Types) -> tuple[str, ...]:
    """Migration 1, its first part: chats, users, games and their actions (each backend
    then adds what keeps the log contiguous and append-only: a trigger)."""
    return (
        f"""
    CREATE TABLE chats (
        chat_id       {t.id} PRIMARY KEY,
        kind          TEXT    NOT NULL CHECK (kind IN ('private', 'group', 'supergroup')),
        language      TEXT    NOT NULL,
        default_rules TEXT,
        created       {t.time}    NOT NULL,
        updated       {t.time}    NOT NULL
    )
    """,
        f"""
    CREATE TABLE users (
        user_id    {t.id} PRIMARY KEY,
        first_name TEXT    NOT NULL,
        username   TEXT,
        language   TEXT,
        started    {t.flag("started", False)},
        blocked    {t.flag("blocked", False)},
        created    {t.time}    NOT NULL,
        updated    {t.time}    NOT NULL
    )
    """,
        # The CHECK of the statuses is games_status_check on PostgreSQL (migration 2).
        f"""
    CREATE TABLE games (
        game_id     {t.serial},
        chat_id     {t.id} NOT NULL REFERENCES chats (chat_id) ON UPDATE CASCADE,
        status      TEXT    NOT NULL
                    CHECK (status IN ('lobby', 'playing', 'finished', 'stopped')),
        creator_id  {t.id} NOT NULL,
        created     {t.time}    NOT NULL,
        updated     {t.time}    NOT NULL,
        rules       TEXT    NOT NULL,
        seed        {t.id} NOT NULL,
        seats       TEXT    NOT NULL,
        version     INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
        lobby_rev   INTEGER NOT NULL DEFAULT 0 CHECK (lobby_rev >= 0),
        snapshot    TEXT,
        message_ids TEXT    NOT NULL DEFAULT '{{}}',
        deadline    {t.time},
        lobby_code  TEXT
    )
    """,
        *GAMES_INDEXES,
        f"""
    CREATE TABLE game_actions (
        game_id {t.id} NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        seq     INTEGER NOT NULL CHECK (seq >= 1),
        action  TEXT    NOT NULL,
        created {t.time}    NOT NULL,
        PRIMARY KEY (game_id, seq)
    {t.keyed}
    """,
    )


def result_tables(t: Types) -> tuple[str, ...]:
    """Migration 1, its last part: the score sheets and results of the games."""
    return (
        f"""
    CREATE TABLE score_sheets (
        game_id {t.id} NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
        deal_no {t.id} NOT NULL CHECK (deal_no >= 0),
        data    TEXT    NOT NULL,
        created {t.time}    NOT NULL,
        PRIMARY KEY (game_id, deal_no)
    {t.keyed}
    """,
        f"""
    CREATE TABLE results (
        game_id     {t.id} PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        finished    {t.time}    NOT NULL,
        winner_seat {t.id} CHECK (winner_seat IS NULL OR winner_seat >= 0),
        totals      TEXT    NOT NULL,
        stopped     {t.flag("stopped")}
    )
    """,
    )


def stats_tables(t: Types) -> tuple[str, ...]:
    """Migration 3: players' records and ratings (``docs/storage.md``, *Stats and ratings*).

    ``player_stats`` is one row per player ("u:<user_id>" a person, "ai:<level>" a computer
    level): sums over the rated games and the rating (mu, sigma; NULL until rated).
    ``game_players`` is one row per seat of a rated game (who sat there, the place, a win),
    so a chat's table and a person's results against the computers are read from the
    games.  ``rated_games`` marks a game whose result was counted: written in the same
    transaction as the sums, so a game counts once.  Games finished before this version are
    not marked: the bot counts them at its next start-up."""
    return (
        f"""
    CREATE TABLE player_stats (
        player    TEXT    PRIMARY KEY,
        games     INTEGER NOT NULL DEFAULT 0 CHECK (games >= 0),
        wins      INTEGER NOT NULL DEFAULT 0 CHECK (wins >= 0),
        place_sum {t.time}    NOT NULL DEFAULT 0,
        declared  INTEGER NOT NULL DEFAULT 0 CHECK (declared >= 0),
        made      INTEGER NOT NULL DEFAULT 0 CHECK (made >= 0),
        falls     INTEGER NOT NULL DEFAULT 0 CHECK (falls >= 0),
        bolts     INTEGER NOT NULL DEFAULT 0 CHECK (bolts >= 0),
        mu        {t.time},
        sigma     {t.time}    CHECK (sigma IS NULL OR sigma > 0),
        updated   {t.time}    NOT NULL
    {t.keyed}
    """,
        f"""
    CREATE TABLE rated_games (
        game_id {t.id} PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        rated   {t.time}    NOT NULL
    )
    """,
        f"""
    CREATE TABLE game_players (
        game_id {t.id} NOT NULL REFERENCES rated_games (game_id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL CHECK (seat >= 0),
        player  TEXT    NOT NULL,
        place   INTEGER NOT NULL CHECK (place >= 1),
        win     {t.flag('win')},
        PRIMARY KEY (game_id, seat)
    {t.keyed}
    """,
        "CREATE INDEX game_players_by_player ON game_players (player, game_id)",
    )


def coordination_tables(t: Types) -> tuple[str, ...]:
    """Migration 4: coordination of several bot processes on one database
    (``docs/deploy.md``, *How processes share the tables*).

    ``leases``: the process (``owner``) that runs a game's timers and computer moves until
    ``expires`` (epoch seconds).  ``group_sends``: the requests made to a group in the last
    minute, by every process (its message budget).  ``sent_messages``: a message slot of a
    chat ("the table of deal 5") claimed by the process that sends it, and the message id
    once sent, so that a message is sent once.  A single process (the default) writes none
    of them."""
    return (
        f"""
    CREATE TABLE leases (
        game_id {t.id} PRIMARY KEY REFERENCES games (game_id) ON DELETE CASCADE,
        owner   TEXT    NOT NULL,
        expires {t.time}    NOT NULL
    )
    """,
        "CREATE INDEX leases_by_owner ON leases (owner)",
        f"""
    CREATE TABLE group_sends (
        chat_id {t.id} NOT NULL,
        at      {t.time}    NOT NULL
    )
    """,
        "CREATE INDEX group_sends_by_chat ON group_sends (chat_id, at)",
        f"""
    CREATE TABLE sent_messages (
        chat_id    {t.id} NOT NULL,
        slot       TEXT    NOT NULL,
        owner      TEXT    NOT NULL,
        message_id {t.id},
        claimed    {t.time}    NOT NULL,
        PRIMARY KEY (chat_id, slot)
    {t.keyed}
    """,
    )


def thread_of_game(t: Types) -> tuple[str, ...]:
    """Migration 5: the topic of a forum (Telegram's ``message_thread_id``) is part of a
    game (issue 18).  ``thread_id`` NULL is the chat's General topic, or a chat without
    topics (every game from before); a chat may have one game in lobby/playing per thread,
    NULL being a place of its own (``COALESCE(thread_id, 0)``: thread ids are >= 1)."""
    return (
        f"ALTER TABLE games ADD COLUMN thread_id {t.id}"
        " CHECK (thread_id IS NULL OR thread_id >= 1)",
        "DROP INDEX games_one_active_per_chat",
        """
    CREATE UNIQUE INDEX games_one_active_per_thread
        ON games (chat_id, COALESCE(thread_id, 0)) WHERE status IN ('lobby', 'playing')
    """,
    )


def shown_messages(t: Types) -> tuple[str, ...]:
    """Migration 6: what a shared message shows (issue 22, no edit that changes nothing
    across processes).  ``shown``: the digest of the content Telegram shows, stored right
    after the send or edit that put it there; ``showing``: the digest of an edit in flight,
    by ``editor`` since ``showing_at`` (epoch seconds).  A process about to edit reads them
    in the transaction that checks the game's lease (``begin_edit``): the content already
    shown is not edited again, and another process's edit in flight is waited for."""
    return (
        "ALTER TABLE sent_messages ADD COLUMN shown TEXT",
        "ALTER TABLE sent_messages ADD COLUMN showing TEXT",
        "ALTER TABLE sent_messages ADD COLUMN editor TEXT",
        f"ALTER TABLE sent_messages ADD COLUMN showing_at {t.time}",
    )


def shared_migrations(t: Types) -> tuple[tuple[str, ...], ...]:
    """Migrations 3 on, the same on both backends but for how they spell the types (1 and
    2 are each backend's own).  A new migration is added here, once."""
    return (stats_tables(t), coordination_tables(t), thread_of_game(t), shown_messages(t))

SET_MESSAGE_IDS = "UPDATE games SET message_ids = ? WHERE game_id = ?"
"""What the game's messages show (``Moves.message_ids``), in the moves' own transaction."""
