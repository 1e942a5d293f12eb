"""Issue 12: a stored move is one transaction in one trip to aiosqlite's thread; moves that
wait meanwhile share the next COMMIT; unchanged users and chats are not written.

Statements are watched with SQLite's trace callback (Python reports a trigger's run as its
statement once more: ``statements`` drops such a repeat) and trips to the thread by
counting the calls of the connection's ``_execute``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, cast

import aiosqlite
import pytest

from storage import (
    NotFound,
    Outcome,
    StatusConflict,
    Storage,
    StorageBusy,
    StorageFailure,
    StorageReadOnly,
    VersionConflict,
)


class Watch:
    """The statements run and the trips made to the thread while it is on."""

    def __init__(self, store: Storage) -> None:
        self.db = store._db
        self.seen: list[str] = []
        self.hops = 0

    async def __aenter__(self) -> Watch:
        await self.db.set_trace_callback(self.seen.append)
        execute = cast(Callable[..., Awaitable[Any]], self.db._execute)

        async def counting(fn: Any, *args: Any, **kwargs: Any) -> Any:
            self.hops += 1
            return await execute(fn, *args, **kwargs)

        self.db._execute = counting  # type: ignore[method-assign]
        return self

    async def __aexit__(self, *exc: object) -> None:
        del self.db._execute
        await self.db.set_trace_callback(None)  # type: ignore[arg-type]

    def reset(self) -> None:
        self.seen.clear()
        self.hops = 0

    def statements(self) -> list[str]:
        """The first words of the statements (a trigger's repeat of its statement dropped)."""
        out: list[str] = []
        last = None
        for sql in self.seen:
            if sql != last:
                words = sql.split()
                out.append(" ".join(words[:3]) if words[0] in ("INSERT", "UPDATE") else words[0])
            last = sql
        return out


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Storage]:
    s = await Storage.open(tmp_path / "db.sqlite3", busy_timeout=0.3)
    try:
        yield s
    finally:
        await s.close()


async def playing_game(store: Storage, chat_id: int = -1) -> int:
    await store.upsert_chat(chat_id, "group")
    game_id = await store.create_game(chat_id, 1, rules="{}", seed=7, seats="[]")
    await store.start_game(game_id, 0, snapshot='{"v": 0}', deadline=None)
    return game_id


def act(i: int) -> str:
    return json.dumps({"s": 0, "a": f"bid {100 + i}", "by": "h"})


# --------------------------------------------------------------------------- aiosqlite


async def test_the_private_aiosqlite_calls_it_relies_on(store: Storage) -> None:
    """``Storage._on_thread`` uses aiosqlite's private ``Connection._execute`` and ``_conn``
    (no public call runs a function on the connection's thread): if aiosqlite changes
    them, this fails before anything else does."""
    assert inspect.iscoroutinefunction(aiosqlite.Connection._execute)
    raw = store._db._conn
    assert isinstance(raw, sqlite3.Connection)
    where: dict[str, object] = {}

    def probe(conn: sqlite3.Connection, x: int, *, y: int) -> int:
        where.update(thread=threading.get_ident(), conn=conn)
        return int(conn.execute("SELECT ? + ?", (x, y)).fetchone()[0])

    async with Watch(store) as watch:
        assert await store._on_thread(probe, 2, y=3) == 5
    assert watch.hops == 1
    assert where["conn"] is raw
    assert where["thread"] == store._db._thread.ident != threading.get_ident()


# --------------------------------------------------------------------------- one move


async def test_a_move_is_one_transaction_in_one_trip(store: Storage) -> None:
    game_id = await playing_game(store)
    async with Watch(store) as watch:
        assert await store.append_action(game_id, 0, act(1), '{"v": 1}', deadline=99.0,
                                         human=True) == 1
    assert watch.hops == 1
    assert watch.statements() == [
        "BEGIN", "INSERT INTO game_actions", "UPDATE games SET", "COMMIT"]
    game = await store.get_game(game_id) or pytest.fail()
    assert (game.version, game.snapshot, game.deadline) == (1, '{"v": 1}', 99.0)
    assert game.human_moved == game.updated
    assert await store.actions(game_id) == [act(1)]


async def test_sheet_rows_and_the_outcome_only_when_given(store: Storage) -> None:
    game_id = await playing_game(store)
    async with Watch(store) as watch:
        await store.append_action(game_id, 0, act(1), "{}", deadline=5.0,
                                  sheet_rows=[(1, '{"n": 1}')])
        assert watch.hops == 1
        assert watch.statements() == [
            "BEGIN", "INSERT INTO game_actions", "UPDATE games SET", "INSERT INTO score_sheets",
            "COMMIT"]
        watch.reset()
        await store.append_action(
            game_id, 1, act(2), '{"v": 2}', deadline=5.0, sheet_rows=[(2, '{"n": 2}')],
            outcome=Outcome(winner_seat=1, totals="[1000, 0, 0]"), human=True)
        assert watch.hops == 1
        assert watch.statements() == [
            "BEGIN", "INSERT INTO game_actions", "UPDATE games SET", "INSERT INTO score_sheets",
            "INSERT INTO results", "COMMIT"]
    game = await store.get_game(game_id) or pytest.fail()
    assert (game.status, game.version, game.deadline, game.lobby_code) == (
        "finished", 2, None, None)
    assert game.human_moved == game.updated
    result = await store.get_result(game_id) or pytest.fail()
    assert (result.winner_seat, result.totals, result.stopped) == (1, "[1000, 0, 0]", False)
    assert result.finished == game.updated
    assert [(r.deal_no, r.data) for r in await store.score_sheet(game_id)] == [
        (1, '{"n": 1}'), (2, '{"n": 2}')]


async def test_a_stopped_outcome(store: Storage) -> None:
    game_id = await playing_game(store)
    await store.append_action(game_id, 0, act(1), "{}", deadline=None,
                              outcome=Outcome(winner_seat=None, totals="[0]", stopped=True))
    assert (await store.get_game(game_id) or pytest.fail()).status == "stopped"
    assert (await store.get_result(game_id) or pytest.fail()).stopped


async def test_a_refused_move_raises_the_conflict_and_stores_nothing(store: Storage) -> None:
    game_id = await playing_game(store)
    await store.append_action(game_id, 0, act(1), '{"v": 1}', deadline=None)
    before = await store.get_game(game_id)
    with pytest.raises(VersionConflict) as stale:
        await store.append_action(game_id, 0, act(9), "{}", deadline=None,
                                  sheet_rows=[(1, "{}")])
    assert (stale.value.expected, stale.value.actual) == (0, 1)
    with pytest.raises(VersionConflict):
        await store.append_action(game_id, 5, act(9), "{}", deadline=None)
    assert await store.get_game(game_id) == before
    assert await store.actions(game_id) == [act(1)]
    assert await store.score_sheet(game_id) == []

    await store.finish_game(game_id, winner_seat=None, totals="[]", stopped=True)
    ended = await store.get_game(game_id)
    for version in (1, 0):  # the status is checked first, as before
        with pytest.raises(StatusConflict):
            await store.append_action(game_id, version, act(9), "{}", deadline=None,
                                      sheet_rows=[(1, "{}")],
                                      outcome=Outcome(winner_seat=0, totals="[]"))
    assert await store.get_game(game_id) == ended
    assert await store.actions(game_id) == [act(1)]
    assert await store.score_sheet(game_id) == []
    with pytest.raises(NotFound):
        await store.append_action(game_id + 100, 0, act(1), "{}", deadline=None)
    assert not store._db.in_transaction


async def test_a_busy_database_raises_busy_and_leaves_no_half_move(
    store: Storage, tmp_path: Path
) -> None:
    game_id = await playing_game(store)
    other_game = await playing_game(store, -2)
    other = sqlite3.connect(tmp_path / "db.sqlite3", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # held past the storage's busy timeout (0.3 s)
        alone = store.append_action(game_id, 0, act(1), "{}", deadline=None,
                                    sheet_rows=[(1, "{}")])
        with pytest.raises(StorageBusy) as busy:
            await alone
        assert isinstance(busy.value.__cause__, sqlite3.OperationalError)
        together = await asyncio.gather(
            store.append_action(game_id, 0, act(1), "{}", deadline=None),
            store.append_action(other_game, 0, act(1), "{}", deadline=None,
                                outcome=Outcome(winner_seat=0, totals="[]")),
            return_exceptions=True)
        assert [type(r) for r in together] == [StorageBusy, StorageBusy]
    finally:
        other.rollback()
        other.close()
    assert not store._db.in_transaction
    for gid in (game_id, other_game):
        game = await store.get_game(gid) or pytest.fail()
        assert (game.status, game.version) == ("playing", 0)
        assert await store.actions(gid) == []
    assert await store.score_sheet(game_id) == []
    assert await store.get_result(other_game) is None
    assert await store.append_action(game_id, 0, act(1), "{}", deadline=None) == 1


# --------------------------------------------------------------------------- group commit


async def test_moves_waiting_together_share_one_commit(store: Storage) -> None:
    games = [await playing_game(store, -i) for i in range(1, 6)]
    async with Watch(store) as watch:
        versions = await asyncio.gather(*(
            store.append_action(gid, 0, act(gid), json.dumps({"g": gid}), deadline=None,
                                sheet_rows=[(1, "{}")] if gid == games[0] else ())
            for gid in games))
    assert versions == [1] * 5
    assert watch.hops == 1
    statements = watch.statements()
    assert statements.count("BEGIN") == statements.count("COMMIT") == 1
    assert statements.count("SAVEPOINT") == statements.count("RELEASE") == 5
    assert "ROLLBACK" not in statements
    for gid in games:
        game = await store.get_game(gid) or pytest.fail()
        assert (game.version, game.snapshot) == (1, json.dumps({"g": gid}))
        assert await store.actions(gid) == [act(gid)]
    assert len(await store.score_sheet(games[0])) == 1


async def test_a_refused_move_in_a_group_is_rolled_back_alone(store: Storage) -> None:
    games = [await playing_game(store, -i) for i in range(1, 4)]
    await store.append_action(games[1], 0, act(0), "{}", deadline=None)
    # A statement of one move fails (as a full disk would): that move alone is undone.
    await store._db.execute(
        f"CREATE TRIGGER fail BEFORE INSERT ON score_sheets WHEN NEW.game_id = {games[2]}"
        " BEGIN SELECT RAISE(ABORT, 'no room'); END")
    results = await asyncio.gather(
        store.append_action(games[0], 0, act(1), '{"ok": 1}', deadline=None),
        store.append_action(games[1], 0, act(1), "{}", deadline=None),  # stale
        store.append_action(games[2], 0, act(1), "{}", deadline=None, sheet_rows=[(1, "{}")]),
        store.append_action(games[0], 1, act(2), '{"ok": 2}', deadline=None),  # after the 1st
        return_exceptions=True)
    assert results[0] == 1 and results[3] == 2
    assert isinstance(results[1], VersionConflict)
    assert isinstance(results[2], StorageFailure) and "no room" in str(results[2])
    assert not store._db.in_transaction
    assert await store.actions(games[0]) == [act(1), act(2)]
    assert (await store.get_game(games[0]) or pytest.fail()).snapshot == '{"ok": 2}'
    assert await store.actions(games[1]) == [act(0)]
    assert await store.actions(games[2]) == []
    assert (await store.get_game(games[2]) or pytest.fail()).version == 0
    assert await store.score_sheet(games[2]) == []


async def test_a_stored_moves_caller_is_answered_before_the_flusher_wakes(
        store: Storage) -> None:
    """The commit's thread settles the callers itself (one turn of the event loop less
    between a press and its answer); the flusher, woken after, finds them settled."""
    writer = store._moves
    order: list[str] = []
    settle = writer._settle_batch

    def settled(batch: Any, results: Any) -> None:
        order.append("open" if not batch[0].future.done() else "done")
        settle(batch, results)

    writer._settle_batch = settled  # type: ignore[method-assign]
    gid = await playing_game(store, -1)
    assert await store.append_action(gid, 0, act(1), "{}", deadline=None) == 1
    await asyncio.sleep(0.01)  # the flusher ends
    assert order == ["open", "done"]  # the thread's call answered; the flusher's found it so
    assert await store.actions(gid) == [act(1)]


async def test_a_commit_whose_loop_refuses_the_early_answer_is_answered_by_the_flusher(
        store: Storage, monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    real = loop.call_soon_threadsafe
    refused: list[object] = []

    def closed(callback: Any, *args: Any, **kw: Any) -> Any:
        if getattr(callback, "__name__", "") == "_settle_batch":
            refused.append(callback)
            raise RuntimeError("Event loop is closed")
        return real(callback, *args, **kw)

    monkeypatch.setattr(loop, "call_soon_threadsafe", closed)
    games = [await playing_game(store, -i) for i in range(1, 4)]
    versions = await asyncio.gather(*(store.append_action(g, 0, act(1), "{}", deadline=None)
                                      for g in games))
    assert versions == [1, 1, 1] and refused  # stored, and told by the flusher instead
    for g in games:
        assert await store.actions(g) == [act(1)]


async def test_a_move_cancelled_while_it_waits_is_not_written(store: Storage) -> None:
    games = [await playing_game(store, -i) for i in range(1, 3)]
    # Hold the storage's lock so both moves wait in the queue, then cancel one of them.
    async with store._lock:
        first = asyncio.create_task(store.append_action(games[0], 0, act(1), "{}",
                                                        deadline=None))
        second = asyncio.create_task(store.append_action(games[1], 0, act(1), "{}",
                                                         deadline=None))
        await asyncio.sleep(0.01)
        second.cancel()
        with pytest.raises(asyncio.CancelledError):
            await second
    assert await first == 1
    assert await store.actions(games[1]) == []
    assert (await store.get_game(games[1]) or pytest.fail()).version == 0


# --------------------------------------------------------------------------- users, chats, ids


async def test_an_unchanged_user_or_chat_is_not_written(store: Storage) -> None:
    user = await store.upsert_user(5, "Alice", "alice", language="en")
    chat = await store.upsert_chat(-5, "group", language="en")
    async with Watch(store) as watch:
        assert await store.upsert_user(5, "Alice", "alice", language="ru") == user
        assert await store.upsert_chat(-5, "group", language="ru") == chat
        assert (watch.hops, watch.seen) == (0, [])
        renamed = await store.upsert_user(5, "Alicia", "alice")
        assert watch.hops == 1
        assert watch.statements() == ["BEGIN", "INSERT INTO users", "SELECT", "COMMIT"]
        watch.reset()
        moved = await store.upsert_chat(-5, "supergroup")
        assert watch.hops == 1
        assert watch.statements() == ["BEGIN", "INSERT INTO chats", "SELECT", "COMMIT"]
    assert (renamed.first_name, renamed.language, renamed.created) == ("Alicia", "en",
                                                                      user.created)
    assert renamed.updated > user.updated
    assert (moved.kind, moved.language) == ("supergroup", "en")
    assert await store.get_user(5) == renamed
    assert await store.get_chat(-5) == moved


async def test_an_unchanged_row_is_not_rewritten_without_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path) as first:
        user = await first.upsert_user(5, "Alice")
        chat = await first.upsert_chat(-5, "group")
    async with Storage.open(path) as second:  # a new process: nothing remembered
        assert await second.upsert_user(5, "Alice") == user  # ``updated`` stays
        assert await second.upsert_chat(-5, "group") == chat


async def test_the_storage_own_changes_are_never_hidden_by_the_cache(store: Storage) -> None:
    await store.upsert_user(5, "Alice")
    await store.set_user_language(5, "en")
    await store.mark_started(5)
    user = await store.upsert_user(5, "Alice")
    assert (user.language, user.started, user.blocked) == ("en", True, False)
    await store.mark_blocked(5)
    assert (await store.upsert_user(5, "Alice")).blocked
    await store.upsert_chat(-5, "group")
    await store.set_chat_language(-5, "en")
    await store.set_default_rules(-5, "{}")
    chat = await store.upsert_chat(-5, "group")
    assert (chat.language, chat.default_rules) == ("en", "{}")
    await store.migrate_chat(-5, -6)
    assert (await store.upsert_chat(-6, "supergroup")).language == "en"
    assert await store.get_chat(-5) is None
    again = await store.upsert_chat(-5, "group")  # the old id is new again
    assert again.language == "ru" and again.created > chat.created


async def test_a_failed_write_leaves_no_wrong_cache_entry(store: Storage) -> None:
    await store.upsert_user(5, "Alice")
    await store.upsert_chat(-5, "group")
    await store._db.execute("PRAGMA query_only=ON")  # every write: SQLITE_READONLY
    with pytest.raises(StorageReadOnly):
        await store.upsert_user(5, "Alicia")
    with pytest.raises(StorageReadOnly):
        await store.upsert_chat(-5, "supergroup")
    assert not store._db.in_transaction
    await store._db.execute("PRAGMA query_only=OFF")
    assert (await store.get_user(5) or pytest.fail()).first_name == "Alice"
    async with Watch(store) as watch:
        assert (await store.upsert_user(5, "Alicia")).first_name == "Alicia"
        assert (await store.upsert_chat(-5, "supergroup")).kind == "supergroup"
        assert watch.hops == 2  # written, not taken from memory
    assert (await store.get_user(5) or pytest.fail()).first_name == "Alicia"
    assert (await store.get_chat(-5) or pytest.fail()).kind == "supergroup"


async def test_set_message_ids_is_one_trip(store: Storage) -> None:
    game_id = await playing_game(store)
    async with Watch(store) as watch:
        await store.set_message_ids(game_id, '{"table": 5}')
        assert watch.hops == 1
        assert watch.statements() == ["BEGIN", "UPDATE games SET", "COMMIT"]
    assert (await store.get_game(game_id) or pytest.fail()).message_ids == '{"table": 5}'
    with pytest.raises(NotFound):
        await store.set_message_ids(game_id + 100, "{}")
    assert not store._db.in_transaction
