"""A person alone against two computer players, on the fake Bot API server."""

from __future__ import annotations

import time
from pathlib import Path

from bot.engine.views import view
from bot.tg.callbacks import decode
from tests.bot.helpers import (
    buttons_at,
    first_button,
    idle,
    play,
    running,
    service,
    smart,
    start_private,
    txt,
)
from tests.fakeapi import FakeTelegramServer


async def test_solo_game_to_its_end(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with running(server, db) as app:
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame")
        gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        first = await server.wait_bot_message(anna, predicate=lambda m: "Кон 1" in (m.text or ""))
        assert "🤖" in txt(first) and "Ваши карты" in txt(first)
        started = time.monotonic()
        presses = await play(server, app, gid, {0: anna}, policy=smart, seed=1, timeout=20)
        assert presses > 20
        await idle(app)
        last = server.chat(anna).last_bot_message()
        assert last is not None and "🏆" in txt(last)
        assert not last.buttons
        game = await app.service.storage.get_game(gid) if app.service else None
        assert game is not None and game.status == "finished"
        result = await service(app).storage.get_result(gid)
        assert result is not None and result.winner_seat is not None
        # the score sheet of the finished game
        before = server.chat(anna).last_bot_message()
        await server.send_text(anna, anna, "/score")
        sheet = await server.wait_bot_message(anna, after=before)
        assert "Запись последней партии" in txt(sheet) and "#" in txt(sheet)
        assert time.monotonic() - started < 60
    server.assert_clean()


async def test_solo_buttons_are_only_legal_actions(server: FakeTelegramServer, db: Path) -> None:
    boris = server.add_user(1002, "Boris", language_code="en")
    async with running(server, db, seed=5) as app:
        await start_private(server, boris)
        await server.send_text(boris, boris, "/newgame 2")
        gid = await server.wait_for(lambda: service(app).by_chat.get(boris.id))
        s = service(app).sessions[gid]
        checked = 0
        while checked < 15:
            st = s.state
            assert st is not None
            if st.to_act != 0:
                await play(server, app, gid, {0: boris}, max_moves=0)
                await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
                continue
            msg = await buttons_at(server, boris, gid, st.version)
            assert "Deal" in txt(msg) and "Your" in txt(msg)
            legal = set(view(st, 0).legal)
            shown = set()
            for b in msg.all_buttons:
                c = decode(b.callback_data)
                assert c is not None and c.version == st.version
                action = c.action()
                assert action is not None and action in legal
                shown.add(action)
            assert shown and shown <= legal
            checked += 1
            await play(server, app, gid, {0: boris}, policy=first_button, max_moves=1)
        await idle(app)
    server.assert_clean()
