"""A press counts only where its button was shown; bad input changes nothing (issue 8).

Every kind of button data is sent from the wrong chat, by the wrong person, through an
inline message; commands race each other in one chat; names carry control characters; an
anonymous admin stops a game.  After each refused press nothing changed: no seat, no move,
no message edited or sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

from bot.engine.views import view
from bot.tg.rooms.service import clean_name
from bot.tg.view.callbacks import ACT, encode
from tests.bot.helpers import (
    action_button,
    idle,
    open_table,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -500100
OTHER_GROUP = -500200
WRONG_PLACE = "не отсюда"


def _lobby_datas(gid: int, rev: int) -> list[str]:
    """Every lobby button's data (as the lobby writes it) for game ``gid``."""
    return [encode(gid, 0, "j"), encode(gid, 0, "l"), encode(gid, rev, "c"),
            encode(gid, rev, "d"), encode(gid, rev, "n", "4"), encode(gid, rev, "p", "full"),
            encode(gid, rev, "v", "hard"), encode(gid, rev, "st"), encode(gid, rev, "x"),
            encode(gid, rev, "m", "m"), encode(gid, rev, "m", "s1"), encode(gid, rev, "r", "0.1")]


class Snapshot:
    """What a refused press must leave as it was: the session, the database, the chats."""

    def __init__(self, server: FakeTelegramServer, app: object, gid: int) -> None:
        self.server, self.app, self.gid = server, app, gid

    async def take(self) -> tuple[object, ...]:
        from bot.tg.io.app import ThousandApplication

        assert isinstance(self.app, ThousandApplication)
        await idle(self.app)
        s = session(self.app, self.gid)
        game = await service(self.app).storage.get_game(self.gid)
        assert game is not None
        sent = [r for r in self.server.requests
                if r.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup",
                                "deleteMessage")]
        return (
            None if s is None else (s.status, [x.to_json() for x in s.seats],
                                    s.state.version if s.state else None, s.rules, s.lobby_rev),
            (game.status, game.seats, game.version, game.lobby_rev, game.rules),
            len(sent),
        )


async def _outsider_presses(server: FakeTelegramServer, outsider: FakeUser,
                            datas: list[str], *, chat: int | None = None) -> list[str | None]:
    """``outsider`` sends each data from a message of their own private chat (or ``chat``)."""
    place = server.chat(outsider if chat is None else chat)
    msg = place.last_bot_message()
    assert msg is not None
    texts = []
    for data in datas:
        answer = await server.press(outsider, place, msg.message_id, data, strict=False)
        assert answer is not None, f"no answer to {data!r}"
        texts.append(answer.text)
    return texts


async def test_lobby_buttons_pressed_elsewhere_change_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(5001, "Анна"), server.add_user(5002, "Борис")
    mallory = server.add_user(5003, "Мэллори")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    server.add_group(OTHER_GROUP, "Чужие", members=[mallory], admins=[mallory])
    async with running(server, db) as app:
        await start_private(server, anna, boris, mallory)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        s = session(app, gid)
        assert s is not None
        await server.send_text(mallory, OTHER_GROUP, "/help")
        await server.wait_bot_message(OTHER_GROUP)
        snap = Snapshot(server, app, gid)
        before = await snap.take()
        datas = _lobby_datas(gid, s.lobby_rev)
        # from the outsider's private chat: the hole of round 1 (he was seated)
        answers = await _outsider_presses(server, mallory, datas)
        assert all(a is not None and WRONG_PLACE in a for a in answers), answers
        # from another group the outsider is in
        answers = await _outsider_presses(server, mallory, datas, chat=OTHER_GROUP)
        assert all(a is not None and WRONG_PLACE in a for a in answers), answers
        # through an inline message (no chat at all)
        for data in datas:
            q = server.press_inline(anna, "AAQAAAB", data)
            answer = await server.wait_answer(q)
            assert answer is not None and answer.text is not None
            assert WRONG_PLACE in answer.text
        # even the creator, from her own private chat
        answers = await _outsider_presses(server, anna, datas)
        assert all(a is not None and WRONG_PLACE in a for a in answers), answers
        assert await snap.take() == before
        assert "Мэллори" not in txt(lobby)
        assert s.seat_of(mallory.id) < 0
    server.assert_clean()


async def test_table_and_hand_buttons_pressed_elsewhere_change_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(5011, "Анна"), server.add_user(5012, "Борис")
    mallory = server.add_user(5013, "Мэллори")
    server.add_group(GROUP, "Друзья", members=[boris, mallory], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris, mallory)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        st = s.state
        seat = st.to_act
        person = server.user(s.seats[seat].user_id)
        found = await server.wait_for(lambda: action_button(server, person, gid, st.version))
        hand_msg, button = found
        assert button.callback_data is not None
        act_datas = [b.callback_data for b in hand_msg.all_buttons
                     if b.callback_data and f":{ACT}:" in b.callback_data]
        assert act_datas
        snap = Snapshot(server, app, gid)
        before = await snap.take()
        # the right person, but in the group (a forged group message carrying hand data)
        answers = await _outsider_presses(server, person, act_datas, chat=GROUP)
        assert all(a is not None and WRONG_PLACE in a for a in answers), answers
        # another player of the table, from their own private chat: not their seat
        other = anna if person.id == boris.id else boris
        place = server.chat(other)
        last = place.last_bot_message()
        assert last is not None
        for data in act_datas:
            answer = await server.press(other, other, last.message_id, data, strict=False)
            assert answer is not None and answer.text is not None
        # the table's buttons (my hand, the score) from a private chat
        table_datas = [encode(gid, 0, "h"), encode(gid, 0, "s")]
        answers = await _outsider_presses(server, mallory, table_datas)
        assert all(a is not None and WRONG_PLACE in a for a in answers), answers
        # hand data through an inline message
        q = server.press_inline(person, "AAQAAAB", act_datas[0])
        answer = await server.wait_answer(q)
        assert answer is not None and answer.text is not None and WRONG_PLACE in answer.text
        assert await snap.take() == before
        assert s.state is st
        # and the real press, where it was shown, still works
        answer = await server.press(person, person, hand_msg.message_id, button.callback_data)
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: s.state is not st)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_concurrent_leave_join_stop_in_one_chat(
        server: FakeTelegramServer, db: Path) -> None:
    """``/leave`` of a person without a seat, raced against joins and other leaves, never
    removes anybody's seat; memory and database agree on the seats afterwards."""
    anna = server.add_user(5021, "Анна")
    people = [server.add_user(5022 + i, f"Игрок{i}") for i in range(5)]
    server.add_group(GROUP, "Друзья", members=people, admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, *people)
        for round_no in range(4):
            gid, lobby = await open_table(server, app, GROUP, anna, [], start=False,
                                          args="4")
            s = session(app, gid)
            assert s is not None
            join = lobby.find_button(contains="Сесть").callback_data
            assert join is not None
            # two sit down first
            for p in people[:2]:
                assert (await server.press(p, GROUP, lobby.message_id, join,
                                           strict=False)) is not None
            await server.wait_for(lambda: len(s.seats) == 3)  # noqa: B023 (awaited at once)
            # at once: one more joins, one seated person sends /leave twice, an unseated one
            # once (round 1's bug: the second /leave deleted somebody else's seat)
            queries = [server.press_nowait(people[2], GROUP, lobby.message_id, join,
                                           strict=False)]
            # ... while the game's lock is held (as by a slow press), so that they all queue
            async with s.lock:
                await asyncio.gather(
                    server.send_text(people[0], GROUP, "/leave"),
                    server.send_text(people[0], GROUP, "/leave"),
                    server.send_text(people[4], GROUP, "/leave"),
                )
                await server.wait_updates_delivered()
                await asyncio.sleep(0.2)
            async with s.lock:  # the lock is fair: this waits for every queued command
                pass
            for q in queries:
                assert await server.wait_answer(q) is not None
            await server.wait_updates_delivered()
            await idle(app)
            ids = [x.user_id for x in s.seats]
            assert sorted(ids) == sorted([anna.id, people[1].id, people[2].id]), (round_no, ids)
            game = await service(app).storage.get_game(gid)
            assert game is not None
            assert [x["user_id"] for x in json.loads(game.seats)] == ids
            # a stop raced against a join and a leave: the lobby is gone, in memory and db
            q = server.press_nowait(people[4], GROUP, lobby.message_id, join, strict=False)
            await asyncio.gather(server.send_text(anna, GROUP, "/stop"),
                                 server.send_text(people[1], GROUP, "/leave"))
            await server.wait_answer(q)
            await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
            await idle(app)
            game = await service(app).storage.get_game(gid)
            assert game is not None and not game.active
            assert await service(app).storage.active_game(GROUP) is None
    server.assert_clean()


async def test_concurrent_moves_and_leave_during_play(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(5031, "Анна"), server.add_user(5032, "Борис")
    vera = server.add_user(5033, "Вера")
    server.add_group(GROUP, "Друзья", members=[boris, vera], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None and s.state is not None
        for _ in range(6):
            st = s.state
            assert st is not None
            seat = st.to_act
            if s.seats[seat].auto or len(view(st, seat).legal) == 1:
                # a seat whose person left, or an only move: the bot moves itself
                await server.wait_for(lambda: s.state is not st or s.status != "playing")  # noqa: B023 (awaited at once)
                continue
            person = server.user(s.seats[seat].user_id)
            found = await server.wait_for(
                lambda: action_button(server, person, gid, st.version))  # noqa: B023 (awaited at once)
            msg, button = found
            assert button.callback_data is not None
            # the person to act presses twice, and somebody else leaves, all at once
            leaver = next((p for p in (anna, boris, vera) if p.id != person.id
                           and not s.seats[s.seat_of(p.id)].auto), None)
            if leaver is None:
                break
            q1 = server.press_nowait(person, person, msg.message_id, button.callback_data)
            q2 = server.press_nowait(person, person, msg.message_id, button.callback_data)
            await server.send_text(leaver, GROUP, "/leave")
            a1, a2 = await server.wait_answer(q1), await server.wait_answer(q2)
            assert a1 is not None and a2 is not None
            assert [a1.text, a2.text].count(None) == 1  # exactly one of the two counted
            await server.wait_updates_delivered()
            gone = s.seat_of(leaver.id)
            await server.wait_for(lambda: s.status != "playing"
                                  or s.seats[gone].auto)  # noqa: B023 (awaited at once)
            await idle(app)
            if s.status != "playing":
                break
            await server.wait_for(lambda: s.state is not st)  # noqa: B023 (awaited at once)
            if sum(1 for x in s.seats if not x.auto) <= 1:
                break
        # memory and database agree on who is left at the table
        game = await service(app).storage.get_game(gid)
        assert game is not None
        stored = [x["user_id"] for x in json.loads(game.seats)]
        assert stored == [x.user_id for x in s.seats]
        assert len(set(stored)) == 3
        if service(app).session_of_chat(GROUP) is not None:
            await server.send_text(anna, GROUP, "/stop")
            await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


def test_names_are_cleaned() -> None:
    assert clean_name("\u202eАнна\u200b") == "Анна"
    assert clean_name("Bob\u2066\u2069 \u200d\u200cSmith\n\tJr") == "Bob Smith Jr"
    assert clean_name("x" * 100) == "x" * 24
    assert clean_name("\u200b\u200b") == ""
    assert clean_name("Zoë  ♥") == "Zoë ♥"


async def test_hostile_names_reach_the_table_clean_and_escaped(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(5041, "Анна")
    evil = server.add_user(5042, "\u202e<b>Злой</b>\u200b" + "ы" * 60)
    server.add_group(GROUP, "Друзья", members=[evil], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, evil)
        gid, lobby = await open_table(server, app, GROUP, anna, [evil], start=False)
        s = session(app, gid)
        assert s is not None
        name = s.seats[1].name
        assert name == "<b>Злой</b>" + "ы" * 13
        assert "\u202e" not in txt(lobby) and "\u200b" not in txt(lobby)
        assert "<b>Злой</b>" in txt(lobby)  # shown as typed, not as markup
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_an_anonymous_admin_counts_as_admin(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(5051, "Анна"), server.add_user(5052, "Борис")
    carl = server.add_user(5053, "Карл")
    server.add_group(GROUP, "Друзья", members=[carl], admins=[anna, boris])
    async with running(server, db) as app:
        await start_private(server, anna, carl)
        gid, _ = await open_table(server, app, GROUP, anna, [carl], computers=1)
        # a plain member may not stop the game
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(carl, GROUP, "/stop")
        refused = await server.wait_bot_message(GROUP, after=before)
        assert "создатель стола или админ" in txt(refused)
        assert service(app).session_of_chat(GROUP) is not None
        # Boris, an admin writing anonymously on behalf of the group, may
        await server.send_as_group(boris, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "stopped"
        await idle(app)
    server.assert_clean()


async def test_the_database_is_owner_only(server: FakeTelegramServer, db: Path) -> None:
    vera = server.add_user(5061, "Вера")
    async with running(server, db) as app:
        await start_private(server, vera)
        await server.send_text(vera, vera, "/newgame 3")
        await server.wait_for(lambda: service(app).session_of_chat(vera.id) is not None)
        await server.send_text(vera, vera, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(vera.id) is None)
        await idle(app)
        for suffix in ("", "-wal", "-shm"):
            path = Path(str(db) + suffix)
            if path.exists():
                assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0, (suffix,
                                                                          oct(os.stat(path).st_mode))
    server.assert_clean()


async def test_a_clean_stop_leaves_no_task(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(5071, "Анна"), server.add_user(5072, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, computer_move_delay=5, turn_timeout=60) as app:
        await start_private(server, anna, boris)
        await open_table(server, app, GROUP, anna, [boris], computers=1)
        await server.send_text(anna, anna, "/newgame 3")  # a solo game too
        await server.wait_for(lambda: service(app).session_of_chat(anna.id) is not None)
        await idle(app)
        ours = [t for t in asyncio.all_tasks() if t.get_name().split(":")[0]
                in ("drive", "timer", "ids", "sweeper", "outbox")]
        assert ours  # timers, the sweeper: something runs while the bot does
    await asyncio.sleep(0)
    left = [t.get_name() for t in asyncio.all_tasks()
            if t.get_name().split(":")[0] in ("drive", "timer", "ids", "sweeper", "outbox")
            and not t.done()]
    assert left == []


async def test_the_bot_removed_from_a_group_closes_its_lobby(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(5081, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        gid, _ = await open_table(server, app, GROUP, anna, [], start=False)
        server.kick_bot(GROUP, by=anna)
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        game = await service(app).storage.get_game(gid)
        assert game is not None and not game.active
        assert GROUP not in service(app).outbox.queues
    server.assert_clean()


async def test_wrong_hand_person_cannot_move(server: FakeTelegramServer, db: Path) -> None:
    """A player of the table replays another seat's hand data from their own chat."""
    anna, boris = server.add_user(5091, "Анна"), server.add_user(5092, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        await server.wait_for(lambda: s.state is not None
                              and not s.seats[s.state.to_act].computer)
        st = s.state
        seat = st.to_act
        other = anna if s.seats[seat].user_id == boris.id else boris
        datas = [encode(gid, st.version, ACT, a_code)
                 for a_code in _codes(view(st, seat).legal)]
        last: FakeMessage | None = server.chat(other).last_bot_message()
        assert last is not None
        for data in datas:
            answer = await server.press(other, other, last.message_id, data, strict=False)
            assert answer is not None and answer.text is not None
        assert s.state is st
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


def _codes(actions: tuple[object, ...]) -> list[str]:
    from bot.engine.state import Action
    from bot.tg.view.callbacks import encode_action

    return [encode_action(a) for a in actions if isinstance(a, Action)]
