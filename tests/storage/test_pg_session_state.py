"""The pool sends nothing when a connection goes back (``session_kept`` in
``storage/postgres/connection.py``: asyncpg's default reset is a round trip after every
statement).  That is right only while the storage leaves no session state on a pooled
connection, checked two ways: its SQL holds no statement that makes any (each pattern shown
to catch its statement), and after every kind of write — moves, the group's budget under
its advisory lock, a rated result — each pooled connection is as a new one."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from storage.postgres import PostgresStorage
from tests.storage.test_stats_contract import finished, plus_one, seats

STORAGE = Path(__file__).resolve().parents[2] / "storage"

# what a statement could leave on its session (in a string of SQL, adjacent literals joined
# as Python joins them; a statement is what lies between semicolons), with an example each
# pattern must catch
STATE: dict[str, tuple[str, str]] = {
    "a session-level advisory lock": (r"pg_(try_)?advisory_lock(_shared)?\s*\(",
                                      "SELECT pg_advisory_lock($1)"),
    "a cursor held past its transaction": (r"\bWITH\s+HOLD\b",
                                           "DECLARE c CURSOR WITH HOLD FOR SELECT 1"),
    "a session setting": (r"^\s*(SET(?!\s+LOCAL\b)|RESET)\s", "SET lock_timeout = 0"),
    "a session setting by function": (r"set_config\s*\([^)]*,\s*false\s*\)",
                                      "SELECT set_config('a.b', '1', false)"),
    "a LISTEN": (r"^\s*LISTEN\s", "LISTEN games"),
    "a temporary table": (r"\bCREATE\s+TEMP(ORARY)?\b", "CREATE TEMP TABLE t (x int)"),
    "a prepared statement by name": (r"^\s*PREPARE\s", "PREPARE q AS SELECT 1"),
}
LISTENER = r"\.add_listener\s*\("  # asyncpg's LISTEN: only the feed's own connection has one
FEED = "storage/postgres/feed.py"


def _statements(path: Path) -> list[str]:
    """The statements of every string in the file but its docstrings (bare strings)."""
    tree = ast.parse(path.read_text())
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
               and isinstance(node.value, str) and id(node) not in bare]
    return [part for text in strings for part in text.split(";")]


def test_the_storage_s_sql_makes_no_session_state() -> None:
    for name, (pattern, example) in STATE.items():
        assert re.search(pattern, example), name
    # (an UPDATE's SET, however its literals are split, is not a session setting)
    assert not re.search(STATE["a session setting"][0],
                         "INSERT INTO t VALUES (1) ON CONFLICT (k) DO UPDATE"
                         " SET message_id = EXCLUDED.message_id")
    found = []
    listeners = []
    for path in sorted(STORAGE.rglob("*.py")):
        where = path.relative_to(STORAGE.parent).as_posix()
        for statement in _statements(path):
            for name, (pattern, _) in STATE.items():
                if re.search(pattern, statement):
                    found.append((where, name, statement.strip()[:60]))
        if re.search(LISTENER, path.read_text()):
            listeners.append(where)
    assert found == []
    assert listeners == [FEED]


async def _advisory_locks(conn: Any) -> int:
    return int(await conn.fetchval("SELECT count(*) FROM pg_locks"
                                   " WHERE locktype = 'advisory' AND pid = pg_backend_pid()"))


async def _settings_changed(conn: Any) -> list[str] | None:
    """The settings this session changed (asyncpg itself sets jit and puts it back: a
    setting changed is one whose value is not what RESET would give)."""
    changed: list[str] | None = await conn.fetchval(
        "SELECT array_agg(name) FROM pg_settings"
        " WHERE source = 'session' AND setting IS DISTINCT FROM reset_val")
    return changed


async def test_a_pooled_connection_goes_back_as_a_new_one(pg_url: str) -> None:
    async with PostgresStorage.open(pg_url) as store:
        game_id = await finished(store)
        for _ in range(4):
            await store.group_send(-100123, 3, 60.0)
        assert await store.record_game_result(game_id, seats(), plus_one) is True
        pool = store._pool
        held = [await pool.acquire() for _ in range(pool.get_size())]
        try:
            for conn in held:
                assert not conn.is_in_transaction()
                assert await _advisory_locks(conn) == 0
                assert await conn.fetchval(
                    "SELECT count(*) FROM pg_cursors WHERE is_holdable") == 0
                assert await conn.fetchval("SELECT count(*) FROM pg_listening_channels()") == 0
                assert await _settings_changed(conn) is None
                assert await conn.fetchval("SHOW application_name") == "thousand"
            # the probes see state where there is some (and this pool would not undo it)
            probe = held[0]
            await probe.execute("SET lock_timeout = 0")
            await probe.execute("SELECT pg_advisory_lock(77)")
            assert await _settings_changed(probe) == ["lock_timeout"]
            assert await _advisory_locks(probe) == 1
            await probe.execute("RESET ALL; SELECT pg_advisory_unlock_all()")
        finally:
            for conn in held:
                await pool.release(conn)
