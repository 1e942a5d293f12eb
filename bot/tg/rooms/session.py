"""The plain pieces of the Telegram layer: who pressed (``UserRef``), where (``ChatRef``,
``Where``), the answer to a press, one game in memory (``Session``), the retry policy of
background writes (``Backoff``) and the keys of the outbox's message slots."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import unicodedata
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from bot.engine.rules import (
    Rules,
)
from bot.engine.state import GameState
from bot.i18n import Lang
from bot.tg.model import (
    NORMAL,
    PACES,
    UNHURRIED,
    Event,
    SeatInfo,
)
from bot.tg.view import render as R

log = logging.getLogger(__name__)

NEW_MESSAGE_SAVE = 0.0  # a new message's id is stored at once (and before the next move)
EDIT_SAVE = 20.0  # what an edited message shows is stored at most this late (for restarts)
BACKOFF_FIRST = 0.25  # seconds before the first retry of a failed background write
BACKOFF_MAX = 15.0  # the longest wait between two retries
SUPERVISOR_RESTARTS = 8  # restarts of a game's dying background tasks before giving up
NAME_LIMIT = 24  # characters of a person's name shown at the table
SWEEP_EVERY = 60.0  # seconds between two sweeps for idle lobbies and games
AWAY_AFTER = 2  # timeouts in a row that put a person's seat on autopilot
AWAY = "away"  # the ``why`` of a seat on autopilot after timeouts
CACHE_LIMIT = 10_000  # entries of each in-memory cache (admins, languages, locks)
IDLE_EVICT_AFTER = 600.0  # seconds untouched before a session leaves memory (0: never)
WAKE_LEAD = 1.0  # seconds before its timer's next moment an evicted game is rebuilt

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


class Place(NamedTuple):
    """Where a table is: a chat and, in a forum, the topic (Telegram's ``message_thread_id``
    of a message with ``is_topic_message``); ``thread_id`` None is General, or a chat
    without topics.  A chat has at most one table per place."""

    chat_id: int
    thread_id: int | None = None


def topic_of(thread_id: int | None) -> int | None:
    """A thread id fit to be a place's topic: None for General (id 1, reached without a
    thread id) and for nothing."""
    return thread_id if thread_id is not None and thread_id > 1 else None


@dataclass(frozen=True, slots=True)
class Where:
    """Where a button was pressed: the chat and message it is on (None for a message sent
    through inline mode, which carries ``inline_message_id`` and no chat), and the forum
    topic of that message (None: General, or no topics)."""

    chat_id: int | None
    message_id: int | None = None
    thread_id: int | None = None


@dataclass(frozen=True, slots=True)
class ChatRef:
    """A chat where something was written, with its forum topic (None: General, or a chat
    without topics): replies go to that topic, and the table of that place is meant."""

    id: int
    kind: ChatKind
    title: str = ""
    thread_id: int | None = None

    @property
    def place(self) -> Place:
        return Place(self.id, self.thread_id)


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
    timeouts: dict[int, int] = field(default_factory=dict)  # seat -> timeouts in a row
    reminded: set[int] = field(default_factory=set)  # seats with a reminder message out
    claiming: bool = False  # several processes: this game's lease is being asked for
    # the edits a person's press causes are merged: computer replies made before
    # ``merge_until`` are shown in the same edit; ``merge_timer`` shows what is there by then
    merge_until: float = 0.0
    merge_timer: asyncio.TimerHandle | None = None
    thread_id: int | None = None  # the forum topic of the table (None: General, no topics)
    paused: bool = False  # its topic is closed (or refused a message): nothing runs or is sent
    # bounded memory (restore.py, eviction): when an update last touched it (clock()), the
    # deadline its turn timer sleeps towards (None: no timer of known deadline), its live
    # background tasks (``Tasks.spawn``) and the presses being thought about (hints)
    used: float = 0.0
    deadline: float | None = None
    live: int = 0
    busy: int = 0
    since: float = 0.0  # clock() when the turn now began (``TableRoom.deadline``)
    pressed: dict[int, float] = field(default_factory=dict)  # user id -> clock() of a press
    # pings of the turn now (seat -> (state version, pings sent)); also in ``ids["p"]``
    pings: dict[int, tuple[int, int]] = field(default_factory=dict)
    keepers_menu: str = ""  # the keepers' menu open on the table: "", "m", "s" (keepers.py)
    # seat -> (state version, page of its hand's buttons: callbacks.PAGE), for that turn only
    hand_pages: dict[int, tuple[int, str]] = field(default_factory=dict)

    @property
    def place(self) -> Place:
        return Place(self.chat_id, self.thread_id)

    @property
    def forced(self) -> bool:
        """Play a person's only legal action at once (a table setting, on by default)."""
        return bool(self.ids.get("forced", True))

    @property
    def solo(self) -> bool:
        return self.kind == "private"

    @property
    def pace(self) -> str:
        """The table's pace (a table setting kept with the message ids, changed during the
        game by a record line): quick, normal or unhurried.  A solo game waits for its
        person: unhurried by nature."""
        if self.solo:
            return UNHURRIED
        pace = self.ids.get("pace", NORMAL)
        return pace if pace in PACES else NORMAL

    def seat_of(self, user_id: int) -> int:
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.user_id == user_id:
                return i
        return -1

    def labels(self) -> tuple[R.SeatLabel, ...]:
        return R.seat_labels([R.SeatLabel(s.name, s.computer, s.auto, s.auto and s.why == AWAY)
                              for s in self.seats])


class Backoff:
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
class LobbyCopy:
    """What a lobby press may change, to put back when the change could not be stored."""

    seats: list[SeatInfo]
    rules: Rules
    level: str
    note: str
    page: str
    ids: dict[str, Any]

    @staticmethod
    def of(s: Session) -> LobbyCopy:
        return LobbyCopy([dataclasses.replace(x) for x in s.seats], s.rules, s.level, s.note,
                          s.page, json.loads(json.dumps(s.ids)))

    def restore(self, s: Session) -> None:
        s.seats, s.rules, s.level, s.note, s.page = (self.seats, self.rules, self.level,
                                                     self.note, self.page)
        s.ids = self.ids


def table_key(game_id: int, deal: int) -> str:
    return f"t{game_id}:{deal}"


def hand_key(game_id: int, seat: int, deal: int) -> str:
    return f"h{game_id}:{seat}:{deal}"


def reminder_key(game_id: int, seat: int) -> str:
    return f"r{game_id}:{seat}"


def lobby_key(game_id: int) -> str:
    return f"l{game_id}"


def hints_allowed(s: Session) -> bool:
    """Solo games always; a group table when it turned hints on (off by default)."""
    return s.solo or bool(s.ids.get("hints", False))


def message_link(chat_id: int, thread_id: int | None, message_id: int | None) -> str | None:
    """The t.me link of a message in a supergroup (in its forum topic); None where Telegram
    has no such link (basic groups, private chats, no message yet)."""
    if message_id is None or message_id <= 0 or chat_id > -1_000_000_000_000:
        return None
    internal = -chat_id - 1_000_000_000_000
    if thread_id is not None:
        return f"https://t.me/c/{internal}/{thread_id}/{message_id}"
    return f"https://t.me/c/{internal}/{message_id}"


def shown_message(s: Session) -> int | None:
    """The message of the game's chat that shows it now (the lobby or the table)."""
    lobby = s.ids.get("lobby")
    if isinstance(lobby, int):
        return lobby
    t_ids = s.ids.get("t")
    if isinstance(t_ids, list) and len(t_ids) >= 2 and isinstance(t_ids[1], int):
        return t_ids[1]
    return None
