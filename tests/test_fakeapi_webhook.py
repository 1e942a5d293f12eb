"""The fake Bot API's webhooks: setWebhook / deleteWebhook / getWebhookInfo, delivery by
POST to one of several targets at random, retries on another target, a chat's updates one
at a time and in order, 409 to getUpdates while a webhook is set."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.fakeapi import FakeTelegramServer
from tests.fakeapi.server import SECRET_HEADER

Call = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as s:
        s.webhook_retry_delay = 0.02
        yield s


@dataclass
class Receiver:
    """A webhook target: records every update posted to it (id, chat, arrival, answer)."""

    url: str = ""
    status: int = 200
    delay: dict[int, float] = field(default_factory=dict)  # update_id -> seconds to answer
    got: list[dict[str, Any]] = field(default_factory=list)
    secrets: list[str | None] = field(default_factory=list)
    events: list[tuple[str, int, float]] = field(default_factory=list)  # (what, id, time)

    async def handle(self, request: web.Request) -> web.Response:
        update = await request.json()
        loop = asyncio.get_running_loop()
        self.events.append(("in", update["update_id"], loop.time()))
        self.secrets.append(request.headers.get(SECRET_HEADER))
        await asyncio.sleep(self.delay.get(update["update_id"], 0))
        if self.status == 200:
            self.got.append(update)
        self.events.append(("out", update["update_id"], loop.time()))
        return web.Response(status=self.status)


@contextlib.asynccontextmanager
async def receivers(count: int) -> AsyncIterator[list[Receiver]]:
    runners, out = [], []
    for _ in range(count):
        rec = Receiver()
        app = web.Application()
        app.router.add_post("/hook", rec.handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        await web.SockSite(runner, sock).start()
        rec.url = f"http://127.0.0.1:{sock.getsockname()[1]}/hook"
        runners.append(runner)
        out.append(rec)
    try:
        yield out
    finally:
        for runner in runners:
            await runner.cleanup()


@contextlib.asynccontextmanager
async def api(server: FakeTelegramServer) -> AsyncIterator[Call]:
    async with aiohttp.ClientSession() as http:

        async def call(method: str, **params: Any) -> dict[str, Any]:
            url = f"{server.base_url}{server.token}/{method}"
            async with http.post(url, json=params) as response:
                data: dict[str, Any] = await response.json()
                return data

        yield call


def _chat(update: dict[str, Any]) -> int:
    return int(update["message"]["chat"]["id"])


async def test_updates_go_to_either_target_once_each_and_in_order_per_chat(
        server: FakeTelegramServer) -> None:
    anna, boris = server.add_user(11, "Anna"), server.add_user(12, "Boris")
    async with receivers(2) as (a, b), api(server) as call:
        assert (await call("setWebhook", url="https://bot.example.org/hook",
                           secret_token="s3cret", allowed_updates=["message"]))["ok"]
        server.webhook_targets = [a.url, b.url]
        server.webhook_rng = random.Random(5)
        for n in range(20):
            await server.send_text(anna if n % 2 else boris, anna if n % 2 else boris, f"m{n}")
        await server.wait_updates_delivered()
        ids = sorted(u["update_id"] for u in a.got + b.got)
        assert ids == [u["update_id"] for u in server.updates]  # each exactly once
        assert a.got and b.got  # spread over both
        assert server.webhook_counts() == {a.url: len(a.got), b.url: len(b.got)}
        assert set(a.secrets + b.secrets) == {"s3cret"}
        for person in (anna, boris):  # a chat's updates were handed out in order
            mine = [e[1] for e in sorted(a.events + b.events, key=lambda e: e[2])
                    if e[0] == "in" and e[1] in {u["update_id"] for u in server.updates
                                                 if _chat(u) == person.id}]
            assert mine == sorted(mine)
        info = (await call("getWebhookInfo"))["result"]
        assert info["url"] == "https://bot.example.org/hook"
        assert info["pending_update_count"] == 0 and info["allowed_updates"] == ["message"]
        refused = await call("getUpdates")
        assert refused["error_code"] == 409 and "webhook is active" in refused["description"]


async def test_a_chat_waits_for_its_previous_update_other_chats_do_not(
        server: FakeTelegramServer) -> None:
    anna, boris = server.add_user(21, "Anna"), server.add_user(22, "Boris")
    async with receivers(1) as (a,), api(server) as call:
        await call("setWebhook", url=a.url)
        first = await server.send_text(anna, anna, "slow")
        slow_id = server.updates[-1]["update_id"]
        a.delay[slow_id] = 0.5
        await server.send_text(anna, anna, "after the slow one")
        await server.send_text(boris, boris, "another chat")
        await server.wait_updates_delivered()
        times = {(what, uid): t for what, uid, t in a.events}
        anna_next, boris_msg = slow_id + 1, slow_id + 2
        assert times[("in", anna_next)] >= times[("out", slow_id)]  # Anna's waited
        assert times[("in", boris_msg)] < times[("out", slow_id)]  # Boris's did not
        assert first.text == "slow"


async def test_a_target_down_or_failing_is_retried_on_another(
        server: FakeTelegramServer) -> None:
    anna = server.add_user(31, "Anna")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/hook"  # bound, not listening
        async with receivers(2) as (good, failing), api(server) as call:
            failing.status = 500
            await call("setWebhook", url=good.url)
            server.webhook_targets = [dead, failing.url, good.url]
            for n in range(6):
                await server.send_text(anna, anna, f"m{n}")
            await server.wait_updates_delivered()
            assert [u["update_id"] for u in good.got] == [u["update_id"] for u in server.updates]
            assert server.webhook_counts() == {good.url: 6}
            failed = [d for d in server.webhook_deliveries if not d.ok]
            assert {d.target for d in failed} <= {dead, failing.url} and failed
            assert all(d.status is None for d in failed if d.target == dead)
            assert all(d.status == 500 for d in failed if d.target == failing.url)
            info = (await call("getWebhookInfo"))["result"]
            assert info["last_error_message"] and info["last_error_date"] > 0


async def test_all_targets_down_then_one_back(server: FakeTelegramServer) -> None:
    anna = server.add_user(41, "Anna")
    async with receivers(1) as (a,), api(server) as call:
        a.status = 503
        await call("setWebhook", url=a.url)
        await server.send_text(anna, anna, "hello")
        await server.wait_for(lambda: len(server.webhook_deliveries) >= 3, what="retries")
        assert not a.got and (await call("getWebhookInfo"))["result"]["pending_update_count"] == 1
        a.status = 200
        await server.wait_updates_delivered()
        assert [u["message"]["text"] for u in a.got] == ["hello"]


async def test_allowed_updates_and_delete_webhook(server: FakeTelegramServer) -> None:
    anna = server.add_user(51, "Anna")
    async with receivers(1) as (a,), api(server) as call:
        await call("setWebhook", url=a.url, allowed_updates=["callback_query"])
        await server.send_text(anna, anna, "not wanted")
        await server.wait_updates_delivered()
        assert not a.got  # a message update is not among the allowed ones: dropped
        bad = await call("setWebhook", url="ftp://x/hook")
        assert bad["error_code"] == 400 and "HTTPS URL" in bad["description"]
        secret = await call("setWebhook", url=a.url, secret_token="no spaces")
        assert secret["error_code"] == 400
        assert (await call("deleteWebhook"))["ok"]
        assert (await call("getWebhookInfo"))["result"]["url"] == ""
        assert (await call("getUpdates", timeout=0))["ok"]


@pytest.mark.parametrize("url", ["", "https://bot.example.org/x"])
async def test_set_webhook_with_an_empty_url_removes_it(server: FakeTelegramServer,
                                                        url: str) -> None:
    async with api(server) as call:
        await call("setWebhook", url="https://bot.example.org/hook")
        assert (await call("setWebhook", url=url))["ok"]
        assert server.webhook_url == url
        answer = await call("getUpdates", timeout=0)
        assert answer["ok"] is (url == "")
