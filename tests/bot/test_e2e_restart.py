"""Restarts: the game goes on from its last accepted action, on the same messages, with its
computer moves and turn timers re-armed — after a clean stop and after ``kill -9``."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from bot.engine.views import view
from storage import Storage
from tests.bot.helpers import (
    action_button,
    idle,
    open_table,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.fakeapi import FakeMessage, FakeTelegramServer

GROUP = -400300
ROOT = Path(__file__).resolve().parents[2]


async def test_restart_in_the_middle_of_a_deal(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(4001, "Анна"), server.add_user(4002, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    # the first run: the computer thinks for a long time, so its move is pending at the stop
    async with running(server, db, seed=11, computer_move_delay=60) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        people = {i: server.user(s.seats[i].user_id) for i in range(3) if not s.seats[i].computer}
        computer = next(i for i in range(3) if s.seats[i].computer)
        while s.state.to_act != computer:  # people move until the computer must think
            await play(server, app, gid, people, max_moves=1)
        await idle(app)
        assert s.state is not None and s.state.to_act == computer
        version, deal = s.state.version, s.state.deal
        messages = {p.id: server.chat(p).last_bot_message() for p in people.values()}
        requests_before = len(server.requests)
    # the second run: the pending computer move is made at start-up, the people go on
    async with running(server, db, seed=99) as app:
        s2 = await server.wait_for(lambda: session(app, gid))
        await server.wait_for(lambda: s2.state is not None and s2.state.version > version, 5,
                              what="the computer move re-armed at start-up")
        assert s2.state is not None and s2.state.deal is not None and deal is not None
        assert s2.state.deal.number == deal.number
        st = s2.state
        person = people.get(st.to_act)
        if person is not None:
            found = await server.wait_for(lambda: action_button(server, person, gid, st.version))
            msg, _ = found
            old = messages[person.id]
            assert old is not None and msg.message_id == old.message_id  # the same message
        presses = await play(server, app, gid, people, max_moves=25)
        assert presses == 25
        await idle(app)
        assert len(server.requests) > requests_before
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_restart_rearms_the_turn_timer(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(4011, "Анна"), server.add_user(4012, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, seed=12, turn_timeout=2.0) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        # a person to act with a choice (an only move is played at once, not by the timer)
        await server.wait_for(lambda: s.state is not None
                              and not s.seats[s.state.to_act].computer
                              and len(view(s.state, s.state.to_act).legal) > 1)
        version = s.state.version
        await idle(app)
    async with running(server, db, seed=13, turn_timeout=2.0) as app:
        s2 = await server.wait_for(lambda: session(app, gid))
        await server.wait_for(lambda: s2.state is not None and s2.state.version > version, 6,
                              what="the move made for the absent person")
        records = await service(app).storage.actions(gid)
        assert '"by": "t"' in records[version]
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def _bot_process(server: FakeTelegramServer, db: Path,
                       **settings: str) -> asyncio.subprocess.Process:
    """``python -m bot``'s main() in a child process, configured through the environment
    (``settings``: more variables, or others' values, e.g. ``TURN_TIMEOUT="600"``)."""
    env = dict(os.environ)
    env.update({
        "TELEGRAM_BOT_TOKEN": server.token,
        "TELEGRAM_API_URL": server.base_url,
        "DATABASE_PATH": str(db),
        "COMPUTER_MOVE_DELAY": "0.05",
        "COMPUTER_LEVEL": "random",
        "MESSAGES_PER_SECOND": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
        **settings,
    })
    code = "import sys; from bot.run import main; sys.exit(main())"
    return await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, cwd=db.parent, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)


async def stop_process(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM (a clean stop) a bot process still running; kill it after 15 s."""
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()


def _moves(msg: FakeMessage) -> list[str]:
    """The move buttons' data of a message (not 💡, 🖼 and the like)."""
    return [b.callback_data for b in msg.all_buttons
            if b.callback_data is not None and ":a:" in b.callback_data]


async def changed(server: FakeTelegramServer, msg: FakeMessage, data: str) -> None:
    """Wait until ``msg`` no longer offers the button ``data`` first."""
    await server.wait_for(lambda: data not in _moves(msg),
                          10, what="the message to change")


async def test_a_killed_bot_goes_on_from_the_last_accepted_action(
        server: FakeTelegramServer, db: Path) -> None:
    vera = server.add_user(4021, "Вера")
    proc = await _bot_process(server, db)
    try:
        await server.send_text(vera, vera, "/newgame 3")
        first = await server.wait_bot_message(vera, predicate=lambda m: bool(m.buttons)
                                              or "Кон 1" in txt(m), timeout=20)
        assert "Кон 1" in txt(first)
        # press whatever is offered, a few times, then kill the process mid-deal
        presses = 0
        while presses < 6:
            msg = await server.wait_for(
                lambda: next((m for m in reversed(server.chat(vera).bot_messages())
                              if _moves(m)), None), 10, what="a button")
            data = _moves(msg)[0]
            assert data is not None
            answer = await server.press(vera, vera, msg.message_id, data)
            assert answer is not None
            if answer.text is not None:  # an only move the bot played itself meanwhile
                assert "устарела" in answer.text
                continue
            presses += 1
            await changed(server, msg, data)
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 10)
        async with Storage.open(db) as store:
            games = await store.games_in_progress()
            assert len(games) == 1
            stored = games[0].version
            assert stored >= presses
        # a new process: the game is there, at the stored version, and it goes on
        proc = await _bot_process(server, db)
        for _ in range(4):
            msg = await server.wait_for(
                lambda: next((m for m in reversed(server.chat(vera).bot_messages())
                              if _moves(m)), None), 20, what="a button after the restart")
            data = _moves(msg)[0]
            assert data is not None
            answer = await server.press(vera, vera, msg.message_id, data, timeout=10)
            assert answer is not None
            if answer.text is not None:  # an only move the bot played itself meanwhile
                assert "устарела" in answer.text
                continue
            await changed(server, msg, data)
        async with Storage.open(db) as store:
            game = (await store.games_in_progress())[0]
            assert game.version > stored
    finally:
        await stop_process(proc)
    assert proc.returncode == 0  # SIGTERM: a clean stop
    # after a kill the bot may repeat one edit Telegram already had ("not modified"): the
    # outbox takes that answer as success; nothing else may go wrong
    server.assert_clean(allow_not_modified=True)
    assert len(server.not_modified) <= 2
