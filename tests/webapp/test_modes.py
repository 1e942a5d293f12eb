"""The page and its API are served by ``python -m bot`` itself in webhook mode and in
polling mode (real child processes, configured through the environment only)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from tests.bot.procs import BotProcess, bots, free_port
from tests.fakeapi import FakeTelegramServer
from tests.webapp.helpers import WEBAPP_URL, init_data


@pytest.mark.parametrize("mode", ["webhook", "polling"])
async def test_python_m_bot_serves_the_page(server: FakeTelegramServer, tmp_path: Path,
                                            mode: str) -> None:
    anna = server.add_user(1001, "Анна")
    port = free_port()
    settings = {"database_path": tmp_path / "thousand.sqlite3", "webapp_url": WEBAPP_URL,
                "webapp_port": port}
    bot = (BotProcess.webhook(server, tmp_path, mode, settings) if mode == "webhook"
           else BotProcess.polling(server, tmp_path, mode, settings))
    async with bots(bot), aiohttp.ClientSession() as http:
        await bot.start()
        base = f"http://127.0.0.1:{port}"
        async with http.get(base + "/") as r:
            assert r.status == 200 and "telegram-web-app.js" in await r.text()
        async with http.post(base + "/api/session",
                             json={"init": init_data(anna, server.token)}) as r:
            body = await r.json()
            assert r.status == 200 and body["ok"] and body["texts"]["pass"] == "Пас"
        async with http.post(base + "/api/session",
                             json={"init": init_data(anna, "1:" + "x" * 30)}) as r:
            assert r.status == 401
        assert server.menu_buttons[None]["web_app"] == {"url": WEBAPP_URL}
