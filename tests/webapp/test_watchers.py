"""The watchers of a game across processes (``bot/webapp/watchers.py``): each process tells
the others who watches on its pages through the storage's notes; the number a table shows
counts each person once, whichever processes they watch on; a process that stops telling
(killed) is forgotten after ``FORGET`` seconds.  Here several ``Watchers`` share one
in-memory feed (``storage.feed.Fanout``: what PostgreSQL's ``NOTIFY`` is to processes; the
real one across two bot processes: ``test_processes.py``)."""

from __future__ import annotations

import asyncio

import pytest

from bot.webapp.watchers import FORGET, IDS_TOLD, REPEAT, SOON, Watchers, _format, _parse
from storage.base import NOTE_BYTES
from storage.errors import StorageBusy
from storage.feed import Fanout

FAST = 0.2  # seconds between two repeats here (REPEAT in the bot)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def crowd(feed: Fanout, clock: Clock) -> tuple[Watchers, list[int]]:
    """A process's watchers on ``feed``, and the games it was told changed."""
    changed: list[int] = []
    w = Watchers(feed, changed.append, clock=clock, repeat=FAST)
    return w, changed


async def settled() -> None:
    await asyncio.sleep(SOON * 3)


async def test_each_person_counts_once_whichever_processes_they_watch_on() -> None:
    feed, clock = Fanout(), Clock()
    (a, on_a), (b, on_b) = crowd(feed, clock), crowd(feed, clock)
    a.set_mine(1, frozenset({7}))
    assert a.count(1) == 1 and b.count(1) == 0  # (told soon: the changes meanwhile with it)
    await settled()
    assert b.count(1) == 1 and on_b == [1] and on_a == []  # (its own note changes nothing)
    b.set_mine(1, frozenset({7, 8}))  # 7 on both processes: once
    b.set_mine(2, frozenset({9}))
    await settled()
    assert a.count(1) == b.count(1) == 2 and a.count(2) == b.count(2) == 1
    assert on_a == [1, 2]
    a.set_mine(1, frozenset())  # 7 left a's page, still watches on b's
    await settled()
    assert a.count(1) == b.count(1) == 2 and on_b == [1]  # (the number did not change)
    b.set_mine(1, frozenset({8}))
    await settled()
    assert a.count(1) == b.count(1) == 1 and on_a == [1, 2, 1]
    assert a.count(3) == 0


async def test_a_process_that_stops_telling_is_forgotten_and_one_that_stops_says_so() -> None:
    feed, clock = Fanout(), Clock()
    (a, on_a), (b, _) = crowd(feed, clock), crowd(feed, clock)
    (c, _) = crowd(feed, clock)
    b.set_mine(1, frozenset({7}))
    c.set_mine(1, frozenset({8}))
    await settled()
    assert a.count(1) == 2
    on_a.clear()
    # b is killed: it never says its watchers left; a forgets them after FORGET seconds
    clock.now += FORGET - 1
    a.forget()
    assert a.count(1) == 2 and on_a == []
    await c._send([1])  # (c repeats itself, as every REPEAT seconds)
    clock.now += 2
    a.forget()
    assert a.count(1) == 1 and on_a == [1]  # b's forgotten, c's said again is kept
    # c stops cleanly: it says its watchers are gone at once
    await c.stop()
    assert a.count(1) == 0 and on_a == [1, 1]
    assert FORGET > 2 * REPEAT  # (in the bot a lost repeat is not yet forgetting)


async def test_the_repeat_tells_a_process_that_came_later() -> None:
    feed, clock = Fanout(), Clock()
    a, _ = crowd(feed, clock)
    a.set_mine(5, frozenset({1, 2}))
    await settled()
    late, _ = crowd(feed, clock)  # (it heard nothing so far)
    assert late.count(5) == 0
    a.start()
    try:
        await asyncio.sleep(FAST * 2.5)
    finally:
        await a.stop()
    assert late.count(5) == 0  # a stopped: told gone
    assert a.count(5) == 0


@pytest.mark.parametrize("games", [1, 3, 2000])
def test_a_note_holds_at_most_note_bytes_and_reads_back(games: int) -> None:
    told = {g: frozenset(range(10**9, 10**9 + (700 if g == 0 else g % 4))) for g in range(games)}
    notes = _format("abcdef012345", sorted(told.items()), NOTE_BYTES)
    assert all(len(n.encode()) <= NOTE_BYTES for n in notes)
    back: dict[int, frozenset[int]] = {}
    for n in notes:
        got = _parse(n)
        assert got is not None and got[0] == "abcdef012345"
        back.update(got[1])
    assert set(back) == set(told)
    for g, users in told.items():  # a crowd over IDS_TOLD: that many of it
        assert back[g] == frozenset(sorted(users)[:IDS_TOLD])


@pytest.mark.parametrize("note", ["", "w", "w:", "w:p", "w:p:", "w:p:x=1", "w:p:1=a", "w:p:1",
                                  "v:p:1=2", "w:p:1=2;;", "x" * 100])
def test_a_note_that_is_not_one_changes_nothing(note: str) -> None:
    feed, clock = Fanout(), Clock()
    changed: list[int] = []
    w = Watchers(feed, changed.append, clock=clock)
    w.heard(note)
    assert w.others == {} and changed == []


async def test_one_process_tells_nobody_and_a_failed_note_is_told_again() -> None:
    changed: list[int] = []
    alone = Watchers(None, changed.append)  # SQLite: one process
    alone.set_mine(1, frozenset({3}))
    alone.start()
    assert alone.count(1) == 1
    await alone.stop()
    # the database refuses a note: logged, and the next repeat tells it again
    feed, clock = Fanout(), Clock()
    fails = [True]

    class Failing(Fanout):
        async def tell(self, note: str) -> None:
            if fails[0]:
                raise StorageBusy("locked")
            await feed.tell(note)

    a = Watchers(Failing(), changed.append, clock=clock, repeat=FAST)
    b, _ = crowd(feed, clock)
    a.set_mine(1, frozenset({3}))
    await settled()
    assert b.count(1) == 0
    fails[0] = False
    a.start()
    try:
        await asyncio.sleep(FAST * 2.5)
        assert b.count(1) == 1
    finally:
        await a.stop()
