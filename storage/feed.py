"""The in-memory half of the change feed (``storage.base.FeedStore``): the listeners of one
storage and how a change reaches them.

SQLite's feed is a :class:`Fanout` its writes publish to after their COMMIT
(``storage.sqlite.connection.Database``); PostgreSQL's (``storage.postgres.feed``) is one
too, fed by the notifications its ``LISTEN`` connection receives.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from storage.base import Change, FeedListener

__all__ = ["Fanout"]

LOG = logging.getLogger(__name__)


class Fanout:
    """The listeners of one storage's feed, told each change in the order it is published."""

    def __init__(self) -> None:
        self._listeners: dict[object, FeedListener] = {}

    def subscribe(self, listener: FeedListener) -> Callable[[], None]:
        """Tell ``listener`` every change published from now on; returns the call that
        stops it (calling it again does nothing).  The same listener subscribed twice is
        told twice."""
        key = object()
        self._listeners[key] = listener

        def unsubscribe() -> None:
            self._listeners.pop(key, None)

        return unsubscribe

    @property
    def listeners(self) -> int:
        """How many subscriptions there are."""
        return len(self._listeners)

    def publish(self, change: Change | None) -> None:
        """Tell every listener ``change`` (``None``: read everything again), now, in the
        order they subscribed.  A listener that raises is logged and the others are still
        told; one that unsubscribes (itself or another) meanwhile takes effect next time."""
        for listener in list(self._listeners.values()):
            try:
                listener(change)
            except Exception:
                LOG.exception("a listener of the change feed failed on %r", change)
