"""Fixtures of the storage tests: one ``backend`` per entry of ``backends.BACKENDS``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from storage import Storage
from tests.storage.backends import BACKENDS, Backend, FakeClock


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    name: str = request.param
    persistent, path = BACKENDS[name](tmp_path)
    return Backend(name=name, persistent=persistent, path=path, clock=FakeClock())


@pytest.fixture
async def store(backend: Backend) -> AsyncIterator[Storage]:
    storage = await backend.open()
    try:
        yield storage
    finally:
        await storage.close()
