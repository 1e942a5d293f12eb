"""The commands room: /start, /newgame, /score, /rules, /help, /leave, /stop and the rest."""

from __future__ import annotations

import json
import logging

from bot.engine.rules import RulesError, rules_from_args
from bot.i18n import LANGS, Lang, esc, norm_lang, t
from bot.tg import render as R
from bot.tg.model import (
    seats_from_json,
    sheet_row,
)
from bot.tg.restore import RestoreRoom
from bot.tg.session import (
    ChatRef,
    LobbyCopy,
    UserRef,
    hand_key,
    lobby_key,
    table_key,
)
from storage import (
    StorageError,
)

log = logging.getLogger(__name__)


class CommandsRoom(RestoreRoom):
    """What people type."""

    async def newgame(self, chat: ChatRef, user: UserRef, args: list[str]) -> None:
        await self._user(user)
        async with self.chat_lock(chat.id):
            lang = await self._chat(chat, user)
            if chat.kind == "private":
                await self.storage.mark_started(user.id)
            existing = self.session_of_chat(chat.id) or await self._orphan(chat.id)
            if existing is not None:
                self.reply(chat.id, t(lang, "newgame.exists"))
                return
            base = await self._default_rules(chat.id)
            try:
                rules = rules_from_args(base, args)
            except RulesError as e:
                self.reply(chat.id, t(lang, "newgame.bad_args",
                                      reason=R.refusal_text(lang, e)))
                return
            if chat.kind == "private" and args:  # "/newgame 4 full": at once
                await self._solo(chat, user, lang, rules)
            elif chat.kind == "private":  # the level and the table size as buttons first
                await self._solo_setup(chat, user, lang, rules)
            else:
                await self._open_lobby(chat, user, lang, rules)

    async def start_cmd(self, user: UserRef, payload: str) -> None:
        await self._user(user)
        lang = self.lang_for_user(user.id)
        await self.storage.upsert_chat(user.id, "private", language=lang)
        was = await self.storage.get_user(user.id)
        await self.storage.mark_started(user.id)
        if was is not None and was.blocked:
            await self.user_back(user.id)
        if payload.startswith("join_"):
            await self.join_by_code(user, payload[5:])
            return
        self.reply(user.id, t(lang, "start.hello", name=esc(user.name)))

    async def private_message(self, user: UserRef) -> None:
        await self._user(user)
        was = await self.storage.get_user(user.id)
        if was is not None and (not was.started or was.blocked):
            await self.storage.mark_started(user.id)
            if was.blocked:
                await self.user_back(user.id)

    def help(self, chat_id: int, lang: Lang) -> None:
        self.reply(chat_id, t(lang, "help"))

    async def hint(self, chat: ChatRef, user: UserRef | None, *, command: bool) -> None:
        """An unknown command, or text in the private chat: a short hint with the commands."""
        lang = await self.chat_lang(chat, user)
        self.reply(chat.id, t(lang, "hint.unknown_command" if command else "hint.private_text"))

    async def lang_cmd(self, chat: ChatRef, user: UserRef, args: list[str]) -> None:
        """``/lang`` tells the chat's language; ``/lang ru|uk|en`` switches it (in a group: the
        table's creator or an admin).  In private it is the person's language everywhere."""
        lang = await self.chat_lang(chat, user)
        if not args:
            self.reply(chat.id, t(lang, "lang.current", name=t(lang, "lang.name")))
            return
        code = args[0].lower().strip()
        if code not in LANGS:
            self.reply(chat.id, t(lang, "lang.unknown", code=esc(code[:16])))
            return
        new: Lang = norm_lang(code)
        async with self.chat_lock(chat.id):
            s = self.session_of_chat(chat.id)
            if chat.kind != "private":
                allowed = user.anonymous_admin or (s is not None and s.creator_id == user.id) \
                    or await self.is_admin(chat.id, user.id)
                if not allowed:
                    self.reply(chat.id, t(lang, "lang.not_allowed"))
                    return
            await self.storage.upsert_chat(chat.id, chat.kind, language=lang)
            await self.storage.set_chat_language(chat.id, new)
            if chat.kind == "private":
                await self.storage.set_user_language(user.id, new)
                self.user_langs[user.id] = new
            if s is not None:
                s.lang = new
                if s.status == "lobby":
                    self.show_lobby(s)
                else:
                    self.refresh(s)
        if chat.kind == "private":  # the person's hands at group tables follow them
            for other in list(self.sessions.values()):
                if other.chat_id != chat.id and other.seat_of(user.id) >= 0 \
                        and other.status == "playing":
                    self.refresh(other)
        self.reply(chat.id, t(new, "lang.set"))

    async def table_cmd(self, chat: ChatRef, user: UserRef | None) -> None:
        """``/table``: the table (in private: the hand; a lobby: the lobby) posted anew at
        the bottom of the chat; the old message says where it went and stops changing."""
        lang = await self.chat_lang(chat, user)
        async with self.chat_lock(chat.id):
            s = self.session_of_chat(chat.id)
            if s is None:
                self.reply(chat.id, t(lang, "table.none"))
                return
            if s.status == "lobby":
                key = lobby_key(s.game_id)
                s.ids.pop("lobby", None)
            elif s.solo:
                key = hand_key(s.game_id, 0, s.shown_deal)
                s.ids.get("h", {}).pop("0", None)
            else:
                key = table_key(s.game_id, s.shown_deal)
                s.ids.pop("t", None)
            old = f"{key}:moved"
            self.outbox.rename(chat.id, key, old)
            if self.outbox.message_id(chat.id, old) is not None:
                self.outbox.put(chat.id, old, R.Rendered(t(lang, "table.moved")), final=True)
            else:
                self.outbox.forget(chat.id, old)
            if s.status == "lobby":
                self.show_lobby(s)
            else:
                self.refresh(s)

    async def score(self, chat: ChatRef, user: UserRef | None) -> None:
        lang = await self.chat_lang(chat, user)
        s = self.session_of_chat(chat.id)
        if s is not None and s.state is not None:
            rows = [sheet_row(h) for h in s.state.history]
            self.reply(chat.id, R.render_score(lang, rows, s.labels()),
                       R.pictures_keyboard(lang, s.game_id) if rows else ())
            return
        game = await self.storage.last_game(chat.id)
        if game is None or game.status == "lobby":
            self.reply(chat.id, t(lang, "score.none"))
            return
        sheet = await self.storage.score_sheet(game.game_id)
        rows = [json.loads(r.data) for r in sheet]
        labels = tuple(R.SeatLabel(x.name, x.computer) for x in seats_from_json(game.seats))
        title = t(lang, "score.finished" if game.status == "finished" else "score.stopped")
        self.reply(chat.id, R.render_score(lang, rows, labels, title=title),
                   R.pictures_keyboard(lang, game.game_id) if rows else ())

    async def rules_cmd(self, chat: ChatRef, user: UserRef | None, args: list[str]) -> None:
        lang = await self.chat_lang(chat, user)
        s = self.session_of_chat(chat.id)
        rules = s.rules if s is not None else await self._default_rules(chat.id)
        if args:
            rid = R.find_rule(" ".join(args))
            if rid is None:
                self.reply(chat.id, t(lang, "rules.unknown", word=esc(" ".join(args))))
            else:
                self.reply(chat.id, R.render_rule(lang, rid, rules))
            return
        for piece in R.render_rules(lang, rules):
            self.outbox.send(chat.id, R.Rendered(piece))

    async def leave(self, chat: ChatRef, user: UserRef) -> None:
        lang = await self.chat_lang(chat, user)
        async with self.chat_lock(chat.id):
            # everything is checked again under the lock: another press may have changed it
            s = self.session_of_chat(chat.id)
            seat = s.seat_of(user.id) if s is not None else -1
            if s is None or seat < 0:
                self.reply(chat.id, t(lang, "leave.not_seated"))
                return
            if s.status == "lobby":
                saved = LobbyCopy.of(s)
                del s.seats[seat]
                s.note = t(lang, "lobby.left", name=esc(user.name))
                try:
                    await self._lobby_saved(s)
                except StorageError:
                    saved.restore(s)
                    raise
                return
            if s.status != "playing":
                return
            if s.solo:
                await self._stop(s)
                return
            humans = [i for i, x in enumerate(s.seats)
                      if x.kind == "human" and not x.auto and i != seat]
            deal = s.shown_deal
            await self._set_auto(s, seat, True, "leave")
            self._put_hand(s, seat, deal, R.render_left(self.lang_for_user(user.id)), final=True)
            self.reply(chat.id, t(lang, "leave.done", name=esc(user.name)))
            if not humans:
                await self._stop(s)

    async def stop(self, chat: ChatRef, user: UserRef) -> None:
        lang = await self.chat_lang(chat, user)
        async with self.chat_lock(chat.id):
            s = self.session_of_chat(chat.id)
            if s is None:
                s = await self._orphan(chat.id)
            if s is None:
                self.reply(chat.id, t(lang, "stop.none"))
                return
            if not await self._may_manage(s, user):
                self.reply(chat.id, t(lang, "stop.not_allowed"))
                return
            if s.status == "lobby":
                await self.storage.cancel_lobby(s.game_id)
                self._close_lobby(s, "lobby.cancelled")
                return
            await self._stop(s)
        self.reply(chat.id, t(lang, "stop.done"))
