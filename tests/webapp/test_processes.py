"""Pages on several processes (issue 49): two ``python -m bot`` processes in webhook mode on
one PostgreSQL, pages (WebSocket clients with signed init data) held by each, moves made
through each (pages and buttons), one process SIGKILLed mid-game: every page has every
move, each once, within a second of its storing (after the kill: within the reconnect)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from storage import Backend, open_storage
from storage.base import Change
from tests.bot.helpers import action_button, start_private
from tests.bot.procs import BotProcess, bots, free_port
from tests.bot.test_e2e_webhook import GROUP, group_game, solo_game, until
from tests.fakeapi import FakeTelegramServer, FakeUser
from tests.pg import pg_url
from tests.webapp.helpers import WEBAPP_URL, init_data

__all__ = ["pg_url"]  # the fixture

MOVES = 45  # the stored version the game is played to
KILL_AT = 18  # ... and the version after which one process is killed


@dataclass
class PageClient:
    """A page as the test holds it: its socket to one process (``base``), every view it
    got with the time it got it, and its reconnects (to the other process, as a proxy
    routes a socket whose process died)."""

    name: str
    person: FakeUser
    token: str
    game: int
    base: str
    http: aiohttp.ClientSession
    views: list[tuple[float, int]] = field(default_factory=list)  # (time, version)
    sockets: list[int] = field(default_factory=list)  # each view's socket (0, 1 after ...)
    latest: dict[str, Any] = field(default_factory=dict)
    gaps: list[tuple[float, float]] = field(default_factory=list)  # closed .. whole again
    results: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    ws: aiohttp.ClientWebSocketResponse | None = None
    closed_at: float | None = None
    reader: asyncio.Task[None] | None = None
    routes: list[str] = field(default_factory=list)  # where to reconnect
    watchers: list[int] = field(default_factory=list)  # each number of watchers it was told

    async def open(self) -> None:
        self.ws = await self.http.ws_connect(self.base + "/ws")
        await self.ws.send_json({"type": "hello", "token": self.token, "game": self.game})
        self.reader = asyncio.create_task(self._read(self.ws))

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            data = json.loads(msg.data)
            if data["type"] == "watchers" or (data["type"] == "view"
                                              and "watchers" in data["view"]):
                n = data["n"] if data["type"] == "watchers" else data["view"]["watchers"]
                if not self.watchers or self.watchers[-1] != n:
                    self.watchers.append(n)
            if data["type"] == "view":
                now = time.monotonic()
                self.views.append((now, data["view"]["version"]))
                self.sockets.append(len(self.gaps) + (self.closed_at is not None))
                self.latest = data["view"]
                if self.closed_at is not None:
                    self.gaps.append((self.closed_at, now))
                    self.closed_at = None
            elif data["type"] == "result":
                await self.results.put(data)
            elif data["type"] == "refused":
                raise AssertionError(f"{self.name}: {data}")
        # the socket closed (its process died): reconnect to another, as a proxy would
        self.closed_at = time.monotonic()
        self.base = self.routes[0]
        await self.open()

    async def act(self, intent: dict[str, Any], version: int) -> dict[str, Any]:
        assert self.ws is not None
        await self.ws.send_json({"type": "act", "id": version, "version": version,
                                 "intent": intent})
        return await asyncio.wait_for(self.results.get(), 10)

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        if self.ws is not None:
            await self.ws.close()


def two_bots(server: FakeTelegramServer, tmp_path: Path, settings: dict[str, object], *,
             seed: int) -> tuple[BotProcess, BotProcess, dict[str, str]]:
    """Bots ``a`` and ``b`` in webhook mode behind one address (the reverse proxy's: the
    fake API delivers each update to either, at random from ``seed``), each with its
    Mini App on a port of its own; and each one's Mini App address."""
    public = f"http://127.0.0.1:{free_port()}/hook"
    ports = {"a": free_port(), "b": free_port()}
    a, b = (BotProcess.webhook(server, tmp_path, name,
                               {"webapp_url": WEBAPP_URL, **settings, "webapp_port": port},
                               public_url=public) for name, port in ports.items())
    assert a.hook is not None and b.hook is not None
    server.webhook_targets = [a.hook, b.hook]
    server.webhook_rng = random.Random(seed)
    return a, b, {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}


async def session(http: aiohttp.ClientSession, base: str, person: FakeUser, token: str) -> str:
    async with http.post(base + "/api/session", json={"init": init_data(person, token)}) as r:
        body = await r.json()
        assert r.status == 200 and body["ok"], body
        return str(body["token"])


async def test_pages_on_two_processes_one_killed(server: FakeTelegramServer, tmp_path: Path,
                                                 pg_url: str) -> None:
    vera = server.add_user(4601, "Вера")
    a, b, base = two_bots(server, tmp_path, {"database_url": pg_url, "computer_move_delay": 0,
                                             "computer_level": "random"}, seed=7)
    stored: dict[int, float] = {}  # version -> when the test heard it stored (its own feed)
    rng = random.Random(3)
    async with bots(a, b), aiohttp.ClientSession() as http:
        await a.start()  # the first one creates the schema
        await b.start()
        store: Backend = await open_storage(database_url=pg_url, database_path="")
        pages: list[PageClient] = []
        try:
            await start_private(server, vera)
            gid = await solo_game(server, store, vera)

            def heard(change: Change | None) -> None:
                if change is not None and change.game_id == gid:
                    stored.setdefault(change.version, time.monotonic())

            store.feed.subscribe(heard)
            for name in ("a", "b", "a", "b"):
                token = await session(http, base[name], vera, server.token)
                page = PageClient(f"{name}{len(pages)}", vera, token, gid, base[name], http)
                await page.open()
                pages.append(page)
            await until(lambda: _true(all(p.views for p in pages)), 10, "the first views")
            accepted: dict[int, str] = {}  # version -> how the move was made
            victim = survivor = None
            while True:
                game = await store.get_game(gid)
                assert game is not None
                if game.version >= MOVES or game.status != "playing":
                    break
                if victim is None and game.version >= KILL_AT:
                    # one process dies mid-game; the proxy routes everything to the other
                    victim, survivor = (a, b) if rng.random() < 0.5 else (b, a)
                    assert survivor.hook is not None
                    server.webhook_targets = [survivor.hook]
                    for p in pages:
                        p.routes = [base[survivor.name]]
                    await victim.kill()
                    continue
                # Vera's move on a page that has the newest view (or a button), when hers
                live = [p for p in pages if p.latest.get("version") == game.version
                        and p.closed_at is None]
                if not live or not live[0].latest["legal"]:
                    await asyncio.sleep(0.02)
                    continue
                version = game.version
                ways = [*(p.name for p in pages), "button"]  # each way in turn
                way = ways[len(accepted) % len(ways)]
                if way != "button" and way not in {p.name for p in live}:
                    way = live[0].name
                intent = rng.choice(live[0].latest["legal"])
                if way == "button":
                    found = action_button(server, vera, gid, version)
                    if found is None:
                        await asyncio.sleep(0.02)
                        continue
                    msg, button = found
                    assert button.callback_data is not None
                    answer = await server.press(vera, vera.chat, msg.message_id,
                                                button.callback_data, timeout=10, strict=False)
                    ok = answer is not None and answer.text is None
                else:
                    page = next(p for p in live if p.name == way)
                    ok = (await page.act(intent, version))["ok"]
                if ok:
                    accepted[version] = way

                async def moved(version: int = version) -> bool:
                    g = await store.get_game(gid)
                    return g is not None and (g.version > version or g.status != "playing")

                await until(moved, 20, f"the move after {version}")
            final = await store.get_game(gid)
            assert final is not None
            await until(lambda: _true(all(p.views and p.views[-1][1] >= final.version
                                            for p in pages)), 10, "the last view on each page")
            # (the computers may have moved on meanwhile: the record up to ``final``)
            records = [json.loads(r) for r in await store.actions(gid)][:final.version]
        finally:
            for p in pages:
                await p.close()
            await store.close()
    assert victim is not None
    # nothing lost or doubled in storage: each accepted move of Vera's once, in order
    assert len(records) == final.version
    humans = [i + 1 for i, r in enumerate(records) if r.get("by") == "h"]
    assert set(accepted) == {v - 1 for v in humans}, (accepted, humans)
    # moves made through each process's pages and through buttons
    used = set(accepted.values())
    assert "button" in used and {w[0] for w in used - {"button"}} == {"a", "b"}, accepted
    report = []
    for p in pages:
        versions = [v for _, v in p.views]
        # on each socket each version once, never an older one after a newer one; a new
        # socket begins with the whole view again (at least the version the page had)
        for n in set(p.sockets):
            on = [v for v, k in zip(versions, p.sockets, strict=True) if k == n]
            assert on == sorted(set(on)), (p.name, n, on)
        assert versions == sorted(versions), (p.name, versions)
        late = []
        for v, at in sorted(stored.items()):
            if v == 0 or v > final.version:  # (after the last check: may be on its way)
                continue
            got = next((t for t, w in p.views if w >= v), None)
            assert got is not None, (p.name, v)
            gap = next(((c, o) for c, o in p.gaps if c <= at <= o), None)
            if gap is not None:  # stored while its socket was down: in the reconnect's view
                assert got <= gap[1] + 1e-6, (p.name, v)
                continue
            late.append(got - at)
        assert max(late) < 1.0, (p.name, sorted(late)[-5:])
        report.append(f"{p.name}: {len(versions)} views, worst {max(late) * 1000:.0f} ms, "
                      f"reconnects {len(p.gaps)}"
                      + (f" ({(p.gaps[0][1] - p.gaps[0][0]) * 1000:.0f} ms)" if p.gaps else ""))
    moved_by = {w: list(accepted.values()).count(w) for w in set(accepted.values())}
    print(f"killed {victim.name} at version {KILL_AT}; moves by {moved_by}; " + "; ".join(report))
    # the pages of the killed process reconnected, the others did not
    assert {p.name for p in pages if p.gaps} == {p.name for p in pages
                                                  if p.name[0] == victim.name}


async def _true(value: bool) -> bool:
    return value


async def test_watchers_are_counted_across_processes(server: FakeTelegramServer,
                                                     tmp_path: Path, pg_url: str) -> None:
    """A group table on two processes: members of the group watch it on pages held by
    each (one of them on both).  Every page, seated or watching, shows the people watching
    on any process, each counted once; a page closed on one process lowers the number on
    the other's within a second; a process SIGKILLed: its watchers' pages reconnect to the
    other and are still counted once."""
    anna, boris = server.add_user(4611, "Анна"), server.add_user(4612, "Борис")
    gleb = server.add_user(4615, "Глеб")
    wanda, walt = server.add_user(4613, "Ванда"), server.add_user(4614, "Вадим")
    server.add_group(GROUP, "Друзья", members=[boris, gleb, wanda, walt], admins=[anna])
    a, b, base = two_bots(server, tmp_path, {"database_url": pg_url}, seed=5)
    async with bots(a, b), aiohttp.ClientSession() as http:
        await a.start()
        await b.start()
        store: Backend = await open_storage(database_url=pg_url, database_path="")
        pages: dict[str, PageClient] = {}
        try:
            await start_private(server, anna, boris, gleb)
            gid = await group_game(server, store, anna, [boris, gleb])

            async def open_page(name: str, person: FakeUser, proc: str) -> PageClient:
                token = await session(http, base[proc], person, server.token)
                page = PageClient(name, person, token, gid, base[proc], http)
                await page.open()
                pages[name] = page
                await until(lambda: _true(bool(page.views)), 10, f"{name}'s first view")
                return page

            async def shown(n: int, timeout: float = 1.0) -> None:
                """Every open page's last number of watchers is ``n``."""
                await until(lambda: _true(all(p.watchers and p.watchers[-1] == n
                                              for p in pages.values())), timeout,
                            f"{n} watchers on every page: "
                            f"{ {k: p.watchers for k, p in pages.items()} }")

            await open_page("anna@a", anna, "a")  # seated
            await open_page("boris@b", boris, "b")  # seated
            assert not pages["anna@a"].latest["spectator"]
            await shown(0)
            await open_page("wanda@a", wanda, "a")
            await shown(1)
            await open_page("walt@b", walt, "b")
            await shown(2)
            await open_page("wanda@b", wanda, "b")  # the same person on both: once
            await asyncio.sleep(0.3)
            await shown(2)
            assert pages["walt@b"].latest["spectator"] and pages["walt@b"].latest["hand"] == []
            # walt goes: the pages on a see it within a second
            gone = pages.pop("walt@b")
            await gone.close()
            await shown(1)
            assert all(p.watchers[-1] == 1 for p in pages.values())
            # wanda's page on a closes, but she still watches on b: still 1 everywhere
            await pages.pop("wanda@a").close()
            await asyncio.sleep(0.3)
            await shown(1)
            # walt again, on a; then a is killed: its pages reconnect to b (as a proxy
            # routes them), and walt is counted once though a never said he left
            await open_page("walt@a", walt, "a")
            await shown(2)
            assert b.hook is not None
            server.webhook_targets = [b.hook]
            for p in pages.values():
                p.routes = [base["b"]]
            await a.kill()
            await until(lambda: _true(all(p.closed_at is None and p.base == base["b"]
                                          for p in pages.values() if p.name.endswith("@a"))),
                        10, "the pages of a reconnected to b")
            await shown(2, timeout=5.0)
            assert all(max(p.watchers) <= 2 for p in pages.values()), \
                {k: p.watchers for k, p in pages.items()}
        finally:
            for p in pages.values():
                await p.close()
            await store.close()
