"""The in-memory half of the change feed (``storage.base.FeedStore``): the listeners of one
storage and how a change reaches them.

SQLite's feed is a :class:`Fanout` its writes publish to after their COMMIT
(``storage.sqlite.connection.Database``); PostgreSQL's (``storage.postgres.feed``) is one
too, fed by the notifications its ``LISTEN`` connection receives.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from storage.base import NOTE_BYTES, Change, FeedListener, NoteListener

__all__ = ["Fanout", "check_note"]

LOG = logging.getLogger(__name__)


class Fanout:
    """The listeners of one storage's feed, told each change in the order it is published."""

    note_bytes = NOTE_BYTES
    """The longest note ``tell`` takes (for whoever cannot import ``storage.base``)."""

    def __init__(self) -> None:
        self._listeners: dict[object, FeedListener] = {}
        self._hearers: dict[object, NoteListener] = {}

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

    # ------------------------------------------------------------------ notes

    def hear(self, listener: NoteListener) -> Callable[[], None]:
        """Tell ``listener`` every note from now on; returns the call that stops it."""
        key = object()
        self._hearers[key] = listener

        def stop() -> None:
            self._hearers.pop(key, None)

        return stop

    async def tell(self, note: str) -> None:
        """One process (SQLite): the note is told to this process's listeners."""
        check_note(note)
        self.heard(note)

    def heard(self, note: str) -> None:
        """Tell every note listener ``note`` (a listener that raises is logged)."""
        for listener in list(self._hearers.values()):
            try:
                listener(note)
            except Exception:
                LOG.exception("a listener of the notes failed on %r", note[:200])


def check_note(note: str) -> None:
    """ValueError unless ``note`` is a note's length (``NOTE_BYTES``)."""
    if len(note.encode()) > NOTE_BYTES:
        raise ValueError(f"a note of {len(note.encode())} bytes (at most {NOTE_BYTES})")
