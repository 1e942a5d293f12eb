"""What every room is built on (none of these is a room; none calls a room):

* ``Config`` — the service's settings (timeouts, pace, the computers' level, clock, seeds);
* ``Registry`` — the games in memory: sessions by game and by place (a chat, or a topic
  of a forum), the pending games (of the start-up, and the idle ones evicted from memory:
  ``restore.py``), one lock per chat;
* ``People`` — languages of people and chats, admin checks (a small cache);
* ``Tasks`` — the supervised background tasks and the closing flag;
* ``Kit`` — the bundle of the above with storage, outbox, thinker, bot and coordinator,
  handed to every room.

The upward needs here are signals declared here and wired in the composition root
(``service.py``) only: ``Tasks.on_died`` (a game whose background task died is re-armed:
``TableRoom.resume``) and ``Registry.rebuild`` (an evicted game rebuilt now:
``RestoreRoom``).  The table's fields are changed by its owner (``owner.py``).
"""

from __future__ import annotations

import asyncio
import logging
import random
import string
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from telegram.error import TelegramError

from bot.i18n import Lang, lang_of, norm_lang, t
from bot.tg.io.coord import Coordinator
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.session import (
    CACHE_LIMIT,
    IDLE_EVICT_AFTER,
    SUPERVISOR_RESTARTS,
    SWEEP_EVERY,
    ChatRef,
    Place,
    Session,
    UserRef,
)
from bot.tg.view import render as R
from storage import Backend, Game

log = logging.getLogger(__name__)


@dataclass
class Config:
    """The settings of the game service (tests change ``move_delay`` on the fly)."""

    turn_timeout: float = 90.0  # a normal table's (its pace, ``timeout``)
    quick_turn_timeout: float = 30.0
    unhurried_ping_after: float = 300.0
    unhurried_ping_again: float = 3 * 3600.0
    ping_quiet: float = 15.0  # no "your move" ping for a person who pressed this recently
    move_delay: float = 1.0
    computer_level: str = "hard"
    lobby_ttl: float = 30 * 60.0
    game_ttl: float = 14 * 86400.0
    rng: random.Random = field(default_factory=random.SystemRandom)
    clock: Callable[[], float] = time.time
    bot_username: str = "bot"
    webapp_url: str = ""  # WEBAPP_URL: the Mini App (empty: none, nothing of it shown)
    # the link that opens a group's table as a page (bot/webapp/auth.py TableLinks; set
    # at start-up with WEBAPP_URL): t.me/<bot>/<app>?startapp=<token>; "" none
    table_link: Callable[[int], str] = field(default=lambda game_id: "")
    idle_evict_after: float = IDLE_EVICT_AFTER  # 0: sessions never leave memory

    @property
    def evict_every(self) -> float:
        """Seconds between two looks for idle sessions to evict."""
        return min(SWEEP_EVERY, max(0.25, self.idle_evict_after / 4))

    @property
    def sweep_every(self) -> float:
        return min(SWEEP_EVERY, self.lobby_ttl / 4, self.game_ttl / 4)

    def timeout(self, pace: str) -> float | None:
        """Seconds a person has for a move at a table of ``pace`` (None: no limit)."""
        if pace == "quick":
            return self.quick_turn_timeout
        if pace == "unhurried":
            return None
        return self.turn_timeout

    def code(self) -> str:
        """A new lobby code (ten letters and digits)."""
        return "".join(self.rng.choice(string.ascii_lowercase + string.digits)
                       for _ in range(10))

    def seed(self) -> int:
        return self.rng.getrandbits(62)


@dataclass(slots=True)
class Kept:
    """The little an evicted session keeps in memory (restore.py, ``evict_idle``): who sits
    there, when it was touched (``touched``: expiry), when its turn timer is next due
    (``wake``: rebuilt ``WAKE_LEAD`` before), and what it held that storage has not (a
    lobby's page and note, timeouts in a row), given back if nothing changed meanwhile."""

    version: int
    lobby_rev: int
    touched: float
    wake: float | None
    users: tuple[int, ...]
    page: str = ""
    note: str = ""
    timeouts: dict[int, int] = field(default_factory=dict)


class Registry:
    """The games in memory, by game and by place (a chat, or a topic of a forum: one table
    each); the pending ones of the start-up; one lock per chat (commands and presses alike,
    shared by the tables of a forum's topics: a move is stored in milliseconds, and what
    concerns the whole group — its language, a migration, the bot removed — needs no
    second lock)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.sessions: dict[int, Session] = {}
        self.by_place: dict[Place, int] = {}
        self.of_chat: dict[int, set[int]] = {}  # chat id -> its games in memory
        # games in progress not rebuilt yet (restore.py: rebuilt when first touched, or by
        # the background restore): game id -> its row at start-up, place -> game id
        self.pending: dict[int, Game] = {}
        self.pending_place: dict[Place, int] = {}
        self.pending_chat: dict[int, set[int]] = {}  # chat id -> its pending games
        # the pending games that were evicted (idle): what they keep; their row is a stub
        # (re-read when rebuilt)
        self.kept: dict[int, Kept] = {}
        self.chat_locks: dict[int, asyncio.Lock] = {}
        # rebuilds a pending game now (a signal wired in service.py: the restore room's;
        # ``wake_user``)
        self.rebuild: Callable[[Game], Awaitable[object]] = _no_rebuild

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self.chat_locks.get(chat_id)
        if lock is None:
            lock = self.chat_locks[chat_id] = asyncio.Lock()
        return lock

    def get(self, game_id: int) -> Session | None:
        return self.sessions.get(game_id)

    def live(self, s: Session) -> bool:
        """Is ``s`` still the game in memory under its id?"""
        return self.sessions.get(s.game_id) is s

    def session_at(self, place: Place) -> Session | None:
        gid = self.by_place.get(place)
        return self.sessions.get(gid) if gid is not None else None

    def session_of_chat(self, chat_id: int, thread_id: int | None = None) -> Session | None:
        return self.session_at(Place(chat_id, thread_id))

    def sessions_of_chat(self, chat_id: int) -> list[Session]:
        """Every table of a chat (one per topic of a forum)."""
        return self.sessions_in(chat_id)

    def sessions_in(self, chat_id: int) -> list[Session]:
        """The games in memory of a chat (an index: no scan of every session)."""
        ids = self.of_chat.get(chat_id)
        if not ids:
            return []
        return [s for gid in sorted(ids) if (s := self.sessions.get(gid)) is not None
                and s.chat_id == chat_id]

    def register(self, s: Session) -> None:
        s.lock = self.chat_lock(s.chat_id)
        if not s.touched:
            s.touched = self.clock()
        s.used = self.clock()
        self.sessions[s.game_id] = s
        self.by_place[s.place] = s.game_id
        self.of_chat.setdefault(s.chat_id, set()).add(s.game_id)

    def unregister(self, s: Session) -> None:
        gone = self.sessions.pop(s.game_id, None)
        for chat_id in {s.chat_id, gone.chat_id if gone is not None else s.chat_id}:
            ids = self.of_chat.get(chat_id)
            if ids is not None and s.game_id not in self.sessions:
                ids.discard(s.game_id)
                if not ids:
                    del self.of_chat[chat_id]
        if self.by_place.get(s.place) == s.game_id:
            del self.by_place[s.place]
        if s.timer is not None and s.timer is not asyncio.current_task():
            s.timer.cancel()
        if s.driver is not None and s.driver is not asyncio.current_task():
            s.driver.cancel()

    def unregister_id(self, game_id: int) -> None:
        s = self.sessions.get(game_id)
        if s is not None:
            self.unregister(s)

    def move_chat(self, old: int, new: int) -> list[Session]:
        """A group became a supergroup: its games (one per place) are filed under the new
        id, each in its topic."""
        moved = []
        for place, gid in list(self.by_place.items()):
            if place.chat_id != old:
                continue
            del self.by_place[place]
            s = self.sessions.get(gid)
            if s is not None:
                s.chat_id = new
                s.kind = "supergroup"
                self.by_place[s.place] = gid
                self.of_chat.setdefault(new, set()).add(gid)
                moved.append(s)
        self.of_chat.pop(old, None)
        return moved

    def add_pending(self, game: Game) -> None:
        if game.game_id not in self.sessions:
            old = self.pending.get(game.game_id)
            if old is not None and old.chat_id != game.chat_id:
                self.forget_pending(game.game_id)
            self.pending[game.game_id] = game
            self.pending_place[Place(game.chat_id, game.thread_id)] = game.game_id
            self.pending_chat.setdefault(game.chat_id, set()).add(game.game_id)

    def pending_at(self, place: Place) -> Game | None:
        gid = self.pending_place.get(place)
        return self.pending.get(gid) if gid is not None else None

    def pending_of_chat(self, chat_id: int) -> list[Game]:
        """The pending games of every place of a chat (an index: no scan of them all)."""
        ids = self.pending_chat.get(chat_id)
        if not ids:
            return []
        return [g for gid in sorted(ids) if (g := self.pending.get(gid)) is not None]

    def forget_pending(self, game_id: int) -> Game | None:
        """No longer pending (rebuilt, ended, or taken elsewhere); what an evicted game
        kept stays until its rebuild takes it (``take_kept``) or the sweep drops it."""
        game = self.pending.pop(game_id, None)
        place = Place(game.chat_id, game.thread_id) if game is not None else None
        if place is not None and self.pending_place.get(place) == game_id:
            del self.pending_place[place]
        if game is not None:
            ids = self.pending_chat.get(game.chat_id)
            if ids is not None:
                ids.discard(game_id)
                if not ids:
                    del self.pending_chat[game.chat_id]
        return game

    def take_kept(self, game_id: int) -> Kept | None:
        return self.kept.pop(game_id, None)

    async def wake_user(self, user_id: int) -> None:
        """Rebuild the evicted games where ``user_id`` sits (a change of that person that
        the games in memory follow: blocked, back, a language)."""
        for gid in [g for g, k in self.kept.items() if user_id in k.users]:
            game = self.pending.get(gid)
            if game is not None:
                await self.rebuild(game)

    def busy_chats(self) -> set[int]:
        """The chats of the games in memory, with the private chats of their people (where
        their hands are: the outbox keeps those messages' ids)."""
        busy = {s.chat_id for s in self.sessions.values()}
        busy.update(x.user_id for s in self.sessions.values() for x in s.seats
                    if x.kind == "human")
        return busy

    def prune(self) -> None:
        """Drop the locks of chats without a game (unless held)."""
        busy = self.busy_chats()
        self.chat_locks = {c: lk for c, lk in self.chat_locks.items()
                           if c in busy or lk.locked()}


async def _no_rebuild(game: Game) -> None:
    return None


class People:
    """Languages of people and chats (stored, cached) and admin checks (cached 60 s,
    asked through the outbox)."""

    def __init__(self, storage: Backend, outbox: Outbox) -> None:
        self.storage = storage
        self.outbox = outbox
        self.user_langs: dict[int, Lang] = {}
        self.admins: dict[tuple[int, int], tuple[float, bool]] = {}

    def lang_for_user(self, user_id: int) -> Lang:
        return self.user_langs.get(user_id, "ru")

    def remember(self, user_id: int, lang: Lang) -> None:
        self.user_langs[user_id] = lang

    async def user(self, user: UserRef) -> None:
        """Store the person (name, language guessed from Telegram the first time)."""
        lang = lang_of(user.language_code)
        self.user_langs.setdefault(user.id, lang)
        row = await self.storage.upsert_user(user.id, user.name,
                                             user.username, language=lang)
        if row.language is not None:
            self.user_langs[user.id] = norm_lang(row.language)

    async def chat(self, chat: ChatRef, user: UserRef | None) -> Lang:
        """Store the chat; its language."""
        lang = lang_of(user.language_code if user else None)
        row = await self.storage.upsert_chat(chat.id, chat.kind, language=lang)
        return norm_lang(row.language)

    async def chat_lang(self, chat: ChatRef, user: UserRef | None) -> Lang:
        if chat.kind == "private" and user is not None:
            await self.user(user)
            return self.lang_for_user(user.id)
        row = await self.storage.get_chat(chat.id)
        if row is None:  # the first word in this group: its language is the speaker's
            row = await self.storage.upsert_chat(
                chat.id, chat.kind, language=lang_of(user.language_code if user else None))
        return norm_lang(row.language)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return chat_id == user_id
        if len(self.admins) > CACHE_LIMIT:
            self.admins.clear()
        now = time.monotonic()
        cached = self.admins.get((chat_id, user_id))
        if cached is not None and now - cached[0] < 60:
            return cached[1]
        try:
            member = await self.outbox.member(chat_id, user_id)
            ok = member.status in ("creator", "administrator")
        except TelegramError as e:
            log.info("getChatMember(%s, %s) failed: %s", chat_id, user_id, e)
            ok = False
        self.admins[(chat_id, user_id)] = (now, ok)
        return ok

    async def may_manage(self, s: Session, user: UserRef) -> bool:
        if user.anonymous_admin:
            return True  # the handlers set it only for a message on behalf of this chat
        return user.id == s.creator_id or await self.is_admin(s.chat_id, user.id)

    def prune(self, sessions: list[Session]) -> None:
        mono = time.monotonic()
        self.admins = {k: v for k, v in self.admins.items() if mono - v[0] < 60}
        if len(self.user_langs) > CACHE_LIMIT:
            seated = {x.user_id for s in sessions for x in s.seats}
            self.user_langs = {u: lg for u, lg in self.user_langs.items() if u in seated}


class Tasks:
    """The background tasks of the service.  ``spawn`` supervises a game's task: if it dies
    of an error it is logged with the game id and ``on_died`` (a signal, wired in
    ``service.py`` to the table room) re-arms the game's moves and timers, with growing delays."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.closing = False
        self.all: set[asyncio.Task[None]] = set()
        self.on_died: Callable[[Session], None] = lambda s: None

    def spawn(self, s: Session, coro: Coroutine[Any, Any, None],
              name: str) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.all.add(task)
        s.live += 1
        task.add_done_callback(lambda done: self._done(s, done))
        return task

    def spawn_free(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A task of no game (not re-armed): cancelled at shutdown."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.all.add(task)
        task.add_done_callback(self.all.discard)
        return task

    def _done(self, s: Session, task: asyncio.Task[None]) -> None:
        self.all.discard(task)
        s.live -= 1
        if task.cancelled() or task.exception() is None:
            return
        log.error("game %s: background task %s died", s.game_id, task.get_name(),
                  exc_info=task.exception())
        if self.closing or not self.registry.live(s):
            return
        s.restarts += 1
        if s.restarts > SUPERVISOR_RESTARTS:
            log.critical("game %s: background tasks keep dying; the game waits for a press or "
                         "a restart", s.game_id)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(min(2.0 ** s.restarts, 30.0), self._resume, s)

    def _resume(self, s: Session) -> None:
        if not self.closing and self.registry.live(s):
            self.on_died(s)

    async def cancel_all(self, *extra: asyncio.Task[None] | None) -> None:
        """Shutdown: closing from now on; every task (and ``extra``) cancelled and awaited."""
        self.closing = True
        tasks = [t for t in self.all if not t.done()]
        tasks += [t for t in extra if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


@dataclass
class Kit:
    """The shared services every room is given (none of them is a room)."""

    storage: Backend
    outbox: Outbox
    thinker: Thinker
    bot: Any
    coord: Coordinator
    config: Config
    registry: Registry
    people: People
    tasks: Tasks

    def reply(self, chat_id: int, text: str, keyboard: R.Keyboard = (), *,
              thread: int | None = None) -> None:
        """Send ``text`` (split into messages of the allowed length) to ``chat_id`` (in the
        forum topic ``thread``; None: General, or a chat without topics)."""
        for piece in R.split_text(text):
            self.outbox.send(chat_id, R.Rendered(piece, keyboard), thread=thread)

    def computer_name(self, s: Session) -> str:
        names = t(s.lang, "computer.names").split(",")
        used = {x.name for x in s.seats}
        for name in names:
            if name not in used:
                return name
        return f"{names[0]} {len(s.seats) + 1}"
