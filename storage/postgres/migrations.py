"""Bringing a PostgreSQL database to the current schema (``storage/postgres/schema.py``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from storage.base import Migration
from storage.errors import SchemaTooNew
from storage.postgres.schema import CREATE_SCHEMA_TABLE, SCHEMA_LOCK, SCHEMA_TABLE

__all__ = ["migrate"]

LOG = logging.getLogger(__name__)


async def migrate(
    pool: Any, where: str, migrations: Sequence[Migration], clock: Callable[[], float]
) -> None:
    """Apply the pending migrations, each in its own transaction under the advisory lock
    ``SCHEMA_LOCK``: of two processes starting together, one migrates and the other waits,
    then finds the work done."""
    async with pool.acquire() as conn:
        while True:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
                await conn.execute(CREATE_SCHEMA_TABLE)
                version = int(
                    await conn.fetchval(f"SELECT COALESCE(max(version), 0) FROM {SCHEMA_TABLE}")
                )
                if version > len(migrations):
                    raise SchemaTooNew(
                        f"{where}: schema version {version} is newer than this program's "
                        f"{len(migrations)}"
                    )
                if version == len(migrations):
                    return
                for statement in migrations[version]:
                    await conn.execute(statement)
                await conn.execute(
                    f"INSERT INTO {SCHEMA_TABLE} (version, applied) VALUES ($1, $2)",
                    version + 1, float(clock()),
                )
            LOG.info("%s: migrated the schema to version %d", where, version + 1)
