"""Backends the storage contract runs against.

Add a backend to ``BACKENDS``: the contract tests in ``test_contract.py`` then run
against it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from storage import MEMORY, Storage


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
    """True: every ``open()`` reaches the same database (a file)."""
    path: str
    clock: FakeClock

    async def open(self) -> Storage:
        return await Storage.open(self.path, clock=self.clock)


BACKENDS: dict[str, Callable[[Path], tuple[bool, str]]] = {
    "sqlite-file": lambda tmp: (True, str(tmp / "thousand.sqlite3")),
    "sqlite-memory": lambda tmp: (False, MEMORY),
}
