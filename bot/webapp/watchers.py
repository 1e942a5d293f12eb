"""Who watches a game, across processes: the number of watchers a table shows.

A page of a spectator (a member of the group who is not seated) is held by one process;
with several processes (PostgreSQL) the people watching one table can be on pages of
each.  Each process tells the others, through the storage's notes (``FeedStore.tell``:
PostgreSQL's ``NOTIFY``, nothing stored), who watches each game on its pages: at once
when that changes, and again every ``REPEAT`` seconds for every game it has watchers of.
A process hears the others' and counts the people watching a game on any of them (one
person on two processes counts once).  What a process told of a game is forgotten when it
says the game has none, or when it has not said it again for ``FORGET`` seconds (the
process was killed, or its notes were lost while a connection came back).

A note: ``w:<process>:<game>=<user>,<user>;<game>=;…`` (an empty list: nobody there any
more), at most ``NOTE_BYTES``; a process's games are spread over as many notes as they
need, and at most ``IDS_TOLD`` people are told for one game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Final, Protocol

__all__ = ["FORGET", "REPEAT", "Notes", "Watchers"]

log = logging.getLogger(__name__)

REPEAT: Final = 10.0
"""Seconds between two repeats of what this process tells (its watchers of each game)."""
FORGET: Final = 3 * REPEAT + 5.0
"""Seconds after which what another process told of a game, not said again, is gone."""
SOON: Final = 0.05
"""Seconds a change of this process's watchers waits to be told (the changes meanwhile go
in the same note)."""
STOP_WAIT: Final = 2.0
"""Seconds a stopping process waits to tell that its watchers are gone."""
IDS_TOLD: Final = 500
"""The most people told as watching one game (a bigger crowd counts as this many from
that process: 500 ids fill most of a note)."""
_PREFIX: Final = "w"


class Notes(Protocol):
    """What the storage's feed offers for notes (``storage.base.FeedStore``: the Mini App
    does not import the storage, bot/tg/io/app.py hands it over)."""

    note_bytes: int
    """The longest note (``storage.base.NOTE_BYTES``)."""

    def hear(self, listener: Callable[[str], object]) -> Callable[[], None]: ...

    async def tell(self, note: str) -> None: ...


def _format(me: str, games: Iterable[tuple[int, frozenset[int]]],
            note_bytes: int) -> list[str]:
    """The notes telling ``games`` (each within ``note_bytes``; a note is ASCII)."""
    head = f"{_PREFIX}:{me}:"
    notes: list[str] = []
    parts: list[str] = []
    size = len(head)
    for game, users in games:
        part = f"{game}=" + ",".join(str(u) for u in sorted(users)[:IDS_TOLD])
        if parts and size + 1 + len(part) > note_bytes:
            notes.append(head + ";".join(parts))
            parts, size = [], len(head)
        parts.append(part)
        size += len(part) + 1
    if parts:
        notes.append(head + ";".join(parts))
    return notes


def _parse(note: str) -> tuple[str, dict[int, frozenset[int]]] | None:
    """The process and its games' watchers a note tells; None if it is not one."""
    kind, _, rest = note.partition(":")
    process, _, body = rest.partition(":")
    if kind != _PREFIX or not process or not body:
        return None
    games: dict[int, frozenset[int]] = {}
    try:
        for part in body.split(";"):
            game, eq, users = part.partition("=")
            if not eq:
                return None
            games[int(game)] = frozenset(int(u) for u in users.split(",") if u)
    except ValueError:
        return None
    return process, games


class Watchers:
    """The watchers of each game on this process's pages and on the others'.

    ``notes``: the storage's (``None``: one process, nothing to tell); ``changed(game)``
    is called when the number of watchers of a game changed by what another process told
    or by its forgetting.  ``stop`` stops hearing."""

    def __init__(self, notes: Notes | None, changed: Callable[[int], None], *,
                 clock: Callable[[], float] = time.monotonic,
                 repeat: float = REPEAT, forget_after: float = FORGET) -> None:
        self.me = secrets.token_hex(6)
        self.repeat, self.forget_after = repeat, forget_after
        self._notes = notes
        self._unhear = notes.hear(self.heard) if notes is not None else None
        self._changed = changed
        self._clock = clock
        self.mine: dict[int, frozenset[int]] = {}
        # game -> process -> (when it was told, the people watching there)
        self.others: dict[int, dict[str, tuple[float, frozenset[int]]]] = {}
        self._due: set[int] = set()  # games whose change is still to be told
        self._soon: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._repeat: asyncio.Task[None] | None = None
        self._sending = asyncio.Lock()  # notes go one at a time, in order (a game's newest last)

    # ---------------------------------------------------------------- counting

    def count(self, game: int) -> int:
        """The people watching ``game`` on the pages of any process."""
        users = set(self.mine.get(game, ()))
        for _, there in self.others.get(game, {}).values():
            users |= there
        return len(users)

    def set_mine(self, game: int, users: frozenset[int]) -> None:
        """The people watching ``game`` on this process's pages are ``users`` now."""
        if users == self.mine.get(game, frozenset()):
            return
        if users:
            self.mine[game] = users
        else:
            self.mine.pop(game, None)
        if self._notes is None:
            return
        self._due.add(game)
        if self._soon is None:
            self._soon = asyncio.get_running_loop().call_later(SOON, self._send_due)

    # ---------------------------------------------------------------- telling

    def start(self) -> None:
        """Repeat what this process tells every ``repeat`` seconds (``REPEAT``; several
        processes), and forget what the others did not say again."""
        if self._notes is not None and self._repeat is None:
            self._repeat = asyncio.get_running_loop().create_task(self._repeating())

    async def stop(self) -> None:
        """Stop repeating; this process's watchers are told gone (its pages are closed)."""
        repeat, self._repeat = self._repeat, None
        if repeat is not None:
            repeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await repeat
        if self._soon is not None:
            self._soon.cancel()
            self._soon = None
        gone = set(self.mine) | self._due
        self.mine.clear()
        self._due.clear()
        if self._notes is not None and gone:  # (else the others forget them in FORGET)
            try:
                await asyncio.wait_for(self._send(sorted(gone)), STOP_WAIT)
            except Exception as e:  # (the others forget them in FORGET)
                log.info("the watchers here not told gone to the other processes: %s", e)
        for task in list(self._tasks):
            task.cancel()
        if self._unhear is not None:
            self._unhear()
            self._unhear = None

    def _send_due(self) -> None:
        self._soon = None
        due = sorted(self._due)
        self._due.clear()
        task = asyncio.get_running_loop().create_task(self._send_logged(due))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_logged(self, games: list[int]) -> None:
        try:
            await self._send(games)
        except Exception as e:  # the database failed (the next repeat tells it again)
            log.info("the watchers of %d games not told to the other processes: %s",
                     len(games), e)

    async def _send(self, games: list[int]) -> None:
        """Tell who watches ``games`` here, as it is when the notes go (one send at a time:
        a later change of a game is never overtaken by an earlier one)."""
        assert self._notes is not None
        async with self._sending:  # (what is told is read once the lock is had)
            told = [(g, self.mine.get(g, frozenset())) for g in games]
            for note in _format(self.me, told, self._notes.note_bytes):
                await self._notes.tell(note)

    async def _repeating(self) -> None:
        while True:
            await asyncio.sleep(self.repeat)
            self.forget()
            if self.mine:
                await self._send_logged(sorted(self.mine))

    # ---------------------------------------------------------------- hearing

    def heard(self, note: str) -> None:
        """A note of the storage (every process's, this one's too)."""
        got = _parse(note)
        if got is None:
            return
        process, games = got
        if process == self.me:
            return
        now = self._clock()
        for game, users in games.items():
            before = self.count(game)
            there = self.others.setdefault(game, {})
            if users:
                there[process] = (now, users)
            else:
                there.pop(process, None)
                if not there:
                    del self.others[game]
            if self.count(game) != before:
                self._changed(game)

    def forget(self) -> None:
        """What another process told and did not say again for ``forget_after`` seconds
        (``FORGET``) is gone."""
        old = self._clock() - self.forget_after
        for game in list(self.others):
            there = self.others[game]
            stale = [p for p, (at, _) in there.items() if at < old]
            if not stale:
                continue
            before = self.count(game)
            for p in stale:
                del there[p]
            if not there:
                del self.others[game]
            if self.count(game) != before:
                self._changed(game)
