"""``python -m bot bench feed``: how long a stored move takes to reach the other process's
change feed (``storage.feed``, ``docs/storage.md`` *The feed*).

On PostgreSQL (``--database-url URL``, or ``THOUSAND_TEST_PG_URL``): two
``PostgresStorage`` opened on that database, each with its own pool and its own ``LISTEN``
connection, as two bot processes have (both in this one process and event loop, so their
clocks are one).  ``--games`` games are played at once, each storing ``--moves`` moves in
all one after another as the bot does, half of the games through each storage; every move
is timed from the ``append_action`` call and from its return to the moment the *other*
storage's listener is told it.  The COMMIT lies between the call and the return, so the
delay from the COMMIT to the delivery lies between the two figures printed.  Without a URL
the same runs on one SQLite file (one process: the feed is in memory).

The games are created in the database named (a chat of its own, left there afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from storage import Backend, Storage, StorageError, open_storage
from storage.base import Change, FeedListener

__all__ = ["bench_feed"]

SNAPSHOT = json.dumps({"hands": [[random.Random(1).randrange(24) for _ in range(8)]] * 3,
                       "pad": "x" * 1500})
"""About the size of the bot's snapshot of a game (bytes), stored with each move."""


def _ms(values: Sequence[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return (f"p50 {statistics.median(ordered) * 1000:.2f} ms, p95 {at(0.95):.2f} ms, "
            f"max {ordered[-1] * 1000:.2f} ms")


async def _run(writers: Sequence[Backend], listeners: Sequence[Backend], games: int,
               moves: int) -> list[str]:
    heard: dict[Change, float] = {}
    done = asyncio.Event()
    want = games * moves
    hearer: dict[int, int] = {}  # game -> the index of the listener that times it

    def listener(index: int) -> FeedListener:
        def told(change: Change | None) -> None:
            if change is not None and change.version > 0 and hearer.get(change.game_id) == index:
                heard.setdefault(change, time.perf_counter())
                if len(heard) >= want:
                    done.set()

        return told

    chat = -random.randrange(10**9, 2 * 10**9)
    first = writers[0]
    await first.upsert_chat(chat, "group")
    ids: list[int] = []
    for _ in range(games):  # one chat, one game per (made-up) thread
        game = await first.create_game(chat, 1, rules="{}", seed=1, seats="[]",
                                       thread_id=len(ids) + 1)
        await first.start_game(game, 0, snapshot=SNAPSHOT, deadline=None)
        hearer[game] = len(ids) % len(listeners)
        ids.append(game)
    # Game i's moves go through writers[i % n] and are timed on listeners[i % n].
    stops = [store.feed.subscribe(listener(i)) for i, store in enumerate(listeners)]
    called: dict[Change, float] = {}
    returned: dict[Change, float] = {}

    async def play(index: int, game: int) -> None:
        writer = writers[index % len(writers)]
        for version in range(moves):
            change = Change(game, version + 1)
            called[change] = time.perf_counter()
            await writer.append_action(game, version, json.dumps({"move": version}),
                                       SNAPSHOT, deadline=None)
            returned[change] = time.perf_counter()

    start = time.perf_counter()
    await asyncio.gather(*(play(i, g) for i, g in enumerate(ids)))
    elapsed = time.perf_counter() - start
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), 10.0)
    for stop in stops:
        stop()
    missing = want - len(heard)
    timed = [c for c in returned if c in heard and c.version > 1]  # not a game's first move
    from_return = [heard[c] - returned[c] for c in timed]
    early = sum(d < 0 for d in from_return)
    return [
        f"  {want} moves in {elapsed:.2f} s ({want / elapsed:,.0f} moves/s); "
        f"heard {len(heard)}, missing {missing}; timed {len(timed)} (a game's first move,"
        " with its connection's first statements, is not)",
        f"  the append itself (call to return): {_ms([returned[c] - called[c] for c in timed])}",
        f"  from the append's call to heard:    {_ms([heard[c] - called[c] for c in timed])}",
        f"  from the append's return to heard:  {_ms([max(d, 0.0) for d in from_return])}"
        f" ({early} heard before the append returned: counted as 0)",
    ]


async def _postgres(url: str, games: int, moves: int) -> list[str]:
    first = await open_storage(database_url=url)
    second = await open_storage(database_url=url)
    try:
        # Games written through the first are heard on the second and the other way round.
        lines = await _run([first, second], [second, first], games, moves)
    finally:
        await first.close()
        await second.close()
    return ["two PostgresStorage on one database (two processes' pools and LISTEN"
            " connections), each move heard by the other:", *lines]


async def _sqlite(path: Path, games: int, moves: int) -> list[str]:
    async with Storage.open(path) as store:
        lines = await _run([store], [store], games, moves)
    return ["one SQLite Storage (one process, the feed in memory):", *lines]


def bench_feed(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot bench feed")
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--moves", type=int, default=40, help="moves per game")
    parser.add_argument("--database-url", metavar="URL",
                        default=os.environ.get("THOUSAND_TEST_PG_URL", ""),
                        help="PostgreSQL (default: THOUSAND_TEST_PG_URL); empty: SQLite")
    args = parser.parse_args(argv)
    if args.games < 1 or args.moves < 1:
        parser.error("need at least one game and one move")
    print(f"feed benchmark: {args.games} games at once x {args.moves} moves "
          f"(snapshot {len(SNAPSHOT)} bytes)")
    try:
        if args.database_url:
            lines = asyncio.run(_postgres(args.database_url, args.games, args.moves))
        else:
            with tempfile.TemporaryDirectory(prefix="bench-feed-") as tmp:
                lines = asyncio.run(_sqlite(Path(tmp) / "feed.sqlite3", args.games,
                                            args.moves))
    except StorageError as e:
        print(f"bench feed: {e}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0
