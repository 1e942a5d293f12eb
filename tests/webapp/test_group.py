"""A group table where two people play on pages and one with buttons: all three kept in
step, every payload each page received holding only cards its seat may know; and a
group game's rematch from the page after a restart."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import aiohttp

from bot.engine.game import forced_action
from bot.engine.state import GameState
from bot.engine.views import view
from bot.webapp.payload import action_json
from tests.bot.helpers import action_button, open_table, service, smart, start_private, txt
from tests.fakeapi import FakeTelegramServer
from tests.webapp.helpers import base_url, init_data, webapp_running
from tests.webapp.test_payload import cards_in, may_know


def moved(s: Any, st: GameState) -> Callable[[], bool]:
    return lambda: s.state is not st


def has_version(pages: list[PageClient], version: int) -> bool:
    return all(p.version >= version for p in pages)


def answered(page: PageClient, n: int) -> bool:
    return len(page.results) > n


class PageClient:
    """One open page: its socket and every message it received."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.views: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            data = msg.json()
            (self.views if data["type"] == "view" else self.results).append(data)

    @property
    def version(self) -> int:
        return self.views[-1]["view"]["version"] if self.views else -1


async def test_two_pages_and_buttons_at_one_group_table(server: FakeTelegramServer,
                                                        db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    vera = server.add_user(1003, "Вера")
    group = -100777
    server.add_group(group, "Клуб", members=[anna, boris, vera])
    async with webapp_running(server, db, seed=4) as app, aiohttp.ClientSession() as http:
        await start_private(server, anna, boris, vera)
        gid, table_msg = await open_table(server, app, group, anna, [boris, vera])
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        states: dict[int, GameState] = {}
        assert app.webapp is not None

        def keep(game: int | None, version: int) -> None:
            if game == gid and s.state is not None:
                states[version] = s.state

        app.webapp.port.on_change(keep)
        assert s.state is not None
        states[s.state.version] = s.state
        pages: dict[int, PageClient] = {}
        for person in (anna, boris):
            async with http.post(base_url(app) + "/api/session",
                                 json={"init": init_data(person, server.token)}) as r:
                token = (await r.json())["token"]
            ws = await http.ws_connect(base_url(app) + "/ws")
            await ws.send_json({"type": "hello", "token": token, "game": gid})
            pages[s.seat_of(person.id)] = PageClient(ws)
        button_seat = s.seat_of(vera.id)
        rng = random.Random(1)
        moves = {"page": 0, "button": 0}
        try:
            while True:
                st = s.state
                assert st is not None
                if st.history or s.status != "playing":
                    break
                seat = st.to_act
                if s.forced and forced_action(st) is not None:
                    await server.wait_for(moved(s, st))
                    continue
                action = smart(view(st, seat), rng)
                if seat == button_seat:
                    found = await server.wait_for(partial(
                        action_button, server, vera, gid, st.version, action))
                    assert found is not None
                    msg, button = found
                    assert button.callback_data is not None
                    answer = await server.press(vera, vera.chat, msg.message_id,
                                                button.callback_data)
                    assert answer is not None and answer.text is None
                    moves["button"] += 1
                else:
                    page = pages[seat]
                    await server.wait_for(partial(has_version, [page], st.version))
                    for _ in range(3):  # "too often — wait a second", as the page says
                        n = len(page.results)
                        await page.ws.send_json({"type": "act", "id": n,
                                                 "version": st.version,
                                                 "intent": action_json(action)})
                        await server.wait_for(partial(answered, page, n))
                        if page.results[-1].get("code") != "flood":
                            break
                        await asyncio.sleep(1.0)
                    assert page.results[-1]["ok"], page.results[-1]
                    moves["page"] += 1
                await server.wait_for(moved(s, st))
                new = s.state
                assert new is not None
                # both pages have the new version within a second (and Vera's hand message
                # offers her buttons at each version where it is her move: action_button)
                await server.wait_for(partial(has_version, list(pages.values()), new.version),
                                      1.0, what="both pages in step")
            assert moves["page"] >= 10 and moves["button"] >= 4
            # the group's table shows the deal's end, as with buttons only
            await server.wait_for(lambda: "Кон 1" in txt(table_msg)
                                  or any("Кон 1" in txt(m)
                                         for m in server.chat(group).bot_messages()))
            for seat, page in pages.items():
                for frame in page.views:
                    v = frame["view"]
                    assert v["seat"] == seat
                    state = states.get(v["version"])
                    if state is not None:
                        assert not cards_in(v) - may_know(state, seat)
                assert sum(1 for f in page.views if f["view"]["version"] in states) >= 10
        finally:
            for page in pages.values():
                await page.ws.close()
                page.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await page.task


async def test_a_rematch_from_the_page_after_a_restart(server: FakeTelegramServer,
                                                       db: Path) -> None:
    """A group game ended, then the bot restarted: the ended game is in no process's
    memory, and «Ещё партия» from the page reads its chat from storage — the next game
    starts in the group, with the same people."""
    from bot.webapp.auth import WebUser
    from tests.bot.helpers import idle, play

    anna = server.add_user(1021, "Анна")
    boris = server.add_user(1022, "Борис")
    group = -100781
    server.add_group(group, "Клуб", members=[anna, boris])
    async with webapp_running(server, db, seed=9) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        await play(server, app, gid, {s.seat_of(p.id): p for p in (anna, boris)}, seed=9,
                   timeout=20)
        await idle(app)
    async with webapp_running(server, db, seed=10) as app:  # the restart
        svc = service(app)
        assert app.webapp is not None and gid not in svc.sessions
        game = await svc.storage.get_game(gid)
        assert game is not None and game.status == "finished"
        assert await app.webapp.port.act(gid, WebUser(anna.id, "Анна"),
                                         {"kind": "rematch"}, 0) is None
        new = await server.wait_for(lambda: svc.session_of_chat(group), 10,
                                    what="the next game")
        assert new.game_id != gid and new.status == "playing"
        assert {x.user_id for x in new.seats if x.kind == "human"} == {anna.id, boris.id}
        await idle(app)
    server.assert_clean()
