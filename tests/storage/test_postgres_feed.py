"""Issue 49, storage: the change feed on PostgreSQL across processes (``storage.postgres.feed``).

Two ``PostgresStorage`` opened on one database are two processes as far as the server
knows: each has its pool and its own ``LISTEN`` connection.  A write through either is told
to both within a second; the listen connection killed by the server (``pg_terminate_backend``)
comes back by itself and tells its listeners to read everything again; a connection that
cannot be made at once is tried again with back-off.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest

from storage.base import Change
from storage.postgres import PostgresStorage
from storage.postgres.feed import APPLICATION_NAME, ChangeFeed
from tests.pg import pg_url
from tests.storage.test_contract import act, new_game, snap
from tests.storage.test_feed_contract import Heard, Notes, listening, move, moved

__all__ = ["pg_url"]


async def _kill_listeners(store: PostgresStorage) -> int:
    """Terminate the listen connections of this database (every storage's); how many."""
    killed = await store._pool.fetchval(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
        " WHERE application_name = $1 AND datname = current_database()",
        APPLICATION_NAME,
    )
    return int(killed)


@contextlib.asynccontextmanager
async def two_processes(
    url: str,
) -> AsyncIterator[tuple[PostgresStorage, PostgresStorage, int, int]]:
    """Two storages on one database, a marker game and a game, both started."""
    async with PostgresStorage.open(url) as first, PostgresStorage.open(url) as second:
        marker = await new_game(first, -300, start=True)
        yield first, second, marker, await new_game(first, start=True)


async def test_a_write_through_one_process_reaches_the_other_within_a_second(
    pg_url: str,
) -> None:
    async with two_processes(pg_url) as (first, second, marker, game):
        on_first, on_second = Heard(first), Heard(second)
        mark = await move(first, marker)  # both heard everything before it: forget it
        for heard in (on_first, on_second):
            await heard.hears(mark)
            heard.changes.clear()
        delays: list[float] = []
        for version in range(6):
            writer = (first, second)[version % 2]  # moves made through each process
            await writer.append_action(game, version, act(version + 1), snap(version + 1),
                                       deadline=None)
            stored = time.perf_counter()
            await on_second.hears(moved(game, version + 1, version + 1), timeout=1.0)
            delays.append(time.perf_counter() - stored)
            await on_first.hears(moved(game, version + 1, version + 1), timeout=1.0)
        assert max(delays) < 1.0
        assert on_first.changes == on_second.changes == [moved(game, v, v) for v in range(1, 7)]


async def test_a_note_told_by_one_process_is_heard_by_both_within_a_second(
    pg_url: str,
) -> None:
    """Notes (``FeedStore.tell``: the watchers of each process's pages) go through the
    database's own ``NOTIFY`` too, on a channel of their own, and are never stored."""
    async with two_processes(pg_url) as (first, second, _marker, _game):
        on_first, on_second = Notes(first), Notes(second)
        delays: list[float] = []
        for n in range(6):
            teller = (first, second)[n % 2]
            told = time.perf_counter()
            await teller.feed.tell(f"w:{n}:1=42")
            await on_second.hears(f"w:{n}:1=42", timeout=1.0)
            delays.append(time.perf_counter() - told)
            await on_first.hears(f"w:{n}:1=42", timeout=1.0)
        assert max(delays) < 1.0
        assert on_first.notes == on_second.notes == [f"w:{n}:1=42" for n in range(6)]
        # a listen connection lost and back (its listeners told None: read again): the
        # next note comes
        changes = Heard(first)
        await _kill_listeners(first)
        await changes.hears(None, timeout=5.0)
        await second.feed.tell("after")
        await on_first.hears("after", timeout=1.0)


async def test_a_killed_listen_connection_comes_back_and_says_read_everything_again(
    pg_url: str,
) -> None:
    async with two_processes(pg_url) as (writer, reader, marker, game):
        heard = await listening(reader, marker)
        assert await _kill_listeners(writer) == 2
        await heard.hears(None, timeout=5.0)  # listening again: read everything again
        feed = reader.feed
        assert isinstance(feed, ChangeFeed) and feed.reconnects == 1
        await writer.append_action(game, 0, act(1), snap(1), deadline=None)
        await heard.hears(moved(game, 1, 1), timeout=1.0)  # delivered again
        assert heard.changes == [None, moved(game, 1, 1)]
        # And the process's own listeners too (its connection was killed as well).
        own = Heard(writer)
        await writer.append_action(game, 1, act(2), snap(2), deadline=None)
        await own.hears(moved(game, 2, 2), timeout=1.0)


async def test_a_connection_that_cannot_be_made_at_once_is_tried_again_with_backoff(
    pg_url: str,
) -> None:
    store = await PostgresStorage.open(pg_url)
    tries: list[float] = []

    async def connect() -> asyncpg.Connection:
        tries.append(time.perf_counter())
        if 2 <= len(tries) <= 4:  # the first works; after the loss, three fail
            raise ConnectionRefusedError("the server is restarting")
        return await asyncpg.connect(pg_url, server_settings={"application_name": "feed-test"})

    feed = ChangeFeed(connect, "test", retry=(0.05, 0.2))
    try:
        await feed.start()
        heard = Heard()
        feed.subscribe(heard)
        game = await new_game(store, start=True)
        await heard.hears(Change(game, 0))  # (the feed listens: its first connection)
        await store._pool.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'feed-test'")
        await heard.hears(None, timeout=5.0)
        assert len(tries) == 5 and feed.reconnects == 1
        gaps = [b - a for a, b in itertools.pairwise(tries[1:])]
        assert all(gap >= 0.02 for gap in gaps), gaps  # waited between the tries
        await store.append_action(game, 0, act(1), snap(1), deadline=None)
        await heard.hears(moved(game, 1, 1), timeout=1.0)
    finally:
        await feed.close()
        await store.close()


async def test_a_payload_that_is_not_a_change_is_passed_over(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = await PostgresStorage.open(pg_url)
    try:
        heard = Heard(store)
        game = await new_game(store, start=True)
        await store._pool.execute("SELECT pg_notify('thousand_games', 'nonsense')")
        for payload in ("7:1:playing::[]", "7:1:lost:\x1d{}", "7:1:playing:x:\x1d{}"):
            await store._pool.execute("SELECT pg_notify('thousand_games', $1)", payload)
        await store.append_action(game, 0, act(1), snap(1), deadline=None)
        await heard.hears(moved(game, 1, 1))
        assert all(c is not None and c.game_id == game for c in heard.changes)
        assert all(p in caplog.text for p in ("[]", "lost", "playing:x:"))
        assert "nonsense" in caplog.text
    finally:
        await store.close()


async def test_close_stops_listening(pg_url: str) -> None:
    store = await PostgresStorage.open(pg_url)
    await store.close()
    other = await PostgresStorage.open(pg_url)
    try:
        listening = await other._pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1"
            " AND datname = current_database()", APPLICATION_NAME)
        assert listening == 1  # only the open one's
    finally:
        await other.close()


class _Silent:
    """A listen connection whose network died without a word: nothing closes it, and a
    ping never answers."""

    def __init__(self) -> None:
        self.terminated = False

    def add_termination_listener(self, callback: object) -> None:
        pass

    async def add_listener(self, channel: str, callback: object) -> None:
        pass

    async def fetchval(self, sql: str) -> object:
        await asyncio.Event().wait()  # never
        return None

    def is_closed(self) -> bool:
        return self.terminated

    def terminate(self) -> None:
        self.terminated = True

    async def close(self) -> None:
        self.terminated = True


async def test_a_connection_that_stops_answering_is_found_by_the_ping_and_replaced() -> None:
    made: list[_Silent] = []

    async def connect() -> _Silent:
        made.append(_Silent())
        return made[-1]

    feed = ChangeFeed(connect, "test", ping_every=0.05)
    heard = Heard()
    feed.subscribe(heard)
    await feed.start()
    try:
        await heard.hears(None, timeout=2.0)  # the ping timed out: a new connection
        assert made[0].terminated and len(made) >= 2 and feed.reconnects >= 1
    finally:
        await feed.close()
