"""The lobby room: opening a table (or a solo game), seats, computers, the rules menu, start."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
from typing import Any

from bot.engine.game import new_game
from bot.engine.rules import (
    CLASSIC,
    PRESETS,
    RULE_IDS,
    RULE_SPECS,
    Rules,
    RulesError,
    make_rules,
    rules_from_dict,
)
from bot.i18n import Lang, esc, norm_lang, t
from bot.tg.model import (
    PACES,
    SeatInfo,
    is_inline_place,
    seats_from_json,
    seats_json,
)
from bot.tg.rooms.base import Kit
from bot.tg.rooms.events import GameOver, GameStarted
from bot.tg.rooms.owner import TableOwner
from bot.tg.rooms.session import (
    Answer,
    ChatKind,
    ChatRef,
    Messages,
    Session,
    Settings,
    UserRef,
    Where,
    lobby_key,
    read_table_json,
)
from bot.tg.view import callbacks as cb
from bot.tg.view import inline as RI
from bot.tg.view import render as R
from storage import (
    ActiveGameConflict,
    StatusConflict,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)


class LobbyRoom:
    """Lobbies, the start of a game, its final sheet and what follows it (rematch)."""

    def __init__(self, kit: Kit, owner: TableOwner) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.owner = owner

    def lobby_info(self, s: Session) -> R.LobbyInfo:
        return R.LobbyInfo(s.game_id, s.lobby_rev, s.rules, s.labels(), s.level, s.note, s.page,
                           s.forced, s.settings.hints, s.pace,
                           webapp=self.config.webapp_url if s.solo else "",
                           link="" if s.solo else self.config.table_link(s.game_id))

    def show_lobby(self, s: Session) -> None:
        if is_inline_place(s.chat_id):  # an inline table: its one message, edited
            if s.inline is not None:
                self.owner.show_inline(s, RI.render_invite(
                    s.lang, [x.name for x in s.seats], s.rules.players,
                    self.config.table_link(s.game_id)))
            return
        info = self.lobby_info(s)
        content = R.render_solo_setup(s.lang, info) if s.solo and s.page in ("", "q") \
            else R.render_lobby(s.lang, info)

        def sent(mid: int, digest: str, new: bool) -> None:
            self.owner.lobby_shown(s, mid, digest)

        self.outbox.put(s.chat_id, lobby_key(s.game_id), content, on_sent=sent,
                        thread=s.thread_id)

    async def default_rules(self, chat_id: int) -> Rules:
        row = await self.storage.get_chat(chat_id)
        if row is not None and row.default_rules:
            try:
                return rules_from_dict(json.loads(row.default_rules))
            except (RulesError, ValueError):
                log.warning("chat %s: stored default rules are not valid", chat_id)
        return CLASSIC

    async def open_lobby(self, chat: ChatRef, user: UserRef, lang: Lang, rules: Rules) -> None:
        urow = await self.storage.get_user(user.id)
        seats = []
        if urow is not None and urow.started and not urow.blocked:
            seats.append(SeatInfo("human", user.id, user.name, ""))
        for _ in range(5):
            code = self.config.code()
            try:
                gid = await self.storage.create_game(
                    chat.id, user.id, rules=rules.model_dump_json(), seed=self.config.seed(),
                    seats=seats_json(seats), lobby_code=code, thread_id=chat.thread_id)
                break
            except StorageError as e:
                if isinstance(e, ActiveGameConflict):
                    self.kit.reply(chat.id, t(lang, "newgame.exists"), thread=chat.thread_id)
                    return
                continue
        else:  # pragma: no cover - ten random characters never collide five times
            raise RuntimeError("no free lobby code")
        game = await self.storage.get_game(gid)
        assert game is not None
        note = "" if seats else t(lang, "lobby.creator_not_started", name=esc(user.name))
        s = Session(gid, chat.id, chat.kind, lang, user.id, "lobby", rules, game.seed, seats,
                    lobby_rev=game.lobby_rev, lobby_code=code, level=self.config.computer_level,
                    title=chat.title, thread_id=chat.thread_id, note=note)
        self.registry.register(s)
        self.show_lobby(s)

    async def open_inline(self, chat_id: int, inline_message_id: str, user: UserRef,
                          lang: Lang) -> Answer:
        """The first «🪑 Сесть» on an invitation sent through inline mode (inline.py; the
        caller holds the place's lock): the table of that message is made — a synthetic
        chat row at ``chat_id`` (``model.inline_place``), a lobby there with the presser
        seated and the inline message's id stored with it at once (every later press finds
        the table by it, a restart too) — and the message shows it."""
        await self.storage.upsert_chat(chat_id, "group", language=lang)
        rules = CLASSIC
        seats = [SeatInfo("human", user.id, user.name, "")]
        for _ in range(5):
            code = self.config.code()
            try:
                gid = await self.storage.create_game(
                    chat_id, user.id, rules=rules.model_dump_json(), seed=self.config.seed(),
                    seats=seats_json(seats), lobby_code=code)
                break
            except ActiveGameConflict:  # (another process made it meanwhile)
                return Answer(t(lang, "popup.stale"))
            except StorageError:
                continue
        else:  # pragma: no cover - ten random characters never collide five times
            raise RuntimeError("no free lobby code")
        game = await self.storage.get_game(gid)
        assert game is not None
        s = Session(gid, chat_id, "group", lang, user.id, "lobby", rules, game.seed, seats,
                    lobby_rev=game.lobby_rev, lobby_code=code, level=self.config.computer_level,
                    title=t(lang, "inline.name"), messages=Messages(inline=inline_message_id))
        await self.owner.write(s)  # (the inline message's id: before anything is shown)
        self.registry.register(s)
        self.show_lobby(s)
        return Answer()

    async def solo_setup(self, chat: ChatRef, user: UserRef, lang: Lang, rules: Rules) -> None:
        """``/newgame`` in private: a message that offers the computers' level and the table
        size as buttons, and "Play"; the computers take their seats when it is pressed."""
        seats = [SeatInfo("human", user.id, user.name, "")]
        level = self.config.computer_level
        try:
            gid = await self.storage.create_game(chat.id, user.id, rules=rules.model_dump_json(),
                                                 seed=self.config.seed(), seats=seats_json(seats))
        except ActiveGameConflict:
            self.kit.reply(chat.id, t(lang, "newgame.exists"))
            return
        game = await self.storage.get_game(gid)
        assert game is not None
        s = Session(gid, chat.id, "private", lang, user.id, "lobby", rules, game.seed, seats,
                    lobby_rev=game.lobby_rev, level=level)
        self.registry.register(s)
        self.show_lobby(s)

    async def solo(self, chat: ChatRef, user: UserRef, lang: Lang, rules: Rules) -> None:
        seed, level = self.config.seed(), self.config.computer_level
        draft = Session(0, chat.id, "private", lang, user.id, "lobby", rules, seed,
                        [SeatInfo("human", user.id, user.name, "")], level=level)
        while len(draft.seats) < rules.players:
            self.owner.seat(draft, SeatInfo("computer", 0, self.kit.computer_name(draft), level))
        try:
            gid = await self.storage.create_game(chat.id, user.id, rules=rules.model_dump_json(),
                                                 seed=seed, seats=seats_json(draft.seats))
        except ActiveGameConflict:
            self.kit.reply(chat.id, t(lang, "newgame.exists"))
            return
        await self.start(dataclasses.replace(draft, game_id=gid))

    async def lobby_press(self, s: Session, c: cb.Callback, user: UserRef) -> Answer:
        lang = s.lang
        if s.status != "lobby" or c.verb in (cb.ACT, cb.HAND, cb.SCORE, cb.PAGE):
            return Answer(t(lang, "popup.stale"))
        verb = c.verb
        if verb == cb.JOIN:
            return await self._join(s, user)
        if verb == cb.LEAVE:
            seat = s.seat_of(user.id)
            if seat < 0:
                return Answer(t(lang, "popup.not_seated"))
            self.owner.unseat(s, seat)
            self.owner.note(s, t(lang, "lobby.left", name=esc(user.name)))
            return await self.saved(s)
        manager = await self.people.may_manage(s, user)
        if verb == cb.MENU:
            page = R.menu_page(c.arg)
            if page is None:
                return Answer(t(lang, "popup.unknown"))
            if page and not manager:
                return Answer(t(lang, "popup.only_creator"))
            s.page = page
            self.show_lobby(s)
            return Answer()
        if not manager:
            return Answer(t(lang, "popup.only_creator"))
        if c.version != s.lobby_rev and verb in (cb.SET, cb.PLAYERS, cb.PRESET, cb.LEVEL,
                                                 cb.FORCED, cb.HINTS, cb.PACE):
            return Answer(t(lang, "popup.stale"))
        if verb == cb.ADD_AI:
            if len(s.seats) >= s.rules.players:
                return Answer(t(lang, "popup.table_full"))
            self.owner.seat(s, SeatInfo("computer", 0, self.kit.computer_name(s), s.level))
            self.owner.note(s, "")
            return await self.saved(s)
        if verb == cb.DROP_AI:
            for i in range(len(s.seats) - 1, -1, -1):
                if s.seats[i].computer:
                    self.owner.unseat(s, i)
                    self.owner.note(s, "")
                    return await self.saved(s)
            return Answer(t(lang, "popup.no_computer"))
        if verb == cb.LEVEL:
            if c.arg not in R.LEVELS:
                return Answer(t(lang, "popup.unknown"))
            self.owner.set_level(s, c.arg)
            if s.solo and s.page == "q":  # the solo setup's last question: the game begins
                return await self.lobby_press(s, cb.Callback(c.game_id, c.version, cb.START, ""),
                                              user)
            return await self.saved(s)
        # table settings (not rules), kept with the message ids: stored before the press is
        # answered (a kill after the answer must not lose them)
        if verb == cb.FORCED:
            await self.owner.change_settings(s, forced=c.arg == "1")
            return await self.saved(s)
        if verb == cb.HINTS:  # 💡 on the hand messages
            await self.owner.change_settings(s, hints=c.arg == "1")
            return await self.saved(s)
        if verb == cb.PACE:  # the turn's time (model.PACES)
            if c.arg not in PACES or s.solo:
                return Answer(t(lang, "popup.unknown"))
            await self.owner.change_settings(s, pace=c.arg)
            return await self.saved(s)
        if verb == cb.PLAYERS:
            if s.solo:  # the solo setup asks one question a message: the level next
                s.page = "q"
            return await self._change_rules(s, "players", int(c.arg))
        if verb == cb.PRESET:
            if c.arg not in PRESETS:
                return Answer(t(lang, "popup.unknown"))
            return await self._set_rules(s, make_rules(c.arg, players=s.rules.players))
        if verb == cb.SET:
            idx_s, opt_s = c.arg.split(".")
            idx, opt = int(idx_s), int(opt_s)
            if idx >= len(RULE_IDS) or opt >= len(RULE_SPECS[RULE_IDS[idx]].options):
                return Answer(t(lang, "popup.unknown"))
            rid = RULE_IDS[idx]
            return await self._change_rules(s, rid, RULE_SPECS[rid].options[opt])
        if verb == cb.START:
            if s.solo:  # the computers sit down now, at the level chosen
                for i in range(len(s.seats) - 1, 0, -1):
                    self.owner.unseat(s, i)
                while len(s.seats) < s.rules.players:
                    self.owner.seat(s, SeatInfo("computer", 0, self.kit.computer_name(s),
                                                s.level))
            if len(s.seats) < s.rules.players:
                return Answer(t(lang, "popup.not_full"))
            await self.start(s)
            return Answer()
        if verb == cb.CANCEL:
            await self.owner.end_lobby(s, "cancel")
            self.close_lobby(s, "lobby.cancelled")
            return Answer()
        return Answer(t(lang, "popup.unknown"))

    async def _join(self, s: Session, user: UserRef) -> Answer:
        lang = s.lang
        if s.seat_of(user.id) >= 0:
            return Answer(t(lang, "popup.already_seated"))
        if len(s.seats) >= s.rules.players:
            return Answer(t(lang, "popup.table_full"))
        row = await self.storage.get_user(user.id)
        if row is None or not row.started or row.blocked:
            return Answer(url=f"https://t.me/{self.config.bot_username}?start=join_{s.lobby_code}")
        self.owner.seat(s, SeatInfo("human", user.id, user.name, ""))
        self.owner.note(s, t(lang, "lobby.joined", name=esc(user.name)))
        answer = await self.saved(s)
        if is_inline_place(s.chat_id) and s.status == "lobby" \
                and len(s.seats) >= s.rules.players and answer == Answer():
            await self.start(s)  # an inline table begins when its seats are taken
        return answer

    async def saved(self, s: Session) -> Answer:
        try:
            await self.owner.save_lobby(s)
        except (VersionConflict, StatusConflict):
            await self.reload_lobby(s)
            return Answer(t(s.lang, "popup.stale"))
        self.show_lobby(s)
        return Answer()

    async def reload_lobby(self, s: Session) -> None:
        game = await self.storage.get_game(s.game_id)
        if game is None or game.status != "lobby":
            self.registry.unregister(s)
            return
        self.owner.reload_lobby(s, game)
        self.show_lobby(s)

    async def _change_rules(self, s: Session, rid: str, value: Any) -> Answer:
        data = s.rules.model_dump()
        data[rid] = value
        fixed = fit_rules(data, rid)
        if isinstance(fixed, RulesError):
            return Answer(R.popup(t(s.lang, "popup.bad_rule",
                                    reason=R.refusal_text(s.lang, fixed))))
        return await self._set_rules(s, fixed)

    async def _set_rules(self, s: Session, rules: Rules) -> Answer:
        if len(s.seats) > rules.players:
            return Answer(t(s.lang, "popup.too_many_seated"))
        self.owner.change_rules(s, rules)
        self.owner.note(s, "")
        return await self.saved(s)

    async def join_by_code(self, user: UserRef, code: str) -> None:
        """``/start join_<code>`` in private: seat the user at that lobby."""
        lang = self.people.lang_for_user(user.id)
        game = await self.storage.game_by_lobby_code(code)
        s = self.registry.get(game.game_id) if game is not None else None
        if s is None or s.status != "lobby":
            self.kit.reply(user.id, t(lang, "join.gone"))
            return
        async with s.lock:
            if s.status != "lobby":
                self.kit.reply(user.id, t(lang, "join.gone"))
                return
            answer = await self._join(s, user)
        if answer.text:
            self.kit.reply(user.id, answer.text)
        else:
            self.kit.reply(user.id, t(lang, "join.done", title=esc(s.title or "—")))

    async def start(self, s: Session) -> None:
        """The lobby becomes a game: stored and shown by the owner's ``GameStarted``
        (``started`` here, then the table's)."""
        await self.owner.start(s, new_game(s.rules, s.seed))
        if is_inline_place(s.chat_id):  # (no chat: no default rules to keep)
            return
        with contextlib.suppress(StorageError):
            await self.storage.set_default_rules(s.chat_id, s.rules.model_dump_json())

    def started(self, e: GameStarted) -> None:
        """A game began (``GameStarted``): a solo setup message keeps what was chosen,
        without buttons."""
        s = e.session
        if s.solo and self.owner.forget_lobby(s) is not None:
            self.outbox.put(s.chat_id, lobby_key(s.game_id),
                            R.render_solo_started(s.lang, self.lobby_info(s)), final=True)

    def close_lobby(self, s: Session, text_key: str | None) -> None:
        """Forget a lobby whose end is stored (cancelled, expired, the bot removed); its
        message says ``text_key`` (None: nothing more is sent)."""
        self.registry.unregister(s)
        if text_key is not None and is_inline_place(s.chat_id):
            if s.inline is not None:  # (a new table is opened by ``@bot``, not /newgame)
                text = t(s.lang, "inline.expired", bot=esc(self.config.bot_username)) \
                    if text_key == "guard.expired_lobby" else t(s.lang, text_key)
                self.owner.show_inline(s, RI.render_inline_end(s.lang, text))
        elif text_key is not None:
            self.outbox.put(s.chat_id, lobby_key(s.game_id), R.Rendered(t(s.lang, text_key)),
                            final=True, thread=s.thread_id)

    # ================================================================== the end of a game

    def final_sheet(self, e: GameOver) -> None:
        """The end of a game (``GameOver``): the final score sheet with "Rematch" and "New
        table" buttons, in the game's chat (a group, or the private chat of a solo game)."""
        s = e.session
        st = s.state
        assert st is not None
        text = R.render_game_end(s.lang, s.game_id, list(e.rows), s.labels(), st.winner)
        if is_inline_place(s.chat_id):  # an inline table ends on its message (no rematch:
            if s.inline is not None:  # its buttons would need a chat)
                self.owner.show_inline(s, RI.render_inline_end(
                    s.lang, R.split_text(text)[-1], self.config.table_link(s.game_id)))
            return
        self.kit.reply(s.chat_id, text, R.end_keyboard(s.lang, s.game_id), thread=s.thread_id)

    async def end_press(self, c: cb.Callback, user: UserRef, where: Where) -> Answer:
        """"Rematch" (the same seats and rules, the next dealer) or "New table" pressed on
        the final sheet of a game in ``where``'s chat."""
        lang = self.people.lang_for_user(user.id)
        game = await self.storage.get_game(c.game_id)
        if game is None or game.chat_id != where.chat_id:
            return Answer(t(lang, "guard.wrong_place"))
        chat_id, thread = game.chat_id, game.thread_id  # the same place (forum topic)
        async with self.registry.chat_lock(chat_id):
            if self.registry.session_of_chat(chat_id, thread) is not None \
                    or await self.storage.active_game(chat_id, thread_id=thread) is not None:
                return Answer(t(lang, "end.already"))
            chat = await self.storage.get_chat(chat_id)
            clang = norm_lang(chat.language if chat else None)
            kind: ChatKind = chat.kind if chat else ("private" if chat_id > 0 else "group")
            ref = ChatRef(chat_id, kind, thread_id=thread)
            rules = rules_from_dict(json.loads(game.rules))
            if c.verb == cb.NEW_TABLE:
                if kind == "private":
                    await self.solo_setup(ref, user, clang, rules)
                else:
                    await self.open_lobby(ref, user, clang, rules)
                return Answer()
            seats = seats_from_json(game.seats)
            if not any(x.kind == "human" and x.user_id == user.id for x in seats):
                return Answer(t(lang, "end.not_seated"))
            for i, x in enumerate(seats):  # a person who cannot be written to: a computer
                if x.kind == "human":
                    row = await self.storage.get_user(x.user_id)
                    if row is None or not row.started or row.blocked:
                        seats[i] = SeatInfo("computer", 0, x.name, self.config.computer_level)
            stored = read_table_json(game.message_ids)
            level = stored.level or self.config.computer_level
            seed = self._next_dealer_seed(rules, game.seed)
            gid = await self.storage.create_game(
                chat_id, user.id, rules=rules.model_dump_json(), seed=seed,
                seats=seats_json(seats),
                lobby_code=None if kind == "private" else self.config.code(), thread_id=thread)
            created = await self.storage.get_game(gid)
            assert created is not None
            s = Session(gid, chat_id, kind, clang, user.id, "lobby", rules, seed, seats,
                        lobby_rev=created.lobby_rev, level=level, title=stored.title,
                        thread_id=thread,  # (the rematch's pace too)
                        settings=Settings(pace=stored.settings.pace))
            self.registry.register(s)
            await self.start(s)
        return Answer()

    def _next_dealer_seed(self, rules: Rules, seed: int) -> int:
        """A seed whose first dealer is the seat after the last game's first dealer (the
        deals come from the seed, so the record stays a seed and moves)."""
        want = (new_game(rules, seed).dealer + 1) % rules.players
        while True:
            candidate = self.config.seed()
            if new_game(rules, candidate).dealer == want:
                return candidate


# ====================================================================== rules helpers


def fit_rules(data: dict[str, Any], changed: str) -> Rules | RulesError:
    """The rules with ``changed`` set, resetting to their defaults the rules that no longer
    fit it ("golden_raise needs golden_round"); the refusal (codes for ``refusal_text``)
    when that is impossible (the changed rule itself needs another one)."""
    defaults = CLASSIC.model_dump()
    work = dict(data)
    first: RulesError | None = None
    for _ in range(len(RULE_IDS) + 1):
        try:
            return rules_from_dict(work)
        except RulesError as e:
            first = first or e
            resets = {str(p.params["rule"]) for p in e.problems if "rule" in p.params}
        resets = {r for r in resets if r in defaults and r != changed and work[r] != defaults[r]}
        if not resets:
            return first
        for r in resets:
            work[r] = defaults[r]
    return first or RulesError("the rules cannot be fitted")
