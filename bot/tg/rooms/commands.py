"""The commands room: /start, /newgame, /score, /rules, /help, /leave, /stop and the rest."""

from __future__ import annotations

import json
import logging

from bot.engine.rules import RulesError, rules_from_args
from bot.i18n import Lang, esc, t
from bot.rule_words import lang_word, newgame_args, pace_word
from bot.tg.model import (
    seats_from_json,
    sheet_row,
)
from bot.tg.rooms.base import Kit
from bot.tg.rooms.keepers import KeepersRoom
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.membership import MembershipRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.restore import RestoreRoom
from bot.tg.rooms.session import (
    ChatRef,
    UserRef,
    hand_key,
    lobby_key,
    message_link,
    shown_message,
    table_key,
)
from bot.tg.rooms.table import TableRoom
from bot.tg.view import render as R
from storage import (
    StorageError,
)

log = logging.getLogger(__name__)


class CommandsRoom:
    """What people type (but /stats and /top: ``ratings.py``, /export: ``media.py``)."""

    def __init__(self, kit: Kit, owner: TableOwner, table: TableRoom, lobby: LobbyRoom,
                 restore: RestoreRoom, membership: MembershipRoom,
                 keepers: KeepersRoom) -> None:
        self.kit = kit
        self.owner = owner
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.registry = kit.registry
        self.people = kit.people
        self.table = table
        self.lobby = lobby
        self.restore = restore
        self.membership = membership
        self.keepers = keepers

    def _reply(self, chat: ChatRef, text: str, keyboard: R.Keyboard = ()) -> None:
        """A reply where the command was written (its forum topic too)."""
        self.kit.reply(chat.id, text, keyboard, thread=chat.thread_id)

    async def newgame(self, chat: ChatRef, user: UserRef, args: list[str]) -> None:
        await self.people.user(user)
        async with self.registry.chat_lock(chat.id):
            lang = await self.people.chat(chat, user)
            if chat.kind == "private":
                await self.storage.mark_started(user.id)
            existing = self.registry.session_at(chat.place) or await self.restore.orphan(chat.place)
            if existing is not None:
                url = message_link(chat.id, chat.thread_id, shown_message(existing))
                self._reply(chat, t(lang, "newgame.exists_at", url=esc(url)) if url
                            else t(lang, "newgame.exists"))
                return
            base = await self.lobby.default_rules(chat.id)
            try:
                rules = rules_from_args(base, newgame_args(args))
            except RulesError as e:
                self._reply(chat, t(lang, "newgame.bad_args",
                                      reason=R.refusal_text(lang, e)))
                return
            if chat.kind == "private" and args:  # "/newgame 4 full": at once
                await self.lobby.solo(chat, user, lang, rules)
            elif chat.kind == "private":  # the level and the table size as buttons first
                await self.lobby.solo_setup(chat, user, lang, rules)
            else:
                await self.lobby.open_lobby(chat, user, lang, rules)

    async def start_cmd(self, user: UserRef, payload: str) -> None:
        await self.people.user(user)
        lang = self.people.lang_for_user(user.id)
        await self.storage.upsert_chat(user.id, "private", language=lang)
        was = await self.storage.get_user(user.id)
        await self.storage.mark_started(user.id)
        if was is not None and was.blocked:
            await self.membership.user_back(user.id)
        if payload.startswith("join_"):
            await self.lobby.join_by_code(user, payload[5:])
            return
        if payload.startswith("seat_"):  # a latecomer asks for a seat (keepers.py)
            await self.keepers.ask_by_code(user, payload[5:])
            return
        self.kit.reply(user.id, t(lang, "start.hello", name=esc(user.name)))

    def help(self, chat: ChatRef, lang: Lang) -> None:
        self._reply(chat, t(lang, "help"))

    async def hint(self, chat: ChatRef, user: UserRef | None, *, command: bool) -> None:
        """An unknown command, or text in the private chat: a short hint with the commands."""
        lang = await self.people.chat_lang(chat, user)
        self._reply(chat, t(lang, "hint.unknown_command" if command else "hint.private_text"))

    async def lang_cmd(self, chat: ChatRef, user: UserRef, args: list[str]) -> None:
        """``/lang`` tells the chat's language; ``/lang русский|українська|English`` (or
        ru|uk|en) switches it (in a group: the table's creator or an admin).  In private
        it is the person's language everywhere."""
        lang = await self.people.chat_lang(chat, user)
        if not args:
            self._reply(chat, t(lang, "lang.current", name=t(lang, "lang.name")))
            return
        code = " ".join(args).strip()
        found = lang_word(code)  # "uk", "українська", "украинский"
        if found is None:
            self._reply(chat, t(lang, "lang.unknown", code=esc(code[:16])))
            return
        new: Lang = found
        async with self.registry.chat_lock(chat.id):
            s = self.registry.session_at(chat.place)
            tables = self.registry.sessions_of_chat(chat.id)  # the language is the group's
            if chat.kind != "private":
                allowed = user.anonymous_admin or (s is not None and s.creator_id == user.id) \
                    or await self.people.is_admin(chat.id, user.id)
                if not allowed:
                    self._reply(chat, t(lang, "lang.not_allowed"))
                    return
            await self.storage.upsert_chat(chat.id, chat.kind, language=lang)
            await self.storage.set_chat_language(chat.id, new)
            if chat.kind == "private":
                await self.storage.set_user_language(user.id, new)
                self.people.remember(user.id, new)
            for other in tables:
                other.lang = new
                if other.status == "lobby":
                    self.lobby.show_lobby(other)
                else:
                    self.table.refresh(other)
        if chat.kind == "private":  # the person's hands at group tables follow them
            await self.registry.wake_user(user.id)
            for other in list(self.registry.sessions.values()):
                if other.chat_id != chat.id and other.seat_of(user.id) >= 0 \
                        and other.status == "playing":
                    self.table.refresh(other)
        self._reply(chat, t(new, "lang.set"))

    async def table_cmd(self, chat: ChatRef, user: UserRef | None) -> None:
        """``/table``: the table (in private: the hand; a lobby: the lobby) posted anew at
        the bottom of the chat; the old message says where it went and stops changing."""
        lang = await self.people.chat_lang(chat, user)
        async with self.registry.chat_lock(chat.id):
            s = self.registry.session_at(chat.place)
            if s is None:
                self._reply(chat, t(lang, "table.none"))
                return
            if s.status == "lobby":
                key = lobby_key(s.game_id)
                self.owner.forget_shown(s, lobby=True)
            elif s.solo:
                key = hand_key(s.game_id, 0, s.shown_deal)
                self.owner.forget_shown(s, hand=0)
            else:
                key = table_key(s.game_id, s.shown_deal)
                self.owner.forget_shown(s, table=True)
            old = f"{key}:moved"
            self.outbox.rename(chat.id, key, old)
            if self.outbox.message_id(chat.id, old) is not None:
                self.outbox.put(chat.id, old, R.Rendered(t(lang, "table.moved")), final=True,
                                thread=s.thread_id)
            else:
                self.outbox.forget(chat.id, old)
            if s.paused:  # asked in a closed topic: tried once more (a refusal pauses again)
                self.membership.resume(s)
            if s.status == "lobby":
                self.lobby.show_lobby(s)
            else:
                self.table.refresh(s)

    async def score(self, chat: ChatRef, user: UserRef | None) -> None:
        lang = await self.people.chat_lang(chat, user)
        s = self.registry.session_at(chat.place)
        if s is not None and s.state is not None:
            rows = [sheet_row(h) for h in s.state.history]
            self._reply(chat, R.render_score(lang, rows, s.labels()),
                       R.pictures_keyboard(lang, s.game_id) if rows else ())
            return
        game = await self.storage.last_game(chat.id, thread_id=chat.thread_id)
        if game is None or game.status == "lobby":
            self._reply(chat, t(lang, "score.none"))
            return
        sheet = await self.storage.score_sheet(game.game_id)
        rows = [json.loads(r.data) for r in sheet]
        labels = tuple(R.SeatLabel(x.name, x.computer) for x in seats_from_json(game.seats))
        title = t(lang, "score.finished" if game.status == "finished" else "score.stopped")
        self._reply(chat, R.render_score(lang, rows, labels, title=title),
                   R.pictures_keyboard(lang, game.game_id) if rows else ())

    async def rules_cmd(self, chat: ChatRef, user: UserRef | None, args: list[str]) -> None:
        lang = await self.people.chat_lang(chat, user)
        s = self.registry.session_at(chat.place)
        rules = s.rules if s is not None else await self.lobby.default_rules(chat.id)
        if args:
            rid = R.find_rule(" ".join(args))
            if rid is None:
                self._reply(chat, t(lang, "rules.unknown", word=esc(" ".join(args))))
            else:
                self._reply(chat, R.render_rule(lang, rid, rules))
            return
        for piece in R.render_rules(lang, rules):
            self.outbox.send(chat.id, R.Rendered(piece), thread=chat.thread_id)

    async def leave(self, chat: ChatRef, user: UserRef) -> None:
        lang = await self.people.chat_lang(chat, user)
        async with self.registry.chat_lock(chat.id):
            # everything is checked again under the lock: another press may have changed it
            s = self.registry.session_at(chat.place)
            seat = s.seat_of(user.id) if s is not None else -1
            if s is None or seat < 0:
                self._reply(chat, t(lang, "leave.not_seated"))
                return
            if s.status == "lobby":
                saved = self.owner.copy(s)
                self.owner.unseat(s, seat)
                self.owner.note(s, t(lang, "lobby.left", name=esc(user.name)))
                try:
                    await self.lobby.saved(s)
                except StorageError:
                    self.owner.undo(s, saved)
                    raise
                return
            if s.status != "playing":
                return
            if s.solo:
                await self.table.stop(s)
                return
            humans = [i for i, x in enumerate(s.seats)
                      if x.kind == "human" and not x.auto and i != seat]
            deal = s.shown_deal
            await self.table.set_auto(s, seat, True, "leave")
            self.table.put_hand(s, seat, deal, R.render_left(self.people.lang_for_user(user.id)),
                                final=True)
            self._reply(chat, t(lang, "leave.done", name=esc(user.name)))
            if not humans:
                await self.table.stop(s)

    async def pace(self, chat: ChatRef, user: UserRef, args: list[str]) -> None:
        """``/pace`` tells the table's pace; ``/pace быстрый|обычный|без спешки`` (in any
        language, or quick|normal|unhurried) changes it: in the lobby, or during the game
        (one record line, one line on the table).  Only a keeper: the table's creator or
        an admin."""
        lang = await self.people.chat_lang(chat, user)
        async with self.registry.chat_lock(chat.id):
            s = self.registry.session_at(chat.place)
            if s is None:
                s = await self.restore.orphan(chat.place)
            if s is None or s.status not in ("lobby", "playing") or s.solo:
                self._reply(chat, t(lang, "pace.none"))
                return
            if not args:
                self._reply(chat, t(lang, "pace.current", pace=R.pace_name(lang, s.pace),
                                     quick=round(self.kit.config.quick_turn_timeout)))
                return
            pace = pace_word(" ".join(args))
            if pace is None:
                self._reply(chat, t(lang, "pace.unknown", word=esc(" ".join(args)[:24])))
                return
            if not await self.people.may_manage(s, user):
                self._reply(chat, t(lang, "pace.not_allowed"))
                return
            if pace == s.pace:
                self._reply(chat, t(lang, "pace.current", pace=R.pace_name(lang, s.pace),
                                     quick=round(self.kit.config.quick_turn_timeout)))
                return
            if s.status == "lobby":
                saved = self.owner.copy(s)
                try:
                    await self.owner.change_settings(s, pace=pace)  # stored before it is
                    await self.lobby.saved(s)  # confirmed
                except StorageError:
                    self.owner.undo(s, saved)
                    raise
            else:
                await self.table.set_pace(s, pace, user.id)
        self._reply(chat, t(lang, "pace.set", pace=R.pace_name(lang, pace)))

    async def stop(self, chat: ChatRef, user: UserRef) -> None:
        lang = await self.people.chat_lang(chat, user)
        async with self.registry.chat_lock(chat.id):
            s = self.registry.session_at(chat.place)
            if s is None:
                s = await self.restore.orphan(chat.place)
            if s is None:
                self._reply(chat, t(lang, "stop.none"))
                return
            if not await self.people.may_manage(s, user):
                self._reply(chat, t(lang, "stop.not_allowed"))
                return
            if s.status == "lobby":
                await self.storage.cancel_lobby(s.game_id)
                self.lobby.close_lobby(s, "lobby.cancelled")
                return
            await self.table.stop(s)
        self._reply(chat, t(lang, "stop.done"))
