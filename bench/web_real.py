"""``python -m bot bench web --open N``: open Mini App pages on the REAL application.

``python -m bot`` runs as a child process (one, or ``--processes 2`` on one PostgreSQL
behind one webhook address, as behind a proxy) in webhook mode against the fake Bot API
(``tests/fakeapi``, in this process); ``N / 3`` simulated people each play a solo game
(``/newgame 3``: two computers) by pressing the buttons of their hand message, a press
every ``--think`` seconds or so; another process holds N pages (three a table, each its
own WebSocket; with two processes the pages of a table are spread over both) and records
when each view arrives.  The same run is made twice: with the pages open and with none
(the Mini App's server running in both).  Printed, for each run: the bot processes' CPU
(user + system, ``/proc``) per stored move; their memory (RSS) before and after the
pages opened; and with the pages, the time from a move being stored (in the process that
stored it, right after its COMMIT) to each page having the view of it (a view of that
version or a later one; p50, p95, max): across processes when there are two, since
CLOCK_MONOTONIC is one clock for every process of the machine.  Needs the source checkout.

Profiling: the bots' pids are written on stderr as each measured stretch begins (to attach a
sampling profiler: ``py-spy record --pid P``); with ``BENCH_PROFILE=DIR`` each bot runs under
cProfile (CPU time) and writes ``DIR/<bot>.pstats`` (a1: with the pages, a0: without).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import multiprocessing.connection
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# the bot's child: ``_changed`` of the Mini App's port stamps each move this process stored
CHILD = """
import atexit, json, os, sys, time
from bot.webapp import adapter
stamps = []
_orig = adapter.ServicePort._changed
def _changed(self, s):
    if s.state is not None:
        stamps.append((s.game_id, s.state.version, time.monotonic()))
    _orig(self, s)
adapter.ServicePort._changed = _changed
prof = None
if os.environ.get("BENCH_PROFILE"):  # a directory: this process's cProfile is written there
    import cProfile
    prof = cProfile.Profile(time.process_time)  # (CPU time: not the waits for others)
def _dump():
    with open(os.environ["BENCH_STAMPS"], "w") as f:
        json.dump(stamps, f)
    if prof is not None:
        prof.disable()
        name = os.path.basename(os.environ["BENCH_STAMPS"])[len("stamps-"):-len(".json")]
        prof.dump_stats(os.path.join(os.environ["BENCH_PROFILE"], f"{name}.pstats"))
atexit.register(_dump)
if prof is not None:
    prof.enable()
from bot.run import main
sys.exit(main())
"""


LATE = 10.0  # seconds the pages listen after the measured stretch (a late view still counts)


def _cpu(pid: int) -> tuple[float, float]:
    """The process's CPU seconds so far: (user, system)."""
    fields = Path(f"/proc/{pid}/stat").read_text()
    fields_after = fields[fields.rindex(")") + 2:].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields_after[11]) / tick, int(fields_after[12]) / tick


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def _q(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))]


# ---------------------------------------------------------------------------- the pages


def _pages(conn: multiprocessing.connection.Connection, token: str,
           spec: list[tuple[str, int, int]]) -> None:
    """The pages' process: one socket for each (base URL, person, game) of ``spec``; each
    records (arrival, version) of every view; sends them all back when told to stop."""
    import aiohttp

    from bot.webapp.auth import SessionKey

    keys = SessionKey.for_token(token)
    got: list[list[tuple[float, int]]] = [[] for _ in spec]

    async def page(http: aiohttp.ClientSession, i: int) -> None:
        base, uid, game = spec[i]
        ws = await http.ws_connect(f"{base}/ws", max_msg_size=0)
        await ws.send_json({"type": "hello", "token": keys.make(uid, "ru", time.time()),
                            "game": game})
        async for msg in ws:
            now = time.monotonic()
            head = msg.data[:200]
            if '"type": "view"' in head:
                at = msg.data.index('"version": ') + 11
                got[i].append((now, int(msg.data[at:msg.data.index(",", at)])))

    async def run() -> None:
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            tasks = []
            for i in range(len(spec)):
                tasks.append(asyncio.create_task(page(http, i)))
                if i % 50 == 49:
                    await asyncio.sleep(0.02)
            while sum(1 for g in got if g) < len(spec):
                await asyncio.sleep(0.1)
            conn.send("open")
            await loop.run_in_executor(None, conn.recv)  # stop
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        conn.send(got)

    asyncio.run(run())


# ---------------------------------------------------------------------------- one run


async def _run(args: argparse.Namespace, with_pages: bool, database: str,
               workdir: Path) -> dict[str, Any]:
    from tests.bot.procs import BotProcess, free_port
    from tests.fakeapi import FakeTelegramServer, PressedQuery

    tables = args.open // 3
    server = FakeTelegramServer(callback_answer_timeout=60.0)
    server.poll_interval = 1.0
    rng = random.Random(args.seed)
    async with server:
        public = f"http://127.0.0.1:{free_port()}/hook"
        settings: dict[str, object] = {"webapp_url": "https://thousand.example/app/",
                                       "computer_level": "random", "computer_move_delay": 0,
                                       "log_level": "WARNING"}
        if database.startswith("postgresql"):
            settings["database_url"] = database
        else:
            settings["database_path"] = database
        bots, ports = [], []
        for k in range(args.processes):
            port = free_port()
            ports.append(port)
            b = BotProcess.webhook(server, workdir, f"{'ab'[k]}{int(with_pages)}",
                                   {**settings, "webapp_port": port},
                                   public_url=public if args.processes > 1 else None)
            b.env["BENCH_STAMPS"] = str(workdir / f"stamps-{b.name}.json")
            bots.append(b)
        server.webhook_targets = [b.hook for b in bots if b.hook is not None]
        server.webhook_rng = random.Random(args.seed)
        try:
            for b in bots:  # (the first creates the schema)
                b.workdir.mkdir(parents=True, exist_ok=True)
                with b.log_path.open("ab") as log:
                    b.proc = await asyncio.create_subprocess_exec(
                        sys.executable, "-c", CHILD, cwd=b.workdir, env=b.env,
                        stdin=asyncio.subprocess.DEVNULL, stdout=log,
                        stderr=asyncio.subprocess.STDOUT, start_new_session=True)
                await b.wait_ready(60)
            return await _play(args, server, bots, ports, tables, with_pages, rng,
                               PressedQuery)
        finally:
            for b in bots:
                if b.running:
                    await b.stop(30)


async def _play(args: argparse.Namespace, server: Any, bots: list[Any], ports: list[int],
                tables: int, with_pages: bool, rng: random.Random,
                pressed_type: Any) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    games: dict[int, int] = {}  # person -> game
    pressed: dict[int, int] = {}
    stop = asyncio.Event()
    presses = 0

    def offer(uid: int) -> tuple[int, str, int, int] | None:
        for msg in reversed(server.chat(uid).bot_messages()[-3:]):
            datas = [b.callback_data for b in msg.all_buttons
                     if b.callback_data and ":a:" in b.callback_data]
            if datas:
                parts = datas[0].split(":")
                g, v = int(parts[0][1:]), int(parts[1])
                if v > pressed.get(uid, -1):
                    return msg.message_id, rng.choice(datas), g, v
        return None

    async def person(i: int, playing: asyncio.Event) -> None:
        nonlocal presses
        uid = 10_000 + i
        user = server.add_user(uid, f"P{i}")
        await server.send_text(user, user, "/newgame 3")
        while True:
            found = offer(uid)
            if found is None:
                await asyncio.sleep(0.05)
                continue
            games[uid] = found[2]
            break
        await playing.wait()
        while not stop.is_set():
            await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
            found = offer(uid)
            if found is None or stop.is_set():
                continue
            message_id, data, g, v = found
            if g != games[uid]:
                games[uid] = g  # a new game after the last one ended
            pressed[uid] = v
            q = server.press_nowait(user, uid, message_id, data)
            for _ in range(200):
                if q.answer is not None:
                    break
                await asyncio.sleep(0.05)
            presses += 1

    playing = asyncio.Event()
    people = [asyncio.create_task(person(i, playing)) for i in range(tables)]
    while len(games) < tables:
        await asyncio.sleep(0.2)
        if all(t.done() for t in people):
            break
    await asyncio.sleep(2.0)  # the computers' first moves settle
    pids = [b.pid for b in bots]
    rss0 = [_rss(p) for p in pids]
    conn = None
    proc = None
    if with_pages:
        spec = []
        for uid, g in sorted(games.items()):
            for k in range(3):
                port = ports[(uid + k) % len(ports)]
                spec.append((f"http://127.0.0.1:{port}", uid, g))
        ctx = mp.get_context("spawn")
        conn, child = ctx.Pipe()
        proc = ctx.Process(target=_pages, args=(child, server.token, spec), daemon=True)
        proc.start()
        await loop.run_in_executor(None, conn.recv)  # every page has its first view
        await asyncio.sleep(1.0)
    rss1 = [_rss(p) for p in pids]
    print(f"measuring {'with' if with_pages else 'without'} the pages: the bots' pids "
          f"{' '.join(str(p) for p in pids)}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    cpu0 = [_cpu(p) for p in pids]
    playing.set()
    await asyncio.sleep(args.seconds)
    stop.set()
    await asyncio.sleep(2.0)  # the computers' replies and the last pushes
    t1 = time.monotonic()
    cpu1 = [_cpu(p) for p in pids]
    for t in people:
        t.cancel()
    await asyncio.gather(*people, return_exceptions=True)
    views: list[list[tuple[float, int]]] = []
    if conn is not None and proc is not None:
        # (the pages keep listening a while: a view that comes late is counted with its
        # delay; "never arrived": still missing LATE seconds (at most --seconds) after the end)
        await asyncio.sleep(min(LATE, args.seconds))
        conn.send("stop")
        views = await loop.run_in_executor(None, conn.recv)
        proc.join(10)
    for b in bots:
        await b.stop(30)
    stamps: dict[tuple[int, int], float] = {}
    for b in bots:
        with contextlib.suppress(FileNotFoundError):
            for g, v, at in json.loads(Path(b.env["BENCH_STAMPS"]).read_text()):
                stamps.setdefault((g, v), at)
    moved = [(g, v, at) for (g, v), at in stamps.items() if t0 <= at <= t1]
    out: dict[str, Any] = {"moves": len(moved), "presses": presses,
                           "cpu": sum(sum(b) - sum(a) for a, b in zip(cpu0, cpu1, strict=True)),
                           "sys": sum(b[1] - a[1] for a, b in zip(cpu0, cpu1, strict=True)),
                           "rss0": rss0, "rss1": rss1, "seconds": t1 - t0}
    if with_pages:
        by_game: dict[int, list[tuple[int, float]]] = {}
        for g, v, at in moved:
            by_game.setdefault(g, []).append((v, at))
        delays: list[float] = []
        missing = 0
        spec_games = [g for _, _, g in spec]
        for i, got in enumerate(views):
            for v, at in by_game.get(spec_games[i], ()):
                first = next((t for t, w in got if w >= v), None)
                if first is None:
                    missing += 1
                else:
                    delays.append(first - at)
        out.update(delays=delays, missing=missing)
    return out


async def _main(args: argparse.Namespace) -> None:
    print(f"{args.open // 3} tables, {args.open // 3 * 3} pages, {args.processes} "
          f"process(es), a press every {args.think:g} s or so a person, {args.seconds:g} s")
    results = {}
    for with_pages in (True, False):
        with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
            database = str(Path(tmp) / "thousand.sqlite3")
            made = None
            if args.processes > 1:
                from tests.pg import create_database

                made = await create_database(args.database_url)
                database = made
            try:
                results[with_pages] = await _run(args, with_pages, database, Path(tmp))
            finally:
                if made is not None:
                    from tests.pg import drop_database

                    await drop_database(args.database_url, made)
    w, wo = results[True], results[False]
    per_with = w["cpu"] / max(1, w["moves"]) * 1000
    per_without = wo["cpu"] / max(1, wo["moves"]) * 1000
    print(f"with the pages: {w['moves']} moves stored ({w['presses']} presses) in "
          f"{w['seconds']:.1f} s, bot CPU {w['cpu']:.1f} s (system {w['sys']:.1f} s) = "
          f"{per_with:.2f} ms a move")
    print(f"without pages:  {wo['moves']} moves stored ({wo['presses']} presses) in "
          f"{wo['seconds']:.1f} s, bot CPU {wo['cpu']:.1f} s (system {wo['sys']:.1f} s) = "
          f"{per_without:.2f} ms a move")
    print(f"CPU per move, pages / no pages: {per_with / per_without:.2f}x")
    d = w["delays"]
    print(f"stored -> on each page: {len(d)} (move, page) pairs, p50 {_q(d, 0.5) * 1000:.1f} ms, "
          f"p95 {_q(d, 0.95) * 1000:.1f} ms, max {max(d, default=0) * 1000:.1f} ms; "
          f"never arrived {w['missing']}")
    added = sum(w["rss1"]) - sum(w["rss0"])
    print(f"memory: bots' RSS {sum(w['rss0']) / 2**20:.1f} MiB before the pages, "
          f"{sum(w['rss1']) / 2**20:.1f} MiB with them: {added / 2**20:.1f} MiB, "
          f"{added / max(1, args.open) / 1024:.1f} KiB a page")
    if d:
        print(f"mean {statistics.fmean(d) * 1000:.1f} ms")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench web --open N",
                                     description=__doc__)
    parser.add_argument("--open", type=int, required=True, help="pages (three a table)")
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2))
    parser.add_argument("--database-url", default=os.environ.get("THOUSAND_TEST_PG_URL", ""),
                        help="a PostgreSQL server (--processes 2): a database is made "
                             "for each run and dropped")
    parser.add_argument("--think", type=float, default=10.0,
                        help="seconds between a person's presses (about)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.processes > 1 and not args.database_url:
        parser.error("--processes 2 needs --database-url (PostgreSQL)")
    asyncio.run(_main(args))
    return 0
