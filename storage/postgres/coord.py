"""Coordination of several bot processes on one PostgreSQL database, as SQLite's
(``storage/sqlite/coord.py``); PostgreSQL serialises them with row locks (the upserts) and
a transaction-level advisory lock per group (``group_send``)."""

from __future__ import annotations

from typing import Final

from storage.checks import check_int64, check_time
from storage.postgres.connection import Pool, count
from storage.sql import FORGET_EDIT, MARK_SHOWING, numbered
from storage.state import edit_state

_FORGET_EDIT: Final = numbered(FORGET_EDIT)
_MARK_SHOWING: Final = numbered(MARK_SHOWING)

__all__ = ["Coordination"]


class Coordination:
    """The ``leases``, ``group_sends`` and ``sent_messages`` tables: an upsert takes the row
    lock of what it changes, so two processes taking one lease or message run one after
    the other; ``group_send`` counts under an advisory lock of the group."""

    def __init__(self, pg: Pool) -> None:
        self._pg = pg

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool:
        check_time("ttl", ttl)
        now = self._pg.now()
        async with self._pg.conn() as conn:
            status = await conn.execute(
                "INSERT INTO leases (game_id, owner, expires) VALUES ($1, $2, $3)"
                " ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner,"
                " expires = EXCLUDED.expires"
                " WHERE $4 OR leases.owner = EXCLUDED.owner OR leases.expires <= $5",
                check_int64("game_id", game_id), owner, now + ttl, bool(force), now,
            )
        return count(str(status)) == 1

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]:
        check_time("ttl", ttl)
        rows = await self._pg.fetch(
            "UPDATE leases l SET expires = $1 FROM games g"
            " WHERE l.owner = $2 AND g.game_id = l.game_id RETURNING l.game_id, g.version",
            self._pg.now() + ttl, owner,
        )
        return {int(r["game_id"]): int(r["version"]) for r in rows}

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]:
        check_time("ttl", ttl)
        async with self._pg.tx() as (conn, now):
            await conn.execute(
                "DELETE FROM leases l USING games g"
                " WHERE g.game_id = l.game_id AND g.status <> 'playing'")
            rows = await conn.fetch(
                "INSERT INTO leases (game_id, owner, expires)"
                " SELECT g.game_id, $1, $2 FROM games g LEFT JOIN leases l"
                " ON l.game_id = g.game_id"
                " WHERE g.status = 'playing'"
                " AND (l.expires <= $3 OR (l.game_id IS NULL AND g.updated <= $5))"
                " ORDER BY g.game_id LIMIT $4"
                " ON CONFLICT (game_id) DO UPDATE SET owner = EXCLUDED.owner,"
                " expires = EXCLUDED.expires WHERE leases.expires <= $3"
                " RETURNING game_id",
                owner, now + ttl, now, limit, now - ttl,
            )
        return sorted(int(r["game_id"]) for r in rows)

    async def release_leases(self, owner: str) -> int:
        async with self._pg.conn() as conn:
            status = await conn.execute("DELETE FROM leases WHERE owner = $1", owner)
        return count(str(status))

    async def lease_owner(self, game_id: int) -> str | None:
        value = await self._pg.fetchval(
            "SELECT owner FROM leases WHERE game_id = $1 AND expires > $2",
            check_int64("game_id", game_id), self._pg.now(),
        )
        return None if value is None else str(value)

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]:
        check_time("window", window)
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        async with self._pg.tx() as (conn, now):
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('group_sends:' || $1::bigint, 0))",
                check_int64("chat_id", chat_id))
            await conn.execute("DELETE FROM group_sends WHERE chat_id = $1 AND at <= $2",
                               chat_id, now - window)
            rows = await conn.fetch(
                "SELECT at FROM group_sends WHERE chat_id = $1 ORDER BY at DESC LIMIT $2",
                chat_id, limit)
            if len(rows) >= limit:
                return max(0.001, float(rows[limit - 1]["at"]) + window - now), None
            await conn.execute("INSERT INTO group_sends (chat_id, at) VALUES ($1, $2)",
                               chat_id, now)
        return 0.0, now

    async def group_sent(self, chat_id: int, counted: float) -> None:
        async with self._pg.tx() as (conn, now):
            await conn.execute(
                "UPDATE group_sends SET at = $1 WHERE ctid = (SELECT ctid FROM group_sends"
                " WHERE chat_id = $2 AND at = $3 LIMIT 1)",
                max(now, counted), check_int64("chat_id", chat_id), counted)

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]:
        async with self._pg.tx() as (conn, now):
            status = await conn.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES ($1, $2, $3, NULL, $4)"
                " ON CONFLICT (chat_id, slot) DO UPDATE SET owner = EXCLUDED.owner,"
                " claimed = EXCLUDED.claimed"
                " WHERE sent_messages.message_id IS NULL"
                " AND (sent_messages.owner = EXCLUDED.owner OR sent_messages.claimed <= $5)",
                check_int64("chat_id", chat_id), slot, owner, now, now - stale_after,
            )
            if count(str(status)) == 1:
                return True, None
            value = await conn.fetchval(
                "SELECT message_id FROM sent_messages WHERE chat_id = $1 AND slot = $2",
                chat_id, slot)
        return False, None if value is None else int(value)

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str:
        check_time("busy_for", busy_for)
        async with self._pg.tx() as (conn, now):
            # the row first (FOR UPDATE: a second process's ``begin_edit`` of the message
            # waits for this one and sees its edit in flight), then the lease
            row = await conn.fetchrow(
                "SELECT shown, showing, editor, showing_at FROM sent_messages"
                " WHERE chat_id = $1 AND slot = $2 FOR UPDATE",
                check_int64("chat_id", chat_id), slot)
            if game_id is not None:
                holder = await conn.fetchval(
                    "SELECT owner FROM leases WHERE game_id = $1 AND expires > $2",
                    check_int64("game_id", game_id), now)
                if holder is not None and str(holder) != owner:
                    await conn.execute(_FORGET_EDIT, chat_id, slot, owner)
                    return "lost"
            state = edit_state(row, owner, digest, now - busy_for)
            if state == "go":
                await conn.execute(_MARK_SHOWING, digest, owner, now, chat_id, slot)
        return state

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None:
        async with self._pg.conn() as conn:
            await conn.execute(
                "UPDATE sent_messages SET shown = COALESCE($1, shown),"
                " showing = CASE WHEN editor = $2 THEN NULL ELSE showing END,"
                " editor = CASE WHEN editor = $2 THEN NULL ELSE editor END"
                " WHERE chat_id = $3 AND slot = $4",
                shown, owner, check_int64("chat_id", chat_id), slot)

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        now = self._pg.now()
        async with self._pg.conn() as conn:
            if message_id is None:
                await conn.execute(
                    "DELETE FROM sent_messages WHERE chat_id = $1 AND slot = $2",
                    check_int64("chat_id", chat_id), slot)
                return
            await conn.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES ($1, $2, '', $3, $4) ON CONFLICT (chat_id, slot) DO UPDATE"
                " SET message_id = EXCLUDED.message_id",
                check_int64("chat_id", chat_id), slot, check_int64("message_id", message_id), now,
            )

    async def prune_coordination(self, older_than: float) -> int:
        check_time("older_than", older_than)
        async with self._pg.tx() as (conn, now):
            n = count(str(await conn.execute(
                "DELETE FROM sent_messages WHERE claimed <= $1", now - older_than)))
            n += count(str(await conn.execute(
                "DELETE FROM group_sends WHERE at <= $1", now - max(older_than, 60.0))))
        return n
