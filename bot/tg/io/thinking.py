"""Computer moves off the event loop, with a deadline.

Level ``random`` only picks a legal action (microseconds) and runs inline; every other level
thinks in a process pool (``forkserver``: no locks inherited from this process), so the
search never holds the event loop or its GIL.  A move that does not come back in time, or
a broken pool, falls back to a quick legal move: the game always goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from bot.ai import choose_action
from bot.ai.explain import Analysis, Hint, analyse, hint
from bot.engine.state import Action, GameState
from bot.engine.views import TableView

log = logging.getLogger(__name__)


def _think(v: TableView, level: str, seed: int, budget: float) -> Action:
    deadline = time.monotonic() + budget
    return choose_action(v, level, seed=seed, deadline=deadline)


def _hint(v: TableView, seed: int, deadline: float) -> Hint:
    # time.monotonic() is the system's monotonic clock: the same in every process
    return hint(v, seed, deadline)


def _analyse(st: GameState, number: int, deadline: float) -> Analysis | bool:
    try:
        return analyse(st, number, deadline)
    except ValueError:  # the deal had no play
        return False


HINT_BOX = 1.0  # a hint is answered within this many seconds
HINT_THINK = 0.7  # of which the search may use this much (the rest: the pool, the answer)
ANALYSIS_BOX = 3.0
ANALYSIS_THINK = 2.5
CACHE_SIZE = 512  # hints and analyses kept (each cache)


class _Lru:
    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key: Hashable, value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)


def quick_move(v: TableView, seed: int) -> Action:
    return choose_action(v, "random", seed=seed)


class Thinker:
    def __init__(self, *, workers: int = 0, budget: float = 1.0) -> None:
        self.workers = workers or max(1, os.cpu_count() or 1)
        self.budget = budget
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.hints = _Lru(CACHE_SIZE)
        self.analyses = _Lru(CACHE_SIZE)

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            ctx = multiprocessing.get_context("forkserver")
            self._pool = concurrent.futures.ProcessPoolExecutor(self.workers, mp_context=ctx)
        return self._pool

    async def choose(self, v: TableView, level: str, seed: int) -> Action:
        if level == "random":
            return _checked(v, quick_move(v, seed), seed)
        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(self._executor(), _think, v, level, seed, self.budget)
            action = await asyncio.wait_for(fut, self.budget + 5.0)
        except TimeoutError:
            log.warning("a computer move took too long; playing a quick move")
            return quick_move(v, seed)
        except concurrent.futures.process.BrokenProcessPool:
            log.error("the computer players' process pool broke; starting a new one")
            self._pool = None
            return quick_move(v, seed)
        except Exception:
            log.exception("a computer player failed; playing a quick move")
            return quick_move(v, seed)
        return _checked(v, action, seed)

    async def _within(self, box: float, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in the pool, or None when it does not come back within ``box``."""
        loop = asyncio.get_running_loop()
        try:
            fut = loop.run_in_executor(self._executor(), fn, *args)
            return await asyncio.wait_for(fut, box)
        except TimeoutError:
            log.info("%s did not come back within %.1f s", fn.__name__, box)
            return None
        except concurrent.futures.process.BrokenProcessPool:
            log.error("the computer players' process pool broke; starting a new one")
            self._pool = None
            return None
        except Exception:
            log.exception("%s failed", fn.__name__)
            return None

    async def hint(self, key: Hashable, v: TableView, seed: int) -> Hint | None:
        """What ``hard`` would do in ``v`` and why (cached under ``key``: one state and
        seat); None when it does not come within ``HINT_BOX`` seconds."""
        found = self.hints.get(key)
        if isinstance(found, Hint):
            return found
        deadline = time.monotonic() + HINT_THINK
        got = await self._within(HINT_BOX, _hint, v, seed, deadline)
        if isinstance(got, Hint) and got.action in v.legal:
            self.hints.put(key, got)
            return got
        return None

    async def analysis(self, key: Hashable, st: GameState, number: int
                       ) -> Analysis | bool | None:
        """The open-card analysis of finished deal ``number`` (cached under ``key``);
        False when the deal had no play, None when it did not come in time."""
        found = self.analyses.get(key)
        if isinstance(found, Analysis | bool):
            return found
        deadline = time.monotonic() + ANALYSIS_THINK
        got = await self._within(ANALYSIS_BOX, _analyse, st, number, deadline)
        if got is False or (isinstance(got, Analysis) and got.complete):
            self.analyses.put(key, got)
        return got if isinstance(got, Analysis | bool) else None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _checked(v: TableView, action: Action, seed: int) -> Action:
    if action in v.legal:
        return action
    log.error("a computer player chose %s, which is not legal; playing a quick move", action)
    return v.legal[0]
