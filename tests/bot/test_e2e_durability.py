"""A database that says no does not end a game; a game that cannot be restored does not
block its chat; idle lobbies and games expire; a restart sends nothing twice (issue 8)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import signal
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from bot.engine.state import Action
from bot.engine.views import view
from bot.tg.io.app import ThousandApplication
from storage import Storage
from tests.bot.helpers import (
    action_button,
    idle,
    open_table,
    play,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.bot.test_e2e_restart import _bot_process, _moves, changed, stop_process
from tests.fakeapi import FakeTelegramServer, FakeUser

GROUP = -600100


def _sqlite(app: ThousandApplication) -> Storage:
    """The bot's SQLite storage (these tests drive its own connection)."""
    store = service(app).storage
    assert isinstance(store, Storage)
    return store


async def _solo(server: FakeTelegramServer, app: ThousandApplication, vera: FakeUser) -> int:
    await server.send_text(vera, vera, "/newgame 3")
    s = await server.wait_for(lambda: service(app).session_of_chat(vera.id))
    return s.game_id


async def _vera_to_act(server: FakeTelegramServer, app: ThousandApplication, gid: int,
                       vera: FakeUser) -> tuple[int, str]:
    """Wait until Vera (seat 0) is to act and sees her buttons: (message id, data of the
    move ``smart`` picks)."""
    s = session(app, gid)
    assert s is not None
    await server.wait_for(lambda: s.state is not None and s.state.to_act == 0, 20)
    st = s.state
    assert st is not None
    action = smart(view(st, 0), random.Random(1))
    found = await server.wait_for(lambda: action_button(server, vera, gid, st.version, action))
    msg, button = found
    assert button.callback_data is not None
    return msg.message_id, button.callback_data


async def _press(server: FakeTelegramServer, vera: FakeUser, where: tuple[int, str]) -> str | None:
    answer = await server.press(vera, vera, where[0], where[1])
    assert answer is not None
    return answer.text


async def _finish(server: FakeTelegramServer, app: ThousandApplication, gid: int,
                  vera: FakeUser) -> None:
    await play(server, app, gid, {0: vera}, timeout=20)
    game = await service(app).storage.get_game(gid)
    assert game is not None and game.status == "finished", game


Outage = Callable[[], AbstractAsyncContextManager[None]]


async def _game_survives(server: FakeTelegramServer, app: ThousandApplication, vera: FakeUser,
                         outage: Outage) -> None:
    """A solo game goes through two outages of the database: during the first Vera's press
    is refused ("не сохранён") and changes nothing, then counts; the second comes right
    after her move, so the computers' moves wait (the driver retries with backoff, not
    lost) and are stored once it ends; the game then reaches its end."""
    await start_private(server, vera)
    gid = await _solo(server, app, vera)
    s = session(app, gid)
    assert s is not None
    button = await _vera_to_act(server, app, gid, vera)
    version = s.state.version if s.state else -1
    async with outage():
        text = await _press(server, vera, button)
        assert text is not None and "не сохранён" in text  # told, and nothing changed
        assert s.state is not None and s.state.version == version
    # the same press now counts; the computers' replies (made at once, issue 12) are held
    # back by their thinking until the second outage has begun
    thinking = asyncio.Event()
    thinker = service(app).thinker
    choose = thinker.choose

    async def held(*args: Any, **kwargs: Any) -> Action:
        await thinking.wait()
        return await choose(*args, **kwargs)

    thinker.choose = held  # type: ignore[method-assign]
    assert await _press(server, vera, button) is None
    await server.wait_for(lambda: s.state is not None and s.state.version > version)
    async with outage():
        thinking.set()
        await asyncio.sleep(1.5)
        stuck = s.state
        assert stuck is not None and s.driver is not None and not s.driver.done()
        await asyncio.sleep(0.5)
        assert s.state is stuck  # waiting, not lost: the driver retries with backoff
    await server.wait_for(lambda: s.state is not stuck, 20,
                          what="the computer's move after the database came back")
    service(app).config.move_delay = 0
    await _finish(server, app, gid, vera)
    await idle(app)


async def test_a_write_lock_held_past_the_busy_timeout_does_not_end_the_game(
        server: FakeTelegramServer, db: Path) -> None:
    """Another program holds the write lock longer than the busy timeout, twice."""

    @contextlib.asynccontextmanager
    async def write_lock() -> AsyncIterator[None]:
        other = sqlite3.connect(db, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()

    vera = server.add_user(6001, "Вера")
    async with running(server, db, database_busy_timeout=0.2, computer_move_delay=0.3) as app:
        await _game_survives(server, app, vera, write_lock)
    server.assert_clean()


async def test_a_read_only_database_for_a_while_does_not_end_the_game(
        server: FakeTelegramServer, db: Path) -> None:
    """Read-only as SQLite reports it ("attempt to write a readonly database"): the tests
    run as root, for whom a chmod does not stop writes, so the bot's own connection is put
    into ``PRAGMA query_only``, which fails every write with that very error."""
    vera = server.add_user(6011, "Вера")
    async with running(server, db, computer_move_delay=0.3) as app:
        db_conn = _sqlite(app)._db  # the bot's own connection

        @contextlib.asynccontextmanager
        async def read_only() -> AsyncIterator[None]:
            await db_conn.execute("PRAGMA query_only=ON")
            try:
                yield
            finally:
                await db_conn.execute("PRAGMA query_only=OFF")

        await _game_survives(server, app, vera, read_only)
    server.assert_clean()


async def test_a_lobby_press_that_cannot_be_stored_changes_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(6021, "Анна"), server.add_user(6022, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        s = session(app, gid)
        assert s is not None
        await idle(app)
        edits = lobby.edit_count
        db_conn = _sqlite(app)._db
        await db_conn.execute("PRAGMA query_only=ON")
        try:
            answer = await server.click(boris, lobby, contains="Сесть")
            assert answer is not None and answer.text is not None
            assert "не сохранён" in answer.text
        finally:
            await db_conn.execute("PRAGMA query_only=OFF")
        await idle(app)
        assert [x.user_id for x in s.seats] == [anna.id]
        assert lobby.edit_count == edits and "Борис" not in txt(lobby)
        answer = await server.click(boris, lobby, contains="Сесть")
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: "Борис" in txt(lobby))
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_a_game_that_cannot_be_restored_is_marked_broken_and_frees_the_chat(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(6031, "Анна"), server.add_user(6032, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, computer_move_delay=30) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        await idle(app)
    # the record is damaged behind the bot's back: a move that is not legal
    con = sqlite3.connect(db)
    con.execute("UPDATE game_actions SET action = ? WHERE game_id = ? AND seq = "
                "(SELECT MAX(seq) FROM game_actions WHERE game_id = ?)",
                (json.dumps({"s": 0, "a": "play 23", "by": "h"}), gid, gid))
    if con.execute("SELECT COUNT(*) FROM game_actions WHERE game_id = ?", (gid,)).fetchone()[0] \
            == 0:
        con.execute("UPDATE games SET rules = '{\"players\": 7}' WHERE game_id = ?", (gid,))
    con.commit()
    con.close()
    for restart in range(2):
        before = len(server.chat(GROUP).bot_messages())
        async with running(server, db) as app:
            await server.wait_for(lambda: service(app).storage is not None)
            await idle(app)
            told = [m for m in server.chat(GROUP).bot_messages()[before:]
                    if "не удалось восстановить" in txt(m)]
            assert len(told) == (1 if restart == 0 else 0)  # the chat is told once
            game = await service(app).storage.get_game(gid)
            assert game is not None and game.status == "broken"
            assert service(app).session_of_chat(GROUP) is None
            record = json.loads(await service(app).storage.export_game(gid))
            assert record["format"] == "thousand-record/1"
            if restart == 1:
                # /newgame works in that chat
                await open_table(server, app, GROUP, anna, [], start=False)
                await server.send_text(anna, GROUP, "/stop")
                await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
                await idle(app)
    server.assert_clean()


async def test_stop_and_newgame_agree_with_the_database(
        server: FakeTelegramServer, db: Path) -> None:
    """A game active in the database but not in memory (a failed restore, another process)
    is found by /newgame and /stop, not ignored by one and refused by the other."""
    anna = server.add_user(6041, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        gid, _ = await open_table(server, app, GROUP, anna, [], start=False)
        svc = service(app)
        s = session(app, gid)
        assert s is not None
        svc.kit.registry.unregister(s)  # memory forgets it; the database still has the lobby
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/newgame")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "уже" in txt(said)  # there is a game here
        assert svc.session_of_chat(GROUP) is not None
        svc.kit.registry.unregister(svc.sessions[gid])
        await server.send_text(anna, GROUP, "/stop")
        lobby = server.chat(GROUP).bot_messages()[0]
        await server.wait_for(lambda: "отменена" in txt(lobby), what="the lobby cancelled")
        await idle(app)
        assert await svc.storage.active_game(GROUP) is None
        assert svc.session_of_chat(GROUP) is None
    server.assert_clean()


async def test_idle_lobbies_and_games_expire(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(6051, "Анна"), server.add_user(6052, "Борис")
    vera = server.add_user(6053, "Вера")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, lobby_ttl=0.6, game_ttl=1.2) as app:
        await start_private(server, anna, boris, vera)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        await server.wait_for(lambda: "долго никто не садился" in txt(lobby), 5,
                              what="the idle lobby closed")
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "expired"
        # a solo game nobody moves in
        solo = await _solo(server, app, vera)
        await server.wait_for(lambda: service(app).session_of_chat(vera.id) is None, 6,
                              what="the idle game stopped")
        game = await service(app).storage.get_game(solo)
        assert game is not None and game.status == "expired"
        await server.wait_for(lambda: any("давно не было ходов" in txt(m)
                                          for m in server.chat(vera).bot_messages()))
        # the chat is free again
        await open_table(server, app, GROUP, anna, [], start=False)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_caches_are_pruned(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(6061, "Анна")
    async with running(server, db) as app:
        await start_private(server, anna)
        svc = service(app)
        for i in range(50):
            svc.kit.people.admins[(-1000 - i, i)] = (0.0, True)  # long expired
            svc.kit.registry.chat_lock(-2000 - i)
        svc.reply(anna.id, "x")  # a private chat's queue, idle once sent
        await idle(app)
        await svc.restore.sweep()
        assert not any(k[0] <= -1000 for k in svc.kit.people.admins)
        assert not any(c <= -2000 for c in svc.kit.registry.chat_locks)
        assert anna.id not in svc.outbox.queues
    server.assert_clean()


async def test_killed_at_any_moment_each_deal_is_posted_once(
        server: FakeTelegramServer, db: Path) -> None:
    """SIGKILL at several moments of a solo game (right after presses that end a deal among
    them): every deal's message reaches the person once, and "message is not modified" is
    provoked at most once per restart."""
    vera = server.add_user(6071, "Вера")
    proc = await _bot_process(server, db)
    kills = 0
    try:
        await server.send_text(vera, vera, "/newgame 3")
        await server.wait_bot_message(vera, predicate=lambda m: "Кон 1" in txt(m), timeout=20)
        rng = random.Random(7)
        for round_no in range(4):
            for _ in range(rng.randint(3, 25)):
                msg = await server.wait_for(
                    lambda: next((m for m in reversed(server.chat(vera).bot_messages())
                                  if _moves(m)), None), 20, what="a button")
                data = _moves(msg)[0]
                assert data is not None
                answer = await server.press(vera, vera, msg.message_id, data, timeout=10)
                assert answer is not None
                await changed(server, msg, data)
            if round_no < 3:
                proc.send_signal(signal.SIGKILL)
                await asyncio.wait_for(proc.wait(), 10)
                kills += 1
                proc = await _bot_process(server, db)
    finally:
        await stop_process(proc)
    assert kills == 3
    deals: dict[str, int] = {}
    for m in server.chat(vera).bot_messages():
        head = re.search(r"Кон (\d+)", txt(m))
        if head:
            deals[head.group(1)] = deals.get(head.group(1), 0) + 1
    print(f"kills: {kills}, deals seen: {len(deals)}, messages per deal: "
          f"{sorted(set(deals.values()))}, 'not modified': {len(server.not_modified)}")
    assert deals and all(n == 1 for n in deals.values()), deals
    server.assert_clean(allow_not_modified=True)
    assert len(server.not_modified) <= kills


async def test_a_background_task_that_dies_is_reported_and_restarted(
        server: FakeTelegramServer, db: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A computer player that crashes once (a bug, not the database): the supervisor logs
    it with the game id and re-arms the game, which goes on to its end."""
    vera = server.add_user(6081, "Вера")
    async with running(server, db) as app:
        await start_private(server, vera)
        svc = service(app)
        real = svc.thinker.choose
        crashes = 0

        async def flaky(*args: Any, **kw: Any) -> Action:
            nonlocal crashes
            if crashes < 2:
                crashes += 1
                raise RuntimeError("the computer player crashed")
            return await real(*args, **kw)

        svc.thinker.choose = flaky  # type: ignore[method-assign]
        gid = await _solo(server, app, vera)
        await _finish(server, app, gid, vera)
        assert crashes == 2
        died = [r for r in caplog.records if "background task" in r.getMessage()]
        assert died and all(f"game {gid}" in r.getMessage() for r in died)
        await idle(app)
    server.assert_clean()
