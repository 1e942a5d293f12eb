"""The core of the game service: the registry of sessions, one lock per chat, languages,
admin checks, replies, and the supervised background tasks every room uses."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import string
import time
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import TelegramError

from bot.i18n import Lang, lang_of, norm_lang, t
from bot.tg.io.coord import Coordinator
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.session import (
    CACHE_LIMIT,
    NEW_MESSAGE_SAVE,
    SUPERVISOR_RESTARTS,
    SWEEP_EVERY,
    Answer,
    Backoff,
    ChatRef,
    Session,
    UserRef,
    Where,
)
from bot.tg.view import callbacks as cb
from bot.tg.view import render as R
from storage import (
    Backend,
    Game,
    StorageError,
)

log = logging.getLogger(__name__)


class ServiceCore:
    """State and helpers shared by the rooms of ``GameService``."""

    # ---- implemented by the rooms below (declared here for the type checker)

    def schedule(self, s: Session) -> None:
        raise NotImplementedError

    async def lobby_press(self, s: Session, c: cb.Callback, user: UserRef) -> Answer:
        raise NotImplementedError

    async def _reload(self, s: Session) -> None:
        raise NotImplementedError

    async def end_press(self, c: cb.Callback, user: UserRef, where: Where) -> Answer:
        raise NotImplementedError

    async def _reload_lobby(self, s: Session) -> None:
        raise NotImplementedError

    async def touch_game(self, game_id: int) -> None:
        raise NotImplementedError

    async def touch_chat(self, chat_id: int) -> None:
        raise NotImplementedError

    # ---- helpers shared by every room

    def __init__(
        self,
        storage: Backend,
        outbox: Outbox,
        thinker: Thinker,
        *,
        bot: Any,
        turn_timeout: float = 90.0,
        move_delay: float = 1.0,
        computer_level: str = "hard",
        lobby_ttl: float = 30 * 60.0,
        game_ttl: float = 14 * 86400.0,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        coord: Coordinator | None = None,
    ) -> None:
        self.storage = storage
        self.outbox = outbox
        self.thinker = thinker
        self.bot = bot
        self.turn_timeout = turn_timeout
        self.move_delay = move_delay
        self.computer_level = computer_level
        self.lobby_ttl = lobby_ttl
        self.game_ttl = game_ttl
        self.sweep_every = min(SWEEP_EVERY, lobby_ttl / 4, game_ttl / 4)
        self.rng = rng or random.SystemRandom()
        self.clock = clock
        self.bot_username = "bot"
        self.sessions: dict[int, Session] = {}
        self.by_chat: dict[int, int] = {}
        self.user_langs: dict[int, Lang] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        self._admins: dict[tuple[int, int], tuple[float, bool]] = {}
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        # several processes on one database (coord.py); the default owns every game
        self.coord = coord or Coordinator()
        # games in progress not rebuilt yet (restore.py: rebuilt when first touched, or by
        # the background restore): game id -> its row at start-up, chat id -> game id
        self.pending: dict[int, Game] = {}
        self.pending_chat: dict[int, int] = {}
        self.restored = asyncio.Event()  # set once every game of the start-up is rebuilt
        self._restorer: asyncio.Task[None] | None = None
        self._coordinator: asyncio.Task[None] | None = None

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._chat_locks.get(chat_id)
        if lock is None:
            lock = self._chat_locks[chat_id] = asyncio.Lock()
        return lock

    def lang_for_user(self, user_id: int) -> Lang:
        return self.user_langs.get(user_id, "ru")

    async def _user(self, user: UserRef) -> None:
        lang = lang_of(user.language_code)
        self.user_langs.setdefault(user.id, lang)
        row = await self.storage.upsert_user(user.id, user.name,
                                             user.username, language=lang)
        if row.language is not None:
            self.user_langs[user.id] = norm_lang(row.language)

    async def _chat(self, chat: ChatRef, user: UserRef | None) -> Lang:
        lang = lang_of(user.language_code if user else None)
        row = await self.storage.upsert_chat(chat.id, chat.kind, language=lang)
        return norm_lang(row.language)

    def reply(self, chat_id: int, text: str, keyboard: R.Keyboard = ()) -> None:
        for piece in R.split_text(text):
            self.outbox.send(chat_id, R.Rendered(piece, keyboard))

    def _code(self) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase + string.digits) for _ in range(10))

    def _seed(self) -> int:
        return self.rng.getrandbits(62)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return chat_id == user_id
        if len(self._admins) > CACHE_LIMIT:
            self._admins.clear()
        now = time.monotonic()
        cached = self._admins.get((chat_id, user_id))
        if cached is not None and now - cached[0] < 60:
            return cached[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
            ok = member.status in ("creator", "administrator")
        except TelegramError as e:
            log.info("getChatMember(%s, %s) failed: %s", chat_id, user_id, e)
            ok = False
        self._admins[(chat_id, user_id)] = (now, ok)
        return ok

    async def _may_manage(self, s: Session, user: UserRef) -> bool:
        if user.anonymous_admin:
            return True  # the handlers set it only for a message on behalf of this chat
        return user.id == s.creator_id or await self.is_admin(s.chat_id, user.id)

    def _computer_name(self, s: Session) -> str:
        names = t(s.lang, "computer.names").split(",")
        used = {x.name for x in s.seats}
        for name in names:
            if name not in used:
                return name
        return f"{names[0]} {len(s.seats) + 1}"

    def _register(self, s: Session) -> None:
        s.lock = self.chat_lock(s.chat_id)  # one lock per chat: commands and presses alike
        if not s.touched:
            s.touched = self.clock()
        self.sessions[s.game_id] = s
        self.by_chat[s.chat_id] = s.game_id

    def _unregister(self, s: Session) -> None:
        self.sessions.pop(s.game_id, None)
        if self.by_chat.get(s.chat_id) == s.game_id:
            del self.by_chat[s.chat_id]
        if s.timer is not None and s.timer is not asyncio.current_task():
            s.timer.cancel()
        if s.driver is not None and s.driver is not asyncio.current_task():
            s.driver.cancel()

    def session_of_chat(self, chat_id: int) -> Session | None:
        gid = self.by_chat.get(chat_id)
        return self.sessions.get(gid) if gid is not None else None

    async def chat_lang(self, chat: ChatRef, user: UserRef | None) -> Lang:
        if chat.kind == "private" and user is not None:
            await self._user(user)
            return self.lang_for_user(user.id)
        row = await self.storage.get_chat(chat.id)
        if row is None:  # the first word in this group: its language is the speaker's
            row = await self.storage.upsert_chat(
                chat.id, chat.kind, language=lang_of(user.language_code if user else None))
        return norm_lang(row.language)

    def _save_ids(self, s: Session, delay: float = NEW_MESSAGE_SAVE) -> None:
        """Store the game's message ids and what they show within ``delay`` seconds (one
        write serves every change made meanwhile); a failed write is retried with backoff."""
        s.ids_dirty = True
        due = time.monotonic() + delay
        if s.ids_task is not None and not s.ids_task.done():
            s.ids_due = min(s.ids_due, due)
            return
        s.ids_due = due
        if self._closing:
            return

        async def run() -> None:
            backoff = Backoff(s.game_id, "saving message ids")
            while s.ids_dirty and not self._closing:
                wait = s.ids_due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                try:
                    await self._write_ids(s)
                    backoff.ok()
                except StorageError as e:
                    backoff.failed(e)
                    await backoff.wait()

        s.ids_task = self._spawn(s, run(), f"ids:{s.game_id}")

    async def _write_ids(self, s: Session) -> None:
        """Store the message ids now (raises StorageError); clears the pending marks."""
        urgent = s.ids_urgent
        s.ids_dirty = s.ids_urgent = False
        try:
            await self.storage.set_message_ids(s.game_id, json.dumps(s.ids))
        except BaseException:
            s.ids_dirty = True
            s.ids_urgent = s.ids_urgent or urgent
            raise

    def _spawn(self, s: Session, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A background task of ``s`` under supervision: if it dies of an error it is
        reported (logged with the game id) and the game's moves and timers are re-armed."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._task_done(s, done))
        return task

    def _task_done(self, s: Session, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        log.error("game %s: background task %s died", s.game_id, task.get_name(),
                  exc_info=task.exception())
        if self._closing or self.sessions.get(s.game_id) is not s:
            return
        s.restarts += 1
        if s.restarts > SUPERVISOR_RESTARTS:
            log.critical("game %s: background tasks keep dying; the game waits for a press or "
                         "a restart", s.game_id)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(min(2.0 ** s.restarts, 30.0), self._resume, s)

    def _want_lease(self, s: Session) -> None:
        """Several processes: ``s`` needs its timers or computer moves run but this process
        does not hold its lease: it takes it if nobody holds it, then schedules."""
        if s.claiming or self._closing:
            return
        s.claiming = True

        async def run() -> None:
            try:
                if await self.coord.claim(s.game_id) and self.sessions.get(s.game_id) is s:
                    self.schedule(s)
            finally:
                s.claiming = False

        self._spawn(s, run(), f"lease:{s.game_id}")

    def _resume(self, s: Session) -> None:
        if self._closing or self.sessions.get(s.game_id) is not s:
            return
        if s.ids_dirty:
            self._save_ids(s)
        self.schedule(s)
