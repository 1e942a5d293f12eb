"""``python -m bot bench web --open N``: open Mini App pages on the REAL application.

``python -m bot`` runs as a child process (one, or ``--processes 2`` on one PostgreSQL
behind one webhook address, as behind a proxy) in webhook mode against the fake Bot API
(``tests/fakeapi``, in this process); ``N / 3`` simulated people each play a solo game
(``/newgame 3``: two computers) by pressing the buttons of their hand message, a press
every ``--think`` seconds or so; another process holds N pages (three a table, each its
own WebSocket; with two processes the pages of a table are spread over both) and records
when each view arrives.

The same bots, games and people are measured in stretches of ``--seconds`` with the pages
open and with them closed, alternated (without, with, with, without, ... ``--rounds``
pairs), so that a machine whose speed drifts (a shared one) weighs on both sides alike:
two separate runs compared used to differ by 0.3x from the drift alone.  The Mini App's
server runs throughout.  Printed: for each stretch and in all, the bot processes' CPU
(user + system, ``/proc``) per stored move, and the ratio of each round's pair; their
memory (RSS) before and after the pages first opened; and with the pages, the time from a
move being stored (in the process that stored it, right after its COMMIT) to each page
having the view of it (a view of that version or a later one, before the page closed;
p50, p95, max): across processes when there are two, since CLOCK_MONOTONIC is one clock
for every process of the machine.  Needs the source checkout.

``BENCH_DUMP=FILE`` writes what was measured (each page's views, each bot's stored moves,
the stretches) as JSON.  Profiling: the bots' pids are written on stderr before the first
stretch (to attach a sampling profiler: ``py-spy record --pid P``); with
``BENCH_PROFILE=DIR`` each bot runs under cProfile (CPU time) and writes
``DIR/<bot>.pstats`` (for the whole run: the pages' opening and closing too).
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

# the bot's child: each write of moves this process stored is stamped as its COMMIT returns:
# the game, the version it stored (a batch of moves, one write: its last), when, how many
# moves (the computers' replies are stored together when they come at once)
CHILD = """
import atexit, json, os, sys, time
from storage import facade
stamps = []
def _stamped(orig):
    async def write(self, game_id, expected, *args, **kwargs):
        version = await orig(self, game_id, expected, *args, **kwargs)
        stamps.append((game_id, version, time.monotonic(), version - expected))
        return version
    return write
facade.Backend.append_action = _stamped(facade.Backend.append_action)
facade.Backend.append_actions = _stamped(facade.Backend.append_actions)
from bot.webapp import adapter
ports = []
_port = adapter.ServicePort.__init__
def _kept(self, *args, **kwargs):
    _port(self, *args, **kwargs)
    ports.append(self)
adapter.ServicePort.__init__ = _kept
prof = None
if os.environ.get("BENCH_PROFILE"):  # a directory: this process's cProfile is written there
    import cProfile
    prof = cProfile.Profile(time.process_time)  # (CPU time: not the waits for others)
def _dump():
    with open(os.environ["BENCH_STAMPS"], "w") as f:
        json.dump(stamps, f)
    with open(os.environ["BENCH_STAMPS"] + ".reads", "w") as f:
        json.dump([p.reads for p in ports], f)
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


LATE = 10.0  # seconds the pages listen after a stretch with them (a late view still counts)
SETTLE = 2.0  # seconds after the pages open or close before a stretch is measured


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
    """The pages' process: one socket for each (base URL, person, game) of ``spec``, opened
    on "open" (answered when every page has its first view) and closed on "close"; each
    records (arrival, version) of every view; on "stop" all of them go back."""
    import aiohttp

    from bot.webapp.auth import SessionKey

    keys = SessionKey.for_token(token)
    got: list[list[tuple[float, int]]] = [[] for _ in spec]

    async def page(http: aiohttp.ClientSession, i: int, first: list[bool]) -> None:
        base, uid, game = spec[i]
        # (compress=15: permessage-deflate offered, as a browser offers it)
        ws = await http.ws_connect(f"{base}/ws", max_msg_size=0, compress=15)
        await ws.send_json({"type": "hello", "token": keys.make(uid, "ru", time.time()),
                            "game": game})
        try:
            async for msg in ws:
                now = time.monotonic()
                head = msg.data[:200]
                if '"type": "view"' in head:
                    at = msg.data.index('"version": ') + 11
                    got[i].append((now, int(msg.data[at:msg.data.index(",", at)])))
                    first[i] = True
        finally:
            await ws.close()

    async def run() -> None:
        loop = asyncio.get_running_loop()
        tasks: list[asyncio.Task[None]] = []
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            while True:
                command = await loop.run_in_executor(None, conn.recv)
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                tasks = []
                if command == "stop":
                    break
                if command == "open":
                    first = [False] * len(spec)
                    for i in range(len(spec)):
                        tasks.append(asyncio.create_task(page(http, i, first)))
                        if i % 50 == 49:
                            await asyncio.sleep(0.02)
                    while not all(first):
                        await asyncio.sleep(0.1)
                conn.send(command)
        conn.send(got)

    asyncio.run(run())


# ---------------------------------------------------------------------------- one run


async def _run(args: argparse.Namespace, database: str, workdir: Path) -> dict[str, Any]:
    from tests.bot.procs import BotProcess, free_port
    from tests.fakeapi import FakeTelegramServer

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
            b = BotProcess.webhook(server, workdir, "ab"[k], {**settings, "webapp_port": port},
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
            return await _play(args, server, bots, ports, tables, rng)
        finally:
            for b in bots:
                if b.running:
                    await b.stop(30)


async def _play(args: argparse.Namespace, server: Any, bots: list[Any], ports: list[int],
                tables: int, rng: random.Random) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    games: dict[int, int] = {}  # person -> game
    pressed: dict[int, int] = {}
    stop = asyncio.Event()
    presses: list[float] = []

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
            presses.append(time.monotonic())

    playing = asyncio.Event()
    people = [asyncio.create_task(person(i, playing)) for i in range(tables)]
    while len(games) < tables:
        await asyncio.sleep(0.2)
        if all(t.done() for t in people):
            break
    await asyncio.sleep(2.0)  # the computers' first moves settle
    pids = [b.pid for b in bots]
    print(f"the bots' pids {' '.join(str(p) for p in pids)}", file=sys.stderr, flush=True)
    spec = []
    for uid, g in sorted(games.items()):
        for k in range(3):
            port = ports[(uid + k) % len(ports)]
            spec.append((f"http://127.0.0.1:{port}", uid, g))
    ctx = mp.get_context("spawn")
    conn, child = ctx.Pipe()
    proc = ctx.Process(target=_pages, args=(child, server.token, spec), daemon=True)
    proc.start()

    async def tell(command: str) -> Any:
        conn.send(command)
        return await loop.run_in_executor(None, conn.recv)

    playing.set()
    await asyncio.sleep(min(args.think, args.seconds))  # the presses spread out
    rss0: list[int] = []
    rss1: list[int] = []
    stretches: list[dict[str, Any]] = []  # each: pages, t0, t1, cpu, sys, closed
    kinds = [k for r in range(args.rounds) for k in ((False, True) if r % 2 == 0
                                                     else (True, False))]
    open_now = False
    for kind in kinds:
        if kind != open_now:
            if kind:
                rss0 = rss0 or [_rss(p) for p in pids]
                await tell("open")
                await asyncio.sleep(SETTLE)
                rss1 = rss1 or [_rss(p) for p in pids]
            else:
                # (the pages keep listening a while: a view that comes late is counted with
                # its delay; "never arrived": still missing when the pages close)
                await asyncio.sleep(min(LATE, args.seconds))
                closed = time.monotonic()
                for s in stretches:
                    s.setdefault("closed", closed)
                await tell("close")
                await asyncio.sleep(SETTLE)
            open_now = kind
        cpu0 = [_cpu(p) for p in pids]
        t0 = time.monotonic()
        await asyncio.sleep(args.seconds)
        t1 = time.monotonic()
        cpu1 = [_cpu(p) for p in pids]
        stretches.append({
            "pages": kind, "t0": t0, "t1": t1,
            "cpu": sum(sum(b) - sum(a) for a, b in zip(cpu0, cpu1, strict=True)),
            "sys": sum(b[1] - a[1] for a, b in zip(cpu0, cpu1, strict=True))})
        if not kind:
            stretches[-1]["closed"] = t1
    stop.set()
    if open_now:
        await asyncio.sleep(min(LATE, args.seconds))
    closed = time.monotonic()
    for s in stretches:
        s.setdefault("closed", closed)
    for t in people:
        t.cancel()
    await asyncio.gather(*people, return_exceptions=True)
    views: list[list[tuple[float, int]]] = await tell("stop")
    proc.join(10)
    for b in bots:
        await b.stop(30)
    written: dict[str, list[list[Any]]] = {}  # each bot's stamps: game, version, when, moves
    reads: dict[str, int] = {}  # how the games another process holds were brought up to date
    for b in bots:
        with contextlib.suppress(FileNotFoundError):
            written[b.name] = json.loads(Path(b.env["BENCH_STAMPS"]).read_text())
            for port in json.loads(Path(b.env["BENCH_STAMPS"] + ".reads").read_text()):
                for how, n in port.items():
                    reads[how] = reads.get(how, 0) + n
    stamps = {(g, v): (at, n) for rows in written.values() for g, v, at, n in rows}
    if os.environ.get("BENCH_DUMP"):  # a file: what was measured, for a closer look
        Path(os.environ["BENCH_DUMP"]).write_text(json.dumps(
            {"spec": spec, "views": views, "stretches": stretches, "stamps": written}))
    spec_games = [g for _, _, g in spec]
    delays: list[float] = []
    missing = early = 0
    for s in stretches:
        moved = [(g, v, at) for (g, v), (at, _) in stamps.items() if s["t0"] <= at <= s["t1"]]
        s["writes"] = len(moved)
        s["moves"] = sum(n for at, n in stamps.values() if s["t0"] <= at <= s["t1"])
        s["presses"] = sum(1 for at in presses if s["t0"] <= at <= s["t1"])
        if not s["pages"]:
            continue
        by_game: dict[int, list[tuple[int, float]]] = {}
        for g, v, at in moved:
            by_game.setdefault(g, []).append((v, at))
        for i, got in enumerate(views):
            for v, at in by_game.get(spec_games[i], ()):
                # (any view of that version or later: none exists before its COMMIT, which
                # another process may hear of, and show, before the storing process's await
                # returns with it: that delay is counted as 0, the page "early")
                first = next((t for t, w in got if w >= v and t <= s["closed"]), None)
                if first is None:
                    missing += 1
                else:
                    delays.append(max(0.0, first - at))
                    early += first < at
    return {"stretches": stretches, "delays": delays, "missing": missing, "early": early,
            "rss0": rss0, "rss1": rss1, "reads": reads}


def _per_move(stretches: list[dict[str, Any]]) -> float:
    cpu: float = sum(s["cpu"] for s in stretches)
    moves: int = sum(s["moves"] for s in stretches)
    return cpu / max(1, moves) * 1000


async def _main(args: argparse.Namespace) -> None:
    print(f"{args.open // 3} tables, {args.open // 3 * 3} pages, {args.processes} "
          f"process(es), a press every {args.think:g} s or so a person; {args.rounds} "
          f"round(s) of {args.seconds:g} s without the pages and {args.seconds:g} s with "
          f"them, alternated")
    with tempfile.TemporaryDirectory(prefix="bench-web-") as tmp:
        database = str(Path(tmp) / "thousand.sqlite3")
        made = None
        if args.processes > 1:
            from tests.pg import create_database

            made = await create_database(args.database_url)
            database = made
        try:
            got = await _run(args, database, Path(tmp))
        finally:
            if made is not None:
                from tests.pg import drop_database

                await drop_database(args.database_url, made)
    stretches = got["stretches"]
    for n, s in enumerate(stretches):
        print(f"  stretch {n + 1} {'with the pages' if s['pages'] else 'without them'}: "
              f"{s['moves']} moves in {s['writes']} writes ({s['presses']} presses) in "
              f"{s['t1'] - s['t0']:.1f} s, "
              f"CPU {s['cpu']:.1f} s (system {s['sys']:.1f} s) = "
              f"{s['cpu'] / max(1, s['moves']) * 1000:.2f} ms a move")
    rounds = []
    for r in range(args.rounds):
        pair = stretches[2 * r: 2 * r + 2]
        rounds.append(_per_move([s for s in pair if s["pages"]])
                      / _per_move([s for s in pair if not s["pages"]]))
    w = [s for s in stretches if s["pages"]]
    wo = [s for s in stretches if not s["pages"]]
    for name, group in (("with the pages:", w), ("without pages: ", wo)):
        print(f"{name} {sum(s['moves'] for s in group)} moves stored in "
              f"{sum(s['writes'] for s in group)} writes "
              f"({sum(s['presses'] for s in group)} presses) in "
              f"{sum(s['t1'] - s['t0'] for s in group):.1f} s, bot CPU "
              f"{sum(s['cpu'] for s in group):.1f} s (system {sum(s['sys'] for s in group):.1f}"
              f" s) = {_per_move(group):.2f} ms a move")
    print(f"CPU per move, pages / no pages: {_per_move(w) / _per_move(wo):.2f}x "
          f"(each round: {', '.join(f'{r:.2f}x' for r in rounds)})")
    d = got["delays"]
    print(f"stored -> on each page: {len(d)} (write, page) pairs, p50 {_q(d, 0.5) * 1000:.1f} ms, "
          f"p95 {_q(d, 0.95) * 1000:.1f} ms, max {max(d, default=0) * 1000:.1f} ms; "
          f"never arrived {got['missing']}; on the page before the storing process's write "
          f"returned: {got['early']}")
    added = sum(got["rss1"]) - sum(got["rss0"])
    print(f"memory: bots' RSS {sum(got['rss0']) / 2**20:.1f} MiB before the pages, "
          f"{sum(got['rss1']) / 2**20:.1f} MiB with them: {added / 2**20:.1f} MiB, "
          f"{added / max(1, args.open) / 1024:.1f} KiB a page")
    r = got["reads"]
    print(f"games another process holds, brought up to date for their pages: "
          f"{r.get('feed', 0)} by the moves the feed carried, {r.get('storage', 0)} by a read")
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
    parser.add_argument("--seconds", type=float, default=30.0,
                        help="seconds of each measured stretch")
    parser.add_argument("--rounds", type=int, default=2,
                        help="pairs of stretches (without and with the pages), alternated")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.processes > 1 and not args.database_url:
        parser.error("--processes 2 needs --database-url (PostgreSQL)")
    if args.rounds < 1:
        parser.error("--rounds must be 1 or more")
    asyncio.run(_main(args))
    return 0
