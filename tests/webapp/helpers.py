"""The real application with its Mini App server, on the fake Bot API; signed init data."""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from bot.tg.io.app import ThousandApplication, build_application
from bot.webapp.auth import sign_init_data
from tests.bot.helpers import click_and_wait, service, settings_for, start_private
from tests.fakeapi import FakeTelegramServer, FakeUser, polling

WEBAPP_URL = "https://thousand.example/app/"


@contextlib.asynccontextmanager
async def webapp_running(server: FakeTelegramServer, db: Path, *, seed: int = 1,
                         **changes: Any) -> AsyncIterator[ThousandApplication]:
    values: dict[str, Any] = {"webapp_url": WEBAPP_URL, "webapp_port": 0}
    values.update(changes)
    app = build_application(settings_for(server, db, **values), rng=random.Random(seed),
                            observe=True)
    async with polling(app):
        yield app


def base_url(app: ThousandApplication) -> str:
    assert app.webapp is not None
    return f"http://127.0.0.1:{app.webapp.bound_port}"


def init_data(person: FakeUser, token: str, *, age: float = 5.0, **extra: str) -> str:
    """Init data as Telegram would sign it for ``person`` opening the page."""
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": json.dumps({"id": person.id, "first_name": person.first_name,
                            "language_code": "ru"}, ensure_ascii=False),
        "auth_date": str(int(time.time() - age)),
    }
    fields.update(extra)
    return sign_init_data(fields, token)


async def solo_game(server: FakeTelegramServer, app: ThousandApplication,
                    user: FakeUser) -> int:
    """A solo game of ``user`` against two computers, started with the setup's buttons."""
    await start_private(server, user)
    await server.send_text(user, user, "/newgame")
    setup = await server.wait_bot_message(user, predicate=lambda m: "Играть" in str(
        m.button_texts))
    assert await click_and_wait(server, user, setup, "Играть") is None
    gid: int = await server.wait_for(lambda: service(app).by_chat.get(user.id))
    await server.wait_for(lambda: service(app).sessions[gid].state is not None)
    return gid
