"""Players' records and ratings (issue 11) on the fake Bot API server: a solo and a group
game played to the end update the records and the ratings (the winner's goes up), /stats
and /top show them in Russian and English, and a game counts once across restarts — also
one whose count was lost in a crash right after its final move."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.ratings import MU, SIGMA
from bot.tg.io.app import ThousandApplication
from bot.tg.rooms.ratings import RatingsRoom
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
from tests.fakeapi import FakeTelegramServer, FakeUser
from tests.fakeapi.server import FakeMessage

GROUP = -900100


async def counted(app: ThousandApplication, game_id: int, timeout: float = 10.0) -> None:
    """Wait until the finished game's result was counted (a background write)."""
    store = service(app).storage
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await store.is_rated(game_id):
        assert loop.time() < end, f"game {game_id} was not counted"
        await asyncio.sleep(0.02)


async def ask(server: FakeTelegramServer, user: FakeUser, chat: int, text: str) -> FakeMessage:
    before = server.chat(chat).last_bot_message()
    await server.send_text(user, chat, text)
    return await server.wait_bot_message(chat, after=before)


async def solo_game(server: FakeTelegramServer, app: ThousandApplication, user: FakeUser,
                    seed: int) -> int:
    before = server.chat(user).last_bot_message()
    await server.send_text(user, user, "/newgame 2")
    await server.wait_bot_message(user, after=before)
    gid = await server.wait_for(lambda: service(app).by_chat.get(user.id))
    await play(server, app, gid, {0: user}, seed=seed, timeout=20)
    return gid


async def test_a_solo_game_counts_for_the_person_and_the_computer_level(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(9001, "Анна")
    john = server.add_user(9002, "John", language_code="en")
    async with running(server, db) as app:
        await start_private(server, anna, john)
        none = await ask(server, anna, anna.id, "/stats")
        assert "ещё нет доигранных партий" in txt(none)
        assert "no finished games" in txt(await ask(server, john, john.id, "/top"))
        gid = await solo_game(server, app, anna, seed=1)
        await counted(app, gid)
        store = service(app).storage
        result = await store.get_result(gid)
        assert result is not None and result.winner_seat is not None
        won = result.winner_seat == 0
        me, ai = await store.player_stats(f"u:{anna.id}"), await store.player_stats("ai:random")
        assert me is not None and ai is not None
        assert (me.games, me.wins, ai.games, ai.wins) == (1, int(won), 1, int(not won))
        assert me.place_sum == (1.0 if won else 2.0)
        assert me.mu is not None and ai.mu is not None and me.sigma is not None
        winner, loser = (me, ai) if won else (ai, me)
        assert winner.mu is not None and loser.mu is not None
        assert winner.mu > MU > loser.mu  # the rating moves the right way
        assert me.sigma < SIGMA  # and is surer after a game
        sheet = await store.score_sheet(gid)
        assert me.declared >= me.made and me.declared + (ai.declared or 0) > 0
        assert len(sheet) > 1
        stats = txt(await ask(server, anna, anna.id, "/stats"))
        assert "Статистика: Анна" in stats and "Партий: 1" in stats
        assert f"побед: {me.wins}" in stats and "Рейтинг:" in stats
        assert f"Заказано игр: {me.declared}, из них сыграно: {me.made}" in stats
        assert f"Падений с бочки: {me.falls}, болтов: {me.bolts}" in stats
        top = txt(await ask(server, anna, anna.id, "/top"))
        assert "Вы против компьютера" in top and "Уровень «случайный»" in top
        assert "партий 1" in top and f"побед {me.wins}" in top
        # John has played nothing: his /stats says so in English
        assert "no finished games" in txt(await ask(server, john, john.id, "/stats"))
        # a second game: the sums add up, the same computer level
        gid2 = await solo_game(server, app, anna, seed=2)
        await counted(app, gid2)
        me2 = await store.player_stats(f"u:{anna.id}")
        assert me2 is not None and me2.games == 2
        [vs] = await store.versus_computers(f"u:{anna.id}")
        assert (vs.computer, vs.games) == ("ai:random", 2)
        await idle(app)
    server.assert_clean()


async def test_a_group_game_fills_the_groups_table_in_two_languages(
        server: FakeTelegramServer, db: Path) -> None:
    anna, john = server.add_user(9011, "Анна"), server.add_user(9012, "John",
                                                               language_code="en")
    server.add_group(GROUP, "Друзья", members=[john], admins=[anna])
    async with running(server, db, seed=26) as app:
        await start_private(server, anna, john)
        assert "ещё нет доигранных партий" in txt(await ask(server, anna, GROUP, "/top"))
        gid, _ = await open_table(server, app, GROUP, anna, [john], args="2")
        s = session(app, gid)
        assert s is not None
        people = {i: anna if s.seats[i].user_id == anna.id else john for i in range(2)}
        await play(server, app, gid, people, seed=26, timeout=20)
        await counted(app, gid)
        store = service(app).storage
        result = await store.get_result(gid)
        assert result is not None and result.winner_seat is not None
        winner_user = people[result.winner_seat]
        loser_user = john if winner_user is anna else anna
        w = await store.player_stats(f"u:{winner_user.id}")
        lo = await store.player_stats(f"u:{loser_user.id}")
        assert w is not None and lo is not None and w.mu is not None and lo.mu is not None
        assert (w.games, w.wins, lo.games, lo.wins) == (1, 1, 1, 0)
        assert w.mu > MU > lo.mu
        assert await store.player_stats("ai:random") is None  # no computer at this table
        top = txt(await ask(server, anna, GROUP, "/top"))
        assert "Игроки этого чата" in top
        first, second = top.index(f"1. {winner_user.first_name}"), \
            top.index(f"2. {loser_user.first_name}")
        assert first < second
        assert "партий: 1, побед: 1" in top and "партий: 1, побед: 0" in top
        stats = txt(await ask(server, john, GROUP, "/stats"))  # the group speaks Russian
        assert "Статистика: John" in stats and "Партий: 1" in stats
        await ask(server, anna, GROUP, "/lang en")
        top_en = txt(await ask(server, john, GROUP, "/top"))
        assert "Players of this chat" in top_en and "games: 1, wins: 1" in top_en
        stats_en = txt(await ask(server, john, john.id, "/stats"))
        assert "Stats: John" in stats_en and "Games: 1" in stats_en
        assert f"wins: {int(winner_user is john)}" in stats_en
        # in private, /top is about the computer: John never played one
        assert "against the computer" in txt(await ask(server, john, john.id, "/top"))
        await idle(app)
    server.assert_clean()


async def test_a_game_counts_once_across_restarts_even_after_a_crash(
        server: FakeTelegramServer, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first game's count is lost (the process dies right after the final move, before
    the count): the next start-up counts it.  Further restarts count nothing twice."""
    anna = server.add_user(9021, "Анна")
    lost = monkeypatch.context()
    with lost as m:
        m.setattr(RatingsRoom, "record_later", lambda self, s: None)
        async with running(server, db) as app:
            await start_private(server, anna)
            gid = await solo_game(server, app, anna, seed=3)
            await idle(app)
            store = service(app).storage
            assert (await store.get_game(gid) or pytest.fail()).status == "finished"
            assert not await store.is_rated(gid)
            assert await store.player_stats(f"u:{anna.id}") is None
    for _ in range(2):
        async with running(server, db) as app:
            store = service(app).storage
            assert await store.is_rated(gid)  # counted during the start-up
            assert await store.unrated_games() == []
            me = await store.player_stats(f"u:{anna.id}")
            assert me is not None and me.games == 1
            ai = await store.player_stats("ai:random")
            assert ai is not None and ai.games == 1
            stats = txt(await ask(server, anna, anna.id, "/stats"))
            assert "Партий: 1" in stats
            await idle(app)
    # a game counted live is not counted again by the next start-up either
    async with running(server, db) as app:
        gid2 = await solo_game(server, app, anna, seed=4)
        await counted(app, gid2)
        await idle(app)
    async with running(server, db) as app:
        me = await service(app).storage.player_stats(f"u:{anna.id}")
        assert me is not None and me.games == 2
        await idle(app)
    server.assert_clean()
