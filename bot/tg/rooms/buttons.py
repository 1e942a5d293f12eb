"""The buttons room: every button press, routed to the room that owns its verb.

    press (handlers) → ``press``: decode; «🪑 Сесть» of an inline table → inline; the 🖼
    button → media; "Rematch" / "New table" → lobby; 🔍 → hints; else the game is rebuilt
    if pending (restore), the chat (or inline message) the button was on is checked, 💡 →
    hints; the chat's lock is taken and everything checked again → a lobby's buttons →
    lobby (its change undone if it was not stored), a game's → table.

It owns no state; it calls the public methods of the rooms below it and nothing calls it
but the handlers (and ``GameService.press``).
"""

from __future__ import annotations

import logging

from bot.i18n import t
from bot.tg.model import is_inline_place
from bot.tg.rooms.base import Kit
from bot.tg.rooms.hints import HintsRoom
from bot.tg.rooms.inline import InlineRoom
from bot.tg.rooms.keepers import KeepersRoom
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.media import MediaRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.restore import RestoreRoom
from bot.tg.rooms.session import Answer, Reply, Session, UserRef, Where
from bot.tg.rooms.table import TableRoom
from bot.tg.view import callbacks as cb
from bot.tg.view import inline as RI
from storage import StatusConflict, StorageError, VersionConflict

log = logging.getLogger(__name__)


class ButtonsRoom:
    """Routes a press to the room of its verb, with the checks every press shares."""

    def __init__(self, kit: Kit, owner: TableOwner, table: TableRoom, lobby: LobbyRoom,
                 restore: RestoreRoom, hints: HintsRoom, media: MediaRoom,
                 keepers: KeepersRoom, inline: InlineRoom) -> None:
        self.registry = kit.registry
        self.owner = owner
        self.people = kit.people
        self.clock = kit.config.clock
        self.table = table
        self.lobby = lobby
        self.restore = restore
        self.hints = hints
        self.media = media
        self.keepers = keepers
        self.inline = inline

    async def press(self, data: str | None, user: UserRef, where: Where,
                    reply: Reply | None = None) -> Answer:
        """A button press anywhere; the answer is shown to the presser (through ``reply``
        when it is given and may be sent early).  A press is checked under the chat's lock
        against the game's current state: its data, the chat it came from and the seat of
        the presser; a refused press changes nothing."""
        c = cb.decode(data)
        if c is not None and c.verb == cb.PICTURES:
            return await self.media.pictures_press(c, user, where)
        lang = self.people.lang_for_user(user.id)
        invite = RI.decode_invite(data)
        if invite is not None:  # «🪑 Сесть» of an inline table: only on its inline message
            if where.inline_id is None:
                return Answer(t(lang, "guard.wrong_place"))
            return await self.inline.sit(invite, user, where.inline_id)
        if c is None:
            return Answer(t(lang, "popup.unknown"))
        if where.chat_id is None and where.inline_id is None:
            return Answer(t(lang, "guard.wrong_place"))
        if c.verb in (cb.REMATCH, cb.NEW_TABLE):  # on the final sheet of an ended game
            return await self.lobby.end_press(c, user, where)
        if c.verb == cb.ANALYSE:  # a deal's summary, also after the game ended (hints.py)
            return await self.hints.analysis_press(c, user, where)
        await self.restore.touch_game(c.game_id)  # rebuilt if not yet (restore.py)
        s = self.registry.get(c.game_id)
        if s is None:
            return Answer(t(lang, "popup.stale"))
        if not self._in_place(s, c, user, where):
            log.info("press of %s on game %s from chat %s refused: not its place",
                     user.id, c.game_id, where.chat_id)
            return Answer(t(lang, "guard.wrong_place"))
        if s.paused:  # its forum topic is closed (membership.py)
            return Answer(t(lang, "popup.paused"))
        if c.verb == cb.HINT:  # read-only, thought in the pool: the table does not wait
            s.busy += 1  # (it stays in memory meanwhile)
            try:
                return await self.hints.hint_press(s, c, user)
            finally:
                s.busy -= 1
        async with s.lock:
            if not self.registry.live(s) or not self._in_place(s, c, user, where):
                return Answer(t(lang, "popup.stale"))
            if s.paused:
                return Answer(t(lang, "popup.paused"))
            s.pressed[user.id] = self.clock()  # (no "your move" ping for a busy presser)
            if c.verb in cb.KEEPER_VERBS:  # the keepers' controls (keepers.py)
                return await self.keepers.press(s, c, user, where)
            if s.status == "lobby":
                saved = self.owner.copy(s)
                try:
                    return await self.lobby.lobby_press(s, c, user)
                except (VersionConflict, StatusConflict):
                    self.owner.undo(s, saved)
                    await self.lobby.reload_lobby(s)
                    return Answer(t(lang, "popup.stale"))
                except StorageError as e:
                    log.warning("game %s: a lobby change was not stored: %s", s.game_id, e)
                    self.owner.undo(s, saved)
                    return Answer(t(lang, "guard.not_saved"), alert=True)
            return await self.table.game_press(s, c, user, reply)

    @staticmethod
    def _in_place(s: Session, c: cb.Callback, user: UserRef, where: Where) -> bool:
        """Is the press on a message where this button is shown?  Hand buttons (moves) live
        in the presser's own private chat; lobby and table buttons in the game's chat.  An
        inline table (inline.py) has no chat: its one button with a game's data (the score)
        on its own inline message only, and no keepers' controls (they talk in a chat)."""
        if where.inline_id is not None:
            return s.inline == where.inline_id and c.verb == cb.SCORE
        if where.chat_id is None:
            return False
        if c.verb in (cb.ACT, cb.HINT, cb.PAGE):
            return where.chat_id == user.id
        if is_inline_place(s.chat_id) and c.verb in cb.KEEPER_VERBS:
            return False
        return where.chat_id == s.chat_id
