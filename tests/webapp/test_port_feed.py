"""The port between the pages and the tables (``bot/webapp/adapter.py``) and the storage's
feed with several processes: every stored version reaches the pages once, whoever stored it
and however this process's copy of the game got to it; the pages of one change share one
read of the stored game and one view of each seat."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from bot.engine.state import Phase
from bot.tg.rooms.service import GameService
from bot.webapp.adapter import ServicePort
from storage.base import Change
from storage.feed import Fanout


class _Registry:
    def __init__(self) -> None:
        self.sessions: dict[int, Any] = {}

    def get(self, game_id: int) -> Any:
        return self.sessions.get(game_id)


def _port(shared: bool = True) -> tuple[ServicePort, Fanout, _Registry, list[tuple[Any, int]]]:
    feed = Fanout()
    registry = _Registry()
    coord = SimpleNamespace(shared=shared, owns=lambda game_id: True)
    service = SimpleNamespace(storage=SimpleNamespace(feed=feed), coord=coord,
                              kit=SimpleNamespace(registry=registry))
    port = ServicePort(cast(GameService, service))
    told: list[tuple[Any, int]] = []
    port.on_change(lambda game, version: told.append((game, version)))
    return port, feed, registry, told


def _session(version: int) -> Any:
    return SimpleNamespace(game_id=7, state=SimpleNamespace(phase=Phase.PLAY),
                           store_version=version,
                           lock=asyncio.Lock(), status="playing")


async def test_a_version_a_press_read_from_storage_before_its_notification_is_told() -> None:
    """Another process stored version 5; a press here rebuilt the game from storage (at 5)
    before the feed's notification of 5 came: that rebuild told the pages nothing, so the
    notification does (it used to be taken for this process's own move, and the pages
    never had 5)."""
    port, feed, registry, told = _port()
    registry.sessions[7] = _session(5)  # rebuilt from storage: no table event
    feed.publish(Change(7, 5))
    assert told == [(7, 5)]
    # this process's own move: told by its table event, and not again by the feed
    registry.sessions[7] = s6 = _session(6)
    port._changed(s6)
    feed.publish(Change(7, 6))
    assert told == [(7, 5), (7, 6)]
    feed.publish(Change(7, 5))  # (late, older: nothing)
    assert told == [(7, 5), (7, 6)]


async def test_a_version_heard_while_the_lock_is_held_and_rebuilt_meanwhile_is_told() -> None:
    """A notification heard while this process holds the game's lock waits for the lock;
    if the session was rebuilt from storage meanwhile (a press here read version 8 that
    another process stored), the pages are told once the lock is free."""
    port, feed, registry, told = _port()
    registry.sessions[7] = held = _session(7)
    await held.lock.acquire()
    feed.publish(Change(7, 8))
    await asyncio.sleep(0.01)
    assert told == []  # (waits: likely this process's own move)
    registry.sessions[7] = _session(8)  # rebuilt from storage under the lock: no event
    held.lock.release()
    for _ in range(10):
        await asyncio.sleep(0)
    assert told == [(7, 8)]
    # while this process's own move under the lock is told by its event: not twice
    registry.sessions[7] = held = _session(8)
    await held.lock.acquire()
    feed.publish(Change(7, 9))
    registry.sessions[7] = s9 = _session(9)
    port._changed(s9)
    held.lock.release()
    for _ in range(10):
        await asyncio.sleep(0)
    assert told == [(7, 8), (7, 9)]


async def test_one_process_tells_its_own_changes_only_by_their_events() -> None:
    port, feed, registry, told = _port(shared=False)
    registry.sessions[7] = s = _session(3)
    feed.publish(Change(7, 3))  # (SQLite's feed: this process's own commit)
    assert told == []
    port._changed(s)
    assert told == [(7, 3)]
    feed.publish(None)  # read everything again
    assert told == [(7, 3), (None, 0)]


async def test_the_pages_of_a_change_share_one_read_of_the_stored_game() -> None:
    """A game another process holds is read back from storage once for all the pages that
    ask at the same time; a page that asks while a read is under way and a newer version
    was heard meanwhile gets that newer version (read again, once for all of them)."""
    from bot.webapp.adapter import _Stored

    port, feed, _, _ = _port()
    reads: list[int] = []
    gate = asyncio.Event()

    async def read_now(game_id: int, kept: _Stored | None) -> _Stored | None:
        version = port.heard[game_id]
        reads.append(version)
        await gate.wait()
        got = _Stored(version, cast(Any, SimpleNamespace(store_version=version)),
                      cast(Any, None))
        port.stored[game_id] = got
        return got

    port._read_now = read_now  # type: ignore[method-assign]
    feed.publish(Change(7, 4))
    pages = [asyncio.create_task(port._read(7)) for _ in range(3)]
    await asyncio.sleep(0.01)
    assert reads == [4]  # one read for the three pages
    feed.publish(Change(7, 5))  # a newer version while it reads
    late = asyncio.create_task(port._read(7))
    await asyncio.sleep(0.01)
    assert reads == [4]
    gate.set()
    got = await asyncio.gather(*pages)
    newer = await late
    # the reader has 4; the others heard of 5 meanwhile: one more read, shared
    assert [g.version for g in got if g is not None] == [4, 5, 5]
    assert newer is not None and newer.version == 5 and reads == [4, 5]
    assert (await port._read(7)) is newer and reads == [4, 5]  # kept: no read
