"""What only the PostgreSQL backend has: its migrations (under an advisory lock), several
processes (pools) on one database, and asyncpg's errors mapped to the storage errors.

Each test gets an empty database (``tests/pg.py``); without a server they are skipped.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket

import asyncpg
import pytest

from storage import (
    SCHEMA_VERSION,
    ActiveGameConflict,
    SchemaTooNew,
    Storage,
    StorageBusy,
    StorageDiskError,
    StorageFailure,
    StorageOffline,
    StorageReadOnly,
    StorageUnavailable,
    VersionConflict,
    open_storage,
)
from storage.postgres import PostgresStorage, _failure, redact
from storage.postgres.schema import PG_MIGRATIONS, SCHEMA_TABLE, TABLES
from tests.storage.test_contract import act, new_game, play, snap


async def applied(url: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(f"SELECT version FROM {SCHEMA_TABLE} ORDER BY version")
    finally:
        await conn.close()
    return [int(r["version"]) for r in rows]


async def tables(url: str) -> set[str]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
    finally:
        await conn.close()
    return {str(r["table_name"]) for r in rows}


# --------------------------------------------------------------------------- migrations


async def test_migrates_an_empty_database(pg_url: str) -> None:
    assert await tables(pg_url) == set()
    store = await open_storage(database_url=pg_url)
    try:
        assert isinstance(store, PostgresStorage)
        assert await store.schema_version() == SCHEMA_VERSION == len(PG_MIGRATIONS)
    finally:
        await store.close()
    assert await applied(pg_url) == list(range(1, SCHEMA_VERSION + 1))
    assert set(TABLES) | {SCHEMA_TABLE} <= await tables(pg_url)


async def test_reopening_migrates_nothing_and_keeps_the_data(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with PostgresStorage.open(pg_url) as store:
        game_id = await new_game(store, start=True)
        await play(store, game_id, 2)
    conn = await asyncpg.connect(pg_url)
    try:
        before = await conn.fetch(f"SELECT * FROM {SCHEMA_TABLE} ORDER BY version")
    finally:
        await conn.close()
    caplog.set_level(logging.INFO, logger="storage.postgres")
    async with PostgresStorage.open(pg_url) as store:
        assert await store.actions(game_id) == [act(1), act(2)]
    assert "migrated" not in caplog.text
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetch(f"SELECT * FROM {SCHEMA_TABLE} ORDER BY version") == before
    finally:
        await conn.close()


async def test_two_processes_starting_together_migrate_once(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="storage.postgres")
    stores = await asyncio.gather(*(open_storage(database_url=pg_url) for _ in range(3)))
    try:
        assert await applied(pg_url) == list(range(1, SCHEMA_VERSION + 1))
        migrated = [r for r in caplog.records if "migrated the schema" in r.getMessage()]
        assert len(migrated) == SCHEMA_VERSION  # each migration ran once, not once per store
        # All of them work on the same tables.
        await stores[0].upsert_chat(1, "private")
        assert await stores[2].get_chat(1) is not None
    finally:
        for store in stores:
            await store.close()


async def test_a_newer_schema_is_refused(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url):
        pass
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute(
            f"INSERT INTO {SCHEMA_TABLE} (version, applied) VALUES ($1, 0)", SCHEMA_VERSION + 1
        )
    finally:
        await conn.close()
    with pytest.raises(SchemaTooNew, match=f"schema version {SCHEMA_VERSION + 1} is newer"):
        await open_storage(database_url=pg_url)


async def test_a_failing_migration_writes_nothing(pg_url: str) -> None:
    broken = (*PG_MIGRATIONS[:1], ("CREATE TABLE x (a INTEGER)", "SELECT no_such_function()"))
    with pytest.raises(StorageFailure):
        await PostgresStorage.open(pg_url, migrations=broken)
    assert await applied(pg_url) == [1]
    assert "x" not in await tables(pg_url)


async def test_open_storage_picks_the_backend(pg_url: str, tmp_path: object) -> None:
    path = f"{tmp_path}/t.sqlite3"
    async with await open_storage(database_path=path) as lite:
        assert isinstance(lite, Storage)
    async with await open_storage(database_url=pg_url, database_path=path) as pg:
        assert isinstance(pg, PostgresStorage)


async def test_the_log_is_append_only_and_contiguous(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url) as store:
        game_id = await new_game(store, start=True)
        await play(store, game_id, 2)
    conn = await asyncpg.connect(pg_url)
    try:
        with pytest.raises(asyncpg.IntegrityConstraintViolationError, match="append-only"):
            await conn.execute("UPDATE game_actions SET action = '{}' WHERE game_id = $1",
                               game_id)
        for seq in (3, 4):  # the next one without the version moving; a gap
            with pytest.raises(asyncpg.IntegrityConstraintViolationError,
                               match=f"seq {seq} of game {game_id} is not"):
                await conn.execute("INSERT INTO game_actions VALUES ($1, $2, '{}', 0)",
                                   game_id, seq)
        # With the version moved in the same statement, the next seq is accepted.
        await conn.execute(
            "WITH g AS (UPDATE games SET version = 3 WHERE game_id = $1 RETURNING game_id)"
            " INSERT INTO game_actions SELECT game_id, 3, '{}', 0 FROM g", game_id)
        assert await conn.fetchval(
            "SELECT array_agg(seq ORDER BY seq) FROM game_actions WHERE game_id = $1",
            game_id) == [1, 2, 3]
    finally:
        await conn.close()


# --------------------------------------------------------------------------- several processes


async def test_stale_version_is_refused_and_stores_nothing(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url) as store:
        game_id = await new_game(store, start=True)
        await store.append_action(game_id, 0, act(1), snap(1), deadline=5.0,
                                  sheet_rows=[(0, '{"deal": 0}')])
        before = await store.get_game(game_id)
        with pytest.raises(VersionConflict) as caught:
            await store.append_action(game_id, 0, act(9), snap(9), deadline=99.0,
                                      sheet_rows=[(0, '{"deal": "stale"}'), (1, "{}")])
        assert (caught.value.expected, caught.value.actual) == (0, 1)
        assert await store.get_game(game_id) == before
        assert await store.actions(game_id) == [act(1)]
        assert [r.data for r in await store.score_sheet(game_id)] == ['{"deal": 0}']


async def test_two_processes_appending_the_same_version_one_wins(pg_url: str) -> None:
    """Two pools stand for two bot processes; every round both append the same version."""
    first = await PostgresStorage.open(pg_url)
    second = await PostgresStorage.open(pg_url)
    try:
        game_id = await new_game(first, start=True)
        for version in range(30):
            results = await asyncio.gather(
                first.append_action(game_id, version, act(version + 1), snap(version + 1),
                                    deadline=None),
                second.append_action(game_id, version, json.dumps({"other": version + 1}),
                                     snap(version + 1), deadline=None),
                return_exceptions=True,
            )
            assert sorted(map(type, results), key=lambda t: t.__name__) == [
                VersionConflict, int], results
            assert version + 1 in results
        log = await second.actions(game_id)
        assert len(log) == 30
        game = await first.get_game(game_id)
        assert game is not None and game.version == 30
    finally:
        await first.close()
        await second.close()


async def test_two_processes_creating_a_game_in_one_chat(pg_url: str) -> None:
    first = await PostgresStorage.open(pg_url)
    second = await PostgresStorage.open(pg_url)
    try:
        for chat in range(-20, 0):
            await first.upsert_chat(chat, "group")
            results = await asyncio.gather(
                *(s.create_game(chat, 1, rules="{}", seed=1, seats="[]")
                  for s in (first, second, first, second)),
                return_exceptions=True,
            )
            ids = [r for r in results if isinstance(r, int)]
            assert len(ids) == 1, results
            assert all(isinstance(r, ActiveGameConflict) and r.game_id == ids[0]
                       for r in results if r is not ids[0]), results
    finally:
        await first.close()
        await second.close()


# --------------------------------------------------------------------------- errors


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_no_server_is_storage_offline() -> None:
    url = f"postgresql://nobody:secret@127.0.0.1:{free_port()}/none"
    with pytest.raises(StorageOffline, match="cannot be reached") as caught:
        await open_storage(database_url=url)
    assert isinstance(caught.value, StorageUnavailable)
    assert "secret" not in str(caught.value)
    assert redact(url) == url.replace("secret", "***")


async def test_a_lock_held_too_long_is_storage_busy(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url, busy_timeout=0.2) as store:
        game_id = await new_game(store, start=True)
        blocker = await asyncpg.connect(pg_url)
        try:
            async with blocker.transaction():
                await blocker.execute("SELECT 1 FROM games WHERE game_id = $1 FOR UPDATE",
                                      game_id)
                with pytest.raises(StorageBusy, match="55P03"):
                    await store.append_action(game_id, 0, act(1), snap(1), deadline=None)
                with pytest.raises(StorageBusy):
                    await store.set_deadline(game_id, 1.0)
        finally:
            await blocker.close()
        assert await store.actions(game_id) == []
        assert await store.append_action(game_id, 0, act(1), snap(1), deadline=None) == 1


async def test_a_lost_connection_is_storage_offline_and_the_pool_recovers(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url, min_size=1, max_size=1) as store:
        game_id = await new_game(store, start=True)
        admin = await asyncpg.connect(pg_url)
        try:
            async with admin.transaction():  # the move waits for this lock ...
                await admin.execute("SELECT 1 FROM games WHERE game_id = $1 FOR UPDATE",
                                    game_id)
                move = asyncio.create_task(
                    store.append_action(game_id, 0, act(1), snap(1), deadline=None))
                for _ in range(500):
                    waiting = await admin.fetchval(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                        " AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()")
                    if waiting is not None:
                        break
                    await asyncio.sleep(0.01)
                assert waiting is not None
                # ... when its connection dies (a server restart, a network cut).
                assert await admin.fetchval("SELECT pg_terminate_backend($1)", waiting)
                with pytest.raises(StorageOffline, match="cannot be reached"):
                    await move
        finally:
            await admin.close()
        assert await store.actions(game_id) == []
        # The pool opens a new connection: the same storage works again.
        assert await store.append_action(game_id, 0, act(1), snap(1), deadline=None) == 1


@pytest.mark.parametrize(("error", "expected"), [
    (asyncpg.exceptions.LockNotAvailableError("lock timeout"), StorageBusy),
    (asyncpg.exceptions.SerializationError("could not serialize"), StorageBusy),
    (asyncpg.exceptions.DeadlockDetectedError("deadlock detected"), StorageBusy),
    (asyncpg.exceptions.InvalidCachedStatementError("cached plan"), StorageBusy),
    (asyncpg.exceptions.TooManyConnectionsError("too many clients"), StorageOffline),
    (asyncpg.exceptions.CannotConnectNowError("starting up"), StorageOffline),
    (asyncpg.exceptions.AdminShutdownError("terminating"), StorageOffline),
    (asyncpg.exceptions.ConnectionDoesNotExistError("closed mid-operation"), StorageOffline),
    (asyncpg.InterfaceError("connection is closed"), StorageOffline),
    (ConnectionRefusedError(111, "Connect call failed"), StorageOffline),
    (TimeoutError(), StorageOffline),
    (asyncpg.exceptions.ReadOnlySQLTransactionError("read-only"), StorageReadOnly),
    (asyncpg.exceptions.DiskFullError("no space left"), StorageDiskError),
    (asyncpg.exceptions.PostgresIOError("could not read block"), StorageDiskError),
    (asyncpg.exceptions.InvalidPasswordError("password authentication failed"),
     StorageFailure),
    (asyncpg.exceptions.UndefinedTableError("no such table"), StorageFailure),
    (asyncpg.InterfaceError("another operation is in progress"), StorageFailure),
])
def test_every_driver_error_is_a_storage_error(
    error: BaseException, expected: type[StorageFailure]
) -> None:
    mapped = _failure(error, "postgresql://u:***@h/db")
    assert type(mapped) is expected
    assert str(mapped).startswith("postgresql://u:***@h/db: ")
    assert mapped.code_name == str(getattr(error, "sqlstate", "") or "")
