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
leases and takes over the expired ones (``_coordinate``)."""

from __future__ import annotations

import asyncio
import contextlib
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
    replay,
    seats_from_json,
    seats_json,
)
from bot.tg.rooms.base import Kit
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.ratings import RatingsRoom
from bot.tg.rooms.session import (
    Backoff,
    ChatKind,
    Place,
    Session,
    hand_key,
    lobby_key,
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

    def __init__(self, kit: Kit, table: TableRoom, lobby: LobbyRoom,
                 ratings: RatingsRoom) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.coord = kit.coord
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.tasks = kit.tasks
        self.table = table
        self.lobby = lobby
        self.ratings = ratings
        self.restored = asyncio.Event()  # set once every game of the start-up is rebuilt
        self._restorer: asyncio.Task[None] | None = None
        self._coordinator: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def background(self) -> tuple[asyncio.Task[None] | None, ...]:
        """The room's own loops: the restore, the sweeper, the leases."""
        return self._restorer, self._sweeper, self._coordinator

    async def start(self) -> int:
        """Register every game in progress (one query) and start rebuilding them in the
        background (``restored`` is set when done); a game touched meanwhile is rebuilt at
        once.  A game that cannot be rebuilt is marked broken (its record kept) and its chat
        told.  Returns how many games are in progress."""
        games = await self.storage.games_in_progress()
        for game in games:
            self.registry.add_pending(game)
        self.restored.clear()
        await self.ratings.record_unrated()  # games that ended but were not counted (a crash)
        loop = asyncio.get_running_loop()
        self._restorer = loop.create_task(self._restore_rest(), name="restore")
        if self.coord.shared and self._coordinator is None:
            self._coordinator = loop.create_task(self._coordinate(), name="leases")
        self._start_sweeper()
        return len(games)

    async def _restore_rest(self) -> None:
        """The background part of ``restore``: every pending game rebuilt, one at a time.
        With several processes only the games whose lease nobody holds are taken
        (``_coordinate``)."""
        backoff = Backoff(0, "restoring the games in progress")
        try:
            while self.registry.pending and not self.tasks.closing and not self.coord.shared:
                game = next(iter(self.registry.pending.values()))
                try:
                    await self._restore_pending(game)
                    backoff.ok()
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
        if self.coord.shared:  # the row of the start-up may be old
            row = await self.storage.get_game(game.game_id)
        if row is None or not row.active:
            self.registry.forget_pending(game.game_id)
            return None
        s = await self._restore_or_break(row)  # a StorageError: still pending
        self.registry.forget_pending(game.game_id)
        return s

    async def touch_game(self, game_id: int) -> None:
        """An update about the game ``game_id`` (a press) is about to be handled: a pending
        game is rebuilt now; with several processes, the game is checked against storage."""
        game = self.registry.pending.get(game_id)
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
                    for gid, version in held.items():
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
                await self.reload(s)
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
        ids = json.loads(game.message_ids or "{}")
        if not isinstance(ids, dict):
            ids = {}
        s = Session(game.game_id, game.chat_id, kind, lang, game.creator_id, game.status, rules,
                    game.seed, seats_from_json(game.seats), lobby_rev=game.lobby_rev,
                    lobby_code=game.lobby_code,
                    level=str(ids.get("level", self.config.computer_level)),
                    title=str(ids.get("title", "")), thread_id=game.thread_id)
        s.ids = ids
        if ids.get("paused"):  # its topic was closed: it waits for the reopening
            s.paused = True
            self.outbox.pause(s.chat_id, s.thread_id)
        s.touched = game.updated if game.status == "lobby" else \
            (game.human_moved or game.updated)
        for place in s.seats:
            if place.kind == "human":
                row = await self.storage.get_user(place.user_id)
                if row is not None and row.language is not None:
                    self.people.remember(place.user_id, norm_lang(row.language))
        if game.status == "lobby":
            if isinstance(ids.get("lobby"), int):
                self.outbox.known(s.chat_id, lobby_key(s.game_id), ids["lobby"], None,
                                  override=self.coord.shared, thread=s.thread_id)
            self.registry.register(s)
            return
        records = await self.storage.actions(game.game_id)
        rep = replay(rules, game.seed, records)
        s.state = rep.state
        s.store_version = game.version
        s.events = rep.events
        for seat, (uid, name) in rep.sits.items():  # latecomers in computers' seats (keepers.py)
            s.seats[seat] = SeatInfo("human", uid, name, "")
            row = await self.storage.get_user(uid)
            if row is not None and row.language is not None:
                self.people.remember(uid, norm_lang(row.language))
        if rep.sits and seats_json(s.seats) != game.seats:  # (stored after the record)
            with contextlib.suppress(StorageError):
                await self.storage.set_seats(game.game_id, seats_json(s.seats))
        for seat, why in rep.auto.items():
            s.seats[seat].auto = True
            s.seats[seat].why = why
        cur = deal_number(rep.state)
        t_ids = ids.get("t")
        if isinstance(t_ids, list) and len(t_ids) >= 2:
            digest = t_ids[2] if len(t_ids) > 2 else None
            self.outbox.known(s.chat_id, table_key(s.game_id, int(t_ids[0])), int(t_ids[1]),
                              digest, override=self.coord.shared, thread=s.thread_id)
            if int(t_ids[0]) != cur:
                s.shown_deal = int(t_ids[0])
        for seat_s, h in (ids.get("h") or {}).items():
            if isinstance(h, list) and len(h) >= 2 and int(seat_s) < len(s.seats):
                digest = h[2] if len(h) > 2 else None
                uid = s.seats[int(seat_s)].user_id
                self.outbox.known(uid, hand_key(s.game_id, int(seat_s), int(h[0])), int(h[1]),
                                  digest, override=self.coord.shared)
                if int(h[0]) != cur and not s.shown_deal:
                    s.shown_deal = int(h[0])
        self.registry.register(s)
        if rep.state.phase == Phase.GAME_OVER:  # the outcome was stored with the last move
            return
        self.table.refresh(s)
        st = rep.state
        if st.to_act >= 0 and s.seats[st.to_act].played_by_computer:
            self.table.schedule(s)
        elif not s.solo and st.to_act >= 0 and not s.paused:
            deadline = game.deadline if game.deadline is not None else \
                self.config.clock() + self.config.turn_timeout
            self.table.arm(s, st.version, deadline)

    async def reload(self, s: Session) -> None:
        """Storage disagrees with memory (another process?): rebuild the session."""
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
            with contextlib.suppress(StorageError):
                await self.storage.set_message_ids(s.game_id, json.dumps(s.ids))
        if self.coord.shared:  # the other processes take these games over at once
            with contextlib.suppress(StorageError):
                await self.coord.release()

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
            await self.storage.expire_game(s.game_id, expected_lobby_rev=s.lobby_rev)
            self.lobby.close_lobby(s, "guard.expired_lobby")
            return
        st = s.state
        assert st is not None
        await self.storage.expire_game(s.game_id, totals=json.dumps(list(st.totals)),
                                       expected_version=s.store_version)
        s.status = "stopped"
        self.table.refresh(s)
        self.registry.unregister(s)
        self.kit.reply(s.chat_id, t(s.lang, "guard.expired_game"), thread=s.thread_id)

    def _prune(self) -> None:
        self.people.prune(list(self.registry.sessions.values()))
        self.registry.prune()
        self.outbox.prune(self.registry.busy_chats())
