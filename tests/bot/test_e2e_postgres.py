"""The real bot on PostgreSQL (``DATABASE_URL``): a solo game against two computer players
to its end, on the fake Bot API server; then the record read back by a new connection.

Skipped without a PostgreSQL server (``THOUSAND_TEST_PG_URL``), a failure when
``THOUSAND_REQUIRE_PG=1`` (``tests/pg.py``)."""

from __future__ import annotations

from pathlib import Path

from storage.postgres import PostgresStorage
from tests.bot.helpers import (
    click_and_wait,
    idle,
    play,
    running,
    service,
    smart,
    start_private,
    txt,
)
from tests.bot.test_e2e_stats import counted
from tests.fakeapi import FakeTelegramServer
from tests.pg import pg_url

__all__ = ["pg_url"]


async def test_solo_game_to_its_end_on_postgresql(
    server: FakeTelegramServer, db: Path, pg_url: str
) -> None:
    anna = server.add_user(1001, "Анна")
    async with running(server, db, database_url=pg_url) as app:
        assert isinstance(service(app).storage, PostgresStorage)
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame")
        setup = await server.wait_bot_message(anna, predicate=lambda m: "Играть" in str(
            m.button_texts))
        assert await click_and_wait(server, anna, setup, "Играть") is None
        gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        presses = await play(server, app, gid, {0: anna}, policy=smart, seed=1, timeout=30)
        assert presses > 20
        await idle(app)
        last = server.chat(anna).last_bot_message()
        assert last is not None and "Партия окончена" in txt(last) and "🏆" in txt(last)
        assert [b.text for b in last.all_buttons] == ["🔁 Ещё партия", "🃏 Новый стол"]
        await counted(app, gid)  # the result is counted by a background write
    server.assert_clean()
    assert not db.exists()  # nothing went to SQLite

    async with PostgresStorage.open(pg_url) as store:
        game = await store.get_game(gid)
        assert game is not None and game.status == "finished" and game.chat_id == anna.id
        assert len(await store.actions(gid)) == game.version > presses
        result = await store.get_result(gid)
        assert result is not None and result.winner_seat is not None
        assert await store.score_sheet(gid)
        assert await store.is_rated(gid)
        stats = await store.player_stats(f"u:{anna.id}")
        assert stats is not None and stats.games == 1
