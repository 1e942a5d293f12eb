"""The bot's Prometheus metrics (``prometheus_client``), one registry per application.

Counted as they happen (cheap: a dict update, exposed by a collector at scrape time):
updates and presses by kind, update handling time, Bot API requests by method and outcome
with their latency, 429s and their retry-afters, storage writes' time and errors.  Read at
scrape time from the running bot (``Sources``: no cost between scrapes): outbox queue
depth and group budget waits, live games and sessions in memory, lease takeovers.
"""

from __future__ import annotations

import asyncio
import json
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString
from telegram import Update
from telegram.error import NetworkError, TimedOut

T = TypeVar("T")

# the callback data kinds of bot/tg/view/callbacks.py are short; anything else is "other"
_PRESS_KIND_MAX = 8
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def update_kind(update: object) -> str:
    """A bounded label for an update: command, message, callback_query, ..."""
    if not isinstance(update, Update):
        return "other"
    if update.callback_query is not None:
        return "callback_query"
    msg = update.message or update.edited_message
    if msg is not None:
        text = msg.text or ""
        return "command" if text.startswith("/") else "message"
    if update.my_chat_member is not None:
        return "my_chat_member"
    if update.chat_member is not None:
        return "chat_member"
    return "other"


def press_kind(data: str | None) -> str:
    """The kind of a button press from its callback data (``g12:3:a:...`` -> ``a``)."""
    if not data:
        return "none"
    parts = data.split(":", 3)
    kind = parts[2] if len(parts) > 2 and parts[0][:1] == "g" else parts[0]
    if not kind or len(kind) > _PRESS_KIND_MAX or not kind.isalnum():
        return "other"
    return kind


_STATUS = {200: "ok", 400: "bad_request", 401: "unauthorized", 403: "forbidden",
           404: "not_found", 409: "conflict", 429: "retry_after"}


def _outcome(status: int, error: BaseException | None) -> str:
    """A request's outcome: its HTTP status's name (``server_error`` for 5xx, the method
    never ran or is unknown), or ``timeout`` / ``network_error`` (no answer), ``cancelled``."""
    if error is not None:
        if isinstance(error, TimedOut):
            return "timeout"
        if isinstance(error, NetworkError):
            return "network_error"
        if isinstance(error, asyncio.CancelledError):
            return "cancelled"
        return "exception"
    if status >= 500:
        return "server_error"
    return _STATUS.get(status, "other")


def _retry_after(body: bytes) -> float:
    """The ``parameters.retry_after`` of a 429 answer (0 when unreadable)."""
    try:
        value = json.loads(body)["parameters"]["retry_after"]
        return float(value)
    except (ValueError, KeyError, TypeError):
        return 0.0


@dataclass
class Sources:
    """What is read from the running bot at scrape time (each returns a number)."""

    queue_depth: Callable[[], float] = lambda: 0.0
    budget_waits: Callable[[], float] = lambda: 0.0
    budget_wait_seconds: Callable[[], float] = lambda: 0.0
    live_games: Callable[[], float] = lambda: 0.0
    sessions: Callable[[], float] = lambda: 0.0
    lease_takeovers: Callable[[], float] = lambda: 0.0


class _Live(Collector):
    def __init__(self, sources: Sources) -> None:
        self.sources = sources

    def collect(self) -> Iterable[Metric]:
        s = self.sources
        yield GaugeMetricFamily("thousand_outbox_queue_depth",
                                "Messages waiting in the outbox (slots to send or edit).",
                                value=s.queue_depth())
        yield CounterMetricFamily("thousand_outbox_budget_waits",
                                  "Times a group's outbox waited for its request budget.",
                                  value=s.budget_waits())
        yield CounterMetricFamily("thousand_outbox_budget_wait_seconds",
                                  "Seconds groups' outboxes waited for their budget.",
                                  value=s.budget_wait_seconds())
        yield GaugeMetricFamily("thousand_live_games", "Games being played, in memory.",
                                value=s.live_games())
        yield GaugeMetricFamily("thousand_sessions", "Game sessions held in memory.",
                                value=s.sessions())
        yield CounterMetricFamily("thousand_lease_takeovers",
                                  "Games this process took over from another one "
                                  "(multi-process mode).", value=s.lease_takeovers())


class _Counts:
    """A labelled counter kept as a plain dict: counting is a dict update (no lock, no
    value objects), on the event loop's thread where everything counted happens."""

    __slots__ = ("doc", "labels", "name", "values")

    def __init__(self, name: str, doc: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.doc, self.labels = name, doc, labels
        self.values: dict[tuple[str, ...], float] = {} if labels else {(): 0.0}

    def inc(self, key: tuple[str, ...] = (), amount: float = 1.0) -> None:
        v = self.values
        v[key] = v.get(key, 0.0) + amount

    def family(self) -> Metric:
        f = CounterMetricFamily(self.name, self.doc, labels=self.labels)
        for key, value in sorted(self.values.items()):
            f.add_metric(list(key), value)
        return f


class _Latency:
    """A labelled histogram kept as plain lists (one count per bucket, and the sum)."""

    __slots__ = ("bounds", "doc", "edges", "labels", "name", "values")

    def __init__(self, name: str, doc: str, labels: tuple[str, ...] = (),
                 bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.name, self.doc, self.labels, self.bounds = name, doc, labels, bounds
        self.edges = (*map(floatToGoString, bounds), "+Inf")  # the buckets' "le" labels
        self.values: dict[tuple[str, ...], list[float]] = {}
        if not labels:  # shown from the start, as 0
            self.observe((), 0.0, count=0)

    def observe(self, key: tuple[str, ...], seconds: float, count: int = 1) -> None:
        row = self.values.get(key)
        if row is None:  # a count per bucket (+Inf last), then the sum
            row = self.values[key] = [0.0] * (len(self.edges) + 1)
        row[bisect_left(self.bounds, seconds)] += count  # the first bound >= seconds
        row[-1] += seconds

    def family(self) -> Metric:
        f = HistogramMetricFamily(self.name, self.doc, labels=self.labels)
        for key, row in sorted(self.values.items()):
            buckets, total = [], 0.0
            for edge, n in zip(self.edges, row[:-1], strict=True):
                total += n
                buckets.append((edge, total))
            f.add_metric(list(key), buckets, sum_value=row[-1])
        return f


class _Counted(Collector):
    def __init__(self, metrics: list[_Counts | _Latency]) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[Metric]:
        for m in self.metrics:
            yield m.family()


@dataclass(eq=False)
class BotMetrics:
    """The registry and the counted metrics of one application.

    What is counted per update (the update, its Bot API requests, its stored writes) is
    kept in plain dicts and lists (``_Counts``, ``_Latency``) and turned into metric
    families by a collector at scrape time: ``prometheus_client``'s own ``Counter`` and
    ``Histogram`` take a lock and update value objects on every count (about ten counts
    an update; ``docs/performance.md``, round 3's fifth stop, has what each way costs)."""

    registry: CollectorRegistry = field(default_factory=lambda: CollectorRegistry(
        auto_describe=True))
    sources: Sources = field(default_factory=Sources)

    def __post_init__(self) -> None:
        self.updates = _Counts("thousand_updates", "Updates handled, by kind.", ("kind",))
        self.presses = _Counts("thousand_presses", "Button presses, by kind.", ("kind",))
        self.update_seconds = _Latency("thousand_update_seconds", "Time to handle one update.")
        self.requests = _Counts("thousand_bot_api_requests",
                                "Bot API requests, by method and outcome.",
                                ("method", "outcome"))
        self.request_seconds = _Latency("thousand_bot_api_request_seconds",
                                        "Bot API request latency, by method.", ("method",))
        self.flood = _Counts("thousand_bot_api_429",
                             "Bot API answers 429 (flood control), by method.", ("method",))
        self.retry_after = _Counts("thousand_bot_api_retry_after_seconds",
                                   "Seconds of Retry-After the Bot API asked for.")
        self.storage_seconds = _Latency("thousand_storage_write_seconds",
                                        "Time of a stored write (a move: its commit).", ("op",))
        self.storage_errors = _Counts("thousand_storage_errors", "Stored writes that failed.",
                                      ("op",))
        r = self.registry
        r.register(_Counted([self.updates, self.presses, self.update_seconds, self.requests,
                             self.request_seconds, self.flood, self.retry_after,
                             self.storage_seconds, self.storage_errors]))
        r.register(_Live(self.sources))
        ProcessCollector(registry=r)  # process_cpu_seconds_total, memory, open files

    def update(self, update: object, seconds: float) -> None:
        kind = update_kind(update)
        self.updates.inc((kind,))
        if kind == "callback_query" and isinstance(update, Update) and update.callback_query:
            self.presses.inc((press_kind(update.callback_query.data),))
        self.update_seconds.observe((), seconds)

    def request(self, method: str, seconds: float, *, status: int = 0, body: bytes = b"",
                error: BaseException | None = None) -> None:
        """One Bot API request: its method, how long it took, its answer or its error."""
        key = (method,)
        self.requests.inc((method, _outcome(status, error)))
        self.request_seconds.observe(key, seconds)
        if status == 429:
            self.flood.inc(key)
            self.retry_after.inc((), _retry_after(body))

    def timed(self, op: str, fn: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
        """``fn`` (a storage write), timed and its errors counted."""
        key = (op,)
        observe = self.storage_seconds.observe
        errors = self.storage_errors
        clock = time.perf_counter

        async def timed(*args: Any, **kwargs: Any) -> T:
            start = clock()
            try:
                result = await fn(*args, **kwargs)
            except BaseException:
                errors.inc(key)
                raise
            observe(key, clock() - start)
            return result

        return timed


def method_of(url: str) -> str:
    """The Bot API method of a request URL (never the token in front of it)."""
    return url.rsplit("/", 1)[-1][:40] or "?"
