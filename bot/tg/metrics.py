"""The bot's own overhead per update, measured for the benchmark (off unless asked for).

The update queue stamps every update when the updater hands it over; processing an update
runs with a ``Probe`` in a context variable; the first request that goes out while that
probe is current (in the handler, or later in the outbox on the update's behalf) records
the time from hand-over to request.  Computer thinking never runs with a probe.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from dataclasses import dataclass, field
from typing import Any, Final

current: Final[contextvars.ContextVar[Probe | None]] = contextvars.ContextVar(
    "thousand_probe", default=None
)


@dataclass(eq=False, slots=True)
class Probe:
    metrics: Metrics
    start: float
    done: bool = False

    def mark(self) -> None:
        if not self.done:
            self.done = True
            now = time.perf_counter()
            self.metrics.latencies.append(now - self.start)
            self.metrics.marked.append(now)


@dataclass(eq=False)
class Metrics:
    latencies: list[float] = field(default_factory=list)
    marked: list[float] = field(default_factory=list)  # when each latency was taken
    updates: int = 0
    handed: dict[int, float] = field(default_factory=dict)

    def probe_for(self, update: object) -> Probe:
        self.updates += 1
        start = self.handed.pop(id(update), None)
        return Probe(self, start if start is not None else time.perf_counter())


class StampedQueue(asyncio.Queue[Any]):
    """The application's update queue, remembering when each update was put in."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__()
        self.metrics = metrics

    def put_nowait(self, item: Any) -> None:
        self.metrics.handed[id(item)] = time.perf_counter()
        super().put_nowait(item)


def mark_request() -> None:
    """Called before every request the bot makes (except getUpdates)."""
    probe = current.get()
    if probe is not None:
        probe.mark()
