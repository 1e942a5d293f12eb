"""A group's table opened from its link (``startapp``) in a real headless Chromium: two
seated people get their seats, a member of the group who is not seated watches the public
view over a whole game (no hidden card in any payload), a spectator's action is refused, a
non-member is refused, a latecomer sits down from the page, and a socket the server drops
is reconnected (the page says so) with the current version."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from bot.engine.game import forced_action
from bot.engine.state import GameState, Kind
from bot.engine.views import view
from bot.webapp.auth import WebUser
from bot.webapp.payload import action_json
from tests.bot.helpers import open_table, service, smart, start_private, txt
from tests.fakeapi import FakeTelegramServer, FakeUser
from tests.webapp.browser import browser, open_page
from tests.webapp.helpers import base_url, init_data, webapp_running
from tests.webapp.test_payload import cards_in, finished_trick
from tests.webapp.test_server import refusals

__all__ = ["browser"]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


def link_of(server: FakeTelegramServer, group: int) -> str:
    """The table's link on the group's newest message that has one (a URL button)."""
    for msg in reversed(server.chat(group).bot_messages()):
        for b in msg.all_buttons:
            if b.url and "startapp=" in b.url:
                return b.url
    raise AssertionError("no message of the group links to its table")


def start_param(url: str) -> str:
    return parse_qs(urlsplit(url).query)["startapp"][0]


def public_cards(s: GameState) -> set[int]:
    """What everybody at the table may see, from the full state (not from views.py): the
    cards played (and the last trick of the deal just finished), the talon once shown,
    passed cards only when passing is open."""
    d = s.deal
    if d is None:
        return finished_trick(s)
    known = finished_trick(s) | {c for _, c in d.trick} | {c for t in d.tricks for _, c in t.cards}
    if d.talon_shown:
        known |= set(d.talon_taken)
    if d.unblinded or (not s.rules.pass_face_down and d.kind == Kind.NORMAL):
        known |= {c for _, c in d.gave}
    return known


async def opened(browser: Any, app: Any, person: FakeUser, token: str, param: str,
                 frames: list[dict[str, Any]] | None = None) -> Any:
    """``person`` opens the link: Telegram opens the page with the start parameter in the
    signed init data (the page's URL carries nothing).  ``frames``: every message its
    sockets receive."""
    page = await open_page(browser, "", init_data(person, token, start_param=param))
    if frames is not None:
        page.on("websocket", lambda ws: ws.on("framereceived",
                                              lambda f: frames.append(json.loads(f))))
    await page.goto(f"{base_url(app)}/")
    return page


async def test_a_group_table_from_its_link_seats_and_a_spectator(
        server: FakeTelegramServer, db: Path, browser: Any) -> None:
    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    gleb = server.add_user(1004, "Глеб")  # a member of the group, not seated: watches
    eve = server.add_user(1005, "Ева")  # not a member of the group
    group = -100779
    server.add_group(group, "Клуб", members=[anna, boris, gleb])
    async with webapp_running(server, db, seed=6) as app, \
            aiohttp.ClientSession() as http:
        await start_private(server, anna, boris, gleb, eve)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        assert app.webapp is not None
        link = link_of(server, group)
        assert link.startswith(f"https://t.me/{server.bot_user['username']}?startapp=")
        param = start_param(link)
        assert len(param) <= 512 and str(gid) in param
        states: dict[int, GameState] = {}

        def keep(game: int | None, version: int) -> None:
            if game == gid and s.state is not None:
                states[version] = s.state

        app.webapp.port.on_change(keep)
        assert s.state is not None
        states[s.state.version] = s.state

        # the two seated people: their own seats, their own hands
        seated = {}
        for person in (anna, boris):
            page = await opened(browser, app, person, server.token, param)
            await page.wait_for_selector("#hand .card:not(.back)", timeout=10000)
            seated[person.id] = page
        # Gleb watches: the public view, his page counts one watcher at the table
        frames: list[dict[str, Any]] = []
        watch = await opened(browser, app, gleb, server.token, param, frames)
        await watch.wait_for_selector("#hand .card.back", timeout=10000)
        assert "Вы зритель" in await watch.inner_text("#turn")
        await watch.wait_for_function(
            "document.getElementById('watchers').textContent.indexOf('1') >= 0")
        for page in seated.values():  # the seated see that one person watches
            await page.wait_for_function(
                "document.getElementById('watchers').textContent.indexOf('1') >= 0")
        # nothing to do but take the computer's seat (the table's 🪑, asking the keepers)
        assert await watch.locator("#panel button").all_inner_texts() == ["🪑 Сесть за стол"]
        # Eve is not a member of the group: refused, nothing shown
        stranger = await opened(browser, app, eve, server.token, param)
        await stranger.wait_for_selector("#message:not([hidden])", timeout=10000)
        # ("Подключаемся…" first, while the socket is asked: the refusal replaces it)
        await stranger.wait_for_function(
            "document.getElementById('message').textContent.indexOf('Подключаемся') < 0",
            timeout=10000)
        assert "только её участники" in await stranger.inner_text("#message")
        assert await stranger.locator("#hand .card").count() == 0
        # a forged link (another game's MAC) opens nothing
        forged = param.replace(f"g{gid}_", f"g{gid + 1}_")
        async with http.post(base_url(app) + "/api/session",
                             json={"init": init_data(gleb, server.token,
                                                     start_param=forged)}) as r:
            assert r.status == 403 and (await r.json())["code"] == "bad_link"

        # a spectator's action, as its page's socket would send it: refused, nothing changed
        async with http.post(base_url(app) + "/api/session",
                             json={"init": init_data(gleb, server.token,
                                                     start_param=param)}) as r:
            body = await r.json()
            assert body["game"] == gid
        ws = await http.ws_connect(base_url(app) + "/ws")
        await ws.send_json({"type": "hello", "token": body["token"], "game": gid})
        first = await ws.receive_json(timeout=5)
        assert first["type"] == "view" and first["view"]["spectator"]
        assert first["view"]["hand"] == [] and first["view"]["seat"] == -1
        st = s.state
        assert st is not None
        before = refusals(app).get("spectator", 0)
        a = action_json(view(st, st.to_act).legal[0]) if st.to_act >= 0 else {"kind": "pass"}
        await ws.send_json({"type": "act", "id": 1, "version": st.version, "intent": a})
        while True:
            got = await ws.receive_json(timeout=5)
            if got["type"] == "result":
                break
        assert got == {"type": "result", "ok": False, "code": "spectator",
                       "text": "Вы смотрите партию: ходят только те, кто за столом.", "id": 1}
        assert s.state is st and refusals(app)["spectator"] == before + 1
        async with http.post(base_url(app) + "/api/act",
                             headers={"Authorization": "Bearer " + body["token"]},
                             json={"game": gid, "version": st.version, "intent": a}) as r:
            assert r.status == 409 and (await r.json())["code"] == "not_seated"
        assert s.state is st
        await ws.close()

        # a whole game: Anna and Boris move (the same path as their pages), the computer
        # plays; the spectator's page follows every move
        rng = random.Random(2)
        shot = False
        killed = False
        for _ in range(5000):
            st = s.state
            assert st is not None
            if s.status != "playing" or st.winner >= 0:
                break
            seat = st.to_act
            if seat < 0 or s.seats[seat].computer or (s.forced and forced_action(st)):
                await server.wait_for(lambda st=st: s.state is not st  # type: ignore[misc]
                                      or s.status != "playing", 10.0)
                continue
            if not shot and st.phase == "play" and st.deal is not None and st.deal.trick \
                    and len(st.deal.tricks) >= 2:
                await watch.wait_for_function(
                    f"document.body.dataset.version == '{st.version}'", timeout=5000)
                await watch.wait_for_timeout(200)
                IMG.mkdir(parents=True, exist_ok=True)
                await watch.screenshot(path=str(IMG / "webapp-spectator.png"))
                shot = True
            kill = shot and not killed and len(st.history) >= 1
            if kill:
                # the server drops every socket of the table: the pages say so while they
                # reconnect, and then have the version of the move made meanwhile
                for p in list(app.webapp.pages.get(gid, ())):
                    await app.webapp._drop(p, "test")
                await watch.wait_for_selector("#banner:not([hidden])", timeout=5000)
                assert "подключаемся снова" in await watch.inner_text("#banner")
                await watch.screenshot(path=str(IMG / "webapp-reconnecting.png"))
                killed = True
            who = WebUser(s.seats[seat].user_id, "")
            action = smart(view(st, seat), rng)
            got_act = await app.webapp.port.act(gid, who, action_json(action), st.version)
            assert got_act is None or isinstance(got_act, str), got_act
            await server.wait_for(lambda st=st: s.state is not st, 10.0)  # type: ignore[misc]
            if kill:
                now = s.state.version if s.state is not None else -1
                for page in (watch, *seated.values()):
                    await page.wait_for_function(
                        f"Number(document.body.dataset.version) >= {now}", timeout=15000)
                    assert await page.locator("#banner").is_hidden()
                # the deal's summary slid up on every page; 🔍 (every hand) for the seated only
                for page in (watch, *seated.values()):
                    await page.wait_for_selector("#summary:not([hidden])", timeout=5000)
                assert await watch.locator("#summary-analyse").is_hidden()
                for page in seated.values():
                    assert await page.locator("#summary-analyse").is_visible()
        st = s.state
        assert st is not None and st.winner >= 0, "the game did not end"
        assert shot and killed
        await watch.wait_for_function(
            f"document.body.dataset.version == '{st.version}'", timeout=10000)
        for page in seated.values():
            await page.wait_for_function(
                f"document.body.dataset.version == '{st.version}'", timeout=10000)
        # every view the spectator received: the public view, no card that is hidden
        views = [f["view"] for f in frames if f.get("type") == "view"]
        checked = 0
        for v in views:
            assert v["spectator"] and v["seat"] == -1 and v["hand"] == []
            assert v["legal"] == [] and v["offers"] == [] and v["gave"] == []
            state = states.get(v["version"])
            if state is not None:
                hidden = cards_in(v) - public_cards(state)
                assert not hidden, (v["version"], hidden)
                checked += 1
        assert checked >= 100 and len(st.history) >= 3
        assert len({f.get("type") for f in frames}) >= 2  # views and the watchers' count


async def test_a_latecomer_sits_down_from_the_page(server: FakeTelegramServer, db: Path,
                                                   browser: Any) -> None:
    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    dima = server.add_user(1006, "Дима")
    group = -100780
    server.add_group(group, "Клуб", members=[anna, boris, dima])
    async with webapp_running(server, db, seed=7) as app:
        await start_private(server, anna, boris, dima)
        gid, lobby = await open_table(server, app, group, anna, [boris], start=False)
        s = service(app).sessions[gid]
        param = start_param(link_of(server, group))
        page = await opened(browser, app, dima, server.token, param)
        await page.wait_for_selector("#message button.sit", timeout=10000)
        assert "свободное место" in await page.inner_text("#message")
        await page.click("#message button.sit")  # the lobby's "join", through the bot
        await server.wait_for(lambda: s.seat_of(dima.id) >= 0, 5.0, what="Dima seated")
        await server.wait_for(lambda: "Дима" in txt(lobby), 5.0)
        await server.click(anna, lobby, predicate=lambda b: ":st:" in (b.callback_data or ""))
        await server.wait_for(lambda: s.state is not None)
        # the page was waiting for the start: now Dima's own hand
        await page.wait_for_selector("#hand .card:not(.back)", timeout=15000)
        assert await page.locator("#turn").inner_text() != ""
        assert "Вы зритель" not in await page.inner_text("#turn")
