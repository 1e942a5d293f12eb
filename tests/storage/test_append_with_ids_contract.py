"""``append_action(s)(..., message_ids=…)``: a move and the game's message ids in ONE
transaction (the table's owner, bot/tg/rooms/owner.py, stores a move with the ids and what
the messages will show), run against every backend (see conftest)."""

from __future__ import annotations

import json

import pytest

from storage import Backend as Storage
from storage import VersionConflict

CHAT = -130
ALICE = 13
SEATS = json.dumps([{"kind": "human", "user_id": ALICE, "name": "Alice", "level": None}])


async def playing_game(store: Storage) -> int:
    await store.upsert_chat(CHAT, "group")
    gid = await store.create_game(CHAT, ALICE, rules="{}", seed=1, seats=SEATS)
    await store.start_game(gid, 0, snapshot="{}", deadline=None)
    return gid


async def test_a_move_stores_the_message_ids_given_with_it(store: Storage) -> None:
    gid = await playing_game(store)
    await store.set_message_ids(gid, '{"t": [1, 5]}')
    ids = json.dumps({"t": [1, 5, "ab12"], "h": {"0": [1, 6, "cd34"]}})
    assert await store.append_action(gid, 0, '{"s": 0, "a": "pass"}', '{"version": 1}',
                                      deadline=None, message_ids=ids) == 1
    game = await store.get_game(gid)
    assert game is not None and (game.version, game.message_ids) == (1, ids)
    # without them, the ids stay as they were
    assert await store.append_action(gid, 1, '{"s": 1, "a": "pass"}', '{"version": 2}',
                                      deadline=None) == 2
    game = await store.get_game(gid)
    assert game is not None and game.message_ids == ids
    # several moves at once, with the ids
    more = json.dumps({"t": [1, 5, "ef56"]})
    assert await store.append_actions(gid, 2, ['{"s": 2, "a": "pass"}', '{"s": 0, "a": "x"}'],
                                      '{"version": 4}', deadline=None, message_ids=more) == 4
    game = await store.get_game(gid)
    assert game is not None and (game.version, game.message_ids) == (4, more)


async def test_a_refused_move_stores_no_ids(store: Storage) -> None:
    gid = await playing_game(store)
    await store.set_message_ids(gid, '{"t": [1, 5]}')
    with pytest.raises(VersionConflict):
        await store.append_action(gid, 7, '{"s": 0, "a": "pass"}', '{"version": 8}',
                                  deadline=None, message_ids='{"t": [1, 9]}')
    game = await store.get_game(gid)
    assert game is not None and (game.version, game.message_ids) == (0, '{"t": [1, 5]}')
    with pytest.raises(ValueError):  # not JSON: refused before anything is written
        await store.append_action(gid, 0, '{"s": 0, "a": "pass"}', '{"version": 1}',
                                  deadline=None, message_ids="{not json")
    game = await store.get_game(gid)
    assert game is not None and game.version == 0
