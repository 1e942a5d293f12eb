"""Group tables on the fake Bot API server: lobbies, whole games, the people in them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.helpers import (
    idle,
    open_table,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.fakeapi import FakeTelegramServer

GROUP = -400100


# seeds whose games (people playing tests.bot.helpers.smart) end in 12-20 deals
@pytest.mark.parametrize(("players", "seed"), [(3, 24), (2, 26), (4, 44)])
async def test_group_game_played_to_its_end(server: FakeTelegramServer, db: Path,
                                            players: int, seed: int) -> None:
    people = [server.add_user(2001 + i, name)
              for i, name in enumerate(["Анна", "Борис", "Вера", "Глеб"][:players])]
    server.add_group(GROUP, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=seed) as app:
        await start_private(server, *people)
        gid, table = await open_table(server, app, GROUP, people[0], people[1:],
                                      args=str(players))
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id)
                 for i in range(players)}
        # every person got a private hand message; the group only the table
        for p in people:
            await server.wait_bot_message(p, predicate=lambda m: "Кон 1" in (m.text or ""))
        assert "Кон 1" in txt(table)
        presses = await play(server, app, gid, seats, seed=seed, timeout=20)
        assert presses > 30
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        final = server.chat(GROUP).last_bot_message()
        assert final is not None and "🏆" in txt(final)
        for p in people:
            last = server.chat(p).last_bot_message()
            assert last is not None and "🏆" in txt(last)
        # hands never reached the group: no "Ваши карты" line there, ever
        for m in server.chat(GROUP).bot_messages():
            assert "Ваши карты" not in txt(m)
            assert all("Ваши карты" not in (old.text or "") for old in m.history)
    server.assert_clean()
