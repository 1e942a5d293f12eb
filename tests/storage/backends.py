"""Backends the storage contract runs against.

Add a backend to ``BACKEND_NAMES`` (and to ``Backend.open``): the contract tests in
``test_contract.py`` and ``test_stats_contract.py`` then run against it unchanged.
``postgres`` runs on a fresh database of the server ``THOUSAND_TEST_PG_URL`` names
(``tests/pg.py``), and is skipped without one (a failure when ``THOUSAND_REQUIRE_PG=1``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from storage import MEMORY, Storage
from storage import Backend as Store
from storage.base import Opening
from storage.postgres import PostgresStorage


class FakeClock:
    """A clock that ticks one second per reading, so times are distinct and known."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@dataclass
class Backend:
    name: str
    persistent: bool
    """True: every ``open()`` reaches the same database (a file, a server)."""
    path: str
    """The SQLite file (or ``MEMORY``); for PostgreSQL, the database URL."""
    clock: FakeClock

    @property
    def postgres(self) -> bool:
        return self.name == "postgres"

    def open(self, *, clock: Callable[[], float] | None = None) -> Opening[Store]:
        use = self.clock if clock is None else clock

        async def opener() -> Store:
            if self.postgres:
                return await PostgresStorage.open(self.path, clock=use)
            return await Storage.open(self.path, clock=use)

        return Opening(opener)

    async def schema_version(self, store: Store) -> int:
        if isinstance(store, PostgresStorage):
            return await store.schema_version()
        assert isinstance(store, Storage)
        return (await store.pragmas()).user_version


SQLITE_BACKENDS: dict[str, Callable[[Path], tuple[bool, str]]] = {
    "sqlite-file": lambda tmp: (True, str(tmp / "thousand.sqlite3")),
    "sqlite-memory": lambda tmp: (False, MEMORY),
}

BACKEND_NAMES: list[str] = [*sorted(SQLITE_BACKENDS), "postgres"]
