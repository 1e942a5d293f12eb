"""A fresh PostgreSQL database per test, on the server named by ``THOUSAND_TEST_PG_URL``.

Use the ``pg_url`` fixture (import it into the test module or a conftest): it creates an
empty database with a unique name, yields its URL and drops it afterwards.  Without
``THOUSAND_TEST_PG_URL`` the test is skipped with the reason ``SKIP_REASON``; with
``THOUSAND_REQUIRE_PG=1`` (``.ci/run`` sets it) a missing or unreachable server fails the
test instead, so CI never passes with the PostgreSQL cases silently skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

URL_ENV = "THOUSAND_TEST_PG_URL"
REQUIRE_ENV = "THOUSAND_REQUIRE_PG"
SKIP_REASON = "no PostgreSQL server: set THOUSAND_TEST_PG_URL; .ci/run starts one"


def required() -> bool:
    return os.environ.get(REQUIRE_ENV, "").strip() == "1"


def unavailable(reason: str) -> None:
    """Skip the test, or fail it when PostgreSQL is required."""
    if required():
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def server_url() -> str:
    """The test server's URL (a maintenance database such as ``postgres``)."""
    url = os.environ.get(URL_ENV, "").strip()
    if not url:
        unavailable(SKIP_REASON)
    return url


def with_database(url: str, name: str) -> str:
    """``url`` pointed at the database ``name`` (query options such as a socket kept)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


async def admin_connect(url: str) -> asyncpg.Connection:
    try:
        return await asyncpg.connect(url, timeout=10)
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
        unavailable(f"the PostgreSQL server at {URL_ENV} cannot be reached: {e!r}")
        raise  # not reached: unavailable() skips or fails


async def create_database(url: str) -> str:
    """Create an empty database on the server of ``url``; returns its URL."""
    name = f"thousand_test_{uuid.uuid4().hex[:16]}"
    conn = await admin_connect(url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
    finally:
        await conn.close()
    return with_database(url, name)


async def drop_database(url: str, db_url: str) -> None:
    name = urlsplit(db_url).path.lstrip("/")
    conn = await admin_connect(url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """The URL of a new, empty database (dropped after the test)."""
    server = server_url()
    db_url = await create_database(server)
    try:
        yield db_url
    finally:
        await drop_database(server, db_url)
