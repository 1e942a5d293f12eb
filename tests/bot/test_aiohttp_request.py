"""The aiohttp request layer (``bot/tg/io/aiohttp_request.py``) keeps python-telegram-bot's
request contract: most checks run against both ``AiohttpRequest`` and PTB's own
``HTTPXRequest``, on a small aiohttp server on 127.0.0.1 or the fake Bot API server."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import socket
import time
import warnings
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
from aiohttp import BodyPartReader, web
from PIL import Image
from telegram import Bot, InputFile
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut
from telegram.request import BaseRequest, HTTPXRequest, RequestData
from telegram.request._requestparameter import RequestParameter
from telegram.warnings import PTBDeprecationWarning

import tests.bot.test_e2e_pictures as e2e_pictures
from bot.tg.io.aiohttp_request import AiohttpRequest
from bot.tg.io.app import build_application
from bot.tg.io.observe import ObservedRequest
from tests.bot.helpers import settings_for
from tests.fakeapi import FakeTelegramServer

Factory = Callable[..., BaseRequest]
CLIENTS: dict[str, Factory] = {"aiohttp": AiohttpRequest, "httpx": HTTPXRequest}


@pytest.fixture(params=sorted(CLIENTS))
def make(request: pytest.FixtureRequest) -> Factory:
    """A request class: every test using it runs with aiohttp and with httpx."""
    return CLIENTS[request.param]


@dataclass
class Part:
    name: str | None
    filename: str | None
    disposition: str
    content_type: str | None
    data: bytes


@dataclass
class Seen:
    """One request as the test server got it."""

    method: str
    peer: tuple[str, int]
    user_agent: str | None
    content_type: str
    body: bytes = b""
    parts: list[Part] = field(default_factory=list)


@dataclass
class Api:
    """A Bot-API-like server: ``/<method>`` answers as the method's name says."""

    url: str
    seen: list[Seen] = field(default_factory=list)
    transports: list[asyncio.BaseTransport] = field(default_factory=list)

    def peers(self) -> set[tuple[str, int]]:
        return {s.peer for s in self.seen}


ERRORS: dict[str, tuple[int, dict[str, Any]]] = {
    "bad": (400, {"ok": False, "error_code": 400,
                  "description": "Bad Request: message text is empty"}),
    "forbidden": (403, {"ok": False, "error_code": 403,
                        "description": "Forbidden: bot was blocked by the user"}),
    "flood": (429, {"ok": False, "error_code": 429,
                    "description": "Too Many Requests: retry after 3",
                    "parameters": {"retry_after": 3}}),
    "gateway": (502, {"ok": False, "error_code": 502, "description": "Bad Gateway"}),
}


@pytest.fixture
async def api() -> AsyncIterator[Api]:
    state = Api("")

    async def handle(request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        assert request.transport is not None
        peer = request.transport.get_extra_info("peername")
        if request.transport not in state.transports:
            state.transports.append(request.transport)
        seen = Seen(method, (peer[0], peer[1]), request.headers.get("User-Agent"),
                    request.content_type)
        state.seen.append(seen)
        if request.content_type == "multipart/form-data":
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                assert isinstance(part, BodyPartReader)
                seen.parts.append(Part(part.name, part.filename,
                                       part.headers.get("Content-Disposition", ""),
                                       part.headers.get("Content-Type"),
                                       bytes(await part.read())))
        else:
            seen.body = await request.read()
        if method.startswith("slow"):
            await asyncio.sleep(float(method.removeprefix("slow")))
        if method in ERRORS:
            status, answer = ERRORS[method]
            return web.json_response(answer, status=status)
        return web.json_response({"ok": True, "result": {"method": method}})

    app = web.Application()
    app.router.add_post("/{method}", handle)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    state.url = f"http://127.0.0.1:{port}"
    try:
        yield state
    finally:
        await runner.cleanup()


def params(**values: object) -> RequestData:
    return RequestData([RequestParameter.from_input(k, v) for k, v in values.items()])


# ----------------------------------------------------------------------------- answers


async def test_success_and_the_parameters_each_client_sends(api: Api, make: Factory) -> None:
    """httpx sends a form of JSON-encoded values; aiohttp one JSON body (the Bot API takes
    both): the same parameters either way."""
    req = make()  # no initialize(): the first request opens the session, as httpx's does
    data = params(chat_id=5, text="привет & co", reply_markup={"inline_keyboard": [[]]},
                  disable_notification=True, nothing=None)
    try:
        assert await req.post(f"{api.url}/sendMessage", data) == {"method": "sendMessage"}
    finally:
        await req.shutdown()
    [seen] = api.seen
    expected = {"chat_id": 5, "text": "привет & co", "reply_markup": {"inline_keyboard": [[]]},
                "disable_notification": True}  # None left out
    if isinstance(req, HTTPXRequest):
        assert seen.content_type == "application/x-www-form-urlencoded"
        form = dict(parse_qsl(seen.body.decode(), strict_parsing=True))
        assert {k: json.loads(v) if k != "text" else v for k, v in form.items()} == expected
    else:  # the values themselves, nested (not a form of JSON strings), in UTF-8
        assert seen.content_type == "application/json"
        assert json.loads(seen.body) == expected
        assert "привет".encode() in seen.body
    assert seen.user_agent == BaseRequest.USER_AGENT


async def test_a_request_without_parameters(api: Api, make: Factory) -> None:
    async with make() as req:
        assert await req.post(f"{api.url}/getMe") == {"method": "getMe"}
    assert api.seen[0].body == b""


async def test_error_answers_become_ptb_exceptions(api: Api, make: Factory) -> None:
    async with make() as req:
        with pytest.raises(BadRequest, match="Message text is empty"):
            await req.post(f"{api.url}/bad", params(chat_id=1))
        with pytest.raises(Forbidden, match="blocked by the user"):
            await req.post(f"{api.url}/forbidden", params(chat_id=1))
        with pytest.raises(RetryAfter, match="Retry in 3 seconds") as flood:
            await req.post(f"{api.url}/flood", params(chat_id=1))
        with warnings.catch_warnings():  # an int now, a timedelta in PTB 23
            warnings.simplefilter("ignore", PTBDeprecationWarning)
            assert flood.value.retry_after in (3, dt.timedelta(seconds=3))
        with pytest.raises(NetworkError, match="Bad Gateway") as gateway:
            await req.post(f"{api.url}/gateway", params(chat_id=1))
        assert not isinstance(gateway.value, TimedOut)
        # the connection stays usable after error answers
        assert await req.post(f"{api.url}/ok") == {"method": "ok"}
    assert len(api.peers()) == 1


# ----------------------------------------------------------------------------- timeouts


async def test_a_server_that_does_not_answer_in_time(api: Api, make: Factory) -> None:
    async with make(read_timeout=0.3) as req:
        started = time.monotonic()
        with pytest.raises(TimedOut):
            await req.post(f"{api.url}/slow3")  # the default read timeout
        with pytest.raises(TimedOut):
            await req.post(f"{api.url}/slow3", read_timeout=0.2)
        assert time.monotonic() - started < 2.5
        # a longer read timeout of one request (as getUpdates passes) is honoured
        assert req.read_timeout == 0.3
        assert await req.post(f"{api.url}/slow0.6", read_timeout=3) == {"method": "slow0.6"}


async def test_long_polling_with_the_fake_api(server: FakeTelegramServer, make: Factory) -> None:
    """getUpdates adds its long-polling timeout to the request's read timeout."""
    bot = Bot(server.token, base_url=server.base_url, get_updates_request=make(read_timeout=0.5))
    async with bot:
        started = time.monotonic()
        assert await bot.get_updates(timeout=1) == ()
        assert time.monotonic() - started >= 0.9  # the server held the poll beyond 0.5 s
        user = server.add_user(4242, "Ира")
        await server.send_text(user, user, "/start")
        [update] = await bot.get_updates(timeout=1)
        assert update.message is not None and update.message.text == "/start"


async def test_a_full_pool_times_out_without_sending(api: Api, make: Factory) -> None:
    async with make(connection_pool_size=1, pool_timeout=0.2, read_timeout=5) as req:
        slow = asyncio.ensure_future(req.post(f"{api.url}/slow1"))
        await asyncio.sleep(0.2)
        with pytest.raises(TimedOut, match=r"[Pp]ool"):
            await req.post(f"{api.url}/second")
        assert [s.method for s in api.seen] == ["slow1"]  # the second was not sent
        assert await slow == {"method": "slow1"}


async def test_a_stalled_upload_times_out(make: Factory) -> None:
    """A server that accepts the connection but never reads: the write timeout ends it."""
    stop = asyncio.Event()
    writers: list[asyncio.StreamWriter] = []

    async def never_read(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await stop.wait()
        writer.close()

    srv = await asyncio.start_server(never_read, "127.0.0.1", 0)
    port = srv.sockets[0].getsockname()[1]
    big = InputFile(b"\0" * (32 << 20), filename="big.bin")
    try:
        async with make(write_timeout=0.3, media_write_timeout=0.3, read_timeout=0.3,
                        connect_timeout=0.5, pool_timeout=0.5) as req:
            started = time.monotonic()
            with pytest.raises(TimedOut):  # not the test's own 10 s limit
                await asyncio.wait_for(req.post(f"http://127.0.0.1:{port}/sendDocument",
                                                params(chat_id=1, document=big)), 10)
            assert time.monotonic() - started < 5
            assert writers  # it did connect: the write is what timed out
    finally:
        stop.set()
        srv.close()
        await srv.wait_closed()


async def test_a_refused_port_is_a_network_error(make: Factory) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with make() as req:
        with pytest.raises(NetworkError) as refused:
            await req.post(f"http://127.0.0.1:{port}/getMe")
    assert not isinstance(refused.value, TimedOut)


# ----------------------------------------------------------------------------- uploads


async def test_multipart_upload_as_httpx_sends_it(api: Api, make: Factory) -> None:
    data = bytes(range(256)) * 300
    async with make() as req:
        await req.post(f"{api.url}/sendDocument", params(
            chat_id=5, caption="партия №7",
            document=InputFile(data, filename='партия "7".json')))
    [seen] = api.seen
    assert seen.content_type == "multipart/form-data"
    chat_id, caption, document = seen.parts
    assert (chat_id.name, chat_id.filename, chat_id.data) == ("chat_id", None, b"5")
    assert (caption.name, caption.data) == ("caption", "партия №7".encode())
    assert document.name == "document" and document.data == data
    assert document.content_type == "application/json"
    # the file name on the wire: UTF-8, '"' as %22 (httpx's encoding)
    assert document.disposition == 'form-data; name="document"; filename="партия %227%22.json"'


async def test_photo_and_document_arrive_intact_at_the_fake_api(
        server: FakeTelegramServer, make: Factory) -> None:
    anna = server.add_user(3003, "Анна")
    out = io.BytesIO()
    Image.effect_noise((64, 48), 50).save(out, "PNG")
    png = out.getvalue()
    doc = "{\"партия\": 7}\n".encode() * 1000
    await server.send_text(anna, anna, "/start")  # the bot may write to her
    async with Bot(server.token, base_url=server.base_url, request=make()) as bot:
        await bot.send_photo(anna.id, InputFile(png, filename="лист.png"), caption="Лист")
        await bot.send_document(anna.id, InputFile(doc, filename="партия 7.json"))
    [photo] = server.photos(anna)
    assert photo.photo is not None and photo.photo.data == png and photo.caption == "Лист"
    [sent] = server.documents(anna)
    assert sent.document is not None and sent.document.data == doc
    assert sent.document.file_name == "партия 7.json"
    server.assert_clean()


# ----------------------------------------------------------------------------- connections


async def test_sequential_requests_reuse_one_connection(api: Api, make: Factory) -> None:
    async with make() as req:
        for i in range(50):
            assert await req.post(f"{api.url}/m{i}", params(i=i)) == {"method": f"m{i}"}
    assert len(api.seen) == 50
    assert len(api.peers()) == 1 and len(api.transports) == 1


async def test_shutdown_closes_the_connections(api: Api, make: Factory) -> None:
    req = make()
    await req.initialize()
    await asyncio.gather(*(req.post(f"{api.url}/slow0.2") for _ in range(3)))
    assert len(api.transports) == 3
    await req.shutdown()
    await req.shutdown()  # twice is harmless
    for _ in range(100):
        if all(t.is_closing() for t in api.transports):
            break
        await asyncio.sleep(0.02)
    assert all(t.is_closing() for t in api.transports)
    with pytest.raises(RuntimeError, match="not initialized"):
        await req.do_request(f"{api.url}/ok", "POST")
    await req.initialize()  # opens a new session
    try:
        assert await req.post(f"{api.url}/ok") == {"method": "ok"}
    finally:
        await req.shutdown()


async def test_shutdown_closes_the_aiohttp_session(api: Api) -> None:
    req = AiohttpRequest()
    assert req._session is None  # made inside the running loop, not at construction
    assert await req.post(f"{api.url}/ok") == {"method": "ok"}
    session = req._session
    assert session is not None and not session.closed
    await req.shutdown()
    assert session.closed


# ----------------------------------------------------------------------------- observed


async def test_the_observing_wrapper_passes_everything_on(api: Api, make: Factory) -> None:
    """``ObservedRequest`` holds the client's request object: the default timeouts, the
    session and its shutdown are the inner one's; every request is counted by method and
    outcome, and the first one of an update marks the benchmark's probe."""
    from prometheus_client import generate_latest

    from bot.ops.metrics import BotMetrics
    from bot.tg import metrics as M
    from tests.bot.test_ops import _value

    ops, bench = BotMetrics(), M.Metrics()
    inner = make(read_timeout=0.3)
    req = ObservedRequest(inner, ops=ops, probe=True)
    assert req.read_timeout == 0.3
    token = M.current.set(bench.probe_for(object()))
    try:
        async with req:
            data = params(chat_id=5, text="привет")
            assert await req.post(f"{api.url}/sendMessage", data) == {"method": "sendMessage"}
            with pytest.raises(BadRequest, match="Message text is empty"):
                await req.post(f"{api.url}/bad", params(chat_id=1))
            with pytest.raises(TimedOut):
                await req.post(f"{api.url}/slow3")  # the inner one's read timeout
            assert await req.post(f"{api.url}/slow0.6", read_timeout=3) == {"method": "slow0.6"}
    finally:
        M.current.reset(token)
    assert len(bench.latencies) == 1  # the probe: the first request only
    with pytest.raises(RuntimeError, match="not initialized"):  # shut down: the inner one
        await inner.do_request(f"{api.url}/ok", "POST")
    page = generate_latest(ops.registry).decode()
    for method, outcome in (("sendMessage", "ok"), ("bad", "bad_request"),
                            ("slow3", "timeout"), ("slow0.6", "ok")):
        assert _value(page, "thousand_bot_api_requests_total", method=method,
                      outcome=outcome) == 1, (method, outcome)
    assert _value(page, "thousand_bot_api_request_seconds_count", method="slow3") == 1
    [sent] = [s for s in api.seen if s.method == "sendMessage"]
    assert sent.user_agent == BaseRequest.USER_AGENT
    # the session and the body are the inner client's (aiohttp: one JSON body)
    assert sent.content_type == ("application/x-www-form-urlencoded"
                                 if isinstance(inner, HTTPXRequest) else "application/json")


# ----------------------------------------------------------------------------- the bot


def test_the_bot_uses_the_configured_client(server: FakeTelegramServer, tmp_path: Path) -> None:
    db = tmp_path / "x.sqlite3"
    app = build_application(settings_for(server, db))  # HTTP_CLIENT's default
    assert type(app.bot.request) is AiohttpRequest
    assert app.bot.request.connection_pool_size == 256
    assert type(app.bot._request[0]) is AiohttpRequest  # getUpdates
    app = build_application(settings_for(server, db, http_client="httpx"))
    assert type(app.bot.request) is HTTPXRequest and type(app.bot._request[0]) is HTTPXRequest
    from bot.tg import metrics as M

    for client, cls in (("aiohttp", AiohttpRequest), ("httpx", HTTPXRequest)):
        app = build_application(settings_for(server, db, http_client=client),
                                metrics=M.Metrics())
        calls = app.bot._request[1]
        assert type(calls) is ObservedRequest and type(calls.inner) is cls
        assert calls.probe and calls.ops is None
        assert type(app.bot._request[0]) is cls  # getUpdates: not measured


async def test_the_bot_end_to_end_on_httpx(server: FakeTelegramServer, db: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP_CLIENT=httpx keeps working: the pictures/export end-to-end test (photos,
    documents, getFile and a download) on PTB's default client, and only on it."""
    monkeypatch.setenv("HTTP_CLIENT", "httpx")
    calls = {"httpx": 0, "aiohttp": 0}

    def counting(name: str, cls: type[BaseRequest]) -> None:
        original = cls.do_request

        async def do_request(self: BaseRequest, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
            calls[name] += 1
            return await original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "do_request", do_request)

    counting("httpx", HTTPXRequest)
    counting("aiohttp", AiohttpRequest)
    await e2e_pictures.test_pictures_export_and_a_record_sent_back(server, db)
    assert calls["httpx"] > 50 and calls["aiohttp"] == 0
