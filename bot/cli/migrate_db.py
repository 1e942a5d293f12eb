"""``python -m bot migrate-db --from SQLITE_PATH --to postgresql://...``: move a bot's data
from its SQLite file to an empty PostgreSQL database.

Steps: the SQLite file is opened as the bot opens it (so it is migrated to the current
schema first; stop the bot before), the PostgreSQL database is created or migrated to the
same schema version and must hold no data (else nothing is written and the exit status is
2); then, in ONE PostgreSQL transaction, every table is copied row for row (ids as they
are, flags as booleans) with ``COPY``, the row counts are checked against the source, and
each identity column (``games.game_id``) is moved past the highest id SQLite ever gave
(``sqlite_sequence``), so new games never reuse an id.  Prints the rows copied per table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from typing import Any

import asyncpg

from storage import SCHEMA_VERSION, Storage, StorageError
from storage.postgres import PostgresStorage, redact
from storage.postgres.schema import SCHEMA_LOCK, SCHEMA_TABLE, TABLES

_CONVERT: dict[str, Callable[[Any], Any]] = {
    "boolean": bool,
    "double precision": float,
    "bigint": int,
    "integer": int,
    "smallint": int,
    "text": str,
}


class MigrateError(Exception):
    """Refused or failed; the message says why.  Nothing was written to PostgreSQL."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bot migrate-db",
        description="Copy the bot's SQLite database into an empty PostgreSQL database.",
    )
    p.add_argument("--from", dest="source", required=True, metavar="SQLITE_PATH",
                   help="the SQLite file (DATABASE_PATH); stop the bot first")
    p.add_argument("--to", dest="target", required=True, metavar="POSTGRESQL_URL",
                   help="postgresql://user:password@host:port/db (the future DATABASE_URL)")
    return p


def migrate_db_main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        counts = asyncio.run(migrate(args.source, args.target, out=print))
    except (MigrateError, StorageError) as e:
        print(f"migrate-db: {e}", file=sys.stderr)
        return 2
    total = sum(counts.values())
    print(f"migrate-db: done, {total} rows in {len(counts)} tables")
    return 0


def _sqlite_tables(db: sqlite3.Connection) -> list[str]:
    rows = db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    names = {str(r[0]) for r in rows}
    return [t for t in TABLES if t in names] + sorted(names - set(TABLES))


def _sqlite_columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in db.execute(f'PRAGMA table_info("{table}")').fetchall()]


def _high_water(db: sqlite3.Connection, table: str) -> int:
    """The highest id SQLite's AUTOINCREMENT gave in ``table`` (0 if none)."""
    try:
        row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
    except sqlite3.OperationalError:  # no AUTOINCREMENT table at all
        return 0
    return int(row[0]) if row is not None else 0


async def migrate(
    source: str, target: str, *, out: Callable[[str], object] = print
) -> dict[str, int]:
    """Copy ``source`` (SQLite) into ``target`` (PostgreSQL); returns rows per table."""
    if not os.path.isfile(source):
        raise MigrateError(f"{source}: no such SQLite file")
    where = redact(target)
    # Both at the current schema, created/migrated the way the bot does it.
    async with Storage.open(source) as lite:
        version = (await lite.pragmas()).user_version
    async with PostgresStorage.open(target) as pg:
        pg_version = await pg.schema_version()
    if version != pg_version or version != SCHEMA_VERSION:
        raise MigrateError(
            f"schema versions differ: {source} is at {version}, {where} at {pg_version}")
    started = time.perf_counter()
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        try:
            conn = await asyncpg.connect(target)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            raise MigrateError(f"{where}: cannot connect: {e}") from e
        try:
            async with conn.transaction():
                counts = await _copy(src, conn, source, where, out)
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as e:
            raise MigrateError(f"{where}: the copy failed, nothing was written: {e}") from e
        finally:
            await conn.close()
    finally:
        src.close()
    out(f"copied in {time.perf_counter() - started:.2f} s")
    return counts


async def _copy(
    src: sqlite3.Connection, conn: Any, source: str, where: str, out: Callable[[str], object]
) -> dict[str, int]:
    # One migrate-db (or migration) at a time.
    await conn.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
    pg_types: dict[str, dict[str, str]] = {}
    for r in await conn.fetch(
        "SELECT table_name, column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = current_schema()"
    ):
        pg_types.setdefault(str(r["table_name"]), {})[str(r["column_name"])] = str(r["data_type"])
    tables = _sqlite_tables(src)
    missing = [t for t in tables if t not in pg_types]
    if missing:
        raise MigrateError(f"{where} has no table {', '.join(missing)}")
    busy = []
    for table in sorted(set(pg_types) - {SCHEMA_TABLE}):
        n = int(await conn.fetchval(f'SELECT count(*) FROM "{table}"'))
        if n:
            busy.append(f"{table} ({n} rows)")
    if busy:
        raise MigrateError(
            f"{where} is not empty: {', '.join(busy)}; migrate-db copies into an empty "
            "database only (nothing was written)")
    out(f"migrate-db: {source} -> {where} (schema version {SCHEMA_VERSION})")
    counts: dict[str, int] = {}
    for table in tables:
        columns = _sqlite_columns(src, table)
        types = pg_types[table]
        unknown = [c for c in columns if c not in types]
        if unknown:
            raise MigrateError(f"{where}: table {table} has no column {', '.join(unknown)}")
        convert = [_CONVERT.get(types[c], _same) for c in columns]
        order = ", ".join(f'"{c}"' for c in columns)
        rows = src.execute(f'SELECT {order} FROM "{table}" ORDER BY rowid'
                           if _has_rowid(src, table) else f'SELECT {order} FROM "{table}"')
        records = [
            tuple(None if v is None else f(v) for f, v in zip(convert, row, strict=True))
            for row in rows
        ]
        if records:
            await conn.copy_records_to_table(table, records=records, columns=columns)
        copied = int(await conn.fetchval(f'SELECT count(*) FROM "{table}"'))
        if copied != len(records):
            raise MigrateError(f"{table}: {len(records)} rows read, {copied} in {where}")
        counts[table] = copied
        out(f"  {table:<14} {copied:>8} rows")
    for r in await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND (is_identity = 'YES'"
        "   OR column_default LIKE 'nextval(%')"
    ):
        table, column = str(r["table_name"]), str(r["column_name"])
        if table not in counts:
            continue
        top = int(await conn.fetchval(f'SELECT COALESCE(max("{column}"), 0) FROM "{table}"'))
        top = max(top, _high_water(src, table))
        sequence = await conn.fetchval("SELECT pg_get_serial_sequence($1, $2)", table, column)
        if top > 0:
            await conn.execute("SELECT setval($1, $2, true)", sequence, top)
            out(f"  {table}.{column}: new ids start after {top}")
    return counts


def _same(value: Any) -> Any:
    return value


def _has_rowid(src: sqlite3.Connection, table: str) -> bool:
    try:
        src.execute(f'SELECT rowid FROM "{table}" LIMIT 0')
    except sqlite3.OperationalError:  # WITHOUT ROWID
        return False
    return True
