"""``python -m bot bench bot``: the real bot against the fake Bot API server, many solo games.

The fake server and the simulated people run in a child process (so their work does not
count as the bot's); the bot runs here, built by ``build_application`` exactly as
``python -m bot`` builds it, with ``COMPUTER_MOVE_DELAY=0`` and a database in a temporary
directory.  Each simulated person sends ``/newgame`` in private and then presses one of the
buttons of their hand message as soon as it shows a new version, until they pressed
``--presses`` times (a finished game is followed by a new one).

Printed: the bot's own overhead per update — from the moment the updater hands the update
over to the moment the first request on its behalf leaves (p50/p95; computer thinking is not
in it: computer moves are made by separate tasks after the answer), over the whole run and
once everybody is playing (after ``--arrive`` + 5 s: the burst of ``/newgame`` left out) —
updates handled per second, the storage writes per stored move (every write of the
storage, and those the tables' owner made: ``bot/tg/rooms/owner.py``; a person's press and
the computers' replies shown with it are one write), and the peak memory (RSS) of the
bot's process.  Needs the
source checkout: the fake server lives in ``tests/fakeapi``.

``--open N``: N more solo games, open but idle beside the ``--games`` in play — each
waiting for its person, untouched for two hours — written into the database (by a child
process, so its memory is not the bot's) before the bot starts.  The bot starts on them as
after a restart: an idle game waiting for a person stays out of memory (``IDLE_EVICT_AFTER``,
``bot/tg/rooms/restore.py``) until it is touched, as a game evicted while the bot ran does.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import pstats
import random
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import load_settings
from bot.tg import metrics as M


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[k]


# ---------------------------------------------------------------------------- the child


def _child(conn: multiprocessing.connection.Connection, games: int, presses: int,
           seconds: float, seed: int, think: float, arrive: float) -> None:
    try:
        asyncio.run(_people(conn, games, presses, seconds, seed, think, arrive))
    except BaseException as e:  # report anything to the parent
        conn.send({"error": repr(e)})
        raise


async def _people(conn: multiprocessing.connection.Connection, games: int, presses: int,
                  seconds: float, seed: int, think: float, arrive: float) -> None:
    from tests.fakeapi import FakeTelegramServer, PressedQuery
    from tests.fakeapi.server import JSONDict, RecordedRequest

    class Server(FakeTelegramServer):
        """Wakes exactly the simulated person whose chat changed (not everybody)."""

        def __init__(self) -> None:
            super().__init__(callback_answer_timeout=60.0)
            self.poll_interval = 1.0
            self.events: dict[int, asyncio.Event] = {}

        def _wake(self, chat_id: object) -> None:
            if isinstance(chat_id, int) and chat_id in self.events:
                self.events[chat_id].set()

        async def _send_message(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
            try:
                return await super()._send_message(params, rec)
            finally:
                self._wake(rec.chat_id)

        async def _edit_message_text(self, params: JSONDict,
                                     rec: RecordedRequest) -> JSONDict | bool:
            try:
                return await super()._edit_message_text(params, rec)
            finally:
                self._wake(rec.chat_id)

        async def _answer_callback_query(self, params: JSONDict, rec: RecordedRequest) -> bool:
            try:
                return await super()._answer_callback_query(params, rec)
            finally:
                self._wake(rec.chat_id)

    server = Server()
    async with server:
        conn.send({"token": server.token, "base_url": server.base_url})
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, conn.recv)  # the bot is polling
        rng = random.Random(seed)
        latencies: list[float] = []
        shown: list[float] = []
        counts = {"presses": 0, "games": 0, "timeouts": 0, "refused": 0}
        deadline = loop.time() + seconds

        async def until(user_id: int, cond: Callable[..., Any], *args: Any) -> Any:
            ev = server.events[user_id]
            end = min(loop.time() + 60.0, deadline)
            while True:
                value = cond(*args)
                if value:
                    return value
                ev.clear()
                value = cond(*args)
                if value:
                    return value
                left = end - loop.time()
                if left <= 0:
                    return None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ev.wait(), left)

        def offer(uid: int, game: int, pressed: int) -> tuple[int, str, int, int] | None:
            """The newest message offering buttons of a newer version (or the game's end)."""
            messages = server.chat(uid).bot_messages()
            for msg in reversed(messages[-3:]):
                datas = [b.callback_data for b in msg.all_buttons  # moves, not 💡/🔍
                         if b.callback_data and ":a:" in b.callback_data]
                if not datas:
                    continue
                parts = datas[0].split(":")
                g, v = int(parts[0][1:]), int(parts[1])
                if g != game or v > pressed:
                    return msg.message_id, rng.choice(datas), g, v
            if any("🏆" in (m.text or "") for m in messages[-4:]):  # the game is over
                return (-1, "", -1, -1)
            return None

        def more_messages(uid: int, count: int) -> bool:
            return len(server.chat(uid).bot_messages()) > count

        def changed(uid: int, message_id: int, edits: int, count: int) -> bool:
            return (server.message(uid, message_id).edit_count > edits
                    or more_messages(uid, count))

        def answered(q: PressedQuery) -> bool:
            return q.answer is not None

        async def person(i: int) -> None:
            uid = 10_000 + i
            user = server.add_user(uid, f"P{i}")
            server.events[uid] = asyncio.Event()
            pressed, game = -1, -1
            await asyncio.sleep(rng.uniform(0, arrive))  # people come over a few seconds
            await server.send_text(user, user, "/newgame 3")
            done = 0
            while done < presses and loop.time() < deadline:
                found = await until(uid, offer, uid, game, pressed)
                if found is None:
                    if loop.time() < deadline:
                        counts["timeouts"] += 1
                    return
                message_id, data, g, v = found
                if message_id < 0:  # the game is over: another one
                    counts["games"] += 1
                    count = len(server.chat(uid).bot_messages())
                    await server.send_text(user, user, "/newgame 3")
                    await until(uid, more_messages, uid, count)
                    continue
                game, pressed = g, v
                if think:
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                shown_now = server.message(uid, message_id)
                if shown_now.deleted or not shown_now.find_buttons(data=data):
                    continue  # the message changed while the person looked: look again
                edits = server.message(uid, message_id).edit_count
                count = len(server.chat(uid).bot_messages())
                q: PressedQuery = server.press_nowait(user, uid, message_id, data)
                if not await until(uid, answered, q) or q.answer is None:
                    if loop.time() < deadline:
                        counts["timeouts"] += 1
                    return
                latencies.append(q.answer.latency)
                if await until(uid, changed, uid, message_id, edits, count):
                    shown.append(loop.time() - q.pressed_at)
                if q.answer.text:
                    counts["refused"] += 1
                counts["presses"] += 1
                done += 1

        started = loop.time()
        cpu0 = time.process_time()
        first = len(server.requests)  # the bot's setup (getMe, setMyCommands) is not counted
        await asyncio.gather(*(person(i) for i in range(games)))
        elapsed = loop.time() - started
        cpu = time.process_time() - cpu0
        kinds = Counter(r.method for r in server.requests[first:])
        conn.send({
            "elapsed": elapsed,
            "cpu": cpu,
            "answer_p50": _percentile(latencies, 0.5),
            "answer_p95": _percentile(latencies, 0.95),
            "shown_p50": _percentile(shown, 0.5),
            "shown_p95": _percentile(shown, 0.95),
            "requests": len(server.requests),
            "kinds": dict(kinds),
            "violations": len(server.violations),
            "not_modified": len(server.not_modified),
            "errors": len(server.errors),
            **counts,
        })
        await loop.run_in_executor(None, conn.recv)  # the bot stopped: the server may go


# ---------------------------------------------------------------------------- the bot


class GcPauses:
    """The garbage collector's pauses in this process while a phase runs (``gc.callbacks``):
    the event loop stands still for each of them."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self._start)

    def start(self) -> GcPauses:
        gc.callbacks.append(self)
        return self

    def stop(self) -> None:
        gc.callbacks.remove(self)

    def line(self) -> str:
        return "; ".join(
            f"gen{g} {len(v)} ({sum(v) * 1000:.0f} ms in all, the longest "
            f"{max(v, default=0.0) * 1000:.1f} ms)" for g, v in self.pauses.items())


@dataclass
class Phase:
    """One bot against its own fake server and simulated people."""

    name: str
    result: dict[str, Any]
    metrics: M.Metrics
    elapsed: float
    cpu: float  # the whole process (every thread: the event loop's, aiosqlite's, ...)
    main_cpu: float  # the main thread only (the event loop)
    gc: GcPauses = field(default_factory=GcPauses)
    threads: str = ""  # CPU per update of each thread (_threads_line)
    writes: Counter[str] = field(default_factory=Counter)  # storage writes by method
    owner_writes: int = 0  # of them, the tables' owner's (moves, records, message ids, ...)
    moves: int = 0  # moves stored (a person's, a computer's)

    @property
    def updates(self) -> int:
        return max(1, self.metrics.updates)

    @property
    def cpu_per_update(self) -> float:
        return self.cpu / self.updates

    def bot_requests(self) -> dict[str, int]:
        """Requests by kind, getUpdates left out, most frequent first."""
        kinds: dict[str, int] = self.result["kinds"]
        return dict(sorted(((k, n) for k, n in kinds.items() if k != "getUpdates"),
                           key=lambda kn: (-kn[1], kn[0])))

    def ok(self) -> bool:
        return bool(self.result["violations"] == 0 and self.result["timeouts"] == 0)


AppFactory = Callable[[str, str, M.Metrics, Path], Any]


WRITES = ("upsert_chat", "set_chat_language", "set_default_rules", "migrate_chat",
          "upsert_user", "set_user_language", "mark_started", "mark_blocked", "create_game",
          "update_lobby", "start_game", "cancel_lobby", "append_action", "append_actions",
          "set_message_ids", "set_seats", "set_deadline", "finish_game", "expire_game",
          "mark_broken", "record_game_result")
"""The storage's methods that write (``storage.Backend``)."""


def _count_writes(storage: Any) -> Counter[str]:
    """Count the calls of every write of ``storage`` from now on (its methods wrapped on
    the object itself: the rooms look them up when they call)."""
    seen: Counter[str] = Counter()

    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            return await fn(*args, **kwargs)
        return call

    for name in WRITES:
        setattr(storage, name, counted(name, getattr(storage, name)))
    return seen


def _thread_times() -> dict[int, tuple[float, float]]:
    """Each live thread of this process: (user, system) CPU seconds, from Linux's
    /proc/self/task (empty elsewhere)."""
    tick = 100.0
    with contextlib.suppress(AttributeError, ValueError, OSError):
        tick = float(os.sysconf("SC_CLK_TCK"))
    out: dict[int, tuple[float, float]] = {}
    with contextlib.suppress(OSError):
        for tid in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(f"/proc/self/task/{tid}/stat").read_text()
                fields = stat[stat.rindex(")") + 2:].split()
                out[int(tid)] = (int(fields[11]) / tick, int(fields[12]) / tick)
    return out


def _threads_line(before: dict[int, tuple[float, float]], updates: int) -> str:
    """CPU per update of each thread since ``before``, by its Python name, user + system."""
    names = {t.native_id: t.name for t in threading.enumerate()}
    main = threading.main_thread().native_id
    parts = []
    for tid, (user, system) in sorted(_thread_times().items()):
        u0, s0 = before.get(tid, (0.0, 0.0))
        du, ds = user - u0, system - s0
        if du + ds <= 0:
            continue
        name = "main" if tid == main else names.get(tid, f"thread {tid}")
        parts.append(f"{name} {(du + ds) / updates * 1000:.2f} ms "
                     f"(user {du / updates * 1000:.2f}, system {ds / updates * 1000:.2f})")
    return "; ".join(parts) or "not available"


OPEN_USERS = 5_000_000  # the people of the idle open games (--open): their user ids


def _seed_child(conn: multiprocessing.connection.Connection, path: str, n: int,
                seed: int) -> None:
    try:
        conn.send(asyncio.run(_seed_open(path, n, seed)))
    except BaseException as e:
        conn.send({"error": repr(e)})
        raise


async def _seed_open(path: str, n: int, seed: int) -> dict[str, Any]:
    """``--open``: ``n`` solo games of three, dealt, their person to bid first, stored as
    the bot stores them, then made two hours old."""
    import sqlite3

    from bot.engine.game import new_game
    from bot.engine.rules import Rules
    from bot.tg.model import SeatInfo, seats_json, snapshot
    from storage import Storage

    started = time.perf_counter()
    rules = Rules()
    rules_json = rules.model_dump_json()
    rng = random.Random(seed)
    async with Storage.open(path) as store:
        for i in range(n):
            uid = OPEN_USERS + i
            while True:
                game_seed = rng.getrandbits(62)
                state = new_game(rules, game_seed)
                if state.to_act == 0:
                    break
            seats = seats_json([SeatInfo("human", uid, f"O{i}", "hard"),
                                SeatInfo("computer", 0, "Вера", "random"),
                                SeatInfo("computer", 0, "Глеб", "random")])
            await store.upsert_chat(uid, "private", language="ru")
            gid = await store.create_game(uid, uid, rules=rules_json, seed=game_seed,
                                          seats=seats)
            await store.start_game(gid, 0, snapshot=snapshot(state), deadline=None,
                                   seats=seats, rules=rules_json)
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE games SET updated = updated - 7200,"
                   " human_moved = human_moved - 7200")
    db.close()
    return {"games": n, "seconds": time.perf_counter() - started}


def _seed(path: Path, n: int, seed: int) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_seed_child, args=(child, str(path), n, seed), daemon=True)
    proc.start()
    got: dict[str, Any] = parent.recv()
    proc.join(30)
    return got


def _project_app(args: argparse.Namespace) -> AppFactory:
    def make(token: str, base_url: str, metrics: M.Metrics, tmp: Path) -> Any:
        import bot.tg.io.app as app_module
        from bot.tg.io.app import build_application

        if not args.gc_freeze:  # as if frozen already: start-up stays in the collector's view
            app_module._frozen = True

        if args.open:
            if args.database_url:
                raise SystemExit("bench bot: --open writes a SQLite database; "
                                 "not with --database-url")
            seeded = _seed(tmp / "bench.sqlite3", args.open, args.seed + 7)
            if "error" in seeded:
                raise SystemExit(f"bench bot: writing the open games failed: "
                                 f"{seeded['error']}")
            print(f"  {seeded['games']} idle open games written in "
                  f"{seeded['seconds']:.0f} s (not timed)")

        settings = load_settings(
            telegram_bot_token=token, telegram_api_url=base_url,
            database_path=str(tmp / "bench.sqlite3"), database_url=args.database_url,
            computer_move_delay=args.computer_delay,
            computer_level=args.level, messages_per_second=args.messages_per_second,
            http_client=args.http, log_level="WARNING",
            metrics_port=_free_port() if args.metrics else 0)
        return build_application(settings, metrics=metrics, rng=random.Random(args.seed))

    return make


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _scrape(port: int, every: float, seen: dict[str, int]) -> None:
    """Prometheus's part (``--metrics``): GET /metrics and /healthz every ``every`` s, from
    this process (so the client's own CPU counts against the bot: a pessimistic figure)."""
    import aiohttp

    async with aiohttp.ClientSession() as http:
        while True:
            await asyncio.sleep(every)
            async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
                seen["bytes"] = len(await r.read())
            async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
                seen["healthy" if r.status == 200 else "unhealthy"] += 1
            seen["scrapes"] += 1


def _metrics_cost(per_update_ms: float, updates_per_s: float, requests_per_update: float,
                  every: float) -> str:
    """``--metrics``: the metrics' own CPU, measured apart from the run's noise (a loop of
    the counting a handled update does, and the rendering of a scrape)."""
    from prometheus_client import generate_latest
    from telegram import CallbackQuery, Update, User

    from bot.ops.metrics import BotMetrics

    m = BotMetrics()
    update = Update(1, callback_query=CallbackQuery("q", User(1, "a", False), "i",
                                                    data="g12:3:a:h5"))

    async def write() -> None:
        return None

    timed = m.timed("append_action", write)
    n = 50000
    t = time.process_time()
    for _ in range(n):
        m.update(update, 0.001)
        m.request("editMessageText", 0.01, status=200)
    both = (time.process_time() - t) / n

    async def writes() -> float:
        t = time.process_time()
        for _ in range(n):
            await timed()
        timed_cost = time.process_time() - t
        t = time.process_time()
        for _ in range(n):
            await write()
        return (timed_cost - (time.process_time() - t)) / n

    store = asyncio.run(writes())
    t = time.process_time()
    for _ in range(n):
        m.request("editMessageText", 0.01, status=200)
    request = (time.process_time() - t) / n
    per_update = both + (requests_per_update - 1) * request + store
    t = time.process_time()
    for _ in range(500):
        generate_latest(m.registry)
    scrape = (time.process_time() - t) / 500
    share = per_update * 1000 / per_update_ms
    scraping = scrape / max(every, 1e-9) / max(updates_per_s, 1e-9) * 1000 / per_update_ms
    return (f"  the metrics' own CPU, measured apart: {per_update * 1e6:.1f} µs per update "
            f"(the update, {requests_per_update:.2f} requests, a stored move) = {share:.2%} of "
            f"{per_update_ms:.2f} ms; a scrape {scrape * 1000:.2f} ms, every {every:g} s "
            f"at {updates_per_s:.0f} updates/s = {scraping:.2%} per update")


def _floor_app(token: str, base_url: str, metrics: M.Metrics, tmp: Path) -> Any:
    from bench.floor import build_floor

    return build_floor(token, base_url, metrics)


async def _phase(name: str, args: argparse.Namespace, make: AppFactory,
                 profiler: cProfile.Profile | None = None) -> Phase | str:
    """Runs one bot against a fresh child process; an error message if something failed."""
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe()
    proc = ctx.Process(target=_child, args=(child, args.games, args.presses, args.seconds,
                                            args.seed, args.think, args.arrive),
                       daemon=True)
    proc.start()
    loop = asyncio.get_running_loop()
    hello = await loop.run_in_executor(None, parent.recv)
    if "error" in hello:
        return f"the fake server failed: {hello['error']}"
    metrics = M.Metrics()
    with tempfile.TemporaryDirectory() as tmp:
        app = make(hello["token"], hello["base_url"], metrics, Path(tmp))
        await app.initialize()
        service = getattr(app, "service", None)
        writes = _count_writes(app.storage) if service is not None else Counter()
        owner = getattr(service, "owner", None)
        owner0 = (owner.writes, owner.moves) if owner is not None else (0, 0)
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=1)
        await app.start()
        started = time.perf_counter()
        cpu0, main0 = time.process_time(), time.thread_time()
        threads0 = _thread_times()
        pauses = GcPauses().start()
        if profiler is not None:
            profiler.enable()
        server = getattr(app, "ops_server", None)
        seen: Counter[str] = Counter()
        scraper = None if server is None else asyncio.create_task(
            _scrape(server.bound_port, args.scrape_every, seen))
        parent.send("go")
        try:
            result = await loop.run_in_executor(None, parent.recv)
        finally:
            if scraper is not None:
                scraper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await scraper
                print(f"  metrics on: {seen['scrapes']} scrapes of /metrics "
                      f"({seen['bytes']} bytes the last) and /healthz ({seen['healthy']} "
                      f"healthy, {seen['unhealthy']} not), one every {args.scrape_every:g} s")
            if profiler is not None:
                profiler.disable()
            pauses.stop()
            elapsed = time.perf_counter() - started
            cpu, main_cpu = time.process_time() - cpu0, time.thread_time() - main0
            threads = _threads_line(threads0, max(1, metrics.updates))
            written = Counter(writes)
            owned = (owner.writes - owner0[0], owner.moves - owner0[1]) \
                if owner is not None else (0, 0)
            if service is not None and isinstance(result, dict):
                result["sessions"] = len(service.sessions)
                result["evictions"] = service.restore.evictions
            await app.updater.stop()
            await app.stop()
            await app.shutdown()
    with contextlib.suppress(OSError):
        parent.send("bye")
    proc.join(10)
    if "error" in result:
        return f"the simulated people failed: {result['error']}"
    return Phase(name, result, metrics, elapsed, cpu, main_cpu, pauses, threads, written,
                 owned[0], owned[1])


def _print_phase(p: Phase, settled_after: float) -> None:
    result = p.result
    lat = [x * 1000 for x in p.metrics.latencies]
    print(f"  bot overhead per update (handed over -> first request out): "
          f"p50 {_percentile(lat, 0.5):.1f} ms, p95 {_percentile(lat, 0.95):.1f} ms "
          f"(max {max(lat, default=float('nan')):.1f} ms, {len(lat)} updates measured)")
    m = p.metrics
    start = m.marked[0] if m.marked else 0.0
    steady = [x * 1000 for x, at in zip(m.latencies, m.marked, strict=True)
              if at - start >= settled_after]
    print(f"  the same once everybody is playing (after the first {settled_after:g} s, "
          f"the arrivals with their /newgame): p50 {_percentile(steady, 0.5):.1f} ms, "
          f"p95 {_percentile(steady, 0.95):.1f} ms ({len(steady)} updates)")
    requests = p.bot_requests()
    print(f"  updates handled: {p.metrics.updates} = {p.metrics.updates / p.elapsed:.0f}/s; "
          f"requests to the Bot API: {sum(requests.values())} "
          f"(+ {result['kinds'].get('getUpdates', 0)} getUpdates)")
    print(f"  requests per update {sum(requests.values()) / p.updates:.2f}: "
          + ", ".join(f"{k} {n / p.updates:.2f}" for k, n in requests.items()))
    print(f"  a press until its answer, seen by the person: p50 "
          f"{result['answer_p50'] * 1000:.1f} ms, p95 {result['answer_p95'] * 1000:.1f} ms")
    print(f"  a press until the message shows the move: p50 "
          f"{result['shown_p50'] * 1000:.1f} ms, p95 {result['shown_p95'] * 1000:.1f} ms")
    print(f"  CPU time of the bot process {p.cpu:.1f} s ({p.cpu / p.elapsed:.0%} of one core) "
          f"= {p.cpu_per_update * 1000:.2f} ms per update (main thread "
          f"{p.main_cpu / p.updates * 1000:.2f} ms, other threads "
          f"{(p.cpu - p.main_cpu) / p.updates * 1000:.2f} ms)")
    print(f"  by thread (clock ticks of /proc/self/task): {p.threads}")
    print(f"  garbage collections meanwhile: {p.gc.line()}")
    print(f"  (the fake server and the simulated people used {result['cpu']:.1f} s of CPU in "
          f"their own process: their view includes its delays)")
    if p.moves:
        total = sum(p.writes.values())
        print(f"  storage writes per stored move: {total / p.moves:.2f} in all ({total} writes, "
              f"{p.moves} moves stored; "
              + ", ".join(f"{k} {n}" for k, n in p.writes.most_common()) + "); the tables' "
              f"owner's {p.owner_writes / p.moves:.2f} ({p.owner_writes})")
    print(f"  spec violations {result['violations']}, 'not modified' {result['not_modified']}, "
          f"error answers {result['errors']}, refused presses {result['refused']}, "
          f"stuck people {result['timeouts']}")


def _print_profile(profiler: cProfile.Profile, path: str) -> None:
    profiler.dump_stats(path)
    for key, title in (("cumulative", "cumulative"), ("tottime", "total (own) time")):
        print(f"\nprofile of the bot's phase (main thread only), top 25 by {title}; "
              f"stats in {path}:")
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats(key).print_stats(25)


async def _run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("aiohttp").setLevel(logging.WARNING)
    run_started = time.perf_counter()
    floor: Phase | None = None
    if args.floor:
        got = await _phase("floor", args, _floor_app)
        if isinstance(got, str):
            print(f"bench bot (floor): {got}", file=sys.stderr)
            return 1
        floor = got
        print(f"floor: a bare python-telegram-bot bot (answers each press, edits its message), "
              f"the same people: {floor.result['presses']} presses in {floor.elapsed:.1f} s")
        _print_phase(floor, args.arrive + 5)
    profiler = cProfile.Profile() if args.profile else None
    got = await _phase("bot", args, _project_app(args), profiler)
    if isinstance(got, str):
        print(f"bench bot: {got}", file=sys.stderr)
        return 1
    bot = got
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if args.open:
        print(f"bench bot: {args.open} more games open but idle (waiting for their person "
              f"for two hours), beside the games in play")
    limit = f"{args.messages_per_second:g}/s" if args.messages_per_second else "off"
    result = bot.result
    print(f"bench bot: {args.games} solo games at once, {result['presses']} presses "
          f"({result['games']} games finished) in {bot.elapsed:.1f} s; people think "
          f"{args.think:g} s on average, COMPUTER_MOVE_DELAY {args.computer_delay:g} s, "
          f"computer level {args.level}, overall message limit {limit}, "
          f"HTTP client {args.http}"
          + (" [under cProfile: CPU figures include its overhead]" if profiler else ""))
    _print_phase(bot, args.arrive + 5)
    print(f"  peak memory of the bot process: {peak_mb:.0f} MB (peak RSS, ru_maxrss)")
    print(f"  sessions in memory at the end: {bot.result.get('sessions', '?')}, evicted "
          f"while running: {bot.result.get('evictions', '?')}")
    if args.metrics:
        requests = sum(bot.bot_requests().values()) / bot.updates
        print(await asyncio.to_thread(_metrics_cost, bot.cpu_per_update * 1000,
                                      bot.metrics.updates / bot.elapsed, requests,
                                      args.scrape_every))
    if floor is not None:
        print(f"CPU per update: bot {bot.cpu_per_update * 1000:.2f} ms, floor "
              f"{floor.cpu_per_update * 1000:.2f} ms = "
              f"{bot.cpu_per_update / floor.cpu_per_update:.2f} × floor")
    print(f"bench bot: the whole run took {time.perf_counter() - run_started:.0f} s")
    if profiler is not None:
        _print_profile(profiler, args.profile)
    ok = bot.ok() and (floor is None or floor.ok())
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    try:
        import tests.fakeapi  # noqa: F401
    except ImportError:
        print("bench bot: needs the source checkout (the fake Bot API server is in "
              "tests/fakeapi); run it from the project's directory", file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(prog="python -m bot bench bot")
    p.add_argument("--games", type=int, default=200, help="solo games played at once")
    p.add_argument("--presses", type=int, default=None,
                   help="button presses per person (default 30; 20 above 200 games, so that "
                        "--games 1000 with its floor runs in under 10 minutes)")
    p.add_argument("--seconds", type=float, default=300.0, help="stop after this long")
    p.add_argument("--level", default="random", choices=["random", "normal", "hard"],
                   help="computer players' level (their thinking is not measured)")
    p.add_argument("--messages-per-second", type=float, default=0.0,
                   help="the overall message limit (Telegram's is 30; 0: off)")
    p.add_argument("--think", type=float, default=None,
                   help="seconds a person looks at the cards before pressing (mean; 0: none; "
                        "default 2 s for up to 200 games, games/100 s above: the same "
                        "~100 presses a second with more games live)")
    p.add_argument("--arrive", type=float, default=None,
                   help="people send /newgame spread over this many seconds (default 5 s for "
                        "up to 200 games, games/40 s above: 40 new games a second)")
    p.add_argument("--computer-delay", type=float, default=1.0,
                   help="COMPUTER_MOVE_DELAY (the bot's default 1 s; 0 for a stress test)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--open", type=int, default=0, metavar="N",
                   help="N more games open but idle beside --games (solo games waiting for "
                        "their person; written into the database before the bot starts)")
    p.add_argument("--database-url", default="", metavar="URL",
                   help="run the bot on this PostgreSQL database (DATABASE_URL; use an empty "
                        "one) instead of SQLite in a temporary directory")
    p.add_argument("--http", default="aiohttp", choices=["aiohttp", "httpx"],
                   help="the bot's HTTP client (HTTP_CLIENT); the floor always uses "
                        "python-telegram-bot's default (httpx)")
    p.add_argument("--metrics", action="store_true",
                   help="the bot with METRICS_PORT on, /metrics and /healthz scraped")
    p.add_argument("--scrape-every", type=float, default=1.0, metavar="SECONDS",
                   help="with --metrics: seconds between two scrapes (Prometheus: 15)")
    p.add_argument("--no-gc-freeze", dest="gc_freeze", action="store_false",
                   help="the bot without gc.freeze() of its start-up (bot/tg/io/app.py, "
                        "freeze_startup): to see what the freeze buys")
    p.add_argument("--no-floor", dest="floor", action="store_false",
                   help="skip the floor (a bare python-telegram-bot bot driven the same way)")
    p.add_argument("--profile", metavar="FILE",
                   help="run the bot's phase under cProfile, write the stats to FILE and "
                        "print the top 25 functions")
    args = p.parse_args(argv)
    if args.think is None:
        args.think = max(2.0, args.games / 100)
    if args.arrive is None:
        args.arrive = max(5.0, args.games / 40)
    if args.presses is None:
        args.presses = 30 if args.games <= 200 else 20
    return asyncio.run(_run(args))
