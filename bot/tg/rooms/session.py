"""The plain pieces of the Telegram layer: who pressed (``UserRef``), where (``ChatRef``,
``Where``), the answer to a press, one game in memory (``Session``), the retry policy of
background writes (``Backoff``) and the keys of the outbox's message slots."""

from __future__ import annotations

import asyncio
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
    is_inline_place,
)
from bot.tg.view import render as R

log = logging.getLogger(__name__)

NEW_MESSAGE_SAVE = 0.0  # a new message's id is stored at once (and before the next move)
EDIT_SAVE = 20.0  # an edit no move carried, while a computer is to move: stored this late
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
    inline_id: str | None = None  # the ``inline_message_id`` of a message of inline mode


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


@dataclass(frozen=True, slots=True)
class Settings:
    """A table's settings (not rules), stored with its message ids (``games.message_ids``,
    the keys of ``table_json``).  Frozen: only the owner (``owner.py``) replaces them."""

    pace: str | None = None  # "pace": quick, normal, unhurried (None: normal; solo: unhurried)
    forced: bool = True  # "forced": a person's only legal action played at once
    hints: bool = False  # "hints": 💡 on the hands of a group table
    pin_ok: bool | None = None  # "pin_ok": may the bot pin here (None: not asked yet)
    paused: bool = False  # "paused": its forum topic is closed


@dataclass(frozen=True, slots=True)
class Shown:
    """A message of a deal and what it shows (``digest``: ``Rendered.digest``; None:
    unknown), stored as ``[deal, message id, digest]``."""

    deal: int
    message_id: int
    digest: str | None = None

    def to_json(self) -> list[Any]:
        return [self.deal, self.message_id] + ([self.digest] if self.digest else [])

    @staticmethod
    def from_json(raw: object) -> Shown | None:
        if not (isinstance(raw, list) and len(raw) >= 2):
            return None
        try:
            digest = raw[2] if len(raw) > 2 and isinstance(raw[2], str) else None
            return Shown(int(raw[0]), int(raw[1]), digest)
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class Ping:
    """A person's private line about their turn: the state version of the turn, its
    message, how many pings of that turn were sent (stored as ``[version, id, pings]``)."""

    version: int
    message_id: int
    sent: int


@dataclass(slots=True)
class Messages:
    """The ids of the messages that show a table (and what they show), stored with its
    settings.  Changed only by the owner (``owner.py``; ``tests/test_rooms.py`` checks)."""

    lobby: int | None = None  # "lobby": the lobby (or solo setup) message
    lobby_digest: str | None = None  # "ld": what it shows
    table: Shown | None = None  # "t": the group's table message of a deal
    hands: dict[int, Shown] = field(default_factory=dict)  # "h": seat -> its hand message
    pings: dict[int, Ping] = field(default_factory=dict)  # "p": seat -> the ping out
    pin: int | None = None  # "pin": the message pinned now
    inline: str | None = None  # "im": the inline message that shows an inline table
    inline_digest: str | None = None  # "imd": what it shows


@dataclass(frozen=True, slots=True)
class Stored:
    """What ``games.message_ids`` holds, read (``read_table_json``)."""

    settings: Settings
    messages: Messages
    level: str | None
    title: str


def table_json(s: Session) -> str:
    """A table's settings and message ids as stored (``games.message_ids``): the keys of
    the string-keyed dict of before (``"level"``, ``"title"``, ``"pace"``, ``"forced"``,
    ``"hints"``, ``"pin"``, ``"pin_ok"``, ``"paused"``, ``"lobby"``, ``"ld"``, ``"t"``,
    ``"h"``, ``"p"``; ``"im"``, ``"imd"``: an inline table's inline message id and what it
    shows), so that records of either version read the other's."""
    out: dict[str, Any] = {"level": s.level}
    if s.title:
        out["title"] = s.title
    st, m = s.settings, s.messages
    if st.pace is not None:
        out["pace"] = st.pace
    if not st.forced:
        out["forced"] = False
    if st.hints:
        out["hints"] = True
    if st.pin_ok is not None:
        out["pin_ok"] = st.pin_ok
    if st.paused:
        out["paused"] = True
    if m.lobby is not None:
        out["lobby"] = m.lobby
        if m.lobby_digest is not None:
            out["ld"] = m.lobby_digest
    if m.table is not None:
        out["t"] = m.table.to_json()
    if m.hands:
        out["h"] = {str(seat): h.to_json() for seat, h in m.hands.items()}
    if m.pings:
        out["p"] = {str(seat): [p.version, p.message_id, p.sent] for seat, p in m.pings.items()}
    if m.pin is not None:
        out["pin"] = m.pin
    if m.inline is not None:
        out["im"] = m.inline
        if m.inline_digest is not None:
            out["imd"] = m.inline_digest
    return json.dumps(out)


def read_table_json(text: str | None) -> Stored:
    """``games.message_ids`` read back (what ``table_json`` writes, and what earlier
    versions wrote: anything unknown or malformed is left out)."""
    try:
        raw = json.loads(text or "{}")
    except ValueError:
        raw = {}
    d: dict[str, Any] = raw if isinstance(raw, dict) else {}
    pace = d.get("pace")
    pin_ok = d.get("pin_ok")
    settings = Settings(pace=str(pace) if pace in PACES else None,
                        forced=bool(d.get("forced", True)), hints=bool(d.get("hints", False)),
                        pin_ok=pin_ok if isinstance(pin_ok, bool) else None,
                        paused=bool(d.get("paused", False)))
    m = Messages()
    lobby = d.get("lobby")
    if isinstance(lobby, int) and not isinstance(lobby, bool):
        m.lobby = lobby
        ld = d.get("ld")
        m.lobby_digest = ld if isinstance(ld, str) else None
    m.table = Shown.from_json(d.get("t"))
    hands = d.get("h")
    for seat_s, h in (hands.items() if isinstance(hands, dict) else ()):
        shown = Shown.from_json(h)
        if shown is not None and str(seat_s).isdigit():
            m.hands[int(seat_s)] = shown
    pings = d.get("p")
    for seat_s, p in (pings.items() if isinstance(pings, dict) else ()):
        if isinstance(p, list) and len(p) >= 3 and str(seat_s).isdigit():
            try:
                m.pings[int(seat_s)] = Ping(int(p[0]), int(p[1]), int(p[2]))
            except (TypeError, ValueError):
                continue
    pin = d.get("pin")
    m.pin = pin if isinstance(pin, int) and not isinstance(pin, bool) and pin > 0 else None
    inline = d.get("im")
    m.inline = inline if isinstance(inline, str) and inline else None
    imd = d.get("imd")
    m.inline_digest = imd if m.inline is not None and isinstance(imd, str) else None
    level = d.get("level")
    return Stored(settings, m, str(level) if level is not None else None,
                  str(d.get("title") or ""))



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
    settings: Settings = field(default_factory=lambda: Settings())
    messages: Messages = field(default_factory=lambda: Messages())
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
    # bounded memory (restore.py, eviction): when an update last touched it (clock()), the
    # deadline its turn timer sleeps towards (None: no timer of known deadline), its live
    # background tasks (``Tasks.spawn``) and the presses being thought about (hints)
    used: float = 0.0
    deadline: float | None = None
    live: int = 0
    busy: int = 0
    since: float = 0.0  # clock() when the turn now began (``TableRoom.deadline``)
    pressed: dict[int, float] = field(default_factory=dict)  # user id -> clock() of a press
    # pings of the turn now (seat -> (state version, pings sent)); also in ``messages.pings``
    pings: dict[int, tuple[int, int]] = field(default_factory=dict)
    keepers_menu: str = ""  # the keepers' menu open on the table: "", "m", "s" (keepers.py)
    # seat -> (state version, page of its hand's buttons: callbacks.PAGE), for that turn only
    hand_pages: dict[int, tuple[int, str]] = field(default_factory=dict)
    # the table room's last render: (state, info, languages, table, hands) (table.py)
    rendered: tuple[Any, ...] | None = None

    @property
    def place(self) -> Place:
        return Place(self.chat_id, self.thread_id)

    @property
    def forced(self) -> bool:
        """Play a person's only legal action at once (a table setting, on by default)."""
        return self.settings.forced

    @property
    def paused(self) -> bool:
        """Its topic is closed (or refused a message): nothing runs or is sent."""
        return self.settings.paused

    @property
    def solo(self) -> bool:
        return self.kind == "private"

    @property
    def inline(self) -> str | None:
        """The inline message that shows this table (an inline table: inline.py), or None
        (a chat's table)."""
        return self.messages.inline if is_inline_place(self.chat_id) else None

    @property
    def pace(self) -> str:
        """The table's pace (a table setting kept with the message ids, changed during the
        game by a record line): quick, normal or unhurried.  A solo game waits for its
        person: unhurried by nature."""
        if self.solo:
            return UNHURRIED
        pace = self.settings.pace
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
    return s.solo or s.settings.hints


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
    m = s.messages
    if m.lobby is not None:
        return m.lobby
    return m.table.message_id if m.table is not None else None
