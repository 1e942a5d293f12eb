"""Coordination of several bot processes on one SQLite database (``bot/tg/io/coord.py``,
``docs/deploy.md``): game leases, the shared group request budget and send-once messages.
A single process never calls these.  Times are epoch seconds of the storage's clock."""

from __future__ import annotations

from storage.checks import check_time
from storage.rows import opt_int
from storage.sql import FORGET_EDIT, MARK_SHOWING
from storage.sqlite.connection import Database
from storage.state import edit_state

__all__ = ["Coordination"]


class Coordination:
    """The ``leases``, ``group_sends`` and ``sent_messages`` tables."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool:
        """Hold the game's lease for ``ttl`` seconds: taken when it is free, expired or
        already ``owner``'s (``force``: taken in any case — the process that stored the last
        move).  True if ``owner`` holds it now."""
        check_time("ttl", ttl)
        async with self._db.write() as now:
            n = await self._db.execute(
                "INSERT INTO leases (game_id, owner, expires) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner,"
                " expires = excluded.expires"
                " WHERE ? OR leases.owner = excluded.owner OR leases.expires <= ?",
                (game_id, owner, now + ttl, int(force), now),
            )
        return n == 1

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]:
        """Extend every lease ``owner`` holds by ``ttl`` seconds from now (one statement);
        returns the games whose lease it still holds with their stored versions (a holder
        whose copy is older reloads it: a move stored by a process that died before it
        took the lease)."""
        check_time("ttl", ttl)
        async with self._db.write() as now:
            rows = await self._db.fetchall(
                "UPDATE leases SET expires = ? WHERE owner = ? RETURNING game_id,"
                " (SELECT g.version FROM games g WHERE g.game_id = leases.game_id) AS version",
                (now + ttl, owner),
            )
        return {int(r["game_id"]): int(r["version"] or 0) for r in rows}

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]:
        """Take the leases of playing games that nobody holds: expired (the takeover of a
        dead process's games), or never taken and unchanged for ``ttl`` seconds (a new game
        is left to the process that started it meanwhile).  Leases of games no longer
        playing are dropped.  Returns the games taken, by id."""
        check_time("ttl", ttl)
        async with self._db.write() as now:
            await self._db.execute(
                "DELETE FROM leases WHERE game_id IN (SELECT l.game_id FROM leases l"
                " JOIN games g ON g.game_id = l.game_id WHERE g.status <> 'playing')", ())
            rows = await self._db.fetchall(
                "INSERT INTO leases (game_id, owner, expires)"
                " SELECT g.game_id, ?, ? FROM games g LEFT JOIN leases l"
                " ON l.game_id = g.game_id"
                " WHERE g.status = 'playing'"
                " AND (l.expires <= ? OR (l.game_id IS NULL AND g.updated <= ?))"
                " ORDER BY g.game_id LIMIT ?"
                " ON CONFLICT (game_id) DO UPDATE SET owner = excluded.owner,"
                " expires = excluded.expires WHERE leases.expires <= ?"
                " RETURNING game_id",
                (owner, now + ttl, now, now - ttl, limit, now),
            )
        return sorted(int(r["game_id"]) for r in rows)

    async def release_leases(self, owner: str) -> int:
        """Give up every lease of ``owner`` (a clean shutdown): others take over at once."""
        async with self._db.write():
            return await self._db.execute("DELETE FROM leases WHERE owner = ?", (owner,))

    async def lease_owner(self, game_id: int) -> str | None:
        """Who holds the game's lease now (None: nobody, or it expired)."""
        async with self._db.read():
            row = await self._db.fetchone(
                "SELECT owner FROM leases WHERE game_id = ? AND expires > ?",
                (game_id, self._db.now()),
            )
        return None if row is None else str(row["owner"])

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]:
        """One request to the group ``chat_id`` if fewer than ``limit`` were made (by every
        process) in the last ``window`` seconds: it is counted and ``(0.0, counted)``
        returned (``counted``: the time it is counted at, for ``group_sent``); otherwise
        nothing is counted and ``(seconds until there is room, None)`` returned."""
        check_time("window", window)
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        db = self._db
        async with db.write() as now:
            await db.execute("DELETE FROM group_sends WHERE chat_id = ? AND at <= ?",
                             (chat_id, now - window))
            rows = await db.fetchall(
                "SELECT at FROM group_sends WHERE chat_id = ? ORDER BY at DESC LIMIT ?",
                (chat_id, limit))
            if len(rows) >= limit:
                return max(0.001, float(rows[limit - 1]["at"]) + window - now), None
            await db.execute("INSERT INTO group_sends (chat_id, at) VALUES (?, ?)",
                             (chat_id, now))
        return 0.0, now

    async def group_sent(self, chat_id: int, counted: float) -> None:
        """The request counted at ``counted`` (``group_send``) is over: it counts from now.
        Telegram counts a request when it arrives, which is after it was counted here and
        no later than its answer; counting each from its answer keeps every window true
        however long the request took."""
        db = self._db
        async with db.write() as now:
            await db.execute(
                "UPDATE group_sends SET at = ? WHERE rowid = (SELECT rowid FROM group_sends"
                " WHERE chat_id = ? AND at = ? LIMIT 1)", (max(now, counted), chat_id, counted))

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]:
        """Claim the right to send the message ``slot`` of ``chat_id`` as a new message.

        Returns ``(True, None)``: ``owner`` claimed it (send it, then ``message_sent``);
        ``(False, message_id)``: it was sent already (edit that message);
        ``(False, None)``: another process is sending it now (ask again soon).  A claim
        without a message id older than ``stale_after`` seconds (its process died
        mid-send) is taken over."""
        async with self._db.write() as now:
            n = await self._db.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES (?, ?, ?, NULL, ?)"
                " ON CONFLICT (chat_id, slot) DO UPDATE SET owner = excluded.owner,"
                " claimed = excluded.claimed"
                " WHERE sent_messages.message_id IS NULL"
                " AND (sent_messages.owner = excluded.owner OR sent_messages.claimed <= ?)",
                (chat_id, slot, owner, now, now - stale_after),
            )
            if n == 1:
                return True, None
            row = await self._db.fetchone(
                "SELECT message_id FROM sent_messages WHERE chat_id = ? AND slot = ?",
                (chat_id, slot))
        mid = None if row is None else opt_int(row["message_id"])
        return False, mid

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str:
        """May ``owner`` edit the message of ``slot`` to the content ``digest`` now?

        ``"lost"``: another process holds the game's lease (it shows the game; ``owner``'s
        own edit in flight, if any, is forgotten); ``"busy"``: another process's edit of
        the message is in flight (begun less than ``busy_for`` seconds ago): ask again
        soon, so that the two edits never cross; ``"shown"``: the message shows ``digest``
        already (no request); ``"go"``: edit it (recorded as in flight by ``owner`` until
        ``end_edit``).  A slot not in the table (a message renamed into it) is ``"go"``."""
        check_time("busy_for", busy_for)
        db = self._db
        async with db.write() as now:
            if game_id is not None:
                lease = await db.fetchone(
                    "SELECT owner FROM leases WHERE game_id = ? AND expires > ?", (game_id, now))
                if lease is not None and str(lease["owner"]) != owner:
                    await db.execute(FORGET_EDIT, (chat_id, slot, owner))
                    return "lost"
            row = await db.fetchone(
                "SELECT shown, showing, editor, showing_at FROM sent_messages"
                " WHERE chat_id = ? AND slot = ?", (chat_id, slot))
            state = edit_state(row, owner, digest, now - busy_for)
            if state == "go":
                await db.execute(MARK_SHOWING, (digest, owner, now, chat_id, slot))
        return state

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None:
        """``owner``'s request for ``slot`` is over: the message shows ``shown`` (the edit or
        the send went through, or Telegram said "not modified"), or None (it failed: what
        the message shows is unchanged)."""
        async with self._db.write():
            if shown is not None:
                await self._db.execute(
                    "UPDATE sent_messages SET shown = ? WHERE chat_id = ? AND slot = ?",
                    (shown, chat_id, slot))
            await self._db.execute(
                "UPDATE sent_messages SET showing = NULL, editor = NULL"
                " WHERE chat_id = ? AND slot = ? AND editor = ?", (chat_id, slot, owner))

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        """The message of ``slot`` is ``message_id`` (sent, or a message renamed into the
        slot); None forgets the slot (its message is gone: the next claim sends anew)."""
        async with self._db.write() as now:
            if message_id is None:
                await self._db.execute(
                    "DELETE FROM sent_messages WHERE chat_id = ? AND slot = ?", (chat_id, slot))
                return
            await self._db.execute(
                "INSERT INTO sent_messages (chat_id, slot, owner, message_id, claimed)"
                " VALUES (?, ?, '', ?, ?) ON CONFLICT (chat_id, slot) DO UPDATE"
                " SET message_id = excluded.message_id",
                (chat_id, slot, message_id, now),
            )

    async def prune_coordination(self, older_than: float) -> int:
        """Forget sent-message claims and group requests older than ``older_than``
        seconds; returns the rows deleted."""
        check_time("older_than", older_than)
        async with self._db.write() as now:
            n = await self._db.execute("DELETE FROM sent_messages WHERE claimed <= ?",
                                       (now - older_than,))
            n += await self._db.execute("DELETE FROM group_sends WHERE at <= ?",
                                        (now - max(older_than, 60.0),))
        return n
