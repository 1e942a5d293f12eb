"""The coordination methods of several bot processes (leases, the shared group budget,
messages sent once), written once and run against every backend (see conftest)."""

from __future__ import annotations

import asyncio
import json

import pytest

from storage import Backend as Storage
from tests.storage.backends import Backend, FakeClock

CHAT = -100
ALICE = 11
SEATS = json.dumps([{"kind": "human", "user_id": ALICE, "name": "Alice", "level": None}])


async def playing_game(store: Storage, chat_id: int = CHAT) -> int:
    if await store.get_chat(chat_id) is None:
        await store.upsert_chat(chat_id, "group")
    gid = await store.create_game(chat_id, ALICE, rules="{}", seed=1, seats=SEATS)
    await store.start_game(gid, 0, snapshot="{}", deadline=None)
    return gid


async def test_a_lease_is_held_by_one_owner_until_it_expires(
        store: Storage, backend: Backend) -> None:
    gid = await playing_game(store)
    assert await store.lease_owner(gid) is None
    assert await store.take_lease(gid, "a", 10.0)
    assert await store.lease_owner(gid) == "a"
    assert await store.take_lease(gid, "a", 10.0)  # its own: renewed
    assert not await store.take_lease(gid, "b", 10.0)  # held by another
    assert await store.lease_owner(gid) == "a"
    assert await store.take_lease(gid, "b", 10.0, force=True)  # b stored a move
    assert await store.lease_owner(gid) == "b"
    backend.clock.now += 11.0  # (the clock ticks one second a reading)
    assert await store.lease_owner(gid) is None
    assert await store.take_lease(gid, "a", 10.0)  # expired: anyone's
    assert await store.lease_owner(gid) == "a"


async def test_renewal_keeps_only_the_owners_leases(store: Storage, backend: Backend) -> None:
    g1, g2 = await playing_game(store), await playing_game(store, -101)
    assert await store.take_lease(g1, "a", 50.0)
    assert await store.take_lease(g2, "a", 50.0)
    assert await store.take_lease(g2, "b", 50.0, force=True)
    await store.append_action(g1, 0, json.dumps({"s": 0, "a": "pass"}), "{}", deadline=None)
    backend.clock.now += 30.0
    assert await store.renew_leases("a", 50.0) == {g1: 1}  # with its stored version
    assert await store.lease_owner(g2) == "b"
    backend.clock.now += 30.0
    assert await store.lease_owner(g1) == "a"  # renewed: not expired
    assert await store.lease_owner(g2) is None  # not renewed: expired
    assert await store.renew_leases("nobody", 50.0) == {}
    assert await store.release_leases("a") == 1
    assert await store.lease_owner(g1) is None


async def test_expired_leases_of_playing_games_are_taken_over_once(
        store: Storage, backend: Backend) -> None:
    g1, g2, g3 = (await playing_game(store, -101), await playing_game(store, -102),
                  await playing_game(store, -103))
    await store.upsert_chat(-104, "group")
    lobby = await store.create_game(-104, ALICE, rules="{}", seed=1, seats=SEATS)
    assert await store.take_lease(g1, "dead", 30.0)
    assert await store.take_lease(g2, "alive", 1000.0)
    # g3 never had a lease: left to the process that started it for a while, then free;
    # the lobby has nothing to run
    assert await store.claim_expired_leases("b", 100.0) == []
    backend.clock.now += 10.0
    assert await store.claim_expired_leases("b", 5.0) == [g3]
    assert await store.renew_leases("b", 1000.0) == {g3: 0}
    assert await store.claim_expired_leases("c", 100.0) == []  # nothing left for another
    backend.clock.now += 31.0
    assert await store.claim_expired_leases("b", 100.0) == [g1]  # the dead owner's
    assert await store.lease_owner(g1) == "b" and await store.lease_owner(g2) == "alive"
    assert await store.lease_owner(lobby) is None
    # a game that ended loses its lease at the next claim
    await store.finish_game(g2, winner_seat=0, totals="[1]", stopped=False)
    await store.claim_expired_leases("b", 5.0)
    assert await store.lease_owner(g2) is None


async def test_concurrent_claims_take_each_lease_once(backend: Backend) -> None:
    if not backend.persistent:
        pytest.skip("one private in-memory database per connection")
    async with backend.open() as s1, backend.open() as s2:  # (one clock)
        games = [await playing_game(s1, -300 - i) for i in range(6)]
        backend.clock.now += 100.0  # not new any more: anyone's
        got = await asyncio.gather(*(s.claim_expired_leases(f"p{i}", 30.0)
                                     for i, s in enumerate((s1, s2, s1, s2))))
    taken = [g for ids in got for g in ids]
    assert sorted(taken) == games  # every game once, by exactly one of them


async def test_group_budget_counts_every_process(backend: Backend) -> None:
    clock = FakeClock()
    clock_b = clock  # both connections read the same clock
    async with backend.open(clock=clock) as a:
        b_cm = backend.open(clock=clock_b) if backend.persistent else None
        b = await b_cm if b_cm is not None else a
        try:
            answers = []
            for i in range(5):
                answers.append(await (a if i % 2 else b).group_send(CHAT, 3, 60.0))
            assert [w for w, _ in answers[:3]] == [0.0, 0.0, 0.0]
            assert all(at is not None for _, at in answers[:3])
            assert all(w > 0 and at is None for w, at in answers[3:])  # full: not counted
            assert (await a.group_send(-999, 3, 60.0))[0] == 0.0  # another group: its own
            wait, _ = await a.group_send(CHAT, 3, 60.0)
            assert 50.0 < wait <= 60.0  # until the oldest of the three leaves the window
            clock.now += wait
            assert (await b.group_send(CHAT, 3, 60.0))[0] == 0.0
        finally:
            if b is not a:
                await b.close()


async def test_a_slow_request_counts_from_its_answer(backend: Backend) -> None:
    """Telegram counts a request when it arrives, which may be long after the budget
    counted it (a busy process): once over, it counts from then (``group_sent``), so the
    window does not open 60 s after the count while the request arrived 5 s later."""
    clock = FakeClock()
    async with backend.open(clock=clock) as a:
        w1, slow = await a.group_send(CHAT, 2, 60.0)
        w2, quick = await a.group_send(CHAT, 2, 60.0)
        assert w1 == w2 == 0.0 and slow is not None and quick is not None
        await a.group_sent(CHAT, quick)  # answered at once
        clock.now += 5.0
        await a.group_sent(CHAT, slow)  # answered 5 s after it was counted
        clock.now += 56.0  # 61 s after both were counted: only the quick one has left
        wait, counted = await a.group_send(CHAT, 2, 60.0)
        assert wait == 0.0 and counted is not None  # one place: the quick one's
        wait, counted = await a.group_send(CHAT, 2, 60.0)
        assert counted is None and 0.0 < wait <= 5.0  # until 60 s after the slow answer
        await a.group_sent(-999, 123.0)  # nothing counted there: nothing happens
        clock.now += wait
        assert (await a.group_send(CHAT, 2, 60.0))[0] == 0.0


async def test_a_message_is_claimed_once_and_its_id_shared(
        store: Storage, backend: Backend) -> None:
    assert await store.claim_message(CHAT, "t5:1", "a") == (True, None)
    assert await store.claim_message(CHAT, "t5:1", "b") == (False, None)  # being sent
    assert await store.claim_message(CHAT, "t5:1", "a") == (True, None)  # a again (retry)
    await store.message_sent(CHAT, "t5:1", 77)
    assert await store.claim_message(CHAT, "t5:1", "b") == (False, 77)  # edit 77
    assert await store.claim_message(CHAT, "t5:1", "a") == (False, 77)
    assert await store.claim_message(CHAT + 1, "t5:1", "b") == (True, None)  # another chat
    # a claimer that died before sending: taken over after ``stale_after``
    assert await store.claim_message(CHAT, "h5:0:1", "dead") == (True, None)
    assert await store.claim_message(CHAT, "h5:0:1", "b", stale_after=30.0) == (False, None)
    backend.clock.now += 31.0
    assert await store.claim_message(CHAT, "h5:0:1", "b", stale_after=30.0) == (True, None)
    # a renamed slot (a lobby becoming the table) and a message that is gone
    await store.message_sent(CHAT, "t5:2", 80)
    assert await store.claim_message(CHAT, "t5:2", "a") == (False, 80)
    await store.message_sent(CHAT, "t5:2", None)
    assert await store.claim_message(CHAT, "t5:2", "a") == (True, None)
    backend.clock.now += 10_000.0
    assert await store.prune_coordination(3600.0) >= 4
    assert await store.claim_message(CHAT, "t5:1", "c") == (True, None)


async def test_what_a_shared_message_shows_is_stored_and_edits_never_cross(
        store: Storage, backend: Backend) -> None:
    """``begin_edit`` / ``end_edit`` (issue 22: no edit that changes nothing across
    processes): the lease decides who edits; the content a message shows is not edited
    again, whoever showed it; another process's edit in flight is waited for, for
    ``busy_for`` seconds at most (its process may have died)."""
    gid = await playing_game(store)
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "a", "D1") == "go"  # no row: edited
    assert await store.claim_message(CHAT, "h5:0:1", "a") == (True, None)
    await store.message_sent(CHAT, "h5:0:1", 70)
    await store.end_edit(CHAT, "h5:0:1", "a", "D1")  # sent, showing D1
    assert await store.take_lease(gid, "a", 60.0)
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "a", "D1") == "shown"
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D2") == "lost"  # a's lease
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "a", "D2") == "go"  # now in flight
    assert await store.take_lease(gid, "b", 60.0, force=True)  # b stored the next move
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D2", busy_for=30.0) == "busy"
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D3", busy_for=30.0) == "busy"
    await store.end_edit(CHAT, "h5:0:1", "a", "D2")  # a's edit went through
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D2") == "shown"  # not again
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "a", "D4") == "lost"
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D3") == "go"
    await store.end_edit(CHAT, "h5:0:1", "b", None)  # it failed: still D2
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D2") == "shown"
    # an edit in flight whose process died: waited for ``busy_for`` seconds, then not
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D5") == "go"
    assert await store.take_lease(gid, "c", 60.0, force=True)
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "c", "D5", busy_for=30.0) == "busy"
    backend.clock.now += 31.0
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "c", "D5", busy_for=30.0) == "go"
    # a lost lease forgets its own edit in flight: the holder does not wait for it
    assert await store.take_lease(gid, "b", 60.0, force=True)
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "c", "D6") == "lost"
    assert await store.begin_edit(gid, CHAT, "h5:0:1", "b", "D6") == "go"
    # a message of no game (the lease is not asked) and another chat's slot of that name
    assert await store.begin_edit(None, CHAT, "h5:0:1", "x", "D6", busy_for=30.0) == "busy"
    assert await store.begin_edit(None, CHAT + 1, "h5:0:1", "x", "D6") == "go"
