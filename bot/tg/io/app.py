"""The PTB application, built the same way for ``python -m bot``, the tests and the benchmark.

``build_application(settings)`` returns an application whose ``initialize()`` opens the
database, registers every game in progress (rebuilt when first touched or by a background
task, timers and computer moves re-armed: ``restore.py``) and
registers the command menu, and whose ``shutdown()`` stops the games' tasks and closes it.
"""

from __future__ import annotations

import gc
import importlib.util
import logging
import random
import sys
from typing import Any

from telegram import BotCommand, BotCommandScopeDefault, MenuButtonWebApp, Update, WebAppInfo
from telegram.error import TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest, HTTPXRequest

from bot.config import Settings
from bot.i18n import DEFAULT_LANG, LANGS, t
from bot.ops import logs
from bot.ops.metrics import BotMetrics
from bot.ops.server import ListenError, OpsServer
from bot.tg import metrics as M
from bot.tg.io.aiohttp_request import AiohttpRequest
from bot.tg.io.coord import SharedCoordinator, SharedSends, owner_name
from bot.tg.io.handlers import add_handlers
from bot.tg.io.observe import ObservedRequest, ObservedUpdates
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.events import (
    GameOver,
    GameStarted,
    GameStopped,
    MovesStored,
    SeatChanged,
    SettingChanged,
    TableEvent,
)
from bot.tg.rooms.service import GameService
from bot.tg.view.callbacks import decode
from bot.webapp.adapter import ServicePort
from bot.webapp.auth import TableLinks
from bot.webapp.server import WebAppServer, WebMetrics, register_metrics
from storage import Backend, open_storage

log = logging.getLogger(__name__)

# httpcore runs ``import sniffio`` before every request; without sniffio installed each of
# those imports searches sys.path anew (tens of microseconds, far more under pytest).  A
# None entry makes the import fail at once, and httpcore then assumes asyncio — which it is.
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]


class _NoPageTraceback(logging.Filter):
    """PTB logs an answer that is not JSON (a proxy's 502 page while Telegram has a bad
    minute) with a traceback before raising NetworkError, which the outbox retries: the
    record stays, one line without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and str(record.msg).startswith("Can not load invalid JSON data"):
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


logging.getLogger("telegram.request.BaseRequest").addFilter(_NoPageTraceback())

MENU = ("newgame", "score", "export", "rules", "table", "lang", "help", "stats", "top", "leave",
        "stop", "pace")


_frozen = False


def freeze_startup() -> None:
    """Once per process, when the bot is ready: what start-up made and keeps (modules,
    python-telegram-bot's and aiohttp's classes, the catalogs, the engine's tables: some
    140,000 objects) leaves the garbage collector's view (``gc.freeze``).  Each full
    collection walked all of it: 100-190 ms here, the event loop standing still, a dozen
    presses waiting each time and the queue behind them long after; frozen, a full
    collection takes a few ms.  Only once: a frozen object is never collected, so a
    process that builds many applications (the tests) keeps only the first's."""
    global _frozen
    if _frozen:
        return
    _frozen = True
    gc.collect()
    gc.freeze()


FOLLOWED: tuple[type[TableEvent], ...] = (MovesStored, SeatChanged, SettingChanged, GameStarted,
                                         GameOver, GameStopped)
"""The owner's events after which the Mini App's pages get their views again."""

class ThousandApplication(Application[Any, Any, Any, Any, Any, Any]):
    """Owns the storage, the outbox, the computer players and the game service.

    It is not what measures the bot: its update processor and its request objects are
    (``bot/tg/io/observe.py``, given to it by ``build_application``)."""

    settings: Settings
    rng: random.Random | None
    storage: Backend | None
    service: GameService | None
    requests: tuple[BaseRequest, ...]
    ops: BotMetrics | None  # Prometheus metrics (METRICS_PORT set, or the bench's --metrics)
    ops_server: OpsServer | None
    webapp: WebAppServer | None  # the Mini App's server (WEBAPP_URL set: bot/webapp/)

    def log_context(self, update: Update) -> None:
        """The update, its chat and its game, for LOG_FORMAT=json (``bot/ops/logs.py``);
        called by the update processor in the update's own task, so these stay with it."""
        logs.update_id.set(update.update_id)
        chat = update.effective_chat
        game = None
        query = update.callback_query
        if query is not None and query.data:
            data = decode(query.data)
            game = data.game_id if data is not None else None
        if chat is not None:
            logs.chat_id.set(chat.id)
            if game is None and self.service is not None:
                game = self.service.by_chat.get(chat.id)
        if game is not None:
            logs.game_id.set(game)

    async def initialize(self) -> None:
        if self._initialized:
            return
        # aiosqlite runs every statement on its own thread; with the default 5 ms switch
        # interval that thread waits up to 5 ms for the GIL whenever the event loop is busy,
        # for each of the ~5 statements of a stored move.  0.2 ms keeps a move's write short.
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0002))
        await super().initialize()
        s = self.settings
        self.storage = await open_storage(
            database_url=s.database_url, database_path=s.database_path,
            busy_timeout=s.database_busy_timeout)
        outbox = Outbox(self.bot, group_per_minute=s.group_messages_per_minute,
                        send_timeout=s.send_timeout)
        thinker = Thinker(workers=s.computer_workers, budget=s.computer_think_seconds)
        coord = None
        if s.database_url:  # several processes may share the database (bot/tg/io/coord.py)
            owner = owner_name(s.instance_name)
            coord = SharedCoordinator(self.storage, owner)
            outbox.shared = SharedSends(self.storage, owner)
        service = GameService(
            self.storage, outbox, thinker, bot=self.bot, turn_timeout=s.turn_timeout,
            move_delay=s.computer_move_delay, computer_level=s.computer_level, rng=self.rng,
            lobby_ttl=s.lobby_ttl, game_ttl=s.game_ttl, coord=coord,
            idle_evict_after=s.idle_evict_after,
            quick_turn_timeout=s.quick_turn_timeout, unhurried_ping_after=s.unhurried_ping_after,
            unhurried_ping_again=s.unhurried_ping_again, ping_quiet=s.ping_quiet)
        service.config.bot_username = self.bot.username
        service.config.webapp_url = s.webapp_url
        self.service = service
        self.bot_data["service"] = service
        if self.ops is not None:
            await self._start_ops(self.ops, service, coord)
        if s.webapp_url:
            await self._start_webapp(service)
        await self._register_commands()
        restored = await service.start()
        freeze_startup()
        log.info("bot @%s ready, %d games in progress (rebuilt when touched, or in the "
                 "background)", self.bot.username, restored)

    async def _start_ops(self, ops: BotMetrics, service: GameService,
                         coord: SharedCoordinator | None) -> None:
        """Metrics read from the running bot, storage writes timed, the HTTP server."""
        storage = service.storage
        for op in STORAGE_WRITES:
            setattr(storage, op, ops.timed(op, getattr(storage, op)))
        outbox = service.outbox
        src = ops.sources
        src.queue_depth = lambda: float(sum(len(q.dirty) for q in outbox.queues.values()))
        src.budget_waits = lambda: float(outbox.budget_waits)
        src.budget_wait_seconds = lambda: outbox.budget_wait_seconds
        src.sessions = lambda: float(len(service.sessions))
        src.live_games = lambda: float(sum(1 for x in service.sessions.values()
                                           if x.status == "playing"))
        if coord is not None:
            src.lease_takeovers = lambda: float(coord.takeovers)
        s = self.settings
        if s.metrics_port:

            async def check() -> None:
                if self.storage is None:
                    raise RuntimeError("the database is closed")
                await self.storage.get_chat(0)

            server = OpsServer(ops, check, host=s.metrics_listen, port=s.metrics_port)
            await server.start()
            self.ops_server = server

    async def _start_webapp(self, service: GameService) -> None:
        """The Mini App's page and API on WEBAPP_PORT (polling and webhook mode alike)."""
        s = self.settings
        metrics = WebMetrics()
        if self.ops is not None:
            register_metrics(metrics, self.ops.registry)
        links = TableLinks.for_token(s.token, self.bot.username, s.webapp_short_name)
        service.config.table_link = links.link  # a group's table and lobby link to the page
        port = ServicePort(service)
        metrics.reads = lambda: dict(port.reads)
        for kind in FOLLOWED:  # the pages follow the owner's events, as the chat does
            service.events.subscribe(kind, port.table_event)
        server = WebAppServer(port, s.token, host=s.webapp_listen,
                              listen_port=s.webapp_port, metrics=metrics, links=links,
                              # (several processes: the watchers each one's pages have)
                              notes=service.storage.feed if service.coord.shared else None)
        try:
            await server.start()
        except OSError as e:
            raise ListenError(f"cannot listen on {s.webapp_listen}:{s.webapp_port} "
                              f"(WEBAPP_LISTEN, WEBAPP_PORT): {e.strerror or e}") from None
        self.webapp = server
        try:  # the menu button of private chats opens the page (one text for every chat,
            # whatever its language: the game's name, «🃏 1000», in every catalog)
            await self.bot.set_chat_menu_button(menu_button=MenuButtonWebApp(
                t(DEFAULT_LANG, "btn.webapp_menu"), WebAppInfo(s.webapp_url)))
        except TelegramError as e:
            log.warning("the menu button was not set: %s", e)

    async def _register_commands(self) -> None:
        try:
            for lang in LANGS:
                commands = [BotCommand(c, t(lang, f"cmd.{c}")) for c in MENU]
                await self.bot.set_my_commands(commands, scope=BotCommandScopeDefault(),
                                               language_code=lang)
            commands = [BotCommand(c, t("ru", f"cmd.{c}")) for c in MENU]
            await self.bot.set_my_commands(commands, scope=BotCommandScopeDefault())
        except TelegramError as e:
            log.warning("the command menu was not registered: %s", e)

    async def shutdown(self) -> None:
        if self.webapp is not None:
            await self.webapp.stop()
            self.webapp = None
        if self.ops_server is not None:
            await self.ops_server.stop()
            self.ops_server = None
        service = self.service
        if service is not None:
            await service.close()
            await service.outbox.close()
            service.thinker.close()
            self.service = None
        if self.storage is not None:
            await self.storage.close()
            self.storage = None
        await super().shutdown()
        # PTB shuts its HTTP clients down only after a finished initialize(): when start-up
        # failed (the Bot API unreachable), ours are closed here (each shutdown is idempotent)
        for request in self.requests:
            await request.shutdown()


STORAGE_WRITES = ("append_action", "append_actions", "create_game", "update_lobby",
                  "start_game", "finish_game", "set_message_ids", "set_deadline")


def _requests(settings: Settings, probe: bool,
              ops: BotMetrics | None) -> tuple[BaseRequest, BaseRequest]:
    """The request objects for Bot API calls and for getUpdates: the HTTP client's own,
    wrapped when observed (``ops``) or measured (``probe``: the benchmark's)."""
    timeout = settings.request_timeout
    calls: BaseRequest
    updates: BaseRequest
    if settings.http_client == "aiohttp":
        calls = AiohttpRequest(connection_pool_size=256, read_timeout=timeout,
                               write_timeout=timeout, connect_timeout=timeout)
        updates = AiohttpRequest(connection_pool_size=1)
    else:
        calls = HTTPXRequest(connection_pool_size=256, read_timeout=timeout,
                             write_timeout=timeout, connect_timeout=timeout)
        updates = HTTPXRequest(connection_pool_size=1)
    if ops is not None or probe:
        calls = ObservedRequest(calls, ops=ops, probe=probe)
    if ops is not None:
        updates = ObservedRequest(updates, ops=ops)
    return calls, updates


def build_application(
    settings: Settings, *, metrics: M.Metrics | None = None, rng: random.Random | None = None,
    observe: bool | None = None,
) -> ThousandApplication:
    """The bot's application for ``settings`` (``metrics``: the benchmark's probe; ``rng``:
    seeds and lobby codes, for repeatable tests; ``observe``: keep the Prometheus metrics,
    by default when METRICS_PORT is set)."""
    if observe is None:
        observe = bool(settings.metrics_port)
    ops = BotMetrics() if observe else None
    updates = ObservedUpdates(256, ops=ops, probe=metrics)
    builder = (
        ApplicationBuilder()
        .application_class(ThousandApplication)
        .token(settings.token)
        .base_url(settings.telegram_api_url)
        .base_file_url(settings.file_url)
        .rate_limiter(AIORateLimiter(
            overall_max_rate=settings.messages_per_second,
            overall_time_period=1 if settings.messages_per_second else 0,
            group_max_rate=settings.group_messages_per_minute,
            group_time_period=60,
            max_retries=3,
        ))
        .concurrent_updates(updates)
        .job_queue(None)
    )
    if metrics is not None:
        builder = builder.update_queue(M.StampedQueue(metrics))
    requests = _requests(settings, probe=metrics is not None, ops=ops)
    builder = builder.request(requests[0]).get_updates_request(requests[1])
    app = builder.build()
    assert isinstance(app, ThousandApplication)
    app.settings = settings
    app.rng = rng
    app.storage = None
    app.service = None
    app.requests = requests
    app.ops = ops
    app.ops_server = None
    if settings.log_format == "json":
        updates.context = app.log_context
    app.webapp = None
    add_handlers(app)
    return app
