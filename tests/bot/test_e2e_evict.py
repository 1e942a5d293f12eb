"""Bounded memory (issue 22): a session untouched for ``IDLE_EVICT_AFTER`` seconds leaves
memory and is rebuilt from storage on its next touch — a press, a command, its turn
timer's reminder and deadline, a restart — with the same answers as if it had stayed."""

from __future__ import annotations

import asyncio
import re
from functools import partial
from pathlib import Path

import aiohttp
import pytest

from bot.i18n import t
from bot.tg.io.app import ThousandApplication
from bot.tg.rooms import owner as owner_module
from bot.tg.rooms.service import Session
from tests.bot.helpers import (
    action_button,
    click_data,
    idle,
    lobby_setting,
    open_table,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.bot.procs import free_port
from tests.fakeapi import FakeTelegramServer, FakeUser

IDLE = 0.3  # seconds untouched before a session leaves memory, in these tests
GROUP = -400770


@pytest.fixture(autouse=True)
def _quick_saves(monkeypatch: pytest.MonkeyPatch) -> None:
    """What an edit shows is stored within 20 s (a session with unsaved ids stays in
    memory): made quick so that a test need not wait."""
    monkeypatch.setattr(owner_module, "EDIT_SAVE", 0.05)  # (the table's owner stores them)


async def _solo_turn(server: FakeTelegramServer, app: ThousandApplication,
                     p: FakeUser) -> tuple[int, int]:
    """A solo game of three waiting for its person: its id and version."""
    await start_private(server, p)
    await server.send_text(p, p, "/newgame 3")
    gid = await server.wait_for(partial(service(app).by_chat.get, p.id))

    def turn() -> tuple[int] | None:
        s = session(app, gid)
        st = s.state if s is not None else None
        if st is not None and st.to_act == 0 \
                and action_button(server, p, gid, st.version) is not None:
            return (st.version,)  # (version 0 is falsy)
        return None

    (version,) = await server.wait_for(turn, what="the person's turn")
    return gid, version


async def _sessions_metric(http: aiohttp.ClientSession, port: int) -> float:
    async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
        page = await r.text()
    found = re.search(r"^thousand_sessions (\S+)$", page, re.M)
    assert found is not None
    return float(found.group(1))


async def _evicted(app: ThousandApplication, gid: int, timeout: float = 10.0) -> None:
    svc = service(app)
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while gid in svc.sessions or gid not in svc.pending:
        assert loop.time() < end, "the idle session did not leave memory"
        await asyncio.sleep(0.05)


async def _press_transcript(server: FakeTelegramServer, db: Path, *,
                            evict: bool) -> list[str]:
    """A solo game to the person's turn, (evicted,) one press: what the person sees."""
    p = server.add_user(7101, "Ева")
    async with running(server, db, seed=5,
                       idle_evict_after=IDLE if evict else 0) as app:
        svc = service(app)
        gid, version = await _solo_turn(server, app, p)
        await idle(app)
        if evict:
            await _evicted(app, gid)
            assert svc.restore.evictions >= 1 and not svc.sessions
        found = action_button(server, p, gid, version)
        assert found is not None
        msg, button = found
        assert button.callback_data is not None
        answer = await server.press(p, p, msg.message_id, button.callback_data)
        assert answer is not None
        s = await server.wait_for(lambda: session(app, gid), what="the game in memory")

        def again(s: Session = s) -> bool:  # (the computers have made their moves)
            st = s.state
            return st is not None and st.version > version and st.to_act == 0 \
                and action_button(server, p, gid, st.version) is not None

        await server.wait_for(again, what="the person's next turn")
        await idle(app)
        seen = [f"answer:{answer.text}"]
        seen += [f"{m.message_id}:{txt(m)}|{m.button_texts}"
                 for m in server.chat(p).bot_messages()]
        await server.send_text(p, p, "/stop")
        await server.wait_for(lambda: not svc.sessions, what="the game stopped")
        await idle(app)
    server.assert_clean()
    return seen


async def test_a_press_on_an_evicted_game_is_answered_as_if_it_had_stayed(
        tmp_path: Path) -> None:
    async with FakeTelegramServer() as plain_server:
        plain = await _press_transcript(plain_server, tmp_path / "plain.sqlite3",
                                        evict=False)
    async with FakeTelegramServer() as evict_server:
        evicted = await _press_transcript(evict_server, tmp_path / "evict.sqlite3",
                                          evict=True)
    assert evicted == plain


async def test_a_command_on_an_evicted_game_and_a_restart_after_eviction(
        server: FakeTelegramServer, db: Path) -> None:
    p = server.add_user(7201, "Ян")
    port = free_port()
    async with running(server, db, idle_evict_after=IDLE, metrics_port=port) as app, \
            aiohttp.ClientSession() as http:
        svc = service(app)
        gid, version = await _solo_turn(server, app, p)
        assert await _sessions_metric(http, port) == 1
        await idle(app)
        await _evicted(app, gid)
        assert await _sessions_metric(http, port) == 0  # the metric follows memory
        assert svc.kit.registry.kept[gid].version == version
        assert not svc.outbox.queues.get(p.id) or not any(
            k.startswith(f"h{gid}:") for k in svc.outbox.queues[p.id].slots)
        # a command in its chat: rebuilt first, then answered from the game
        before = server.chat(p).last_bot_message()
        await server.send_text(p, p, "/score")
        reply = await server.wait_bot_message(p, after=before)
        assert gid in svc.sessions and gid not in svc.pending
        assert txt(reply) == t("ru", "score.empty")  # the live game's sheet (none yet)
        assert await _sessions_metric(http, port) == 1
        await idle(app)
        await _evicted(app, gid)  # idle again: out again
        requests = len(server.requests)
    # a restart after eviction: the game is there, and a press on it plays
    async with running(server, db, seed=2, idle_evict_after=IDLE) as app:
        svc = service(app)
        await idle(app)
        # idle for longer than IDLE and waiting for its person: not rebuilt at the start
        assert gid not in svc.sessions and gid in svc.kit.registry.kept
        found = action_button(server, p, gid, version)
        assert found is not None
        msg, button = found
        assert button.callback_data is not None
        answer = await server.press(p, p, msg.message_id, button.callback_data)
        assert answer is not None and answer.text is None
        s = session(app, gid)
        assert s is not None and s.state is not None and s.state.version > version
        await idle(app)
        assert len(server.requests) > requests
        await server.send_text(p, p, "/stop")
        await server.wait_for(lambda: not svc.sessions, what="the game stopped")
        await idle(app)
    server.assert_clean()


async def test_the_turn_timer_of_an_evicted_group_game_reminds_and_times_out(
        server: FakeTelegramServer, db: Path) -> None:
    """The deadline is stored with the game: an evicted table is rebuilt just before its
    reminder (half time), which it sends, and its time-out then fires at the deadline."""
    people = [server.add_user(7301 + i, name) for i, name in enumerate(["Ада", "Бен"])]
    server.add_group(GROUP, "Клуб", members=people[1:], admins=people[:1])
    timeout = 8.0
    async with running(server, db, idle_evict_after=IDLE, turn_timeout=timeout) as app:
        svc = service(app)
        await start_private(server, *people)
        gid, _ = await open_table(server, app, GROUP, people[0], people[1:], args="3",
                                  computers=1)
        s = session(app, gid)
        assert s is not None

        def person_waits(s: Session = s) -> float | None:
            st = s.state
            if st is None or st.to_act < 0 or s.seats[st.to_act].kind != "human":
                return None
            timer = s.timer
            return s.deadline if timer is not None and not timer.done() else None

        deadline = await server.wait_for(person_waits, what="a person's turn timer")
        st = s.state
        assert st is not None
        version, seat = st.version, st.to_act
        who = next(p for p in people if p.id == s.seats[seat].user_id)
        await _evicted(app, gid, timeout=timeout / 2)
        clock = svc.config.clock
        assert clock() < deadline - timeout / 2  # out of memory before the reminder
        kept = svc.kit.registry.kept[gid]
        assert kept.wake == pytest.approx(deadline - timeout / 2)
        reminder = await server.wait_bot_message(
            who, predicate=lambda m: "⏰" in txt(m), timeout=timeout)
        assert gid in svc.sessions  # rebuilt for it
        assert clock() >= deadline - timeout / 2 - 0.5
        s2 = session(app, gid)
        assert s2 is not None

        def timed_out() -> Session | None:  # (it may have left memory again meanwhile:
            now = session(app, gid)  # its reminder is stored, and it is rebuilt in time)
            st = now.state if now is not None else None
            return now if st is not None and st.version > version else None

        s3 = await server.wait_for(timed_out, timeout=timeout, what="the time-out move")
        assert clock() >= deadline - 0.5
        assert any(e.code == "timeout" for evs in s3.events.values() for e in evs)
        assert reminder.message_id > 0
        await idle(app)
        await server.send_text(people[0], GROUP, "/stop")
        await server.wait_for(lambda: not svc.sessions and not svc.pending,
                              what="the game stopped")
        await idle(app)
    server.assert_clean()


async def test_the_sweep_keeps_the_hand_messages_of_a_group_table(
        server: FakeTelegramServer, db: Path) -> None:
    """The sweep prunes the outbox's idle queues, but not the private chats of people at a
    table in memory: their hand messages are edited afterwards, never posted anew."""
    people = [server.add_user(7401 + i, name) for i, name in enumerate(["Ида", "Лев"])]
    server.add_group(GROUP - 1, "Сад", members=people[1:], admins=people[:1])
    async with running(server, db) as app:
        svc = service(app)
        await start_private(server, *people)
        gid, _ = await open_table(server, app, GROUP - 1, people[0], people[1:], args="3",
                                  computers=1)
        s = session(app, gid)
        assert s is not None

        def a_person_to_act(s: Session = s) -> tuple[FakeUser, int] | None:
            st = s.state
            if st is None or st.to_act < 0:
                return None
            who = next((p for p in people if p.id == s.seats[st.to_act].user_id), None)
            ok = who is not None and action_button(server, who, gid, st.version) is not None
            return (who, st.version) if ok and who is not None else None

        who, version = await server.wait_for(a_person_to_act, what="a person's turn")
        await idle(app)
        hands = {p.id: len(server.chat(p).bot_messages()) for p in people}
        await svc.restore.sweep()
        assert all(p.id in svc.outbox.queues for p in people)
        found = action_button(server, who, gid, version)
        assert found is not None and found[1].callback_data is not None
        assert await server.press(who, who, found[0].message_id,
                                  found[1].callback_data) is not None
        await server.wait_for(lambda: s.state is not None and s.state.version > version)
        await idle(app)
        assert {p.id: len(server.chat(p).bot_messages()) for p in people} == hands
        await server.send_text(people[0], GROUP - 1, "/stop")
        await server.wait_for(lambda: not svc.sessions, what="the game stopped")
        await idle(app)
    server.assert_clean()


async def test_an_evicted_unhurried_table_still_pings_twice_and_waits(
        server: FakeTelegramServer, db: Path) -> None:
    """An unhurried table (issue 19) waiting for a person leaves memory; it is rebuilt just
    before its first ping (which comes), leaves memory again, is rebuilt for the second
    ping, and then waits in storage with nothing due: no move is made for the person."""
    people = [server.add_user(7401 + i, name) for i, name in enumerate(["Ада", "Бен"])]
    server.add_group(GROUP, "Клуб", members=people[1:], admins=people[:1])
    async with running(server, db, idle_evict_after=IDLE, turn_timeout=0.5,
                       unhurried_ping_after=3.0, unhurried_ping_again=7.0,
                       ping_quiet=0.0) as app:
        svc = service(app)
        await start_private(server, *people)
        gid, lobby = await open_table(server, app, GROUP, people[0], people[1:], args="3",
                                      computers=1, start=False)
        await lobby_setting(server, people[0], lobby, ":tp:unhurried")
        assert await click_data(server, people[0], lobby, ":st:") is None
        s = session(app, gid)
        assert s is not None and s.pace == "unhurried"

        def person_waits(s: Session = s) -> tuple[int, int] | None:
            st = s.state
            if st is None or st.to_act < 0 or s.seats[st.to_act].kind != "human":
                return None
            return (st.version, st.to_act) if s.timer is not None else None

        _, seat = await server.wait_for(person_waits, what="a person's turn")
        who = next(p for p in people if p.id == s.seats[seat].user_id)
        stored = len(await svc.storage.actions(gid))
        await _evicted(app, gid, timeout=2.5)  # out of memory before the first ping
        assert not [m for m in server.sent_by_bot(who) if (m.first_text or "").startswith("🔔")]
        first = await server.wait_bot_message(
            who, predicate=lambda m: "🔔" in txt(m), timeout=6)
        await _evicted(app, gid, timeout=3)  # and out again before the second
        second = await server.wait_bot_message(
            who, predicate=lambda m: "🔔" in txt(m) and m.message_id != first.message_id,
            timeout=8)
        assert server.chat(who).messages[first.message_id].deleted  # one out at a time
        await _evicted(app, gid, timeout=3)  # nothing more is due: it waits in storage
        assert svc.kit.registry.kept[gid].wake is None
        await asyncio.sleep(1.0)  # (twice the normal timeout: an unhurried turn has none)
        game = await svc.storage.get_game(gid)
        assert game is not None and game.status == "playing"
        assert len(await svc.storage.actions(gid)) == stored  # no move made for anybody
        assert second.message_id > first.message_id
        await server.send_text(people[0], GROUP, "/stop")
        await server.wait_for(lambda: not svc.sessions and not svc.pending,
                              what="the game stopped")
        await idle(app)
    server.assert_clean()
