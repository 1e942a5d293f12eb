"""The Mini App's own aiohttp server: the page, its API and one WebSocket per open page.

    GET  /                 the page (static/index.html); /static/* its files
    GET  /api/texts?lang=L the page's texts (before a session: opened outside Telegram)
    POST /api/session      {"init": initData} -> {"token", "lang", "texts", "games",
                           "game"}: ``game`` is the table the signed ``start_param`` names
                           (a group's link, ``TableLinks``), or null
    GET  /api/view?game=G  the seat's whole view (Authorization: Bearer <token>)
    GET  /api/games        the person's games now, newest first (after a rematch)
    POST /api/act          {"game", "version", "intent"} -> {"ok": true} or a refusal
    GET  /ws               WebSocket: first {"type": "hello", "token", "game"}; then the
                           server pushes {"type": "view", "view"} after every change and the
                           page sends {"type": "act", "id", "version", "intent"} or
                           {"type": "sync"}; a spectator's page (a member of the table's
                           group, not seated) gets the public view, and {"type":
                           "watchers", "n"} when their number changes

Nothing is kept per page that a new socket does not rebuild: a page is its person, its game
and its socket; its first message says who it is and which game, and gets the whole view.

Every refusal is JSON ``{"ok": false, "code", "text"}`` (``text`` from the catalogs, in the
person's language) and is counted in ``thousand_webapp_refusals_total{code}``.  A view goes
out from the change's fan-out at once when the page's socket has nothing waiting (the
common case: no task, queue or timer per page and move); otherwise it waits in the page's
bounded backlog, which a writer task started for it sends (each send with a time limit).  A
page that does not read (its backlog full, or more than ``SLOW`` bytes left unsent on its
socket) is dropped, never waited for; it reconnects when it can and gets the whole view.
Actions from one page are rate-limited (a token bucket).  No permessage-deflate: ``_ws``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aiohttp import WSMsgType, web
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from bot.i18n import DEFAULT_LANG, lang_of, t
from bot.ops.ports import bound_port
from bot.webapp.auth import AuthError, SessionKey, TableLinks, WebUser, check_init_data
from bot.webapp.payload import page_texts, seat_payload
from bot.webapp.port import Refusal, SeatView, TablePort
from bot.webapp.watchers import Notes, Watchers

log = logging.getLogger(__name__)

STATIC: Final = Path(__file__).resolve().parent / "static"
MAX_REQUEST: Final = 16 * 1024  # bytes of a POST body (init data is about 1 KB)
MAX_MESSAGE: Final = 4096  # bytes of a WebSocket message from a page
QUEUE: Final = 32  # messages waiting for one page; a page with a full backlog is dropped
SEND_TIMEOUT: Final = 10.0  # seconds one send of the backlog may take before the page is dropped
# A message this long or shorter is sent at once when the socket's buffer is empty: after it
# the buffer stays far under asyncio's high-water mark (64 KiB), so aiohttp's send returns
# without waiting for a drain (a view is 2-4 KB)
AT_ONCE: Final = 16 * 1024
# Bytes a page's socket may hold unsent in this process (once the kernel's buffer is full)
# before the page counts as not reading and is dropped: a frozen or vanished phone would
# otherwise have every view kept for it (aiohttp waits for a drain only every 256 KiB); the
# page reconnects when it wakes and gets the whole view
SLOW: Final = 64 * 1024
HELLO_TIMEOUT: Final = 10.0  # seconds a new socket has to say who it is
BURST: Final = 10.0  # actions a page may send at once ...
RATE: Final = 5.0  # ... and per second after that
LATENCY_BOUNDS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
# the text of each view queued during one change's fan-out, by (the view's id, watchers)
Texts = dict[tuple[int, int], tuple[SeatView, str]]


@dataclass
class WebMetrics:
    """The Mini App's counts, exposed by a collector in the bot's /metrics registry."""

    refusals: dict[str, float] = field(default_factory=dict)
    pushes: float = 0.0
    dropped: float = 0.0
    pages: Callable[[], float] = lambda: 0.0
    reads: Callable[[], dict[str, int]] = dict
    """How the games another process holds were brought up to date for their pages (the
    port's ``reads``: by a read of storage, by the moves the feed carried)."""

    def refused(self, code: str) -> None:
        self.refusals[code] = self.refusals.get(code, 0.0) + 1


class _Collector(Collector):
    def __init__(self, m: WebMetrics) -> None:
        self.m = m

    def collect(self) -> Iterable[Metric]:
        f = CounterMetricFamily("thousand_webapp_refusals",
                                "Mini App requests and actions refused, by reason.",
                                labels=("code",))
        for code, n in sorted(self.m.refusals.items()):
            f.add_metric([code], n)
        yield f
        yield CounterMetricFamily("thousand_webapp_pushes",
                                  "Views pushed to open Mini App pages.", value=self.m.pushes)
        yield CounterMetricFamily("thousand_webapp_pages_dropped",
                                  "Mini App pages dropped: they did not read their views.",
                                  value=self.m.dropped)
        yield GaugeMetricFamily("thousand_webapp_pages", "Mini App pages open now.",
                                value=self.m.pages())
        f = CounterMetricFamily("thousand_webapp_game_reads",
                                "Games another process holds brought up to date for their "
                                "pages: by a read of storage, or by the moves the feed "
                                "carried.", labels=("how",))
        for how, n in sorted(self.m.reads().items()):
            f.add_metric([how], n)
        yield f


def register_metrics(m: WebMetrics, registry: Any) -> None:
    registry.register(_Collector(m))


class Bucket:
    """A token bucket: ``take()`` is False when the page sends faster than allowed."""

    def __init__(self, clock: Callable[[], float], burst: float = BURST,
                 rate: float = RATE) -> None:
        self.clock, self.burst, self.rate = clock, burst, rate
        self.tokens = burst
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass(eq=False)
class Page:
    """One open page: its person, its game, its socket and what waits to be sent to it."""

    user: WebUser
    lang: str
    game: int
    ws: web.WebSocketResponse
    transport: asyncio.BaseTransport | None = None
    backlog: deque[str] = field(default_factory=deque)  # what waits for the writer
    writer: asyncio.Task[None] | None = None  # sending the backlog (only while it has some)
    bucket: Bucket | None = None
    sent: int = -1  # the version of the last view sent or queued
    spectator: bool = False  # not seated: a member of the group watching (public view)
    closed: bool = False
    stamps: dict[int, float] = field(default_factory=dict)  # version -> when stored


class WebAppServer:
    def __init__(self, port: TablePort, token: str, *, host: str, listen_port: int,
                 metrics: WebMetrics | None = None,
                 clock: Callable[[], float] = time.time,
                 links: TableLinks | None = None,
                 notes: Notes | None = None) -> None:
        self.port = port
        self.links = links
        self.token = token
        self.keys = SessionKey.for_token(token)
        self.host, self.listen_port = host, listen_port
        self.metrics = metrics or WebMetrics()
        self.metrics.pages = lambda: float(sum(len(x) for x in self.pages.values()))
        self.clock = clock
        self.pages: dict[int, set[Page]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.delivered: list[float] = []  # seconds from "changed" to a page's send (bench)
        self.measure = False
        self._runner: web.AppRunner | None = None
        port.on_change(self.changed)
        # the watchers of each game, on this process's pages and (several processes:
        # ``notes``, the storage's) on the others'
        self.crowd = Watchers(notes, self._show_watchers)

    # ---------------------------------------------------------------- the application

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_REQUEST, middlewares=[self._guard])
        app.router.add_get("/", self._index)
        app.router.add_get("/index.html", self._index)
        app.router.add_static("/static/", STATIC, follow_symlinks=False)
        app.router.add_get("/api/texts", self._texts)
        app.router.add_post("/api/session", self._session)
        app.router.add_get("/api/view", self._view)
        app.router.add_get("/api/games", self._games)
        app.router.add_post("/api/act", self._act)
        app.router.add_get("/ws", self._ws)
        return app

    async def start(self) -> None:
        runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.listen_port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        self.crowd.start()
        log.info("the Mini App on http://%s:%s/", self.host, self.bound_port)

    @property
    def bound_port(self) -> int:
        assert self._runner is not None
        return bound_port(self._runner, self.listen_port)

    async def stop(self) -> None:
        for pages in list(self.pages.values()):
            for p in list(pages):
                await self._drop(p, "closing")
        await self.crowd.stop()  # (the others told this process's watchers are gone)
        for task in list(self.tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # ---------------------------------------------------------------- refusals

    def refuse(self, code: str, lang: str, text: str | None = None,
               status: int = 400) -> web.Response:
        self.metrics.refused(code)
        body = {"ok": False, "code": code, "text": text or t(lang, f"webapp.err.{code}")}
        return web.json_response(body, status=status)

    @web.middleware
    async def _guard(self, request: web.Request,
                     handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        try:
            response: web.StreamResponse = await handler(request)
        except web.HTTPRequestEntityTooLarge:
            return self.refuse("too_large", DEFAULT_LANG, status=413)
        return response

    async def _json(self, request: web.Request) -> dict[str, Any] | None:
        if request.content_length is not None and request.content_length > MAX_REQUEST:
            raise web.HTTPRequestEntityTooLarge(max_size=MAX_REQUEST,
                                                actual_size=request.content_length)
        try:
            data = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            return None
        return data if isinstance(data, dict) else None

    def _who(self, request: web.Request) -> tuple[int, str]:
        auth = request.headers.get("Authorization", "")
        return self.keys.read(auth.removeprefix("Bearer ").strip(), self.clock())

    # ---------------------------------------------------------------- handlers

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _texts(self, request: web.Request) -> web.Response:
        """The page's texts before a session (the page opened outside Telegram)."""
        lang = lang_of(request.query.get("lang"))
        return web.json_response({"ok": True, "lang": lang, "texts": page_texts(lang)})

    async def _session(self, request: web.Request) -> web.Response:
        data = await self._json(request)
        init = data.get("init") if data else None
        if not isinstance(init, str):
            return self.refuse("malformed", DEFAULT_LANG)
        try:
            checked = check_init_data(init, self.token, self.clock())
        except AuthError as e:
            return self.refuse(e.code, DEFAULT_LANG, status=401)
        user = checked.user
        lang = self.port.lang_for(user.id, user.language_code)
        token = self.keys.make(user.id, lang, self.clock())
        # the table a group's link names: only from the SIGNED start_param
        game = self.links.game_of(checked.start_param) if self.links is not None else None
        if checked.start_param and game is None:
            return self.refuse("bad_link", lang, status=403)
        return web.json_response({"ok": True, "token": token, "lang": lang,
                                  "texts": page_texts(lang), "games": self.port.games_of(user.id),
                                  "game": game})

    @staticmethod
    def _game(value: object) -> int | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, str) and value.isdigit() and len(value) <= 18:
            value = int(value)
        return value if isinstance(value, int) and 0 < value < 10**18 else None

    async def _view(self, request: web.Request) -> web.Response:
        try:
            uid, lang = self._who(request)
        except AuthError as e:
            return self.refuse(e.code, DEFAULT_LANG, status=401)
        game = self._game(request.query.get("game"))
        if game is None:
            return self.refuse("malformed", lang)
        got, _ = await self._look(game, uid)
        if isinstance(got, Refusal):
            return self.refuse(got.code, lang, got.text, status=403)
        return web.json_response({"ok": True, "view": self._payload(got)})

    async def _games(self, request: web.Request) -> web.Response:
        """The person's games now, newest first (the page follows a rematch to its game)."""
        try:
            uid, _ = self._who(request)
        except AuthError as e:
            return self.refuse(e.code, DEFAULT_LANG, status=401)
        return web.json_response({"ok": True, "games": self.port.games_of(uid)})

    async def _act(self, request: web.Request) -> web.Response:
        try:
            uid, lang = self._who(request)
        except AuthError as e:
            return self.refuse(e.code, DEFAULT_LANG, status=401)
        data = await self._json(request)
        if data is None:
            return self.refuse("malformed", lang)
        result = await self._do(WebUser(uid, ""), lang, data, None)
        return web.json_response(result, status=200 if result["ok"] else 409)

    async def _do(self, user: WebUser, lang: str, data: dict[str, Any],
                  bucket: Bucket | None) -> dict[str, Any]:
        """One action from a page: checked for its form here, then through the port (the
        same path as a button press); the answer to send back."""
        game, version, intent = (self._game(data.get("game")), data.get("version"),
                                 data.get("intent"))
        if game is None or not isinstance(version, int) or isinstance(version, bool) \
                or not 0 <= version < 10**9 or not isinstance(intent, dict) or len(intent) > 3:
            self.metrics.refused("malformed")
            return {"ok": False, "code": "malformed", "text": t(lang, "webapp.err.malformed")}
        if bucket is not None and not bucket.take():
            self.metrics.refused("flood")
            return {"ok": False, "code": "flood", "text": t(lang, "webapp.err.flood")}
        got = await self.port.act(game, user, intent, version)
        if isinstance(got, Refusal):
            self.metrics.refused(got.code)
            return {"ok": False, "code": got.code, "text": got.text}
        return {"ok": True, "text": got} if got else {"ok": True}

    # ---------------------------------------------------------------- live pages

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        # compress=False: no permessage-deflate, though browsers offer it.  Each socket
        # would keep its own zlib stream (256 KiB allocated, about 100 KiB touched after
        # the first views) and deflate every view again for every page; a view is a few KB
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30.0, compress=False)
        await ws.prepare(request)
        page = await self._hello(ws)
        if page is None:
            await ws.close()
            return ws
        page.transport = request.transport
        self.pages.setdefault(page.game, set()).add(page)
        if page.spectator:
            self._watchers_changed(page.game)
        try:
            await self._sync(page)
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    break
                await self._message(page, msg.data)
                await asyncio.sleep(0)  # its writer's turn: the answer goes before the next
        finally:
            await self._drop(page, "")
            writer = page.writer
            if writer is not None:
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await writer
        return ws

    async def _hello(self, ws: web.WebSocketResponse) -> Page | None:
        try:
            msg = await ws.receive(timeout=HELLO_TIMEOUT)
        except TimeoutError:
            return None
        if msg.type != WSMsgType.TEXT:
            self.metrics.refused("malformed")
            return None
        try:
            data = json.loads(msg.data)
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("type") != "hello":
            await self._send_refusal(ws, "malformed", DEFAULT_LANG)
            return None
        try:
            uid, lang = self.keys.read(data.get("token"), self.clock())
        except AuthError as e:
            await self._send_refusal(ws, e.code, DEFAULT_LANG)
            return None
        game = self._game(data.get("game"))
        if game is None:
            await self._send_refusal(ws, "malformed", lang)
            return None
        got, spectator = await self._look(game, uid)
        if isinstance(got, Refusal):
            self.metrics.refused(got.code)
            with contextlib.suppress(Exception):
                await ws.send_json({"type": "refused", "code": got.code, "text": got.text})
            return None
        return Page(WebUser(uid, ""), lang, game, ws, bucket=Bucket(time.monotonic),
                    spectator=spectator)

    async def _look(self, game: int, uid: int) -> tuple[SeatView | Refusal, bool]:
        """The person's seat view, or else (not seated) the public view for a member of
        the table's group; and whether it is the public one."""
        got = await self.port.seat_view(game, uid)
        if isinstance(got, Refusal) and got.code == "not_seated":
            return await self.port.watch_view(game, uid), True
        return got, False

    def watchers(self, game: int) -> int:
        """The people watching ``game`` (not seated) on the pages of any process."""
        return self.crowd.count(game)

    def _payload(self, got: SeatView, game: int = 0) -> dict[str, Any]:
        out = seat_payload(got)
        out["watchers"] = self.watchers(game) if game else 0
        return out

    def _watchers_changed(self, game: int) -> None:
        """A spectator's page of ``game`` came, went or was seated: counted, told to the
        other processes and to the game's pages."""
        self.crowd.set_mine(game, frozenset(
            p.user.id for p in self.pages.get(game, ()) if p.spectator))
        self._show_watchers(game)

    def _show_watchers(self, game: int) -> None:
        """The number of watchers of ``game`` to its pages here."""
        if game not in self.pages:
            return
        text = json.dumps({"type": "watchers", "n": self.watchers(game)})
        for p in list(self.pages.get(game, ())):
            if p.sent >= 0:
                self._queue(p, text)

    async def _send_refusal(self, ws: web.WebSocketResponse, code: str, lang: str) -> None:
        self.metrics.refused(code)
        with contextlib.suppress(Exception):
            await ws.send_json({"type": "refused", "code": code,
                                "text": t(lang, f"webapp.err.{code}")})

    async def _message(self, page: Page, raw: str) -> None:
        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            self.metrics.refused("malformed")
            self._queue(page, json.dumps({"type": "result", "ok": False, "code": "malformed",
                                          "text": t(page.lang, "webapp.err.malformed")}))
            return
        kind = data.get("type")
        if kind == "sync":
            if page.bucket is not None and not page.bucket.take():
                self.metrics.refused("flood")
                return
            page.sent = -1
            await self._sync(page)
            return
        if kind != "act":
            self.metrics.refused("malformed")
            self._queue(page, json.dumps({"type": "result", "ok": False, "code": "malformed",
                                          "text": t(page.lang, "webapp.err.malformed"),
                                          "id": None}))
            return
        ask = {"game": page.game, "version": data.get("version"), "intent": data.get("intent")}
        intent = ask["intent"]
        sit = isinstance(intent, dict) and intent.get("kind") == "sit"
        rid = data.get("id")
        if page.spectator and not sit:  # a spectator watches: its actions change nothing
            self.metrics.refused("spectator")
            self._queue(page, json.dumps({"type": "result", "ok": False, "code": "spectator",
                                          "text": t(page.lang, "webapp.err.spectator"),
                                          "id": rid if isinstance(rid, int) else None},
                                         ensure_ascii=False))
            return
        result = await self._do(page.user, page.lang, ask, page.bucket)
        if sit and result["ok"]:  # seated now (or the keepers asked): the whole view again
            page.sent = -1
            await self._sync(page)
        result.update(type="result", id=rid if isinstance(rid, int) else None)
        self._queue(page, json.dumps(result, ensure_ascii=False))
        # (a refused action changed nothing; the newest view is on its way already, and a
        # page that thinks it missed one says "sync")

    @staticmethod
    def _unsent(page: Page) -> int:
        """The bytes the page's socket holds in this process, not yet taken by the kernel
        (-1: no socket to write to)."""
        transport = page.transport
        if not isinstance(transport, asyncio.WriteTransport) or transport.is_closing():
            return -1
        return transport.get_write_buffer_size()

    def _queue(self, page: Page, text: str) -> bool:
        """Put ``text`` in the page's backlog; its writer task sends it (started if idle)."""
        if page.closed:
            return False
        if len(page.backlog) >= QUEUE or self._unsent(page) > SLOW:
            # it does not read: dropped, not waited for
            self.metrics.dropped += 1
            self._spawn(self._drop(page, "slow"))
            return False
        page.backlog.append(text)
        if page.writer is None:
            page.writer = asyncio.get_running_loop().create_task(self._write(page))
        return True

    async def _send(self, page: Page, text: str) -> bool:
        """Send ``text`` now if nothing waits before it and the socket's buffer is empty
        (then aiohttp's send does not wait: ``AT_ONCE``); else through the backlog."""
        if page.closed:
            return False
        if page.writer is None and not page.backlog and len(text) <= AT_ONCE \
                and self._unsent(page) == 0:
            return await self._put(page, text, None)
        return self._queue(page, text)

    async def _put(self, page: Page, text: str, limit: float | None) -> bool:
        """One send on the page's socket, within ``limit`` seconds (None: the send cannot
        wait, ``_send``); a page it fails for is dropped."""
        try:
            async with asyncio.timeout(limit):  # (None: no timer)
                await page.ws.send_str(text)
        except (TimeoutError, ConnectionError, RuntimeError):
            self.metrics.dropped += 1
            await self._drop(page, "send")
            return False
        self.metrics.pushes += 1
        if page.stamps:
            now = time.perf_counter()
            for stamp in page.stamps.values():
                self.delivered.append(now - stamp)
            page.stamps.clear()
        return True

    async def _sync(self, page: Page, stamp: float | None = None,
                    texts: Texts | None = None) -> None:
        """The page's whole view, sent unless it has this version already."""
        got, spectator = await self._look(page.game, page.user.id)
        if isinstance(got, Refusal) or page.closed:
            return
        if spectator != page.spectator:  # seated from the page (or the seat was lost)
            page.spectator = spectator
            page.sent = -1
            self._watchers_changed(page.game)
        await self._push(page, got, stamp, texts)

    async def _push(self, page: Page, got: SeatView, stamp: float | None,
                    texts: Texts | None = None) -> None:
        """Send the view (``_send``) unless the page has its version (or a newer one)
        already.  The pages of one change share the text of each view they share (the port gives the
        pages of one seat, and the spectators, the same view: ``texts``)."""
        version = got.rev if got.rev >= 0 else got.view.version  # (the stored version)
        if version <= page.sent:
            return
        watchers = self.watchers(page.game)
        made = texts.get((id(got), watchers)) if texts is not None else None
        if made is not None and made[0] is got:
            text = made[1]
        else:
            out = seat_payload(got)
            out["watchers"] = watchers
            text = json.dumps({"type": "view", "view": out}, ensure_ascii=False)
            if texts is not None:
                texts[(id(got), watchers)] = (got, text)
        page.sent = version
        if stamp is not None and self.measure:
            page.stamps[version] = stamp
        await self._send(page, text)

    async def _write(self, page: Page) -> None:
        """The page's backlog, in order, each send within ``SEND_TIMEOUT``; then it ends."""
        try:
            while page.backlog and not page.closed:
                if not await self._put(page, page.backlog.popleft(), SEND_TIMEOUT):
                    return
        finally:
            page.writer = None

    async def _drop(self, page: Page, why: str) -> None:
        if page.closed:
            return
        page.closed = True
        pages = self.pages.get(page.game)
        if pages is not None:
            pages.discard(page)
            if not pages:
                del self.pages[page.game]
        if page.spectator:
            self._watchers_changed(page.game)
        if why:
            log.info("a Mini App page of game %s dropped (%s)", page.game, why)
        with contextlib.suppress(Exception):
            await page.ws.close()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def changed(self, game: int | None, version: int) -> None:
        """``TablePort`` says: game ``game`` changed to ``version`` (a move was stored, by
        this process or another), or (``None``) changes may have been missed: every open
        page gets its view again (each page's views only ever go forward: ``_push``)."""
        stamp = time.perf_counter()
        if game is None:
            for each in list(self.pages):
                self._spawn(self._fan_out(each, 1 << 62, stamp))
            return
        if game not in self.pages:
            return
        self._spawn(self._fan_out(game, version, stamp))

    async def _fan_out(self, game: int, version: int, stamp: float) -> None:
        texts: Texts = {}
        for page in list(self.pages.get(game, ())):
            if page.sent < version:
                try:
                    await self._sync(page, stamp, texts)
                except Exception:  # (the storage failed: the next change or a sync retries)
                    log.exception("game %s: a page's view could not be read", game)
