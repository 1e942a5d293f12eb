"""The games of all chats: load → check → apply → store → render → schedule.

One ``Session`` per active game (lobby or playing) lives in memory; the record in storage
(rules, seed, seats and the action log) is the truth, and a restart rebuilds every session by
replaying it.  Each session has a lock, so one game's actions run one at a time while other
chats never wait.  An accepted action is stored (``append_action``, one transaction) before
anybody is answered; then the messages are re-rendered from views and handed to the outbox,
the computer seats are driven and the turn timer is armed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import random
import string
import time
import unicodedata
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from telegram.error import TelegramError

from bot.engine.game import apply, new_game
from bot.engine.rules import (
    CLASSIC,
    PRESETS,
    RULE_IDS,
    RULE_SPECS,
    Rules,
    RulesError,
    make_rules,
    rule_problems,
    rules_from_dict,
)
from bot.engine.state import Action, GameState, IllegalAction, Phase
from bot.engine.views import public_view, view
from bot.i18n import Lang, esc, lang_of, norm_lang, t
from bot.tg import callbacks as cb
from bot.tg import render as R
from bot.tg.model import (
    BY_AUTO,
    BY_COMPUTER,
    BY_HUMAN,
    BY_TIMEOUT,
    Event,
    SeatInfo,
    control_record,
    deal_number,
    move_events,
    move_record,
    replay,
    seats_from_json,
    seats_json,
    sheet_row,
    snapshot,
)
from bot.tg.outbox import Outbox
from bot.tg.thinking import Thinker
from storage import (
    ActiveGameConflict,
    Game,
    Outcome,
    StatusConflict,
    Storage,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)

NEW_MESSAGE_SAVE = 0.0  # a new message's id is stored at once (and before the next move)
EDIT_SAVE = 20.0  # what an edited message shows is stored at most this late (for restarts)
BACKOFF_FIRST = 0.25  # seconds before the first retry of a failed background write
BACKOFF_MAX = 15.0  # the longest wait between two retries
SUPERVISOR_RESTARTS = 8  # restarts of a game's dying background tasks before giving up
NAME_LIMIT = 24  # characters of a person's name shown at the table
SWEEP_EVERY = 60.0  # seconds between two sweeps for idle lobbies and games
CACHE_LIMIT = 10_000  # entries of each in-memory cache (admins, languages, locks)

ChatKind = Literal["private", "group", "supergroup"]


def clean_name(raw: str, limit: int = NAME_LIMIT) -> str:
    """A name fit for the table: no control or format characters (bidi overrides,
    zero-width joiners, …), whitespace collapsed, at most ``limit`` characters.  It is still
    HTML-escaped where it is shown (``esc``)."""
    text = unicodedata.normalize("NFC", raw)
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif unicodedata.category(ch)[0] != "C":  # Cc control, Cf format, Cs, Co, Cn
            kept.append(ch)
    return " ".join("".join(kept).split())[:limit].strip()


@dataclass(frozen=True, slots=True)
class UserRef:
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    anonymous_admin: bool = False
    """A message sent on behalf of the group by an anonymous admin (``sender_chat`` is the
    group itself): it counts as an admin of that group."""

    @property
    def name(self) -> str:
        for raw in (self.first_name, self.username or ""):
            name = clean_name(raw)
            if name:
                return name
        return str(self.id)


@dataclass(frozen=True, slots=True)
class Where:
    """Where a button was pressed: the chat and message it is on (None for a message sent
    through inline mode, which carries ``inline_message_id`` and no chat)."""

    chat_id: int | None
    message_id: int | None = None

    @staticmethod
    def private(user_id: int) -> Where:
        return Where(user_id)


@dataclass(frozen=True, slots=True)
class ChatRef:
    id: int
    kind: ChatKind
    title: str = ""


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer to a button press (a popup line, or a URL to open)."""

    text: str | None = None
    url: str | None = None
    alert: bool = False


class Reply:
    """Answers one callback query exactly once (``soon``: in a task of its own)."""

    def __init__(self, send: Callable[[Answer], Awaitable[None]]) -> None:
        self._send = send
        self.done = False
        self.task: asyncio.Task[None] | None = None

    async def __call__(self, answer: Answer) -> None:
        if not self.done:
            self.done = True
            await self._send(answer)

    def soon(self, answer: Answer) -> None:
        if not self.done:
            self.task = asyncio.get_running_loop().create_task(self(answer))

    async def finish(self, answer: Answer) -> None:
        """Answer with ``answer`` unless answered already; wait for an early answer."""
        if self.task is not None:
            await self.task
        await self(answer)


@dataclass(eq=False)
class Session:
    game_id: int
    chat_id: int
    kind: ChatKind
    lang: Lang
    creator_id: int
    status: str
    rules: Rules
    seed: int
    seats: list[SeatInfo]
    lobby_rev: int = 0
    lobby_code: str | None = None
    level: str = "hard"
    page: str = ""
    note: str = ""
    title: str = ""
    state: GameState | None = None
    store_version: int = 0
    events: dict[int, list[Event]] = field(default_factory=dict)
    ids: dict[str, Any] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    driver: asyncio.Task[None] | None = None
    timer: asyncio.Task[None] | None = None
    shown_deal: int = 0
    ids_task: asyncio.Task[None] | None = None
    ids_dirty: bool = False
    ids_due: float = 0.0
    ids_urgent: bool = False  # a new message's id is not stored yet
    touched: float = 0.0  # clock() of the last lobby change or person's move (expiry)
    restarts: int = 0  # background tasks restarted by the supervisor

    @property
    def solo(self) -> bool:
        return self.kind == "private"

    def seat_of(self, user_id: int) -> int:
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.user_id == user_id:
                return i
        return -1

    def labels(self) -> tuple[R.SeatLabel, ...]:
        return tuple(R.SeatLabel(s.name, s.computer, s.auto) for s in self.seats)


class _Backoff:
    """Retries of a background write: the first failure is logged once (with the game id),
    the waits double up to BACKOFF_MAX, and the recovery is logged."""

    def __init__(self, game_id: int, what: str) -> None:
        self.game_id = game_id
        self.what = what
        self.delay = BACKOFF_FIRST
        self.failing = False

    def failed(self, error: BaseException) -> None:
        if not self.failing:
            log.warning("game %s: %s failed (%s); retrying until the database answers",
                        self.game_id, self.what, error)
            self.failing = True

    def ok(self) -> None:
        if self.failing:
            log.info("game %s: %s works again", self.game_id, self.what)
        self.failing = False
        self.delay = BACKOFF_FIRST

    async def wait(self) -> None:
        await asyncio.sleep(self.delay)
        self.delay = min(self.delay * 2, BACKOFF_MAX)


@dataclass(slots=True)
class _LobbyCopy:
    """What a lobby press may change, to put back when the change could not be stored."""

    seats: list[SeatInfo]
    rules: Rules
    level: str
    note: str
    page: str
    ids: dict[str, Any]

    @staticmethod
    def of(s: Session) -> _LobbyCopy:
        return _LobbyCopy([dataclasses.replace(x) for x in s.seats], s.rules, s.level, s.note,
                          s.page, json.loads(json.dumps(s.ids)))

    def restore(self, s: Session) -> None:
        s.seats, s.rules, s.level, s.note, s.page = (self.seats, self.rules, self.level,
                                                     self.note, self.page)
        s.ids = self.ids


def table_key(game_id: int, deal: int) -> str:
    return f"t{game_id}:{deal}"


def hand_key(game_id: int, seat: int, deal: int) -> str:
    return f"h{game_id}:{seat}:{deal}"


def lobby_key(game_id: int) -> str:
    return f"l{game_id}"


class GameService:
    def __init__(
        self,
        storage: Storage,
        outbox: Outbox,
        thinker: Thinker,
        *,
        bot: Any,
        turn_timeout: float = 90.0,
        move_delay: float = 1.0,
        computer_level: str = "hard",
        lobby_ttl: float = 30 * 60.0,
        game_ttl: float = 14 * 86400.0,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.storage = storage
        self.outbox = outbox
        self.thinker = thinker
        self.bot = bot
        self.turn_timeout = turn_timeout
        self.move_delay = move_delay
        self.computer_level = computer_level
        self.lobby_ttl = lobby_ttl
        self.game_ttl = game_ttl
        self.sweep_every = min(SWEEP_EVERY, lobby_ttl / 4, game_ttl / 4)
        self.rng = rng or random.SystemRandom()
        self.clock = clock
        self.bot_username = "bot"
        self.sessions: dict[int, Session] = {}
        self.by_chat: dict[int, int] = {}
        self.user_langs: dict[int, Lang] = {}
        self._chat_locks: dict[int, asyncio.Lock] = {}
        self._admins: dict[tuple[int, int], tuple[float, bool]] = {}
        self._closing = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        outbox.on_forbidden = self.user_blocked
        outbox.on_kicked = self.bot_kicked
        outbox.on_migrated = self.migrate

    # ================================================================== helpers

    def chat_lock(self, chat_id: int) -> asyncio.Lock:
        lock = self._chat_locks.get(chat_id)
        if lock is None:
            lock = self._chat_locks[chat_id] = asyncio.Lock()
        return lock

    def lang_for_user(self, user_id: int) -> Lang:
        return self.user_langs.get(user_id, "ru")

    async def _user(self, user: UserRef) -> None:
        lang = lang_of(user.language_code)
        self.user_langs.setdefault(user.id, lang)
        row = await self.storage.upsert_user(user.id, user.name,
                                             user.username, language=lang)
        if row.language is not None:
            self.user_langs[user.id] = norm_lang(row.language)

    async def _chat(self, chat: ChatRef, user: UserRef | None) -> Lang:
        lang = lang_of(user.language_code if user else None)
        row = await self.storage.upsert_chat(chat.id, chat.kind, language=lang)
        return norm_lang(row.language)

    def reply(self, chat_id: int, text: str, keyboard: R.Keyboard = ()) -> None:
        for piece in R.split_text(text):
            self.outbox.send(chat_id, R.Rendered(piece, keyboard))

    def _code(self) -> str:
        return "".join(self.rng.choice(string.ascii_lowercase + string.digits) for _ in range(10))

    def _seed(self) -> int:
        return self.rng.getrandbits(62)

    async def is_admin(self, chat_id: int, user_id: int) -> bool:
        if chat_id > 0:
            return chat_id == user_id
        if len(self._admins) > CACHE_LIMIT:
            self._admins.clear()
        now = time.monotonic()
        cached = self._admins.get((chat_id, user_id))
        if cached is not None and now - cached[0] < 60:
            return cached[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
            ok = member.status in ("creator", "administrator")
        except TelegramError as e:
            log.info("getChatMember(%s, %s) failed: %s", chat_id, user_id, e)
            ok = False
        self._admins[(chat_id, user_id)] = (now, ok)
        return ok

    async def _may_manage(self, s: Session, user: UserRef) -> bool:
        if user.anonymous_admin:
            return True  # the handlers set it only for a message on behalf of this chat
        return user.id == s.creator_id or await self.is_admin(s.chat_id, user.id)

    def _computer_name(self, s: Session) -> str:
        names = t(s.lang, "computer.names").split(",")
        used = {x.name for x in s.seats}
        for name in names:
            if name not in used:
                return name
        return f"{names[0]} {len(s.seats) + 1}"

    def _register(self, s: Session) -> None:
        s.lock = self.chat_lock(s.chat_id)  # one lock per chat: commands and presses alike
        if not s.touched:
            s.touched = self.clock()
        self.sessions[s.game_id] = s
        self.by_chat[s.chat_id] = s.game_id

    def _unregister(self, s: Session) -> None:
        self.sessions.pop(s.game_id, None)
        if self.by_chat.get(s.chat_id) == s.game_id:
            del self.by_chat[s.chat_id]
        if s.timer is not None and s.timer is not asyncio.current_task():
            s.timer.cancel()
        if s.driver is not None and s.driver is not asyncio.current_task():
            s.driver.cancel()

    def session_of_chat(self, chat_id: int) -> Session | None:
        gid = self.by_chat.get(chat_id)
        return self.sessions.get(gid) if gid is not None else None

    # ================================================================== lobby

    def lobby_info(self, s: Session) -> R.LobbyInfo:
        return R.LobbyInfo(s.game_id, s.lobby_rev, s.rules, s.labels(), s.level, s.note, s.page)

    def show_lobby(self, s: Session) -> None:
        content = R.render_lobby(s.lang, self.lobby_info(s))

        def sent(mid: int, digest: str, new: bool) -> None:
            if s.ids.get("lobby") != mid:
                s.ids["lobby"] = mid
                s.ids_urgent = True
                self._save_ids(s, 0.0)

        self.outbox.put(s.chat_id, lobby_key(s.game_id), content, on_sent=sent)

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
                rules = _rules_from_args(base, args)
            except RulesError as e:
                self.reply(chat.id, t(lang, "newgame.bad_args", reason=esc(e)))
                return
            if chat.kind == "private":
                await self._solo(chat, user, lang, rules)
            else:
                await self._open_lobby(chat, user, lang, rules)

    async def _default_rules(self, chat_id: int) -> Rules:
        row = await self.storage.get_chat(chat_id)
        if row is not None and row.default_rules:
            try:
                return rules_from_dict(json.loads(row.default_rules))
            except (RulesError, ValueError):
                log.warning("chat %s: stored default rules are not valid", chat_id)
        return CLASSIC

    async def _open_lobby(self, chat: ChatRef, user: UserRef, lang: Lang, rules: Rules) -> None:
        urow = await self.storage.get_user(user.id)
        seats = []
        if urow is not None and urow.started and not urow.blocked:
            seats.append(SeatInfo("human", user.id, user.name, ""))
        for _ in range(5):
            code = self._code()
            try:
                gid = await self.storage.create_game(
                    chat.id, user.id, rules=rules.model_dump_json(), seed=self._seed(),
                    seats=seats_json(seats), lobby_code=code)
                break
            except StorageError as e:
                if isinstance(e, ActiveGameConflict):
                    self.reply(chat.id, t(lang, "newgame.exists"))
                    return
                continue
        else:  # pragma: no cover - ten random characters never collide five times
            raise RuntimeError("no free lobby code")
        game = await self.storage.get_game(gid)
        assert game is not None
        s = Session(gid, chat.id, chat.kind, lang, user.id, "lobby", rules, game.seed, seats,
                    lobby_rev=game.lobby_rev, lobby_code=code, level=self.computer_level,
                    title=chat.title)
        if not seats:
            s.note = t(lang, "lobby.creator_not_started", name=esc(user.name))
        s.ids = {"level": s.level, "title": chat.title}
        self._register(s)
        self.show_lobby(s)

    async def _solo(self, chat: ChatRef, user: UserRef, lang: Lang, rules: Rules) -> None:
        s = Session(0, chat.id, "private", lang, user.id, "lobby", rules, self._seed(),
                    [SeatInfo("human", user.id, user.name, "")], level=self.computer_level)
        while len(s.seats) < rules.players:
            s.seats.append(SeatInfo("computer", 0, self._computer_name(s), s.level))
        try:
            gid = await self.storage.create_game(chat.id, user.id, rules=rules.model_dump_json(),
                                                 seed=s.seed, seats=seats_json(s.seats))
        except ActiveGameConflict:
            self.reply(chat.id, t(lang, "newgame.exists"))
            return
        s.game_id = gid
        s.ids = {"level": s.level}
        await self._start(s)

    async def lobby_press(self, s: Session, c: cb.Callback, user: UserRef) -> Answer:
        lang = s.lang
        if s.status != "lobby" or c.verb in (cb.ACT, cb.HAND, cb.SCORE):
            return Answer(t(lang, "popup.stale"))
        verb = c.verb
        if verb == cb.JOIN:
            return await self._join(s, user)
        if verb == cb.LEAVE:
            seat = s.seat_of(user.id)
            if seat < 0:
                return Answer(t(lang, "popup.not_seated"))
            del s.seats[seat]
            s.note = t(lang, "lobby.left", name=esc(user.name))
            return await self._lobby_saved(s)
        manager = await self._may_manage(s, user)
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
        if c.version != s.lobby_rev and verb in (cb.SET, cb.PLAYERS, cb.PRESET, cb.LEVEL):
            return Answer(t(lang, "popup.stale"))
        if verb == cb.ADD_AI:
            if len(s.seats) >= s.rules.players:
                return Answer(t(lang, "popup.table_full"))
            s.seats.append(SeatInfo("computer", 0, self._computer_name(s), s.level))
            s.note = ""
            return await self._lobby_saved(s)
        if verb == cb.DROP_AI:
            for i in range(len(s.seats) - 1, -1, -1):
                if s.seats[i].computer:
                    del s.seats[i]
                    s.note = ""
                    return await self._lobby_saved(s)
            return Answer(t(lang, "popup.no_computer"))
        if verb == cb.LEVEL:
            if c.arg not in R.LEVELS:
                return Answer(t(lang, "popup.unknown"))
            s.level = c.arg
            for place in s.seats:
                if place.computer:
                    place.level = c.arg
            s.ids["level"] = c.arg
            self._save_ids(s)
            return await self._lobby_saved(s)
        if verb == cb.PLAYERS:
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
            if len(s.seats) < s.rules.players:
                return Answer(t(lang, "popup.not_full"))
            await self._start(s)
            return Answer()
        if verb == cb.CANCEL:
            await self.storage.cancel_lobby(s.game_id)
            s.status = "stopped"
            self._unregister(s)
            self.outbox.put(s.chat_id, lobby_key(s.game_id),
                            R.Rendered(t(lang, "lobby.cancelled")), final=True)
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
            return Answer(url=f"https://t.me/{self.bot_username}?start=join_{s.lobby_code}")
        s.seats.append(SeatInfo("human", user.id, user.name, ""))
        s.note = t(lang, "lobby.joined", name=esc(user.name))
        return await self._lobby_saved(s)

    async def _lobby_saved(self, s: Session) -> Answer:
        try:
            s.lobby_rev = await self.storage.update_lobby(
                s.game_id, s.lobby_rev, seats=seats_json(s.seats), rules=s.rules.model_dump_json())
        except (VersionConflict, StatusConflict):
            await self._reload_lobby(s)
            return Answer(t(s.lang, "popup.stale"))
        s.touched = self.clock()
        self.show_lobby(s)
        return Answer()

    async def _reload_lobby(self, s: Session) -> None:
        game = await self.storage.get_game(s.game_id)
        if game is None or game.status != "lobby":
            self._unregister(s)
            return
        s.seats = seats_from_json(game.seats)
        s.rules = rules_from_dict(json.loads(game.rules))
        s.lobby_rev = game.lobby_rev
        self.show_lobby(s)

    async def _change_rules(self, s: Session, rid: str, value: Any) -> Answer:
        data = s.rules.model_dump()
        data[rid] = value
        fixed = _fit_rules(data, rid)
        if isinstance(fixed, str):
            return Answer(R.popup(t(s.lang, "popup.bad_rule", reason=fixed)))
        return await self._set_rules(s, fixed)

    async def _set_rules(self, s: Session, rules: Rules) -> Answer:
        if len(s.seats) > rules.players:
            return Answer(t(s.lang, "popup.too_many_seated"))
        s.rules = rules
        s.note = ""
        return await self._lobby_saved(s)

    async def join_by_code(self, user: UserRef, code: str) -> None:
        """``/start join_<code>`` in private: seat the user at that lobby."""
        lang = self.lang_for_user(user.id)
        game = await self.storage.game_by_lobby_code(code)
        s = self.sessions.get(game.game_id) if game is not None else None
        if s is None or s.status != "lobby":
            self.reply(user.id, t(lang, "join.gone"))
            return
        async with s.lock:
            if s.status != "lobby":
                self.reply(user.id, t(lang, "join.gone"))
                return
            answer = await self._join(s, user)
        if answer.text:
            self.reply(user.id, answer.text)
        else:
            self.reply(user.id, t(lang, "join.done", title=esc(s.title or "—")))

    # ================================================================== starting

    async def _start(self, s: Session) -> None:
        state = new_game(s.rules, s.seed)
        deadline = self._deadline(s, state)
        await self.storage.start_game(s.game_id, s.lobby_rev, snapshot=snapshot(state),
                                      deadline=deadline, seats=seats_json(s.seats),
                                      rules=s.rules.model_dump_json())
        with contextlib.suppress(StorageError):
            await self.storage.set_default_rules(s.chat_id, s.rules.model_dump_json())
        s.lobby_rev += 1
        s.status = "playing"
        s.state = state
        s.page = ""
        self._register(s)
        if not s.solo:
            self.outbox.rename(s.chat_id, lobby_key(s.game_id), table_key(s.game_id, 1))
            if "lobby" in s.ids:
                s.ids["t"] = [deal_number(state), s.ids.pop("lobby")]
        self.refresh(s)
        self.schedule(s)

    # ================================================================== rendering

    def info(self, s: Session, deal: int) -> R.TableInfo:
        return R.TableInfo(s.game_id, s.labels(), tuple(s.events.get(deal, ())), s.solo)

    def refresh(self, s: Session) -> None:
        """Hand the current messages of ``s`` to the outbox (finishing an ended deal's)."""
        st = s.state
        if st is None:
            return
        cur = deal_number(st)
        over = st.phase == Phase.GAME_OVER or s.status in ("finished", "stopped")
        if s.shown_deal and (s.shown_deal != cur or over):
            self._finish_deal(s, s.shown_deal, stopped=s.status == "stopped")
        if over:
            s.shown_deal = 0
            return
        s.shown_deal = cur
        info = self.info(s, cur)
        if not s.solo:
            self._put_table(s, cur, R.render_table(s.lang, public_view(st), info))
        for seat, who in enumerate(s.seats):
            if who.kind != "human" or (who.auto and who.why in ("leave", "blocked")):
                continue
            lang = self.lang_for_user(who.user_id) if not s.solo else s.lang
            self._put_hand(s, seat, cur, R.render_hand(lang, view(st, seat), info))

    def _put_table(self, s: Session, deal: int, content: R.Rendered, final: bool = False) -> None:
        def sent(mid: int, digest: str, new: bool) -> None:
            s.ids["t"] = [deal, mid, digest]
            s.ids_urgent = s.ids_urgent or new
            self._save_ids(s, NEW_MESSAGE_SAVE if new else EDIT_SAVE)

        self.outbox.put(s.chat_id, table_key(s.game_id, deal), content, final=final,
                        on_sent=sent)

    def _put_hand(self, s: Session, seat: int, deal: int, content: R.Rendered,
                  final: bool = False) -> None:
        user_id = s.seats[seat].user_id

        def sent(mid: int, digest: str, new: bool) -> None:
            s.ids.setdefault("h", {})[str(seat)] = [deal, mid, digest]
            s.ids_urgent = s.ids_urgent or new
            self._save_ids(s, NEW_MESSAGE_SAVE if new else EDIT_SAVE)

        self.outbox.put(user_id, hand_key(s.game_id, seat, deal), content, final=final,
                        on_sent=sent)

    def _finish_deal(self, s: Session, deal: int, *, stopped: bool = False) -> None:
        st = s.state
        assert st is not None
        res = next((h for h in st.history if h.number == deal), None)
        labels = s.labels()
        if res is None:  # the deal did not end (a stopped game)
            content = R.render_stopped(s.lang, st.totals, labels)
        else:
            content = R.render_deal_end(s.lang, sheet_row(res), labels, stopped=stopped)
        if not s.solo:
            self._put_table(s, deal, content, final=True)
        for seat, who in enumerate(s.seats):
            if who.kind != "human" or (who.auto and who.why in ("leave", "blocked")):
                continue
            lang = self.lang_for_user(who.user_id) if not s.solo else s.lang
            if res is None:
                c = R.render_stopped(lang, st.totals, labels)
            else:
                c = R.render_deal_end(lang, sheet_row(res), labels, stopped=stopped)
            self._put_hand(s, seat, deal, c, final=True)
        s.events = {k: v for k, v in s.events.items() if k > deal}

    def _save_ids(self, s: Session, delay: float = NEW_MESSAGE_SAVE) -> None:
        """Store the game's message ids and what they show within ``delay`` seconds (one
        write serves every change made meanwhile); a failed write is retried with backoff."""
        s.ids_dirty = True
        due = time.monotonic() + delay
        if s.ids_task is not None and not s.ids_task.done():
            s.ids_due = min(s.ids_due, due)
            return
        s.ids_due = due
        if self._closing:
            return

        async def run() -> None:
            backoff = _Backoff(s.game_id, "saving message ids")
            while s.ids_dirty and not self._closing:
                wait = s.ids_due - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                try:
                    await self._write_ids(s)
                    backoff.ok()
                except StorageError as e:
                    backoff.failed(e)
                    await backoff.wait()

        s.ids_task = self._spawn(s, run(), f"ids:{s.game_id}")

    async def _write_ids(self, s: Session) -> None:
        """Store the message ids now (raises StorageError); clears the pending marks."""
        urgent = s.ids_urgent
        s.ids_dirty = s.ids_urgent = False
        try:
            await self.storage.set_message_ids(s.game_id, json.dumps(s.ids))
        except BaseException:
            s.ids_dirty = True
            s.ids_urgent = s.ids_urgent or urgent
            raise

    def _spawn(self, s: Session, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        """A background task of ``s`` under supervision: if it dies of an error it is
        reported (logged with the game id) and the game's moves and timers are re-armed."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(lambda done: self._task_done(s, done))
        return task

    def _task_done(self, s: Session, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        log.error("game %s: background task %s died", s.game_id, task.get_name(),
                  exc_info=task.exception())
        if self._closing or self.sessions.get(s.game_id) is not s:
            return
        s.restarts += 1
        if s.restarts > SUPERVISOR_RESTARTS:
            log.critical("game %s: background tasks keep dying; the game waits for a press or "
                         "a restart", s.game_id)
            return
        loop = asyncio.get_running_loop()
        loop.call_later(min(2.0 ** s.restarts, 30.0), self._resume, s)

    def _resume(self, s: Session) -> None:
        if self._closing or self.sessions.get(s.game_id) is not s:
            return
        if s.ids_dirty:
            self._save_ids(s)
        self.schedule(s)

    # ================================================================== moves

    def _deadline(self, s: Session, st: GameState) -> float | None:
        seat = st.to_act
        if s.solo or seat < 0 or st.phase == Phase.GAME_OVER:
            return None
        if s.seats[seat].played_by_computer:
            return None
        return self.clock() + self.turn_timeout

    async def _commit(self, s: Session, seat: int, action: Action, by: str) -> None:
        """Apply and store one move (the caller holds ``s.lock``); raises IllegalAction."""
        before = s.state
        assert before is not None
        after = apply(before, action, seat)
        if s.ids_urgent:  # a message sent for the last move: its id is stored first, so a
            await self._write_ids(s)  # restart after this move never sends it again
        rows = [(r.number, json.dumps(sheet_row(r)))
                for r in after.history[len(before.history):]]
        outcome = None
        if after.phase == Phase.GAME_OVER:
            outcome = Outcome(winner_seat=after.winner if after.winner >= 0 else None,
                              totals=json.dumps(list(after.totals)))
        text = str(action)
        await self.storage.append_action(
            s.game_id, s.store_version, move_record(seat, text, by), snapshot(after),
            deadline=self._deadline(s, after), sheet_rows=rows, outcome=outcome,
            human=by == BY_HUMAN)
        s.store_version += 1
        s.state = after
        evs = move_events(before, after, seat, text, by)
        if evs:
            s.events.setdefault(deal_number(before), []).extend(evs)
        if outcome is not None:
            s.status = "finished"
        self.refresh(s)
        if outcome is not None:
            self._unregister(s)
        else:
            self.schedule(s)

    async def game_press(self, s: Session, c: cb.Callback, user: UserRef,
                         reply: Reply | None = None) -> Answer:
        lang = self.lang_for_user(user.id) if not s.solo else s.lang
        st = s.state
        if s.status != "playing" or st is None:
            return Answer(t(lang, "popup.stale"))
        if c.verb == cb.HAND:
            seat = s.seat_of(user.id)
            if seat < 0:
                return Answer(t(lang, "popup.not_seated"))
            return Answer(R.hand_popup(lang, view(st, seat)), alert=True)
        if c.verb == cb.SCORE:
            return Answer(R.totals_popup(lang, public_view(st), s.labels()), alert=True)
        seat = s.seat_of(user.id)
        if seat < 0:
            return Answer(t(lang, "popup.not_seated"))
        if c.version != st.version:
            return Answer(t(lang, "popup.stale"))
        if s.seats[seat].auto:
            return Answer(t(lang, "popup.auto"))
        if st.to_act != seat:
            name = s.seats[st.to_act].name if st.to_act >= 0 else "—"
            return Answer(t(lang, "popup.not_your_turn", name=name))
        action = c.action()
        if action is None or action not in view(st, seat).legal:
            return Answer(t(lang, "popup.unknown"))
        # The move is stored (one transaction) before the presser or anyone else is answered.
        try:
            await self._commit(s, seat, action, BY_HUMAN)
        except IllegalAction:  # pragma: no cover - checked above
            return Answer(t(lang, "popup.unknown"))
        except (VersionConflict, StatusConflict):
            await self._reload(s)
            return Answer(t(lang, "popup.stale"))
        except StorageError as e:
            log.warning("game %s: a move of seat %s was not stored: %s", s.game_id, seat, e)
            return Answer(t(lang, "guard.not_saved"), alert=True)
        s.touched = self.clock()
        return Answer()

    @staticmethod
    def _in_place(s: Session, c: cb.Callback, user: UserRef, where: Where) -> bool:
        """Is the press on a message where this button is shown?  Hand buttons (moves) live
        in the presser's own private chat; lobby and table buttons in the game's chat."""
        if where.chat_id is None:
            return False
        if c.verb == cb.ACT:
            return where.chat_id == user.id
        return where.chat_id == s.chat_id

    async def press(self, data: str | None, user: UserRef, where: Where,
                    reply: Reply | None = None) -> Answer:
        """A button press anywhere; the answer is shown to the presser (through ``reply``
        when it is given and may be sent early).  A press is checked under the chat's lock
        against the game's current state: its data, the chat it came from and the seat of
        the presser; a refused press changes nothing."""
        c = cb.decode(data)
        lang = self.lang_for_user(user.id)
        if c is None:
            return Answer(t(lang, "popup.unknown"))
        if where.chat_id is None:
            return Answer(t(lang, "guard.wrong_place"))
        s = self.sessions.get(c.game_id)
        if s is None:
            return Answer(t(lang, "popup.stale"))
        if not self._in_place(s, c, user, where):
            log.info("press of %s on game %s from chat %s refused: not its place",
                     user.id, c.game_id, where.chat_id)
            return Answer(t(lang, "guard.wrong_place"))
        async with s.lock:
            if self.sessions.get(c.game_id) is not s or not self._in_place(s, c, user, where):
                return Answer(t(lang, "popup.stale"))
            if s.status == "lobby":
                saved = _LobbyCopy.of(s)
                try:
                    return await self.lobby_press(s, c, user)
                except (VersionConflict, StatusConflict):
                    saved.restore(s)
                    await self._reload_lobby(s)
                    return Answer(t(lang, "popup.stale"))
                except StorageError as e:
                    log.warning("game %s: a lobby change was not stored: %s", s.game_id, e)
                    saved.restore(s)
                    return Answer(t(lang, "guard.not_saved"), alert=True)
            return await self.game_press(s, c, user, reply)

    # ================================================================== computer seats, timers

    def schedule(self, s: Session) -> None:
        """Drive computer seats, or arm the turn timer of the person to act."""
        st = s.state
        if self._closing or st is None or s.status != "playing" or st.to_act < 0:
            return
        seat = st.to_act
        if s.seats[seat].played_by_computer:
            if s.driver is None or s.driver.done():
                s.driver = self._spawn(s, self._drive(s), f"drive:{s.game_id}")
        elif not s.solo:
            self._arm(s, st.version, self.clock() + self.turn_timeout)

    def _arm(self, s: Session, version: int, deadline: float) -> None:
        if s.timer is not None and not s.timer.done() and s.timer is not asyncio.current_task():
            s.timer.cancel()
        s.timer = self._spawn(s, self._time_out(s, version, deadline), f"timer:{s.game_id}")

    def _move_seed(self, s: Session, st: GameState, seat: int) -> int:
        return (s.seed * 1000003 + st.version * 31 + seat) & 0x7FFFFFFF

    async def _machine_move(self, s: Session, st: GameState, seat: int, action: Action,
                            by: str, backoff: _Backoff) -> bool:
        """Store a move the computer chose at ``st``; False if it must be tried again later
        (the database did not answer).  Stale states are skipped (True)."""
        async with s.lock:
            if s.state is not st or s.status != "playing":
                return True
            try:
                await self._commit(s, seat, action, by)
            except (VersionConflict, StatusConflict):
                await self._reload(s)
                return True
            except StorageError as e:
                backoff.failed(e)
                return False
        backoff.ok()
        return True

    async def _drive(self, s: Session) -> None:
        backoff = _Backoff(s.game_id, "a computer move")
        chosen: tuple[GameState, Action] | None = None
        while not self._closing:
            st = s.state
            if st is None or s.status != "playing" or st.to_act < 0:
                return
            seat = st.to_act
            who = s.seats[seat]
            if not who.played_by_computer:
                return
            if chosen is None or chosen[0] is not st:
                if self.move_delay:
                    await asyncio.sleep(self.move_delay)
                level = who.level if who.computer else self.computer_level
                action = await self.thinker.choose(view(st, seat), level,
                                                   self._move_seed(s, st, seat))
                chosen = (st, action)
            by = BY_COMPUTER if who.computer else BY_AUTO
            if not await self._machine_move(s, st, seat, chosen[1], by, backoff):
                await backoff.wait()
            if self.sessions.get(s.game_id) is not s:
                return

    async def _time_out(self, s: Session, version: int, deadline: float) -> None:
        half = deadline - self.turn_timeout / 2
        now = self.clock()
        if now < half:
            await asyncio.sleep(half - now)
            st = s.state
            if st is None or st.version != version or s.status != "playing":
                return
            who = s.seats[st.to_act]
            if who.kind == "human" and not who.auto:
                lang = self.lang_for_user(who.user_id)
                left = max(1, round(deadline - self.clock()))
                self.reply(who.user_id, t(lang, "reminder", seconds=left,
                                          title=esc(s.title or "—")))
        await asyncio.sleep(max(0.0, deadline - self.clock()))
        backoff = _Backoff(s.game_id, "a move for an absent player")
        while not self._closing:
            st = s.state
            if st is None or st.version != version or s.status != "playing" or st.to_act < 0:
                return
            seat = st.to_act
            action = await self.thinker.choose(view(st, seat), self.computer_level,
                                               self._move_seed(s, st, seat))
            if await self._machine_move(s, st, seat, action, BY_TIMEOUT, backoff):
                return
            await backoff.wait()

    # ================================================================== seats handed over

    async def _set_auto(self, s: Session, seat: int, auto: bool, why: str) -> None:
        """Hand a seat to the computer (or give it back); the caller holds ``s.lock``."""
        who = s.seats[seat]
        if who.auto == auto and (not auto or who.why == why):
            return
        st = s.state
        assert st is not None
        await self.storage.append_action(
            s.game_id, s.store_version, control_record(seat, "auto" if auto else "human", why),
            snapshot(st), deadline=None if auto else self._deadline(s, st))
        s.store_version += 1
        who.auto, who.why = auto, why if auto else ""
        self.refresh(s)
        self.schedule(s)

    async def user_blocked(self, user_id: int) -> None:
        """The user blocked the bot (a 403, or my_chat_member): a computer plays for them."""
        with contextlib.suppress(StorageError):
            await self.storage.mark_blocked(user_id, True)
        for s in list(self.sessions.values()):
            seat = s.seat_of(user_id)
            if seat < 0:
                continue
            async with s.lock:
                if s.status == "lobby":
                    if s.seat_of(user_id) >= 0:
                        del s.seats[s.seat_of(user_id)]
                        s.note = ""
                        await self._lobby_saved(s)
                elif s.status == "playing" and not s.solo:
                    try:
                        await self._set_auto(s, seat, True, "blocked")
                    except StorageError as e:
                        log.warning("game %s: seat %s not handed over: %s", s.game_id, seat, e)

    async def user_back(self, user_id: int) -> None:
        """The user started the bot again: their seats come back, their messages are re-sent."""
        for s in list(self.sessions.values()):
            seat = s.seat_of(user_id)
            if seat < 0 or s.status != "playing":
                continue
            async with s.lock:
                who = s.seats[seat]
                if who.auto and who.why != "blocked":
                    continue
                try:
                    if who.auto:
                        await self._set_auto(s, seat, False, "back")
                    else:
                        self.refresh(s)
                except StorageError as e:
                    log.warning("game %s: seat %s not given back: %s", s.game_id, seat, e)

    async def bot_kicked(self, chat_id: int) -> None:
        """The bot was removed from a group: its lobby there is cancelled and its game
        stopped (results kept); nothing more is sent to that chat."""
        async with self.chat_lock(chat_id):
            s = self.session_of_chat(chat_id)
            if s is not None:
                if s.status == "lobby":
                    with contextlib.suppress(StatusConflict):
                        await self.storage.cancel_lobby(s.game_id)
                    s.status = "stopped"
                    self._unregister(s)
                else:
                    await self._stop(s)
        self.outbox.drop_chat(chat_id)

    # ================================================================== commands

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

    async def chat_lang(self, chat: ChatRef, user: UserRef | None) -> Lang:
        if chat.kind == "private" and user is not None:
            await self._user(user)
            return self.lang_for_user(user.id)
        row = await self.storage.get_chat(chat.id)
        if row is None:  # the first word in this group: its language is the speaker's
            row = await self.storage.upsert_chat(
                chat.id, chat.kind, language=lang_of(user.language_code if user else None))
        return norm_lang(row.language)

    async def score(self, chat: ChatRef, user: UserRef | None) -> None:
        lang = await self.chat_lang(chat, user)
        s = self.session_of_chat(chat.id)
        if s is not None and s.state is not None:
            rows = [sheet_row(h) for h in s.state.history]
            self.reply(chat.id, R.render_score(lang, rows, s.labels()))
            return
        game = await self.storage.last_game(chat.id)
        if game is None or game.status == "lobby":
            self.reply(chat.id, t(lang, "score.none"))
            return
        sheet = await self.storage.score_sheet(game.game_id)
        rows = [json.loads(r.data) for r in sheet]
        labels = tuple(R.SeatLabel(x.name, x.computer) for x in seats_from_json(game.seats))
        title = t(lang, "score.finished" if game.status == "finished" else "score.stopped")
        self.reply(chat.id, R.render_score(lang, rows, labels, title=title))

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
                saved = _LobbyCopy.of(s)
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
                s.status = "stopped"
                self._unregister(s)
                self.outbox.put(s.chat_id, lobby_key(s.game_id),
                                R.Rendered(t(s.lang, "lobby.cancelled")), final=True)
                return
            await self._stop(s)
        self.reply(chat.id, t(lang, "stop.done"))

    async def _stop(self, s: Session) -> None:
        """End a playing game, keeping its results (the caller holds ``s.lock``)."""
        st = s.state
        if s.status != "playing" or st is None:
            return
        with contextlib.suppress(StatusConflict):
            await self.storage.finish_game(s.game_id, winner_seat=None,
                                           totals=json.dumps(list(st.totals)), stopped=True)
        s.status = "stopped"
        self.refresh(s)
        self._unregister(s)

    async def migrate(self, old: int, new: int) -> None:
        """A group became a supergroup (its id changed): the game moves along."""
        async with self.chat_lock(old):
            try:
                await self.storage.migrate_chat(old, new)
            except ActiveGameConflict as e:
                log.error("chat %s -> %s: both have a game: %s", old, new, e)
                return
            gid = self.by_chat.pop(old, None)
            if gid is not None and gid in self.sessions:
                s = self.sessions[gid]
                s.chat_id = new
                s.kind = "supergroup"
                self.by_chat[new] = gid
                self.outbox.migrate(old, new)
                if s.status == "lobby":
                    s.ids.pop("lobby", None)
                    self.show_lobby(s)
                else:
                    s.ids.pop("t", None)
                    self.refresh(s)
                self._save_ids(s)

    # ================================================================== restart

    async def restore(self) -> int:
        """Rebuild every game in progress from storage and re-arm its timers and moves; a
        game that cannot be rebuilt is marked broken (its record kept) and its chat told."""
        games = await self.storage.games_in_progress()
        for game in games:
            await self._restore_or_break(game)
        self._start_sweeper()
        return len(games)

    async def _restore_or_break(self, game: Game) -> Session | None:
        try:
            await self._restore_one(game)
        except StorageError:
            raise  # the database failed, not the game: it is not broken
        except Exception as e:
            log.exception("game %s could not be restored; marked broken", game.game_id)
            self._unregister_id(game.game_id)
            await self.storage.mark_broken(game.game_id, f"{type(e).__name__}: {e}"[:500])
            chat = await self.storage.get_chat(game.chat_id)
            self.reply(game.chat_id, t(norm_lang(chat.language if chat else None),
                                       "guard.broken", game=game.game_id))
            return None
        return self.sessions.get(game.game_id)

    def _unregister_id(self, game_id: int) -> None:
        s = self.sessions.get(game_id)
        if s is not None:
            self._unregister(s)

    async def _orphan(self, chat_id: int) -> Session | None:
        """The chat's active game in storage that is not in memory (a failed restore, or
        another process): restored now, or marked broken so that it frees the chat."""
        game = await self.storage.active_game(chat_id)
        if game is None or game.game_id in self.sessions:
            return self.sessions.get(game.game_id) if game is not None else None
        return await self._restore_or_break(game)

    async def _restore_one(self, game: Game) -> None:
        chat = await self.storage.get_chat(game.chat_id)
        lang = norm_lang(chat.language if chat else None)
        kind: ChatKind = chat.kind if chat else ("private" if game.chat_id > 0 else "group")
        rules = rules_from_dict(json.loads(game.rules))
        ids = json.loads(game.message_ids or "{}")
        if not isinstance(ids, dict):
            ids = {}
        s = Session(game.game_id, game.chat_id, kind, lang, game.creator_id, game.status, rules,
                    game.seed, seats_from_json(game.seats), lobby_rev=game.lobby_rev,
                    lobby_code=game.lobby_code, level=str(ids.get("level", self.computer_level)),
                    title=str(ids.get("title", "")))
        s.ids = ids
        s.touched = game.updated if game.status == "lobby" else \
            (game.human_moved or game.updated)
        for place in s.seats:
            if place.kind == "human":
                row = await self.storage.get_user(place.user_id)
                if row is not None and row.language is not None:
                    self.user_langs[place.user_id] = norm_lang(row.language)
        if game.status == "lobby":
            if isinstance(ids.get("lobby"), int):
                self.outbox.known(s.chat_id, lobby_key(s.game_id), ids["lobby"], None)
            self._register(s)
            return
        records = await self.storage.actions(game.game_id)
        rep = replay(rules, game.seed, records)
        s.state = rep.state
        s.store_version = game.version
        s.events = rep.events
        for seat, why in rep.auto.items():
            s.seats[seat].auto = True
            s.seats[seat].why = why
        cur = deal_number(rep.state)
        t_ids = ids.get("t")
        if isinstance(t_ids, list) and len(t_ids) >= 2:
            digest = t_ids[2] if len(t_ids) > 2 else None
            self.outbox.known(s.chat_id, table_key(s.game_id, int(t_ids[0])), int(t_ids[1]),
                              digest)
            if int(t_ids[0]) != cur:
                s.shown_deal = int(t_ids[0])
        for seat_s, h in (ids.get("h") or {}).items():
            if isinstance(h, list) and len(h) >= 2 and int(seat_s) < len(s.seats):
                digest = h[2] if len(h) > 2 else None
                uid = s.seats[int(seat_s)].user_id
                self.outbox.known(uid, hand_key(s.game_id, int(seat_s), int(h[0])), int(h[1]),
                                  digest)
                if int(h[0]) != cur and not s.shown_deal:
                    s.shown_deal = int(h[0])
        self._register(s)
        if rep.state.phase == Phase.GAME_OVER:  # the outcome was stored with the last move
            return
        self.refresh(s)
        st = rep.state
        if st.to_act >= 0 and s.seats[st.to_act].played_by_computer:
            self.schedule(s)
        elif not s.solo and st.to_act >= 0:
            deadline = game.deadline if game.deadline is not None else \
                self.clock() + self.turn_timeout
            self._arm(s, st.version, deadline)

    async def _reload(self, s: Session) -> None:
        """Storage disagrees with memory (another process?): rebuild the session."""
        self._unregister(s)
        game = await self.storage.get_game(s.game_id)
        if game is not None and game.active:
            await self._restore_one(game)

    async def close(self) -> None:
        """Stop timers, computer moves and the sweeper, let the outbox send what it has,
        and save the message ids (shutdown); no task of the service is left running."""
        self._closing = True
        tasks = [t for t in self._tasks if not t.done()]
        if self._sweeper is not None:
            tasks.append(self._sweeper)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.outbox.idle(5.0)
        for s in list(self.sessions.values()):
            with contextlib.suppress(StorageError):
                await self.storage.set_message_ids(s.game_id, json.dumps(s.ids))

    # ================================================================== expiry

    def _start_sweeper(self) -> None:
        if self._sweeper is None and not self._closing:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever(),
                                                                   name="sweeper")

    async def _sweep_forever(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.sweep_every)
            try:
                await self.sweep()
            except StorageError as e:
                log.warning("the sweep for idle games failed, next time again: %s", e)
            except Exception:
                log.exception("the sweep for idle games failed")

    async def sweep(self) -> int:
        """Close lobbies idle for ``lobby_ttl`` and stop games without a person's move for
        ``game_ttl`` (records kept); prune the in-memory caches.  Returns the games closed."""
        now = self.clock()
        closed = 0
        for s in list(self.sessions.values()):
            ttl = self.lobby_ttl if s.status == "lobby" else self.game_ttl
            if now - s.touched < ttl:
                continue
            async with s.lock:
                if self.sessions.get(s.game_id) is not s or now - s.touched < ttl:
                    continue
                try:
                    await self._expire(s)
                except (VersionConflict, StatusConflict):
                    continue  # changed meanwhile (another process?): not idle
                closed += 1
        self._prune(now)
        return closed

    async def _expire(self, s: Session) -> None:
        """Close an idle lobby or game (status ``expired``, record kept) and say so."""
        if s.status == "lobby":
            await self.storage.expire_game(s.game_id, expected_lobby_rev=s.lobby_rev)
            s.status = "stopped"
            self._unregister(s)
            self.outbox.put(s.chat_id, lobby_key(s.game_id),
                            R.Rendered(t(s.lang, "guard.expired_lobby")), final=True)
            return
        st = s.state
        assert st is not None
        await self.storage.expire_game(s.game_id, totals=json.dumps(list(st.totals)),
                                       expected_version=s.store_version)
        s.status = "stopped"
        self.refresh(s)
        self._unregister(s)
        self.reply(s.chat_id, t(s.lang, "guard.expired_game"))

    def _prune(self, now: float) -> None:
        mono = time.monotonic()
        self._admins = {k: v for k, v in self._admins.items() if mono - v[0] < 60}
        busy = {s.chat_id for s in self.sessions.values()}
        self._chat_locks = {c: lk for c, lk in self._chat_locks.items()
                            if c in busy or lk.locked()}
        if len(self.user_langs) > CACHE_LIMIT:
            seated = {x.user_id for s in self.sessions.values() for x in s.seats}
            self.user_langs = {u: lg for u, lg in self.user_langs.items() if u in seated}
        self.outbox.prune(busy)


# ====================================================================== rules helpers


def _rules_from_args(base: Rules, args: list[str]) -> Rules:
    """``/newgame [2|3|4] [classic|full]``."""
    preset: str | None = None
    players: int | None = None
    for a in args:
        w = a.lower()
        if w in ("2", "3", "4"):
            players = int(w)
        elif w in PRESETS:
            preset = w
        elif w in ("классика", "классические"):
            preset = "classic"
        elif w in ("полные", "полная", "все"):
            preset = "full"
        else:
            raise RulesError(f"unknown word {a!r}: use 2, 3, 4, classic or full")
    data = (PRESETS[preset] if preset else base).model_dump()
    if players is not None:
        data["players"] = players
    fixed = _fit_rules(data, "players")
    if isinstance(fixed, str):
        raise RulesError(fixed)
    return fixed


def _fit_rules(data: dict[str, Any], changed: str) -> Rules | str:
    """The rules with ``changed`` set, resetting to their defaults the rules that no longer
    fit it ("golden_raise needs golden_round"); a readable reason when that is impossible
    (the changed rule itself needs another one)."""
    defaults = CLASSIC.model_dump()
    work = dict(data)
    first: str | None = None
    for _ in range(len(RULE_IDS) + 1):
        try:
            return rules_from_dict(work)
        except RulesError as e:
            reason = str(e)
        first = first or reason
        try:
            problems = rule_problems(Rules.model_construct(**work))
        except Exception:  # pragma: no cover - a value of the wrong type
            return first
        resets = {p.split()[0] for p in problems if " needs " in p}
        resets = {r for r in resets
                  if r in defaults and r != changed and work[r] != defaults[r]}
        if not resets:
            return first
        for r in resets:
            work[r] = defaults[r]
    return first or "?"
