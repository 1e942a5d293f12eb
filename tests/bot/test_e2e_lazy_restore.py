"""Restart without waiting (issue 12): the bot answers before the games in progress are
rebuilt; a game is rebuilt when first touched, once, whoever touches it first."""

from __future__ import annotations

import asyncio
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from bot.tg.rooms.restore import RestoreRoom
from bot.tg.rooms.service import Session
from storage import Game
from tests.bot.helpers import (
    action_button,
    idle,
    running,
    service,
    session,
    start_private,
)
from tests.fakeapi import FakeTelegramServer, FakeUser


async def test_a_press_on_a_game_not_rebuilt_yet_is_answered_and_rebuilds_it_once(
        server: FakeTelegramServer, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    people = [server.add_user(5101 + i, f"P{i}") for i in range(3)]
    games: dict[int, int] = {}
    versions: dict[int, int] = {}
    async with running(server, db) as app:
        await start_private(server, *people)
        for p in people:
            await server.send_text(p, p, "/newgame 3")
            games[p.id] = await server.wait_for(partial(service(app).by_chat.get, p.id))
        for p in people:  # each game waits for its person (the computers moved)
            s = session(app, games[p.id])
            assert s is not None

            def turn(s: Session = s, p: FakeUser = p) -> bool:
                st = s.state
                return st is not None and st.to_act == 0 \
                    and action_button(server, p, s.game_id, st.version) is not None

            await server.wait_for(turn, what="the person's turn")
            assert s.state is not None
            versions[p.id] = s.state.version
        await idle(app)
    # the next start: the background restore is held back, and every rebuild is counted
    rebuilt: Counter[int] = Counter()
    real_one, real_rest = RestoreRoom._restore_one, RestoreRoom._restore_rest
    gate = asyncio.Event()

    async def counting(self: RestoreRoom, game: Game) -> None:
        rebuilt[game.game_id] += 1
        await asyncio.sleep(0.05)  # a slow rebuild: presses meanwhile must wait for it
        await real_one(self, game)

    async def held(self: RestoreRoom) -> None:
        await gate.wait()
        await real_rest(self)

    monkeypatch.setattr(RestoreRoom, "_restore_one", counting)
    monkeypatch.setattr(RestoreRoom, "_restore_rest", held)
    async with running(server, db, seed=2) as app:
        svc = service(app)
        assert set(svc.pending) == set(games.values()) and not svc.sessions
        anna, boris = people[0], people[1]
        gid, version = games[anna.id], versions[anna.id]
        found = action_button(server, anna, gid, version)
        assert found is not None
        msg, button = found
        assert button.callback_data is not None
        # two presses at once on the game nobody rebuilt yet: one rebuild, one move
        q1 = server.press_nowait(anna, anna, msg.message_id, button.callback_data)
        q2 = server.press_nowait(anna, anna, msg.message_id, button.callback_data)
        a1, a2 = await server.wait_answer(q1), await server.wait_answer(q2)
        assert a1 is not None and a2 is not None
        assert sorted([a1.text is None, a2.text is None]) == [False, True]  # one accepted
        s = session(app, gid)
        assert s is not None and s.state is not None and s.state.version > version
        assert (await svc.storage.get_game(gid) or pytest.fail()).version > 0
        assert rebuilt[gid] == 1
        # a command in another person's chat rebuilds that game (and only that one)
        before = server.chat(boris).last_bot_message()
        await server.send_text(boris, boris, "/score")
        await server.wait_bot_message(boris, after=before)
        assert games[boris.id] in svc.sessions and rebuilt[games[boris.id]] == 1
        third = games[people[2].id]
        assert third in svc.pending and rebuilt[third] == 0
        # the background restore does the rest, and nothing twice
        gate.set()
        await asyncio.wait_for(svc.restored.wait(), 10)
        assert not svc.pending and set(svc.sessions) == set(games.values())
        assert rebuilt == Counter({g: 1 for g in games.values()})
        await idle(app)
        for p in people:
            await server.send_text(p, p, "/stop")
        await server.wait_for(lambda: not svc.sessions, what="every game stopped")
        await idle(app)
    server.assert_clean()


async def test_background_restore_and_a_touch_of_the_same_game_rebuild_it_once(
        server: FakeTelegramServer, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    vera = server.add_user(5201, "Вера")
    async with running(server, db) as app:
        await start_private(server, vera)
        await server.send_text(vera, vera, "/newgame 3")
        gid = await server.wait_for(lambda: service(app).by_chat.get(vera.id))
        await idle(app)
    rebuilt: Counter[int] = Counter()
    real_one = RestoreRoom._restore_one
    started = asyncio.Event()

    async def slow(self: RestoreRoom, game: Game) -> None:
        rebuilt[game.game_id] += 1
        started.set()
        await asyncio.sleep(0.3)  # the background restore is in the middle of it
        await real_one(self, game)

    monkeypatch.setattr(RestoreRoom, "_restore_one", slow)
    async with running(server, db, seed=3) as app:
        svc = service(app)
        await asyncio.wait_for(started.wait(), 5)  # the background restore began
        await svc.restore.touch_game(gid)  # a press meanwhile: waits, does not rebuild again
        assert gid in svc.sessions and rebuilt[gid] == 1
        await svc.touch_chat(vera.id)
        await asyncio.wait_for(svc.restored.wait(), 5)
        assert rebuilt[gid] == 1
        await server.send_text(vera, vera, "/stop")
        await server.wait_for(lambda: not svc.sessions, what="the game stopped")
        await idle(app)
    server.assert_clean()
