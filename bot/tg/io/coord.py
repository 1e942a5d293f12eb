"""Several bot processes on one database: who runs a game's timers and computer moves, the
group budget they share, and messages sent once (``docs/deploy.md``, *How processes share
the tables*).

``Coordinator`` is the single process (the default): it owns every game and makes no
statement.  ``SharedCoordinator`` (several processes, e.g. with ``DATABASE_URL``):

* **leases** — a game's timers and computer moves run in the process holding its lease
  (``leases`` table).  The process that stores a move takes the lease (``took``), so what
  follows runs where the fresh state is; the owner renews all its leases in one statement
  every ``renew_every`` seconds (they expire after ``ttl``) and reloads a game whose stored
  version is newer than its copy (a move stored by a process that died before it took the
  lease); every process claims the
  expired leases of playing games every ``claim_every`` seconds and restores those games
  (the takeover when a process dies).
* **group budget** — ``SharedSends.group_send``: one transaction counts the group's
  requests of the last minute made by every process and records this one if there is room;
  ``group_done`` moves it to the time its answer came (Telegram counts it on arrival,
  between the two), so a slow request cannot make the window open early.
* **who edits** — ``SharedSends.may_show``: a game's messages are edited only by its lease
  holder, asked just before each edit (a copy in another process may be older).
* **what a message shows** — ``SharedSends.begin_edit`` / ``end_edit``: the digest of the
  content each shared message shows is stored with it (``sent_messages.shown``) right after
  the request that put it there, and an edit in flight is recorded until it is over; the
  process about to edit asks first, in the transaction that checks the lease: content
  already shown is not edited again ("message is not modified" would be a wasted request),
  and another process's edit in flight is waited for, so two edits never cross.
* **send once** — ``SharedSends.claim``: a new message is claimed under its slot key before
  it is sent; only the claimer sends, and the message id is stored at once, so another
  process edits that message instead of sending its own.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from typing import Protocol

from storage import StorageError

log = logging.getLogger(__name__)

LEASE_TTL = 6.0  # seconds a lease lasts without renewal
RENEW_EVERY = 2.0  # seconds between two renewals of every lease of a process
CLAIM_EVERY = 1.0  # seconds between two looks for expired leases (takeover)
EDIT_BUSY = 3.0  # seconds another process's edit in flight is waited for (then: lost with it)
BUDGET_MARGIN = 1.0  # seconds added to a group's window across processes (request latency)


class CoordStore(Protocol):
    """The storage methods coordination uses (both backends have them)."""

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool: ...

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]: ...

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]: ...

    async def release_leases(self, owner: str) -> int: ...

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]: ...

    async def group_sent(self, chat_id: int, counted: float) -> None: ...

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]: ...

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None: ...

    async def lease_owner(self, game_id: int) -> str | None: ...

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str: ...

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None: ...


def owner_name(instance: str = "") -> str:
    """A name for this process that no other process (nor a later run) has."""
    base = instance or socket.gethostname()
    return f"{base}:{os.getpid()}:{secrets.token_hex(3)}"


class Coordinator:
    """One process: it owns every game; nothing is stored."""

    shared = False
    owner = "local"

    def owns(self, game_id: int) -> bool:
        return True

    async def took(self, game_id: int) -> None:
        return None

    async def claim(self, game_id: int) -> bool:
        return True

    def lost(self, game_id: int) -> None:
        """Another process stored a move of the game (and so took its lease)."""
        return None

    async def renew(self) -> tuple[set[int], dict[int, int]]:
        """Renew this process's leases: the games whose lease it lost, and those it holds
        with their stored versions."""
        return set(), {}

    async def claim_expired(self) -> list[int]:
        return []

    async def release(self) -> None:
        return None


class SharedCoordinator(Coordinator):
    """Several processes: leases in the database (see the module's text)."""

    shared = True

    def __init__(self, store: CoordStore, owner: str, *, ttl: float = LEASE_TTL,
                 renew_every: float = RENEW_EVERY, claim_every: float = CLAIM_EVERY) -> None:
        self.store = store
        self.owner = owner
        self.ttl = ttl
        self.renew_every = renew_every
        self.claim_every = claim_every
        self.mine: set[int] = set()
        self.takeovers = 0  # games taken over from a process whose lease expired (metrics)

    def owns(self, game_id: int) -> bool:
        return game_id in self.mine

    async def took(self, game_id: int) -> None:
        """This process stored a move of the game: the lease is its own (taken in any case).
        If the database fails here the move is stored all the same; the game's lease is
        then taken by whoever claims it (``claim_expired``)."""
        try:
            await self.store.take_lease(game_id, self.owner, self.ttl, force=True)
        except StorageError as e:
            log.warning("game %s: the lease was not taken: %s", game_id, e)
            return
        self.mine.add(game_id)

    async def claim(self, game_id: int) -> bool:
        """Take the game's lease if nobody else holds it."""
        if await self.store.take_lease(game_id, self.owner, self.ttl):
            self.mine.add(game_id)
            return True
        self.mine.discard(game_id)
        return False

    def lost(self, game_id: int) -> None:
        """Another process stored a move of the game, so it took the lease (``took``): what
        this process shows of the game now may be older than what that process shows, and
        is not shown (a lease still held in the database comes back at the next renewal)."""
        self.mine.discard(game_id)

    async def renew(self) -> tuple[set[int], dict[int, int]]:
        before = set(self.mine)
        held = await self.store.renew_leases(self.owner, self.ttl)
        lost = before - held.keys()
        self.mine -= lost
        self.mine |= held.keys()
        return lost, held

    async def claim_expired(self) -> list[int]:
        ids = await self.store.claim_expired_leases(self.owner, self.ttl)
        self.mine.update(ids)
        self.takeovers += len(ids)
        return ids

    async def release(self) -> None:
        self.mine.clear()
        await self.store.release_leases(self.owner)


class SharedSends:
    """The outbox's part of coordination: the group budget and send-once claims."""

    def __init__(self, store: CoordStore, owner: str) -> None:
        self.store = store
        self.owner = owner
        self.counted: dict[int, float] = {}  # a group's request counted and not yet over

    async def group_send(self, chat_id: int, limit: int, window: float) -> float:
        """0.0: the request is counted (call ``group_done`` when it is over); or the
        seconds to wait, nothing counted.  A chat's requests go one at a time."""
        wait, counted = await self.store.group_send(chat_id, limit, window + BUDGET_MARGIN)
        if counted is not None:
            self.counted[chat_id] = counted
        return wait

    async def group_done(self, chat_id: int) -> None:
        """The request counted last for ``chat_id`` is over (answered, refused or given
        up): it counts from now, since Telegram counted it on arrival, which may have been
        later than ``group_send`` (a slow database, a busy process): counted from before,
        the shared window would open early and the group get a 429."""
        counted = self.counted.pop(chat_id, None)
        if counted is not None:
            await self.store.group_sent(chat_id, counted)

    async def claim(self, chat_id: int, slot: str) -> tuple[bool, int | None]:
        return await self.store.claim_message(chat_id, slot, self.owner)

    async def sent(self, chat_id: int, slot: str, message_id: int | None) -> None:
        await self.store.message_sent(chat_id, slot, message_id)

    async def may_show(self, game_id: int) -> bool:
        """May this process edit the game's messages: it holds the game's lease, or nobody
        does (ended, or expired and not claimed yet)?"""
        holder = await self.store.lease_owner(game_id)
        return holder is None or holder == self.owner

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str,
                         digest: str) -> str:
        """About to edit a shared message (a lobby, a table, a hand) to ``digest``: "lost"
        (the game's lease is another's), "busy" (another process's edit of it is in
        flight: ask again soon), "shown" (it shows that already) or "go"."""
        return await self.store.begin_edit(game_id, chat_id, slot, self.owner, digest,
                                           busy_for=EDIT_BUSY)

    async def end_edit(self, chat_id: int, slot: str, shown: str | None) -> None:
        """This process's send or edit of ``slot`` is over: the message shows ``shown``
        (None: the request failed)."""
        await self.store.end_edit(chat_id, slot, self.owner, shown)
