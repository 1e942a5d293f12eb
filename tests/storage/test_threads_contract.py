"""Issue 18, storage: the forum topic (Telegram's ``message_thread_id``) of a game, on every
backend.  A chat has at most one game in lobby/playing per thread; ``thread_id`` None (the
General topic, or a chat without topics) is a place of its own."""

from __future__ import annotations

import json
import sqlite3

import asyncpg
import pytest

from storage import (
    MIGRATIONS,
    SCHEMA_VERSION,
    ActiveGameConflict,
    Outcome,
    Storage,
)
from storage import Backend as Store
from storage.postgres import PostgresStorage
from storage.postgres.schema import PG_MIGRATIONS
from tests.storage.backends import Backend
from tests.storage.test_contract import ALICE, CHAT, OTHER_CHAT, RULES, SEATS, snap

TOPIC = 7
OTHER_TOPIC = 9


async def new_game(store: Store, chat_id: int = CHAT, thread_id: int | None = None, *,
                   start: bool = False) -> int:
    if await store.get_chat(chat_id) is None:
        await store.upsert_chat(chat_id, "supergroup")
    game_id = await store.create_game(chat_id, ALICE, rules=RULES, seed=42, seats=SEATS,
                                      thread_id=thread_id)
    if start:
        await store.start_game(game_id, 0, snapshot=snap(0), deadline=None)
    return game_id


async def test_a_game_keeps_its_thread(store: Store) -> None:
    in_topic = await new_game(store, thread_id=TOPIC)
    general = await new_game(store)
    assert (await store.get_game(in_topic) or pytest.fail()).thread_id == TOPIC
    assert (await store.get_game(general) or pytest.fail()).thread_id is None


async def test_one_open_game_per_thread_of_a_chat(store: Store) -> None:
    general = await new_game(store, start=True)
    topic = await new_game(store, thread_id=TOPIC)
    other = await new_game(store, thread_id=OTHER_TOPIC, start=True)
    assert len({general, topic, other}) == 3
    for thread, holder in ((None, general), (TOPIC, topic), (OTHER_TOPIC, other)):
        with pytest.raises(ActiveGameConflict) as e:
            await new_game(store, thread_id=thread)
        assert e.value.game_id == holder
    assert [g.game_id for g in await store.active_games(CHAT)] == sorted([general, topic, other])
    # A thread whose game ended is free again; the others are not.
    await store.cancel_lobby(topic)
    again = await new_game(store, thread_id=TOPIC)
    assert [g.game_id for g in await store.active_games(CHAT)] == sorted([general, other, again])
    # The same thread id in another chat is another place.
    assert await new_game(store, OTHER_CHAT, thread_id=TOPIC) not in (general, other, again)


async def test_the_game_of_a_chat_is_looked_up_by_chat_and_thread(store: Store) -> None:
    assert await store.active_game(CHAT) is None
    assert await store.active_game(CHAT, thread_id=TOPIC) is None
    topic = await new_game(store, thread_id=TOPIC, start=True)
    assert await store.active_game(CHAT) is None  # General has none
    assert (await store.active_game(CHAT, thread_id=TOPIC) or pytest.fail()).game_id == topic
    assert await store.active_game(CHAT, thread_id=OTHER_TOPIC) is None
    general = await new_game(store)
    assert (await store.active_game(CHAT) or pytest.fail()).game_id == general
    assert (await store.active_game(CHAT, thread_id=None) or pytest.fail()).game_id == general

    # last_game: per thread too.
    assert (await store.last_game(CHAT, thread_id=TOPIC) or pytest.fail()).game_id == topic
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == general
    await store.finish_game(topic, winner_seat=0, totals=json.dumps([1000, 0]), stopped=False)
    assert (await store.last_game(CHAT, thread_id=TOPIC) or pytest.fail()).game_id == topic
    assert await store.active_game(CHAT, thread_id=TOPIC) is None
    assert await store.last_game(CHAT, thread_id=OTHER_TOPIC) is None


async def test_a_thread_id_is_checked(store: Store) -> None:
    await store.upsert_chat(CHAT, "supergroup")
    for bad in (0, -3):
        with pytest.raises(ValueError):
            await store.create_game(CHAT, ALICE, rules=RULES, seed=1, seats=SEATS,
                                    thread_id=bad)
        with pytest.raises(ValueError):
            await store.active_game(CHAT, thread_id=bad)
    with pytest.raises(TypeError):
        await store.create_game(CHAT, ALICE, rules=RULES, seed=1, seats=SEATS,
                                thread_id="7")  # type: ignore[arg-type]
    assert await store.active_games(CHAT) == []


async def test_migrating_a_chat_moves_every_game_of_every_thread(store: Store) -> None:
    general = await new_game(store, start=True)
    topic = await new_game(store, thread_id=TOPIC, start=True)
    await store.append_action(topic, 0, json.dumps({"move": 1}), snap(1), deadline=None,
                              outcome=Outcome(winner_seat=0, totals="[1000, 0]", stopped=False))
    lobby = await new_game(store, thread_id=OTHER_TOPIC)
    assert await store.migrate_chat(CHAT, OTHER_CHAT) is True
    moved = [await store.get_game(g) or pytest.fail() for g in (general, topic, lobby)]
    assert [(g.chat_id, g.thread_id) for g in moved] == [
        (OTHER_CHAT, None), (OTHER_CHAT, TOPIC), (OTHER_CHAT, OTHER_TOPIC)]
    assert await store.active_games(CHAT) == []
    assert [g.game_id for g in await store.active_games(OTHER_CHAT)] == [general, lobby]
    assert (await store.last_game(OTHER_CHAT, thread_id=TOPIC) or pytest.fail()).game_id == topic


async def test_migrating_a_chat_clashes_only_in_one_thread(store: Store) -> None:
    # The supergroup already has an open game in another thread: no clash.
    old_general = await new_game(store, start=True)
    new_topic = await new_game(store, OTHER_CHAT, thread_id=TOPIC)
    assert await store.migrate_chat(CHAT, OTHER_CHAT) is True
    assert [g.game_id for g in await store.active_games(OTHER_CHAT)] == [old_general, new_topic]
    # Both have an open game in the same thread: refused, nothing written.
    third = -300
    old_topic = await new_game(store, third, thread_id=TOPIC)
    with pytest.raises(ActiveGameConflict) as e:
        await store.migrate_chat(third, OTHER_CHAT)
    assert e.value.game_id == new_topic
    assert (await store.get_game(old_topic) or pytest.fail()).chat_id == third
    assert await store.get_chat(third) is not None


async def test_an_old_database_keeps_its_games_in_general(backend: Backend) -> None:
    """A database of schema version 4 (before threads), opened by this program: its games
    are kept, in no thread (General), and the one-open-game rule holds for General."""
    if not backend.persistent:
        pytest.skip("an in-memory database does not outlive its connection")
    if backend.postgres:
        old: Store = await PostgresStorage.open(backend.path, migrations=PG_MIGRATIONS[:4])
        await old.close()
        conn = await asyncpg.connect(backend.path)
        try:
            await conn.execute("INSERT INTO chats (chat_id, kind, language, created, updated)"
                               " VALUES ($1, 'group', 'ru', 1.0, 1.0)", CHAT)
            game_id = int(await conn.fetchval(
                "INSERT INTO games (chat_id, status, creator_id, created, updated, rules, seed,"
                " seats) VALUES ($1, 'lobby', $2, 1.0, 1.0, $3, 42, $4) RETURNING game_id",
                CHAT, ALICE, RULES, SEATS))
        finally:
            await conn.close()
    else:
        old = await Storage.open(backend.path, migrations=MIGRATIONS[:4])
        await old.close()
        with sqlite3.connect(backend.path) as db:
            db.execute("INSERT INTO chats (chat_id, kind, language, created, updated)"
                       " VALUES (?, 'group', 'ru', 1.0, 1.0)", (CHAT,))
            cur = db.execute(
                "INSERT INTO games (chat_id, status, creator_id, created, updated, rules, seed,"
                " seats) VALUES (?, 'lobby', ?, 1.0, 1.0, ?, 42, ?)", (CHAT, ALICE, RULES, SEATS))
            game_id = int(cur.lastrowid or 0)
        db.close()
    async with backend.open() as store:
        assert await backend.schema_version(store) == SCHEMA_VERSION == 6
        game = await store.get_game(game_id) or pytest.fail()
        assert (game.chat_id, game.status, game.thread_id) == (CHAT, "lobby", None)
        assert (await store.active_game(CHAT) or pytest.fail()).game_id == game_id
        with pytest.raises(ActiveGameConflict):
            await new_game(store)
        assert await new_game(store, thread_id=TOPIC) != game_id
