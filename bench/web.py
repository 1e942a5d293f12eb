"""``python -m bot bench web``: what open Mini App pages cost the bot.

One process runs the Mini App's real server (``bot.webapp.server``) on a port of its own
over ``--games`` games of the real engine (a stand-in for the tables: each move is
``engine.apply`` and then "game G changed", the moment a move is stored); another process
opens ``--pages`` WebSockets (three seats a game, each page of its own seat) and reads.
The moves are made at ``--rate`` a second, first with every page open, then the same
moves again with no page.  Printed: CPU of the server's process per move with pages and
without (``time.process_time``), the time from "changed" to each page's send having
returned (p50, p95, max; on 127.0.0.1 the page has it then), and memory per open page
(the server's resident memory after the pages opened, less before, over their number).

``--open N``: the same on the real application instead (``bench/web_real.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import multiprocessing as mp
import os
import random
import statistics
import time
from typing import Any

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import Rules
from bot.engine.state import GameState, Phase
from bot.engine.views import view
from bot.webapp.auth import SessionKey, WebUser
from bot.webapp.port import Changed, Intent, Refusal, SeatPlace, SeatView
from bot.webapp.server import WebAppServer

TOKEN = "123456:" + "b" * 35


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class BenchPort:
    """``TablePort`` over engine states in memory (no storage, no Telegram)."""

    def __init__(self, games: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.states: dict[int, GameState] = {
            g: new_game(Rules(), seed + g) for g in range(1, games + 1)}
        self.names = ("Анна", "Борис", "Вера")
        self.listeners: list[Changed] = []

    def on_change(self, listener: Changed) -> None:
        self.listeners.append(listener)

    def lang_for(self, user_id: int, language_code: str | None) -> str:
        return "ru"

    def games_of(self, user_id: int) -> list[int]:
        return [user_id // 10]

    async def seat_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        st = self.states.get(game_id)
        seat = user_id % 10 - 1
        if st is None or not 0 <= seat < st.n:
            return Refusal("not_seated", "—")
        place = SeatPlace(game_id, self.names, (False, False, False), False, False, None)
        return SeatView(view(st, seat), place, "ru")

    async def watch_view(self, game_id: int, user_id: int) -> SeatView | Refusal:
        return Refusal("not_member", "—")

    async def act(self, game_id: int, user: WebUser, intent: Intent,
                  version: int) -> Refusal | str | None:
        return Refusal("unknown", "—")

    def move(self) -> None:
        g = self.rng.randrange(1, len(self.states) + 1)
        st = self.states[g]
        if st.phase == Phase.GAME_OVER:
            st = new_game(Rules(), self.rng.randrange(10**9))
        st = apply(st, self.rng.choice(legal_actions(st)), st.to_act)
        self.states[g] = st
        for listener in self.listeners:
            listener(g, st.version)


def _pages(port: int, games: int, pages: int, ready: Any, stop: Any) -> None:
    """The pages' process: ``pages`` sockets, each reading everything sent to it."""
    import aiohttp

    keys = SessionKey.for_token(TOKEN)

    async def page(http: aiohttp.ClientSession, i: int) -> None:
        game, seat = i // 3 % games + 1, i % 3
        ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws", max_msg_size=0)
        token = keys.make(game * 10 + seat + 1, "ru", time.time())
        await ws.send_json({"type": "hello", "token": token, "game": game})
        async for _ in ws:
            pass

    async def run() -> None:
        conn = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=conn) as http:
            tasks = []
            for i in range(pages):
                tasks.append(asyncio.create_task(page(http, i)))
                if i % 50 == 49:
                    await asyncio.sleep(0.05)
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.1)
            for t in tasks:
                t.cancel()

    asyncio.run(run())


async def _moves(bport: BenchPort, server: WebAppServer, moves: int, rate: float) -> float:
    """Make ``moves`` moves at ``rate`` a second; the server's CPU seconds they took
    (until every page has been sent the last one)."""
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    for i in range(moves):
        bport.move()
        due = start + (i + 1) / rate
        wait = due - time.perf_counter()
        await asyncio.sleep(max(0.0, wait))
    for _ in range(500):  # the last pushes leave
        if not server.tasks and all(not p.backlog and p.writer is None
                                    for ps in server.pages.values() for p in ps):
            break
        await asyncio.sleep(0.01)
    return time.process_time() - cpu


async def _run(args: argparse.Namespace) -> None:
    bport = BenchPort(args.games, args.seed)
    server = WebAppServer(bport, TOKEN, host="127.0.0.1", listen_port=0)
    await server.start()
    ctx = mp.get_context("spawn")
    ready, stop = ctx.Event(), ctx.Event()
    proc = ctx.Process(target=_pages, args=(server.bound_port, args.games, args.pages,
                                            ready, stop), daemon=True)
    try:
        gc.collect()
        before = _rss()
        proc.start()
        while not ready.is_set() or sum(len(x) for x in server.pages.values()) < args.pages:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        gc.collect()
        per_page = (_rss() - before) / max(1, args.pages)
        server.measure = True
        cpu_with = await _moves(bport, server, args.moves, args.rate)
        server.measure = False
        delivered = sorted(server.delivered)
        stop.set()
        proc.join(10)
        while server.pages:
            await asyncio.sleep(0.05)
        cpu_without = await _moves(bport, server, args.moves, args.rate)
    finally:
        stop.set()
        if proc.is_alive():
            proc.terminate()
        await server.stop()
    q = statistics.quantiles(delivered, n=100) if len(delivered) > 1 else [0.0] * 99
    print(f"games {args.games}, pages {args.pages}, moves {args.moves} at {args.rate:g}/s")
    print(f"CPU per move: {cpu_with / args.moves * 1000:.2f} ms with the pages open, "
          f"{cpu_without / args.moves * 1000:.2f} ms without")
    print(f"stored -> sent to each page: {len(delivered)} sends, p50 {q[49] * 1000:.1f} ms, "
          f"p95 {q[94] * 1000:.1f} ms, max {delivered[-1] * 1000 if delivered else 0:.1f} ms")
    print(f"memory per open page: {per_page / 1024:.1f} KiB")
    print(f"pages dropped: {server.metrics.dropped:g}")


def main(argv: list[str]) -> int:
    if any(a == "--open" or a.startswith("--open=") for a in argv):  # the real application
        from bench.web_real import main as real

        return real(argv)
    parser = argparse.ArgumentParser(prog="python -m bot bench web", description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--pages", type=int, default=600)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--rate", type=float, default=200.0, help="moves a second")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    asyncio.run(_run(args))
    return 0
