"""How a seat gets to the page: the 🃏 button on its private hand message and the menu
button of private chats — only when WEBAPP_URL is set."""

from __future__ import annotations

from pathlib import Path

from tests.bot.helpers import click_and_wait, idle, service, start_private
from tests.fakeapi import FakeTelegramServer
from tests.webapp.helpers import WEBAPP_URL, solo_game, webapp_running


async def test_the_table_button_and_the_menu_button(server: FakeTelegramServer,
                                                    db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db) as app:
        gid = await solo_game(server, app, anna)
        await idle(app)
        hand = server.chat(anna).last_bot_message()
        assert hand is not None and "Ваши карты" in (hand.text or "")
        web = [b for b in hand.all_buttons if "web_app" in b.raw]
        assert [(b.text, b.raw["web_app"]["url"]) for b in web] == [
            ("🃏 Стол", f"{WEBAPP_URL}?game={gid}")]
        assert server.menu_buttons[None] == {
            "type": "web_app", "text": "🃏 1000", "web_app": {"url": WEBAPP_URL}}
        assert service(app).sessions[gid].state is not None
    server.assert_clean()


async def test_without_webapp_url_nothing_of_it_shows(server: FakeTelegramServer,
                                                      db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db, webapp_url="") as app:
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame")
        setup = await server.wait_bot_message(anna, predicate=lambda m: "Играть" in str(
            m.button_texts))
        assert await click_and_wait(server, anna, setup, "Играть") is None
        await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        await idle(app)
        assert app.webapp is None
        assert not any("web_app" in b.raw for m in server.chat(anna).bot_messages()
                       for b in m.all_buttons)
        assert server.menu_buttons == {}
    server.assert_clean()


def test_a_web_app_button_is_written_as_python_telegram_bot_writes_it() -> None:
    from bot.tg.io.outbox import keyboard_json, markup
    from bot.tg.view.common import Button

    kb = ((Button("a", "g1:0:a:ps"), Button("u", url="https://t.me/x")),
          (Button("🃏 Стол", web_app=f"{WEBAPP_URL}?game=5"),))
    m = markup(kb)
    assert m is not None and keyboard_json(kb) == m.to_dict()
    assert Button("x", web_app="https://a/") != Button("x", url="https://a/")


async def test_the_solo_setup_opens_the_page_which_waits_for_play(
        server: FakeTelegramServer, db: Path) -> None:
    import aiohttp

    from bot.tg.view.callbacks import decode
    from tests.webapp.helpers import base_url, init_data

    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame")
        setup = await server.wait_bot_message(anna, predicate=lambda m: "Играть" in str(
            m.button_texts))
        c = decode(next(b.callback_data for b in setup.all_buttons if b.callback_data))
        assert c is not None
        web = [b.raw["web_app"]["url"] for b in setup.all_buttons if "web_app" in b.raw]
        assert web == [f"{WEBAPP_URL}?game={c.game_id}"]
        async with http.post(base_url(app) + "/api/session",
                             json={"init": init_data(anna, server.token)}) as r:
            token = (await r.json())["token"]

        async def hello() -> dict[str, object]:
            ws = await http.ws_connect(base_url(app) + "/ws")
            await ws.send_json({"type": "hello", "token": token, "game": c.game_id})
            got: dict[str, object] = await ws.receive_json(timeout=5)
            await ws.close()
            return got

        first = await hello()
        assert first["type"] == "refused" and first["code"] == "not_started"
        assert "Играть" in str(first["text"])
        assert await click_and_wait(server, anna, setup, "Играть") is None
        await server.wait_for(lambda: service(app).sessions[c.game_id].state is not None)
        second = await hello()
        assert second["type"] == "view"


async def test_a_group_table_and_its_lobby_link_to_the_page(server: FakeTelegramServer,
                                                            db: Path) -> None:
    """A URL button (Telegram allows no ``web_app`` button in a group): the bot's Mini App
    named by WEBAPP_SHORT_NAME with the table's start parameter."""
    from bot.webapp.auth import TableLinks
    from tests.bot.helpers import open_table

    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    group = -100781
    server.add_group(group, "Клуб", members=[anna, boris])
    async with webapp_running(server, db, webapp_short_name="table") as app:
        await start_private(server, anna, boris)
        gid, lobby = await open_table(server, app, group, anna, [boris], computers=1,
                                      start=False)
        links = TableLinks.for_token(server.token, server.bot_user["username"], "table")
        want = ("🃏 Открыть стол", links.link(gid))
        assert want[1].startswith(f"https://t.me/{server.bot_user['username']}/table?startapp=g")
        assert [(b.text, b.url) for b in lobby.all_buttons if b.url] == [want]
        assert await click_and_wait(server, anna, lobby, "Начать") is None
        await server.wait_for(lambda: service(app).sessions[gid].state is not None)
        await idle(app)
        table = server.chat(group).last_bot_message()
        assert table is not None
        assert [(b.text, b.url) for b in table.all_buttons if b.url] == [want]
        assert not any("web_app" in b.raw for m in server.chat(group).bot_messages()
                       for b in m.all_buttons)
    server.assert_clean()


async def test_without_webapp_url_a_group_table_has_no_link(server: FakeTelegramServer,
                                                            db: Path) -> None:
    from tests.bot.helpers import open_table

    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    group = -100782
    server.add_group(group, "Клуб", members=[anna, boris])
    async with webapp_running(server, db, webapp_url="") as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        await server.wait_for(lambda: service(app).sessions[gid].state is not None)
        await idle(app)
        assert not any(b.url and "startapp" in b.url
                       for m in server.chat(group).bot_messages() for b in m.all_buttons)
    server.assert_clean()
