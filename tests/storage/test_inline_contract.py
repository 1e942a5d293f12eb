"""Issue 49, storage: the place of an inline table (``@bot`` in any chat), on every backend.

An inline table has no chat the bot knows.  Its place is a synthetic chat row whose id is
made from the inline message's id (``bot.tg.model.inline_place``: in [2**52, 2**53), never
a Telegram chat's, whose ids fit in 52 bits), kind ``group``; the inline message's id is
stored with the game (``games.message_ids``, key ``"im"``).  So every invariant of a
chat's table holds unchanged: the game references a chat row, one game in lobby/playing
per place, the games in progress are found at start-up — no migration is needed, and
these tests show the schema takes it as it is on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import json

import pytest

from bot.tg.model import INLINE_BASE, inline_place, is_inline_place
from bot.tg.rooms.session import read_table_json
from storage import ActiveGameConflict
from storage import Backend as Store
from tests.storage.backends import Backend
from tests.storage.test_contract import ALICE, RULES, SEATS, snap

IID = "AgAAAAAAAAAAAAAAAAAAABkQ"  # an inline message id as Telegram gives them
OTHER_IID = "AgAAAAAAAAAAAAAAAAAAAJpR"


def test_an_inline_place_is_never_a_telegram_chat() -> None:
    place = inline_place(IID)
    assert place == inline_place(IID)  # the same message, the same place
    assert place != inline_place(OTHER_IID)
    assert is_inline_place(place) and INLINE_BASE <= place < 2 ** 53  # (exact in JS)
    for real in (1, 2 ** 52 - 1, -1, -100_1234567890, -(2 ** 52) + 1, 777000):
        assert not is_inline_place(real)


async def open_inline(store: Store, iid: str = IID) -> int:
    place = inline_place(iid)
    await store.upsert_chat(place, "group", language="en")
    game_id = await store.create_game(place, ALICE, rules=RULES, seed=42, seats=SEATS,
                                      lobby_code=iid[-10:].lower())
    await store.set_message_ids(game_id, json.dumps({"title": "A game of Thousand",
                                                     "im": iid}))
    return game_id


async def test_an_inline_table_is_stored_at_its_place(store: Store) -> None:
    game_id = await open_inline(store)
    place = inline_place(IID)
    chat = await store.get_chat(place)
    assert chat is not None and chat.chat_id == place and chat.language == "en"
    game = await store.active_game(place)
    assert game is not None and game.game_id == game_id and game.chat_id == place
    assert read_table_json(game.message_ids).messages.inline == IID
    # one table per inline message, as one per chat
    with pytest.raises(ActiveGameConflict) as e:
        await store.create_game(place, ALICE, rules=RULES, seed=1, seats=SEATS)
    assert e.value.game_id == game_id
    # another inline message is another place
    other = await open_inline(store, OTHER_IID)
    assert other != game_id
    assert [g.game_id for g in await store.active_games(place)] == [game_id]


async def test_an_inline_game_in_progress_is_found_after_a_restart(backend: Backend) -> None:
    if not backend.persistent:
        pytest.skip("an in-memory database does not outlive its connection")
    store = await backend.open()
    try:
        game_id = await open_inline(store)
        await store.start_game(game_id, 0, snapshot=snap(0), deadline=None)
    finally:
        await store.close()
    store = await backend.open()
    try:
        found = {g.game_id: g for g in await store.games_in_progress()}
        assert game_id in found
        game = found[game_id]
        assert is_inline_place(game.chat_id) and game.status == "playing"
        assert read_table_json(game.message_ids).messages.inline == IID
    finally:
        await store.close()
