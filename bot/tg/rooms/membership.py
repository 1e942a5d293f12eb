"""The membership room: people who block or come back to the bot, the bot removed from
or added to a group, a group that became a supergroup, and forum topics that close, open
again or are deleted under a table (issue 18).

A closed topic pauses its table: ``Session.paused`` stops its computer moves and turn
timers (the table room checks it), presses are refused, and the outbox sends nothing to the
topic (what changes meanwhile waits there, coalesced).  It is noticed either way: the
``forum_topic_closed`` service message, or the outbox's 400 TOPIC_CLOSED (``on_topic_closed``).
``forum_topic_reopened`` (or ``/table`` in the topic: one more try) resumes it: the waiting
messages go out, the table is shown, the turn's time starts again.  The pause is kept with
the table's settings (``Settings.paused``), so a restarted bot keeps the table paused until the
topic is reopened (Telegram delivers that update after the restart too).  A deleted topic
(the outbox's "message thread not found", ``on_topic_gone``) ends its table as an idle game
ends (status ``expired``, reason ``topic_deleted``, record and results kept) and tells the
players in private."""

from __future__ import annotations

import contextlib
import logging

from bot.i18n import esc, t
from bot.tg.rooms.base import Kit
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.session import ChatRef, Place, Session, UserRef
from bot.tg.rooms.table import TableRoom
from storage import (
    ActiveGameConflict,
    StatusConflict,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)


class MembershipRoom:
    """Who may be written to, and where the bot is.  The outbox tells it of a 403 (blocked),
    a kicked bot, a migrated group and closed or deleted topics through its signals, wired
    in ``service.py``."""

    def __init__(self, kit: Kit, owner: TableOwner, table: TableRoom, lobby: LobbyRoom) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.registry = kit.registry
        self.people = kit.people
        self.owner = owner
        self.table = table
        self.lobby = lobby

    async def user_blocked(self, user_id: int) -> None:
        """The user blocked the bot (a 403, or my_chat_member): a computer plays for them."""
        with contextlib.suppress(StorageError):
            await self.storage.mark_blocked(user_id, True)
        await self.registry.wake_user(user_id)  # (their games that left memory, idle)
        for s in list(self.registry.sessions.values()):
            seat = s.seat_of(user_id)
            if seat < 0:
                continue
            async with s.lock:
                if s.status == "lobby":
                    if s.seat_of(user_id) >= 0:
                        self.owner.unseat(s, s.seat_of(user_id))
                        self.owner.note(s, "")
                        await self.lobby.saved(s)
                elif s.status == "playing" and not s.solo:
                    try:
                        await self.table.set_auto(s, seat, True, "blocked")
                    except StorageError as e:
                        log.warning("game %s: seat %s not handed over: %s", s.game_id, seat, e)

    async def user_back(self, user_id: int) -> None:
        """The user started the bot again: their seats come back, their messages are re-sent."""
        await self.registry.wake_user(user_id)
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
        """The bot was removed from a group: its lobbies there are cancelled and its games
        stopped (results kept); nothing more is sent to that chat."""
        async with self.registry.chat_lock(chat_id):
            for s in self.registry.sessions_of_chat(chat_id):
                if s.status == "lobby":
                    await self.owner.end_lobby(s, "kicked")
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
            moved = self.registry.move_chat(old, new)
            if moved:
                self.outbox.migrate(old, new)
            for s in moved:
                self.owner.moved(s)
                if s.status == "lobby":
                    self.lobby.show_lobby(s)
                else:
                    self.table.refresh(s)

    # ------------------------------------------------------------------ forum topics

    async def topic_closed(self, chat_id: int, thread_id: int | None) -> None:
        """A topic was closed (the service message, or a message it refused): its table
        pauses."""
        self.outbox.pause(chat_id, thread_id)
        s = self.registry.session_at(Place(chat_id, thread_id))
        if s is not None and not s.paused:
            log.info("game %s: topic %s of chat %s closed; paused", s.game_id, thread_id,
                     chat_id)
            self.owner.set_paused(s, True)

    async def topic_reopened(self, chat_id: int, thread_id: int | None) -> None:
        """A topic was opened again: what waits for it is sent, its table goes on."""
        self.outbox.resume(chat_id, thread_id)
        s = self.registry.session_at(Place(chat_id, thread_id))
        if s is not None:
            async with s.lock:
                if self.registry.live(s):
                    self.resume(s)

    def resume(self, s: Session) -> None:
        """The table of a paused topic goes on (the caller holds the chat's lock): shown
        again, its computers and turn timer re-armed (the turn's time starts anew)."""
        was = s.paused
        self.owner.set_paused(s, False)
        self.outbox.resume(s.chat_id, s.thread_id)
        if s.status == "lobby":
            self.lobby.show_lobby(s)
        elif s.status == "playing":
            self.table.refresh(s)
            if was:
                self.table.schedule(s)
        if was:
            log.info("game %s: topic %s of chat %s open again; resumed", s.game_id,
                     s.thread_id, s.chat_id)

    async def topic_gone(self, chat_id: int, thread_id: int | None) -> None:
        """A topic was deleted (a message to it answered "message thread not found"): its
        table ends as an idle game ends (records kept); the players are told in private."""
        self.outbox.drop_topic(chat_id, thread_id)
        async with self.registry.chat_lock(chat_id):
            s = self.registry.session_at(Place(chat_id, thread_id))
            if s is None:
                return
            try:
                if s.status == "lobby":
                    await self.owner.end_lobby(s, "topic_deleted")
                    self.lobby.close_lobby(s, None)
                elif s.status == "playing" and s.state is not None:
                    # (the owner's ``GameStopped``: the hands say the game ended)
                    await self.owner.expire(s, "topic_deleted")
                else:
                    return
            except (StatusConflict, VersionConflict) as e:
                log.info("game %s: not ended for its deleted topic: %s", s.game_id, e)
                return
            self.outbox.drop_topic(chat_id, thread_id)  # (the table's last edit: nowhere)
            log.info("game %s: topic %s of chat %s deleted; the game ended", s.game_id,
                     thread_id, chat_id)
            for who in s.seats:
                if who.kind == "human":
                    lang = self.people.lang_for_user(who.user_id)
                    self.kit.reply(who.user_id, t(lang, "topic.gone_game",
                                                  title=esc(s.title or "—")))
