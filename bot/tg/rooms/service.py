"""The games of all chats, composed of rooms: one object per room, built once here in
dependency order, each given the shared kit (``base.py``) and the rooms below it.

The rooms, bottom to top (a room calls only the public methods of the rooms below it;
``tests/test_rooms.py`` and the import-linter contract "Rooms call only the rooms below
them" check it):

| room | module | owns | calls |
|---|---|---|---|
| kit | ``base.py`` | sessions, chats, pending games, chat locks, languages, | — |
| | | admins, background tasks, settings | |
| owner | ``owner.py`` | every table's fields: record, version, status, typed | kit |
| | | settings, typed message ids; stores them, publishes | |
| | | the events (``events.py``) once stored | |
| table | ``table.py`` | a playing game: moves, its messages, computers, timers | kit, owner |
| hints | ``hints.py`` | 💡 and 🔍 answers | kit |
| ratings | ``ratings.py`` | counting finished games, /stats, /top | kit |
| lobby | ``lobby.py`` | lobbies, the start, the final sheet, rematch | owner |
| membership | ``membership.py`` | blocked and returning people, the bot added | table, |
| | | or removed, migrations, forum topics closed, | lobby |
| | | reopened or deleted | |
| restore | ``restore.py`` | start-up restore, leases, expiry, shutdown | table, lobby, |
| | | | ratings |
| media | ``media.py`` | pictures, /export, record files | membership |
| keepers | ``keepers.py`` | the keepers' controls: seats to the computer and | table, lobby |
| | | back, latecomers, stop, removal from a lobby | |
| commands | ``commands.py`` | what people type | table, lobby, |
| | | | restore, membership, |
| | | | keepers |
| inline | ``inline.py`` | inline mode: the invitation, «🪑 Сесть» on it | lobby, restore |
| buttons | ``buttons.py`` | a press routed to its room | table, lobby, restore, |
| | | | hints, media, keepers, |
| | | | inline |

(Every room but hints, ratings and media is also handed the table's owner, ``owner.py``:
the one object that assigns and stores a table's fields.)

Everything upward is wired here and nowhere else (``tests/test_rooms.py`` fails if a room
or the owner assigns another object's callback or attribute):

* the owner's events (``events.py``), published once stored, to their listeners in this
  order: ``MovesStored`` → table ``moved``; ``SeatChanged`` → keepers ``seat_changed`` (the
  latecomer's line), table ``seat_changed``; ``SettingChanged`` → table
  ``setting_changed``; ``GameStarted`` → lobby ``started`` (the solo setup message), table
  ``started``; ``GameStopped`` → table ``stopped``; ``GameOver`` → lobby ``final_sheet``,
  media ``pictures_after_end``, ratings ``record_later``; ``DealOver`` → none yet;
* the signals: ``TableHooks.reload`` → restore ``reload``; ``Tasks.on_died`` → table
  ``resume``; ``Registry.rebuild`` → restore ``rebuild_pending``; the outbox's
  ``on_forbidden``/``on_kicked``/``on_migrated``/``on_topic_closed``/``on_topic_gone`` →
  membership ``user_blocked``/``bot_kicked``/``migrate``/``topic_closed``/``topic_gone``.

``handlers.py`` routes each update to its room.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from bot.engine.rules import rules_from_args
from bot.tg.io.coord import Coordinator
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.base import Config, Kit, People, Registry, Tasks
from bot.tg.rooms.buttons import ButtonsRoom
from bot.tg.rooms.commands import CommandsRoom
from bot.tg.rooms.events import (
    Bus,
    GameOver,
    GameStarted,
    GameStopped,
    MovesStored,
    SeatChanged,
    SettingChanged,
)
from bot.tg.rooms.hints import HintsRoom
from bot.tg.rooms.inline import InlineRoom
from bot.tg.rooms.keepers import KeepersRoom
from bot.tg.rooms.lobby import LobbyRoom, fit_rules
from bot.tg.rooms.media import MediaRoom
from bot.tg.rooms.membership import MembershipRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.ratings import RatingsRoom
from bot.tg.rooms.restore import RestoreRoom
from bot.tg.rooms.session import (
    Answer,
    ChatKind,
    ChatRef,
    Place,
    Reply,
    Session,
    UserRef,
    Where,
    clean_name,
    hand_key,
    lobby_key,
    table_key,
    topic_of,
)
from bot.tg.rooms.table import TableHooks, TableRoom
from bot.tg.view import render as R
from storage import Backend, Game

__all__ = [
    "Answer",
    "ChatKind",
    "ChatRef",
    "GameService",
    "Place",
    "Reply",
    "Session",
    "UserRef",
    "Where",
    "clean_name",
    "fit_rules",
    "hand_key",
    "lobby_key",
    "rules_from_args",
    "table_key",
    "topic_of",
]


class GeneralPlaces(Mapping[int, int]):
    """chat id -> the game at (chat, General): a live view of ``Registry.by_place``."""

    def __init__(self, by_place: dict[Place, int]) -> None:
        self._by_place = by_place

    def __getitem__(self, chat_id: int) -> int:
        return self._by_place[Place(chat_id, None)]

    def __iter__(self) -> Iterator[int]:
        return (p.chat_id for p in list(self._by_place) if p.thread_id is None)

    def __len__(self) -> int:
        return sum(1 for p in self._by_place if p.thread_id is None)


class GameService:
    """Every game of every chat: the rooms (see above) and the few entry points the
    application and the tests use."""

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
        idle_evict_after: float = 600.0,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
        coord: Coordinator | None = None,
        quick_turn_timeout: float = 30.0,
        unhurried_ping_after: float = 300.0,
        unhurried_ping_again: float = 3 * 3600.0,
        ping_quiet: float = 15.0,
    ) -> None:
        config = Config(turn_timeout=turn_timeout, quick_turn_timeout=quick_turn_timeout,
                        unhurried_ping_after=unhurried_ping_after,
                        unhurried_ping_again=unhurried_ping_again, ping_quiet=ping_quiet,
                        move_delay=move_delay,
                        computer_level=computer_level, lobby_ttl=lobby_ttl, game_ttl=game_ttl,
                        rng=rng or random.SystemRandom(), clock=clock,
                        idle_evict_after=idle_evict_after)
        registry = Registry(clock)
        tasks = Tasks(registry)
        # several processes on one database (coord.py); the default owns every game
        self.kit = kit = Kit(storage, outbox, thinker, bot, coord or Coordinator(), config,
                             registry, People(storage, outbox), tasks)
        self._by_chat = GeneralPlaces(registry.by_place)
        self.events = bus = Bus()
        self.owner = owner = TableOwner(storage, outbox, kit.coord, config, registry, tasks,
                                        bus)
        hooks = TableHooks()
        self.table = TableRoom(kit, owner, hooks)
        self.hints = HintsRoom(kit)
        self.ratings = RatingsRoom(kit)
        self.lobby = LobbyRoom(kit, owner)
        self.membership = MembershipRoom(kit, owner, self.table, self.lobby)
        self.restore = RestoreRoom(kit, owner, self.table, self.lobby, self.ratings)
        self.media = MediaRoom(kit, self.membership)
        self.keepers = KeepersRoom(kit, owner, self.table, self.lobby)
        self.commands = CommandsRoom(kit, owner, self.table, self.lobby, self.restore,
                                     self.membership, self.keepers)
        self.inline = InlineRoom(kit, owner, self.lobby, self.restore)
        self.buttons = ButtonsRoom(kit, owner, self.table, self.lobby, self.restore,
                                   self.hints, self.media, self.keepers, self.inline)
        self._wire(hooks)

    def _wire(self, hooks: TableHooks) -> None:
        """Every listener and signal (the module's text), in the order they are called.
        Each is looked up when called, so a room's method can be replaced in a test."""
        bus = self.events
        bus.subscribe(MovesStored, lambda e: self.table.moved(e))
        bus.subscribe(SeatChanged, lambda e: self.keepers.seat_changed(e))
        bus.subscribe(SeatChanged, lambda e: self.table.seat_changed(e))
        bus.subscribe(SettingChanged, lambda e: self.table.setting_changed(e))
        bus.subscribe(GameStarted, lambda e: self.lobby.started(e))
        bus.subscribe(GameStarted, lambda e: self.table.started(e))
        bus.subscribe(GameStopped, lambda e: self.table.stopped(e))
        bus.subscribe(GameOver, lambda e: self.lobby.final_sheet(e))
        bus.subscribe(GameOver, lambda e: self.media.pictures_after_end(e.session,
                                                                         list(e.rows)))
        bus.subscribe(GameOver, lambda e: self.ratings.record_later(e.session))
        hooks.reload = lambda s: self.restore.reload(s)
        kit = self.kit
        kit.tasks.on_died = lambda s: self.table.resume(s)
        kit.registry.rebuild = lambda game: self.restore.rebuild_pending(game)
        outbox = kit.outbox
        outbox.on_forbidden = lambda user_id: self.membership.user_blocked(user_id)
        outbox.on_kicked = lambda chat_id: self.membership.bot_kicked(chat_id)
        outbox.on_migrated = lambda old, new: self.membership.migrate(old, new)
        outbox.on_topic_closed = lambda c, t: self.membership.topic_closed(c, t)
        outbox.on_topic_gone = lambda c, t: self.membership.topic_gone(c, t)

    # ---- the shared kit, for the application and the tests

    @property
    def storage(self) -> Backend:
        return self.kit.storage

    @property
    def outbox(self) -> Outbox:
        return self.kit.outbox

    @property
    def thinker(self) -> Thinker:
        return self.kit.thinker

    @property
    def coord(self) -> Coordinator:
        return self.kit.coord

    @property
    def config(self) -> Config:
        return self.kit.config

    @property
    def sessions(self) -> dict[int, Session]:
        return self.kit.registry.sessions

    @property
    def by_chat(self) -> Mapping[int, int]:
        """The game of each chat's General place (or of a chat without topics): a live
        view of the registry's places."""
        return self._by_chat

    @property
    def pending(self) -> dict[int, Game]:
        return self.kit.registry.pending

    @property
    def restored(self) -> asyncio.Event:
        return self.restore.restored

    def session_of_chat(self, chat_id: int, thread_id: int | None = None) -> Session | None:
        return self.kit.registry.session_of_chat(chat_id, thread_id)

    def reply(self, chat_id: int, text: str, keyboard: R.Keyboard = (), *,
              thread: int | None = None) -> None:
        self.kit.reply(chat_id, text, keyboard, thread=thread)

    # ---- entry points

    async def press(self, data: str | None, user: UserRef, where: Where,
                    reply: Reply | None = None) -> Answer:
        return await self.buttons.press(data, user, where, reply)

    async def touch_chat(self, chat_id: int) -> None:
        await self.restore.touch_chat(chat_id)

    async def start(self) -> int:
        """Start-up: the games in progress registered (rebuilt lazily), the loops started."""
        return await self.restore.start()

    async def close(self) -> None:
        await self.restore.close()
