"""What the connection object of either backend is (``storage.sqlite.connection.Database``,
``storage.postgres.connection.Pool``): the storage's clock, and closed once."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from storage.errors import StorageClosed, StorageFailure

__all__ = ["Handle", "undone_on_failure"]

_E = TypeVar("_E", bound=BaseException)


@contextlib.asynccontextmanager
async def undone_on_failure(
    release: Callable[[], Awaitable[object]],
    driver_errors: type[_E] | tuple[type[_E], ...],
    failure: Callable[[_E], StorageFailure],
) -> AsyncIterator[None]:
    """A connection being set up (``open``): if the setup fails, the connection is released
    and a driver's error leaves as the ``StorageFailure`` that ``failure`` makes of it."""
    try:
        yield
    except BaseException as e:
        await release()
        if isinstance(e, driver_errors):
            raise failure(e) from e
        raise


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
