"""The inline room: a table sent into any chat through inline mode (``@bot``).

    inline query (handlers) → ``article``: one article, "🃏 Партия в тысячу", in the asker's
    language; its message is the invitation (``view/inline.py``): the seats, «🪑 Сесть».
    Nothing is stored: people type a lot, and most queries are never sent.
    «🪑 Сесть» pressed on the sent message (it has an ``inline_message_id`` and no chat) →
    ``sit``: the table of that message is found at its place (``model.inline_place``: a
    synthetic chat made from the message's id, never a real chat's), rebuilt if a restart
    left it in storage only; the first press makes it (a lobby with the presser seated:
    ``LobbyRoom.open_inline``), the next ones seat people as a lobby's «Сесть» does (a
    person who never started the bot gets the link to start it first, and is not seated);
    the table begins when its seats are taken.

The message is edited, never posted anew (``Outbox.edit_inline``): the lobby, then the
public table of each deal, then the final sheet (lobby.py, table.py).  What a group's table
says in the group as new messages is not said at all, or privately: the hands, deal
summaries and pings go to each person's private chat as at a group's table; no pin, no
keepers' menu, no final sheet with rematch (it would need a chat).  Any other button on
the message (the score popup) is the buttons room's, allowed only on the table's own inline
message (``ButtonsRoom``).

It calls the lobby and restore rooms below it; the buttons room calls it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.engine.rules import CLASSIC
from bot.i18n import Lang, lang_of, norm_lang, t
from bot.tg.model import inline_place
from bot.tg.rooms.base import Kit
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.restore import RestoreRoom
from bot.tg.rooms.session import Answer, Place, UserRef
from bot.tg.view import callbacks as cb
from bot.tg.view import inline as RI
from bot.tg.view import render as R
from storage import StatusConflict, StorageError, VersionConflict

log = logging.getLogger(__name__)

ARTICLE_ID = "thousand"  # the one result of an inline query
CACHE_TIME = 5  # seconds Telegram may show the answer again without asking


@dataclass(frozen=True, slots=True)
class Article:
    """The answer to an inline query: its title and description, and the message it
    sends (HTML text and buttons)."""

    title: str
    description: str
    message: R.Rendered


class InlineRoom:
    """Inline tables: the invitation offered to ``@bot``, and the presses of «🪑 Сесть»."""

    def __init__(self, kit: Kit, owner: TableOwner, lobby: LobbyRoom,
                 restore: RestoreRoom) -> None:
        self.storage = kit.storage
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.owner = owner
        self.lobby = lobby
        self.restore = restore

    def article(self, user: UserRef) -> Article:
        """The invitation in the asker's language (the table's, once sent)."""
        lang = self._lang(user)
        return Article(t(lang, "inline.title"), t(lang, "inline.description"),
                       RI.render_invite(lang, [], CLASSIC.players))

    def _lang(self, user: UserRef) -> Lang:
        """The language of a person: theirs if the bot knows it, else Telegram's."""
        known = self.people.user_langs.get(user.id)
        return known if known is not None else lang_of(user.language_code)

    async def sit(self, data_lang: str, user: UserRef, inline_message_id: str) -> Answer:
        """«🪑 Сесть» on the inline message ``inline_message_id`` (whose invitation was in
        ``data_lang``).  Under the place's lock: the table there is made, or the person
        seated, or the press refused with a popup (seated already, the game on or over)."""
        lang = self._lang(user)
        chat_id = inline_place(inline_message_id)
        place = Place(chat_id)
        async with self.registry.chat_lock(chat_id):
            s = self.registry.session_at(place)
            if s is None:  # not in memory: a restart, or evicted (rebuilt from storage)
                s = await self.restore.orphan(place)
            if s is None:
                if await self.storage.get_chat(chat_id) is not None:
                    return Answer(t(lang, "inline.over"))  # this message's table ended
                row = await self.storage.get_user(user.id)
                if row is None or not row.started or row.blocked:  # the cards go there
                    return Answer(url=f"https://t.me/{self.config.bot_username}?start=inline")
                return await self.lobby.open_inline(chat_id, inline_message_id, user,
                                                    norm_lang(data_lang))
            if s.messages.inline is None:  # made, and the process died before its id was
                try:                           # stored: the place is this message's own
                    await self.owner.adopt_inline(s, inline_message_id)
                except StorageError as e:
                    log.warning("game %s: an inline message's id was not stored: %s",
                                s.game_id, e)
                    return Answer(t(lang, "guard.not_saved"), alert=True)
                self.lobby.show_lobby(s)
            if s.messages.inline != inline_message_id:  # (two ids of one hash: 2**-52)
                log.warning("inline message %s: its place holds game %s of another message",
                            inline_message_id, s.game_id)
                return Answer(t(lang, "guard.wrong_place"))
            if s.status != "lobby":
                return Answer(t(lang, "inline.on" if s.status == "playing" else "inline.over"))
            s.pressed[user.id] = self.config.clock()
            saved = self.owner.copy(s)
            try:
                return await self.lobby.lobby_press(
                    s, cb.Callback(s.game_id, s.lobby_rev, cb.JOIN, ""), user)
            except (VersionConflict, StatusConflict):
                self.owner.undo(s, saved)
                await self.lobby.reload_lobby(s)
                return Answer(t(lang, "popup.stale"))
            except StorageError as e:
                log.warning("game %s: a seat at an inline table was not stored: %s",
                            s.game_id, e)
                self.owner.undo(s, saved)
                return Answer(t(lang, "guard.not_saved"), alert=True)
