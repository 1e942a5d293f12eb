"""The membership room: people who block or come back to the bot, the bot removed from
or added to a group, a group that became a supergroup."""

from __future__ import annotations

import contextlib
import logging

from bot.i18n import t
from bot.tg.rooms.base import Kit
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.session import ChatRef, UserRef
from bot.tg.rooms.table import TableRoom
from storage import (
    ActiveGameConflict,
    StatusConflict,
    StorageError,
)

log = logging.getLogger(__name__)


class MembershipRoom:
    """Who may be written to, and where the bot is.  The outbox tells it of a 403 (blocked),
    a kicked bot and a migrated group through its three callbacks, set here."""

    def __init__(self, kit: Kit, table: TableRoom, lobby: LobbyRoom) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.registry = kit.registry
        self.people = kit.people
        self.ids = kit.ids
        self.table = table
        self.lobby = lobby
        self.outbox.on_forbidden = self.user_blocked
        self.outbox.on_kicked = self.bot_kicked
        self.outbox.on_migrated = self.migrate

    async def user_blocked(self, user_id: int) -> None:
        """The user blocked the bot (a 403, or my_chat_member): a computer plays for them."""
        with contextlib.suppress(StorageError):
            await self.storage.mark_blocked(user_id, True)
        for s in list(self.registry.sessions.values()):
            seat = s.seat_of(user_id)
            if seat < 0:
                continue
            async with s.lock:
                if s.status == "lobby":
                    if s.seat_of(user_id) >= 0:
                        del s.seats[s.seat_of(user_id)]
                        s.note = ""
                        await self.lobby.saved(s)
                elif s.status == "playing" and not s.solo:
                    try:
                        await self.table.set_auto(s, seat, True, "blocked")
                    except StorageError as e:
                        log.warning("game %s: seat %s not handed over: %s", s.game_id, seat, e)

    async def user_back(self, user_id: int) -> None:
        """The user started the bot again: their seats come back, their messages are re-sent."""
        for s in list(self.registry.sessions.values()):
            seat = s.seat_of(user_id)
            if seat < 0 or s.status != "playing":
                continue
            async with s.lock:
                who = s.seats[seat]
                if who.auto and who.why != "blocked":
                    continue
                try:
                    if who.auto:
                        await self.table.set_auto(s, seat, False, "back")
                    else:
                        self.table.refresh(s)
                except StorageError as e:
                    log.warning("game %s: seat %s not given back: %s", s.game_id, seat, e)

    async def private_message(self, user: UserRef) -> None:
        """Any private message: the person can be written to now (and is back if they had
        blocked the bot)."""
        await self.people.user(user)
        was = await self.storage.get_user(user.id)
        if was is not None and (not was.started or was.blocked):
            await self.storage.mark_started(user.id)
            if was.blocked:
                await self.user_back(user.id)

    async def bot_added(self, chat: ChatRef, user: UserRef | None) -> None:
        """The bot was added to a group: it says what it does and how to start."""
        lang = await self.people.chat_lang(chat, user)
        self.kit.reply(chat.id, t(lang, "added.group"))

    async def bot_kicked(self, chat_id: int) -> None:
        """The bot was removed from a group: its lobby there is cancelled and its game
        stopped (results kept); nothing more is sent to that chat."""
        async with self.registry.chat_lock(chat_id):
            s = self.registry.session_of_chat(chat_id)
            if s is not None:
                if s.status == "lobby":
                    with contextlib.suppress(StatusConflict):
                        await self.storage.cancel_lobby(s.game_id)
                    self.lobby.close_lobby(s, None)
                else:
                    await self.table.stop(s)
        self.outbox.drop_chat(chat_id)

    async def migrate(self, old: int, new: int) -> None:
        """A group became a supergroup (its id changed): the game moves along."""
        async with self.registry.chat_lock(old):
            try:
                await self.storage.migrate_chat(old, new)
            except ActiveGameConflict as e:
                log.error("chat %s -> %s: both have a game: %s", old, new, e)
                return
            s = self.registry.move_chat(old, new)
            if s is not None:
                self.outbox.migrate(old, new)
                if s.status == "lobby":
                    s.ids.pop("lobby", None)
                    self.lobby.show_lobby(s)
                else:
                    s.ids.pop("t", None)
                    self.table.refresh(s)
                self.ids.save(s)
