"""``python -m bot bench restart``: start-up to first answer with many live games.

1. A child process writes ``--games`` live games into a fresh SQLite file through the
   storage interface, as the bot stores them (half solo, half three-seat group tables with
   two people; 5–40 moves each, records, snapshots, score-sheet rows, and the message ids
   with the digests of what the messages show, so a restore sends nothing it need not).
2. Another child runs the fake Bot API server.  Before the bot starts, it queues a press on
   one of those games (a person's move at the game's current version) and ``/start`` in a
   chat the bot has never seen.
3. The bot starts here, built by ``build_application`` as ``python -m bot`` builds it.

Printed: seconds from ``build_application`` (and from this process's start) until the press
is answered and until ``/start`` is answered, until every game is rebuilt in the background,
and the bot process's peak memory.  ``--eager`` waits for every game before polling (the
behaviour before lazy restore), for comparison.  Needs the source checkout (the fake server
is in ``tests/fakeapi``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PRESSER = 7_000_001  # the person whose press is measured (seat 0 of the first solo game)
NEWCOMER = 7_900_001  # the person who sends /start in a fresh chat


def _process_started() -> float:
    """This process's start, epoch seconds (Linux /proc; else now)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return time.time()


# ---------------------------------------------------------------------------- the database


def _build(conn: multiprocessing.connection.Connection, path: str, games: int,
           seed: int) -> None:
    try:
        conn.send(asyncio.run(_write_games(path, games, seed)))
    except BaseException as e:
        conn.send({"error": repr(e)})
        raise


async def _write_games(path: str, games: int, seed: int) -> dict[str, Any]:
    from bot.engine.game import apply, new_game
    from bot.engine.rules import Rules
    from bot.engine.state import Phase
    from bot.engine.views import view
    from bot.tg.model import (
        BY_COMPUTER,
        BY_HUMAN,
        SeatInfo,
        deal_number,
        move_record,
        seats_json,
        sheet_row,
        snapshot,
    )
    from bot.tg.rooms.service import GameService
    from bot.tg.rooms.session import Session
    from bot.tg.view import render as R
    from bot.tg.view.callbacks import action_data
    from storage import Storage

    class Shown:
        """An outbox that only notes what each message would show (its digest)."""

        def __init__(self) -> None:
            self.digests: dict[str, str] = {}

        def put(self, chat_id: int, key: str, content: R.Rendered, **kw: Any) -> None:
            self.digests[key] = content.digest()

    rng = random.Random(seed)
    started = time.perf_counter()
    rules = Rules()
    moves_total = 0
    users: list[int] = []
    groups: list[list[int]] = []  # [chat id, member, member]
    target: dict[str, Any] = {}
    mid = 1000
    async with Storage.open(path) as store:
        shown = Shown()
        room = GameService(store, shown, None, bot=None).table  # type: ignore[arg-type]
        for i in range(games):
            solo = i % 2 == 0
            if solo:
                uid = PRESSER + i
                chat_id = uid
                await store.upsert_user(uid, f"P{i}", language="ru")
                users.append(uid)
                await store.upsert_chat(chat_id, "private", language="ru")
                seats = [SeatInfo("human", uid, f"P{i}", ""),
                         SeatInfo("computer", 0, "Глеб", "random"),
                         SeatInfo("computer", 0, "Дина", "random")]
            else:
                chat_id = -(1_000_000 + i)
                a, b = 8_000_000 + 2 * i, 8_000_001 + 2 * i
                for u in (a, b):
                    await store.upsert_user(u, f"U{u}", language="ru")
                    users.append(u)
                groups.append([chat_id, a, b])
                await store.upsert_chat(chat_id, "supergroup", language="ru")
                seats = [SeatInfo("human", a, f"U{a}", ""), SeatInfo("human", b, f"U{b}", ""),
                         SeatInfo("computer", 0, "Глеб", "random")]
            game_seed = rng.getrandbits(62)
            gid = await store.create_game(chat_id, seats[0].user_id,
                                          rules=rules.model_dump_json(), seed=game_seed,
                                          seats=seats_json(seats))
            state = new_game(rules, game_seed)
            await store.start_game(gid, 0, snapshot=snapshot(state), deadline=None,
                                   seats=seats_json(seats), rules=rules.model_dump_json())
            want = rng.randint(5, 40)
            version = 0
            # moves until ``want`` are made and a person is to act (the press target)
            while version < want or seats[state.to_act].kind != "human":
                seat = state.to_act
                legal = list(view(state, seat).legal)
                action = rng.choice(legal)
                after = apply(state, action, seat)
                if after.phase == Phase.GAME_OVER:
                    break  # (never at these move counts) keep the game live
                rows = [(r.number, json.dumps(sheet_row(r)))
                        for r in after.history[len(state.history):]]
                human = seats[seat].kind == "human"
                await store.append_action(
                    gid, version, move_record(seat, str(action), BY_HUMAN if human else
                                              BY_COMPUTER),
                    snapshot(after), deadline=None, sheet_rows=rows, human=human)
                version += 1
                state = after
            moves_total += version
            s = Session(gid, chat_id, "private" if solo else "supergroup", "ru", seats[0].user_id,
                        "playing", rules, game_seed, seats, level="random", state=state,
                        store_version=version)
            shown.digests.clear()
            room.refresh(s)
            deal = deal_number(state)
            ids: dict[str, Any] = {"level": "random"}
            for key, digest in shown.digests.items():
                mid += 1
                if key.startswith("t"):
                    ids["t"] = [deal, mid, digest]
                else:
                    seat_no = int(key.split(":")[1])
                    ids.setdefault("h", {})[str(seat_no)] = [deal, mid, digest]
            await store.set_message_ids(gid, json.dumps(ids))
            if solo and not target:
                seat = state.to_act
                action = rng.choice(list(view(state, seat).legal))
                target = {"game": gid, "user": seats[seat].user_id, "chat": chat_id,
                          "message": ids["h"][str(seat)][1],
                          "data": action_data(gid, version, action)}
    return {"games": games, "moves": moves_total, "seconds": time.perf_counter() - started,
            "target": target, "users": users, "groups": groups}


# ---------------------------------------------------------------------------- the server


def _serve(conn: multiprocessing.connection.Connection, built: dict[str, Any]) -> None:
    try:
        asyncio.run(_server(conn, built))
    except BaseException as e:
        conn.send({"error": repr(e)})
        raise


async def _server(conn: multiprocessing.connection.Connection, built: dict[str, Any]) -> None:
    from tests.fakeapi import FakeTelegramServer

    target = built["target"]
    server = FakeTelegramServer(callback_answer_timeout=120.0)
    async with server:
        people = {}
        for uid in built["users"]:  # the people of the games (they started the bot)
            people[uid] = server.add_user(uid, f"U{uid}", language_code="ru")
            people[uid].started = True
        for chat_id, *members in built["groups"]:
            server.add_group(chat_id, f"G{chat_id}", members=[people[m] for m in members])
        presser = people[int(target["user"])]
        newcomer = server.add_user(NEWCOMER, "New", language_code="ru")
        query = server.press_nowait(presser, presser, int(target["message"]),
                                    str(target["data"]), strict=False)
        await server.send_text(newcomer, newcomer, "/start")
        conn.send({"token": server.token, "base_url": server.base_url})
        loop = asyncio.get_running_loop()
        times: dict[str, float] = {}
        end = loop.time() + 120.0
        while not ("press" in times and "start" in times) and loop.time() < end:
            if "press" not in times and query.answer is not None:
                times["press"] = time.time()
                times["press_text"] = 0.0 if not query.answer.text else 1.0
            if "start" not in times and server.chat(newcomer).bot_messages():
                times["start"] = time.time()
            await asyncio.sleep(0.002)
        conn.send(times)
        await loop.run_in_executor(None, conn.recv)  # the bot stopped
        kinds: dict[str, int] = {}
        for r in server.requests:
            kinds[r.method] = kinds.get(r.method, 0) + 1
        conn.send({"not_modified": len(server.not_modified), "kinds": kinds})


# ---------------------------------------------------------------------------- the bot


async def _bot(args: argparse.Namespace, db: str, hello: dict[str, Any],
               parent: multiprocessing.connection.Connection) -> dict[str, Any]:
    t_import = time.time()
    from bot.config import load_settings
    from bot.tg.io.app import build_application

    settings = load_settings(
        telegram_bot_token=hello["token"], telegram_api_url=hello["base_url"],
        database_path=db, computer_move_delay=1.0, computer_level="random",
        messages_per_second=0, log_level="WARNING")
    t0 = time.time()
    app = build_application(settings)
    await app.initialize()
    service = app.service
    assert service is not None and app.updater is not None
    if args.eager:
        await service.restored.wait()
    await app.updater.start_polling(poll_interval=0.0, timeout=1)
    await app.start()
    t_polling = time.time()
    loop = asyncio.get_running_loop()
    times: dict[str, float] = await loop.run_in_executor(None, parent.recv)
    await service.restored.wait()
    t_all = time.time()
    await service.outbox.idle(30.0)  # what the restore sends, sent (counted by the server)
    ok = bool(times.get("press")) and times.get("press_text") == 0.0
    await app.updater.stop()
    await app.stop()
    await app.shutdown()
    return {"t_import": t_import, "t0": t0, "polling": t_polling, "all": t_all, "ok": ok,
            **{k: v for k, v in times.items() if k != "press_text"}}


async def _run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    for name in ("httpx", "aiohttp"):
        logging.getLogger(name).setLevel(logging.WARNING)
    started = _process_started()
    ctx = multiprocessing.get_context("spawn")
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory() as tmp:
        kept = args.db or str(Path(tmp) / "restart.sqlite3")
        db = str(Path(tmp) / "run.sqlite3")  # the bot runs on a copy: the kept file stays
        sidecar = Path(kept + ".json")
        if args.db and Path(kept).exists() and sidecar.exists():  # written by an earlier run
            built = json.loads(sidecar.read_text())
            print(f"bench restart: {built['games']} live games ({built['moves']} moves) "
                  f"from {kept}")
        else:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_build, args=(child, kept, args.games, args.seed),
                               daemon=True)
            proc.start()
            built = await loop.run_in_executor(None, parent.recv)
            proc.join(10)
            if "error" in built:
                print(f"bench restart: building the database failed: {built['error']}",
                      file=sys.stderr)
                return 1
            print(f"bench restart: {built['games']} live games ({built['moves']} moves) "
                  f"written in {built['seconds']:.1f} s")
            if args.db:
                sidecar.write_text(json.dumps(built))
        for suffix in ("", "-wal", "-shm"):
            if Path(kept + suffix).exists():
                shutil.copyfile(kept + suffix, db + suffix)
        parent, child = ctx.Pipe()
        srv = ctx.Process(target=_serve, args=(child, built), daemon=True)
        srv.start()
        hello = await loop.run_in_executor(None, parent.recv)
        if "error" in hello:
            print(f"bench restart: the fake server failed: {hello['error']}", file=sys.stderr)
            return 1
        before_bot = time.time()
        r = await _bot(args, db, hello, parent)
        counts: dict[str, Any] = {}
        with contextlib.suppress(OSError, EOFError):
            parent.send("bye")
            if parent.poll(10):
                counts = parent.recv()
        srv.join(10)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    mode = "eager (every game rebuilt before polling)" if args.eager else "lazy"
    print(f"  restore: {mode}; figures are wall-clock seconds on a shared, noisy machine")
    print(f"  imports of the bot: {r['t0'] - r['t_import']:.2f} s "
          f"(this process started {before_bot - started:.1f} s before the bot: "
          f"it built the fixtures)")
    if "press" in r:
        print(f"  build_application -> the press on a live game answered: "
              f"{r['press'] - r['t0']:.2f} s (from the imports: "
              f"{r['press'] - r['t_import']:.2f} s){'' if r['ok'] else ' [REFUSED]'}")
    else:
        print("  the press was not answered (a callback query older than ~15 s can no longer "
              "be answered: Telegram's limit, which the fake server keeps)")
    if "start" in r:
        print(f"  build_application -> /start in a new chat answered: {r['start'] - r['t0']:.2f} s")
    print(f"  build_application -> polling: {r['polling'] - r['t0']:.2f} s; "
          f"-> every game rebuilt: {r['all'] - r['t0']:.2f} s")
    print(f"  peak memory of the bot process: {peak:.0f} MB")
    kinds = {k: n for k, n in sorted(counts.get("kinds", {}).items()) if k != "getUpdates"}
    print(f"  'message is not modified' answers: {counts.get('not_modified', '?')}; the bot's "
          f"requests (all of them, restore included): "
          + ", ".join(f"{k} {n}" for k, n in kinds.items()))
    return 0 if r["ok"] and "start" in r and counts.get("not_modified") == 0 else 1


def bench_restart(argv: list[str]) -> int:
    try:
        import tests.fakeapi  # noqa: F401
    except ImportError:
        print("bench restart: needs the source checkout (the fake Bot API server is in "
              "tests/fakeapi); run it from the project's directory", file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(prog="python -m bot bench restart")
    p.add_argument("--games", type=int, default=1000, help="live games in the database")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eager", action="store_true",
                   help="rebuild every game before polling (the old start-up), to compare")
    p.add_argument("--db", default="",
                   help="keep the games in this file (default: a temporary one); a file "
                        "kept by an earlier run is used again (the bot runs on a copy)")
    args = p.parse_args(argv)
    return asyncio.run(_run(args))
