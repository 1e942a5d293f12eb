"""Everything the bot sends to a chat goes through one queue per chat.

* A *slot* is a logical message ("the table of deal 5", "Anna's hand in deal 5"); ``put``
  gives it new content.  The chat's worker sends the slot as a new message the first time
  and edits it afterwards; content put while an earlier request is in flight (or while the
  edit waits for the group's budget) only replaces what will be sent next, so a burst of
  changes becomes one edit (coalescing).
* An edit that would not change the message (same text and buttons as last sent) is never
  made, so Telegram never answers "message is not modified".
* ``send_photo`` and ``send_document`` queue an upload (sendPhoto / sendDocument of bytes
  already made — render pictures in a worker thread before): a one-off request of the reply
  class, so in a group it is paced like a new message and counts against the budget.
* ``delete`` queues a deleteMessage (an answered reminder); its errors are ignored.
* ``pin`` and ``unpin`` queue a pinChatMessage / unpinChatMessage (the table pinned while
  its game is on): paced as edits are in a group; the pin's outcome (None or the
  ``TelegramError``) is told to its ``on_done``, an unpin's error is logged.  ``member``
  and ``file`` ask getChatMember and getFile (questions, not messages: not paced here,
  AIORateLimiter's business).
  With these, every Telegram call of the rooms goes through the outbox.
* Groups get at most ``group_per_minute`` requests in any 60 s (``GroupBudget``):

  - a *reply* (``is_reply``: a one-off message — an answer to a command, ``send`` — an
    upload, a new lobby, a request line) goes out at once while the chat has made fewer
    than N requests in the last 60 s, and always before anything of the game's messages;
  - the *game's messages* (a table's and a hand's, new or edited, and deletes) are the
    deferrable part: they may use the window only while more than a reserve of N/6 (3 of
    20) requests is left.  So they never take more than N − reserve of any minute, and the
    room a reply took comes back to replies first (the table waits until the window has
    more than the reserve left again): a reply finds the budget open.  They also draw on a
    small token bucket (a burst of N/6, refilled at (N − reserve − burst)/60 s, one per
    4.3 s for N = 20), so that a busy table never takes the whole minute at once: a table
    that changes every second is edited at once for its first few changes and then every
    few seconds with its latest content (a burst of changes merged into one request), never
    frozen for a minute.  What is said once a deal (a new table, a deal's summary: a
    ``final`` edit) goes before the merged edits, in the order it was put: a deal's
    summary before the next deal's table.

  Private chats are not paced here (Telegram allows about one message a second per chat,
  which one person's game never reaches; the overall MESSAGES_PER_SECOND is
  AIORateLimiter's business).  AIORateLimiter stays underneath as a second fence: its
  group limiter is a leaky bucket of the same N per minute, which a sliding window of N
  per 60 s never overfills, so it does not make the outbox wait (only the bot's few other
  requests to a group, such as getChatMember, count there too).

  Why not reuse aiolimiter's ``AsyncLimiter`` (PTB's own limiter) for the bucket: it is a
  leaky bucket that admits N at once and then refills continuously, so after a burst it
  allows N + 1 requests within a few seconds (a sliding window of 60 s sees more than N,
  and Telegram counts per minute); it only offers "wait until there is room" in FIFO order
  by amount, with no way to ask "how much room is left" for a priority decision
  (``has_capacity`` leaks as a side effect and cannot reserve room for replies); and its
  waiters sleep on their own timers, where the worker here must wake early when a reply
  arrives.  A window log of at most N timestamps per group is a few lines and exact.
  The clock is the event loop's (``loop.time()``, as aiolimiter's), so tests run on a
  virtual-time loop.
* Several processes (``shared``, a ``coord.SharedSends``): a group's request is also
  counted in the database (``group_send``: the budget holds across processes; a request
  waits while the shared window is full; once answered it counts from its answer,
  ``group_done``, as the local window does), and a new message of a named slot (a table, a
  hand, a lobby) is claimed under its key before it is sent: only the claimer sends and
  stores the message id at once; another process finds the id and edits that message.
  Renamed slots (a lobby becoming the table, ``/table``) are recorded before the chat's
  next request.  Nothing of this runs for a single process (``shared`` is None).
* Forum topics (issue 18): a slot belongs to a topic (``thread``; None: General, or a chat
  without topics) and its new messages pass ``message_thread_id`` (never 1: General is
  reached without it); edits and deletes need none.  The queue and the budget stay per
  chat: Telegram counts a group's messages whatever their topic.  A topic that refuses a
  message (400 TOPIC_CLOSED) is *paused* (``on_topic_closed``): nothing of it is sent or
  retried, its slots keep their latest content, the other topics go on; ``resume`` (the
  topic reopened) sends what waits.  A topic that is gone (400 "message thread not found",
  TOPIC_DELETED, TOPIC_ID_INVALID) drops its slots and is reported (``on_topic_gone``).
* Errors: a private chat that answers 403 (the user blocked the bot or never started it)
  and a group that migrated to a supergroup are reported through the hooks; a message that
  can no longer be edited is sent anew; Retry-After and network errors are retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import logging
import math
import warnings
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    LinkPreviewOptions,
    WebAppInfo,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)
from telegram.warnings import PTBDeprecationWarning, PTBUserWarning

from bot.ops import logs
from bot.tg import metrics
from bot.tg.model import is_inline_place
from bot.tg.view.common import Button
from bot.tg.view.render import Keyboard, Rendered

log = logging.getLogger(__name__)

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
WINDOW = 60.0  # seconds: Telegram's group limit is per minute
INLINE_TRIES = 3  # an inline message's edit, tried again after a network error
INLINE_KEEP = 4096  # inline messages whose shown content is remembered (not sent again)


class BotLike(Protocol):
    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Any: ...

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                **kw: Any) -> Any: ...

    async def delete_message(self, chat_id: int, message_id: int, **kw: Any) -> Any: ...

    async def send_photo(self, chat_id: int, photo: Any, **kw: Any) -> Any: ...

    async def send_document(self, chat_id: int, document: Any, **kw: Any) -> Any: ...


def keyboard_json(keyboard: Keyboard) -> dict[str, Any] | None:
    """The Bot API's ``InlineKeyboardMarkup`` of ``keyboard`` as plain JSON data: what
    ``markup(keyboard).to_dict()`` gives, without building python-telegram-bot's objects
    (a keyboard of a hand is 10-20 buttons, each a ``TelegramObject`` to make and take
    apart again)."""
    if not keyboard:
        return None
    return {"inline_keyboard": [[_button_json(b) for b in row] for row in keyboard]}


def _button_json(b: Button) -> dict[str, Any]:
    if b.web_app is not None:
        return {"text": b.text, "web_app": {"url": b.web_app}}
    if b.url is not None:
        return {"text": b.text, "url": b.url}
    return {"text": b.text, "callback_data": b.data}


NO_PREVIEW_JSON: dict[str, Any] = {"is_disabled": True}  # NO_PREVIEW.to_dict()


def layout_kw(keyboard: Keyboard, *, plain: bool) -> dict[str, Any]:
    """What a sent or edited text message carries beside its text: the parse mode, the
    keyboard and no link preview; ``plain`` as JSON data (``Bot.do_api_request``), else as
    python-telegram-bot's objects (``send_message`` / ``edit_message_text`` of the fakes)."""
    if plain:
        return {"parse_mode": ParseMode.HTML, "reply_markup": keyboard_json(keyboard),
                "link_preview_options": NO_PREVIEW_JSON}
    return {"parse_mode": ParseMode.HTML, "reply_markup": markup(keyboard),
            "link_preview_options": NO_PREVIEW}


def markup(keyboard: Keyboard) -> InlineKeyboardMarkup | None:
    if not keyboard:
        return None
    return InlineKeyboardMarkup([[_button(b) for b in row] for row in keyboard])


def _button(b: Button) -> InlineKeyboardButton:
    if b.web_app is not None:
        return InlineKeyboardButton(b.text, web_app=WebAppInfo(b.web_app))
    if b.url is not None:
        return InlineKeyboardButton(b.text, url=b.url)
    return InlineKeyboardButton(b.text, callback_data=b.data)


class GroupBudget:
    """The request budget of one group: at most ``limit`` requests in any ``window``
    seconds (a log of the last requests' times), of which edits may use all but
    ``reserve``, at a pace set by a token bucket (``burst`` at once, then ``rate`` a second)
    chosen so that edits alone never take more than ``limit − reserve`` of a window."""

    __slots__ = ("at", "burst", "limit", "rate", "reserve", "stamps", "tokens", "window")

    def __init__(self, limit: int, window: float = WINDOW) -> None:
        self.limit = max(1, limit)
        self.window = window
        self.reserve = self.limit // 6
        self.burst = max(1, self.limit // 6)
        self.rate = max(1, self.limit - self.reserve - self.burst) / window
        self.stamps: deque[float] = deque()  # when recent requests finished, oldest first
        self.tokens = float(self.burst)
        self.at = -math.inf  # when ``tokens`` was counted

    def _expire(self, now: float) -> None:
        while self.stamps and self.stamps[0] <= now - self.window:
            self.stamps.popleft()

    def used(self, now: float) -> int:
        """Requests made in the last window."""
        self._expire(now)
        return len(self.stamps)

    def _room_wait(self, now: float, room: int) -> float:
        """Seconds until fewer than ``room`` requests are left in the window (0: now)."""
        used = self.used(now)
        if used < room:
            return 0.0
        return self.stamps[used - room] + self.window - now

    def new_wait(self, now: float) -> float:
        """Seconds until a new message may go (0: now)."""
        return self._room_wait(now, self.limit)

    def _tokens(self, now: float) -> float:
        return min(float(self.burst), self.tokens + (now - self.at) * self.rate)

    def edit_wait(self, now: float) -> float:
        """Seconds until an edit may go (0: now)."""
        wait = self._room_wait(now, self.limit - self.reserve) if self.limit > self.reserve \
            else math.inf
        tokens = self._tokens(now)
        if tokens < 1:
            wait = max(wait, (1 - tokens) / self.rate)
        return wait

    def take_edit(self, now: float) -> None:
        self.tokens = self._tokens(now) - 1
        self.at = now

    def record(self, now: float) -> None:
        """A request to the group finished (counted from its end: it reached Telegram by
        then, so the window never undercounts)."""
        self.stamps.append(now)


SentHook = Callable[[int, str, bool], None]


@dataclass(frozen=True, slots=True)
class Upload:
    """A file to send as a new message: ``kind`` "photo" or "document"."""

    kind: str
    filename: str
    data: bytes = field(repr=False)
    caption: str = ""  # HTML


@dataclass(eq=False, slots=True)
class Slot:
    key: str
    message_id: int | None = None
    sent: str | None = None  # digest of the content Telegram shows
    want: Rendered | None = None
    want_digest: str = ""
    final: bool = False  # forget the slot once this content is out
    on_sent: SentHook | None = None  # (message id, digest, sent anew?) after each request
    probe: metrics.Probe | None = None
    tries: int = 0
    delete: bool = False  # a queued deleteMessage of ``message_id``
    pin: str = ""  # a queued "pin" or "unpin" of ``message_id``
    on_done: Callable[[TelegramError | None], None] | None = None  # the pin's outcome
    upload: Upload | None = None  # a queued sendPhoto / sendDocument (a one-off message)
    thread: int | None = None  # the forum topic its new messages go to (None: General)
    game: int | None = None  # the game it shows (several processes: its lease holder edits)
    withdrawn: bool = False  # ``withdraw`` while its request was in flight: deleted after

    @property
    def fresh(self) -> bool:
        """The next request sends a new message (not an edit or a delete)."""
        return self.message_id is None and not self.delete and not self.pin


@dataclass(eq=False)
class ChatQueue:
    chat_id: int
    slots: dict[str, Slot] = field(default_factory=dict)
    dirty: list[str] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    kick: asyncio.Event = field(default_factory=asyncio.Event)  # wakes a waiting worker
    budget: GroupBudget | None = None  # groups only
    records: list[tuple[str, int | None]] = field(default_factory=list)  # shared: slot ids
    paused: set[int | None] = field(default_factory=set)  # topics that refused a message
    current: str | None = None  # the slot whose request is in flight


class Shared(Protocol):
    """Coordination with other processes (``bot.tg.io.coord.SharedSends``)."""

    async def group_send(self, chat_id: int, limit: int, window: float) -> float: ...

    async def group_done(self, chat_id: int) -> None: ...

    async def claim(self, chat_id: int, slot: str) -> tuple[bool, int | None]: ...

    async def sent(self, chat_id: int, slot: str, message_id: int | None) -> None: ...

    async def may_show(self, game_id: int) -> bool: ...

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str,
                         digest: str) -> str: ...

    async def end_edit(self, chat_id: int, slot: str, shown: str | None) -> None: ...


EDIT_WAIT = 0.05  # seconds before asking again while another process edits a message
CLAIM_WAIT = 0.3  # seconds before asking again for a slot another process is sending


def of_game(key: str, game_id: int) -> bool:
    """Is ``key`` a slot of the game ``game_id`` (its lobby, table, hands, reminders, and
    their ``:moved`` copies)?"""
    if key[:1] not in ("l", "t", "h", "r"):
        return False
    head = str(game_id)
    return key.startswith(head, 1) and (len(key) == len(head) + 1
                                         or key[len(head) + 1] == ":")


def is_reply(slot: Slot) -> bool:
    """A request that goes before the game's messages in a group: an upload, or a new
    message that is not a table's or a hand's (a command's answer, a lobby, a request
    line, a keepers' menu).  A table's new message (the next deal) waits its turn after
    the edits put before it (the last deal's summary first)."""
    return slot.upload is not None or (slot.fresh and slot.key[:1] not in ("t", "h", "r"))


def claimable(key: str) -> bool:
    """Slots sent once across processes: a game's lobby, table and hands (not one-off
    replies, uploads and reminders, which only the process that makes them sends)."""
    return key[:1] in ("l", "t", "h") and ":moved" not in key


Hook = Callable[[int], Awaitable[None]]
MigrateHook = Callable[[int, int], Awaitable[None]]
TopicHook = Callable[[int, "int | None"], Awaitable[None]]

#: What the Bot API answers for a closed topic, and for a topic that is no more.
TOPIC_CLOSED_ERRORS = ("topic_closed",)
TOPIC_GONE_ERRORS = ("message thread not found", "topic_deleted", "topic_id_invalid")


def thread_kw(thread: int | None) -> dict[str, int]:
    """``message_thread_id`` for a send into ``thread`` (nothing for General / no topics)."""
    return {"message_thread_id": thread} if thread is not None and thread > 1 else {}


async def _nothing(chat_id: int) -> None:
    return None


async def _nothing2(old: int, new: int) -> None:
    return None


async def _no_topic(chat_id: int, thread: int | None) -> None:
    return None


class Outbox:
    def __init__(self, bot: BotLike, *, group_per_minute: int = 20,
                 window: float = WINDOW, send_timeout: float | None = None) -> None:
        self.bot = bot
        # a new message waits this long for its answer (None: the request's default)
        self.send_timeout = send_timeout
        self.group_per_minute = group_per_minute
        self.window = window  # of the group budget (Telegram's minute; shorter in tests)
        self.queues: dict[int, ChatQueue] = {}
        self.on_forbidden: Hook = _nothing  # a private chat answered 403
        self.on_kicked: Hook = _nothing  # a group answered 403
        self.on_migrated: MigrateHook = _nothing2
        self.on_topic_closed: TopicHook = _no_topic  # a topic refused a message (paused)
        self.on_topic_gone: TopicHook = _no_topic  # a topic was deleted
        self._ids = itertools.count(1)
        self._idle = asyncio.Event()
        self._idle.set()
        self._workers: set[asyncio.Task[None]] = set()  # running: idle when empty
        self.closed = False
        self.shared: Shared | None = None  # several processes (see the module's text)
        self.budget_waits = 0  # times a group waited for its budget, and how long (metrics)
        self.budget_wait_seconds = 0.0
        # messages sent through inline mode (no chat: edited by their inline_message_id)
        self._inline_want: dict[str, Rendered] = {}
        self._inline_shown: dict[str, str] = {}  # digest last shown (the newest INLINE_KEEP)
        self._inline_tasks: dict[str, asyncio.Task[None]] = {}
        self._inline_hooks: dict[str, Callable[[str], None]] = {}  # (while content waits)
        self._inline_games: dict[str, int] = {}  # the game an inline message shows (same)
        # ``_edit`` and ``_send`` call do_api_request("editMessageText"/"sendMessage") on
        # purpose; PTB advises Bot.edit_message_text/send_message instead, whose decoding of
        # the answer is what they avoid
        warnings.filterwarnings("ignore",
                                message=r"Please use 'Bot\.(editMessageText|sendMessage)'",
                                category=PTBUserWarning, module=r"bot\.tg\.io\.outbox")

    # ------------------------------------------------------------------ putting

    def _queue(self, chat_id: int) -> ChatQueue:
        q = self.queues.get(chat_id)
        if q is None:
            q = self.queues[chat_id] = ChatQueue(chat_id)
            if chat_id < 0:
                q.budget = GroupBudget(self.group_per_minute, self.window)
        return q

    def put(self, chat_id: int, key: str, content: Rendered, *, final: bool = False,
            on_sent: SentHook | None = None, thread: int | None = None,
            game: int | None = None, digest: str | None = None) -> None:
        """Show ``content`` in the slot ``key`` of ``chat_id`` (sent or edited soon; a new
        message goes to the forum topic ``thread``).  ``game``: the game it shows — with
        several processes, an edit is made only while this process holds its lease.
        ``digest``: ``content.digest()``, if the caller has it already."""
        if self.closed or self._no_chat(chat_id, key):
            return
        q = self._queue(chat_id)
        slot = q.slots.get(key)
        if slot is None:
            slot = q.slots[key] = Slot(key, thread=thread)
        elif thread is not None:
            slot.thread = thread
        slot.want = content
        slot.want_digest = digest or content.digest()
        slot.final = final
        if game is not None:
            slot.game = game
        if on_sent is not None:
            slot.on_sent = on_sent
        probe = metrics.current.get()
        if probe is not None and not probe.done:
            slot.probe = probe
        if key not in q.dirty:
            q.dirty.append(key)
        self._wake(q)

    def send(self, chat_id: int, content: Rendered, on_sent: SentHook | None = None, *,
             thread: int | None = None) -> None:
        """A one-off message (a reply, a reminder)."""
        self.put(chat_id, f"once:{next(self._ids)}", content, final=True, on_sent=on_sent,
                 thread=thread)

    def send_photo(self, chat_id: int, filename: str, data: bytes, caption: str = "", *,
                   thread: int | None = None) -> None:
        """A photo (PNG bytes) as a new message; paced like a reply in a group."""
        self._upload(chat_id, Upload("photo", filename, data, caption), thread)

    def send_document(self, chat_id: int, filename: str, data: bytes,
                      caption: str = "", *, thread: int | None = None) -> None:
        """A file as a new message; paced like a reply in a group."""
        self._upload(chat_id, Upload("document", filename, data, caption), thread)

    def _upload(self, chat_id: int, upload: Upload, thread: int | None) -> None:
        if self.closed or self._no_chat(chat_id, upload.kind):
            return
        q = self._queue(chat_id)
        key = f"upload:{next(self._ids)}"
        content = Rendered(upload.caption)
        q.slots[key] = Slot(key, want=content, want_digest=f"upload:{key}", final=True,
                            upload=upload, thread=thread)
        probe = metrics.current.get()
        if probe is not None and not probe.done:
            q.slots[key].probe = probe
        q.dirty.append(key)
        self._wake(q)

    def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message (an answered reminder) soon; errors are ignored.  In a group it
        waits like an edit: replies go first."""
        if self.closed or self._no_chat(chat_id, "delete"):
            return
        q = self._queue(chat_id)
        key = f"delete:{next(self._ids)}"
        q.slots[key] = Slot(key, message_id=message_id, final=True, delete=True)
        q.dirty.append(key)
        self._wake(q)

    def withdraw(self, chat_id: int, key: str) -> None:
        """The message of slot ``key`` goes (a keepers' menu closed): not sent if it is
        still waiting, deleted if it was sent (also once a send in flight is answered)."""
        q = self.queues.get(chat_id)
        slot = q.slots.pop(key, None) if q is not None else None
        if q is None or slot is None:
            return
        if key in q.dirty:
            q.dirty.remove(key)
        if q.current == key:
            slot.withdrawn = True  # (``_run`` deletes it once its request is over)
        elif slot.message_id is not None and slot.message_id > 0:
            self.delete(chat_id, slot.message_id)

    def pin(self, chat_id: int, message_id: int, *,
            on_done: Callable[[TelegramError | None], None] | None = None) -> None:
        """Pin a message silently soon (in a group: paced as an edit); ``on_done`` is told
        the outcome (None, or the error)."""
        self._pin(chat_id, message_id, "pin", on_done)

    def unpin(self, chat_id: int, message_id: int) -> None:
        """Unpin a message soon; an error is logged."""
        self._pin(chat_id, message_id, "unpin", None)

    def _pin(self, chat_id: int, message_id: int, what: str,
             on_done: Callable[[TelegramError | None], None] | None) -> None:
        if self.closed or self._no_chat(chat_id, what):
            return
        q = self._queue(chat_id)
        key = f"{what}:{next(self._ids)}"
        q.slots[key] = Slot(key, message_id=message_id, final=True, pin=what, on_done=on_done)
        q.dirty.append(key)
        self._wake(q)

    async def file(self, file_id: str) -> Any:
        """getFile (a record file sent to the bot: ``download_as_bytearray`` fetches it);
        raises TelegramError."""
        bot: Any = self.bot
        return await bot.get_file(file_id)

    async def member(self, chat_id: int, user_id: int | None = None) -> Any:
        """getChatMember of ``user_id`` (None: the bot itself) in ``chat_id``; raises
        TelegramError (BadRequest for an inline table's place: it is no chat)."""
        if self._no_chat(chat_id, "getChatMember"):
            raise BadRequest("Chat not found")
        bot: Any = self.bot  # (the Bot: the fakes of the tests need not answer this)
        return await bot.get_chat_member(chat_id, user_id if user_id is not None else bot.id)

    def known(self, chat_id: int, key: str, message_id: int, digest: str | None, *,
              override: bool = False, thread: int | None = None) -> None:
        """Register a message sent before (after a restart): edits go to ``message_id``
        (``override``: also when the slot is known here with another message — another
        process moved it — and what it shows is ``digest``, which another process may have
        edited since); sent anew, it goes to the topic ``thread``."""
        if self.shared is not None and claimable(key):
            # several processes: what a shared message shows is asked for before its next
            # edit (``SharedSends.begin_edit``), never taken from a copy of the game's ids
            # (another process may have edited it after that copy was stored)
            digest = None
        q = self._queue(chat_id)
        slot = q.slots.get(key)
        if slot is None:
            q.slots[key] = Slot(key, message_id=message_id, sent=digest, thread=thread)
        elif override and slot.message_id != message_id and not slot.delete:
            slot.message_id = message_id
            slot.sent = digest
        elif override and not slot.delete and q.current != key \
                and (digest is not None or self.shared is not None):
            slot.sent = digest  # another process edited it last: what it shows now

    def rename(self, chat_id: int, old: str, new: str) -> bool:
        """The message of slot ``old`` becomes slot ``new`` (a lobby turning into a table, a
        redealt deal's table the next deal's); False if ``old`` is not known here."""
        q = self.queues.get(chat_id)
        if q is None or old not in q.slots or q.slots[old].delete:
            return False
        slot = q.slots.pop(old)
        slot.key = new
        slot.final = False
        q.slots[new] = slot
        q.dirty = [new if k == old else k for k in q.dirty]
        if self.shared is not None:  # recorded before the chat's next request
            if claimable(old):
                q.records.append((old, None))
            if claimable(new) and slot.message_id is not None:
                q.records.append((new, slot.message_id))
            self._wake(q)
        return True

    def message_id(self, chat_id: int, key: str) -> int | None:
        q = self.queues.get(chat_id)
        slot = q.slots.get(key) if q is not None else None
        return slot.message_id if slot is not None else None

    def game_busy(self, chat_ids: set[int], game_id: int) -> bool:
        """Is a request of the game ``game_id`` waiting or in flight in one of
        ``chat_ids``?  (Its session may not leave memory meanwhile.)"""
        for chat_id in chat_ids:
            q = self.queues.get(chat_id)
            if q is None:
                continue
            if q.current is not None and of_game(q.current, game_id):
                return True
            if any(of_game(k, game_id) for k in q.dirty):
                return True
        return False

    def forget_game(self, chat_ids: set[int], game_id: int) -> None:
        """Forget the slots of the game ``game_id`` (it left memory: its message ids and
        what they show are stored with it and registered again by ``known`` when it is
        rebuilt); a private chat left without slots loses its queue."""
        for chat_id in chat_ids:
            q = self.queues.get(chat_id)
            if q is None:
                continue
            for key in [k for k in q.slots if of_game(k, game_id)]:
                self.forget(chat_id, key)
            if chat_id > 0 and not q.slots and not q.dirty \
                    and (q.task is None or q.task.done()):
                del self.queues[chat_id]

    def forget(self, chat_id: int, key: str) -> None:
        q = self.queues.get(chat_id)
        if q is not None:
            q.slots.pop(key, None)
            if key in q.dirty:
                q.dirty.remove(key)

    def pause(self, chat_id: int, thread: int | None) -> None:
        """Send nothing more to the topic ``thread`` of ``chat_id`` (closed) until
        ``resume``; what is put meanwhile waits, coalesced."""
        self._queue(chat_id).paused.add(thread)

    def resume(self, chat_id: int, thread: int | None) -> None:
        """The topic takes messages again: what waits for it is sent."""
        q = self.queues.get(chat_id)
        if q is not None and thread in q.paused:
            q.paused.discard(thread)
            if self._has_work(q) and not self.closed:
                self._wake(q)

    def paused(self, chat_id: int, thread: int | None) -> bool:
        q = self.queues.get(chat_id)
        return q is not None and thread in q.paused

    def drop_topic(self, chat_id: int, thread: int | None) -> None:
        """Forget every slot of the topic ``thread`` (deleted: its messages are gone)."""
        q = self.queues.get(chat_id)
        if q is None:
            return
        q.paused.discard(thread)
        for key in [k for k, slot in q.slots.items() if slot.thread == thread]:
            self.forget(chat_id, key)

    def drop_chat(self, chat_id: int) -> None:
        q = self.queues.pop(chat_id, None)
        if q is not None and q.task is not None and q.task is not asyncio.current_task():
            q.task.cancel()
        self._check_idle()

    def prune(self, keep: set[int]) -> int:
        """Forget the queues of chats not in ``keep`` that have nothing to send (bounded
        memory: a chat whose game ended holds no queue); returns how many were dropped.
        A group's queue that still counts recent requests is kept (its budget)."""
        try:
            now = asyncio.get_running_loop().time()
        except RuntimeError:  # pragma: no cover - no loop: keep every group's budget
            now = -math.inf
        idle = [c for c, q in self.queues.items()
                if c not in keep and not q.dirty and (q.task is None or q.task.done())
                and (q.budget is None or (now > -math.inf and not q.budget.used(now)))]
        for c in idle:
            del self.queues[c]
        return len(idle)

    def migrate(self, old: int, new: int) -> None:
        """A group became a supergroup: its queue moves; old message ids are void."""
        q = self.queues.pop(old, None)
        if q is None:
            return
        target = self._queue(new)
        for key, slot in q.slots.items():
            if slot.delete:
                continue
            slot.message_id = None
            slot.sent = None
            if slot.want is None:
                continue
            target.slots[key] = slot
            if key not in target.dirty:
                target.dirty.append(key)
        if q.task is not None and q.task is not asyncio.current_task():
            q.task.cancel()
        self._wake(target)

    # ------------------------------------------------------------------ inline messages

    @staticmethod
    def _no_chat(chat_id: int, what: str) -> bool:
        """The synthetic chat of an inline table (``model.inline_place``) is no chat:
        nothing is ever sent to it (its table is the inline message: ``edit_inline``).  A
        room that tries is a bug: logged as an error, and nothing is sent."""
        if not is_inline_place(chat_id):
            return False
        log.error("%s to the inline place %s not sent: it is no chat", what, chat_id)
        return True

    def edit_inline(self, inline_message_id: str, content: Rendered, *,
                    on_shown: Callable[[str], None] | None = None,
                    game: int | None = None) -> None:
        """Show ``content`` on a message a person sent through inline mode (it has no chat
        the bot knows: edited by its ``inline_message_id``, outside every chat's queue and
        budget).  Only the newest content is sent, and not again once shown; an error is
        logged and the content dropped (the message deleted, the id not valid).
        ``on_shown`` is told the digest of what the message shows once it is edited (to be
        stored: ``inline_known`` after a restart).  ``game``: the game it shows — with
        several processes it is edited only while this process holds the game's lease (or
        nobody does), as a chat's table is (``put``)."""
        if self.closed:
            return
        self._inline_want[inline_message_id] = content
        if on_shown is not None:
            self._inline_hooks[inline_message_id] = on_shown
        if game is not None:
            self._inline_games[inline_message_id] = game
        task = self._inline_tasks.get(inline_message_id)
        if task is None or task.done():
            self._idle.clear()
            task = asyncio.get_running_loop().create_task(
                self._run_inline(inline_message_id), name=f"outbox:inline:{inline_message_id}",
                context=contextvars.Context())
            self._inline_tasks[inline_message_id] = task
            self._workers.add(task)
            task.add_done_callback(self._inline_done)

    def inline_known(self, inline_message_id: str, digest: str) -> None:
        """An inline message shows the content of ``digest`` (stored before a restart): it
        is not edited to that again."""
        self._inline_shown.pop(inline_message_id, None)
        self._inline_shown[inline_message_id] = digest
        while len(self._inline_shown) > INLINE_KEEP:
            del self._inline_shown[next(iter(self._inline_shown))]

    def _inline_done(self, task: asyncio.Task[None]) -> None:
        for iid, t in list(self._inline_tasks.items()):
            if t is task:
                del self._inline_tasks[iid]
        self._worker_done(task)

    async def _run_inline(self, iid: str) -> None:
        failures = 0
        while (content := self._inline_want.get(iid)) is not None:
            digest = content.digest()
            if self._inline_shown.get(iid) != digest and not await self._inline_mine(iid):
                self._inline_drop(iid, content)  # (the lease holder shows the game)
                continue
            if self._inline_shown.get(iid) != digest:
                shown = False
                try:
                    await self._edit_inline(iid, content)
                    shown = True
                except RetryAfter as e:
                    with warnings.catch_warnings():  # PTB 22 warns about the type
                        warnings.simplefilter("ignore", PTBDeprecationWarning)
                        after = e.retry_after
                    await asyncio.sleep(after.total_seconds() if isinstance(after, timedelta)
                                        else float(after))
                    continue
                except BadRequest as e:
                    shown = "not modified" in str(e).lower()
                    if not shown:
                        log.warning("inline message %s not edited: %s", iid, e)
                except (TimedOut, NetworkError) as e:
                    failures += 1
                    if failures < INLINE_TRIES:
                        await asyncio.sleep(0.5 * failures)
                        continue
                    log.warning("inline message %s not edited: %s", iid, e)
                except TelegramError as e:
                    log.warning("inline message %s not edited: %s", iid, e)
                self.inline_known(iid, digest)
                hook = self._inline_hooks.get(iid)
                if hook is not None and shown:
                    hook(digest)
            failures = 0
            self._inline_drop(iid, content)

    def _inline_drop(self, iid: str, content: Rendered) -> None:
        """``content`` of the inline message ``iid`` is done with (unless newer came)."""
        if self._inline_want.get(iid) is content:
            del self._inline_want[iid]
            self._inline_hooks.pop(iid, None)
            self._inline_games.pop(iid, None)

    async def _inline_mine(self, iid: str) -> bool:
        """May this process edit the inline message ``iid`` (several processes: it holds
        the lease of the game shown there, or nobody does)?"""
        game = self._inline_games.get(iid)
        if game is None or self.shared is None:
            return True
        try:
            return await self.shared.may_show(game)
        except Exception as e:  # (the database did not answer: shown, as alone)
            log.warning("inline message %s: the lease of game %s not read: %s", iid, game, e)
            return True

    async def _edit_inline(self, iid: str, content: Rendered) -> None:
        """editMessageText by ``inline_message_id`` (as ``_edit``: not decoded)."""
        bot = self.bot
        if isinstance(bot, Bot):
            await bot.do_api_request("editMessageText", api_kwargs={
                "inline_message_id": iid, "text": content.text,
                **layout_kw(content.keyboard, plain=True)})
        else:  # (a fake of the tests: its edit_message_text takes the keyword)
            fake: Any = bot
            await fake.edit_message_text(text=content.text, inline_message_id=iid,
                                         **layout_kw(content.keyboard, plain=False))

    # ------------------------------------------------------------------ the workers

    def _wake(self, q: ChatQueue) -> None:
        if q.task is None or q.task.done():
            self._idle.clear()
            q.task = asyncio.get_running_loop().create_task(
                self._run(q), name=f"outbox:{q.chat_id}", context=contextvars.Context()
            )
            self._workers.add(q.task)
            q.task.add_done_callback(self._worker_done)
        else:
            q.kick.set()  # a worker waiting for the budget looks again (a reply goes first)

    @staticmethod
    def _has_work(q: ChatQueue) -> bool:
        """Something of ``q`` is waiting that is not held back by a closed topic."""
        if not q.paused:
            return bool(q.dirty)
        return any((slot := q.slots.get(k)) is None or slot.thread not in q.paused
                   for k in q.dirty)

    def _worker_done(self, task: asyncio.Task[None]) -> None:
        """(Also for a worker cancelled before it ran: its ``finally`` never did.)"""
        self._workers.discard(task)
        self._check_idle()

    def _check_idle(self) -> None:
        """Idle when no worker runs (a set, not a scan of every queue: restoring a
        thousand games wakes a thousand workers)."""
        if not self._workers:
            self._idle.set()

    async def idle(self, timeout: float = 10.0) -> None:
        """Wait until every queue is empty (shutdown, tests)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)

    async def _record(self, q: ChatQueue) -> None:
        """Shared: store the slots renamed here (before any request of the chat)."""
        assert self.shared is not None
        while q.records:
            key, mid = q.records[0]
            await self.shared.sent(q.chat_id, key, mid)
            q.records.pop(0)

    async def _shared_budget(self, q: ChatQueue, slot: Slot) -> float:
        """Shared: count this request in the group's window across processes (0.0), or
        the seconds to wait (nothing counted).  New messages may use the whole budget,
        edits all but the reserve (as ``GroupBudget``)."""
        assert self.shared is not None and q.budget is not None
        b = q.budget
        limit = b.limit if is_reply(slot) else max(1, b.limit - b.reserve)
        return await self.shared.group_send(q.chat_id, limit, b.window)

    async def _group_done(self, q: ChatQueue) -> None:
        """Shared: the request counted by ``_shared_budget`` is over; it counts from now."""
        assert self.shared is not None
        try:
            await self.shared.group_done(q.chat_id)
        except Exception as e:  # the database failed: it stays counted from before
            log.warning("chat %s: the shared budget not updated: %s", q.chat_id, e)

    def _pick(self, q: ChatQueue, now: float) -> tuple[Slot | None, float]:
        """The next request of ``q``, or None and how long to wait (inf: nothing to do).

        Slots whose message already shows their content are settled here, without a
        request.  A private chat takes its slots in order; a group takes a reply first
        (while the window has room), then the game's messages in order (while the budget
        allows).
        """
        ready: list[Slot] = []
        for key in list(q.dirty):
            slot = q.slots.get(key)
            if slot is None or (slot.want is None and not slot.delete and not slot.pin):
                q.dirty.remove(key)
                continue
            if q.paused and slot.thread in q.paused:
                continue  # its topic is closed: it waits (``resume``)
            if slot.want is not None and slot.message_id is not None \
                    and slot.want_digest == slot.sent:
                q.dirty.remove(key)
                self._done(q, slot, slot.want)
                continue
            ready.append(slot)
        if not ready:
            return None, math.inf
        b = q.budget
        if b is None:
            return ready[0], 0.0
        reply = next((s for s in ready if is_reply(s)), None)
        if reply is not None:
            wait = b.new_wait(now)
            return (reply, 0.0) if wait <= 0 else (None, wait)
        wait = b.edit_wait(now)
        if wait > 0:
            return None, wait
        b.take_edit(now)
        # what is said once a deal (a summary, the next table) before the merged edits
        return next((s for s in ready if s.fresh or s.final), ready[0]), 0.0

    async def _run(self, q: ChatQueue) -> None:
        logs.chat_id.set(q.chat_id)  # this worker's own context (LOG_FORMAT=json)
        loop = asyncio.get_running_loop()
        try:
            while self.queues.get(q.chat_id) is q:
                if self.shared is not None and q.records:
                    try:
                        await self._record(q)
                    except Exception as e:  # the database failed: try again soon
                        log.warning("chat %s: message ids not shared yet: %s", q.chat_id, e)
                        await asyncio.sleep(1.0)
                        continue
                slot, wait = self._pick(q, loop.time())
                if slot is None:
                    if wait == math.inf:
                        break
                    self.budget_waits += 1
                    began = loop.time()
                    q.kick.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(q.kick.wait(), wait + 0.001)
                    self.budget_wait_seconds += loop.time() - began
                    continue
                if self.shared is not None and q.budget is not None:
                    try:
                        wait = await self._shared_budget(q, slot)
                    except Exception as e:  # the database failed: the budget is unknown
                        log.warning("chat %s: the shared budget failed: %s", q.chat_id, e)
                        wait = 1.0
                    if wait > 0:  # the window is full (other processes sent): wait
                        self.budget_waits += 1
                        self.budget_wait_seconds += wait
                        await asyncio.sleep(wait)
                        continue
                q.dirty.remove(slot.key)
                q.current = slot.key
                try:
                    if slot.delete:
                        await self._delete(q, slot)
                    elif slot.pin:
                        await self._pin_now(q, slot)
                    else:
                        await self._one(q, slot)
                finally:
                    q.current = None
                    if slot.withdrawn and slot.message_id is not None and slot.message_id > 0:
                        slot.withdrawn = False
                        self.delete(q.chat_id, slot.message_id)
                    if q.budget is not None:
                        q.budget.record(loop.time())
                    if self.shared is not None and q.budget is not None:
                        await self._group_done(q)
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - a bug; keep the bot alive
            log.exception("outbox worker of chat %s failed", q.chat_id)
        finally:
            me = asyncio.current_task()
            if me is not None:
                self._workers.discard(me)
            if q.task is me:
                q.task = None
            if self._has_work(q) and self.queues.get(q.chat_id) is q and not self.closed:
                self._wake(q)
            elif not q.slots and self.queues.get(q.chat_id) is q and q.chat_id > 0:
                del self.queues[q.chat_id]  # nothing left to show in this private chat
            self._check_idle()

    async def _delete(self, q: ChatQueue, slot: Slot) -> None:
        q.slots.pop(slot.key, None)
        assert slot.message_id is not None
        try:
            await self.bot.delete_message(chat_id=q.chat_id, message_id=slot.message_id)
        except TelegramError as e:
            log.info("chat %s: message %s not deleted: %s", q.chat_id, slot.message_id,
                     e.message)

    async def _pin_now(self, q: ChatQueue, slot: Slot) -> None:
        q.slots.pop(slot.key, None)
        assert slot.message_id is not None
        error: TelegramError | None = None
        bot: Any = self.bot
        try:
            if slot.pin == "pin":
                await bot.pin_chat_message(q.chat_id, slot.message_id,
                                                disable_notification=True)
            else:
                await bot.unpin_chat_message(q.chat_id, message_id=slot.message_id)
        except TelegramError as e:
            error = e
            log.info("chat %s: message %s not %sned: %s", q.chat_id, slot.message_id,
                     slot.pin, e.message)
        if slot.on_done is not None:
            slot.on_done(error)

    async def _one(self, q: ChatQueue, slot: Slot) -> None:
        content = slot.want
        assert content is not None
        digest = slot.want_digest
        probe, slot.probe = slot.probe, None
        token = metrics.current.set(probe)
        editing = False  # several processes: this request is recorded as in flight
        try:
            if slot.upload is not None:
                await self._send_upload(q.chat_id, slot.upload, slot.thread)
                slot.message_id = -1  # sent: never retried as an edit
                slot.sent = digest
            elif slot.message_id is None and not await self._claimed(q, slot):
                return  # another process is sending it: asked again soon
            elif slot.message_id is not None and \
                    (verdict := await self._may_edit(q, slot, digest)) != "go":
                if verdict == "again":
                    return  # another process's edit of it is in flight: asked again soon
                self._done(q, slot, content)  # shown already, or by the lease holder
            elif slot.message_id is None:
                slot.message_id = await self._send(q.chat_id, content, slot.thread)
                slot.sent = digest
                if self.shared is not None and claimable(slot.key):
                    await self._share(q, slot.key, slot.message_id)
                    editing = True  # (its row holds the message now: what it shows too)
                if slot.on_sent is not None:
                    slot.on_sent(slot.message_id, digest, True)
            else:
                editing = self.shared is not None and claimable(slot.key)
                await self._edit(q.chat_id, slot.message_id, content)
                slot.sent = digest
                if slot.on_sent is not None:
                    slot.on_sent(slot.message_id, digest, False)
            slot.tries = 0
            self._done(q, slot, content)
        except RetryAfter as e:
            with warnings.catch_warnings():  # PTB 22 warns about the type of retry_after
                warnings.simplefilter("ignore", PTBDeprecationWarning)
                after = e.retry_after
            delay = after.total_seconds() if isinstance(after, timedelta) else float(after)
            log.warning("chat %s: flood control, retry in %s s", q.chat_id, delay)
            self._again(q, slot)
            await asyncio.sleep(float(delay) + 0.1)
        except ChatMigrated as e:
            new = int(e.new_chat_id)
            log.info("chat %s migrated to %s", q.chat_id, new)
            self._again(q, slot)
            await self.on_migrated(q.chat_id, new)
            self.migrate(q.chat_id, new)
        except Forbidden as e:
            log.info("chat %s: forbidden (%s)", q.chat_id, e.message)
            self.drop_chat(q.chat_id)
            if q.chat_id > 0:
                await self.on_forbidden(q.chat_id)
            else:
                await self.on_kicked(q.chat_id)
        except BadRequest as e:
            text = e.message.lower()
            if "not modified" in text:
                slot.sent = digest
                self._done(q, slot, content)
            elif any(e in text for e in TOPIC_CLOSED_ERRORS):
                log.info("chat %s: topic %s is closed; it waits", q.chat_id, slot.thread)
                q.paused.add(slot.thread)
                self._again(q, slot)
                await self.on_topic_closed(q.chat_id, slot.thread)
            elif slot.thread is not None and any(e in text for e in TOPIC_GONE_ERRORS):
                log.info("chat %s: topic %s is gone (%s)", q.chat_id, slot.thread, e.message)
                self.drop_topic(q.chat_id, slot.thread)
                await self.on_topic_gone(q.chat_id, slot.thread)
            elif slot.message_id is not None and ("not found" in text or "can't be edited" in text):
                log.info("chat %s: message %s is gone, sending anew", q.chat_id, slot.message_id)
                slot.message_id = None
                slot.sent = None
                if self.shared is not None and claimable(slot.key):
                    await self._share(q, slot.key, None)
                self._again(q, slot)
            else:
                log.error("chat %s: %s refused: %s", q.chat_id, slot.key, e.message)
                self._done(q, slot, content)
        except TimedOut as e:
            # an edit is idempotent: done again; a new message ran out of its patience
            # (SEND_TIMEOUT): it may be there, but a missing hand stalls a game - sent again
            slot.tries += 1
            if slot.tries <= 5:
                log.warning("chat %s: %s timed out (%s), retrying", q.chat_id, slot.key,
                            e.message)
                self._again(q, slot)
            else:
                log.error("chat %s: giving up on %s: %s", q.chat_id, slot.key, e.message)
                self._done(q, slot, content)
        except NetworkError as e:
            slot.tries += 1
            if slot.tries <= 5:
                log.warning("chat %s: network error (%s), retrying", q.chat_id,
                            e.message.partition(". Parsing the server response")[0])
                self._again(q, slot)
                await asyncio.sleep(min(8.0, 0.5 * 2 ** slot.tries))
            else:
                log.error("chat %s: giving up on %s: %s", q.chat_id, slot.key, e.message)
                self._done(q, slot, content)
        finally:
            metrics.current.reset(token)
            if editing:
                await self._shown(q, slot.key, digest if slot.sent == digest else None)

    async def _shown(self, q: ChatQueue, key: str, shown: str | None) -> None:
        """Shared: this process's request for ``key`` is over; the message shows ``shown``
        (None: unchanged).  A database failure here costs at most one edit that changes
        nothing, later (the next editor sees the edit as in flight for ``EDIT_BUSY``)."""
        assert self.shared is not None
        try:
            await self.shared.end_edit(q.chat_id, key, shown)
        except Exception as e:
            log.warning("chat %s: what %s shows not stored: %s", q.chat_id, key, e)

    async def _claimed(self, q: ChatQueue, slot: Slot) -> bool:
        """Shared: may this process send ``slot`` as a new message?  False (and the slot
        queued again) while another process sends it; if it was sent, ``slot`` takes its
        message id (the caller edits it)."""
        if self.shared is None or not claimable(slot.key):
            return True
        try:
            mine, mid = await self.shared.claim(q.chat_id, slot.key)
        except Exception as e:  # the database failed: not sent now (maybe twice) but later
            log.warning("chat %s: %s not claimed: %s", q.chat_id, slot.key, e)
            mine, mid = False, None
        if mine:
            return True
        if mid is not None:
            slot.message_id = mid
            slot.sent = None
            return True
        self._again(q, slot)
        await asyncio.sleep(CLAIM_WAIT)
        return False

    async def _may_edit(self, q: ChatQueue, slot: Slot, digest: str) -> str:
        """Several processes: edit the message now ("go"), not at all ("skip"), or later
        ("again", the slot queued again)?

        Only the game's lease holder (or anyone, if nobody holds it) edits the game's
        messages: a copy elsewhere may be older, and its edit could land after the holder's
        newer one.  A shared message (a lobby, a table, a hand) is asked about in the same
        transaction (``SharedSends.begin_edit``): the content it shows already is not
        edited again — whoever showed it — and while another process's edit of it is in
        flight this one waits, so two edits never cross.  (Asked just before the edit: the
        holder changes when another process stores a move.)"""
        if self.shared is None:
            return "go"
        if claimable(slot.key):
            try:
                state = await self.shared.begin_edit(slot.game, q.chat_id, slot.key, digest)
            except Exception as e:  # the database failed: edited (the newest state wins)
                log.warning("chat %s: what %s shows is unknown: %s", q.chat_id, slot.key, e)
                return "go"
            if state == "go":
                return "go"
            if state == "shown":
                slot.sent = digest
                return "skip"
            if state == "busy":
                self._again(q, slot)
                await asyncio.sleep(EDIT_WAIT)
                return "again"
        elif slot.game is None:
            return "go"
        else:
            try:
                if await self.shared.may_show(slot.game):
                    return "go"
            except Exception as e:  # the database failed: edited (the newest state wins)
                log.warning("chat %s: the lease of game %s unknown: %s", q.chat_id, slot.game,
                            e)
                return "go"
        log.info("chat %s: %s not edited: game %s is shown by another process", q.chat_id,
                 slot.key, slot.game)
        return "skip"

    async def _share(self, q: ChatQueue, key: str, message_id: int | None) -> None:
        assert self.shared is not None
        try:
            await self.shared.sent(q.chat_id, key, message_id)
        except Exception as e:  # kept to be stored before the chat's next request
            log.warning("chat %s: the id of %s not shared yet: %s", q.chat_id, key, e)
            q.records.append((key, message_id))

    async def _send(self, chat_id: int, content: Rendered, thread: int | None) -> int:
        """sendMessage; the new message's id.  Through python-telegram-bot's ``Bot`` by
        ``do_api_request`` as ``_edit`` is, with the keyboard as plain JSON data
        (``keyboard_json``): the answer's ``message_id`` is read from its JSON, not from a
        ``Message`` decoded with its chat, sender and every button (about 1 ms a send)."""
        bot = self.bot
        if isinstance(bot, Bot):
            kw = {"chat_id": chat_id, "text": content.text,
                  **layout_kw(content.keyboard, plain=True), **thread_kw(thread)}
            result = await bot.do_api_request("sendMessage", api_kwargs=kw,
                                              **self._patient())
            if not isinstance(result, dict) or not isinstance(result.get("message_id"), int):
                raise NetworkError(f"sendMessage answered without a message: {result!r}")
            return int(result["message_id"])
        msg = await bot.send_message(chat_id=chat_id, text=content.text,
                                     **layout_kw(content.keyboard, plain=False),
                                     **thread_kw(thread), **self._patient())
        return int(msg.message_id)

    async def _edit(self, chat_id: int, message_id: int, content: Rendered) -> None:
        """editMessageText.  Through python-telegram-bot's ``Bot`` by ``do_api_request``
        without a return type: the same parameters, request object and ExtBot rate limiter as
        ``Bot.edit_message_text``, but the answer (the edited message) is not decoded into a
        ``Message`` that nothing reads (about 0.7 ms per edit, the most of PTB's own cost of
        an edit), and the keyboard is plain JSON data (``keyboard_json``), not PTB's objects.
        Errors are PTB's usual ones (BadRequest, RetryAfter, TimedOut, ...)."""
        bot = self.bot
        if isinstance(bot, Bot):
            await bot.do_api_request("editMessageText", api_kwargs={
                "chat_id": chat_id, "message_id": message_id, "text": content.text,
                **layout_kw(content.keyboard, plain=True)})
        else:
            await bot.edit_message_text(text=content.text, chat_id=chat_id, message_id=message_id,
                                        **layout_kw(content.keyboard, plain=False))

    def _patient(self) -> dict[str, float]:
        """The read timeout of a new message: a send that timed out has an unknown outcome
        (Telegram may have delivered it), and sending it again would post it twice, so a
        send waits for the late answer (``send_timeout``) where an edit gives up sooner."""
        return {} if self.send_timeout is None else {"read_timeout": self.send_timeout}

    async def _send_upload(self, chat_id: int, up: Upload, thread: int | None) -> None:
        kw: dict[str, Any] = {"caption": up.caption, "parse_mode": ParseMode.HTML} \
            if up.caption else {}
        kw.update(thread_kw(thread))
        kw.update(self._patient())
        file = InputFile(up.data, filename=up.filename)
        if up.kind == "photo":
            await self.bot.send_photo(chat_id=chat_id, photo=file, **kw)
        else:
            await self.bot.send_document(chat_id=chat_id, document=file, **kw)

    def _again(self, q: ChatQueue, slot: Slot) -> None:
        if slot.key not in q.dirty:
            q.dirty.insert(0, slot.key)

    def _done(self, q: ChatQueue, slot: Slot, content: Rendered) -> None:
        if slot.final and slot.want is content and q.slots.get(slot.key) is slot:
            del q.slots[slot.key]

    async def close(self) -> None:
        self.closed = True
        tasks = [q.task for q in self.queues.values() if q.task is not None]
        tasks += list(self._inline_tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
