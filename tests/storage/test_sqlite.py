"""SQLite-specific guarantees: schema constraints, migrations, cancellation, real crashes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from storage import MEMORY, MIGRATIONS, SCHEMA_VERSION, SchemaTooNew, Storage

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
    with pytest.raises(sqlite3.OperationalError):
        await Storage.open(path, migrations=broken)
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
