"""People at a group table: joining through a deep link, presses that must change nothing,
a person who blocks the bot, leaving, stopping, and a person who does not move in time."""

from __future__ import annotations

from pathlib import Path

from bot.engine.views import view
from bot.tg.view.callbacks import action_data
from tests.bot.helpers import (
    action_button,
    idle,
    open_table,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.fakeapi import FakeTelegramServer

GROUP = -400200


async def test_a_person_who_never_started_the_bot_joins_by_deep_link(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(3001, "Анна"), server.add_user(3002, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        s = session(app, gid)
        assert s is not None and s.lobby_code is not None
        # Борис never wrote to the bot: the press answers with a link that opens the bot
        answer = await server.click(boris, lobby, contains="Сесть")
        assert answer is not None and answer.text is None
        assert answer.url == f"https://t.me/{server.bot_username}?start=join_{s.lobby_code}"
        assert len(s.seats) == 1
        count = lobby.edit_count
        await server.send_text(boris, boris, f"/start join_{s.lobby_code}")
        reply = await server.wait_bot_message(boris)
        assert "Вы за столом «Друзья»" in txt(reply)
        await server.wait_for(lambda: lobby.edit_count > count)
        assert "Борис — за столом" in txt(lobby)
        assert [x.user_id for x in s.seats] == [anna.id, boris.id]
        # a third seat for the computer, then the game starts and Борис gets his cards
        answer = await server.click(anna, lobby, contains="Добавить компьютер")
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: "🤖" in txt(lobby))
        answer = await server.click(boris, lobby, contains="Начать")
        assert answer is not None and answer.text == "Это может создатель стола или админ"
        answer = await server.click(anna, lobby, contains="Начать")
        assert answer is not None and answer.text is None
        await server.wait_bot_message(boris, predicate=lambda m: "Ваши карты" in txt(m))
        await idle(app)
    server.assert_clean()


async def test_stale_foreign_and_forged_presses_change_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = (server.add_user(3011, "Анна"), server.add_user(3012, "Борис"),
                         server.add_user(3013, "Вера"))
    outsider = server.add_user(3014, "Глеб")
    server.add_group(GROUP, "Друзья", members=[boris, vera, outsider], admins=[anna])
    async with running(server, db, seed=7) as app:
        await start_private(server, anna, boris, vera, outsider)
        gid, table = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None and s.state is not None
        people = {i: server.user(s.seats[i].user_id) for i in range(3)}
        await play(server, app, gid, people, max_moves=3)
        await idle(app)
        st = s.state
        assert st is not None
        on_turn = people[st.to_act]
        other = next(p for i, p in people.items() if i != st.to_act)
        found = await server.wait_for(lambda: action_button(server, on_turn, gid, st.version))
        msg, button = found
        assert button.callback_data is not None
        storage_version = s.store_version

        async def refused(user_id: int, chat: int, message_id: int, data: str) -> str | None:
            answer = await server.press(user_id, chat, message_id, data, strict=False)
            assert answer is not None
            return answer.text

        # a stale button: an older version of the game
        old = action_data(gid, st.version - 1, view(st, st.to_act).legal[0])
        assert await refused(on_turn.id, on_turn.id, msg.message_id, old) == "Эта кнопка устарела"
        # somebody else's turn: a current, legal action pressed by the wrong person
        data = button.callback_data
        text = await refused(other.id, other.id, msg.message_id, data)
        assert text == f"Сейчас ходит {s.seats[st.to_act].name}"
        # not at this table
        assert await refused(outsider.id, outsider.id, msg.message_id, data) == \
            "Вы не за этим столом"
        # forged: garbage, an unknown game, an action that is not legal now
        assert await refused(on_turn.id, on_turn.id, msg.message_id, "g1:x") == \
            "Неизвестная кнопка"
        assert await refused(on_turn.id, on_turn.id, msg.message_id, "hello") == \
            "Неизвестная кнопка"
        assert await refused(on_turn.id, on_turn.id, msg.message_id,
                             f"g{gid + 99}:{st.version}:a:ps") == "Эта кнопка устарела"
        assert await refused(on_turn.id, on_turn.id, msg.message_id,
                             f"g{gid}:{st.version}:a:b295") == "Неизвестная кнопка"
        assert await refused(on_turn.id, on_turn.id, msg.message_id, "g" + "9" * 70) == \
            "Неизвестная кнопка"
        # the table's buttons: a person not at the table asks for their cards
        cards = table.find_button(contains="Мои карты").callback_data
        assert cards is not None
        assert await refused(outsider.id, GROUP, table.message_id, cards) == \
            "Вы не за этим столом"
        hand = await server.press(other, GROUP, table.message_id, cards)
        assert hand is not None and hand.show_alert and hand.text is not None
        assert hand.text.startswith("Ваши карты:")
        # nothing changed
        assert s.state is st and s.store_version == storage_version
        assert len(await service(app).storage.actions(gid)) == storage_version
        # and the right press still works
        answer = await server.press(on_turn, on_turn.id, msg.message_id, data)
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: s.state is not st)
        await idle(app)
    server.assert_clean()


async def test_a_person_who_blocks_the_bot_is_replaced_by_the_computer(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = (server.add_user(3021, "Анна"), server.add_user(3022, "Борис"),
                         server.add_user(3023, "Вера"))
    server.add_group(GROUP, "Друзья", members=[boris, vera], admins=[anna])
    async with running(server, db, seed=24) as app:
        await start_private(server, anna, boris, vera)
        gid, table = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None
        people = {i: server.user(s.seats[i].user_id) for i in range(3)}
        await play(server, app, gid, people, max_moves=10)
        vera_seat = s.seat_of(vera.id)
        server.block(vera)
        await server.wait_for(lambda: s.seats[vera_seat].auto)
        await server.wait_for(lambda: "Вера 🤖" in txt(table) or s.status != "playing")
        del people[vera_seat]
        user = await service(app).storage.get_user(vera.id)
        assert user is not None and user.blocked
        await play(server, app, gid, people, timeout=20)
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        assert not [r for r in server.errors if r.chat_id not in (vera.id,)]
    server.assert_clean()


async def test_leave_and_stop(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(3031, "Анна"), server.add_user(3032, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        gid, table = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(boris, GROUP, "/stop")
        refused = await server.wait_bot_message(GROUP, after=before)
        assert "создатель стола или админ" in txt(refused)
        await server.send_text(boris, GROUP, "/leave")
        await server.wait_for(lambda: s.seats[s.seat_of(boris.id)].auto)
        await server.wait_bot_message(GROUP, after=refused,
                                      predicate=lambda m: "место отдано компьютеру" in txt(m))
        await server.wait_for(lambda: "Борис 🤖" in txt(table) or s.shown_deal > 1)
        last = await server.wait_bot_message(GROUP, after=refused)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_bot_message(GROUP, after=last,
                                      predicate=lambda m: "Партия остановлена" in txt(m))
        assert service(app).session_of_chat(GROUP) is None
        result = await service(app).storage.get_result(gid)
        assert result is not None and result.stopped
        await idle(app)
        # the chat can start a new game at once
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/score")
        sheet = await server.wait_bot_message(GROUP, after=before)
        assert "остановлена" in txt(sheet)
    server.assert_clean()


async def test_a_person_who_does_not_move_gets_a_reminder_then_the_computer_moves(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(3041, "Анна"), server.add_user(3042, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, seed=3, turn_timeout=1.0) as app:
        await start_private(server, anna, boris)
        gid, table = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        # nobody presses anything: reminders come, then the computer moves for them
        await server.wait_for(
            lambda: any("Ваш ход за столом «Друзья»" in txt(m)
                        for p in (anna, boris) for m in server.chat(p).bot_messages()),
            5, what="a reminder")
        version = s.state.version
        await server.wait_for(lambda: s.state is not None and s.state.version > version + 1, 10)
        records = await service(app).storage.actions(gid)
        assert any('"by": "t"' in r for r in records)
        await server.wait_for(lambda: "время вышло" in txt(table)
                              or any("время вышло" in (h.text or "") for h in table.history), 5)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()
