"""The Mini App's server on the real application: sessions, views, actions through the
path of a button press, live pushes, and every bad input refused, changing nothing and
counted in /metrics."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import os
import socket
from pathlib import Path
from typing import Any

import aiohttp
from prometheus_client import generate_latest

from bot.engine.views import view
from bot.i18n import t
from bot.tg.io.app import ThousandApplication
from bot.webapp.adapter import ServicePort
from bot.webapp.auth import SessionKey
from bot.webapp.payload import action_json
from bot.webapp.port import Changed, Refusal, SeatPlace, SeatView
from bot.webapp.server import QUEUE, SLOW, Page, WebAppServer
from tests.bot.helpers import service, txt
from tests.fakeapi import FakeTelegramServer, FakeUser
from tests.webapp.helpers import base_url, init_data, solo_game, webapp_running

OTHER_TOKEN = "654321:" + "B" * 35


def refusals(app: ThousandApplication) -> dict[str, float]:
    assert app.ops is not None
    out: dict[str, float] = {}
    for line in generate_latest(app.ops.registry).decode().splitlines():
        if line.startswith("thousand_webapp_refusals_total{"):
            code = line.split('code="', 1)[1].split('"', 1)[0]
            out[code] = float(line.rsplit(" ", 1)[1])
    return out


async def session_token(http: aiohttp.ClientSession, app: ThousandApplication,
                        server: FakeTelegramServer, user: FakeUser) -> dict[str, Any]:
    async with http.post(base_url(app) + "/api/session",
                         json={"init": init_data(user, server.token)}) as r:
        assert r.status == 200
        body: dict[str, Any] = await r.json()
        return body


async def test_the_games_brought_up_to_date_for_pages_are_counted_by_how(
        server: FakeTelegramServer, db: Path) -> None:
    """``thousand_webapp_game_reads_total{how}``: the port's count of games another process
    holds brought up to date for their pages, by a read or by the moves the feed carried."""
    async with webapp_running(server, db) as app:
        assert app.webapp is not None and app.ops is not None
        port = app.webapp.port
        assert isinstance(port, ServicePort)
        port.reads["feed"] += 3
        port.reads["storage"] += 1
        text = generate_latest(app.ops.registry).decode()
        assert 'thousand_webapp_game_reads_total{how="feed"} 3.0' in text
        assert 'thousand_webapp_game_reads_total{how="storage"} 1.0' in text


async def test_no_webapp_url_no_server(server: FakeTelegramServer, db: Path) -> None:
    async with webapp_running(server, db, webapp_url="") as app:
        assert app.webapp is None


async def test_the_page_and_bad_init_data(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        url = base_url(app)
        async with http.get(url + "/") as r:
            assert r.status == 200 and "telegram-web-app.js" in await r.text()
        async with http.get(url + "/static/app.js") as r:
            assert r.status == 200
        bad = {
            "forged": init_data(anna, server.token).replace("1001", "1002"),
            "expired": init_data(anna, server.token, age=7200),
            "no_user": init_data(anna, server.token, user=""),
        }
        for code, raw in bad.items():
            async with http.post(url + "/api/session", json={"init": raw}) as r:
                body = await r.json()
                assert (r.status, body["ok"], body["code"]) == (401, False, code), code
                assert body["text"]  # a reason in words
        async with http.post(url + "/api/session",
                             json={"init": init_data(anna, OTHER_TOKEN)}) as r:
            assert r.status == 401 and (await r.json())["code"] == "forged"
        async with http.post(url + "/api/session", data=b"{not json") as r:
            assert r.status == 400 and (await r.json())["code"] == "malformed"
        async with http.post(url + "/api/session", data=b"x" * 100_000) as r:
            assert r.status == 413 and (await r.json())["code"] == "too_large"
        body = await session_token(http, app, server, anna)
        assert body["lang"] == "ru" and body["texts"]["pass"] == "Пас" and body["games"] == []
        # a token of our own: for another bot's key, or garbled, it is refused
        for token in ("", "1001.ru.99999999999.abc",
                      SessionKey.for_token(OTHER_TOKEN).make(1001, "ru", 2e9)):
            async with http.get(url + "/api/view?game=1",
                                headers={"Authorization": f"Bearer {token}"}) as r:
                assert r.status == 401 and (await r.json())["code"] == "session"
        counted = refusals(app)
        assert counted["forged"] == 2 and counted["expired"] == 1 and counted["no_user"] == 1
        assert counted["malformed"] == 1 and counted["too_large"] == 1
        assert counted["session"] == 3


async def _hello(ws: aiohttp.ClientWebSocketResponse, token: str, game: int) -> dict[str, Any]:
    await ws.send_json({"type": "hello", "token": token, "game": game})
    msg: dict[str, Any] = await ws.receive_json(timeout=5)
    return msg


async def _result(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = await ws.receive_json(timeout=5)
        if msg["type"] == "result":
            return msg


async def test_a_page_plays_through_the_press_path(server: FakeTelegramServer,
                                                   db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        gid = await solo_game(server, app, anna)
        s = service(app).sessions[gid]
        token = (await session_token(http, app, server, anna))["token"]
        body = await session_token(http, app, server, anna)
        assert body["games"] == [gid]
        async with http.get(base_url(app) + "/api/games",
                            headers={"Authorization": f"Bearer {token}"}) as listed:
            assert (await listed.json())["games"] == [gid]
        async with http.get(base_url(app) + "/api/games") as listed:
            assert listed.status == 401
        # (the computers are instant here: it is soon Anna's move)
        await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
        ws = await http.ws_connect(base_url(app) + "/ws")
        first = await _hello(ws, token, gid)
        assert first["type"] == "view"
        v = first["view"]
        st = s.state
        assert st is not None and v["version"] == st.version and v["seat"] == 0
        assert len(v["hand"]) == len(view(st, 0).hand) and v["to_act"] == 0
        hand_msg = server.chat(anna).last_bot_message()
        assert hand_msg is not None
        before_text = txt(hand_msg)
        version = st.version
        # a stale version, a foreign game, garbage: refused, nothing changed
        await ws.send_json({"type": "act", "id": 1, "version": version - 1,
                            "intent": action_json(view(st, 0).legal[0])})
        r = await _result(ws)
        assert (r["ok"], r["code"], r["id"]) == (False, "stale", 1)
        assert r["text"] == t("ru", "popup.stale")  # the reason, as a stale button says it
        await ws.send_json({"type": "act", "id": 2, "version": version,
                            "intent": {"kind": "play", "card": "XX"}})
        assert (await _result(ws))["code"] == "malformed"
        await ws.send_str("{garbage")
        assert (await _result(ws))["code"] == "malformed"
        assert s.state is st
        # the legal move through the page: stored, shown in the private hand message
        count = hand_msg.edit_count
        move = view(st, 0).legal[0]
        await ws.send_json({"type": "act", "id": 3, "version": version,
                            "intent": action_json(move)})
        r = await _result(ws)
        assert r == {"type": "result", "ok": True, "id": 3}
        assert s.state is not None and s.state.version > version
        await server.wait_for(lambda: hand_msg.edit_count > count
                              or server.chat(anna).last_bot_message() is not hand_msg)
        await server.wait_for(lambda: txt(server.chat(anna).last_bot_message()) != before_text)
        # a pushed view with the new version arrives
        while True:
            msg = await ws.receive_json(timeout=5)
            if msg["type"] == "view" and msg["view"]["version"] > version:
                break
        # the same action again (a replay) is refused: its version is gone
        await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
        await asyncio.sleep(0.05)
        now = s.state
        await ws.send_json({"type": "act", "id": 4, "version": version,
                            "intent": action_json(move)})
        assert (await _result(ws))["code"] == "stale"
        assert s.state is now
        await ws.close()
        # Boris has no seat at Anna's table: his page is refused, his action too
        btoken = (await session_token(http, app, server, boris))["token"]
        ws2 = await http.ws_connect(base_url(app) + "/ws")
        got = await _hello(ws2, btoken, gid)
        assert got["type"] == "refused" and got["code"] == "not_seated"
        await ws2.close()
        st = s.state
        assert st is not None
        async with http.post(base_url(app) + "/api/act",
                             headers={"Authorization": f"Bearer {btoken}"},
                             json={"game": gid, "version": st.version,
                                   "intent": {"kind": "pass"}}) as resp:
            body = await resp.json()
            assert resp.status == 409 and body["code"] == "not_seated"
        assert s.state is st
        counted = refusals(app)
        assert counted["stale"] == 2 and counted["malformed"] == 2
        assert counted["not_seated"] == 2


async def test_a_flood_and_an_oversized_message(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        gid = await solo_game(server, app, anna)
        token = (await session_token(http, app, server, anna))["token"]
        ws = await http.ws_connect(base_url(app) + "/ws")
        assert (await _hello(ws, token, gid))["type"] == "view"
        for i in range(40):  # a stale action, forty times at once
            await ws.send_json({"type": "act", "id": i, "version": 0,
                                "intent": {"kind": "pass"}})
        codes = [(await _result(ws))["code"] for _ in range(40)]
        assert codes.count("flood") >= 25 and codes[:5] == ["stale"] * 5
        assert refusals(app)["flood"] == codes.count("flood")
        await ws.send_str("x" * 10_000)  # larger than a page may send: the socket closes
        msg = await ws.receive(timeout=5)
        while msg.type == aiohttp.WSMsgType.TEXT:
            msg = await ws.receive(timeout=5)
        assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                            aiohttp.WSMsgType.CLOSING)
        await ws.close()


async def test_a_button_press_reaches_an_open_page(server: FakeTelegramServer,
                                                   db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        gid = await solo_game(server, app, anna)
        s = service(app).sessions[gid]
        token = (await session_token(http, app, server, anna))["token"]
        ws = await http.ws_connect(base_url(app) + "/ws")
        assert (await _hello(ws, token, gid))["type"] == "view"
        await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
        st = s.state
        assert st is not None
        prefix = f"g{gid}:{st.version}:a:"

        def shown() -> tuple[Any, Any] | None:  # the hand and a move of this turn, once shown
            hand = server.chat(anna).last_bot_message()
            for b in hand.all_buttons if hand is not None else []:
                if (b.callback_data or "").startswith(prefix):
                    return hand, b
            return None

        hand, button = await server.wait_for(shown)  # (the state is stored before it shows)
        loop = asyncio.get_running_loop()
        pressed = loop.time()
        answer = await server.click(anna, hand, data=button.callback_data)
        assert answer is not None and answer.text is None
        while True:
            msg = await ws.receive_json(timeout=1)
            if msg["type"] == "view" and msg["view"]["version"] > st.version:
                break
        assert loop.time() - pressed < 1.0
        await ws.close()


class _DeadSocket:
    closed = False

    async def close(self) -> None:
        self.closed = True


async def test_a_page_that_never_reads_is_dropped() -> None:
    class NoPort:
        def on_change(self, listener: object) -> None:
            pass

    srv = WebAppServer(NoPort(), "1:" + "A" * 30, host="127.0.0.1",  # type: ignore[arg-type]
                       listen_port=0)
    from bot.webapp.auth import WebUser

    page = Page(WebUser(1, ""), "ru", 5, _DeadSocket())  # type: ignore[arg-type]
    srv.pages[5] = {page}
    for i in range(QUEUE):
        assert srv._queue(page, json.dumps({"n": i}))
    assert not srv._queue(page, "one too many")
    await asyncio.sleep(0.01)
    assert page.closed and 5 not in srv.pages and srv.metrics.dropped == 1


async def test_the_port_s_changes_reach_the_page_once_in_order_and_a_resync() -> None:
    """What the port says changed (the storage's feed: any process's moves) reaches the
    page once; a view older than one sent is never sent after it; ``None`` (changes may
    have been missed) has every page read its view again.  Nothing is looked at unasked."""
    from dataclasses import replace

    from bot.engine.game import new_game
    from bot.engine.rules import Rules
    from bot.webapp.auth import WebUser

    state = {"version": 3}
    base = view(new_game(Rules(), 1), 0)
    heard: list[Changed] = []
    looks: list[int] = []

    class Elsewhere:
        def on_change(self, listener: Changed) -> None:
            heard.append(listener)

        def lang_for(self, user_id: int, code: str | None) -> str:
            return "ru"

        def games_of(self, user_id: int) -> list[int]:
            return [9]

        async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
            looks.append(state["version"])
            place = SeatPlace(9, ("А", "Б", "В"), (False, True, True), True, True, None)
            return SeatView(replace(base, version=state["version"]), place, "ru")

        async def watch_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
            return Refusal("not_member", "—")

        async def act(self, game_id: int, user: WebUser, intent: dict[str, object],
                      version: int) -> Refusal | str | None:
            return None

    token = "1:" + "A" * 30
    srv = WebAppServer(Elsewhere(), token, host="127.0.0.1", listen_port=0)
    await srv.start()
    try:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"http://127.0.0.1:{srv.bound_port}/ws")
            got = await _hello(ws, SessionKey.for_token(token).make(5, "ru", 2e9), 9)
            assert got["view"]["version"] == 3
            state["version"] = 4  # stored elsewhere, not told: nothing is looked at
            await asyncio.sleep(0.3)
            assert looks == [3, 3]  # (the hello's check and its first view)
            [listener] = heard
            listener(9, 4)
            msg = await ws.receive_json(timeout=2)
            assert msg["type"] == "view" and msg["view"]["version"] == 4
            listener(9, 4)  # told twice (the feed and this process's hook): sent once
            listener(8, 7)  # a game with no page here: not looked at
            state["version"] = 3  # an older view read late: never sent after a newer one
            listener(9, 5)
            await asyncio.sleep(0.2)
            assert looks == [3, 3, 4, 3]  # (looked at once: 4 was sent, nothing for 8)
            state["version"] = 6
            listener(None, 0)  # the feed reconnected: every page reads its view again
            msg = await ws.receive_json(timeout=2)
            assert msg["type"] == "view" and msg["view"]["version"] == 6
            await asyncio.sleep(0.2)
            assert looks == [3, 3, 4, 3, 6]
            await ws.close()
    finally:
        await srv.stop()


async def test_membership_is_asked_of_telegram_and_trusted_a_minute(
        server: FakeTelegramServer, db: Path) -> None:
    """A member who leaves the group may still watch for at most a minute (the cache);
    then getChatMember says "left" and the page is refused."""
    from bot.webapp.adapter import MEMBER_TTL, ServicePort
    from bot.webapp.port import Refusal, SeatView
    from tests.bot.helpers import open_table, start_private

    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    gleb = server.add_user(1004, "Глеб")
    group = -100783
    chat = server.add_group(group, "Клуб", members=[anna, boris, gleb])
    async with webapp_running(server, db) as app:
        await start_private(server, anna, boris, gleb)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        assert app.webapp is not None
        port = app.webapp.port
        assert isinstance(port, ServicePort)
        now = [1000.0]
        port.clock = lambda: now[0]

        def asked() -> int:
            return sum(1 for r in server.calls("getChatMember")
                       if r.params.get("user_id") == gleb.id)

        before = asked()
        got = await port.watch_view(gid, gleb.id)
        assert isinstance(got, SeatView) and got.view.seat == -1 and got.view.hand == ()
        assert await port.watch_view(gid, gleb.id) == got  # (asked once: cached)
        assert asked() == before + 1
        chat.member_ids.remove(gleb.id)  # Gleb leaves the group
        now[0] += MEMBER_TTL - 1
        assert isinstance(await port.watch_view(gid, gleb.id), SeatView)
        assert asked() == before + 1
        now[0] += 2
        refused = await port.watch_view(gid, gleb.id)
        assert refused == Refusal("not_member", "Стол этой группы видят только её участники.")
        # a seated person gets the seat, never the public view
        seat = await port.seat_view(gid, anna.id)
        assert isinstance(seat, SeatView) and seat.view.seat == s.seat_of(anna.id)


async def test_a_spectator_takes_a_computers_seat_from_the_page(
        server: FakeTelegramServer, db: Path) -> None:
    """The table's 🪑 from a spectator's socket: a keeper (an admin of the group) sits down
    at once and the page turns into the seat's; anybody else asks the keepers (the request
    line in the group) and stays a spectator."""
    from tests.bot.helpers import open_table, start_private

    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    gleb = server.add_user(1004, "Глеб")
    olga = server.add_user(1007, "Ольга")
    group = -100784
    server.add_group(group, "Клуб", members=[anna, boris, gleb], admins=[olga])
    async with webapp_running(server, db) as app, aiohttp.ClientSession() as http:
        await start_private(server, anna, boris, gleb, olga)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        computer = next(i for i, x in enumerate(s.seats) if x.computer)
        assert app.webapp is not None

        async def watching(person: FakeUser) -> tuple[Any, dict[str, Any]]:
            token = (await session_token(http, app, server, person))["token"]
            ws = await http.ws_connect(base_url(app) + "/ws")
            await ws.send_json({"type": "hello", "token": token, "game": gid})
            first = await ws.receive_json(timeout=5)
            assert first["type"] == "view" and first["view"]["spectator"], first
            assert first["view"]["can_sit"]
            return ws, first

        seen: list[dict[str, Any]] = []

        async def result(ws: Any) -> dict[str, Any]:
            while True:
                msg = await ws.receive_json(timeout=5)
                seen.append(msg)
                if msg["type"] == "result":
                    got: dict[str, Any] = msg
                    return got

        # Gleb (no keeper): the keepers are asked; he still watches
        ws, first = await watching(gleb)
        await ws.send_json({"type": "act", "id": 1, "version": first["view"]["version"],
                            "intent": {"kind": "sit"}})
        got = await result(ws)
        assert got["ok"] and got["text"] == t("ru", "keepers.asked")
        assert s.seat_of(gleb.id) < 0 and s.seats[computer].computer
        await server.wait_for(lambda: any("Глеб" in txt(m) and m.all_buttons
                                          for m in server.chat(group).bot_messages()))
        await ws.close()
        # Anna's page (her seat) is open while Olga sits down: it gets the new names with no
        # move made (a change of the table that leaves the engine's version: SeatView.rev)
        anna_token = (await session_token(http, app, server, anna))["token"]
        anna_ws = await http.ws_connect(base_url(app) + "/ws")
        await anna_ws.send_json({"type": "hello", "token": anna_token, "game": gid})
        anna_first = await anna_ws.receive_json(timeout=5)
        assert anna_first["type"] == "view"
        assert anna_first["view"]["seats"][computer]["computer"]
        # Olga (an admin of the group: a keeper) sits down at once: her page shows her seat
        ws, first = await watching(olga)
        await ws.send_json({"type": "act", "id": 1, "version": first["view"]["version"],
                            "intent": {"kind": "sit"}})
        got = await result(ws)
        assert got == {"type": "result", "ok": True, "id": 1}
        assert s.seat_of(olga.id) == computer
        # (the whole view again, now of her seat: sent with the answer)
        views = [m["view"] for m in seen if m["type"] == "view" and not m["view"]["spectator"]]
        assert views and views[-1]["seat"] == computer and len(views[-1]["hand"]) > 0
        await ws.close()
        while True:  # (a view of the same game version, the seat now Olga's)
            msg = await anna_ws.receive_json(timeout=5)
            if msg["type"] == "view":
                seat = msg["view"]["seats"][computer]
                if seat["name"] == "Ольга":
                    assert not seat["computer"]
                    assert msg["view"]["version"] == anna_first["view"]["version"]
                    break
        await anna_ws.close()


class _SeatOfGame9:
    """A port of game 9 alone, where whoever asks holds a seat of a new game at
    ``version``; the listeners it was given are kept, to tell it changes by hand."""

    def __init__(self) -> None:
        from bot.engine.game import new_game
        from bot.engine.rules import Rules

        self.version = 3
        self.heard: list[Changed] = []
        self.base = view(new_game(Rules(), 1), 0)

    def on_change(self, listener: Changed) -> None:
        self.heard.append(listener)

    async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        place = SeatPlace(9, ("А", "Б", "В"), (False, True, True), True, True, None)
        return SeatView(dataclasses.replace(self.base, version=self.version), place, "ru")


async def _never_reading_page(port: int, hello: dict[str, object]) -> socket.socket:
    """A WebSocket opened by hand on a socket with a tiny receive buffer: it says hello,
    then never reads again (a phone whose page froze, or a modified client)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    await loop.sock_sendall(sock, (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(sock, 1)  # (byte by byte: nothing after it is read)
    assert head.startswith(b"HTTP/1.1 101")
    payload = json.dumps(hello).encode()
    assert len(payload) < 126
    mask = os.urandom(4)
    await loop.sock_sendall(sock, bytes([0x81, 0x80 | len(payload)]) + mask
                            + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    return sock


async def test_a_page_that_stops_reading_is_dropped_and_the_other_page_goes_on() -> None:
    """Two pages of one seat; one stops reading (real sockets, small kernel buffers).  The
    page that reads gets every view, each once, in order and at once (never held up by the
    other; a view sent to an idle socket needs no task of its own).  What the one that does
    not read leaves unsent is kept up to ``SLOW`` bytes; past that it is dropped."""
    here = _SeatOfGame9()
    token = "1:" + "A" * 30
    srv = WebAppServer(here, token, host="127.0.0.1", listen_port=0)  # type: ignore[arg-type]
    await srv.start()
    hello = {"type": "hello", "token": SessionKey.for_token(token).make(5, "ru", 2e9),
             "game": 9}
    stuck = await _never_reading_page(srv.bound_port, hello)
    try:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"http://127.0.0.1:{srv.bound_port}/ws")
            got = await _hello(ws, str(hello["token"]), 9)
            assert got["view"]["version"] == 3
            for _ in range(100):
                if len(srv.pages.get(9, ())) == 2:
                    break
                await asyncio.sleep(0.01)
            [reader] = [p for p in srv.pages[9] if p.sent == 3 and p.writer is None
                        and p.transport is not None
                        and p.transport.get_extra_info("peername")[1]
                        == ws.get_extra_info("sockname")[1]]
            [frozen] = srv.pages[9] - {reader}
            sndbuf = frozen.transport.get_extra_info("socket")  # type: ignore[union-attr]
            sndbuf.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            [listener] = here.heard
            unsent = 0
            for version in range(4, 4 + 400):
                here.version = version
                listener(9, version)
                msg = await ws.receive_json(timeout=2)
                assert (msg["type"], msg["view"]["version"]) == ("view", version)
                assert reader.writer is None and not reader.backlog  # sent at once
                if frozen.closed:
                    break
                unsent = max(unsent, frozen.transport.get_write_buffer_size())  # type: ignore[union-attr]
            # it was kept while it might have been a slow network, then dropped
            assert frozen.closed and SLOW < unsent < SLOW + len(json.dumps(msg)) + 16
            assert srv.pages[9] == {reader} and srv.metrics.dropped == 1
            here.version += 1
            listener(9, here.version)  # the table goes on for the page that reads
            msg = await ws.receive_json(timeout=2)
            assert msg["view"]["version"] == here.version
            await ws.close()
    finally:
        stuck.close()
        await srv.stop()


async def test_a_socket_offered_compression_declines_it() -> None:
    """A browser offers permessage-deflate; the server declines it (a zlib stream per page
    and every view deflated again for every page: ``_ws``), and the views come plain."""
    token = "1:" + "A" * 30
    srv = WebAppServer(_SeatOfGame9(), token, host="127.0.0.1",  # type: ignore[arg-type]
                       listen_port=0)
    await srv.start()
    try:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"http://127.0.0.1:{srv.bound_port}/ws", compress=15)
            assert ws.compress == 0  # (offered: 15 when the server accepts, as it used to)
            got = await _hello(ws, SessionKey.for_token(token).make(5, "ru", 2e9), 9)
            assert got["view"]["version"] == 3
            await ws.close()
    finally:
        await srv.stop()
