"""The PTB application, built the same way for ``python -m bot``, the tests and the benchmark.

``build_application(settings)`` returns an application whose ``initialize()`` opens the
database, registers every game in progress (rebuilt when first touched or by a background
task, timers and computer moves re-armed: ``restore.py``) and
registers the command menu, and whose ``shutdown()`` stops the games' tasks and closes it.
"""

from __future__ import annotations

import importlib.util
import logging
import random
import sys
from typing import Any

from telegram import BotCommand, BotCommandScopeDefault
from telegram.error import TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder
from telegram.request import BaseRequest, HTTPXRequest

from bot.config import Settings
from bot.i18n import LANGS, t
from bot.tg import metrics as M
from bot.tg.io.aiohttp_request import AiohttpRequest
from bot.tg.io.coord import SharedCoordinator, SharedSends, owner_name
from bot.tg.io.handlers import add_handlers
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.service import GameService
from storage import Backend, open_storage

log = logging.getLogger(__name__)

# httpcore runs ``import sniffio`` before every request; without sniffio installed each of
# those imports searches sys.path anew (tens of microseconds, far more under pytest).  A
# None entry makes the import fail at once, and httpcore then assumes asyncio — which it is.
if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
    sys.modules["sniffio"] = None  # type: ignore[assignment]

MENU = ("newgame", "score", "export", "rules", "table", "lang", "help", "stats", "top", "leave",
        "stop")


class MeasuredApplication(Application[Any, Any, Any, Any, Any, Any]):
    """An application whose updates carry the benchmark's probe (when ``metrics`` is set):
    the bot's own and the bare floor bot's (``bench/floor.py``) are measured alike."""

    metrics: M.Metrics | None = None

    async def process_update(self, update: object) -> None:
        if self.metrics is None:
            await super().process_update(update)
            return
        token = M.current.set(self.metrics.probe_for(update))
        try:
            await super().process_update(update)
        finally:
            M.current.reset(token)


class ThousandApplication(MeasuredApplication):
    """Owns the storage, the outbox, the computer players and the game service."""

    settings: Settings
    rng: random.Random | None
    storage: Backend | None
    service: GameService | None
    requests: tuple[BaseRequest, ...]

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
        outbox = Outbox(self.bot, group_per_minute=s.group_messages_per_minute)
        thinker = Thinker(workers=s.computer_workers, budget=s.computer_think_seconds)
        coord = None
        if s.database_url:  # several processes may share the database (bot/tg/io/coord.py)
            owner = owner_name(s.instance_name)
            coord = SharedCoordinator(self.storage, owner)
            outbox.shared = SharedSends(self.storage, owner)
        service = GameService(
            self.storage, outbox, thinker, bot=self.bot, turn_timeout=s.turn_timeout,
            move_delay=s.computer_move_delay, computer_level=s.computer_level, rng=self.rng,
            lobby_ttl=s.lobby_ttl, game_ttl=s.game_ttl, coord=coord)
        service.config.bot_username = self.bot.username
        self.service = service
        self.bot_data["service"] = service
        await self._register_commands()
        restored = await service.start()
        log.info("bot @%s ready, %d games in progress (rebuilt when touched, or in the "
                 "background)", self.bot.username, restored)

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


class _Measured(BaseRequest):
    """Marks the first request made on behalf of an update (benchmark only)."""

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        M.mark_request()
        return await super().do_request(*args, **kwargs)  # type: ignore[safe-super]


class MeasuredRequest(_Measured, HTTPXRequest):
    """PTB's default request class, measured (the bench floor's, and HTTP_CLIENT=httpx)."""


class MeasuredAiohttpRequest(_Measured, AiohttpRequest):
    """``AiohttpRequest``, measured (HTTP_CLIENT=aiohttp)."""


def _requests(settings: Settings, measured: bool) -> tuple[BaseRequest, BaseRequest] | None:
    """The request objects for Bot API calls and for getUpdates (None: PTB's defaults)."""
    if settings.http_client == "aiohttp":
        cls = MeasuredAiohttpRequest if measured else AiohttpRequest
        return cls(connection_pool_size=256), AiohttpRequest(connection_pool_size=1)
    if measured:
        return MeasuredRequest(connection_pool_size=256), HTTPXRequest(connection_pool_size=1)
    return None


def build_application(
    settings: Settings, *, metrics: M.Metrics | None = None, rng: random.Random | None = None
) -> ThousandApplication:
    """The bot's application for ``settings`` (``metrics``: the benchmark's probe; ``rng``:
    seeds and lobby codes, for repeatable tests)."""
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
        .concurrent_updates(256)
        .job_queue(None)
    )
    if metrics is not None:
        builder = builder.update_queue(M.StampedQueue(metrics))
    requests = _requests(settings, measured=metrics is not None)
    if requests is not None:
        builder = builder.request(requests[0]).get_updates_request(requests[1])
    app = builder.build()
    assert isinstance(app, ThousandApplication)
    app.settings = settings
    app.metrics = metrics
    app.rng = rng
    app.storage = None
    app.service = None
    app.requests = requests or ()
    add_handlers(app)
    return app
