"""``python -m bot bench faults``: Telegram having a bad minute (issue 22), as a figure.

The real bot (``build_application``, the production settings but for the database in a
temporary directory and the options below) plays ``--games`` games against the fake Bot API
server (``tests/fakeapi``), in this process: ``--groups`` of them are group tables of three
people, the rest solo games of one person against two computer players.  Everybody has
written ``/start`` to the bot before; then the faults are switched on for sends, edits and
callback answers (``FakeTelegramServer.set_faults``): a share ``--fail`` answered 502 Bad
Gateway before the method ran, a share ``--delay`` run at once but answered only after
``--delay-seconds`` (longer than the bot's ``REQUEST_TIMEOUT``: the bot does not know the
outcome).  Under them the games are opened (``/newgame 3``; a group's two others sit down and
its creator starts) and played for ``--seconds``: the person to act presses the button of
the move a plain player would make about ``--think`` s after it shows, and waits for the
move.  Then the
faults stop (``clear_faults``) and every game must go on: the person to act next (after the
computers' replies) finds the button of the game's current state in their message, presses
it, gets an answer without a popup, and the game moves.

Printed, and the targets (the exit status is 1 when one is missed):

* requests the bot made, the 502s and the late answers among them (by kind), and the late
  answers to a send that the bot stopped waiting for;
* messages posted twice: ``FakeTelegramServer.duplicates()``, the definition
  ``tests/bot/test_e2e_faults.py`` asserts on — two or more messages of the bot with the
  same chat, topic, thread, message replied to, text or caption and inline keyboard as sent
  (before any edit) and the same file bytes, deleted ones too; a message posted twice counts
  1 (``duplicate_count()``).  Target 0;
* tracebacks in the bot's log: log records (any logger, INFO and up) carrying exception
  info or a stack, or with "Traceback" in their text.  Target 0;
* games that went on once the faults stopped.  Target: all of them (a game that ended under
  the faults counts as gone on);
* the fake server's spec violations and its own errors (0, or the run proves nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakeapi import FakeUser

KINDS = ("send", "edit", "answer")


class _Log(logging.Handler):
    """Keeps every record of the bot's log (and optionally writes it to a file)."""

    def __init__(self, path: str | None) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []
        self.file = open(path, "w", encoding="utf-8") if path else None  # noqa: SIM115
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        if self.file is not None:
            self.file.write(self.format(record) + "\n")

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        super().close()

    def tracebacks(self) -> list[logging.LogRecord]:
        return [r for r in self.records
                if r.exc_info or r.stack_info or "Traceback" in r.getMessage()]


@dataclass
class Game:
    """One game of the run: its chat, its people by seat (computers have none)."""

    chat: int
    creator: FakeUser
    others: list[FakeUser]
    group: bool
    game_id: int | None = None
    seats: dict[int, FakeUser] = field(default_factory=dict)
    presses: int = 0
    stuck: int = 0  # waits for a button or a move that ran out (under faults)
    went_on: bool = False
    finished: bool = False
    why: str = ""


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bot bench faults")
    p.add_argument("--games", type=int, default=20, help="games played at once")
    p.add_argument("--groups", type=int, default=None,
                   help="how many of them are group tables of three people (default: a "
                        "quarter, at least one); the rest are solo games")
    p.add_argument("--fail", type=float, default=0.08,
                   help="share of sends, edits and callback answers answered 502 (not run)")
    p.add_argument("--delay", type=float, default=0.03,
                   help="share of them run at once but answered late")
    p.add_argument("--delay-seconds", type=float, default=12.0,
                   help="how late a late answer comes")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="how long the faults last (the games are opened and played meanwhile)")
    p.add_argument("--request-timeout", type=float, default=None,
                   help="the bot's REQUEST_TIMEOUT (default: the bot's, 5 s)")
    p.add_argument("--send-timeout", type=float, default=None,
                   help="the bot's SEND_TIMEOUT (default: the bot's, 60 s)")
    p.add_argument("--computer-delay", type=float, default=None,
                   help="COMPUTER_MOVE_DELAY (default: the bot's, 1 s)")
    p.add_argument("--think", type=float, default=1.0,
                   help="seconds a person looks at the cards before pressing (mean)")
    p.add_argument("--wait", type=float, default=60.0,
                   help="seconds a game has to go on once the faults stopped")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--log", metavar="FILE", help="write the bot's whole log to FILE")
    args = p.parse_args(argv)
    if args.groups is None:
        args.groups = max(1, args.games // 4)
    args.groups = min(args.groups, args.games)
    if args.fail < 0 or args.delay < 0 or args.fail + args.delay > 1:
        p.error("--fail and --delay are shares: 0 <= each, their sum <= 1")
    return args


async def _run(args: argparse.Namespace, log: _Log) -> int:
    from bot.config import load_settings
    from bot.engine.game import forced_action
    from bot.engine.state import Action
    from bot.engine.views import view
    from bot.tg.io.app import build_application
    from bot.tg.rooms.service import Session
    from tests.bot.helpers import action_button, smart, start_private
    from tests.fakeapi import FakeMessage, FakeTelegramServer, polling
    from tests.fakeapi.server import BAD_GATEWAY, LATE, Button

    loop = asyncio.get_running_loop()
    rng = random.Random(args.seed)
    extra: dict[str, Any] = {}
    if args.request_timeout is not None:
        extra["request_timeout"] = args.request_timeout
    if args.send_timeout is not None:
        extra["send_timeout"] = args.send_timeout
    if args.computer_delay is not None:
        extra["computer_move_delay"] = args.computer_delay
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        server = FakeTelegramServer()
        async with server:
            settings = load_settings(
                telegram_bot_token=server.token, telegram_api_url=server.base_url,
                database_path=str(Path(tmp) / "faults.sqlite3"), computer_level="random",
                log_level="INFO", **extra)
            app = build_application(settings, rng=random.Random(args.seed))
            games: list[Game] = []
            uid = 30_000
            for i in range(args.games):
                group = i < args.groups
                people = [server.add_user(uid + k, f"P{uid + k}") for k in range(3 if group else 1)]
                uid += len(people)
                chat = -400_300 - i if group else people[0].id
                if group:
                    server.add_group(chat, f"Table {i}", members=people[1:], admins=people[:1])
                games.append(Game(chat, people[0], people[1:], group))
            async with polling(app):
                service = app.service
                assert service is not None
                await start_private(server, *(p for g in games for p in (g.creator, *g.others)))

                def current(g: Game) -> Session | None:
                    if g.game_id is None:
                        gid = service.by_chat.get(g.chat)
                        if gid is None:
                            return None
                        g.game_id = gid
                    return service.sessions.get(g.game_id)

                async def until(cond: Any, timeout: float) -> Any:
                    try:
                        return await server.wait_for(cond, timeout)
                    except TimeoutError:
                        return None

                async def press_in(g: Game, user: FakeUser, part: str, done: Any) -> bool:
                    """Press the lobby button whose data has ``part`` until ``done()``."""
                    for _ in range(5):
                        def lobby() -> FakeMessage | None:
                            for m in reversed(server.chat(g.chat).bot_messages()):
                                if any(part in (b.callback_data or "") for b in m.all_buttons):
                                    return m
                            return None

                        msg = await until(lambda: done() or lobby(), 30.0)
                        if msg is None or msg is True:
                            return msg is True
                        button = next(b for b in msg.all_buttons
                                      if part in (b.callback_data or ""))
                        assert button.callback_data is not None
                        server.press_nowait(user, g.chat, msg.message_id, button.callback_data,
                                            strict=False)
                        if await until(done, 20.0):
                            return True
                    return False

                async def open_game(g: Game) -> bool:
                    await server.send_text(g.creator, g.chat, "/newgame 3")
                    if await until(lambda: current(g) is not None, 30.0) is None:
                        g.why = "no game after /newgame"
                        return False
                    for person in g.others:
                        def sat(person: FakeUser = person) -> bool:
                            s = current(g)
                            return s is not None and any(x.user_id == person.id
                                                         for x in s.seats)
                        if not await press_in(g, person, ":j:", sat):
                            g.why = "a person could not sit down"
                            return False

                    def playing() -> bool:
                        s = current(g)
                        return s is not None and s.status != "lobby" and s.state is not None

                    if g.group and not await press_in(g, g.creator, ":st:", playing):
                        g.why = "the table did not start"
                        return False
                    if await until(playing, 30.0) is None:
                        g.why = "the game did not start"
                        return False
                    s = current(g)
                    assert s is not None
                    people = {p.id: p for p in (g.creator, *g.others)}
                    g.seats = {i: people[x.user_id] for i, x in enumerate(s.seats)
                               if x.user_id in people and not x.computer}
                    return True

                async def move(g: Game, until_t: float, *, strict: bool) -> str:
                    """One step of the game: the next person's press (or the computers'
                    moves); "pressed", "moved" (no press needed), "over", or "stuck"."""
                    s = current(g)
                    if s is None or s.state is None or s.status != "playing":
                        return "over"
                    st = s.state

                    def moved() -> bool:
                        x = current(g)
                        return x is not s or s.state is not st or s.status != "playing"

                    seat = st.to_act
                    user = g.seats.get(seat)
                    left = max(0.1, until_t - loop.time())
                    if user is None or s.seats[seat].played_by_computer or \
                            (s.forced and forced_action(st) is not None):
                        return "moved" if await until(moved, left) else "stuck"
                    action = smart(view(st, seat), rng)

                    def ready(user: FakeUser = user, version: int = st.version,
                              action: Action = action) -> tuple[FakeMessage, Button] | None:
                        return action_button(server, user, s.game_id, version, action)

                    found = await until(lambda: ready() or moved(), left)
                    if found is None:
                        return "stuck"
                    if not isinstance(found, tuple):
                        return "moved"
                    if args.think:  # the person looks at the cards first
                        await asyncio.sleep(args.think * rng.uniform(0.5, 1.5))
                        found = ready()
                        if found is None:
                            return "moved"
                    msg, button = found
                    assert button.callback_data is not None
                    if strict:  # no faults: the press is answered, without a popup
                        left = max(0.1, until_t - loop.time())
                        answer = await server.press(user, user.chat, msg.message_id,
                                                    button.callback_data, timeout=left)
                        if answer is None or answer.text is not None:
                            g.why = ("the press was not answered" if answer is None
                                     else f"the press was refused: {answer.text}")
                            return "stuck"
                    else:
                        server.press_nowait(user, user.chat, msg.message_id,
                                            button.callback_data, strict=False)
                        g.presses += 1
                    left = max(0.1, until_t - loop.time())
                    return "pressed" if await until(moved, left) else "stuck"

                async def under_faults(g: Game, deadline: float) -> None:
                    if not await open_game(g):
                        return
                    while loop.time() < deadline:
                        got = await move(g, min(deadline, loop.time() + 30.0), strict=False)
                        if got == "over":
                            return
                        if got == "stuck" and loop.time() < deadline:
                            g.stuck += 1

                async def goes_on(g: Game) -> None:
                    end = loop.time() + args.wait
                    if not g.seats:
                        g.why = ""
                        if not await open_game(g):  # not opened under the faults: now
                            return
                    g.why = ""
                    while loop.time() < end:
                        got = await move(g, end, strict=True)
                        if got == "over":
                            s = current(g)
                            g.finished = g.went_on = s is not None and s.status == "finished"
                            if not g.went_on:
                                g.why = "the game is gone"
                            return
                        if got == "pressed":
                            g.went_on, g.why = True, ""
                            return
                        if got == "stuck" and g.why:
                            return
                    g.why = g.why or f"no move within {args.wait:g} s"

                first = len(server.requests)
                for kind in KINDS:
                    server.set_faults(kind, fail=args.fail, delay=args.delay,
                                      delay_seconds=args.delay_seconds, seed=args.seed)
                deadline = loop.time() + args.seconds
                await asyncio.gather(*(under_faults(g, deadline) for g in games))
                opened = sum(1 for g in games if g.seats)
                server.clear_faults()
                faults_over = len(server.requests)
                await asyncio.gather(*(goes_on(g) for g in games))
                # the late answers still held back, and what the outbox has left
                await asyncio.sleep(0.1)
                await service.outbox.idle(args.delay_seconds + 10.0)
            bot_requests = [r for r in server.requests[first:] if r.method != "getUpdates"]
            duplicates = server.duplicates()
            faulted = server.faulted
            violations = len(server.violations)
            internal = len(server.internal_errors)
            not_modified = len(server.not_modified)
            under = sum(1 for r in server.requests[first:faults_over] if r.method != "getUpdates")
    log.flush()
    tracebacks = log.tracebacks()
    levels = Counter(r.levelname for r in log.records)
    elapsed = time.perf_counter() - started

    def by_kind(fault: str) -> str:
        c = Counter(k for r in faulted if r.fault == fault for k in [_kind(r.method)])
        return ", ".join(f"{k} {c[k]}" for k in KINDS if c[k]) or "none"

    kinds = Counter(r.method for r in bot_requests)
    bad = [r for r in faulted if r.fault == BAD_GATEWAY]
    late = [r for r in faulted if r.fault == LATE]
    late_sends_dropped = sum(1 for r in late if _kind(r.method) == "send" and r.abandoned)
    went = [g for g in games if g.went_on]
    solo = [g for g in games if not g.group]
    print(f"bench faults: {args.games} games ({args.groups} group tables of three people, "
          f"{len(solo)} solo against two computers); {args.fail:.0%} of sends, edits and "
          f"callback answers answered 502, {args.delay:.0%} answered {args.delay_seconds:g} s "
          f"late, for {args.seconds:g} s; REQUEST_TIMEOUT {settings.request_timeout:g} s, "
          f"SEND_TIMEOUT {settings.send_timeout:g} s, COMPUTER_MOVE_DELAY "
          f"{settings.computer_move_delay:g} s")
    print(f"  requests the bot made: {len(bot_requests)} ({under} under the faults; "
          + ", ".join(f"{k} {n}" for k, n in kinds.most_common()) + ")")
    print(f"  games opened under the faults: {opened} of {len(games)}; presses under them: "
          f"{sum(g.presses for g in games)} "
          f"(waits for a button or a move that ran out: {sum(g.stuck for g in games)})")
    print(f"  502s: {len(bad)} ({by_kind(BAD_GATEWAY)}); late answers: {len(late)} "
          f"({by_kind(LATE)}), late answers to a send the bot stopped waiting for: "
          f"{late_sends_dropped}; 'not modified' {not_modified}")
    print(f"  messages posted twice: {sum(len(run) - 1 for run in duplicates)}")
    for run in duplicates[:5]:
        m = run[0]
        print(f"    chat {m.chat.id}: {len(run)} × {(m.first_text or '')[:60]!r}")
    print(f"  tracebacks in the bot's log: {len(tracebacks)} (log records: "
          + ", ".join(f"{k} {n}" for k, n in sorted(levels.items())) + ")")
    for r in tracebacks[:3]:
        print(f"    {r.levelname} {r.name}: {r.getMessage()[:200]}")
    print(f"  games that went on once the faults stopped: {len(went)} of {len(games)} "
          f"({sum(g.finished for g in games)} had ended)")
    for g in games:
        if not g.went_on:
            print(f"    {'group' if g.group else 'solo'} game {g.game_id} in chat {g.chat}: "
                  f"{g.why}")
    print(f"  spec violations {violations}, fake server errors {internal}")
    print(f"bench faults: the whole run took {elapsed:.0f} s")
    missed = [name for name, ok in (
        ("messages posted twice", not duplicates), ("tracebacks", not tracebacks),
        ("games that went on", len(went) == len(games)),
        ("spec violations", violations == 0), ("fake server errors", internal == 0),
    ) if not ok]
    if missed:
        print("bench faults: target missed: " + ", ".join(missed))
        return 1
    print("bench faults: all targets met")
    return 0


def _kind(method: str) -> str:
    from tests.fakeapi.server import fault_kind

    return fault_kind(method) or method


def main(argv: list[str]) -> int:
    try:
        import tests.fakeapi  # noqa: F401
    except ImportError:
        print("bench faults: needs the source checkout (the fake Bot API server is in "
              "tests/fakeapi); run it from the project's directory", file=sys.stderr)
        return 2
    args = _parse(argv)
    log = _Log(args.log)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(log)
    root.setLevel(logging.INFO)
    quiet = {name: logging.getLogger(name).level for name in ("httpx", "httpcore", "aiohttp")}
    for name in quiet:
        logging.getLogger(name).setLevel(logging.WARNING)
    try:
        return asyncio.run(_run(args, log))
    finally:
        root.removeHandler(log)
        root.setLevel(old_level)
        for name, level in quiet.items():
            logging.getLogger(name).setLevel(level)
        log.close()
