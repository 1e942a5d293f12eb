"""The change feed on PostgreSQL: every process's committed game changes, through the
database's own ``LISTEN``/``NOTIFY`` (``docs/storage.md``, *The feed*).

Each write of a game's row calls ``pg_notify`` in its own statement (``NOTIFY_SQL``, in the
``RETURNING`` of its ``UPDATE`` or the last select of a move): PostgreSQL delivers a
notification only when its transaction commits, to every session listening on the
channel, in commit order, and drops it with a rolled-back transaction.  So a listener is
told a change of any process once it is committed, never one that was not.

:class:`ChangeFeed` is one storage's listening side: a connection of its own (not the
pool's: a pooled connection holds no session state) that ``LISTEN``s on ``CHANNEL``
and hands each payload (``game_id:version``; a write of moves adds them, ``MOVED_SQL``) to
the listeners (a ``Fanout``).  If that
connection is lost (the server restarted, the session was terminated, the network broke:
a ping finds out), it connects again with back-off; the notifications sent meanwhile are
lost, so once it listens again it tells the listeners ``None``: read everything again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Final, cast, get_args

import asyncpg

from storage.base import Change, Moved
from storage.feed import Fanout, check_note
from storage.models import GameStatus
from storage.postgres.connection import DRIVER_ERRORS, Connection

__all__ = ["APPLICATION_NAME", "CHANNEL", "MOVED_SQL", "NOTES", "NOTE_SQL", "NOTIFY_SQL",
           "ChangeFeed", "moved_tail", "parse"]

LOG = logging.getLogger(__name__)

CHANNEL: Final = "thousand_games"
"""The channel of the games' changes."""
NOTES: Final = "thousand_notes"
"""The channel of the notes (``FeedStore.tell``): what processes tell each other unstored."""
NOTE_SQL: Final = f"SELECT pg_notify('{NOTES}', $1)"
"""A note told (on a pooled connection, outside any transaction: delivered at once)."""
APPLICATION_NAME: Final = "thousand-feed"
"""The listening connection's ``application_name`` (``pg_stat_activity``)."""
NOTIFY_SQL: Final = (
    f"pg_notify('{CHANNEL}', game_id::text || ':' || version::text)"
)
"""The notification of a ``games`` row (an expression over its ``game_id`` and
``version``): in the ``RETURNING`` of a statement that writes it."""
MOVED_SQL: Final = (
    f"pg_notify('{CHANNEL}', game_id::text || ':' || version::text"
    " || COALESCE(':' || {}::text, ''))"
)
"""The notification of a write of moves (``.format`` the parameter of ``moved_tail``'s
text, or NULL): ``game_id:version:status:deadline:message_ids<GS>records``, the records
between ``<RS>``."""
_STATUSES: Final = get_args(GameStatus)
_GS: Final = "\x1d"
_RS: Final = "\x1e"
"""Control characters, which JSON text never holds (``check_json``): after the message
ids, and between two records."""


def moved_tail(moved: Moved | None) -> str | None:
    """What ``MOVED_SQL`` adds for ``moved`` (``Moves.moved``); None: nothing (the
    notification is ``game_id:version``)."""
    if moved is None:
        return None
    deadline = "" if moved.deadline is None else repr(moved.deadline)
    return (f"{moved.status}:{deadline}:{moved.message_ids or ''}{_GS}"
            f"{_RS.join(moved.records)}")


def parse(payload: str) -> Change:
    """The change a notification tells (``ValueError`` if it is not one)."""
    parts = payload.split(":", 4)
    if len(parts) == 2:
        return Change(int(parts[0]), int(parts[1]))
    if len(parts) != 5:
        raise ValueError(payload)
    game_id, version, status, deadline, rest = parts
    ids, gs, records = rest.partition(_GS)
    if status not in _STATUSES or not gs or not records:
        raise ValueError(payload)
    return Change(int(game_id), int(version), Moved(
        tuple(records.split(_RS)), cast(GameStatus, status),
        float(deadline) if deadline else None, ids or None))


class ChangeFeed(Fanout):
    """The listeners of one ``PostgresStorage``, told what its ``LISTEN`` connection
    receives; ``open`` listens before it returns, ``close`` stops."""

    def __init__(
        self,
        connect: Callable[[], Awaitable[Connection]],
        where: str,
        *,
        retry: tuple[float, float] = (0.1, 5.0),
        ping_every: float = 10.0,
        send: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__()
        self._connect = connect
        self._send = send
        self._where = where
        self._retry = retry
        self._ping_every = ping_every
        self._conn: Connection | None = None
        self._lost = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.reconnects = 0
        """How many times the connection was made again (for tests and metrics)."""

    @classmethod
    async def open(cls, url: str, where: str, connect_timeout: float,
                   send: Callable[[str], Awaitable[object]] | None = None) -> ChangeFeed:
        """Connect and listen (asyncpg's errors when it cannot: ``PostgresStorage.open``
        maps them); ``send`` runs ``NOTE_SQL`` with a note (``tell``)."""

        async def connect() -> Connection:
            return await asyncpg.connect(
                url, timeout=connect_timeout,
                server_settings={"application_name": APPLICATION_NAME},
            )

        feed = cls(connect, where, send=send)
        await feed.start()
        return feed

    async def start(self) -> None:
        """Listen now (raising what asyncpg raises), then keep listening in a task of its
        own."""
        await self._listen()
        self._task = asyncio.get_running_loop().create_task(
            self._keep_listening(), name="storage-feed")

    async def close(self) -> None:
        """Stop listening and close the connection (idempotent)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                await asyncio.wait_for(conn.close(), 5.0)  # says goodbye to the server
            except DRIVER_ERRORS:
                conn.terminate()  # lost already, or the server does not answer
            except asyncio.CancelledError:
                conn.terminate()
                raise

    # ------------------------------------------------------------------ the connection

    async def _listen(self) -> None:
        conn = await self._connect()
        lost = asyncio.Event()
        conn.add_termination_listener(lambda _conn: lost.set())
        try:
            await conn.add_listener(CHANNEL, self._notified)
            await conn.add_listener(NOTES, self._noted)
        except BaseException:
            conn.terminate()
            raise
        self._conn, self._lost = conn, lost

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.is_closed():
            conn.terminate()  # a lost connection: no goodbye to wait for

    async def _keep_listening(self) -> None:
        """Watch the connection; when it is lost, connect again (back-off with jitter, up
        to ``retry[1]`` seconds between tries) and tell the listeners to read again."""
        while True:
            await self._until_lost()
            self._drop()
            LOG.warning("%s: the change feed lost its connection; connecting again",
                        self._where)
            delay = self._retry[0]
            while True:
                try:
                    await self._listen()
                    break
                except Exception as e:  # whatever it is, the feed must not stop trying
                    LOG.warning("%s: the change feed cannot listen yet (%s); again within %.1f s",
                                self._where, e, delay)
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self._retry[1])
            self.reconnects += 1
            self.publish(None)  # listening again: whatever was sent meanwhile is lost

    async def _until_lost(self) -> None:
        """Return once the connection is closed, or fails a ping (``SELECT 1`` every
        ``ping_every`` seconds when nothing closed it: a network that died silently)."""
        conn, lost = self._conn, self._lost
        while conn is not None and not lost.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lost.wait(), self._ping_every)
                return
            try:
                await asyncio.wait_for(conn.fetchval("SELECT 1"), self._ping_every)
            except Exception:  # any failure of the ping: connect again
                return

    def _notified(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        try:
            change = parse(payload)
        except ValueError:
            LOG.warning("%s: a notification on %s that is not game_id:version[:moves]: %r",
                        self._where, CHANNEL, payload[:200])
            return
        self.publish(change)

    def _noted(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        self.heard(payload)

    async def tell(self, note: str) -> None:
        """``NOTIFY`` every listening process (this one too) of ``note``."""
        check_note(note)
        if self._send is None:
            raise RuntimeError("a feed opened without a way to send notes")
        await self._send(note)
