"""Observing and measuring the bot, by composition: python-telegram-bot's parts wrapped, not
subclassed.

* ``ObservedRequest(inner, ops=..., probe=...)`` is a ``BaseRequest`` that holds another
  (``HTTPXRequest`` or ``AiohttpRequest``) and passes every call on to it: each Bot API
  request is counted by method and outcome with its latency (``ops``, the Prometheus metrics
  of ``bot/ops/metrics.py``), and the first request made on behalf of an update marks the
  benchmark's probe (``probe``, ``bot/tg/metrics.py``).
* ``ObservedUpdates(n, ops=..., probe=..., context=...)`` is the application's update
  processor (PTB's point of composition for concurrent updates, as
  ``ApplicationBuilder.concurrent_updates(n)`` makes a ``SimpleUpdateProcessor(n)``): each
  update is processed in its own task with the benchmark's probe current, the log context
  of LOG_FORMAT=json set (``context``) and its processing time counted (``ops``).

The bot's application (``bot/tg/io/app.py``) and the benchmark's bare floor bot
(``bench/floor.py``) are measured alike with them.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Update
from telegram._utils.types import JSONDict, ODVInput
from telegram.ext import BaseUpdateProcessor
from telegram.request import BaseRequest, RequestData

from bot.ops.metrics import BotMetrics, method_of
from bot.tg import metrics as M


class ObservedRequest(BaseRequest):
    """``inner`` with its requests counted (``ops``) and the benchmark's probe marked
    (``probe``); everything else is ``inner``'s: its session, pool and timeouts."""

    __slots__ = ("inner", "ops", "probe")

    def __init__(self, inner: BaseRequest, *, ops: BotMetrics | None = None,
                 probe: bool = False) -> None:
        self.inner = inner
        self.ops = ops
        self.probe = probe

    def __repr__(self) -> str:
        return f"ObservedRequest({self.inner!r})"

    @property
    def read_timeout(self) -> float | None:
        return self.inner.read_timeout

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    def parse_json_payload(self, payload: bytes) -> JSONDict:  # type: ignore[override]
        return self.inner.parse_json_payload(payload)

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self.probe:
            M.mark_request()
        ops = self.ops
        if ops is None:
            return await self.inner.do_request(url, method, request_data, read_timeout,
                                               write_timeout, connect_timeout, pool_timeout)
        start = time.perf_counter()
        try:
            status, body = await self.inner.do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout,
                pool_timeout)
        except BaseException as e:
            ops.request(method_of(url), time.perf_counter() - start, error=e)
            raise
        ops.request(method_of(url), time.perf_counter() - start, status=status, body=body)
        return status, body


class ObservedUpdates(BaseUpdateProcessor):
    """Up to ``max_concurrent_updates`` updates at once, each processed with the
    benchmark's probe current (``probe``), its log context set (``context``, for a
    ``telegram.Update``) and its processing time counted (``ops``)."""

    __slots__ = ("context", "ops", "probe")

    def __init__(self, max_concurrent_updates: int, *, ops: BotMetrics | None = None,
                 probe: M.Metrics | None = None,
                 context: Callable[[Update], None] | None = None) -> None:
        super().__init__(max_concurrent_updates)
        self.ops = ops
        self.probe = probe
        self.context = context

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        # The application runs this in the update's own task: the context variables set
        # here are the handlers' (and the tasks they start inherit them).
        if self.context is not None and isinstance(update, Update):
            self.context(update)
        probe = self.probe
        token = M.current.set(probe.probe_for(update)) if probe is not None else None
        ops = self.ops
        start = time.perf_counter()
        try:
            await coroutine
        finally:
            if ops is not None:
                ops.update(update, time.perf_counter() - start)
            if token is not None:
                M.current.reset(token)

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
