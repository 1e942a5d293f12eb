"""``GET /healthz`` and ``GET /metrics`` on their own small aiohttp server (METRICS_PORT).

``/healthz`` answers 200 ``ok`` while the bot runs and its database answers a read within
``HEALTH_TIMEOUT`` seconds, 503 with the reason otherwise; ``/metrics`` is the Prometheus
text format of the application's registry.  Both run on the bot's event loop: a stuck loop
answers neither, which is what a probe should see.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.ops.metrics import BotMetrics
from bot.ops.ports import bound_port

log = logging.getLogger(__name__)

HEALTH_TIMEOUT = 3.0  # a loaded bot (seconds of queued writes) is slow, not dead

Check = Callable[[], Awaitable[None]]  # raises when the database does not answer


class ListenError(Exception):
    """The health and metrics server could not bind its address (one line)."""


class OpsServer:
    def __init__(self, metrics: BotMetrics, check: Check, *, host: str, port: int) -> None:
        self.metrics = metrics
        self.check = check
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def _healthz(self, request: web.Request) -> web.Response:
        try:
            async with asyncio.timeout(HEALTH_TIMEOUT):
                await self.check()
        except Exception as e:  # any failure of the database is "unhealthy"
            reason = "database does not answer" if isinstance(e, TimeoutError) \
                else f"database error: {e.__class__.__name__}"
            return web.Response(status=503, text=reason + "\n")
        return web.Response(text="ok\n")

    async def _metrics(self, request: web.Request) -> web.Response:
        body = generate_latest(self.metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            raise ListenError(f"cannot listen on {self.host}:{self.port} (METRICS_LISTEN, "
                              f"METRICS_PORT): {os.strerror(e.errno) if e.errno else e}") from None
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        log.info("health and metrics on http://%s:%s/healthz and /metrics", self.host,
                 self.port)

    @property
    def bound_port(self) -> int:
        """The port actually bound (METRICS_PORT=0 in tests: a free one)."""
        assert self._runner is not None
        return bound_port(self._runner, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
