"""The repository contract, written once and run against every backend (see conftest)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest

from storage import (
    ACTIVE_STATUSES,
    ENDED_STATUSES,
    GAME_STATUSES,
    RECORD_FORMAT,
    SCHEMA_VERSION,
    ActiveGameConflict,
    Game,
    LobbyCodeTaken,
    NotFound,
    Outcome,
    StatusConflict,
    StorageClosed,
    StorageError,
    VersionConflict,
)
from storage import Backend as Storage
from storage import Storage as SQLiteStorage
from storage.postgres import PostgresStorage
from tests.storage.backends import Backend

CHAT = -100
OTHER_CHAT = -200
ALICE = 11
BOB = 22
RULES = json.dumps({"barrel": 880, "rospisat": True})
SEATS = json.dumps(
    [
        {"kind": "human", "user_id": ALICE, "name": "Alice", "level": None},
        {"kind": "computer", "user_id": None, "name": "Bot", "level": 2},
    ]
)


def act(n: int) -> str:
    return json.dumps({"move": n})


def snap(n: int) -> str:
    return json.dumps({"after": n})


async def new_game(
    store: Storage, chat_id: int = CHAT, *, code: str | None = None, start: bool = False
) -> int:
    if await store.get_chat(chat_id) is None:
        await store.upsert_chat(chat_id, "group")
    game_id = await store.create_game(
        chat_id, ALICE, rules=RULES, seed=42, seats=SEATS, lobby_code=code
    )
    if start:
        await store.start_game(game_id, 0, snapshot=snap(0), deadline=None)
    return game_id


async def must_get(store: Storage, game_id: int) -> Game:
    game = await store.get_game(game_id)
    assert game is not None
    return game


async def play(store: Storage, game_id: int, n: int) -> int:
    version = (await must_get(store, game_id)).version
    for _ in range(n):
        version = await store.append_action(
            game_id, version, act(version + 1), snap(version + 1), deadline=None
        )
    return version


# --------------------------------------------------------------------------- lifecycle


async def test_pragmas_are_really_on(store: Storage, backend: Backend) -> None:
    if isinstance(store, PostgresStorage):
        assert await backend.schema_version(store) == SCHEMA_VERSION
        async with store._pool.acquire() as conn:
            assert await conn.fetchval("SHOW lock_timeout") == "5s"  # busy_timeout
            assert await conn.fetchval("SHOW synchronous_commit") == "on"
            assert await conn.fetchval("SHOW transaction_isolation") == "read committed"
        return
    assert isinstance(store, SQLiteStorage)
    p = await store.pragmas()
    assert p.foreign_keys is True
    assert p.synchronous == 2  # FULL: a committed transaction survives power loss
    assert p.busy_timeout_ms == 5000
    assert p.user_version == SCHEMA_VERSION
    # A private in-memory database cannot use WAL; a file must.
    assert p.journal_mode == ("wal" if backend.persistent else "memory")


async def test_open_as_context_manager(backend: Backend) -> None:
    async with backend.open() as store:
        await store.upsert_chat(CHAT, "group")
        assert await store.get_chat(CHAT) is not None
    with pytest.raises(StorageError):
        await store.get_chat(CHAT)
    await store.close()  # idempotent

    store2 = await backend.open(clock=time.time)
    async with store2:
        assert await backend.schema_version(store2) == SCHEMA_VERSION


async def test_reopen_keeps_data_and_version(backend: Backend) -> None:
    if not backend.persistent:
        pytest.skip("an in-memory database does not outlive its connection")
    store = await backend.open()
    game_id = await new_game(store, start=True)
    await play(store, game_id, 3)
    await store.close()

    store = await backend.open()
    try:
        assert await backend.schema_version(store) == SCHEMA_VERSION
        game = await must_get(store, game_id)
        assert game.version == 3
        assert game.snapshot == snap(3)
        assert await store.actions(game_id) == [act(1), act(2), act(3)]
    finally:
        await store.close()


async def test_second_connection_sees_every_acknowledged_action(backend: Backend) -> None:
    """Crash safety: the first Storage is never closed, as if its process was killed."""
    if not backend.persistent:
        pytest.skip("needs a database file")
    first = await backend.open()
    second: Storage | None = None
    try:
        game_id = await new_game(first, start=True)
        await play(first, game_id, 5)
        await first.set_message_ids(game_id, json.dumps({"table": 7}))

        second = await backend.open()
        game = await must_get(second, game_id)
        assert game.version == 5
        assert game.snapshot == snap(5)
        assert game.message_ids == json.dumps({"table": 7})
        assert await second.actions(game_id) == [act(i) for i in range(1, 6)]
        # The second process continues the game; the first sees it too.
        await second.append_action(game_id, 5, act(6), snap(6), deadline=None)
        assert await first.actions(game_id, after=5) == [act(6)]
        with pytest.raises(VersionConflict):
            await first.append_action(game_id, 5, act(6), snap(6), deadline=None)
    finally:
        if second is not None:
            await second.close()
        await first.close()


# --------------------------------------------------------------------------- chats


async def test_chats(store: Storage) -> None:
    assert await store.get_chat(CHAT) is None
    chat = await store.upsert_chat(CHAT, "group", language="en")
    assert (chat.chat_id, chat.kind, chat.language, chat.default_rules) == (
        CHAT,
        "group",
        "en",
        None,
    )
    assert chat.created == chat.updated

    again = await store.upsert_chat(CHAT, "supergroup", language="ru")
    assert again.kind == "supergroup"
    assert again.language == "en"  # language only sets the initial value
    assert again.created == chat.created and again.updated > chat.updated

    await store.set_chat_language(CHAT, "ru")
    await store.set_default_rules(CHAT, RULES)
    stored = await store.get_chat(CHAT)
    assert stored is not None and (stored.language, stored.default_rules) == ("ru", RULES)
    await store.set_default_rules(CHAT, None)
    stored = await store.get_chat(CHAT)
    assert stored is not None and stored.default_rules is None

    assert (await store.upsert_chat(1, "private")).language == "ru"  # the default


async def test_chat_errors(store: Storage) -> None:
    with pytest.raises(NotFound):
        await store.set_chat_language(CHAT, "en")
    with pytest.raises(NotFound):
        await store.set_default_rules(CHAT, RULES)
    await store.upsert_chat(CHAT, "group")
    with pytest.raises(ValueError):
        await store.set_chat_language(CHAT, "de")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await store.set_default_rules(CHAT, "{not json")
    with pytest.raises(ValueError):
        await store.upsert_chat(CHAT, "channel")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- users


async def test_users(store: Storage) -> None:
    assert await store.get_user(ALICE) is None
    user = await store.upsert_user(ALICE, "Alice", "alice", language="en")
    assert (user.first_name, user.username, user.language) == ("Alice", "alice", "en")
    assert (user.started, user.blocked) == (False, False)

    user = await store.upsert_user(ALICE, "Alicia", None, language="ru")
    assert (user.first_name, user.username, user.language) == ("Alicia", None, "en")

    await store.set_user_language(ALICE, "ru")
    await store.mark_started(ALICE)
    user2 = await store.get_user(ALICE)
    assert user2 is not None
    assert (user2.language, user2.started, user2.blocked) == ("ru", True, False)

    await store.mark_blocked(ALICE)
    user2 = await store.get_user(ALICE)
    assert user2 is not None and (user2.started, user2.blocked) == (True, True)
    await store.mark_started(ALICE)  # /start again: unblocked
    user2 = await store.get_user(ALICE)
    assert user2 is not None and user2.blocked is False
    await store.mark_blocked(ALICE, True)
    await store.mark_blocked(ALICE, False)
    user2 = await store.get_user(ALICE)
    assert user2 is not None and user2.blocked is False

    await store.set_user_language(ALICE, None)
    user2 = await store.get_user(ALICE)
    assert user2 is not None and user2.language is None
    assert (await store.upsert_user(BOB, "Bob")).language is None


async def test_user_errors(store: Storage) -> None:
    for call in (
        store.set_user_language(BOB, "en"),
        store.mark_started(BOB),
        store.mark_blocked(BOB),
    ):
        with pytest.raises(NotFound):
            await call


# --------------------------------------------------------------------------- lobby


async def test_create_and_get_game(store: Storage) -> None:
    await store.upsert_chat(CHAT, "group")
    game_id = await store.create_game(
        CHAT, ALICE, rules=RULES, seed=-(2**63), seats=SEATS, lobby_code="q7x", deadline=99.5
    )
    game = await must_get(store, game_id)
    assert game.game_id == game_id
    assert (game.chat_id, game.status, game.creator_id) == (CHAT, "lobby", ALICE)
    assert (game.rules, game.seed, game.seats) == (RULES, -(2**63), SEATS)
    assert (game.version, game.lobby_rev, game.snapshot) == (0, 0, None)
    assert json.loads(game.message_ids) == {}
    assert (game.deadline, game.lobby_code) == (99.5, "q7x")
    assert game.active and game.created == game.updated
    assert await store.active_game(CHAT) == game
    assert await store.game_by_lobby_code("q7x") == game
    assert await store.game_by_lobby_code("nope") is None
    assert await store.get_game(game_id + 1000) is None
    assert await store.actions(game_id) == []
    assert await store.score_sheet(game_id) == []
    assert await store.get_result(game_id) is None


async def test_create_game_errors_write_nothing(store: Storage) -> None:
    with pytest.raises(NotFound):
        await store.create_game(CHAT, ALICE, rules=RULES, seed=1, seats=SEATS)
    await store.upsert_chat(CHAT, "group")
    with pytest.raises(ValueError):
        await store.create_game(CHAT, ALICE, rules="{", seed=1, seats=SEATS)
    with pytest.raises(ValueError):
        await store.create_game(CHAT, ALICE, rules=RULES, seed=2**64, seats=SEATS)
    assert await store.games_in_progress() == []

    first = await new_game(store, code="abc")
    with pytest.raises(ActiveGameConflict) as conflict:
        await new_game(store)
    assert conflict.value.game_id == first
    with pytest.raises(LobbyCodeTaken):
        await new_game(store, OTHER_CHAT, code="abc")
    assert [g.game_id for g in await store.games_in_progress()] == [first]


async def test_one_active_game_per_chat(store: Storage) -> None:
    first = await new_game(store, code="one")
    with pytest.raises(ActiveGameConflict):
        await new_game(store)
    other = await new_game(store, OTHER_CHAT)  # another chat is independent
    await store.start_game(first, 0, snapshot=snap(0), deadline=None)
    with pytest.raises(ActiveGameConflict):
        await new_game(store)

    await store.finish_game(first, winner_seat=0, totals="[1000, 0]", stopped=False)
    second = await new_game(store, code="one")  # the code was freed too
    assert (await must_get(store, second)).lobby_code == "one"
    await store.cancel_lobby(second)
    third = await new_game(store)
    assert [g.game_id for g in await store.games_in_progress()] == [other, third]


async def test_update_lobby_is_guarded(store: Storage) -> None:
    game_id = await new_game(store)
    seats2 = json.dumps([{"kind": "human", "user_id": BOB, "name": "Bob", "level": None}])
    assert await store.update_lobby(game_id, 0, seats=seats2) == 1
    game = await must_get(store, game_id)
    assert (game.seats, game.rules, game.lobby_rev, game.version) == (seats2, RULES, 1, 0)

    with pytest.raises(VersionConflict) as stale:
        await store.update_lobby(game_id, 0, rules="{}")
    assert (stale.value.expected, stale.value.actual) == (0, 1)
    assert (await must_get(store, game_id)).rules == RULES

    assert await store.update_lobby(game_id, 1, rules="{}") == 2
    game = await must_get(store, game_id)
    assert (game.seats, game.rules, game.lobby_rev) == (seats2, "{}", 2)

    await store.start_game(game_id, 2, snapshot=snap(0), deadline=None)
    with pytest.raises(StatusConflict):
        await store.update_lobby(game_id, 3, seats=SEATS)
    with pytest.raises(NotFound):
        await store.update_lobby(game_id + 1000, 0, seats=SEATS)


async def test_start_game(store: Storage) -> None:
    game_id = await new_game(store, code="go")
    with pytest.raises(VersionConflict):
        await store.start_game(game_id, 5, snapshot=snap(0), deadline=None)
    await store.start_game(game_id, 0, snapshot=snap(0), deadline=123.0, seats="[]")
    game = await must_get(store, game_id)
    assert (game.status, game.version, game.snapshot) == ("playing", 0, snap(0))
    assert (game.deadline, game.seats, game.rules, game.lobby_code) == (123.0, "[]", RULES, "go")
    with pytest.raises(StatusConflict):
        await store.start_game(game_id, 1, snapshot=snap(0), deadline=None)
    with pytest.raises(StatusConflict):
        await store.cancel_lobby(game_id)


async def test_cancel_lobby(store: Storage) -> None:
    game_id = await new_game(store, code="zz")
    await store.set_deadline(game_id, 50.0)
    await store.cancel_lobby(game_id)
    game = await must_get(store, game_id)
    assert (game.status, game.deadline, game.lobby_code) == ("stopped", None, None)
    assert await store.active_game(CHAT) is None
    assert await store.get_result(game_id) is None
    with pytest.raises(StatusConflict):
        await store.cancel_lobby(game_id)


# --------------------------------------------------------------------------- play


async def test_append_action(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    v1 = await store.append_action(game_id, 0, act(1), snap(1), deadline=10.0)
    v2 = await store.append_action(
        game_id,
        1,
        act(2),
        snap(2),
        deadline=None,
        sheet_rows=[(1, json.dumps({"totals": [120, 0]}))],
    )
    assert (v1, v2) == (1, 2)
    game = await must_get(store, game_id)
    assert (game.version, game.snapshot, game.deadline) == (2, snap(2), None)
    assert await store.actions(game_id) == [act(1), act(2)]
    assert await store.actions(game_id, after=1) == [act(2)]
    assert await store.actions(game_id, after=2) == []
    sheet = await store.score_sheet(game_id)
    assert [(r.game_id, r.deal_no, json.loads(r.data)) for r in sheet] == [
        (game_id, 1, {"totals": [120, 0]})
    ]

    # Rows come back by deal number; a row for the same deal is replaced.
    await store.append_action(
        game_id,
        2,
        act(3),
        snap(3),
        deadline=5.0,
        sheet_rows=[(3, '{"d": 3}'), (2, '{"d": 2}'), (1, '{"d": 1}')],
    )
    assert [(r.deal_no, r.data) for r in await store.score_sheet(game_id)] == [
        (1, '{"d": 1}'),
        (2, '{"d": 2}'),
        (3, '{"d": 3}'),
    ]
    assert (await must_get(store, game_id)).deadline == 5.0


async def test_stale_append_raises_and_writes_nothing(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    await play(store, game_id, 2)
    await store.append_action(
        game_id, 2, act(3), snap(3), deadline=7.0, sheet_rows=[(1, '{"ok": 1}')]
    )
    before = await must_get(store, game_id)

    for stale in (0, 2, 4):
        with pytest.raises(VersionConflict) as conflict:
            await store.append_action(
                game_id,
                stale,
                act(99),
                snap(99),
                deadline=None,
                sheet_rows=[(1, '{"bad": 1}'), (2, '{"bad": 2}')],
                outcome=Outcome(winner_seat=0, totals="[]"),
            )
        assert (conflict.value.expected, conflict.value.actual) == (stale, 3)

    assert await must_get(store, game_id) == before
    assert await store.actions(game_id) == [act(1), act(2), act(3)]
    assert [(r.deal_no, r.data) for r in await store.score_sheet(game_id)] == [(1, '{"ok": 1}')]
    assert await store.get_result(game_id) is None


async def test_append_action_needs_a_playing_game(store: Storage) -> None:
    with pytest.raises(NotFound):
        await store.append_action(12345, 0, act(1), snap(1), deadline=None)
    game_id = await new_game(store)
    with pytest.raises(StatusConflict):
        await store.append_action(game_id, 0, act(1), snap(1), deadline=None)
    with pytest.raises(ValueError):
        await store.append_action(game_id, 0, "not json", snap(1), deadline=None)
    with pytest.raises(ValueError):
        await store.append_action(game_id, 0, act(1), snap(1), deadline=float("nan"))
    assert await store.actions(game_id) == []


async def test_concurrent_appends_accept_exactly_one(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    results = await asyncio.gather(
        *(store.append_action(game_id, 0, act(i), snap(i), deadline=None) for i in range(10)),
        return_exceptions=True,
    )
    assert sum(r == 1 for r in results) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == 9
    assert len(await store.actions(game_id)) == 1
    assert (await must_get(store, game_id)).version == 1


async def test_append_actions_stores_moves_that_follow_each_other(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    await store.append_action(game_id, 0, act(1), snap(1), deadline=10.0, human=True)
    moved = (await must_get(store, game_id)).human_moved
    v = await store.append_actions(
        game_id, 1, [act(2), act(3), act(4)], snap(4), deadline=20.0,
        sheet_rows=[(1, '{"d": 1}')],
    )
    assert v == 4
    game = await must_get(store, game_id)
    assert (game.status, game.version, game.snapshot, game.deadline) == (
        "playing", 4, snap(4), 20.0)
    assert game.human_moved == moved  # computer moves leave the person's clock
    assert await store.actions(game_id) == [act(1), act(2), act(3), act(4)]
    assert await store.actions(game_id, after=2) == [act(3), act(4)]
    assert [(r.deal_no, r.data) for r in await store.score_sheet(game_id)] == [(1, '{"d": 1}')]
    # one action is append_action
    assert await store.append_actions(game_id, 4, [act(5)], snap(5), deadline=None) == 5
    assert await store.append_action(game_id, 5, act(6), snap(6), deadline=None) == 6


async def test_append_actions_can_end_the_game(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    v = await store.append_actions(
        game_id, 0, [act(1), act(2)], snap(2), deadline=5.0,
        sheet_rows=[(1, '{"last": 1}')], outcome=Outcome(winner_seat=1, totals="[400, 1000]"),
    )
    assert v == 2
    game = await must_get(store, game_id)
    assert (game.status, game.version, game.deadline) == ("finished", 2, None)
    assert await store.actions(game_id) == [act(1), act(2)]
    result = await store.get_result(game_id)
    assert result is not None and (result.winner_seat, result.totals) == (1, "[400, 1000]")
    assert await store.active_game(CHAT) is None


async def test_refused_append_actions_writes_nothing(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    await play(store, game_id, 2)
    before = await must_get(store, game_id)
    for stale in (0, 1, 3):
        with pytest.raises(VersionConflict) as conflict:
            await store.append_actions(
                game_id, stale, [act(98), act(99)], snap(99), deadline=None,
                sheet_rows=[(1, '{"bad": 1}')], outcome=Outcome(winner_seat=0, totals="[]"))
        assert (conflict.value.expected, conflict.value.actual) == (stale, 2)
    with pytest.raises(ValueError):  # the second action is not JSON
        await store.append_actions(game_id, 2, [act(3), "not json"], snap(4), deadline=None)
    with pytest.raises(ValueError):
        await store.append_actions(game_id, 2, [], snap(4), deadline=None)
    assert await must_get(store, game_id) == before
    assert await store.actions(game_id) == [act(1), act(2)]
    assert await store.score_sheet(game_id) == []
    assert await store.get_result(game_id) is None
    lobby = await new_game(store, OTHER_CHAT)
    with pytest.raises(StatusConflict):
        await store.append_actions(lobby, 0, [act(1), act(2)], snap(2), deadline=None)
    with pytest.raises(NotFound):
        await store.append_actions(12345, 0, [act(1), act(2)], snap(2), deadline=None)
    assert await store.actions(lobby) == []


async def test_concurrent_append_actions_accept_one_whole(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    chains = [[act(10 * i + 1), act(10 * i + 2)] for i in range(6)]
    results = await asyncio.gather(
        *(store.append_actions(game_id, 0, chain, snap(i), deadline=None)
          for i, chain in enumerate(chains)),
        store.append_action(game_id, 0, act(99), snap(99), deadline=None),
        return_exceptions=True,
    )
    won = [i for i, r in enumerate(results) if not isinstance(r, BaseException)]
    assert len(won) == 1
    assert sum(isinstance(r, VersionConflict) for r in results) == len(results) - 1
    actions = await store.actions(game_id)
    if won[0] < len(chains):  # a chain won: both its moves and nothing else
        assert (results[won[0]], actions) == (2, chains[won[0]])
    else:
        assert (results[won[0]], actions) == (1, [act(99)])
    assert (await must_get(store, game_id)).version == len(actions)


async def test_cancelled_write_is_all_or_nothing(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    # Cancel after growing delays, so that some cancellations land before the
    # transaction, some inside it and some while COMMIT is already queued.
    for step in range(40):
        version = (await must_get(store, game_id)).version
        task = asyncio.create_task(
            store.append_action(
                game_id,
                version,
                act(version + 1),
                snap(version + 1),
                deadline=None,
                sheet_rows=[(version + 1, "{}")],
            )
        )
        await asyncio.sleep(step * 0.00003)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        game = await must_get(store, game_id)
        log = await store.actions(game_id)
        sheet = await store.score_sheet(game_id)
        assert game.version == len(log) == len(sheet)
        assert game.snapshot == snap(game.version)
    # The storage still works after all that.
    version = (await must_get(store, game_id)).version
    assert await store.append_action(game_id, version, act(0), snap(0), deadline=None) == (
        version + 1
    )


async def test_set_message_ids_and_deadline(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    ids = json.dumps({"table": 501, "hands": {str(ALICE): 77}})
    await store.set_message_ids(game_id, ids)
    assert (await must_get(store, game_id)).message_ids == ids
    with pytest.raises(NotFound):
        await store.set_message_ids(game_id + 1000, ids)

    await store.set_deadline(game_id, 1234.5)
    assert (await must_get(store, game_id)).deadline == 1234.5
    await play(store, game_id, 1)
    with pytest.raises(VersionConflict):
        await store.set_deadline(game_id, 1.0, expected_version=0)
    await store.set_deadline(game_id, 2.0, expected_version=1)
    assert (await must_get(store, game_id)).deadline == 2.0
    await store.set_deadline(game_id, None)
    assert (await must_get(store, game_id)).deadline is None


async def test_set_seats(store: Storage) -> None:
    """A person sits in a computer's seat during the game: the game's seats follow."""
    game_id = await new_game(store, start=True)
    seats = json.dumps([{"kind": "human", "user_id": ALICE, "name": "Алиса", "level": ""}])
    await store.set_seats(game_id, seats)
    game = await must_get(store, game_id)
    assert game.seats == seats and game.status == "playing"
    with pytest.raises(NotFound):
        await store.set_seats(game_id + 1000, seats)


async def test_finish_game(store: Storage) -> None:
    game_id = await new_game(store, code="fin", start=True)
    await play(store, game_id, 2)
    await store.set_deadline(game_id, 9.0)
    with pytest.raises(VersionConflict):
        await store.finish_game(
            game_id, winner_seat=1, totals="[0, 1000]", stopped=False, expected_version=1
        )
    assert (await must_get(store, game_id)).status == "playing"

    result = await store.finish_game(
        game_id, winner_seat=1, totals="[0, 1000]", stopped=False, expected_version=2
    )
    assert (result.game_id, result.winner_seat, result.totals, result.stopped) == (
        game_id,
        1,
        "[0, 1000]",
        False,
    )
    assert await store.get_result(game_id) == result
    game = await must_get(store, game_id)
    assert (game.status, game.deadline, game.lobby_code) == ("finished", None, None)
    assert result.finished == game.updated
    assert await store.active_game(CHAT) is None
    assert await store.games_in_progress() == []
    with pytest.raises(StatusConflict):
        await store.finish_game(game_id, winner_seat=None, totals="[]", stopped=True)
    with pytest.raises(StatusConflict):
        await store.append_action(game_id, 2, act(3), snap(3), deadline=None)
    with pytest.raises(StatusConflict):
        await store.set_deadline(game_id, 1.0)
    # The log stays readable after the end.
    assert await store.actions(game_id) == [act(1), act(2)]


async def test_stop_game(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    with pytest.raises(ValueError):
        await store.finish_game(game_id, winner_seat=-1, totals="[]", stopped=True)
    result = await store.finish_game(game_id, winner_seat=None, totals="[5, 7]", stopped=True)
    assert (result.winner_seat, result.stopped) == (None, True)
    assert (await must_get(store, game_id)).status == "stopped"
    lobby = await new_game(store)
    with pytest.raises(StatusConflict):
        await store.finish_game(lobby, winner_seat=None, totals="[]", stopped=True)


async def test_last_action_and_outcome_in_one_transaction(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    await play(store, game_id, 1)
    version = await store.append_action(
        game_id,
        1,
        act(2),
        snap(2),
        deadline=None,
        sheet_rows=[(1, '{"totals": [1000, 300]}')],
        outcome=Outcome(winner_seat=0, totals="[1000, 300]"),
    )
    assert version == 2
    game = await must_get(store, game_id)
    assert (game.status, game.version, game.snapshot) == ("finished", 2, snap(2))
    result = await store.get_result(game_id)
    assert result is not None
    assert (result.winner_seat, result.totals, result.stopped) == (0, "[1000, 300]", False)
    assert len(await store.score_sheet(game_id)) == 1


async def test_games_in_progress(store: Storage) -> None:
    lobby = await new_game(store, code="l")
    await store.set_deadline(lobby, 100.0)
    playing = await new_game(store, OTHER_CHAT, start=True)
    await store.append_action(playing, 0, act(1), snap(1), deadline=200.0)
    done = await new_game(store, -300, start=True)
    await store.finish_game(done, winner_seat=0, totals="[]", stopped=False)

    games = await store.games_in_progress()
    assert [(g.game_id, g.status, g.deadline) for g in games] == [
        (lobby, "lobby", 100.0),
        (playing, "playing", 200.0),
    ]


async def test_last_game(store: Storage) -> None:
    assert await store.last_game(CHAT) is None
    first = await new_game(store, start=True)
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == first
    await store.finish_game(first, winner_seat=0, totals="[]", stopped=False)
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == first  # /score after end

    cancelled = await new_game(store)
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == cancelled  # active
    await store.cancel_lobby(cancelled)
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == first  # never started

    stopped = await new_game(store, start=True)
    await store.finish_game(stopped, winner_seat=None, totals="[]", stopped=True)
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == stopped
    assert await store.last_game(OTHER_CHAT) is None


# --------------------------------------------------------------------------- migrate_chat


async def test_migrate_chat_moves_everything(store: Storage) -> None:
    await store.upsert_chat(CHAT, "group", language="en")
    await store.set_default_rules(CHAT, RULES)
    done = await new_game(store, start=True)
    await store.append_action(done, 0, act(1), snap(1), deadline=None, sheet_rows=[(1, "{}")])
    await store.finish_game(done, winner_seat=0, totals="[1]", stopped=False)
    active = await new_game(store, code="mig", start=True)
    await play(store, active, 2)

    assert await store.migrate_chat(CHAT, OTHER_CHAT) is True

    assert await store.get_chat(CHAT) is None
    chat = await store.get_chat(OTHER_CHAT)
    assert chat is not None
    assert (chat.kind, chat.language, chat.default_rules) == ("supergroup", "en", RULES)
    assert await store.active_game(CHAT) is None
    moved = await store.active_game(OTHER_CHAT)
    assert moved is not None and moved.game_id == active and moved.version == 2
    assert (await must_get(store, done)).chat_id == OTHER_CHAT
    assert await store.actions(active) == [act(1), act(2)]
    assert len(await store.score_sheet(done)) == 1
    assert await store.get_result(done) is not None
    assert (await store.game_by_lobby_code("mig") or pytest.fail()).chat_id == OTHER_CHAT
    assert (await store.last_game(OTHER_CHAT) or pytest.fail()).game_id == active
    assert await store.last_game(CHAT) is None
    # The game goes on under the new id.
    await store.append_action(active, 2, act(3), snap(3), deadline=None)

    # Telegram reports a migration twice (from both chats): the second call is a no-op.
    assert await store.migrate_chat(CHAT, OTHER_CHAT) is False
    assert (await store.get_chat(OTHER_CHAT) or pytest.fail()).language == "en"


async def test_migrate_chat_into_a_known_supergroup(store: Storage) -> None:
    await store.upsert_chat(CHAT, "group", language="en")
    game_id = await new_game(store, start=True)
    await store.upsert_chat(OTHER_CHAT, "supergroup", language="ru")  # seen first
    other_created = (await store.get_chat(OTHER_CHAT) or pytest.fail()).created

    assert await store.migrate_chat(CHAT, OTHER_CHAT) is True
    chat = await store.get_chat(OTHER_CHAT)
    assert chat is not None
    assert (chat.kind, chat.language, chat.created) == ("supergroup", "en", other_created)
    assert (await store.active_game(OTHER_CHAT) or pytest.fail()).game_id == game_id


async def test_migrate_chat_conflict_writes_nothing(store: Storage) -> None:
    old_game = await new_game(store, CHAT, start=True)
    new_game_id = await new_game(store, OTHER_CHAT)
    with pytest.raises(ActiveGameConflict) as conflict:
        await store.migrate_chat(CHAT, OTHER_CHAT)
    assert (conflict.value.chat_id, conflict.value.game_id) == (OTHER_CHAT, new_game_id)
    assert (await store.get_chat(CHAT) or pytest.fail()).kind == "group"
    assert (await store.active_game(CHAT) or pytest.fail()).game_id == old_game
    assert (await store.active_game(OTHER_CHAT) or pytest.fail()).game_id == new_game_id

    await store.cancel_lobby(new_game_id)
    assert await store.migrate_chat(CHAT, OTHER_CHAT) is True
    assert (await store.active_game(OTHER_CHAT) or pytest.fail()).game_id == old_game


async def test_migrate_unknown_chat(store: Storage) -> None:
    assert await store.migrate_chat(CHAT, OTHER_CHAT) is False
    assert await store.get_chat(OTHER_CHAT) is None
    with pytest.raises(ValueError):
        await store.migrate_chat(CHAT, CHAT)


# --------------------------------------------------------------------------- idle games


def move(seat: int, action: str, by: str = "h") -> str:
    """A log entry as the bot writes it (``bot/tg/model.py``)."""
    return json.dumps({"s": seat, "a": action, "by": by})


async def test_statuses() -> None:
    assert set(GAME_STATUSES) == set(ACTIVE_STATUSES) | set(ENDED_STATUSES)
    assert not set(ACTIVE_STATUSES) & set(ENDED_STATUSES)
    assert {"expired", "broken"} <= set(ENDED_STATUSES)


async def test_human_moved_counts_only_a_persons_moves(store: Storage) -> None:
    game_id = await new_game(store)
    assert (await must_get(store, game_id)).human_moved is None  # a lobby has none
    await store.start_game(game_id, 0, snapshot=snap(0), deadline=None)
    started = await must_get(store, game_id)
    assert started.human_moved == started.updated  # the start counts

    await store.append_action(game_id, 0, act(1), snap(1), deadline=None)  # computer
    game = await must_get(store, game_id)
    assert game.human_moved == started.human_moved < game.updated
    await store.append_action(game_id, 1, act(2), snap(2), deadline=None, human=True)
    game = await must_get(store, game_id)
    assert game.human_moved == game.updated
    await store.append_action(game_id, 2, act(3), snap(3), deadline=None, human=False)
    later = await must_get(store, game_id)
    assert later.human_moved == game.human_moved < later.updated
    # A refused move leaves it.
    with pytest.raises(VersionConflict):
        await store.append_action(game_id, 0, act(9), snap(9), deadline=None, human=True)
    assert (await must_get(store, game_id)).human_moved == game.human_moved


async def test_idle_lobbies(store: Storage) -> None:
    old = await new_game(store)
    fresh = await new_game(store, OTHER_CHAT)
    playing = await new_game(store, -300, start=True)
    t_old = (await must_get(store, old)).updated
    t_fresh = (await must_get(store, fresh)).updated
    assert t_old < t_fresh

    assert [g.game_id for g in await store.idle_lobbies(10, now=t_old + 10)] == []
    assert [g.game_id for g in await store.idle_lobbies(10, now=t_old + 10.5)] == [old]
    both = await store.idle_lobbies(0, now=t_fresh + 100)
    assert [g.game_id for g in both] == [old, fresh]  # oldest first; never a playing game
    assert playing not in [g.game_id for g in both]
    # A lobby edit makes it fresh again.
    await store.update_lobby(old, 0, seats=SEATS)
    t_edit = (await must_get(store, old)).updated
    assert [g.game_id for g in await store.idle_lobbies(0, now=t_edit)] == [fresh]
    # By the storage clock when no ``now`` is given (the fake clock ticks 1 s per reading).
    assert [g.game_id for g in await store.idle_lobbies(3600)] == []
    assert {g.game_id for g in await store.idle_lobbies(0)} == {old, fresh}
    with pytest.raises(ValueError):
        await store.idle_lobbies(-1)
    with pytest.raises(ValueError):
        await store.idle_lobbies(float("nan"))


async def test_idle_games_go_by_the_last_human_move(store: Storage) -> None:
    a = await new_game(store, start=True)
    b = await new_game(store, OTHER_CHAT, start=True)
    lobby = await new_game(store, -300)
    await store.append_action(a, 0, act(1), snap(1), deadline=None, human=True)
    t_a = (await must_get(store, a)).human_moved
    assert t_a is not None
    # b: only computer moves after its start, however many.
    for v in range(5):
        await store.append_action(b, v, act(v + 1), snap(v + 1), deadline=None)
    t_b = (await must_get(store, b)).human_moved
    assert t_b is not None and t_b < t_a

    now = (await must_get(store, b)).updated
    assert [g.game_id for g in await store.idle_games(now - t_b - 0.5, now=now)] == [b]
    assert [g.game_id for g in await store.idle_games(0, now=now)] == [b, a]  # oldest first
    assert [g.game_id for g in await store.idle_games(now - t_b, now=now)] == []
    assert lobby not in [g.game_id for g in await store.idle_games(0)]


async def test_expire_a_lobby(store: Storage) -> None:
    game_id = await new_game(store, code="old")
    await store.set_deadline(game_id, 77.0)
    with pytest.raises(VersionConflict):
        await store.expire_game(game_id, expected_lobby_rev=1)
    game = await store.expire_game(game_id, reason="lobby idle", expected_lobby_rev=0)
    assert (game.status, game.reason, game.deadline, game.lobby_code) == (
        "expired",
        "lobby idle",
        None,
        None,
    )
    assert game == await must_get(store, game_id)
    assert await store.get_result(game_id) is None
    assert await store.active_game(CHAT) is None
    assert await store.idle_lobbies(0) == []
    assert await store.games_in_progress() == []
    with pytest.raises(StatusConflict):
        await store.expire_game(game_id)
    await new_game(store, code="old")  # the chat and the code are free


async def test_expire_a_playing_game_keeps_its_record(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    await play(store, game_id, 2)
    await store.append_action(game_id, 2, act(3), snap(3), deadline=9.0, sheet_rows=[(1, "{}")])
    with pytest.raises(VersionConflict):  # someone moved since the caller looked
        await store.expire_game(game_id, expected_version=2)
    assert (await must_get(store, game_id)).status == "playing"
    with pytest.raises(ValueError):
        await store.expire_game(game_id, totals="not json")

    game = await store.expire_game(game_id, totals="[40, 60]", expected_version=3)
    assert (game.status, game.reason, game.version, game.deadline) == ("expired", "idle", 3, None)
    assert not game.active
    result = await store.get_result(game_id) or pytest.fail()
    assert (result.winner_seat, result.totals, result.stopped) == (None, "[40, 60]", True)
    assert await store.actions(game_id) == [act(1), act(2), act(3)]
    assert len(await store.score_sheet(game_id)) == 1
    assert (await store.last_game(CHAT) or pytest.fail()).game_id == game_id  # /score shows it
    assert await store.idle_games(0) == []
    for op in (
        store.append_action(game_id, 3, act(4), snap(4), deadline=None),
        store.finish_game(game_id, winner_seat=0, totals="[]", stopped=False),
        store.expire_game(game_id),
        store.mark_broken(game_id, "x"),
        store.set_deadline(game_id, 1.0),
    ):
        with pytest.raises(StatusConflict):
            await op
    # Without totals: no result row.
    other = await new_game(store, start=True)
    await store.expire_game(other, reason="no move for 2 days")
    assert await store.get_result(other) is None
    assert (await must_get(store, other)).reason == "no move for 2 days"


# --------------------------------------------------------------------------- broken games


async def test_mark_broken_frees_the_chat_and_keeps_everything(store: Storage) -> None:
    game_id = await new_game(store, code="brk", start=True)
    await store.append_action(game_id, 0, move(0, "bid 105"), snap(1), deadline=5.0)
    await store.set_message_ids(game_id, '{"t": [1, 2]}')
    before = await must_get(store, game_id)
    with pytest.raises(VersionConflict):
        await store.mark_broken(game_id, "x", expected_version=0)

    game = await store.mark_broken(game_id, "RecordError: deal 1, action 1: " + "x" * 9000)
    assert game.status == "broken" and not game.active
    assert game.reason is not None and game.reason.startswith("RecordError")
    assert len(game.reason) == 4000
    assert (game.deadline, game.lobby_code) == (None, None)
    assert (game.rules, game.seed, game.seats, game.version, game.snapshot, game.message_ids) == (
        before.rules,
        before.seed,
        before.seats,
        before.version,
        before.snapshot,
        before.message_ids,
    )
    assert await store.actions(game_id) == [move(0, "bid 105")]
    assert await store.get_result(game_id) is None
    assert await store.active_game(CHAT) is None
    assert await store.games_in_progress() == []
    assert await store.last_game(CHAT) is None  # nothing to show as a score sheet
    new = await new_game(store, code="brk")  # the chat (and the code) are free at once
    assert (await store.active_game(CHAT) or pytest.fail()).game_id == new
    with pytest.raises(StatusConflict):
        await store.mark_broken(game_id, "again")
    with pytest.raises(NotFound):
        await store.mark_broken(game_id + 1000, "no such game")
    lobby = await new_game(store, OTHER_CHAT)
    assert (await store.mark_broken(lobby, "bad seats")).status == "broken"


async def test_export_game(store: Storage) -> None:
    game_id = await new_game(store, start=True)
    log = [
        move(1, "bid 105"),
        json.dumps({"s": 0, "ctl": "auto", "why": "left"}),  # a hand-over: not a move
        move(0, "pass", "a"),
        move(1, "pass"),  # the deal ends here (a score-sheet row is written with it)
        move(2, "bid 110", "c"),
    ]
    for v, entry in enumerate(log):
        rows = [(1, "{}")] if v == 3 else []
        await store.append_action(game_id, v, entry, snap(v + 1), deadline=None, sheet_rows=rows)
    await store.mark_broken(game_id, "cannot replay")

    record = json.loads(await store.export_game(game_id))
    assert record["format"] == RECORD_FORMAT == "thousand-record/1"
    assert record["rules"] == json.loads(RULES)
    assert record["seats"] == ["Alice", "Bot"]
    assert record["seed"] == 42
    assert record["deals"] == [
        {"actions": ["1:bid 105", "0:pass", "1:pass"]},
        {"actions": ["2:bid 110"]},
    ]
    assert record["game"]["status"] == "broken"
    assert record["game"]["reason"] == "cannot replay"
    assert record["game"]["version"] == 5
    with pytest.raises(NotFound):
        await store.export_game(game_id + 1000)

    lobby = json.loads(await store.export_game(await new_game(store)))
    assert (lobby["deals"], lobby["game"]["status"]) == ([], "lobby")


async def test_closed_storage_raises_storage_closed(backend: Backend) -> None:
    store = await backend.open()
    await store.close()
    with pytest.raises(StorageClosed):
        await store.get_chat(1)
    with pytest.raises(StorageError):
        await store.upsert_chat(1, "private")
