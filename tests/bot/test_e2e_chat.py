"""A group's limits and life: edits coalesced under 20 a minute, a group that becomes a
supergroup, the command menu and the help, in Russian and English."""

from __future__ import annotations

from pathlib import Path

from bot.engine.views import public_view
from bot.tg.view import render as R
from tests.bot.helpers import idle, open_table, play, running, service, session, start_private, txt
from tests.fakeapi import FakeTelegramServer

GROUP = -400500


async def test_group_edits_are_coalesced_and_never_over_20_a_minute(
        server: FakeTelegramServer, db: Path) -> None:
    server.group_rate_limit = 20  # the fake server answers 429 beyond Telegram's limit
    anna = server.add_user(6001, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db, seed=4, group_messages_per_minute=20) as app:
        await start_private(server, anna)
        gid, table = await open_table(server, app, GROUP, anna, [], computers=2, wait=False)
        await server.wait_for(lambda: service(app).sessions[gid].state is not None)
        s = service(app).sessions[gid]
        assert s.state is not None
        start_version = s.state.version
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=30)
        moves = s.state.version - start_version
        assert moves >= 30
        # edits under the budget go every few seconds (a deal takes a second here)
        await service(app).outbox.idle(60.0)
        group_requests = len(server.calls(chat=GROUP))
        assert group_requests < moves / 4, (group_requests, moves)
        assert server.max_in_window(GROUP) <= 20
        assert not server.rate_limited
        # coalescing loses nothing: the table shows the latest state
        st = s.state
        current = table if s.shown_deal == 1 else server.chat(GROUP).last_bot_message()
        assert current is not None
        want = R.render_table("ru", public_view(st), service(app).table.info(s, s.shown_deal))
        assert current.source_text == want.text
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
    server.assert_clean()


async def test_a_group_that_becomes_a_supergroup_keeps_its_game(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(6011, "Анна"), server.add_user(6012, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    new_id = -1001234567890
    async with running(server, db, seed=8) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None
        people = {s.seat_of(anna.id): anna, s.seat_of(boris.id): boris}
        await play(server, app, gid, people, max_moves=6)
        await idle(app)
        server.migrate_group(GROUP, new_id)
        await server.wait_for(lambda: s.chat_id == new_id, 5, what="the game moved")
        moved = await server.wait_bot_message(new_id, predicate=lambda m: "Кон" in txt(m))
        assert moved.buttons  # the table again, in the supergroup
        await play(server, app, gid, people, max_moves=6)
        await idle(app)
        chat = await service(app).storage.get_chat(new_id)
        assert chat is not None and chat.kind == "supergroup"
        assert await service(app).storage.get_chat(GROUP) is None
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.chat_id == new_id
        before = server.chat(new_id).last_bot_message()
        await server.send_text(anna, new_id, "/score")
        sheet = await server.wait_bot_message(new_id, after=before)
        assert "<pre>" in (sheet.source_text or "") or "Сыгранных конов пока нет" in txt(sheet)
        await server.send_text(anna, new_id, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(new_id) is None)
        await idle(app)
    # nothing was sent to the old group after the migration but what failed there
    server.assert_clean()


async def test_command_menu_and_help_in_two_languages(server: FakeTelegramServer,
                                                      db: Path) -> None:
    anna = server.add_user(6021, "Анна")
    john = server.add_user(6022, "John", language_code="en-GB")
    server.add_group(GROUP, "Друзья", members=[john], admins=[anna])
    async with running(server, db) as app:
        for lang in ("ru", "uk", "en", ""):
            names = [c["command"] for c in server.commands(language_code=lang)]
            assert names == ["newgame", "score", "export", "rules", "table", "lang", "help",
                             "stats", "top", "leave", "stop", "pace"], lang
        assert server.commands(language_code="en")[0]["description"] == "New game"
        assert server.commands(language_code="ru")[0]["description"] == "Новая партия"
        assert server.commands(language_code="uk")[0]["description"] == "Нова партія"
        await start_private(server, anna, john)
        assert "Привет, Анна" in txt(server.chat(anna).last_bot_message())
        hello = server.chat(john).last_bot_message()
        assert hello is not None and "Hi, John" in txt(hello)
        await server.send_text(john, john, "/help")
        help_en = await server.wait_bot_message(john, after=hello)
        assert "/newgame" in txt(help_en) and "score sheet" in txt(help_en)
        await server.send_text(anna, GROUP, "/help")
        help_ru = await server.wait_bot_message(GROUP)
        assert "запись партии" in txt(help_ru)
        await server.send_text(john, GROUP, "/score")
        none = await server.wait_bot_message(GROUP, after=help_ru)
        assert "Здесь ещё не играли" in txt(none)
        await server.send_text(john, john, "просто текст")
        await server.send_text(anna, GROUP, "/leave")
        not_seated = await server.wait_bot_message(GROUP, after=none)
        assert "Вы не за столом" in txt(not_seated)
        await idle(app)
    server.assert_clean()
