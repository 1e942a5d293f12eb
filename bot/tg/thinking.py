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

from bot.ai import choose_action
from bot.engine.state import Action
from bot.engine.views import TableView

log = logging.getLogger(__name__)


def _think(v: TableView, level: str, seed: int, budget: float) -> Action:
    deadline = time.monotonic() + budget
    return choose_action(v, level, seed=seed, deadline=deadline)


def quick_move(v: TableView, seed: int) -> Action:
    return choose_action(v, "random", seed=seed)


class Thinker:
    def __init__(self, *, workers: int = 0, budget: float = 1.0) -> None:
        self.workers = workers or max(1, os.cpu_count() or 1)
        self.budget = budget
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

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

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _checked(v: TableView, action: Action, seed: int) -> Action:
    if action in v.legal:
        return action
    log.error("a computer player chose %s, which is not legal; playing a quick move", action)
    return v.legal[0]
