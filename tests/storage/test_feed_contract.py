"""Issue 49, storage: the change feed (``storage.feed``), on every backend.

Every committed write of a game's row is told to the feed's listeners once, with the
version it left, in commit order and only once it can be read; a write that is refused or
fails tells nothing.  A write of moves carries them (``Change.moved``): what a listener
would read of them, unless they are too long to carry.  (PostgreSQL across processes, its
lost connection and its figures: ``test_postgres_feed.py``.)

"Nothing else was told" is checked with a last move of another game (the marker): the feed
tells in commit order, so once that one is heard every earlier change has been.  The same
starts a listener clean (``listening``): on PostgreSQL a change committed just before a
listener subscribes may still be on its way, and is told to it.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

import pytest

from storage import Backend as Store
from storage import (
    NotFound,
    Outcome,
    StatusConflict,
    StorageError,
    VersionConflict,
)
from storage import Storage as SQLiteStorage
from storage.base import MOVED_BYTES, Change, Moved
from storage.models import GameStatus
from storage.postgres import PostgresStorage
from tests.storage.test_contract import CHAT, act, new_game, snap


class Heard:
    """A listener that keeps what it is told."""

    def __init__(self, store: Store | None = None) -> None:
        self.changes: list[Change | None] = []
        self._new = asyncio.Event()
        self.stop: Callable[[], None] = lambda: None
        if store is not None:
            self.stop = store.feed.subscribe(self)

    def __call__(self, change: Change | None) -> None:
        self.changes.append(change)
        self._new.set()

    async def until(self, wanted: Callable[[list[Change | None]], bool],
                    timeout: float = 2.0) -> list[Change | None]:
        """Wait until ``wanted(changes)`` (AssertionError after ``timeout`` seconds)."""
        async def wait() -> None:
            while not wanted(self.changes):
                self._new.clear()
                await self._new.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"not heard in {timeout} s; heard {self.changes}") from None
        return self.changes

    async def hears(self, change: Change | None, timeout: float = 2.0) -> None:
        await self.until(lambda changes: change in changes, timeout)

    async def then_nothing_else(self, store: Store, marker: int) -> list[Change | None]:
        """What was heard before a move of the game ``marker``, once that is heard (so
        every change committed before it is)."""
        moved = await move(store, marker)
        await self.hears(moved)
        return self.changes[: self.changes.index(moved)]


async def listening(store: Store, marker: int) -> Heard:
    """A listener that has heard everything committed before and forgot it."""
    heard = Heard(store)
    await heard.then_nothing_else(store, marker)
    heard.changes.clear()
    return heard


def moved(game_id: int, version: int, *records: int, status: GameStatus = "playing",
          deadline: float | None = None, ids: str | None = None) -> Change:
    """The change a write of the moves ``act(n)`` for each of ``records`` is told as."""
    return Change(game_id, version, Moved(tuple(act(n) for n in records), status, deadline,
                                          ids))


async def move(store: Store, game_id: int) -> Change:
    """A move of the started game ``game_id``: the change it is told as (a new version)."""
    game = await store.get_game(game_id)
    assert game is not None
    version = game.version + 1
    await store.append_action(game_id, game.version, act(version), snap(version),
                              deadline=None)
    return moved(game_id, version, version)


async def test_each_write_of_a_game_is_told_once_with_the_version_it_left(store: Store) -> None:
    await store.upsert_chat(CHAT, "group")
    marker = await new_game(store, -300, start=True)
    heard = await listening(store, marker)
    expected: list[Change] = []

    async def told(change: Change) -> None:
        expected.append(change)
        await heard.hears(change)

    game = await store.create_game(CHAT, 1, rules="{}", seed=1, seats="[]", lobby_code="c1")
    await told(Change(game, 0))
    assert await store.update_lobby(game, 0, seats='["a"]') == 1
    await told(Change(game, 0))
    await store.start_game(game, 1, snapshot=snap(0), deadline=None)
    await told(Change(game, 0))
    assert await store.append_action(game, 0, act(1), snap(1), deadline=5.0) == 1
    await told(moved(game, 1, 1, deadline=5.0))
    assert await store.append_actions(game, 1, [act(2), act(3)], snap(3), deadline=None) == 3
    await told(moved(game, 3, 2, 3))  # several moves in one transaction: told once, the last
    await store.set_deadline(game, 9.0, expected_version=3)
    await told(Change(game, 3))
    await store.set_seats(game, '["b"]')
    await told(Change(game, 3))
    await store.finish_game(game, winner_seat=0, totals="[1000]", stopped=False)
    await told(Change(game, 3))

    lobby = await new_game(store, -400)
    await told(Change(lobby, 0))
    await store.cancel_lobby(lobby)
    await told(Change(lobby, 0))
    idle = await new_game(store, -500, start=True)
    await told(Change(idle, 0))
    await told(Change(idle, 0))
    await store.append_action(idle, 0, act(1), snap(1), deadline=7.0,
                              outcome=Outcome(winner_seat=None, totals="[0]", stopped=True))
    await told(moved(idle, 1, 1, status="stopped"))  # the last move, ending the game
    broken = await new_game(store, -600, start=True)
    expected += [Change(broken, 0), Change(broken, 0)]
    await store.append_action(broken, 0, act(1), snap(1), deadline=None)
    await told(moved(broken, 1, 1))
    await store.mark_broken(broken, "no replay")
    await told(Change(broken, 1))
    expired = await new_game(store, -700, start=True)
    expected += [Change(expired, 0), Change(expired, 0)]
    await store.expire_game(expired, totals="[0]")
    await told(Change(expired, 0))

    # What is not a game's row tells nothing: the messages, chats, users.
    await store.set_message_ids(game, json.dumps({"table": 5}))
    await store.upsert_user(7, "Ann")
    await store.set_chat_language(CHAT, "en")
    assert await heard.then_nothing_else(store, marker) == expected


async def _refuse_results(store: Store) -> None:
    """Make every insert into ``results`` fail (a statement failing mid-transaction)."""
    if isinstance(store, PostgresStorage):
        await store._pool.execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS"
            " $$BEGIN RAISE EXCEPTION 'refused by the test'; END$$;"
            " CREATE TRIGGER refuse BEFORE INSERT ON results"
            " FOR EACH ROW EXECUTE FUNCTION refuse()")
    else:
        assert isinstance(store, SQLiteStorage)
        await store._db.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON results"
            " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END")


async def test_a_refused_or_failed_write_tells_nothing(store: Store) -> None:
    marker = await new_game(store, -300, start=True)
    game = await new_game(store, start=True)
    lobby = await new_game(store, -400)
    assert await store.append_action(game, 0, act(1), snap(1), deadline=None) == 1
    heard = await listening(store, marker)

    with pytest.raises(VersionConflict):
        await store.append_action(game, 0, act(1), snap(1), deadline=None)
    with pytest.raises(VersionConflict):
        await store.append_actions(game, 0, [act(2), act(3)], snap(3), deadline=None)
    with pytest.raises(NotFound):
        await store.append_action(10_000, 0, act(1), snap(1), deadline=None)
    with pytest.raises(StatusConflict):
        await store.append_action(lobby, 0, act(1), snap(1), deadline=None)
    with pytest.raises(VersionConflict):
        await store.update_lobby(lobby, 5, seats="[]")
    with pytest.raises(StatusConflict):
        await store.start_game(game, 0, snapshot=snap(0), deadline=None)
    with pytest.raises(VersionConflict):
        await store.set_deadline(game, 1.0, expected_version=0)
    with pytest.raises(VersionConflict):
        await store.finish_game(game, winner_seat=0, totals="[]", stopped=False,
                                expected_version=0)
    with pytest.raises(StatusConflict):
        await store.cancel_lobby(game)
    with pytest.raises(NotFound):
        await store.set_seats(10_000, "[]")

    await _refuse_results(store)  # a statement of the write fails after the game's row
    with pytest.raises(StorageError):
        await store.append_action(game, 1, act(2), snap(2), deadline=None,
                                  outcome=Outcome(winner_seat=0, totals="[1]", stopped=False))
    with pytest.raises(StorageError):
        await store.finish_game(game, winner_seat=0, totals="[1]", stopped=False)
    with pytest.raises(StorageError):
        await store.expire_game(game, totals="[1]")
    assert (await store.get_game(game) or pytest.fail()).version == 1  # nothing written

    assert await heard.then_nothing_else(store, marker) == []


async def test_a_told_version_can_be_read_and_a_games_versions_come_in_order(
    store: Store,
) -> None:
    marker = await new_game(store, -300, start=True)
    games = [await new_game(store, -1000 - i, start=True) for i in range(4)]
    heard = await listening(store, marker)  # the games' creations are heard: from here on
    moves = 12
    seen: dict[int, list[int]] = {g: [] for g in games}
    readable: list[tuple[int, int]] = []  # (told version, version read after it)
    reads: list[asyncio.Task[None]] = []

    async def read(change: Change) -> None:
        game = await store.get_game(change.game_id)
        assert game is not None
        readable.append((change.version, game.version))

    def listener(change: Change | None) -> None:
        assert change is not None
        seen[change.game_id].append(change.version)
        reads.append(asyncio.get_running_loop().create_task(read(change)))

    store.feed.subscribe(listener)

    async def play(game: int) -> None:
        for version in range(moves):
            await store.append_action(game, version, act(version + 1), snap(version + 1),
                                      deadline=None)

    await asyncio.gather(*(play(g) for g in games))
    await heard.until(lambda changes: len(changes) == len(games) * moves)
    await asyncio.gather(*reads)
    for game in games:
        assert seen[game] == list(range(1, moves + 1)), game  # each once, in order
    assert len(readable) == len(games) * moves
    assert all(read >= told for told, read in readable), readable


async def test_a_listener_that_raises_breaks_neither_the_feed_nor_the_others(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(change: Change | None) -> None:
        raise RuntimeError("a broken listener")

    store.feed.subscribe(broken)
    heard = Heard(store)
    game = await new_game(store, start=True)
    with caplog.at_level(logging.ERROR, logger="storage.feed"):
        await store.append_action(game, 0, act(1), snap(1), deadline=None)
        await heard.hears(moved(game, 1, 1))
    assert "a broken listener" in caplog.text
    assert await store.append_action(game, 1, act(2), snap(2), deadline=None) == 2
    await heard.hears(moved(game, 2, 2))  # the feed goes on


async def test_an_unsubscribed_listener_is_told_nothing_more(store: Store) -> None:
    marker = await new_game(store, -300, start=True)
    game = await new_game(store, start=True)
    gone = await listening(store, marker)
    stays = Heard(store)
    await store.append_action(game, 0, act(1), snap(1), deadline=None)
    await gone.hears(moved(game, 1, 1))
    gone.stop()
    gone.stop()  # again: nothing
    await store.append_action(game, 1, act(2), snap(2), deadline=None)
    assert moved(game, 2, 2) in await stays.then_nothing_else(store, marker)
    assert gone.changes == [moved(game, 1, 1)]


async def test_a_write_of_moves_carries_what_a_listener_would_read_of_them(store: Store) -> None:
    """``Change.moved``: the records of the write's moves, as ``actions`` reads them, and
    the game's status, deadline and message ids as ``get_game`` reads them after it (None:
    not written, as before); moves too long to carry are told without them (the listener
    reads)."""
    game = await new_game(store, start=True)
    big = await new_game(store, -310, start=True)
    heard = Heard(store)

    async def check(write: Awaitable[int], game_id: int) -> Moved | None:
        version = await write
        await heard.until(lambda changes: any(c is not None and c.game_id == game_id and
                                              c.version == version for c in changes))
        change = next(c for c in heard.changes if c is not None and c.game_id == game_id
                      and c.version == version)
        row = await store.get_game(game_id)
        assert row is not None and row.version == version  # (nothing since)
        if change.moved is not None:
            read = await store.actions(game_id, after=version - len(change.moved.records))
            assert list(change.moved.records) == read
            assert (change.moved.status, change.moved.deadline) == (row.status, row.deadline)
            if change.moved.message_ids is not None:
                assert change.moved.message_ids == row.message_ids
        return change.moved

    ids = json.dumps({"table": {"deal": 1, "id": 5, "shows": "ab:c"}})  # (a colon in it)
    records = [json.dumps({"s": 1, "a": "bid 100", "note": "тысяча: раз"}), act(2)]
    first = await check(store.append_actions(game, 0, records, snap(2), deadline=12.25,
                                             message_ids=ids), game)
    assert first == Moved(tuple(records), "playing", 12.25, ids)
    last = await check(store.append_action(game, 2, act(3), snap(3), deadline=5.0,
                                           outcome=Outcome(winner_seat=1, totals="[9, 0]")),
                       game)
    assert last == Moved((act(3),), "finished", None, None)
    assert (await store.get_game(game) or pytest.fail()).message_ids == ids  # as it was
    long_record = json.dumps({"pad": "x" * MOVED_BYTES})
    assert await check(store.append_action(big, 0, long_record, snap(1), deadline=None),
                       big) is None


class Notes:
    """A note listener that keeps what it hears."""

    def __init__(self, store: Store) -> None:
        self.notes: list[str] = []
        self._new = asyncio.Event()
        self.stop = store.feed.hear(self)

    def __call__(self, note: str) -> None:
        self.notes.append(note)
        self._new.set()

    async def hears(self, note: str, timeout: float = 2.0) -> None:
        async def wait() -> None:
            while note not in self.notes:
                self._new.clear()
                await self._new.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"{note!r} not heard within {timeout} s: {self.notes}") from None


async def test_a_note_told_is_heard_once_by_every_listener_and_not_stored(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    def broken(note: str) -> None:
        raise RuntimeError("a broken note listener")

    marker = await new_game(store, -300, start=True)
    changes = await listening(store, marker)
    store.feed.hear(broken)
    first, second = Notes(store), Notes(store)
    with caplog.at_level(logging.ERROR, logger="storage.feed"):
        await store.feed.tell("w:a:1=7,8")
        await first.hears("w:a:1=7,8")
    await second.hears("w:a:1=7,8")
    assert "a broken note listener" in caplog.text
    first.stop()
    first.stop()  # again: nothing
    long = "x" * 7000  # NOTE_BYTES: the longest
    await store.feed.tell(long)
    await store.feed.tell("é" * 3500)
    await second.hears("é" * 3500)
    assert second.notes == ["w:a:1=7,8", long, "é" * 3500]
    assert first.notes == ["w:a:1=7,8"]
    with pytest.raises(ValueError):  # one byte too long: refused, told to nobody
        await store.feed.tell("é" * 3500 + "x")
    assert await changes.then_nothing_else(store, marker) == []  # nothing stored, no change
    assert second.notes == ["w:a:1=7,8", long, "é" * 3500]
