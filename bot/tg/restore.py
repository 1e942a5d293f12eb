"""The restore room: games rebuilt at start-up (or marked broken), the shutdown, and the
sweep that expires idle lobbies and games and prunes the caches."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time

from bot.engine.rules import (
    rules_from_dict,
)
from bot.engine.state import Phase
from bot.i18n import norm_lang, t
from bot.tg.membership import MembershipRoom
from bot.tg.model import (
    deal_number,
    replay,
    seats_from_json,
)
from bot.tg.ratings_room import record_unrated
from bot.tg.session import (
    CACHE_LIMIT,
    ChatKind,
    Session,
    hand_key,
    lobby_key,
    table_key,
)
from storage import (
    Game,
    StatusConflict,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)


class RestoreRoom(MembershipRoom):
    """Start-up, shutdown and expiry."""

    async def restore(self) -> int:
        """Rebuild every game in progress from storage and re-arm its timers and moves; a
        game that cannot be rebuilt is marked broken (its record kept) and its chat told."""
        games = await self.storage.games_in_progress()
        for game in games:
            await self._restore_or_break(game)
        await record_unrated(self)  # games that ended but were not counted (a crash)
        self._start_sweeper()
        return len(games)

    async def _restore_or_break(self, game: Game) -> Session | None:
        try:
            await self._restore_one(game)
        except StorageError:
            raise  # the database failed, not the game: it is not broken
        except Exception as e:
            log.exception("game %s could not be restored; marked broken", game.game_id)
            self._unregister_id(game.game_id)
            await self.storage.mark_broken(game.game_id, f"{type(e).__name__}: {e}"[:500])
            chat = await self.storage.get_chat(game.chat_id)
            self.reply(game.chat_id, t(norm_lang(chat.language if chat else None),
                                       "guard.broken", game=game.game_id))
            return None
        return self.sessions.get(game.game_id)

    def _unregister_id(self, game_id: int) -> None:
        s = self.sessions.get(game_id)
        if s is not None:
            self._unregister(s)

    async def _orphan(self, chat_id: int) -> Session | None:
        """The chat's active game in storage that is not in memory (a failed restore, or
        another process): restored now, or marked broken so that it frees the chat."""
        game = await self.storage.active_game(chat_id)
        if game is None or game.game_id in self.sessions:
            return self.sessions.get(game.game_id) if game is not None else None
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
                    lobby_code=game.lobby_code, level=str(ids.get("level", self.computer_level)),
                    title=str(ids.get("title", "")))
        s.ids = ids
        s.touched = game.updated if game.status == "lobby" else \
            (game.human_moved or game.updated)
        for place in s.seats:
            if place.kind == "human":
                row = await self.storage.get_user(place.user_id)
                if row is not None and row.language is not None:
                    self.user_langs[place.user_id] = norm_lang(row.language)
        if game.status == "lobby":
            if isinstance(ids.get("lobby"), int):
                self.outbox.known(s.chat_id, lobby_key(s.game_id), ids["lobby"], None)
            self._register(s)
            return
        records = await self.storage.actions(game.game_id)
        rep = replay(rules, game.seed, records)
        s.state = rep.state
        s.store_version = game.version
        s.events = rep.events
        for seat, why in rep.auto.items():
            s.seats[seat].auto = True
            s.seats[seat].why = why
        cur = deal_number(rep.state)
        t_ids = ids.get("t")
        if isinstance(t_ids, list) and len(t_ids) >= 2:
            digest = t_ids[2] if len(t_ids) > 2 else None
            self.outbox.known(s.chat_id, table_key(s.game_id, int(t_ids[0])), int(t_ids[1]),
                              digest)
            if int(t_ids[0]) != cur:
                s.shown_deal = int(t_ids[0])
        for seat_s, h in (ids.get("h") or {}).items():
            if isinstance(h, list) and len(h) >= 2 and int(seat_s) < len(s.seats):
                digest = h[2] if len(h) > 2 else None
                uid = s.seats[int(seat_s)].user_id
                self.outbox.known(uid, hand_key(s.game_id, int(seat_s), int(h[0])), int(h[1]),
                                  digest)
                if int(h[0]) != cur and not s.shown_deal:
                    s.shown_deal = int(h[0])
        self._register(s)
        if rep.state.phase == Phase.GAME_OVER:  # the outcome was stored with the last move
            return
        self.refresh(s)
        st = rep.state
        if st.to_act >= 0 and s.seats[st.to_act].played_by_computer:
            self.schedule(s)
        elif not s.solo and st.to_act >= 0:
            deadline = game.deadline if game.deadline is not None else \
                self.clock() + self.turn_timeout
            self._arm(s, st.version, deadline)

    async def _reload(self, s: Session) -> None:
        """Storage disagrees with memory (another process?): rebuild the session."""
        self._unregister(s)
        game = await self.storage.get_game(s.game_id)
        if game is not None and game.active:
            await self._restore_one(game)

    async def close(self) -> None:
        """Stop timers, computer moves and the sweeper, let the outbox send what it has,
        and save the message ids (shutdown); no task of the service is left running."""
        self._closing = True
        tasks = [t for t in self._tasks if not t.done()]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.outbox.idle(5.0)
        for s in list(self.sessions.values()):
            with contextlib.suppress(StorageError):
                await self.storage.set_message_ids(s.game_id, json.dumps(s.ids))

    def _start_sweeper(self) -> None:
        if self._sweeper is None and not self._closing:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(),
                                                                   name="sweeper")

    async def _sweep_forever(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.sweep_every)
            try:
                await self.sweep()
            except StorageError as e:
                log.warning("the sweep for idle games failed, next time again: %s", e)
            except Exception:
                log.exception("the sweep for idle games failed")

    async def sweep(self) -> int:
        """Close lobbies idle for ``lobby_ttl`` and stop games without a person's move for
        ``game_ttl`` (records kept); prune the in-memory caches.  Returns the games closed."""
        now = self.clock()
        closed = 0
        for s in list(self.sessions.values()):
            ttl = self.lobby_ttl if s.status == "lobby" else self.game_ttl
            if now - s.touched < ttl:
                continue
            async with s.lock:
                if self.sessions.get(s.game_id) is not s or now - s.touched < ttl:
                    continue
                try:
                    await self._expire(s)
                except (VersionConflict, StatusConflict):
                    continue  # changed meanwhile (another process?): not idle
                closed += 1
        self._prune()
        return closed

    async def _expire(self, s: Session) -> None:
        """Close an idle lobby or game (status ``expired``, record kept) and say so."""
        if s.status == "lobby":
            await self.storage.expire_game(s.game_id, expected_lobby_rev=s.lobby_rev)
            self._close_lobby(s, "guard.expired_lobby")
            return
        st = s.state
        assert st is not None
        await self.storage.expire_game(s.game_id, totals=json.dumps(list(st.totals)),
                                       expected_version=s.store_version)
        s.status = "stopped"
        self.refresh(s)
        self._unregister(s)
        self.reply(s.chat_id, t(s.lang, "guard.expired_game"))

    def _prune(self) -> None:
        mono = time.monotonic()
        self._admins = {k: v for k, v in self._admins.items() if mono - v[0] < 60}
        busy = {s.chat_id for s in self.sessions.values()}
        self._chat_locks = {c: lk for c, lk in self._chat_locks.items()
                            if c in busy or lk.locked()}
        if len(self.user_langs) > CACHE_LIMIT:
            seated = {x.user_id for s in self.sessions.values() for x in s.seats}
            self.user_langs = {u: lg for u, lg in self.user_langs.items() if u in seated}
        self.outbox.prune(busy)
