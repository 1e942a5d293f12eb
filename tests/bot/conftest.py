from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakeapi import FakeTelegramServer


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as s:
        yield s


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "thousand.sqlite3"
