"""The games of all chats, composed of rooms: one object per room, built once here in
dependency order, each given the shared kit (``base.py``) and the rooms below it.

The rooms, bottom to top (a room calls only the public methods of the rooms below it;
``tests/test_rooms.py`` and the import-linter contract "Rooms call only the rooms below
them" check it):

| room | module | owns | calls |
|---|---|---|---|
| kit | ``base.py`` | sessions, chats, pending games, chat locks, languages, | — |
| | | admins, background tasks, message-id saving, settings | |
| table | ``table.py`` | a playing game: moves, its messages, computers, timers | kit |
| hints | ``hints.py`` | 💡 and 🔍 answers | kit |
| ratings | ``ratings.py`` | counting finished games, /stats, /top | kit |
| lobby | ``lobby.py`` | lobbies, the start, the final sheet, rematch | table |
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
| buttons | ``buttons.py`` | a press routed to its room | table, lobby, restore, |
| | | | hints, media, keepers |

Upward needs are narrow callbacks, wired here and nowhere else: ``TableHooks.game_over``
(the lobby's final sheet, then the media room's pictures, then the ratings room's count)
and ``TableHooks.reload`` (the restore room's rebuild); ``Tasks.on_died`` (the table's
``resume``, set by the table); the outbox's ``on_forbidden``/``on_kicked``/``on_migrated``/
``on_topic_closed``/``on_topic_gone`` (the membership room's, set by it).  ``handlers.py``
routes each update to its room.
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
from bot.tg.rooms.base import Config, Kit, MessageIds, People, Registry, Tasks
from bot.tg.rooms.buttons import ButtonsRoom
from bot.tg.rooms.commands import CommandsRoom
from bot.tg.rooms.hints import HintsRoom
from bot.tg.rooms.keepers import KeepersRoom
from bot.tg.rooms.lobby import LobbyRoom, fit_rules
from bot.tg.rooms.media import MediaRoom
from bot.tg.rooms.membership import MembershipRoom
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
                             registry, People(storage, bot), tasks, MessageIds(storage, tasks))
        self._by_chat = GeneralPlaces(registry.by_place)
        hooks = TableHooks()
        self.table = TableRoom(kit, hooks)
        self.hints = HintsRoom(kit)
        self.ratings = RatingsRoom(kit)
        self.lobby = LobbyRoom(kit, self.table)
        self.membership = MembershipRoom(kit, self.table, self.lobby)
        self.restore = RestoreRoom(kit, self.table, self.lobby, self.ratings)
        self.media = MediaRoom(kit, self.membership)
        self.keepers = KeepersRoom(kit, self.table, self.lobby)
        self.commands = CommandsRoom(kit, self.table, self.lobby, self.restore,
                                     self.membership, self.keepers)
        self.buttons = ButtonsRoom(kit, self.table, self.lobby, self.restore, self.hints,
                                   self.media, self.keepers)
        # the table's upward callbacks (looked up when called, so a room's method can be
        # replaced in a test)
        hooks.game_over = self._game_over
        hooks.reload = lambda s: self.restore.reload(s)

    def _game_over(self, s: Session) -> None:
        """A game ended: the final sheet (lobby), its pictures (media), its count (ratings)."""
        rows = self.lobby.final_sheet(s)
        self.media.pictures_after_end(s, rows)
        self.ratings.record_later(s)

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
