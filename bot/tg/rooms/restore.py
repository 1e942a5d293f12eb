"""The restore room: games rebuilt after a start (or marked broken), the shutdown, the
sweep that expires idle lobbies and games and prunes the caches, and the leases of games
when several processes share the database.

Restart without waiting: ``start`` reads only the list of games in progress (one query)
and registers them as *pending*; the bot answers at once.  A pending game is rebuilt
(replayed from its record) when it is first touched — a press on it, any update in its
chat (``touch_game`` / ``touch_chat``, called before the handlers), ``orphan`` — under its
chat's lock, so two presses never rebuild it twice; a background task rebuilds the rest one
by one (yielding to the updates between games) and re-arms their timers and computer moves.

Several processes (``coord.SharedCoordinator``): before an update is handled its game is
checked against storage (one read) and rebuilt if another process changed it; a game's
timers and computer moves run only where its lease is held; every process renews its
leases and takes over the expired ones (``_coordinate``).

Bounded memory (``evict_idle``): a session untouched for ``idle_evict_after`` seconds (a
lobby, a table waiting for a person) leaves memory — its session, its outbox slots, its
lock — and becomes pending again, keeping only a few numbers (``Kept``); it is rebuilt
like a game of the start-up on its next touch.  Never evicted: a session whose lock is
held, with a background task running (a computer's move, a message-id save, a lease
being asked for: any task of ``Tasks.spawn`` but the turn timer), a press being thought
about (a hint), a request of the outbox waiting or in flight for it, unsaved message ids,
a merge of edits pending, or a reminder out.  A turn timer does not keep a game in
memory: its deadline is stored with the game (``games.deadline``), so the evicted game
keeps only when the timer is next due (the reminder at half time, else the deadline) and
one loop (``_evict_forever``) rebuilds it ``WAKE_LEAD`` seconds before — the rebuild arms
the timer from the stored deadline, as after a restart.  (Keeping such games in memory
until their deadline would keep every group table in memory, since a person to act always
has a timer.)  Several processes: an evicted game's lease stays this process's (renewed
with the others in one statement, released at shutdown): giving it up would have another
process take the game over at once (``claim_expired`` takes every playing game nobody
holds) and rebuild it there, moving idle games around instead of out of memory.  A lease
lost meanwhile (another process stored a move) drops the evicted copy."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import heapq
import json
import logging

from bot.engine.rules import (
    rules_from_dict,
)
from bot.engine.state import Phase
from bot.i18n import norm_lang, t
from bot.tg.model import (
    SeatInfo,
    deal_number,
    is_inline_place,
    replay,
    seats_from_json,
    seats_json,
)
from bot.tg.rooms.base import Kept, Kit
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.ratings import RatingsRoom
from bot.tg.rooms.session import (
    WAKE_LEAD,
    Backoff,
    ChatKind,
    Place,
    Session,
    hand_key,
    lobby_key,
    read_table_json,
    reminder_key,
    table_key,
)
from bot.tg.rooms.table import TableRoom
from storage import (
    Game,
    StatusConflict,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)


class RestoreRoom:
    """Start-up, shutdown and expiry.  Owns its three background loops (the restore, the
    sweeper, the leases) and the ``restored`` event; the pending games are the registry's."""

    def __init__(self, kit: Kit, owner: TableOwner, table: TableRoom, lobby: LobbyRoom,
                 ratings: RatingsRoom) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.coord = kit.coord
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.tasks = kit.tasks
        self.owner = owner
        self.table = table
        self.lobby = lobby
        self.ratings = ratings
        self.restored = asyncio.Event()  # set once every game of the start-up is rebuilt
        self._restorer: asyncio.Task[None] | None = None
        self._coordinator: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._evictor: asyncio.Task[None] | None = None
        self._wakes: list[tuple[float, int]] = []  # (wake, game id) of evicted games, a heap
        self.evictions = 0  # sessions evicted since the start (metrics, tests)

    @property
    def background(self) -> tuple[asyncio.Task[None] | None, ...]:
        """The room's own loops: the restore, the sweeper, the leases, the evictor."""
        return self._restorer, self._sweeper, self._coordinator, self._evictor

    async def rebuild_pending(self, game: Game) -> None:
        """A pending game rebuilt now (the signal ``Registry.rebuild``, wired in
        ``service.py``)."""
        await self._restore_pending(game)

    async def start(self) -> int:
        """Register every game in progress (one query) and start rebuilding them in the
        background (``restored`` is set when done); a game touched meanwhile is rebuilt at
        once.  A game that cannot be rebuilt is marked broken (its record kept) and its chat
        told.  Returns how many games are in progress."""
        games = await self.storage.games_in_progress()
        now = self.config.clock()
        for game in games:
            if self._idle_at_start(game, now):
                self._keep_idle(game, now)  # (left out of memory: rebuilt when touched)
            else:
                self.registry.add_pending(game)
        self.restored.clear()
        await self.ratings.record_unrated()  # games that ended but were not counted (a crash)
        loop = asyncio.get_running_loop()
        self._restorer = loop.create_task(self._restore_rest(), name="restore")
        if self.coord.shared and self._coordinator is None:
            self._coordinator = loop.create_task(self._coordinate(), name="leases")
        self._start_sweeper()
        if self.config.idle_evict_after > 0 and self._evictor is None:
            self._evictor = loop.create_task(self._evict_forever(), name="evictor")
        return len(games)

    async def _restore_rest(self) -> None:
        """The background part of ``restore``: every pending game rebuilt, one at a time.
        With several processes only the games whose lease nobody holds are taken
        (``_coordinate``)."""
        backoff = Backoff(0, "restoring the games in progress")
        todo = list(self.registry.pending.values())  # (not the games evicted later)
        try:
            while todo and not self.tasks.closing and not self.coord.shared:
                game = todo[-1]
                if self.registry.pending.get(game.game_id) is not game \
                        or game.game_id in self.registry.kept:
                    todo.pop()
                    continue
                try:
                    await self._restore_pending(game)
                    backoff.ok()
                    todo.pop()
                except StorageError as e:
                    backoff.failed(e)
                    await backoff.wait()
                await asyncio.sleep(0)  # the updates waiting go first
        finally:
            self.restored.set()

    async def _restore_pending(self, game: Game) -> Session | None:
        """Rebuild a pending game under its chat's lock (once: a second caller finds it
        done).  On a storage error it stays pending and the error is raised."""
        async with self.registry.chat_lock(game.chat_id):
            if self.registry.pending.get(game.game_id) is not game:
                return self.registry.get(game.game_id)
            return await self._restore_pending_locked(game)

    async def _restore_pending_locked(self, game: Game) -> Session | None:
        # it stays pending until rebuilt: a touch meanwhile waits for the lock, then finds it
        row: Game | None = game
        if self.coord.shared or game.game_id in self.registry.kept:
            # the row of the start-up may be old; an evicted game's row is a stub
            row = await self.storage.get_game(game.game_id)
        if row is None or not row.active:
            self.registry.forget_pending(game.game_id)
            self.registry.take_kept(game.game_id)
            return None
        s = await self._restore_or_break(row)  # a StorageError: still pending
        self.registry.forget_pending(game.game_id)
        return s

    async def touch_game(self, game_id: int) -> None:
        """An update about the game ``game_id`` (a press) is about to be handled: a pending
        game is rebuilt now; with several processes, the game is checked against storage."""
        game = self.registry.pending.get(game_id)
        live = self.registry.get(game_id)
        if live is not None:
            live.used = self.config.clock()  # (not idle: see ``evict_idle``)
        if game is not None:
            await self._restore_pending(game)
        elif self.coord.shared:
            s = self.registry.get(game_id)
            if s is not None:
                async with s.lock:
                    await self._sync(self.registry.get(game_id),
                                     await self.storage.get_game(game_id))
                return
            row = await self.storage.get_game(game_id)
            if row is not None and row.active:
                async with self.registry.chat_lock(row.chat_id):
                    await self._sync(self.registry.get(game_id), row)

    async def touch_chat(self, chat_id: int) -> None:
        """An update in ``chat_id`` is about to be handled: its pending games (one per
        forum topic) are rebuilt now; with several processes, its games are checked against
        storage."""
        pending = self.registry.pending_of_chat(chat_id)
        for game in pending:
            await self._restore_pending(game)
        now = self.config.clock()
        for s in self.registry.sessions_in(chat_id):
            s.used = now
        if not pending and self.coord.shared:
            async with self.registry.chat_lock(chat_id):
                rows = await self.storage.active_games(chat_id)
                ids = {row.game_id for row in rows}
                for s in self.registry.sessions_of_chat(chat_id):
                    if s.game_id not in ids:
                        await self._sync(s, await self.storage.get_game(s.game_id))
                for row in rows:
                    await self._sync(self.registry.get(row.game_id), row)

    async def _sync(self, s: Session | None, game: Game | None) -> None:
        """Several processes: make the session of ``game`` what storage holds (the caller
        holds the chat's lock): dropped if the game ended, rebuilt if it changed."""
        if game is None or not game.active:
            if s is not None:
                self.registry.unregister(s)
            return
        self.registry.forget_pending(game.game_id)
        if s is None:
            other = self.registry.session_of_chat(game.chat_id, game.thread_id)
            if other is not None and other.game_id != game.game_id:
                self.registry.unregister(other)  # the chat's earlier game ended elsewhere
            await self._restore_or_break(game)
            return
        if s.status == game.status == "lobby":
            if s.lobby_rev != game.lobby_rev:
                await self.lobby.reload_lobby(s)
        elif s.status != game.status or s.store_version != game.version:
            await self.reload(s)

    async def _coordinate(self) -> None:
        """Several processes: renew this process's leases every ``renew_every`` seconds
        (games whose lease was lost stop their timers and moves here; a held game whose
        stored version is not this copy's is rebuilt: a process stored a move and died
        before it took the lease) and take over the expired ones every ``claim_every``
        seconds (rebuilt from storage and scheduled)."""
        coord = self.coord
        loop = asyncio.get_running_loop()
        next_renew = loop.time()
        while not self.tasks.closing:
            try:
                if loop.time() >= next_renew:
                    next_renew = loop.time() + getattr(coord, "renew_every", 2.0)
                    lost, held = await coord.renew()
                    for gid in lost:
                        s = self.registry.get(gid)
                        if s is not None:
                            self._stop_tasks(s)
                        self._drop_evicted(gid)  # (another process runs it now)
                    for gid, version in held.items():
                        kept = self.registry.kept.get(gid)
                        if kept is not None and gid in self.registry.pending \
                                and kept.version == version:
                            continue  # evicted here, unchanged: rebuilt when due
                        s = self.registry.get(gid)
                        # (read without the lock: a move of this process may have been
                        # stored since, so only a newer stored version means an old copy)
                        if s is None or (s.status == "playing" and s.store_version < version):
                            await self._take_over(gid, version)  # stored elsewhere: old copy
                for gid in await coord.claim_expired():
                    await self._take_over(gid)
            except StorageError as e:
                log.warning("leases: the database failed (%s); trying again", e)
            except Exception:
                log.exception("leases: renewing or taking over failed")
            await asyncio.sleep(getattr(coord, "claim_every", 1.0))

    @staticmethod
    def _stop_tasks(s: Session) -> None:
        """Another process holds the game's lease now: its timers and moves stop here."""
        for task in (s.timer, s.driver):
            if task is not None and task is not asyncio.current_task():
                task.cancel()

    async def _take_over(self, game_id: int, version: int | None = None) -> None:
        """This process took the lease of a game nobody ran: rebuilt from storage (its
        state here may be old) with its timers and computer moves.  ``version``: the stored
        version seen (nothing to do if the copy here has reached it meanwhile)."""
        s = self.registry.get(game_id)
        game = self.registry.pending.get(game_id)
        chat_id = s.chat_id if s is not None else game.chat_id if game is not None else None
        if chat_id is None:
            row = await self.storage.get_game(game_id)
            if row is None or not row.active:
                return
            chat_id = row.chat_id
        async with self.registry.chat_lock(chat_id):
            self.registry.forget_pending(game_id)
            s = self.registry.get(game_id)
            if s is not None and version is not None and s.store_version >= version:
                return  # (a move of this process was being stored)
            if s is not None:
                await self._rebuild(s)
            else:
                row = await self.storage.get_game(game_id)
                if row is not None and row.active:
                    await self._restore_or_break(row)
        log.info("game %s taken over by %s", game_id, self.coord.owner)

    async def _restore_or_break(self, game: Game) -> Session | None:
        try:
            await self._restore_one(game)
        except StorageError:
            raise  # the database failed, not the game: it is not broken
        except Exception as e:
            log.exception("game %s could not be restored; marked broken", game.game_id)
            self.registry.unregister_id(game.game_id)
            await self.storage.mark_broken(game.game_id, f"{type(e).__name__}: {e}"[:500])
            if is_inline_place(game.chat_id):  # (no chat to tell: inline.py)
                return None
            chat = await self.storage.get_chat(game.chat_id)
            self.kit.reply(game.chat_id, t(norm_lang(chat.language if chat else None),
                                           "guard.broken", game=game.game_id),
                           thread=game.thread_id)
            return None
        return self.registry.get(game.game_id)

    async def orphan(self, place: Place) -> Session | None:
        """The active game in storage at ``place`` (a chat, or a topic of a forum) that is
        not in memory (not rebuilt yet, a failed restore, or another process): restored now
        (the caller holds the chat's lock), or marked broken so that it frees the place."""
        game = await self.storage.active_game(place.chat_id, thread_id=place.thread_id)
        if game is None or game.game_id in self.registry.sessions:
            return self.registry.get(game.game_id) if game is not None else None
        self.registry.forget_pending(game.game_id)
        return await self._restore_or_break(game)

    async def _restore_one(self, game: Game) -> None:
        chat = await self.storage.get_chat(game.chat_id)
        lang = norm_lang(chat.language if chat else None)
        kind: ChatKind = chat.kind if chat else ("private" if game.chat_id > 0 else "group")
        rules = rules_from_dict(json.loads(game.rules))
        stored = read_table_json(game.message_ids)
        ids = stored.messages
        touched = game.updated if game.status == "lobby" else (game.human_moved or game.updated)
        page = note = ""
        timeouts: dict[int, int] = {}
        kept = self.registry.take_kept(game.game_id)
        if kept is not None and kept.version == game.version \
                and kept.lobby_rev == game.lobby_rev:  # evicted, unchanged since
            touched, page, note, timeouts = kept.touched, kept.page, kept.note, \
                dict(kept.timeouts)
        seats = seats_from_json(game.seats)
        for place in seats:
            if place.kind == "human":
                row = await self.storage.get_user(place.user_id)
                if row is not None and row.language is not None:
                    self.people.remember(place.user_id, norm_lang(row.language))
        settings = stored.settings
        state, events = None, {}
        rep = None
        if game.status != "lobby":
            rep = replay(rules, game.seed, await self.storage.actions(game.game_id))
            state, events = rep.state, rep.events
            for seat, (uid, name) in rep.sits.items():  # latecomers in computers' seats
                seats[seat] = SeatInfo("human", uid, name, "")  # (keepers.py)
                row = await self.storage.get_user(uid)
                if row is not None and row.language is not None:
                    self.people.remember(uid, norm_lang(row.language))
            if rep.sits and seats_json(seats) != game.seats:  # (stored after the record)
                with contextlib.suppress(StorageError):
                    await self.storage.set_seats(game.game_id, seats_json(seats))
            for seat, why in rep.auto.items():  # (the table is built from these)
                seats[seat] = dataclasses.replace(seats[seat], auto=True, why=why)
            if rep.pace is not None:  # a keeper changed the pace during the game
                settings = dataclasses.replace(settings, pace=rep.pace)
        s = Session(game.game_id, game.chat_id, kind, lang, game.creator_id, game.status, rules,
                    game.seed, seats, lobby_rev=game.lobby_rev, lobby_code=game.lobby_code,
                    level=stored.level or self.config.computer_level, title=stored.title,
                    thread_id=game.thread_id, settings=settings, messages=ids, page=page,
                    note=note, touched=touched, timeouts=timeouts, state=state,
                    store_version=game.version if rep is not None else 0, events=events)
        if s.paused:  # its topic was closed: it waits for the reopening
            self.outbox.pause(s.chat_id, s.thread_id)
        if s.inline is not None and ids.inline_digest is not None:  # an inline table's
            self.outbox.inline_known(s.inline, ids.inline_digest)  # message (inline.py)
        if rep is None:
            if ids.lobby is not None:
                self.outbox.known(s.chat_id, lobby_key(s.game_id), ids.lobby, ids.lobby_digest,
                                  override=self.coord.shared, thread=s.thread_id)
            self.registry.register(s)
            return
        cur = deal_number(rep.state)
        if ids.table is not None:
            self.outbox.known(s.chat_id, table_key(s.game_id, ids.table.deal),
                              ids.table.message_id, ids.table.digest,
                              override=self.coord.shared, thread=s.thread_id)
            if ids.table.deal != cur:
                s.shown_deal = ids.table.deal
        for seat, h in ids.hands.items():
            if seat < len(s.seats):
                self.outbox.known(s.seats[seat].user_id, hand_key(s.game_id, seat, h.deal),
                                  h.message_id, h.digest, override=self.coord.shared)
                if h.deal != cur and not s.shown_deal:
                    s.shown_deal = h.deal
        st = rep.state
        for seat, p in list(ids.pings.items()):  # the pings out (table.py)
            if seat >= len(s.seats):
                continue
            self.outbox.known(s.seats[seat].user_id, reminder_key(s.game_id, seat),
                              p.message_id, None)
            s.reminded.add(seat)
            if p.version != st.version or st.to_act != seat or st.phase == Phase.GAME_OVER:
                self.table.forget_reminder(s, seat)  # answered before the restart
        self.registry.register(s)
        if rep.state.phase == Phase.GAME_OVER:  # the outcome was stored with the last move
            return
        deadline = None
        if not s.solo and st.to_act >= 0 and not s.seats[st.to_act].played_by_computer:
            deadline = game.deadline if game.deadline is not None else \
                self.table.deadline(s, st)
            if deadline is not None:
                s.since = self.table.began(s, deadline)
        if self.coord.owns(s.game_id):  # (several processes: the lease holder shows it)
            self.table.refresh(s)
        if st.to_act >= 0 and s.seats[st.to_act].played_by_computer:
            self.table.schedule(s)
        elif deadline is not None and not s.paused:
            self.table.arm(s, st.version, deadline)

    async def reload(self, s: Session) -> None:
        """Storage disagrees with memory: another process stored a move (and took the
        lease), so the session is rebuilt without showing it again here — that process
        shows the newer state, and an edit from this copy could land after its own."""
        self.coord.lost(s.game_id)
        await self._rebuild(s)

    async def _rebuild(self, s: Session) -> None:
        self.registry.unregister(s)
        game = await self.storage.get_game(s.game_id)
        if game is not None and game.active:
            await self._restore_one(game)

    async def close(self) -> None:
        """Stop timers, computer moves and the sweeper, let the outbox send what it has,
        and save the message ids (shutdown); no task of the service is left running."""
        await self.tasks.cancel_all(*self.background)
        await self.outbox.idle(5.0)
        for s in list(self.registry.sessions.values()):
            await self.owner.flush(s)
        if self.coord.shared:  # the other processes take these games over at once
            with contextlib.suppress(StorageError):
                await self.coord.release()

    # ---- bounded memory: idle sessions leave memory, rebuilt on their next touch

    def _evictable(self, s: Session, now: float) -> tuple[bool, float | None]:
        """May ``s`` leave memory now (see the module's text), and when must it be rebuilt
        (its turn timer's next moment; None: it has no timer)?"""
        if not self.registry.live(s) or s.status not in ("lobby", "playing"):
            return False, None
        if s.lock.locked() or s.busy or s.claiming or s.ids_dirty or s.ids_urgent \
                or s.merge_timer is not None:
            return False, None
        if any(seat not in s.messages.pings for seat in s.reminded):
            return False, None  # a private line out that only this copy knows (a rebuilt
            # session knows the pings and reminders stored in ``messages.pings``)
        if s.game_id in self.registry.pending:
            return False, None
        timer = s.timer is not None and not s.timer.done()
        if s.live - (1 if timer else 0) > 0:  # a move, a save, a lease: running
            return False, None
        wake: float | None = None
        if timer:
            st = s.state
            if s.deadline is None or st is None:
                return False, None  # a timer of unknown moment
            pings = self.table.pings_sent(s, st.to_act, st.version) if st.to_act >= 0 else 0
            wake = self.table.next_moment(s.pace, s.deadline, now, pings)
            if wake is not None and wake - now <= 2 * WAKE_LEAD:
                return False, None  # due soon: it stays
        if self.outbox.game_busy(self._chats(s), s.game_id):
            return False, None
        return True, wake

    @staticmethod
    def _chats(s: Session) -> set[int]:
        """The chats of a game's messages: its own, and its people's (their hands)."""
        return {s.chat_id} | {x.user_id for x in s.seats if x.kind == "human"}

    def evict_idle(self) -> int:
        """Evict every session untouched for ``idle_evict_after`` seconds that may leave
        memory (module text); returns how many left."""
        after = self.config.idle_evict_after
        if after <= 0 or self.tasks.closing:
            return 0
        now = self.config.clock()
        gone = 0
        for s in list(self.registry.sessions.values()):
            if now - s.used < after:
                continue
            ok, wake = self._evictable(s, now)
            if not ok:
                continue
            self._evict(s, wake)
            gone += 1
        if gone:
            self.evictions += gone
            self.registry.prune()
        return gone

    def _evict(self, s: Session, wake: float | None) -> None:
        """``s`` leaves memory (no await: nothing runs meanwhile); it is pending again."""
        self.registry.unregister(s)  # (its sleeping turn timer is cancelled)
        self.outbox.forget_game(self._chats(s), s.game_id)
        self.registry.kept[s.game_id] = Kept(
            s.store_version, s.lobby_rev, s.touched, wake,
            tuple(x.user_id for x in s.seats if x.kind == "human"),
            s.page, s.note, dict(s.timeouts))
        self.registry.add_pending(Game(
            s.game_id, s.chat_id, "lobby" if s.status == "lobby" else "playing",
            s.creator_id, 0.0, s.touched, "", s.seed, "", s.store_version, s.lobby_rev,
            None, "", wake, s.lobby_code, thread_id=s.thread_id))
        if wake is not None:
            heapq.heappush(self._wakes, (wake, s.game_id))
        log.debug("game %s left memory (idle)", s.game_id)

    def _idle_at_start(self, game: Game, now: float) -> bool:
        """A game of the start-up untouched for ``idle_evict_after`` seconds that waits
        for a person (a lobby; a group table with a turn deadline, which only a person's
        turn has; a solo game whose person is to act): it stays out of memory, as if it
        had been evicted, so that memory follows the games in play after a restart too.
        (One process only: with several, the leases decide who runs what.)"""
        after = self.config.idle_evict_after
        if after <= 0 or self.coord.shared:
            return False
        touched = game.updated if game.status == "lobby" else (game.human_moved or game.updated)
        if now - touched < after:
            return False
        if game.status == "lobby":
            return True
        if game.chat_id < 0:
            return game.deadline is not None
        try:
            to_act = int(json.loads(game.snapshot or "{}").get("to_act", -1))
            seats = seats_from_json(game.seats)
        except (ValueError, TypeError, AttributeError):
            return False
        return 0 <= to_act < len(seats) and seats[to_act].kind == "human"

    def _keep_idle(self, game: Game, now: float) -> None:
        """Register an idle game of the start-up as evicted (a stub and its ``Kept``)."""
        wake: float | None = None
        if game.status == "playing" and game.deadline is not None:
            pace = read_table_json(game.message_ids).settings.pace or "normal"
            # (pings of the turn are not counted: a wake for one already sent is harmless)
            wake = self.table.next_moment(pace, game.deadline, now, 0)
        users = tuple(x.user_id for x in seats_from_json(game.seats) if x.kind == "human")
        touched = game.updated if game.status == "lobby" else (game.human_moved or game.updated)
        self.registry.kept[game.game_id] = Kept(game.version, game.lobby_rev, touched, wake,
                                                users)
        self.registry.add_pending(dataclasses.replace(
            game, rules="", seats="", snapshot=None, message_ids="", deadline=wake))
        if wake is not None:
            heapq.heappush(self._wakes, (wake, game.game_id))

    def _drop_evicted(self, game_id: int) -> None:
        """Forget an evicted copy (the game ended, or another process runs it): a touch
        finds it in storage."""
        if self.registry.take_kept(game_id) is not None:
            self.registry.forget_pending(game_id)

    async def wake_due(self) -> int:
        """Rebuild the evicted games whose turn timer is due within ``WAKE_LEAD``; returns
        how many were rebuilt."""
        now = self.config.clock()
        woken = 0
        while self._wakes and self._wakes[0][0] - WAKE_LEAD <= now and not self.tasks.closing:
            wake, gid = heapq.heappop(self._wakes)
            kept = self.registry.kept.get(gid)
            game = self.registry.pending.get(gid)
            if kept is None or kept.wake != wake or game is None:
                continue  # rebuilt (or ended) meanwhile
            try:
                await self._restore_pending(game)
                woken += 1
            except StorageError as e:
                log.warning("game %s: not rebuilt for its timer, trying again: %s", gid, e)
                heapq.heappush(self._wakes, (wake, gid))
                break
        return woken

    async def _evict_forever(self) -> None:
        """The evictor: rebuilds the evicted games due soon (every second at most) and
        evicts idle sessions (every ``evict_every`` seconds)."""
        loop = asyncio.get_running_loop()
        next_evict = loop.time() + self.config.evict_every
        while not self.tasks.closing:
            try:
                await self.wake_due()
                if loop.time() >= next_evict:
                    next_evict = loop.time() + self.config.evict_every
                    self.evict_idle()
            except StorageError as e:
                log.warning("the evictor: the database failed (%s); trying again", e)
            except Exception:
                log.exception("the evictor failed")
            wait = min(1.0, self.config.evict_every, max(0.0, next_evict - loop.time()))
            if self._wakes:
                wait = min(wait, max(0.05, self._wakes[0][0] - WAKE_LEAD
                                     - self.config.clock()))
            await asyncio.sleep(wait)

    def _start_sweeper(self) -> None:
        if self._sweeper is None and not self.tasks.closing:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(),
                                                                   name="sweeper")

    async def _sweep_forever(self) -> None:
        while not self.tasks.closing:
            await asyncio.sleep(self.config.sweep_every)
            try:
                await self.sweep()
            except StorageError as e:
                log.warning("the sweep for idle games failed, next time again: %s", e)
            except Exception:
                log.exception("the sweep for idle games failed")

    async def sweep(self) -> int:
        """Close lobbies idle for ``lobby_ttl`` and stop games without a person's move for
        ``game_ttl`` (records kept); prune the in-memory caches.  Returns the games closed."""
        now = self.config.clock()
        closed = 0
        for gid, kept in list(self.registry.kept.items()):  # evicted and idle for long
            game = self.registry.pending.get(gid)
            if game is None:
                if gid not in self.registry.sessions:
                    self.registry.take_kept(gid)  # (forgotten elsewhere)
                continue
            ttl = self.config.lobby_ttl if game.status == "lobby" else self.config.game_ttl
            if now - kept.touched >= ttl:
                await self._restore_pending(game)  # rebuilt, then expired below
        for s in list(self.registry.sessions.values()):
            ttl = self.config.lobby_ttl if s.status == "lobby" else self.config.game_ttl
            if now - s.touched < ttl:
                continue
            async with s.lock:
                if self.registry.get(s.game_id) is not s or now - s.touched < ttl:
                    continue
                try:
                    await self._expire(s)
                except (VersionConflict, StatusConflict):
                    continue  # changed meanwhile (another process?): not idle
                closed += 1
        self._prune()
        if self.coord.shared:  # claims of messages that no longer change
            await self.storage.prune_coordination(self.config.game_ttl + 86400.0)
        return closed

    async def _expire(self, s: Session) -> None:
        """Close an idle lobby or game (status ``expired``, record kept) and say so."""
        if s.status == "lobby":
            await self.owner.end_lobby(s, "expire")
            self.lobby.close_lobby(s, "guard.expired_lobby")
            return
        await self.owner.expire(s)  # (the owner's ``GameStopped``: shown, unregistered)
        if not is_inline_place(s.chat_id):  # (an inline table's message shows it stopped)
            self.kit.reply(s.chat_id, t(s.lang, "guard.expired_game"), thread=s.thread_id)

    def _prune(self) -> None:
        self.people.prune(list(self.registry.sessions.values()))
        self.registry.prune()
        # (the private chats of seated people too: their hand and ping slots are live)
        seated = {x.user_id for s in self.registry.sessions.values() for x in s.seats
                  if x.kind == "human"}
        self.outbox.prune(self.registry.busy_chats() | seated)
