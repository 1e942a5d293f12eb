"""The keepers' room (issue 19): what the keepers of a table — its creator and the group's
admins, anonymous admins too (``People.may_manage``) — may do besides /stop:

* hand an absent person's seat to the computer now, or give it back (a seat-control record
  ``{"s", "ctl": "auto" | "human", "why": "keeper", "keeper", "kid"}``; the person takes the
  seat back by pressing any button of the game, as after timeouts);
* let a latecomer sit in a computer's seat (or one whose person left) during the game: the
  latecomer presses 🪑 on the table, a line with "let in" / "refuse" is posted for the
  keepers (a keeper who presses 🪑 sits down at once), or a keeper answers a person's
  message with /sit; stored as ``{"s", "ctl": "sit", "uid", "name", "keeper", "kid"}``;
* stop the game from the table's ⚙️ menu (as /stop does);
* remove a person from the lobby (the lobby's 🚪 page, or /kick answering their message or
  naming them); the person gets one short private line.

Every change is stored before it is shown (the records replay: ``model.replay``), and the
table shows it in one line naming the keeper.  Buttons are bound to the game, its chat
(``buttons.py``) and the seat revision (``view/keepers.seat_rev``) or the lobby revision:
a forged, stale or misplaced press is answered and changes nothing.  Everybody else gets a
clear refusal.
"""

from __future__ import annotations

import logging

from bot.i18n import Lang, esc, t
from bot.tg.model import (
    KEEPER,
    deal_number,
)
from bot.tg.rooms.base import Kit
from bot.tg.rooms.events import SeatChanged
from bot.tg.rooms.lobby import LobbyRoom
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.session import (
    Answer,
    ChatRef,
    Session,
    UserRef,
    Where,
    clean_name,
    reminder_key,
)
from bot.tg.rooms.table import TableRoom
from bot.tg.view import callbacks as cb
from bot.tg.view import keepers as K
from bot.tg.view import render as R
from storage import StatusConflict, StorageError, VersionConflict

log = logging.getLogger(__name__)


def request_key(game_id: int, user_id: int) -> str:
    """The outbox slot of a latecomer's request line."""
    return f"k{game_id}:{user_id}"


class KeepersRoom:
    """The keepers' controls of tables and lobbies (buttons and /auto, /sit, /kick)."""

    def __init__(self, kit: Kit, owner: TableOwner, table: TableRoom, lobby: LobbyRoom) -> None:
        self.kit = kit
        self.owner = owner
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.table = table
        self.lobby = lobby
        self.asked: set[tuple[int, int]] = set()  # (game, user): a request line is out

    # ================================================================== buttons

    async def press(self, s: Session, c: cb.Callback, user: UserRef, where: Where) -> Answer:
        """A keepers' button (``cb.KEEPER_VERBS``) on the game's chat; the caller holds the
        chat's lock and checked the place."""
        lang = self.people.lang_for_user(user.id)
        if s.status == "lobby":
            return await self._lobby_press(s, c, user, lang)
        if s.status != "playing" or s.state is None or s.solo:
            return Answer(t(lang, "popup.stale"))
        try:
            return await self._table_press(s, c, user, where, lang)
        except (VersionConflict, StatusConflict):
            await self.table.reload(s)
            return Answer(t(lang, "popup.stale"))

    @staticmethod
    def _keeper(s: Session, user: UserRef) -> tuple[int, str]:
        """Who decided, as the table names them (an anonymous admin: "the group's admin")."""
        return (user.id, t(s.lang, "keepers.anonymous") if user.anonymous_admin else user.name)

    async def _table_press(self, s: Session, c: cb.Callback, user: UserRef, where: Where,
                           lang: Lang) -> Answer:
        # what changes a seat or ends the game is bound to the seats it was shown for; what
        # only shows something (the menu, a request for the keepers) is not: a keyboard
        # Telegram has not redrawn yet (a slow group) still opens the current menu
        stale = c.version != K.seat_rev(s.seats)
        if c.verb == cb.SIT:
            return await self._ask(s, user, lang)
        if c.verb not in (cb.KMENU, cb.KAUTO, cb.KBACK, cb.KSTOP, cb.SIT_OK, cb.SIT_NO):
            return Answer(t(lang, "popup.stale"))
        if not await self.people.may_manage(s, user):
            return Answer(t(lang, "keepers.only"), alert=True)
        if stale and c.verb in (cb.KAUTO, cb.KBACK, cb.KSTOP, cb.SIT_OK):
            return Answer(t(lang, "keepers.stale"))
        keeper = (user.id, user.name)
        if c.verb == cb.KMENU:
            if c.arg not in K.MENU_PAGES:
                return Answer(t(lang, "popup.unknown"))
            self._menu(s, c.arg, where)
            return Answer()
        if c.verb in (cb.KAUTO, cb.KBACK):
            seat = int(c.arg)
            if seat >= len(s.seats):
                return Answer(t(lang, "popup.unknown"))
            want = "human" if c.verb == cb.KAUTO else "auto"
            if K.seat_state(s.seats[seat]) != want:
                return Answer(t(lang, "keepers.stale"))
            self._menu(s, "", where)
            if c.verb == cb.KAUTO:
                await self.hand_over(s, seat, keeper)
            else:
                await self.give_back(s, seat, keeper)
            return Answer()
        if c.verb == cb.KSTOP:
            if s.keepers_menu != "s":  # asked first ("stop the game?")
                return Answer(t(lang, "keepers.stale"))
            self._menu(s, "", where)
            await self.stop(s, keeper)
            return Answer()
        if c.verb == cb.SIT_NO:
            uid = int(c.arg)
            self.asked.discard((s.game_id, uid))
            name = await self._name_of(uid)
            self._close_request(s, uid, where, R.Rendered(
                t(s.lang, "keepers.request_refused", name=esc(name), keeper=esc(user.name))))
            return Answer()
        seat_s, uid_s = c.arg.split(".")  # SIT_OK
        seat, uid = int(seat_s), int(uid_s)
        if seat not in K.free_seats(s.seats):
            return Answer(t(lang, "keepers.stale"))
        refused = await self._may_sit(s, uid, lang)
        if refused is not None:
            return Answer(refused, alert=True)
        name = await self._name_of(uid)
        was = self._seat_title(s, seat)
        await self.sit(s, seat, uid, name, keeper)
        self._close_request(s, uid, where, R.Rendered(
            t(s.lang, "keepers.request_done", name=esc(name), keeper=esc(user.name),
              seat=esc(was))))
        return Answer()

    def _menu(self, s: Session, page: str, where: Where) -> None:
        """Show the keepers' menu at ``page`` ("" closes it): a message of its own in the
        table's chat and topic, never the table's keyboard (which everybody uses).  ⚙️ on
        the table posts it anew below (the one open before goes); the menu's own buttons
        edit it in place; it goes when closed, when a keeper acted, and with its deal
        (``TableRoom.refresh``)."""
        key = K.menu_key(s.game_id)
        shown = self.outbox.message_id(s.chat_id, key)
        on_menu = where.message_id is not None and (
            where.message_id == shown or (not s.keepers_menu and page in ("", "s")))
        if on_menu and shown is None and where.message_id is not None:
            # a menu this process does not know (shown before a restart): it is this one
            self.outbox.known(s.chat_id, key, where.message_id, None, thread=s.thread_id)
        if not page or not on_menu:
            self.outbox.withdraw(s.chat_id, key)
        s.keepers_menu = page
        if page:
            st = s.state
            assert st is not None
            info = self.table.info(s, deal_number(st)).keepers
            assert info is not None
            self.outbox.put(s.chat_id, key, K.render_menu(s.lang, s.game_id, s.labels(), info,
                                                          page), thread=s.thread_id)

    async def _ask(self, s: Session, user: UserRef, lang: Lang) -> Answer:
        """A latecomer pressed 🪑: a keeper sits down at once; anyone else asks the keepers
        with a line in the chat (once)."""
        if s.seat_of(user.id) >= 0:
            return Answer(t(lang, "keepers.already_seated"))
        free = K.free_seats(s.seats)
        if not free:
            return Answer(t(lang, "keepers.no_free"))
        row = await self.storage.get_user(user.id)
        if row is None or not row.started or row.blocked:  # the cards go to the private chat
            if s.lobby_code:
                return Answer(url=f"https://t.me/{self.config.bot_username}"
                                  f"?start=seat_{s.lobby_code}")
            return Answer(t(lang, "keepers.start_first"), alert=True)
        if await self.people.may_manage(s, user):
            await self.sit(s, free[0], user.id, user.name, (user.id, user.name))
            return Answer()
        if (s.game_id, user.id) in self.asked:
            return Answer(t(lang, "keepers.asked_already"))
        self._post_request(s, user)
        return Answer(t(lang, "keepers.asked"))

    @staticmethod
    def _seat_title(s: Session, seat: int) -> str:
        """A free seat as the request line names it (plain text): "🤖 Вера"."""
        name = s.labels()[seat].name
        return f"🤖 {name}" if s.seats[seat].computer else name

    def _post_request(self, s: Session, user: UserRef) -> None:
        free = [(i, self._seat_title(s, i)) for i in K.free_seats(s.seats)]
        self.asked.add((s.game_id, user.id))
        content = R.Rendered(K.request_text(s.lang, user.name, free),
                             K.request_keyboard(s.lang, s.game_id, K.seat_rev(s.seats),
                                                user.id, free))
        self.outbox.put(s.chat_id, request_key(s.game_id, user.id), content,
                        thread=s.thread_id)

    def _close_request(self, s: Session, uid: int, where: Where,
                       content: R.Rendered) -> None:
        """The request line says what was decided and loses its buttons."""
        self.asked.discard((s.game_id, uid))
        key = request_key(s.game_id, uid)
        if where.message_id is not None:  # (after a restart the slot is not known here)
            self.outbox.known(s.chat_id, key, where.message_id, None, override=True,
                              thread=s.thread_id)
        self.outbox.put(s.chat_id, key, content, final=True, thread=s.thread_id)

    async def _name_of(self, user_id: int) -> str:
        row = await self.storage.get_user(user_id)
        if row is None:
            return str(user_id)
        return clean_name(row.first_name) or clean_name(row.username or "") or str(user_id)

    async def _may_sit(self, s: Session, user_id: int, lang: Lang) -> str | None:
        """Why ``user_id`` may not take a seat now (None: they may)."""
        if s.seat_of(user_id) >= 0:
            return t(lang, "keepers.seated_already")
        row = await self.storage.get_user(user_id)
        if row is None or not row.started or row.blocked:
            name = (row.first_name if row else "") or str(user_id)
            return t(lang, "keepers.not_started", name=esc(name),
                     bot=self.config.bot_username)
        return None

    async def _lobby_press(self, s: Session, c: cb.Callback, user: UserRef,
                           lang: Lang) -> Answer:
        if c.verb not in (cb.KMENU, cb.KICK) or (c.verb == cb.KMENU and c.arg not in ("", "k")):
            return Answer(t(lang, "popup.stale"))
        if not await self.people.may_manage(s, user):
            return Answer(t(lang, "keepers.only"), alert=True)
        if c.version != s.lobby_rev:
            return Answer(t(lang, "popup.stale"))
        if c.verb == cb.KMENU:
            s.page = c.arg
            self.lobby.show_lobby(s)
            return Answer()
        seat = int(c.arg)
        if seat >= len(s.seats) or s.seats[seat].kind != "human":
            return Answer(t(lang, "popup.stale"))
        await self.remove(s, seat, (user.id, user.name))
        return Answer()

    # ================================================================== the actions

    async def hand_over(self, s: Session, seat: int, keeper: tuple[int, str]) -> None:
        """A person's seat is played by the computer now (the caller holds the lock); the
        person is told in private and takes it back by pressing any button of the game."""
        await self.table.set_auto(s, seat, True, KEEPER, keeper)
        self._menu_again(s)
        who = s.seats[seat]
        plang = self.people.lang_for_user(who.user_id)
        s.reminded.add(seat)  # the line goes when the seat is theirs again (table.py)
        self.outbox.put(who.user_id, reminder_key(s.game_id, seat), R.Rendered(
            t(plang, "keepers.private_auto", title=esc(s.title or "—"),
              keeper=esc(keeper[1]))))

    def _menu_again(self, s: Session) -> None:
        """An open keepers' menu shows the seats as they are now (a change by command)."""
        if s.keepers_menu:
            mid = self.outbox.message_id(s.chat_id, K.menu_key(s.game_id))
            self._menu(s, s.keepers_menu, Where(s.chat_id, mid))

    async def give_back(self, s: Session, seat: int, keeper: tuple[int, str]) -> None:
        await self.table.give_back(s, seat, keeper)
        self._menu_again(s)
        who = s.seats[seat]
        plang = self.people.lang_for_user(who.user_id)
        s.reminded.add(seat)  # deleted with the person's next move (table.py)
        self.outbox.put(who.user_id, reminder_key(s.game_id, seat), R.Rendered(
            t(plang, "keepers.private_back", title=esc(s.title or "—"),
              keeper=esc(keeper[1]))))

    async def sit(self, s: Session, seat: int, user_id: int, name: str,
                  keeper: tuple[int, str]) -> None:
        """``user_id`` takes the computer's seat ``seat`` for the rest of the game (stored
        first by the owner; the caller holds the lock and checked that they may); shown by
        ``seat_changed`` here, then the table's."""
        await self.owner.sit(s, seat, user_id, name, keeper)

    def seat_changed(self, e: SeatChanged) -> None:
        """A seat changed hands (``SeatChanged``): a latecomer who sat down gets the line
        first, then the hand below it (the table's ``seat_changed`` follows)."""
        if e.change != "sit" or e.keeper is None:
            return
        s, seat = e.session, e.seat
        user_id = s.seats[seat].user_id
        self.asked.discard((s.game_id, user_id))
        if s.keepers_menu:
            self._menu(s, "", Where(s.chat_id))
        s.reminded.discard(seat)
        s.timeouts.pop(seat, None)
        plang = self.people.lang_for_user(user_id)
        self.kit.reply(user_id, t(plang, "keepers.private_sat", title=esc(s.title or "—"),
                                  keeper=esc(e.keeper[1])))

    async def stop(self, s: Session, keeper: tuple[int, str]) -> None:
        await self.table.stop(s)
        self.kit.reply(s.chat_id, t(s.lang, "keepers.stopped", keeper=esc(keeper[1])),
                       thread=s.thread_id)

    async def remove(self, s: Session, seat: int, keeper: tuple[int, str]) -> None:
        """A person leaves the lobby by a keeper's decision (stored as the lobby's seats);
        they get one short private line."""
        saved = self.owner.copy(s)
        who = self.owner.unseat(s, seat)
        s.page = ""
        self.owner.note(s, t(s.lang, "keepers.removed_note", name=esc(who.name),
                             keeper=esc(keeper[1])))
        try:
            answer = await self.lobby.saved(s)
        except StorageError:
            self.owner.undo(s, saved)
            raise
        if answer.text:  # stale: the lobby was reloaded
            return
        if who.user_id != keeper[0]:
            plang = self.people.lang_for_user(who.user_id)
            self.kit.reply(who.user_id, t(plang, "keepers.removed_private",
                                          title=esc(s.title or "—"), keeper=esc(keeper[1])))

    # ================================================================== /start seat_<code>

    async def ask_by_code(self, user: UserRef, code: str) -> None:
        """``/start seat_<code>``: a latecomer who had not started the bot pressed 🪑; now
        they have, so the keepers are asked (or a keeper sits down)."""
        lang = self.people.lang_for_user(user.id)
        game = await self.storage.game_by_lobby_code(code)
        s = self.registry.get(game.game_id) if game is not None else None
        if s is None or s.status != "playing" or s.state is None:
            self.kit.reply(user.id, t(lang, "join.gone"))
            return
        async with s.lock:
            if not self.registry.live(s) or s.status != "playing":
                self.kit.reply(user.id, t(lang, "join.gone"))
                return
            answer = await self._ask(s, user, lang)
        if answer.text:
            self.kit.reply(user.id, esc(answer.text))

    # ================================================================== commands

    async def command(self, name: str, chat: ChatRef, user: UserRef, target: UserRef | None,
                      args: list[str]) -> None:
        """``/auto``, ``/sit`` and ``/kick`` in a group: answering a person's message
        (``target``) or naming a seat (its number or name)."""
        lang = await self.people.chat_lang(chat, user)
        async with self.registry.chat_lock(chat.id):
            s = self.registry.session_at(chat.place)
            if s is None or chat.kind == "private":
                self.kit.reply(chat.id, t(lang, "keepers.cmd_none"), thread=chat.thread_id)
                return
            if not await self.people.may_manage(s, user):
                self.kit.reply(chat.id, t(lang, "keepers.only"), thread=chat.thread_id)
                return
            keeper = self._keeper(s, user)
            text = await self._command(s, name, keeper, target, args, lang)
        if text:
            self.kit.reply(chat.id, text, thread=chat.thread_id)

    async def _command(self, s: Session, name: str, keeper: tuple[int, str],
                       target: UserRef | None, args: list[str], lang: Lang) -> str | None:
        if name == "kick":
            if s.status != "lobby":
                return t(lang, "keepers.cmd_kick_playing")
            seat = self._find_seat(s, target, args)
            if seat < 0 or s.seats[seat].kind != "human":
                return t(lang, "keepers.cmd_who")
            await self.remove(s, seat, keeper)
            return None
        if s.status != "playing" or s.state is None:
            return t(lang, "keepers.cmd_not_playing")
        if name == "sit":
            if target is None:
                return t(lang, "keepers.cmd_sit_how")
            free = K.free_seats(s.seats)
            if not free:
                return t(lang, "keepers.no_free")
            refused = await self._may_sit(s, target.id, lang)
            if refused is not None:
                return refused
            await self.sit(s, free[0], target.id, target.name, keeper)
            return None
        seat = self._find_seat(s, target, args)  # /auto
        state = K.seat_state(s.seats[seat]) if seat >= 0 else "computer"
        if state == "human":
            await self.hand_over(s, seat, keeper)
        elif state == "auto":
            await self.give_back(s, seat, keeper)
        else:
            return t(lang, "keepers.cmd_who")
        return None

    @staticmethod
    def _find_seat(s: Session, target: UserRef | None, args: list[str]) -> int:
        """The seat a command means: the person answered, or a seat's number or name."""
        if target is not None:
            return s.seat_of(target.id)
        word = " ".join(args).strip().casefold()
        if not word:
            return -1
        if word.isdigit():
            n = int(word) - 1
            return n if 0 <= n < len(s.seats) else -1
        for i, x in enumerate(s.seats):
            if x.kind == "human" and x.name.casefold() == word:
                return i
        return -1
