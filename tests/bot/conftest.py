from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.fakeapi import FakeTelegramServer
from tests.fakeapi.transcript import transcript


@pytest.fixture
async def server(request: pytest.FixtureRequest) -> AsyncIterator[FakeTelegramServer]:
    """The fake Bot API; with THOUSAND_TRANSCRIPTS=DIR the test's conversation is written to
    DIR/<test>.txt as people saw it (tests/fakeapi/transcript.py)."""
    async with FakeTelegramServer() as s:
        try:
            yield s
        finally:
            folder = os.environ.get("THOUSAND_TRANSCRIPTS")
            if folder:
                name = re.sub(r"[^\w.-]+", "_", request.node.nodeid)[-150:]
                Path(folder).mkdir(parents=True, exist_ok=True)
                (Path(folder) / f"{name}.txt").write_text(transcript(s), encoding="utf-8")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "thousand.sqlite3"
