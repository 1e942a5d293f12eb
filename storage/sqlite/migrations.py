"""Bringing an SQLite database to the current schema (``storage/sqlite/schema.py``).

``PRAGMA user_version`` holds how many migrations the database has applied.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import aiosqlite

from storage.base import Migration
from storage.errors import SchemaTooNew, StorageFailure

__all__ = ["migrate"]

LOG = logging.getLogger(__name__)


async def migrate(db: aiosqlite.Connection, path: str, migrations: Sequence[Migration]) -> None:
    """Apply the pending migrations, each in its own transaction with its user_version."""
    while True:
        await db.execute("BEGIN IMMEDIATE")
        try:
            async with db.execute("PRAGMA user_version") as cur:
                row = await cur.fetchone()
            version = int(row[0]) if row is not None else 0
            if version > len(migrations):
                raise SchemaTooNew(
                    f"{path}: schema version {version} is newer than this program's "
                    f"{len(migrations)}"
                )
            if version == len(migrations):
                await db.execute("COMMIT")
                return
            for statement in migrations[version]:
                await db.execute(statement)
            broken = list(await db.execute_fetchall("PRAGMA foreign_key_check"))
            if broken:
                raise StorageFailure(
                    f"{path}: migration {version + 1} breaks {len(broken)} foreign key(s), "
                    f"first in table {broken[0][0]!r}"
                )
            await db.execute(f"PRAGMA user_version = {version + 1:d}")
            await db.execute("COMMIT")
            LOG.info("%s: migrated the schema to version %d", path, version + 1)
        except BaseException:
            await db.rollback()
            raise
