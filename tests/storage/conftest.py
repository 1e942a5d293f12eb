"""Fixtures of the storage tests: one ``backend`` per name of ``backends.BACKEND_NAMES``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Backend as Store
from tests.pg import create_database, drop_database, pg_url, server_url
from tests.storage.backends import BACKEND_NAMES, SQLITE_BACKENDS, Backend, FakeClock

__all__ = ["backend", "pg_url", "store"]


@pytest.fixture(params=BACKEND_NAMES)
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    name: str = request.param
    if name == "postgres":
        server = server_url()  # skips (or fails when required) without a server
        url = await create_database(server)
        try:
            yield Backend(name=name, persistent=True, path=url, clock=FakeClock())
        finally:
            await drop_database(server, url)
        return
    persistent, path = SQLITE_BACKENDS[name](tmp_path)
    yield Backend(name=name, persistent=persistent, path=path, clock=FakeClock())


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Store]:
    storage = await backend.open()
    try:
        yield storage
    finally:
        await storage.close()
