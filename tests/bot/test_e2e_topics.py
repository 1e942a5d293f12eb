"""Tables in forum topics (issue 18), the real bot against the fake forum: a table's place
is (chat, topic); several tables play in one forum at once, each in its topic, sharing the
group's budget; a closed topic pauses its table, a reopened one resumes it, a deleted one
ends it; a forum whose General is closed plays in a topic without one refused request."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from bot.tg.view.callbacks import decode
from tests.bot.helpers import (
    click_data,
    idle,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser
from tests.fakeapi.server import GENERAL_TOPIC_ID, THREAD_NOT_FOUND, TOPIC_DELETED, FakeTopic

FORUM = -1001234505001
SENDS = ("sendmessage", "sendphoto", "senddocument")


def game_ids(msg: FakeMessage) -> set[int]:
    """The games whose buttons a message shows (now or in an earlier version)."""
    found = set()
    for b in msg.all_buttons:
        c = decode(b.callback_data) if b.callback_data else None
        if c is not None:
            found.add(c.game_id)
    return found


async def open_in(server: FakeTelegramServer, creator: FakeUser, topic: FakeTopic | None,
                  joiners: list[FakeUser], computers: int,
                  args: str = "") -> tuple[int, FakeMessage]:
    """``/newgame`` written in ``topic`` (None: General); people sit down, the creator adds
    computers and starts.  The game id and its lobby (then table) message."""
    where = topic.id if topic is not None else GENERAL_TOPIC_ID
    before = server.last_bot_message(FORUM, topic=where)
    await server.send_text(creator, FORUM, f"/newgame {args}".strip(), topic=topic)
    lobby = await server.wait_bot_message(
        FORUM, after=before, topic=where,
        predicate=lambda m: any(":j:" in (b.callback_data or "") for b in m.all_buttons))
    assert lobby.topic_id == where
    for person in joiners:
        assert await click_data(server, person, lobby, ":j:", wait=False) is None
    for _ in range(computers):
        assert await click_data(server, creator, lobby, ":c:", wait=False) is None
    gid = decode(lobby.all_buttons[0].callback_data)
    assert gid is not None
    assert await click_data(server, creator, lobby, ":st:", wait=False) is None
    return gid.game_id, lobby


async def command(server: FakeTelegramServer, user: FakeUser, text: str,
                  topic: FakeTopic | None, timeout: float = 65.0) -> FakeMessage:
    """A command written in ``topic``; the bot's answer (which must land there; within a
    minute: the group's budget may be spent)."""
    where = topic.id if topic is not None else GENERAL_TOPIC_ID
    before = server.last_bot_message(FORUM, topic=where)
    await server.send_text(user, FORUM, text, topic=topic)
    answer = await server.wait_bot_message(FORUM, after=before, topic=where, timeout=timeout)
    assert answer.topic_id == where
    return answer


def refused(server: FakeTelegramServer) -> list[str]:
    return [f"{r.method} {r.status} {r.description}" for r in server.calls(chat=FORUM)
            if r.status is not None and not r.ok]


async def test_three_tables_in_one_forum_each_in_its_place(
        server: FakeTelegramServer, db: Path) -> None:
    server.group_rate_limit = 20  # Telegram's limit is the group's, whatever the topic
    people = [server.add_user(8101 + i, name) for i, name in
              enumerate(["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"])]
    anna, boris, vera, gleb, dina, egor = people
    server.add_group(FORUM, "Клуб", members=people[1:], admins=[anna], is_forum=True)
    topic_a = server.create_topic(FORUM, "Стол A", by=anna)
    topic_b = server.create_topic(FORUM, "Стол B", by=anna)
    async with running(server, db, seed=5, group_messages_per_minute=20) as app:
        await start_private(server, *people)
        gid_a, _ = await open_in(server, anna, topic_a, [boris], 1)
        gid_b, _ = await open_in(server, vera, topic_b, [gleb], 1)
        gid_g, _ = await open_in(server, dina, None, [egor], 1)
        assert len({gid_a, gid_b, gid_g}) == 3
        places = {gid_a: topic_a.id, gid_b: topic_b.id, gid_g: GENERAL_TOPIC_ID}
        svc = service(app)
        for gid, made in ((gid_a, topic_a), (gid_b, topic_b)):
            s = session(app, gid)
            assert s is not None and s.thread_id == made.id
            assert svc.session_of_chat(FORUM, made.id) is s
        s_g = session(app, gid_g)
        assert s_g is not None and s_g.thread_id is None
        assert svc.session_of_chat(FORUM) is s_g

        def seated(gid: int) -> dict[int, FakeUser]:
            s = session(app, gid)
            assert s is not None
            return {s.seat_of(p.id): p for p in people if s.seat_of(p.id) >= 0}

        async def deals(gid: int, seed: int, want: int = 2) -> None:
            for _ in range(40):
                s = session(app, gid)
                assert s is not None and s.state is not None
                if len(s.state.history) >= want:
                    return
                await play(server, app, gid, seated(gid), seed=seed, max_moves=10,
                           timeout=40)
            raise AssertionError(f"game {gid} did not reach {want} deals")

        # the three tables are played at the same time, by different people
        await asyncio.gather(deals(gid_a, 1), deals(gid_b, 2), deals(gid_g, 3))

        # commands answer in the topic they were asked in, about that topic's table
        tables: list[tuple[int, FakeTopic | None, FakeUser]] = [
            (gid_a, topic_a, anna), (gid_b, topic_b, vera), (gid_g, None, dina)]
        for gid, topic, who in tables:
            s = session(app, gid)
            assert s is not None
            names = [x.name for x in s.seats]
            sheet = await command(server, who, "/score", topic)
            assert all(name in txt(sheet) for name in names), txt(sheet)
        asked: list[FakeTopic | None] = [topic_a, None]
        for topic in asked:  # a table is open: said so, with a link to it
            exists = await command(server, boris, "/newgame", topic)
            assert "уже есть партия" in txt(exists)
            link = f"/c/1234505001/{topic.id}/" if topic is not None else "/c/1234505001/"
            assert any(str(e.get("url", "")).startswith(f"https://t.me{link}")
                       for e in exists.entities), exists.entities

        # (the tables' messages share the group's 20 a minute, replies first: a minute)
        await service(app).outbox.idle(70)
        # every message of each table landed in its topic
        for m in server.sent_by_bot(FORUM):
            for gid in game_ids(m):
                assert m.topic_id == places[gid], (gid, m.topic_id, txt(m)[:60])
        for gid, where in places.items():
            mine = [m for m in server.bot_messages(FORUM, topic=where) if gid in game_ids(m)]
            s = session(app, gid)
            assert s is not None and s.state is not None
            # a lobby-then-table and two deals more (a redealt deal's message is the next's)
            redeals = sum(1 for h in s.state.history if h.outcome == "redeal")
            assert len(mine) >= 3 - redeals, (gid, len(mine), redeals)
        # one budget for the group: never over 20 a minute, never a 429
        assert server.max_in_window(FORUM) <= 20
        assert not server.rate_limited
        assert refused(server) == []
        # message_thread_id is never General's
        assert all(r.params.get("message_thread_id") != GENERAL_TOPIC_ID
                   for r in server.calls(chat=FORUM))

        for gid, topic, who in tables:
            done = await command(server, who, "/stop", topic)
            assert "остановлен" in txt(done).lower(), txt(done)

            def ended(g: int = gid) -> bool:
                return session(app, g) is None

            await server.wait_for(ended)
        games = [await svc.storage.get_game(g) for g in places]
        assert [g.thread_id for g in games if g is not None] == [topic_a.id, topic_b.id, None]
    server.assert_clean()


async def test_general_closed_a_topic_table_plays_without_a_refusal(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(8201, "Анна"), server.add_user(8202, "Борис")
    server.add_group(FORUM, "Клуб", members=[boris], admins=[anna], is_forum=True)
    topic = server.create_topic(FORUM, "Тысяча", by=anna)
    server.close_general(FORUM, by=anna)
    async with running(server, db, seed=7) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_in(server, anna, topic, [boris], 1)
        s = session(app, gid)
        assert s is not None
        await play(server, app, gid, {s.seat_of(anna.id): anna, s.seat_of(boris.id): boris},
                   max_moves=25, timeout=20)
        await command(server, boris, "/score", topic)
        await command(server, anna, "/table", topic)
        await command(server, anna, "/stop", topic)
        await server.wait_for(lambda: session(app, gid) is None)
        await idle(app)
    assert refused(server) == []
    assert server.topics_of(server.sent_by_bot(FORUM)) == {topic.id}
    server.assert_clean()


async def test_a_closed_topic_pauses_its_table_until_reopened(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(8301, "Анна"), server.add_user(8302, "Борис")
    server.add_group(FORUM, "Клуб", members=[boris], admins=[anna], is_forum=True)
    topic = server.create_topic(FORUM, "Тысяча", by=anna)
    other = server.create_topic(FORUM, "Другой стол", by=anna)
    async with running(server, db, seed=9, computer_move_delay=0.05) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_in(server, anna, topic, [], 2)
        gid2, _ = await open_in(server, boris, other, [], 2)
        s, s2 = session(app, gid), session(app, gid2)
        assert s is not None and s.state is not None and s2 is not None
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=4, timeout=20)
        await idle(app)
        server.close_topic(FORUM, topic, by=anna)
        await server.wait_for(lambda: s.paused, what="the table paused")
        async with s.lock:  # (a move being stored as the topic closed is let finish)
            version = s.state.version
        await idle(app)
        calls = len(server.calls(chat=FORUM))
        # nothing runs while paused: no computer move, no timeout, nothing sent to it
        st = s.state
        if st.to_act >= 0 and s.seats[st.to_act].user_id == anna.id:
            for m in reversed(server.chat(anna).bot_messages()):
                act = next((b for b in m.all_buttons
                            if f"g{gid}:{st.version}:" in (b.callback_data or "")), None)
                if act is not None:
                    assert act.callback_data is not None
                    answer = await server.press(anna, anna.chat, m.message_id,
                                                act.callback_data)
                    assert answer is not None and answer.text is not None
                    assert "пауз" in answer.text
                    break
        # ... while the other topic's table goes on
        await play(server, app, gid2, {s2.seat_of(boris.id): boris}, max_moves=3, timeout=20)
        await asyncio.sleep(0.5)
        assert s.state.version == version
        assert all(r.params.get("message_thread_id") != topic.id
                   for r in server.calls(chat=FORUM)[calls:])
        server.reopen_topic(FORUM, topic, by=anna)
        await server.wait_for(lambda: not s.paused, what="the table resumed")
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=4, timeout=20)
        assert s.state.version > version
        await command(server, anna, "/stop", topic)
        await command(server, boris, "/stop", other)
        await idle(app)
    for m in server.sent_by_bot(FORUM):
        for g in game_ids(m):
            assert m.topic_id == (topic.id if g == gid else other.id)
    assert refused(server) == []
    server.assert_clean()


async def test_a_pause_survives_a_restart(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(8401, "Анна")
    server.add_group(FORUM, "Клуб", admins=[anna], is_forum=True)
    topic = server.create_topic(FORUM, "Тысяча", by=anna)
    async with running(server, db, seed=11, computer_move_delay=0.05) as app:
        await start_private(server, anna)
        gid, _ = await open_in(server, anna, topic, [], 2)
        s = session(app, gid)
        assert s is not None
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=3, timeout=20)
        await idle(app)
        server.close_topic(FORUM, topic, by=anna)
        await server.wait_for(lambda: s is not None and s.paused)
        async with s.lock:
            assert s.state is not None
            version = s.state.version
        await idle(app)
    async with running(server, db, seed=11, computer_move_delay=0.05) as app:
        await idle(app)
        s = session(app, gid)
        assert s is not None and s.paused and s.thread_id == topic.id
        assert s.state is not None and s.state.version == version
        server.reopen_topic(FORUM, topic, by=anna)
        await server.wait_for(lambda: not s.paused)
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=3, timeout=20)
        assert s.state.version > version
        await command(server, anna, "/stop", topic)
        await idle(app)
    assert server.topics_of(server.sent_by_bot(FORUM)) == {topic.id}
    server.assert_clean()


@pytest.mark.parametrize("error", [THREAD_NOT_FOUND, TOPIC_DELETED])
async def test_a_deleted_topic_ends_its_table_as_an_idle_game(
        server: FakeTelegramServer, db: Path, error: str) -> None:
    server.deleted_topic_error = error  # (the Bot API server's answer, or Telegram's own)
    anna, boris = server.add_user(8501, "Анна"), server.add_user(8502, "Борис")
    server.add_group(FORUM, "Клуб", members=[boris], admins=[anna], is_forum=True)
    topic = server.create_topic(FORUM, "Тысяча", by=anna)
    async with running(server, db, seed=13) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_in(server, anna, topic, [boris], 1)
        s = session(app, gid)
        assert s is not None
        people = {s.seat_of(anna.id): anna, s.seat_of(boris.id): boris}
        await play(server, app, gid, people, max_moves=3, timeout=20)
        await idle(app)
        server.delete_topic(FORUM, topic, by=anna)
        # the table's next change is refused (its message is gone, the topic too): the end
        for _ in range(50):
            if session(app, gid) is None:
                break
            with contextlib.suppress(AssertionError, TimeoutError):  # (a press too late)
                await play(server, app, gid, people, max_moves=1, timeout=3)
        await server.wait_for(lambda: session(app, gid) is None)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "expired"
        assert game.reason == "topic_deleted"
        for p in (anna, boris):
            told = await server.wait_bot_message(p, predicate=lambda m: "удалили тему" in txt(m))
            assert "Клуб" in txt(told)
        await idle(app)
    server.assert_clean()


async def test_a_reply_chains_thread_id_is_no_topic(server: FakeTelegramServer, db: Path) -> None:
    """``message_thread_id`` of a reply in General (or in a supergroup without topics) is a
    reply chain's, not a topic: the table there is meant and the answer goes there."""
    anna, boris = server.add_user(8601, "Анна"), server.add_user(8602, "Борис")
    server.add_group(FORUM, "Клуб", members=[boris], admins=[anna], is_forum=True)
    plain = -1001234505002
    server.add_group(plain, "Без тем", members=[boris], admins=[anna])
    async with running(server, db, seed=15) as app:
        await start_private(server, anna, boris)
        gid, lobby = await open_in(server, anna, None, [boris], 1)
        before = server.last_bot_message(FORUM)
        reply = await server.send_text(boris, FORUM, "/score", reply_to=lobby)
        assert reply.thread_id is not None  # (the chain's id, as Telegram sends it)
        sheet = await server.wait_bot_message(FORUM, after=before)
        assert sheet.topic_id == GENERAL_TOPIC_ID
        assert "Сыгранных конов пока нет" in txt(sheet)  # this table's sheet (no deal yet)
        await server.send_text(anna, plain, "/newgame")
        other = await server.wait_bot_message(plain, predicate=lambda m: bool(m.all_buttons))
        before = server.last_bot_message(plain)
        await server.send_text(boris, plain, "/newgame", reply_to=other)
        exists = await server.wait_bot_message(plain, after=before)
        assert "уже есть партия" in txt(exists)
        assert service(app).session_of_chat(plain) is not None
        assert service(app).session_of_chat(FORUM) is session(app, gid)
        await idle(app)
    assert all("message_thread_id" not in r.params for r in server.requests
               if r.chat_id in (FORUM, plain))
    assert refused(server) == []
    server.assert_clean()


async def test_a_refused_send_pauses_the_table_and_nothing_is_lost(
        server: FakeTelegramServer, db: Path) -> None:
    """The topic closed without the bot seeing the service message: the first refused send
    (400 TOPIC_CLOSED) pauses the table; no retry loop, no traceback; the refused reply
    and the table go out once the topic is reopened."""
    anna = server.add_user(8701, "Анна")
    server.add_group(FORUM, "Клуб", admins=[anna], is_forum=True)
    topic = server.create_topic(FORUM, "Тысяча", by=anna)
    async with running(server, db, seed=17, computer_move_delay=0.05) as app:
        await start_private(server, anna)
        gid, _ = await open_in(server, anna, topic, [], 2)
        s = session(app, gid)
        assert s is not None and s.state is not None
        await idle(app)
        topic.closed = True  # (as if the update were lost: the bot learns it from a refusal)
        before = server.last_bot_message(FORUM, topic=topic.id)
        await server.send_text(anna, FORUM, "/score", topic=topic)  # an admin may write
        await server.wait_for(lambda: s.paused, what="the table paused by the refusal")
        await idle(app)
        tries = [r for r in server.calls(chat=FORUM) if r.status == 400]
        assert len(tries) == 1 and "TOPIC_CLOSED" in (tries[0].description or "")
        server.reopen_topic(FORUM, topic, by=anna)
        sheet = await server.wait_bot_message(FORUM, after=before, topic=topic.id)
        assert "Сыгранных конов пока нет" in txt(sheet)
        await server.wait_for(lambda: not s.paused)
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=3, timeout=20)
        await command(server, anna, "/stop", topic)
        await idle(app)
    assert len([r for r in server.calls(chat=FORUM) if r.status == 400]) == 1
    assert server.topics_of(server.sent_by_bot(FORUM)) == {topic.id}
    server.assert_clean()
