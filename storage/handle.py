"""What the connection object of either backend is (``storage.sqlite.connection.Database``,
``storage.postgres.connection.Pool``): the storage's clock, and closed once."""

from __future__ import annotations

from collections.abc import Callable

from storage.errors import StorageClosed

__all__ = ["Handle"]


class Handle:
    """The clock of the storage (epoch seconds) and whether it is closed."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.closed = False

    def check_open(self) -> None:
        if self.closed:
            raise StorageClosed("storage is closed")

    def now(self) -> float:
        return float(self.clock())
