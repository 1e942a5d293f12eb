"""SQLite-specific guarantees: schema constraints, migrations, cancellation, real crashes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any

import pytest

from storage import (
    MEMORY,
    MIGRATIONS,
    SCHEMA_VERSION,
    ActiveGameConflict,
    LobbyCodeTaken,
    SchemaTooNew,
    SeatResult,
    Storage,
    StorageBusy,
    StorageDiskError,
    StorageError,
    StorageFailure,
    StorageReadOnly,
    StorageUnavailable,
)
from storage.base import Change, Moved
from storage.sqlite import _failure

ROOT = Path(__file__).resolve().parents[2]


async def playing_game(store: Storage, chat_id: int = -1) -> int:
    await store.upsert_chat(chat_id, "group")
    game_id = await store.create_game(chat_id, 1, rules="{}", seed=7, seats="[]")
    await store.start_game(game_id, 0, snapshot='{"v": 0}', deadline=None)
    return game_id


def user_version(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA user_version").fetchone()[0])


# --------------------------------------------------------------------------- migrations


async def test_migrates_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    async with Storage.open(path) as store:
        assert (await store.pragmas()).user_version == SCHEMA_VERSION == len(MIGRATIONS)
    assert user_version(path) == SCHEMA_VERSION
    with sqlite3.connect(path) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"chats", "users", "games", "game_actions", "score_sheets", "results"} <= tables


async def test_new_migration_upgrades_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path) as store:
        game_id = await playing_game(store)
        await store.append_action(game_id, 0, "1", "{}", deadline=None)

    v2 = (*MIGRATIONS, ("CREATE TABLE extra (x INTEGER)", "INSERT INTO extra VALUES (1)"))
    async with Storage.open(path, migrations=v2) as store:
        assert (await store.pragmas()).user_version == SCHEMA_VERSION + 1
        assert await store.actions(game_id) == ["1"]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT x FROM extra").fetchall() == [(1,)]
    # Opening again applies nothing twice.
    async with Storage.open(path, migrations=v2) as store:
        assert (await store.pragmas()).user_version == SCHEMA_VERSION + 1
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM extra").fetchone() == (1,)


async def test_failed_migration_is_rolled_back(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path) as store:
        await store.upsert_chat(5, "private")
    broken = (*MIGRATIONS, ("CREATE TABLE extra (x)", "INSERT INTO missing VALUES (1)"))
    with pytest.raises(StorageFailure, match="no such table: missing") as raised:
        await Storage.open(path, migrations=broken)
    assert isinstance(raised.value.__cause__, sqlite3.OperationalError)
    assert not isinstance(raised.value, StorageUnavailable)  # a bug: retrying will not help
    assert user_version(path) == SCHEMA_VERSION
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master WHERE name = 'extra'").fetchall() == []
    async with Storage.open(path) as store:
        assert await store.get_chat(5) is not None


async def test_refuses_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path):
        pass
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew):
        await Storage.open(path)


# --------------------------------------------------------------------------- constraints


async def test_schema_constraints_hold_without_the_repository(tmp_path: Path) -> None:
    """The partial unique indexes, the log triggers and the foreign keys are in the schema."""
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path) as store:
        game_id = await playing_game(store, -1)
        await store.append_action(game_id, 0, "1", "{}", deadline=None)
        await store.upsert_chat(-2, "group")
        await store.create_game(-2, 1, rules="{}", seed=1, seats="[]", lobby_code="abc")

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys=ON")
    insert = (
        "INSERT INTO games (chat_id, status, creator_id, created, updated, rules, seed, seats,"
        " lobby_code) VALUES (?, ?, 1, 0, 0, '{}', 0, '[]', ?)"
    )
    try:
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            db.execute(insert, (-1, "lobby", None))  # -1 already plays
        with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
            db.execute(insert, (-2, "finished", "abc"))  # the code is taken
        db.execute(insert, (-1, "finished", None))  # finished games do not count
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            db.execute(insert, (-999, "finished", None))
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            db.execute(insert, (-2, "paused", None))
        log = "INSERT INTO game_actions (game_id, seq, action, created) VALUES (?, ?, '0', 0)"
        with pytest.raises(sqlite3.IntegrityError, match="seq must be the game version"):
            db.execute(log, (game_id, 3))  # a gap
        with pytest.raises(sqlite3.IntegrityError):
            db.execute(log, (game_id, 1))  # a duplicate
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute("UPDATE game_actions SET action = '2' WHERE game_id = ?", (game_id,))
    finally:
        db.close()


async def test_foreign_keys_are_enforced_on_the_storage_connection() -> None:
    async with Storage.open(MEMORY) as store:
        with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
            await store._db.execute(
                "INSERT INTO score_sheets (game_id, deal_no, data, created) VALUES (1, 1, '{}', 0)"
            )


# --------------------------------------------------------------------------- cancellation


@pytest.mark.parametrize("cancel_rollback_too", [False, True])
async def test_cancellation_at_every_statement(cancel_rollback_too: bool) -> None:
    """Cancel an append at each of its statements: it commits fully or not at all."""
    async with Storage.open(MEMORY) as store:
        game_id = await playing_game(store)
        loop = asyncio.get_running_loop()
        state: dict[str, object] = {"count": -1, "at": 0, "task": None, "seen": []}

        def trace(sql: str) -> None:  # runs in aiosqlite's thread
            task = state["task"]
            if not isinstance(task, asyncio.Task):
                return
            seen = state["seen"]
            assert isinstance(seen, list)
            seen.append(sql.split()[0].upper())
            state["count"] = int(str(state["count"])) + 1
            if state["count"] == state["at"] or (
                cancel_rollback_too and sql.upper().startswith("ROLLBACK")
            ):
                loop.call_soon_threadsafe(task.cancel)

        await store._db.set_trace_callback(trace)
        committed_at_least_once = False
        for at in range(8):
            version = (await store.get_game(game_id) or pytest.fail()).version
            state.update(count=-1, at=at, seen=[])
            task = asyncio.create_task(
                store.append_action(
                    game_id,
                    version,
                    str(version + 1),
                    json.dumps({"v": version + 1}),
                    deadline=None,
                    sheet_rows=[(version + 1, "{}")],
                )
            )
            state["task"] = task
            with contextlib.suppress(asyncio.CancelledError):
                await task
            state["task"] = None
            seen = state["seen"]
            assert isinstance(seen, list)
            game = await store.get_game(game_id) or pytest.fail()
            assert game.version in (version, version + 1)
            assert len(await store.actions(game_id)) == game.version
            assert len(await store.score_sheet(game_id)) == game.version
            assert game.snapshot == json.dumps({"v": game.version})
            if game.version == version + 1:
                committed_at_least_once = True
                assert "COMMIT" in seen and "ROLLBACK" not in seen
            else:
                assert "ROLLBACK" in seen or "BEGIN" not in seen
        assert committed_at_least_once
        await store._db.set_trace_callback(None)  # type: ignore[arg-type]
        version = (await store.get_game(game_id) or pytest.fail()).version
        assert await store.append_action(game_id, version, "0", "{}", deadline=None) == version + 1


@pytest.mark.parametrize("write", ["append", "deadline", "seats"])
async def test_a_cancelled_write_is_told_to_the_feed_exactly_when_it_committed(
    write: str,
) -> None:
    """Cancel a move (group commit), a ``write()`` transaction and a ``transact()`` one at
    each of their statements: the feed is told the change if and only if it committed."""
    async with Storage.open(MEMORY) as store:
        game_id = await playing_game(store)
        heard: list[Change | None] = []
        store.feed.subscribe(heard.append)
        loop = asyncio.get_running_loop()
        state: dict[str, object] = {"count": -1, "at": 0, "task": None}

        def trace(sql: str) -> None:  # runs in aiosqlite's thread
            task = state["task"]
            if isinstance(task, asyncio.Task):
                state["count"] = int(str(state["count"])) + 1
                if state["count"] == state["at"]:
                    loop.call_soon_threadsafe(task.cancel)

        await store._db.set_trace_callback(trace)
        outcomes = set()
        for i, at in enumerate([*range(8)] * 5):  # the race at the COMMIT, five times over
            before = await store.get_game(game_id) or pytest.fail()
            heard.clear()
            coro: Coroutine[Any, Any, object]
            if write == "append":
                coro = store.append_action(game_id, before.version, "1", "{}", deadline=None)
            elif write == "deadline":
                coro = store.set_deadline(game_id, float(i + 1))
            else:
                coro = store.set_seats(game_id, json.dumps([i]))
            state.update(count=-1, at=at)
            task = asyncio.create_task(coro)
            state["task"] = task
            with contextlib.suppress(asyncio.CancelledError):
                await task
            state["task"] = None
            after = await store.get_game(game_id) or pytest.fail()
            committed = (after.version, after.deadline, after.seats) != (
                before.version, before.deadline, before.seats)
            moved = Moved(("1",), "playing", None) if write == "append" else None
            assert heard == ([Change(game_id, after.version, moved)] if committed else []), at
            outcomes.add(committed)
        # Cancelled after its COMMIT; and before it, where the loop hears of the cancel
        # between two trips (one trip, a move or transact(), is often done by then).
        assert True in outcomes and (write != "deadline" or False in outcomes)
        await store._db.set_trace_callback(None)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- real crash

_CHILD = """
import asyncio, json, sys
from storage import Storage

async def main(path: str) -> None:
    store = await Storage.open(path)
    await store.upsert_chat(1, "group")
    game_id = await store.create_game(1, 1, rules="{}", seed=1, seats="[]")
    await store.start_game(game_id, 0, snapshot="{}", deadline=None)
    version = 0
    while True:
        version = await store.append_action(
            game_id, version, json.dumps({"n": version + 1}), json.dumps({"v": version + 1}),
            deadline=float(version), sheet_rows=[(version + 1, "{}")],
        )
        print(version, flush=True)  # the move is acknowledged only now

asyncio.run(main(sys.argv[1]))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
async def test_killed_process_loses_no_acknowledged_action(tmp_path: Path) -> None:
    path = tmp_path / "crash.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert child.stdout is not None
    acknowledged = 0
    try:
        for line in child.stdout:
            acknowledged = int(line)
            if acknowledged >= 30:
                break
        child.send_signal(signal.SIGKILL)  # while it keeps writing
    finally:
        child.wait(timeout=30)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert acknowledged >= 30

    async with Storage.open(path) as store:
        game = await store.get_game(1)
        assert game is not None
        assert game.version >= acknowledged
        log = await store.actions(1)
        assert log == [json.dumps({"n": n}) for n in range(1, game.version + 1)]
        assert len(await store.score_sheet(1)) == game.version
        assert game.snapshot == json.dumps({"v": game.version})
        assert game.deadline == float(game.version - 1)


# --------------------------------------------------------------------------- version 2


def v1_database(path: Path) -> None:
    """A database as version 1 left it: a lobby, a game playing and a finished one."""
    with sqlite3.connect(path, isolation_level=None) as db:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("BEGIN")
        db.execute("INSERT INTO chats VALUES (-1, 'group', 'ru', NULL, 0, 0)")
        db.execute("INSERT INTO chats VALUES (-2, 'group', 'ru', NULL, 0, 0)")
        db.execute("INSERT INTO chats VALUES (-3, 'group', 'ru', NULL, 0, 0)")
        games = (
            "INSERT INTO games (game_id, chat_id, status, creator_id, created, updated, rules,"
            " seed, seats, version, lobby_code) VALUES (?, ?, ?, 1, 10, ?, '{}', 5, '[]', ?, ?)"
        )
        db.execute(games, (1, -1, "finished", 30.0, 2, None))
        db.execute(games, (2, -2, "playing", 50.0, 2, None))
        db.execute(games, (7, -3, "lobby", 60.0, 0, "code"))
        for game_id in (1, 2):
            for seq, created in ((1, 20.0 + game_id), (2, 40.0 + game_id)):
                db.execute("UPDATE games SET version = ? WHERE game_id = ?", (seq - 1, game_id))
                db.execute(
                    "INSERT INTO game_actions VALUES (?, ?, ?, ?)",
                    (game_id, seq, json.dumps({"s": 0, "a": f"m{seq}"}), created),
                )
            db.execute("UPDATE games SET version = 2 WHERE game_id = ?", (game_id,))
            # The deal's row was written with the second action (the same transaction time).
            db.execute("INSERT INTO score_sheets VALUES (?, 1, '{}', ?)", (game_id, 40.0 + game_id))
        db.execute("INSERT INTO results VALUES (1, 30, 0, '[1000, 0]', 0)")
        db.execute("UPDATE sqlite_sequence SET seq = 9 WHERE name = 'games'")  # 8, 9 were used
        db.execute("COMMIT")


async def test_migration_2_keeps_every_game_and_its_log(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite3"
    async with Storage.open(path, migrations=MIGRATIONS[:1]):
        pass
    v1_database(path)
    async with Storage.open(path) as store:
        assert (await store.pragmas()).user_version == SCHEMA_VERSION
        done, playing, lobby = [await store.get_game(i) or pytest.fail() for i in (1, 2, 7)]
        assert (done.status, done.version, done.human_moved, done.reason) == (
            "finished",
            2,
            30.0,
            None,
        )
        # A game already playing counts from its last write, so none expires sooner.
        assert (playing.status, playing.human_moved) == ("playing", 50.0)
        assert (lobby.status, lobby.human_moved, lobby.lobby_code) == ("lobby", None, "code")
        for game_id in (1, 2):
            assert len(await store.actions(game_id)) == 2  # nothing cascaded away
        assert await store.get_result(1) is not None
        assert [g.game_id for g in await store.idle_games(0, now=51.0)] == [2]
        # Old score-sheet rows found the action that ended their deal.
        record = json.loads(await store.export_game(2))
        assert record["deals"] == [{"actions": ["0:m1", "0:m2"]}]
        # The constraints are all back: one active game per chat, codes, the log triggers.
        with pytest.raises(ActiveGameConflict):
            await store.create_game(-2, 1, rules="{}", seed=1, seats="[]")
        with pytest.raises(LobbyCodeTaken):
            await store.create_game(-1, 1, rules="{}", seed=1, seats="[]", lobby_code="code")
        assert await store.append_action(2, 2, "{}", "{}", deadline=None) == 3
        new = await store.create_game(-1, 1, rules="{}", seed=1, seats="[]")
        assert new == 10  # AUTOINCREMENT never reuses an id
        assert (await store.pragmas()).foreign_keys is True
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        with pytest.raises(sqlite3.IntegrityError, match="seq must be the game version"):
            db.execute("INSERT INTO game_actions VALUES (2, 9, '{}', 0)")
        with pytest.raises(sqlite3.IntegrityError, match="CHECK"):
            db.execute("UPDATE games SET status = 'paused' WHERE game_id = 2")
        db.execute("UPDATE games SET status = 'broken' WHERE game_id = 2")  # allowed now
        db.rollback()


async def test_a_migration_that_breaks_foreign_keys_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    async with Storage.open(path) as store:
        await playing_game(store)
    bad = (*MIGRATIONS, ("DELETE FROM chats",))  # would orphan the game
    with pytest.raises(StorageFailure, match="foreign key"):
        await Storage.open(path, migrations=bad)
    assert user_version(path) == SCHEMA_VERSION
    async with Storage.open(path) as store:
        assert await store.get_chat(-1) is not None


# --------------------------------------------------------------------------- permissions


def modes(path: Path) -> dict[str, int]:
    return {
        suffix: stat.S_IMODE(os.stat(f"{path}{suffix}").st_mode)
        for suffix in ("", "-wal", "-shm")
    }


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what a plain open() would give: 0644
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.usefixtures("loose_umask")
async def test_a_new_database_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    async with Storage.open(path) as store:
        game_id = await playing_game(store)
        await store.append_action(game_id, 0, "{}", "{}", deadline=None)
        assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


@pytest.mark.usefixtures("loose_umask")
async def test_an_existing_database_is_made_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    other = sqlite3.connect(path, isolation_level=None)  # keeps -wal/-shm in place
    try:
        other.execute("PRAGMA journal_mode=WAL")
        other.execute("CREATE TABLE t (x)")
        os.chmod(path, 0o644)
        for suffix in ("-wal", "-shm"):
            os.chmod(f"{path}{suffix}", 0o664)
        assert modes(path) == {"": 0o644, "-wal": 0o664, "-shm": 0o664}
        async with Storage.open(path) as store:
            await store.upsert_chat(1, "private")
            assert modes(path) == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
    finally:
        other.close()
    os.chmod(path, 0o400)  # tightening never adds a bit
    async with Storage.open(path):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o400


async def test_a_database_that_cannot_be_created_raises_a_storage_error(tmp_path: Path) -> None:
    with pytest.raises(StorageDiskError):
        await Storage.open(tmp_path / "missing" / "db.sqlite3")


# --------------------------------------------------------------------------- failures


@pytest.fixture
async def file_store(tmp_path: Path) -> AsyncIterator[tuple[Storage, Path]]:
    path = tmp_path / "db.sqlite3"
    store = await Storage.open(path, busy_timeout=0.3)
    try:
        yield store, path
    finally:
        await store.close()


async def test_busy_timeout_is_a_setting(tmp_path: Path) -> None:
    async with Storage.open(tmp_path / "a.sqlite3") as store:
        assert (await store.pragmas()).busy_timeout_ms == 5000  # the default
    async with Storage.open(tmp_path / "b.sqlite3", busy_timeout=0.25) as store:
        assert (await store.pragmas()).busy_timeout_ms == 250
    with pytest.raises(ValueError):
        await Storage.open(tmp_path / "c.sqlite3", busy_timeout=-1)


async def test_a_locked_database_is_busy_then_works_again(
    file_store: tuple[Storage, Path],
) -> None:
    store, path = file_store
    game_id = await playing_game(store)
    before = await store.get_game(game_id)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock ...
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(StorageBusy) as busy:  # ... longer than the busy timeout
            await store.append_action(
                game_id, 0, "{}", "{}", deadline=None, sheet_rows=[(1, "{}")], human=True
            )
        assert loop.time() - started >= 0.25
        assert isinstance(busy.value, StorageUnavailable)  # transient: retry with backoff
        assert busy.value.code_name == "SQLITE_BUSY"
        assert isinstance(busy.value.__cause__, sqlite3.OperationalError)
        assert "database is locked" in str(busy.value)
        assert await store.get_game(game_id) == before  # reads go on (WAL); nothing written
        assert await store.actions(game_id) == []
        with pytest.raises(StorageBusy):
            await store.expire_game(game_id)
    finally:
        other.rollback()
        other.close()
    assert not store._db.in_transaction
    # The same Storage works again, at the same version.
    assert await store.append_action(game_id, 0, "{}", "{}", deadline=None, human=True) == 1
    assert await store.score_sheet(game_id) == []


async def test_a_read_only_database_refuses_then_works_again(
    file_store: tuple[Storage, Path],
) -> None:
    """SQLITE_READONLY on the storage's own connection, in the middle of a transaction.

    chmod cannot produce it here: the tests run as root (who may write a 0400 file), and
    even for another user an open connection keeps its file descriptors.  SQLite's
    ``PRAGMA query_only`` makes every write fail with the very error ("attempt to write a
    readonly database", SQLITE_READONLY) that a read-only file gives, after ``BEGIN``.
    """
    store, path = file_store
    game_id = await playing_game(store)
    before = await store.get_game(game_id)
    await store._db.execute("PRAGMA query_only=ON")
    with pytest.raises(StorageReadOnly) as refused:
        await store.append_action(game_id, 0, "{}", "{}", deadline=None, sheet_rows=[(1, "{}")])
    assert isinstance(refused.value, StorageUnavailable)
    assert refused.value.code_name == "SQLITE_READONLY"
    assert "readonly database" in str(refused.value)
    assert not store._db.in_transaction  # rolled back, not left half done
    assert await store.get_game(game_id) == before
    with pytest.raises(StorageReadOnly):
        await store.mark_broken(game_id, "x")
    await store._db.execute("PRAGMA query_only=OFF")
    assert await store.append_action(game_id, 0, "{}", "{}", deadline=None) == 1
    async with Storage.open(path) as again:
        assert await again.actions(game_id) == ["{}"]


def sqlite_error(code: int, name: str, text: str) -> sqlite3.Error:
    error = sqlite3.OperationalError(text)
    error.sqlite_errorcode = code
    error.sqlite_errorname = name
    return error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (sqlite_error(5, "SQLITE_BUSY", "database is locked"), StorageBusy),
        (sqlite_error(517, "SQLITE_BUSY_SNAPSHOT", "database is locked"), StorageBusy),
        (sqlite_error(6, "SQLITE_LOCKED", "database table is locked"), StorageBusy),
        (sqlite_error(8, "SQLITE_READONLY", "attempt to write a readonly database"),
         StorageReadOnly),
        (sqlite_error(1288, "SQLITE_READONLY_DBMOVED", "readonly"), StorageReadOnly),
        (sqlite_error(778, "SQLITE_IOERR_WRITE", "disk I/O error"), StorageDiskError),
        (sqlite_error(13, "SQLITE_FULL", "database or disk is full"), StorageDiskError),
        (sqlite_error(14, "SQLITE_CANTOPEN", "unable to open database file"), StorageDiskError),
        (sqlite_error(11, "SQLITE_CORRUPT", "database disk image is malformed"), StorageFailure),
        (sqlite_error(1, "SQLITE_ERROR", "no such table: x"), StorageFailure),
        (sqlite3.OperationalError("database is locked"), StorageBusy),
        (sqlite3.OperationalError("disk I/O error"), StorageDiskError),
        (sqlite3.ProgrammingError("Cannot operate on a closed database."), StorageFailure),
        (PermissionError(13, "Permission denied"), StorageDiskError),
    ],
)
def test_every_failure_is_a_storage_error(error: Exception, expected: type) -> None:
    assert isinstance(error, sqlite3.Error | OSError)
    failure = _failure(error, "db")
    assert type(failure) is expected
    assert isinstance(failure, StorageError)
    transient = expected in (StorageBusy, StorageReadOnly, StorageDiskError)
    assert isinstance(failure, StorageUnavailable) is transient


async def test_a_failing_statement_leaves_no_transaction(
    file_store: tuple[Storage, Path],
) -> None:
    """Whatever SQLite refuses mid-transaction is rolled back; the next write works."""
    store, _ = file_store
    game_id = await playing_game(store)
    await store._db.execute("CREATE TRIGGER fail BEFORE INSERT ON score_sheets"
                            " BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END")
    with pytest.raises(StorageFailure):
        await store.append_action(game_id, 0, "{}", "{}", deadline=None, sheet_rows=[(1, "{}")])
    assert not store._db.in_transaction
    assert (await store.get_game(game_id) or pytest.fail()).version == 0
    await store._db.execute("DROP TRIGGER fail")
    assert await store.append_action(game_id, 0, "{}", "{}", deadline=None) == 1


async def test_migration_3_leaves_the_finished_games_to_be_counted(tmp_path: Path) -> None:
    """The stats tables come empty; a game finished before them is unrated, so the bot
    counts it at its next start-up (``bot.tg.rooms.ratings.RatingsRoom.record_unrated``)."""
    path = tmp_path / "v2.sqlite3"
    async with Storage.open(path, migrations=MIGRATIONS[:1]):
        pass
    v1_database(path)
    async with Storage.open(path, migrations=MIGRATIONS[:2]) as store:
        assert (await store.pragmas()).user_version == 2
    async with Storage.open(path, migrations=MIGRATIONS[:3]) as store:
        assert (await store.pragmas()).user_version == 3
        assert [g.game_id for g in await store.unrated_games()] == [1]
        assert await store.player_stats("u:1") is None
        assert await store.record_game_result(
            1, [SeatResult(0, "u:1", 1, True), SeatResult(1, "ai:hard", 2, False)])
        assert await store.unrated_games() == []
