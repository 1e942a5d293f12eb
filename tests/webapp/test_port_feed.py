"""The port between the pages and the tables (``bot/webapp/adapter.py``) and the storage's
feed with several processes: every stored version reaches the pages once, whoever stored it
and however this process's copy of the game got to it; the pages of one change share one
read of the stored game and one view of each seat."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from bot.engine.state import Phase
from bot.tg.rooms.service import GameService
from bot.webapp.adapter import ServicePort
from bot.webapp.payload import seat_payload
from bot.webapp.port import SeatView
from storage.base import Change, Moved
from storage.feed import Fanout
from storage.models import Game
from tests.bot.helpers import open_table, play, running, service, session, start_private
from tests.fakeapi import FakeTelegramServer


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
                      cast(Any, None), cast(Any, None))
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


class _Reads:
    """A storage whose reads of a game are counted (the rest is the storage's own)."""

    def __init__(self, storage: Any) -> None:
        self.storage = storage
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.storage, name)

    async def get_game(self, game_id: int) -> Any:
        self.calls.append("get_game")
        return await self.storage.get_game(game_id)

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]:
        self.calls.append("actions")
        return cast(list[str], await self.storage.actions(game_id, after=after))


def _elsewhere(real: GameService, storage: Any) -> ServicePort:
    """The port of a process that holds none of the game (another process plays it)."""
    coord = SimpleNamespace(shared=True, owns=lambda game_id: False)
    kit = SimpleNamespace(registry=_Registry(), people=real.kit.people)
    return ServicePort(cast(GameService, SimpleNamespace(
        storage=storage, coord=coord, kit=kit, sessions={}, config=real.config)))


async def test_a_game_played_elsewhere_is_followed_by_the_moves_its_changes_carry(
        server: FakeTelegramServer, db: Path) -> None:
    """Another process's pages follow a game by the moves the feed carries (SQLite's
    feed carries them as PostgreSQL's does): after the first read, no read of the game
    at all, and every seat's view the same as a port that reads the whole game sees."""
    people = [server.add_user(2301 + i, name) for i, name in enumerate(["Анна", "Борис", "Вера"])]
    group = -400178
    server.add_group(group, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=5) as app:
        await start_private(server, *people)
        real = service(app)
        reads = _Reads(real.storage)
        port = _elsewhere(real, reads)  # (it hears the game from its creation on)
        gid, _ = await open_table(server, app, group, people[0], people[1:], args="3")
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id) for i in range(3)}
        carried: list[Change] = []
        real.storage.feed.subscribe(lambda c: carried.append(c) if c is not None
                                    and c.game_id == gid and c.moved is not None else None)

        async def views(of: ServicePort) -> list[dict[str, object]]:
            got = []
            for seat in range(3):
                sv = await of.seat_view(gid, seats[seat].id)
                assert isinstance(sv, SeatView), sv
                got.append(seat_payload(sv))
            return got

        first = await views(port)  # the first look reads the game
        assert reads.calls == ["get_game", "actions"] and port.reads == \
            {"storage": 1, "feed": 0}
        reads.calls.clear()
        for step in range(40):
            assert await play(server, app, gid, seats, seed=step, max_moves=1) == 1
            for _ in range(100):  # (the press's move, and any the bot made after it)
                seen = await views(port)
                fresh = await views(_elsewhere(real, real.storage))  # reads the whole game
                if seen[0]["version"] == fresh[0]["version"]:
                    break
                await asyncio.sleep(0.01)
            assert seen == fresh, (step, [(i, k, a[k], b.get(k)) for i, (a, b) in
                                          enumerate(zip(seen, fresh, strict=True))
                                          for k in a if a[k] != b.get(k)])
            assert seen != first
        assert reads.calls == [], reads.calls  # never read again: the moves came with the feed
        assert port.reads["storage"] == 1 and port.reads["feed"] >= 40
        assert all(isinstance(c.moved, Moved) for c in carried)


async def test_a_change_that_does_not_carry_its_moves_or_misses_one_reads_the_game() -> None:
    """The moves carried are applied only when they follow the kept version without a gap
    up to the newest heard, and nothing else of the row changed meanwhile."""
    from bot.webapp.adapter import _Stored

    port, feed, _, _ = _port()
    row = Game(7, -1, "playing", 1, 0.0, 0.0, "{}", 1, "[]", 3, 0, None, "{}", None, None)
    port.stored[7] = _Stored(3, cast(Any, None), cast(Any, None), row)

    def change(version: int, *records: str, ids: str | None = None) -> Change:
        return Change(7, version, Moved(records, "playing", None, ids))

    def heard(kept: int) -> list[str] | None:
        port.stored[7].version = kept
        got = port._heard_moves(7, port.stored[7])
        return None if got is None else got[0]

    feed.publish(change(4, "a"))
    feed.publish(change(6, "b", "c"))
    assert heard(3) == ["a", "b", "c"] and heard(4) == ["b", "c"] and heard(5) == ["c"]
    feed.publish(change(8, "e"))  # 7 was missed: a gap
    assert heard(3) is None and heard(7) == ["e"]
    feed.publish(Change(7, 8))  # the seats or the deadline changed: read
    assert heard(7) is None
    port.changed.clear()  # (a read began)
    feed.publish(change(9, "f", ids="{}"))
    assert heard(8) == ["f"]
    got = port._heard_moves(7, port.stored[7])
    assert got is not None and got[1] == dataclasses.replace(row, version=9, message_ids="{}")
