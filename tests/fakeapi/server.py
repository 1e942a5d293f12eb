"""A fake Telegram Bot API server for end-to-end tests with a real python-telegram-bot (PTB).

It listens on 127.0.0.1 (a random free port), speaks the Bot API the way api.telegram.org does
(``POST /bot<TOKEN>/<method>`` with form, multipart or JSON parameters; ``{"ok": true, "result":
...}`` or ``{"ok": false, "error_code": ..., "description": ..., "parameters": ...}``), checks
every request against the Bot API 10.1 spec (``tests/fakeapi/spec.py``) and keeps the state of
every chat, so tests can play simulated people against the bot and look at what it did.

Start it with a PTB Application (``tests/fakeapi/ptb.py`` has the two helpers)::

    async with FakeTelegramServer() as server:
        alice = server.add_user(1001, "Alice", username="alice")
        app = connect(ApplicationBuilder(), server).build()   # token + base_url + base_file_url
        app.add_handler(...)
        async with polling(app):                   # initialize, start_polling(poll_interval=0,
            await server.send_text(alice, alice, "/start")      # timeout=1), start ... stop
            reply = await server.wait_bot_message(alice)
            answer = await server.click(alice, reply, "Play")   # presses, waits for the answer
        server.assert_clean()     # no spec violations, unanswered callbacks, not-modified edits

Construction (all keyword-only): FakeTelegramServer(token=DEFAULT_TOKEN,
    bot_username="thousand_test_bot", bot_first_name="Thousand Test Bot", privacy_mode=False,
    group_rate_limit=None, callback_answer_timeout=5.0, spec=None, clock=time.monotonic,
    host="127.0.0.1"); start()/stop() or ``async with``.  Attributes: token, bot_id (the number
    before ":" in the token), bot_user (dict), port, base_url, base_file_url.

Set-up (synchronous):
    add_user(user_id, first_name, username=None, language_code="ru", *, last_name=None,
             is_premium=False) -> FakeUser
    add_group(chat_id, title, members=(), admins=(), *, chat_type=None, creator=None,
              bot_status="member", username=None) -> FakeChat   # "supergroup" if id is -100...
    migrate_group(old_id, new_id, *, by=None) -> FakeChat       # emits the service messages
    kick_bot(chat, *, by=None)        # the bot is removed from a group (403 afterwards)
    block(user) / unblock(user)       # also FakeUser.block() / .unblock(); 403 while blocked
    add_member(chat, user);  user(user_id) -> FakeUser;  users;  chats
    add_group(..., is_forum=True, bot_can_manage_topics=True)   # a forum: see "Forums"
    group_rate_limit: int | None      # attribute: answer 429 (parameters.retry_after) to a
                                      # send/edit in a group that had N of them in the last 60 s
    privacy_mode: bool                # attribute: groups deliver only commands/replies/mentions

Simulated people (async):
    send_text(user, chat, text, *, reply_to=None, topic=None) -> FakeMessage  # chat=user: private;
        "/cmd" and "/cmd@bot" get bot_command entities; the first private message "starts" it
    press(user, chat, message_id, callback_data, *, timeout=None, strict=True)
        -> CallbackAnswer | None        # None (and recorded in unanswered_callbacks) on timeout
    press_nowait(...) -> PressedQuery;  wait_answer(query, timeout=None) -> CallbackAnswer | None
    click(user, message, text=None, *, contains=None, data=None, predicate=None, timeout=None)
        -> CallbackAnswer | None        # finds the button, then press()
    FakeUser.send(text, chat=None) / FakeUser.click(message, text, ...) - the same, from a user
    send_document(user, chat, data, file_name="file.json", *, mime_type="application/json",
                  caption=None) -> FakeMessage   # a file message; the bot can getFile it

Files: every photo / document the bot uploads and every file a user sends is a StoredFile
    (file_id, file_unique_id, data, file_path, file_name, mime_type, width, height) in
    ``files`` (by file_id); getFile gives its file_path and ``GET /file/bot<token>/<path>``
    its bytes (``downloads`` lists the paths fetched).  store_file(data, folder, ...) adds one.
    photos(chat) / documents(chat) -> list[FakeMessage] (.photo / .document: the StoredFile,
    .caption); a photo must be a PNG here (its size is read from the header).

Looking at the state:
    chat(ref) -> FakeChat   (ref: FakeChat | FakeUser | int; a user means their private chat)
    message(chat, message_id) -> FakeMessage;  text_of(chat, id) -> str;
    buttons_of(chat, id) -> list[list[Button]];  find_button(message, text=None, *, contains=None,
    data=None, predicate=None) -> Button;  last_bot_message(chat) -> FakeMessage | None;
    bot_messages(chat) -> list[FakeMessage]
    FakeMessage: .text (plain, as the user sees it) .entities .source_text .parse_mode
        .reply_markup .buttons .all_buttons .button_texts .find_button() .history (old versions)
        .edit_count .deleted .from_bot .sender_id .to_api()
    calls(method=None, chat=None) -> list[RecordedRequest];  requests (all, in order)
    commands(scope=None, language_code="") -> list[dict]      # what setMyCommands stored
    max_in_window(chat, window=60.0, methods=MESSAGE_METHODS) -> int   # max sends+edits per window
    request_times(chat, methods=MESSAGE_METHODS) -> list[float]          # server clock, seconds

Waiting (never sleep a fixed time; these wake up on every request the bot makes):
    wait_for(predicate, timeout=5.0, *, what=None) -> value    # TimeoutError if not truthy in time
    wait_bot_message(chat, *, after=None, predicate=None, timeout=5.0) -> FakeMessage
        # the first bot message with message_id > after (a FakeMessage or an id)
    wait_updates_delivered(timeout=5.0)     # every queued update was fetched by getUpdates

Records (lists; assert them empty): violations (str, "method: problem"), internal_errors,
unanswered_callbacks (PressedQuery), not_modified (RecordedRequest); also errors (every non-200
answer), rate_limited (429 answers), updates (every update queued).  assert_clean() checks the
first four.

Forums (issue 18), as Telegram does them: a forum is a supergroup made with
    ``add_group(chat_id, title, ..., is_forum=True)``; ``is_forum: true`` is in getChat and in
    the chat of every update and message.  It has General (``forum.general``, id
    GENERAL_TOPIC_ID = 1) and the topics admins or the bot create; a FakeTopic has
    message_thread_id (= id, the id of its forum_topic_created message), name, icon_color,
    creator_id, closed, deleted, .messages(), .bot_messages(), .to_api() (a ForumTopic).
    Set-up and admins (sync; ``by`` an admin, default the creator; the bot gets the service
    message as an update, whatever its privacy mode):
        create_topic(chat, name, *, by=None, icon_color=7322096, icon_custom_emoji_id=None)
            -> FakeTopic                                   # forum_topic_created
        close_topic(chat, topic, *, by=None) / reopen_topic(...)   # forum_topic_closed /
        close_general(chat, *, by=None) / reopen_general(...)      # forum_topic_reopened
        delete_topic(chat, topic, *, by=None)   # with its messages; no update (as Telegram)
        topic(chat, id) -> FakeTopic;  topics(chat) -> not deleted, General first
    People: send_text / send_document / send_as_group(..., topic=None): into ``topic`` (a
        FakeTopic or its id), else the topic of ``reply_to``, else General.  Refused like a
        client does (ValueError): a closed topic for members (admins and the topic's creator
        may), a deleted topic, a reply into another topic, a topic outside a forum.
    What the bot sees (Bot API 10.1, tdlib/telegram-bot-api Client.cpp): a message in a topic
        has ``is_topic_message: true`` and ``message_thread_id``; with no explicit reply its
        ``reply_to_message`` is the topic's forum_topic_created message; a message in General
        has neither.  ``message_thread_id`` also comes with replies outside topics (General,
        supergroups without topics): the id of the first message of the reply chain, without
        is_topic_message - trust it only when is_topic_message is true.  Basic groups and
        private chats: never.
    Sends (sendMessage, sendPhoto, sendDocument): ``message_thread_id`` of a topic posts there;
        without it the message goes to the topic of the message replied to (reply_parameters),
        else to General.  Refused as the Bot API server answers:
        400 "Bad Request: message thread not found" (THREAD_NOT_FOUND) for message_thread_id=1
            (General is reached without it), an unknown id, a deleted topic (the attribute
            ``deleted_topic_error``; Telegram's own servers answer TOPIC_DELETED at times: set
            it to that to test both), and any id in a private chat (no topic mode here);
        400 "Bad Request: TOPIC_CLOSED" for a closed topic (General too) unless the bot is an
            administrator with can_manage_topics (``chat.bot_can_manage_topics``) or created
            the topic.
        A reply (reply_parameters) to a message of another topic than message_thread_id comes
        back as ``external_reply`` (TDLib's origin "from another chat or topic"), with the
        topic's first message as reply_to_message.
        In basic groups and supergroups without topics message_thread_id is ignored, as the
        Bot API server does.  Edits, deletes and pins need no thread id; the message stays in
        its topic.  The group rate limit (group_rate_limit) is per chat, shared by all topics.
    Bot API methods: createForumTopic (-> ForumTopic; needs admin + can_manage_topics: else
        "not enough rights to create a topic"; "the chat is not a forum"), editForumTopic,
        closeForumTopic, reopenForumTopic, closeGeneralForumTopic, reopenGeneralForumTopic
        (the right, or the topic's creator; "not enough rights to close or open the topic";
        TOPIC_NOT_MODIFIED if already so), deleteForumTopic (admin or creator; its messages go
        too); an unknown or deleted topic answers TOPIC_ID_INVALID.  The bot's own service
        messages are stored, not delivered.  Not modelled: hide/unhideGeneralForumTopic,
        unpinAll*ForumTopicMessages, getForumTopicIconStickers, topics in private chats.
    Where messages landed: FakeMessage.topic (FakeTopic, General included) and .topic_id
        (GENERAL_TOPIC_ID for General, None outside forums) — unlike .thread_id (the
        message_thread_id shown) never a reply chain; bot_messages(chat, topic=...),
        last_bot_message(chat, topic=...), wait_bot_message(chat, topic=...),
        sent_by_bot(chat=None) (every message the bot sent, deleted ones too) and
        topics_of(messages) -> set of topic ids.  An e2e test::

            forum = server.add_group(-1005001, "Club", members=[bob], admins=[alice],
                                     is_forum=True)
            table_a = server.create_topic(forum, "Table A", by=alice)
            table_b = server.create_topic(forum, "Table B", by=alice)
            async with polling(app):
                await server.send_text(bob, forum, "hello A", topic=table_a)
                await server.send_text(bob, forum, "hello B", topic=table_b)
                await server.wait_bot_message(forum, topic=table_b)
            assert [m.text for m in server.bot_messages(forum, topic=table_a)] == [...]
            assert server.topics_of(server.bot_messages(forum, topic=table_b)) == {table_b.id}
            assert server.topics_of(server.sent_by_bot(forum)) == {table_a.id, table_b.id}

Faults (issue 22), as switches; all off by default.  A method's kind (fault_kind): "send"
    (send*, copyMessage, forwardMessage; not sendChatAction), "edit" (editMessage*), "answer"
    (answerCallbackQuery), "delete" (deleteMessage(s)), "action" (sendChatAction); the rest
    (getUpdates, getMe, getChat, ...) only when named.  Two faults:
        BAD_GATEWAY: answered 502 with nginx's HTML page before the method ran (PTB raises
            NetworkError "Bad Gateway"): a retry is safe;
        LATE: the method ran (its effect is visible at once) and the answer is held back N s:
            a client with a shorter read timeout (PTB: TimedOut) does not know the outcome.
    set_faults(target, *, fail=0.0, delay=0.0, delay_seconds=12.0, seed=None)
        # target: a kind or a method name (a method's rule wins over its kind's); one draw of
        # the seeded ``fault_rng`` (random.Random(0)) per call: < fail -> 502, < fail + delay
        # -> LATE; seed= reseeds it.  Issue 22's minute:
        #   for kind in ("send", "edit", "answer"):
        #       server.set_faults(kind, fail=0.08, delay=0.03, delay_seconds=12, seed=22)
    fail_next(target, count=1) / delay_next(target, seconds, count=1)   # scripted, first
    slow_next(target, seconds, count=1)   # SLOW: the request arrives (and runs) N s late
    clear_faults()
    Records: ``faulted`` (the RecordedRequests, in order) and on each RecordedRequest .fault
        (BAD_GATEWAY / LATE / SLOW / None), .fault_delay, .abandoned (the client hung up on a LATE
        answer, or the server stopped first).  A 502 is in ``errors`` and not in the group's
        budget; requests failing the spec check are refused before any fault.
    duplicates(chat=None, *, window=None) -> list[list[FakeMessage]]: messages the bot posted
        more than once - same chat, topic, thread, message replied to, text/caption and inline
        keyboard as sent (before edits), same file bytes; deleted ones too; with ``window``
        only copies within ``window`` s of the previous one.  duplicate_count(...) -> int (a
        message posted twice counts 1).  A retried edit shows in ``not_modified``, a retried
        callback answer as "query is too old" in ``errors``.

Webhooks: setWebhook(url, secret_token, allowed_updates, max_connections,
    drop_pending_updates) makes the server POST each update (JSON, with the
    X-Telegram-Bot-Api-Secret-Token header when a secret is set) instead of handing it to
    getUpdates, which then answers 409 like Telegram; deleteWebhook (or url="") goes back to
    getUpdates; getWebhookInfo tells url, pending_update_count, last_error_*.  A chat's
    updates are delivered one at a time, in order: the next only after the previous one was
    answered 2xx (at most max_connections in flight in all).  A failed delivery (connection
    refused or reset, no answer in ``webhook_timeout`` s, a status other than 2xx) is retried
    on another target, then on all again after ``webhook_retry_delay`` s, until it succeeds.
    Attributes: webhook_url, webhook_secret (what setWebhook set), webhook_targets (None: the
    webhook_url; a list: the test's load balancer — each update goes to one of them chosen
    with webhook_rng, a seeded random.Random), webhook_deliveries (every attempt: a
    WebhookDelivery with update_id, target, time, status, error, ok), webhook_counts() ->
    {target: updates delivered}.

Inline mode (``inline_mode = True``: /setinline; ``inline_feedback = True``: /setinlinefeedback):
    inline_query_nowait(user, query="", chat_type="group") -> FakeInlineQuery: an inline_query
        update; ``await inline_query(...)`` also waits for the answer (an InlineAnswer: results,
        cache_time, is_personal, next_offset, button) - answerInlineQuery once, within 15 s,
        at most 50 results with unique ids of 1-64 bytes, texts that parse.
    send_inline_result(user, chat, answer, result_id=None) -> FakeMessage: the chosen result
        sent to ``chat`` as the person's message with via_bot; with an inline keyboard it gets
        an ``inline_message_id`` (in ``inline_messages``), which editMessageText /
        editMessageReplyMarkup take instead of chat_id + message_id (answer: True); the bot
        cannot edit it by chat and message id.  A chosen_inline_result update with feedback on.
    press_inline(user, inline_message_id, data) -> PressedQuery (any data, as a modified
        client); ``await press_inline_message(user, message, data)`` presses a button it has.

Implemented methods: getMe, logOut, close, getUpdates (long polling: offset, limit, timeout,
allowed_updates; a newer getUpdates ends an older one with 409), setWebhook, deleteWebhook,
getWebhookInfo,
setMyCommands, getMyCommands, deleteMyCommands, setMyName/Description/ShortDescription and their
getters, sendMessage, sendPhoto, sendDocument (multipart uploads as PTB sends them, or the
file_id of a stored file), getFile, editMessageText, editMessageReplyMarkup, deleteMessage,
answerCallbackQuery, answerInlineQuery, getChat, getChatMember, getChatAdministrators,
pinChatMessage, unpinChatMessage, sendChatAction, setChatMenuButton, getChatMenuButton, leaveChat,
createForumTopic, editForumTopic, closeForumTopic,
reopenForumTopic, deleteForumTopic, closeGeneralForumTopic, reopenGeneralForumTopic.  Any other
method known to the spec is answered 400
and recorded as a violation ("not implemented by the fake server"); an unknown method gets 404
like Telegram, and a violation.  A request failing the spec check is answered 400 with the
problems in the description.

Telegram's behaviour reproduced: per-chat increasing message ids; texts parsed with parse_mode
(HTML / MarkdownV2 / Markdown) into plain text + entities; editMessageText without reply_markup
removes the inline keyboard; the real error texts for: not modified, message to edit / delete not
found, message can't be edited / deleted, bot can't initiate conversation with a user, bot was
blocked by the user, bot was kicked from the group chat, chat not found, group chat was upgraded
to a supergroup chat (with parameters.migrate_to_chat_id), query is too old (answering a callback
query twice or after 15 s), Too Many Requests: retry after N (with parameters.retry_after),
message thread not found, TOPIC_CLOSED, TOPIC_NOT_MODIFIED, TOPIC_ID_INVALID, the chat is not a
forum, not enough rights to create a topic / close or open the topic / delete the topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import random
import re
import socket
import time
import traceback
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, TypeVar

import aiohttp
from aiohttp import web

from tests.fakeapi.formatting import (
    EntityParseError,
    FormattedText,
    UnsupportedParseModeError,
    parse_formatted,
    utf16_len,
)
from tests.fakeapi.spec import BotApiSpec, UploadedFile, default_spec

__all__ = [
    "BAD_GATEWAY",
    "DEFAULT_TOKEN",
    "FAULT_KINDS",
    "GENERAL_TOPIC_ID",
    "LATE",
    "MESSAGE_METHODS",
    "NOT_A_FORUM",
    "NOT_MODIFIED",
    "SLOW",
    "THREAD_NOT_FOUND",
    "TOPIC_CLOSED",
    "TOPIC_DELETED",
    "TOPIC_ICON_COLORS",
    "TOPIC_ID_INVALID",
    "TOPIC_NOT_MODIFIED",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "FakeChat",
    "FakeMessage",
    "FakeTelegramServer",
    "FakeTopic",
    "FakeUser",
    "Fault",
    "FaultRule",
    "MessageVersion",
    "PressedQuery",
    "RecordedRequest",
    "StoredFile",
    "WebhookDelivery",
    "fault_kind",
]

T = TypeVar("T")
GROUP_ANONYMOUS_BOT = 1087968824  # the sender of anonymous admins' messages
JSONDict = dict[str, Any]

DEFAULT_TOKEN: Final = "7000000001:AAHfakeTokenForThousandBotTests000000"
MESSAGE_METHODS: Final = (
    "sendMessage", "editMessageText", "editMessageReplyMarkup", "sendPhoto", "sendDocument",
)
PHOTO_LIMIT: Final = 10 * 1024 * 1024  # bytes of an uploaded photo
DOCUMENT_LIMIT: Final = 50 * 1024 * 1024  # bytes of a document a bot uploads
DOWNLOAD_LIMIT: Final = 20 * 1024 * 1024  # getFile refuses bigger files ("file is too big")

NOT_MODIFIED: Final = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of a message"
)
EDIT_NOT_FOUND: Final = "Bad Request: message to edit not found"
DELETE_NOT_FOUND: Final = "Bad Request: message to delete not found"
DELETE_LIMIT: Final = 48 * 3600.0  # seconds a message may be deleted after it was sent
CANT_INITIATE: Final = "Forbidden: bot can't initiate conversation with a user"
BLOCKED: Final = "Forbidden: bot was blocked by the user"
CHAT_NOT_FOUND: Final = "Bad Request: chat not found"
MIGRATED: Final = "Bad Request: group chat was upgraded to a supergroup chat"
QUERY_TOO_OLD: Final = (
    "Bad Request: query is too old and response timeout expired or query ID is invalid"
)
CONFLICT: Final = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)
WEBHOOK_ACTIVE: Final = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete "
    "the webhook first"
)
THREAD_NOT_FOUND: Final = "Bad Request: message thread not found"
TOPIC_CLOSED: Final = "Bad Request: TOPIC_CLOSED"
TOPIC_DELETED: Final = "Bad Request: TOPIC_DELETED"
TOPIC_NOT_MODIFIED: Final = "Bad Request: TOPIC_NOT_MODIFIED"
TOPIC_ID_INVALID: Final = "Bad Request: TOPIC_ID_INVALID"
NOT_A_FORUM: Final = "Bad Request: the chat is not a forum"
#: The forum topic every forum has; messages in it carry no message_thread_id.
GENERAL_TOPIC_ID: Final = 1
#: The topic icon colours createForumTopic accepts (the first is the default here).
TOPIC_ICON_COLORS: Final = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
SECRET_HEADER: Final = "X-Telegram-Bot-Api-Secret-Token"
_SECRET_RE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")

#: Update kinds delivered when allowed_updates is not set (Telegram's default).
DEFAULT_ALLOWED_UPDATES: Final = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "business_connection",
        "business_message",
        "edited_business_message",
        "deleted_business_messages",
        "inline_query",
        "chosen_inline_result",
        "callback_query",
        "shipping_query",
        "pre_checkout_query",
        "purchased_paid_media",
        "poll",
        "poll_answer",
        "my_chat_member",
        "chat_join_request",
        "chat_boost",
        "removed_chat_boost",
    }
)

#: Seconds after which Telegram refuses to accept an answer to a callback query.
CALLBACK_QUERY_EXPIRY: Final = 15.0

#: Seconds after which Telegram refuses an answer to an inline query (the client has given up).
INLINE_QUERY_EXPIRY: Final = 15.0

_COMMAND_RE = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?")
_MENTION_RE = re.compile(r"(?<![\w@/])@[A-Za-z0-9_]{5,32}")


class ApiError(Exception):
    """An error answer of the Bot API."""

    def __init__(self, code: int, description: str, parameters: JSONDict | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


# ------------------------------------------------------------------------------------------
# state


@dataclass(frozen=True)
class Button:
    """One inline keyboard button of a message."""

    text: str
    callback_data: str | None
    url: str | None
    row: int
    column: int
    raw: Mapping[str, Any] = field(compare=False, repr=False)


@dataclass(frozen=True)
class MessageVersion:
    """A former state of an edited message."""

    time: float
    text: str | None
    entities: list[JSONDict]
    reply_markup: JSONDict | None


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot sent in answerCallbackQuery."""

    query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int | None
    answered_at: float
    latency: float


@dataclass(frozen=True)
class InlineAnswer:
    """What the bot sent in answerInlineQuery."""

    query_id: str
    results: list[JSONDict]
    cache_time: int | None
    is_personal: bool
    next_offset: str | None
    button: JSONDict | None
    answered_at: float

    def result(self, result_id: str | None = None) -> JSONDict:
        """The result with this id (the first one when None); LookupError if none."""
        for r in self.results:
            if result_id is None or r.get("id") == result_id:
                return r
        raise LookupError(f"no inline result {result_id!r}; ids: "
                          f"{[r.get('id') for r in self.results]}")


@dataclass(eq=False)
class FakeInlineQuery:
    """An inline query a simulated user typed (``@bot <query>`` in some chat)."""

    id: str
    user_id: int
    query: str
    chat_type: str | None
    sent_at: float
    answer: InlineAnswer | None = None


@dataclass(eq=False)
class PressedQuery:
    """A callback query a simulated user made by pressing a button."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    pressed_at: float
    answer: CallbackAnswer | None = None


@dataclass(eq=False)
class RecordedRequest:
    """One request the bot made.  ``status`` is None while it is being handled."""

    method: str
    params: JSONDict
    time: float
    chat_id: int | None = None
    status: int | None = None
    result: Any = None
    description: str | None = None
    error_parameters: JSONDict | None = None
    problems: list[str] = field(default_factory=list)
    fault: str | None = None  # BAD_GATEWAY or LATE if a fault was injected
    fault_delay: float = 0.0  # seconds a LATE answer was held back
    abandoned: bool = False  # the client stopped waiting for a LATE answer

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True)
class WebhookDelivery:
    """One attempt to POST an update to a webhook target: ``status`` is the HTTP status
    (None: no answer — connection refused or reset, timed out), ``error`` says why it
    failed."""

    update_id: int
    target: str
    time: float
    status: int | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


BAD_GATEWAY: Final = "bad_gateway"  # answered 502 before the method ran
LATE: Final = "late"  # the method ran; its answer was held back for a while
SLOW: Final = "slow"  # the request reached the server late: the method ran after a while
BAD_GATEWAY_PAGE: Final = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad "
    "Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n"
)


FAULT_KINDS: Final = ("send", "edit", "answer", "delete", "action")


def fault_kind(method: str) -> str | None:
    """The kind of a method for fault switches: "send" (send*, copy*, forward*, but not
    sendChatAction), "edit" (editMessage*), "answer" (answerCallbackQuery and other
    answer*), "delete" (deleteMessage, deleteMessages), "action" (sendChatAction); None for
    the rest (getUpdates, getMe, ...: faulted only when named)."""
    name = method.lower()
    if name == "sendchataction":
        return "action"
    if name.startswith(("send", "copymessage", "forwardmessage")):
        return "send"
    if name.startswith("editmessage"):
        return "edit"
    if name.startswith("answer"):
        return "answer"
    if name in ("deletemessage", "deletemessages"):
        return "delete"
    return None


@dataclass(frozen=True)
class Fault:
    """One injected fault: BAD_GATEWAY, LATE with the seconds the answer waits, or SLOW
    with the seconds the request takes to arrive."""

    kind: str
    seconds: float = 0.0


@dataclass(frozen=True)
class FaultRule:
    """Shares of calls that fail with 502 (``fail``) or are answered ``delay_seconds`` late
    (``delay``)."""

    fail: float = 0.0
    delay: float = 0.0
    delay_seconds: float = 12.0


@dataclass(eq=False)
class StoredFile:
    """A file the server holds: uploaded by the bot (a photo, a document) or sent by a
    simulated user; downloadable at ``/file/bot<token>/<path>`` after getFile."""

    file_id: str
    file_unique_id: str
    data: bytes = field(repr=False)
    file_path: str
    file_name: str | None = None
    mime_type: str | None = None
    width: int = 0
    height: int = 0

    @property
    def size(self) -> int:
        return len(self.data)

    def photo_sizes(self) -> list[JSONDict]:
        return [{"file_id": self.file_id, "file_unique_id": self.file_unique_id,
                 "width": self.width, "height": self.height, "file_size": self.size}]

    def document(self) -> JSONDict:
        data: JSONDict = {"file_id": self.file_id, "file_unique_id": self.file_unique_id,
                          "file_size": self.size}
        if self.file_name:
            data["file_name"] = self.file_name
        if self.mime_type:
            data["mime_type"] = self.mime_type
        return data


def png_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG (from its IHDR chunk), None for anything else."""
    if len(data) < 24 or not data.startswith(b"\x89PNG\r\n\x1a\n") or data[12:16] != b"IHDR":
        return None
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@dataclass(eq=False)
class FakeUser:
    """A simulated Telegram user."""

    server: FakeTelegramServer = field(repr=False)
    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = "ru"
    last_name: str | None = None
    is_premium: bool = False
    started: bool = False
    blocked: bool = False

    def to_api(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        if self.is_premium:
            data["is_premium"] = True
        return data

    @property
    def chat(self) -> FakeChat:
        """The private chat of this user with the bot."""
        return self.server.chat(self.id)

    def block(self) -> None:
        self.server.block(self)

    def unblock(self) -> None:
        self.server.unblock(self)

    async def send(
        self,
        text: str,
        chat: FakeChat | int | None = None,
        *,
        reply_to: FakeMessage | int | None = None,
    ) -> FakeMessage:
        """Send ``text`` to ``chat`` (default: the private chat with the bot)."""
        return await self.server.send_text(
            self, chat if chat is not None else self, text, reply_to=reply_to
        )

    async def click(
        self,
        message: FakeMessage,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
        timeout: float | None = None,
    ) -> CallbackAnswer | None:
        """Press a button of ``message`` and wait for the bot's answerCallbackQuery."""
        return await self.server.click(
            self,
            message,
            text,
            contains=contains,
            data=data,
            predicate=predicate,
            timeout=timeout,
        )


@dataclass(eq=False)
class FakeMessage:
    """A message in a chat, as the Bot API server stores it."""

    chat: FakeChat = field(repr=False)
    message_id: int
    sender: JSONDict = field(repr=False)
    from_bot: bool
    date: int
    created_at: float
    text: str | None = None
    entities: list[JSONDict] = field(default_factory=list)
    source_text: str | None = None
    parse_mode: str | None = None
    reply_markup: JSONDict | None = None
    reply_to: FakeMessage | None = field(default=None, repr=False)
    service: JSONDict = field(default_factory=dict)
    edit_date: int | None = None
    history: list[MessageVersion] = field(default_factory=list, repr=False)
    deleted: bool = False
    pinned: bool = False
    pin_silent: bool = False  # pinned with disable_notification
    caption: str | None = None
    photo: StoredFile | None = field(default=None, repr=False)
    document: StoredFile | None = field(default=None, repr=False)
    thread_id: int | None = None
    is_topic_message: bool = False
    topic: FakeTopic | None = field(default=None, repr=False)
    reply_external: bool = False  # reply_to is in another topic: shown as external_reply
    inline_message_id: str | None = None  # sent through inline mode, with a keyboard
    via_bot: JSONDict | None = field(default=None, repr=False)  # sent through inline mode

    @property
    def sender_id(self) -> int:
        return int(self.sender["id"])

    @property
    def topic_id(self) -> int | None:
        """The forum topic the message landed in (GENERAL_TOPIC_ID for General), None outside
        forums.  Unlike ``thread_id`` (the message_thread_id Telegram shows) it is never a
        reply chain."""
        return self.topic.message_thread_id if self.topic is not None else None

    @property
    def first_text(self) -> str | None:
        """The text (or caption) the message was sent with, before any edit."""
        if self.history:
            return self.history[0].text
        return self.text if self.text is not None else self.caption

    @property
    def first_markup(self) -> JSONDict | None:
        """The inline keyboard the message was sent with, before any edit."""
        return self.history[0].reply_markup if self.history else self.reply_markup

    @property
    def implicit_reply(self) -> FakeMessage | None:
        """The message Telegram shows as ``reply_to_message`` when there is no explicit reply:
        in a forum topic (not General) the topic's forum_topic_created message."""
        if self.topic is None or self.topic.message_thread_id == GENERAL_TOPIC_ID:
            return None
        root = self.chat.messages.get(self.topic.message_thread_id)
        if root is None or root.deleted or root.message_id >= self.message_id:
            return None
        return root

    @property
    def edit_count(self) -> int:
        return len(self.history)

    @property
    def buttons(self) -> list[list[Button]]:
        """The inline keyboard, row by row ([] if none)."""
        if not self.reply_markup:
            return []
        rows: list[list[Button]] = []
        for r, row in enumerate(self.reply_markup.get("inline_keyboard", [])):
            rows.append(
                [
                    Button(
                        text=str(raw.get("text", "")),
                        callback_data=raw.get("callback_data"),
                        url=raw.get("url"),
                        row=r,
                        column=c,
                        raw=raw,
                    )
                    for c, raw in enumerate(row)
                ]
            )
        return rows

    @property
    def all_buttons(self) -> list[Button]:
        return [button for row in self.buttons for button in row]

    @property
    def button_texts(self) -> list[list[str]]:
        return [[button.text for button in row] for row in self.buttons]

    def find_buttons(
        self,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
    ) -> list[Button]:
        return [
            b
            for b in self.all_buttons
            if (text is None or b.text == text)
            and (contains is None or contains in b.text)
            and (data is None or b.callback_data == data)
            and (predicate is None or predicate(b))
        ]

    def find_button(
        self,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
    ) -> Button:
        """The first button matching all the given conditions; LookupError if none."""
        found = self.find_buttons(text, contains=contains, data=data, predicate=predicate)
        if not found:
            wanted = {"text": text, "contains": contains, "data": data}
            criteria = ", ".join(f"{k}={v!r}" for k, v in wanted.items() if v is not None)
            if predicate is not None:
                criteria += ", predicate"
            raise LookupError(
                f"no button ({criteria}) in message {self.message_id} of chat {self.chat.id}; "
                f"buttons: {[[(b.text, b.callback_data) for b in row] for row in self.buttons]}"
            )
        return found[0]

    def external_reply_info(self) -> JSONDict:
        """This message as an ExternalReplyInfo (a reply to it from another topic)."""
        sender_chat = self.service.get("sender_chat")
        origin: JSONDict = (
            {"type": "chat", "date": self.date, "sender_chat": dict(sender_chat)}
            if isinstance(sender_chat, dict)
            else {"type": "user", "date": self.date, "sender_user": dict(self.sender)}
        )
        data: JSONDict = {"origin": origin, "chat": self.chat.to_api(),
                          "message_id": self.message_id}
        if self.photo is not None:
            data["photo"] = self.photo.photo_sizes()
        if self.document is not None:
            data["document"] = self.document.document()
        return data

    def to_api(self, *, with_reply: bool = True) -> JSONDict:
        """The message as the Bot API serializes it (in updates and method results)."""
        data: JSONDict = {
            "message_id": self.message_id,
            "from": dict(self.sender),
            "chat": self.chat.to_api(),
            "date": self.date,
        }
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.thread_id is not None:
            data["message_thread_id"] = self.thread_id
        if self.is_topic_message:
            data["is_topic_message"] = True
        explicit = self.reply_to if not self.reply_external else None
        reply = explicit if explicit is not None else self.implicit_reply
        if with_reply and reply is not None:
            data["reply_to_message"] = reply.to_api(with_reply=False)
        if self.reply_to is not None and self.reply_external:
            data["external_reply"] = self.reply_to.external_reply_info()
        if self.text is not None:
            data["text"] = self.text
            if self.entities:
                data["entities"] = [dict(e) for e in self.entities]
        if self.photo is not None:
            data["photo"] = self.photo.photo_sizes()
        if self.document is not None:
            data["document"] = self.document.document()
        if self.caption is not None:
            data["caption"] = self.caption
            if self.entities:
                data["caption_entities"] = [dict(e) for e in self.entities]
        data.update(self.service)
        if self.via_bot is not None:
            data["via_bot"] = dict(self.via_bot)
        if self.reply_markup:
            data["reply_markup"] = json.loads(json.dumps(self.reply_markup))
        return data


@dataclass(eq=False)
class FakeChat:
    """A private chat (id = the user's id), a group or a supergroup."""

    id: int
    type: str
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = field(default=None, repr=False)
    member_ids: list[int] = field(default_factory=list)
    admin_ids: list[int] = field(default_factory=list)
    creator_id: int | None = None
    bot_status: str = "member"
    migrated_to: int | None = None
    migrated_from: int | None = None
    messages: dict[int, FakeMessage] = field(default_factory=dict, repr=False)
    next_message_id: int = 1
    is_forum: bool = False
    topics: dict[int, FakeTopic] = field(default_factory=dict, repr=False)
    bot_can_manage_topics: bool = True  # the right, when the bot is an administrator
    bot_can_pin_messages: bool = True  # the right, when the bot is an administrator

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    @property
    def general(self) -> FakeTopic:
        """The General topic of a forum."""
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is not a forum")
        return self.topics[GENERAL_TOPIC_ID]

    def topic(self, ref: FakeTopic | int) -> FakeTopic:
        """A topic of this forum by id (GENERAL_TOPIC_ID: General) or itself."""
        if isinstance(ref, FakeTopic):
            if ref.chat is not self:
                raise ValueError(f"topic {ref.message_thread_id} is not in chat {self.id}")
            return ref
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is not a forum")
        try:
            return self.topics[ref]
        except KeyError:
            raise LookupError(f"no topic {ref} in chat {self.id}") from None

    @property
    def bot_manages_topics(self) -> bool:
        return self.bot_status == "administrator" and self.bot_can_manage_topics

    @property
    def chat_instance(self) -> str:
        return str((abs(self.id) * 2654435761 + 97) % 10**19)

    def to_api(self) -> JSONDict:
        if self.type == "private":
            assert self.user is not None
            data: JSONDict = {"id": self.id, "first_name": self.user.first_name}
            if self.user.last_name:
                data["last_name"] = self.user.last_name
            if self.user.username:
                data["username"] = self.user.username
            data["type"] = "private"
            return data
        data = {"id": self.id, "title": self.title or "", "type": self.type}
        if self.username:
            data["username"] = self.username
        if self.is_forum:
            data["is_forum"] = True
        return data

    def bot_messages(self, topic: FakeTopic | int | None = None) -> list[FakeMessage]:
        """Text messages of the bot in this chat that were not deleted, oldest first (only
        those in ``topic`` if given)."""
        wanted = self.topic(topic) if topic is not None else None
        return [
            m
            for _, m in sorted(self.messages.items())
            if m.from_bot and not m.deleted and m.text is not None
            and (wanted is None or m.topic is wanted)
        ]

    def last_bot_message(self, topic: FakeTopic | int | None = None) -> FakeMessage | None:
        messages = self.bot_messages(topic)
        return messages[-1] if messages else None

    def bot_photos(self) -> list[FakeMessage]:
        """Photos the bot sent in this chat (not deleted), oldest first."""
        return [m for _, m in sorted(self.messages.items())
                if m.from_bot and not m.deleted and m.photo is not None]

    def bot_documents(self) -> list[FakeMessage]:
        """Documents the bot sent in this chat (not deleted), oldest first."""
        return [m for _, m in sorted(self.messages.items())
                if m.from_bot and not m.deleted and m.document is not None]


@dataclass(eq=False)
class FakeTopic:
    """A forum topic.  ``message_thread_id`` is the id of its forum_topic_created message
    (GENERAL_TOPIC_ID for General, which has no such message)."""

    chat: FakeChat = field(repr=False)
    message_thread_id: int
    name: str
    icon_color: int = TOPIC_ICON_COLORS[0]
    creator_id: int | None = None
    icon_custom_emoji_id: str | None = None
    closed: bool = False
    deleted: bool = False

    @property
    def id(self) -> int:
        return self.message_thread_id

    @property
    def is_general(self) -> bool:
        return self.message_thread_id == GENERAL_TOPIC_ID

    def to_api(self) -> JSONDict:
        """A ForumTopic object."""
        data: JSONDict = {"message_thread_id": self.message_thread_id, "name": self.name,
                          "icon_color": self.icon_color}
        if self.icon_custom_emoji_id:
            data["icon_custom_emoji_id"] = self.icon_custom_emoji_id
        return data

    def messages(self) -> list[FakeMessage]:
        """Every message in this topic that was not deleted (service messages too)."""
        return [m for _, m in sorted(self.chat.messages.items())
                if m.topic is self and not m.deleted]

    def bot_messages(self) -> list[FakeMessage]:
        return self.chat.bot_messages(self)


ChatRef = FakeChat | FakeUser | int
TopicRef = FakeTopic | int
UserRef = FakeUser | int
Handler = Callable[[JSONDict, RecordedRequest], Awaitable[Any]]


def _inline_markup(value: object) -> JSONDict | None:
    """The inline keyboard as stored with a message (None for none / non-inline markup)."""
    if not isinstance(value, dict):
        return None
    rows = value.get("inline_keyboard")
    if not isinstance(rows, list) or not any(rows):
        return None
    return {"inline_keyboard": json.loads(json.dumps(rows))}


def _detect_entities(text: str) -> list[JSONDict]:
    entities: list[JSONDict] = []
    for regex, kind in ((_COMMAND_RE, "bot_command"), (_MENTION_RE, "mention")):
        for match in regex.finditer(text):
            entities.append(
                {
                    "type": kind,
                    "offset": utf16_len(text[: match.start()]),
                    "length": utf16_len(match.group(0)),
                }
            )
    entities.sort(key=lambda e: e["offset"])
    return entities


# ------------------------------------------------------------------------------------------
# the server


class FakeTelegramServer:
    """The fake Bot API server; see the module docstring for the API."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "thousand_test_bot",
        bot_first_name: str = "Thousand Test Bot",
        privacy_mode: bool = False,
        group_rate_limit: int | None = None,
        callback_answer_timeout: float = 5.0,
        spec: BotApiSpec | None = None,
        clock: Callable[[], float] = time.monotonic,
        host: str = "127.0.0.1",
    ) -> None:
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_first_name = bot_first_name
        self.privacy_mode = privacy_mode
        self.group_rate_limit = group_rate_limit
        self.callback_answer_timeout = callback_answer_timeout
        self.spec = spec if spec is not None else default_spec()
        self.clock = clock
        self.host = host
        self.port = 0
        self.poll_interval = 0.05

        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.internal_errors: list[str] = []
        self.errors: list[RecordedRequest] = []
        self.not_modified: list[RecordedRequest] = []
        self.rate_limited: list[RecordedRequest] = []
        self.unanswered_callbacks: list[PressedQuery] = []
        self.callback_queries: dict[str, PressedQuery] = {}
        # inline mode (/setinline and /setinlinefeedback with @BotFather)
        self.inline_mode = False
        self.inline_feedback = False
        self.inline_queries: dict[str, FakeInlineQuery] = {}
        self.inline_messages: dict[str, FakeMessage] = {}  # by inline_message_id
        self._inline_ids = itertools.count(1)
        self.updates: list[JSONDict] = []
        self.update_times: list[float] = []  # clock() when each update was made

        self._users: dict[int, FakeUser] = {}
        self._chats: dict[int, FakeChat] = {}
        self._chat_requests: dict[int, list[RecordedRequest]] = {}
        self._queue: list[JSONDict] = []
        self._next_update_id = 100_000_001
        self._last_delivered_id = 0
        self._allowed_updates: frozenset[str] = DEFAULT_ALLOWED_UPDATES
        self._poll_generation = 0
        self._query_ids = itertools.count(5_120_000_000_000_000_001)
        self._commands: dict[tuple[str, str], list[JSONDict]] = {}
        # setChatMenuButton: chat id (None: the default of private chats) -> the button
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.files: dict[str, StoredFile] = {}  # by file_id
        self._files_by_path: dict[str, StoredFile] = {}
        self._file_ids = itertools.count(1)
        self.downloads: list[str] = []  # file paths fetched from /file/bot<token>/
        self._bot_texts: dict[tuple[str, str], str] = {}
        # faults: see "Faults" in the module docstring
        self.fault_rng = random.Random(0)
        self.faulted: list[RecordedRequest] = []
        self._fault_rules: dict[str, FaultRule] = {}
        self._fault_script: dict[str, list[Fault]] = {}
        # forums: what a send to a deleted topic answers (see "Forums" in the docstring)
        self.deleted_topic_error = THREAD_NOT_FOUND
        # webhooks: see "Webhooks" in the module docstring
        self.webhook_url = ""
        self.webhook_secret: str | None = None
        self.webhook_max_connections = 40
        self.webhook_targets: list[str] | None = None
        self.webhook_rng = random.Random(0)
        self.webhook_timeout = 10.0
        self.webhook_retry_delay = 0.05
        self.webhook_deliveries: list[WebhookDelivery] = []
        self._webhook_error: tuple[int, str] | None = None
        self._webhook_loop: asyncio.Task[None] | None = None
        self._webhook_sending: dict[int, asyncio.Task[None]] = {}
        self._webhook_http: aiohttp.ClientSession | None = None
        self._changed = asyncio.Event()
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._handlers: dict[str, Handler] = {
            "getme": self._get_me,
            "logout": self._accept,
            "close": self._accept,
            "getupdates": self._get_updates,
            "setwebhook": self._set_webhook,
            "deletewebhook": self._delete_webhook,
            "getwebhookinfo": self._get_webhook_info,
            "setmycommands": self._set_my_commands,
            "getmycommands": self._get_my_commands,
            "deletemycommands": self._delete_my_commands,
            "setmyname": self._set_bot_text("name", "name"),
            "getmyname": self._get_bot_text("name", "name"),
            "setmydescription": self._set_bot_text("description", "description"),
            "getmydescription": self._get_bot_text("description", "description"),
            "setmyshortdescription": self._set_bot_text("short_description", "short_description"),
            "getmyshortdescription": self._get_bot_text("short_description", "short_description"),
            "sendmessage": self._send_message,
            "sendphoto": self._send_photo,
            "senddocument": self._send_document,
            "getfile": self._get_file,
            "editmessagetext": self._edit_message_text,
            "editmessagereplymarkup": self._edit_message_reply_markup,
            "deletemessage": self._delete_message,
            "answercallbackquery": self._answer_callback_query,
            "answerinlinequery": self._answer_inline_query,
            "getchat": self._get_chat,
            "getchatmember": self._get_chat_member,
            "getchatadministrators": self._get_chat_administrators,
            "pinchatmessage": self._pin_chat_message,
            "unpinchatmessage": self._unpin_chat_message,
            "sendchataction": self._send_chat_action,
            "setchatmenubutton": self._set_chat_menu_button,
            "getchatmenubutton": self._get_chat_menu_button,
            "leavechat": self._leave_chat,
            "createforumtopic": self._create_forum_topic,
            "editforumtopic": self._edit_forum_topic,
            "closeforumtopic": self._close_forum_topic,
            "reopenforumtopic": self._reopen_forum_topic,
            "deleteforumtopic": self._delete_forum_topic,
            "closegeneralforumtopic": self._close_general_forum_topic,
            "reopengeneralforumtopic": self._reopen_general_forum_topic,
        }

    # --------------------------------------------------------------------------------------
    # lifecycle

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder().base_url(...)``: PTB appends the token."""
        return f"http://{self.host}:{self.port}/bot"

    @property
    def base_file_url(self) -> str:
        return f"http://{self.host}:{self.port}/file/bot"

    @property
    def bot_user(self) -> JSONDict:
        """The bot as a User object (as in message.from)."""
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_first_name,
            "username": self.bot_username,
        }

    async def start(self) -> None:
        if self._runner is not None:
            return
        self._closing = False
        app = web.Application()
        app.router.add_route("*", "/file/{prefix}/{path:.*}", self._handle_file)
        app.router.add_route("*", "/{prefix}/{method}", self._handle)
        runner = web.AppRunner(
            app,
            handle_signals=False,
            access_log=None,
            shutdown_timeout=2.0,
            handler_cancellation=True,
        )
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((self.host, 0))
            site = web.SockSite(runner, sock)
            await site.start()
        except BaseException:
            sock.close()
            await runner.cleanup()
            raise
        self.port = int(sock.getsockname()[1])
        self._runner = runner

    async def stop(self) -> None:
        runner = self._runner
        if runner is None:
            return
        self._closing = True
        self._notify()
        for query in self.callback_queries.values():
            if query.answer is None and query not in self.unanswered_callbacks:
                self.unanswered_callbacks.append(query)
        self._runner = None
        await self._stop_webhook()
        await runner.cleanup()

    async def __aenter__(self) -> FakeTelegramServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # --------------------------------------------------------------------------------------
    # set-up

    def add_user(
        self,
        user_id: int,
        first_name: str,
        username: str | None = None,
        language_code: str | None = "ru",
        *,
        last_name: str | None = None,
        is_premium: bool = False,
    ) -> FakeUser:
        """A Telegram user; their private chat exists once they write to the bot."""
        if user_id <= 0:
            raise ValueError("user ids are positive")
        if user_id in self._users or user_id in self._chats:
            raise ValueError(f"id {user_id} is already taken")
        user = FakeUser(
            server=self,
            id=user_id,
            first_name=first_name,
            username=username,
            language_code=language_code,
            last_name=last_name,
            is_premium=is_premium,
        )
        self._users[user_id] = user
        self._chats[user_id] = FakeChat(id=user_id, type="private", user=user)
        return user

    def user(self, user_id: int) -> FakeUser:
        try:
            return self._users[user_id]
        except KeyError:
            raise LookupError(f"no user {user_id}; add_user() it first") from None

    @property
    def users(self) -> list[FakeUser]:
        return list(self._users.values())

    def add_group(
        self,
        chat_id: int,
        title: str,
        members: Iterable[UserRef] = (),
        admins: Iterable[UserRef] = (),
        *,
        chat_type: str | None = None,
        creator: UserRef | None = None,
        bot_status: str = "member",
        username: str | None = None,
        is_forum: bool = False,
        bot_can_manage_topics: bool = True,
        bot_can_pin_messages: bool = True,
    ) -> FakeChat:
        """A group (ids like -4xxxxxxxxx) or supergroup (ids like -100xxxxxxxxxx).

        ``admins`` are members too; the creator is ``creator`` or else the first admin.
        ``bot_status`` is "member", "administrator", "left" or "kicked".  ``is_forum``: a
        supergroup with topics (it has General, topic 1; add topics with create_topic);
        ``bot_can_manage_topics``: the bot's can_manage_topics right when it is an admin;
        ``bot_can_pin_messages``: its can_pin_messages right (pinChatMessage refused
        without it).
        """
        if is_forum and chat_type not in (None, "supergroup"):
            raise ValueError("only supergroups can be forums")
        if chat_id >= 0:
            raise ValueError("group ids are negative")
        if chat_id in self._chats:
            raise ValueError(f"chat {chat_id} exists already")
        if chat_type is None:
            chat_type = "supergroup" if str(chat_id).startswith("-100") else "group"
        if chat_type not in ("group", "supergroup"):
            raise ValueError(f"chat_type must be group or supergroup, not {chat_type!r}")
        if is_forum and chat_type != "supergroup":
            raise ValueError("only supergroups can be forums (use a -100... id)")
        if bot_status not in ("member", "administrator", "left", "kicked"):
            raise ValueError(f"bad bot_status {bot_status!r}")
        admin_ids = [self._user(a).id for a in admins]
        member_ids: list[int] = []
        for ref in itertools.chain(admin_ids, members):
            uid = self._user(ref).id
            if uid not in member_ids:
                member_ids.append(uid)
        creator_id = self._user(creator).id if creator is not None else None
        if creator_id is None and admin_ids:
            creator_id = admin_ids[0]
        if creator_id is not None and creator_id not in member_ids:
            member_ids.insert(0, creator_id)
        chat = FakeChat(
            id=chat_id,
            type=chat_type,
            title=title,
            username=username,
            member_ids=member_ids,
            admin_ids=[a for a in admin_ids if a != creator_id],
            creator_id=creator_id,
            bot_status=bot_status,
            is_forum=is_forum,
            bot_can_manage_topics=bot_can_manage_topics,
            bot_can_pin_messages=bot_can_pin_messages,
        )
        if is_forum:
            chat.topics[GENERAL_TOPIC_ID] = FakeTopic(chat, GENERAL_TOPIC_ID, "General",
                                                      creator_id=creator_id)
            chat.next_message_id = 2  # message 1 is the chat's creation
        self._chats[chat_id] = chat
        return chat

    def add_member(self, chat: ChatRef, user: UserRef) -> None:
        group = self.chat(chat)
        uid = self._user(user).id
        if uid not in group.member_ids:
            group.member_ids.append(uid)

    def migrate_group(self, old_id: int, new_id: int, *, by: UserRef | None = None) -> FakeChat:
        """Upgrade group ``old_id`` to supergroup ``new_id`` (usually -100...).

        Afterwards every request to ``old_id`` answers 400 "group chat was upgraded to a
        supergroup chat" with ``parameters.migrate_to_chat_id``; the bot gets a message with
        migrate_to_chat_id in the old chat and one with migrate_from_chat_id in the new one.
        """
        old = self.chat(old_id)
        if old.type != "group":
            raise ValueError(f"chat {old_id} is a {old.type}, only groups are migrated")
        if old.migrated_to is not None:
            raise ValueError(f"chat {old_id} was migrated already")
        if new_id in self._chats:
            raise ValueError(f"chat {new_id} exists already")
        new = FakeChat(
            id=new_id,
            type="supergroup",
            title=old.title,
            member_ids=list(old.member_ids),
            admin_ids=list(old.admin_ids),
            creator_id=old.creator_id,
            bot_status=old.bot_status,
            migrated_from=old_id,
        )
        self._chats[new_id] = new
        actor_id = self._user(by).id if by is not None else (old.creator_id or old.member_ids[0])
        actor = self.user(actor_id).to_api()
        to_msg = self._new_message(
            old, sender=actor, from_bot=False, service={"migrate_to_chat_id": new_id}
        )
        old.migrated_to = new_id
        from_msg = self._new_message(
            new, sender=actor, from_bot=False, service={"migrate_from_chat_id": old_id}
        )
        if old.bot_status in ("member", "administrator"):
            self._enqueue("message", to_msg.to_api())
            self._enqueue("message", from_msg.to_api())
        return new

    def add_bot(self, chat: ChatRef, *, by: UserRef) -> None:
        """A member adds the bot to a group it is not in (``my_chat_member``: left → member)."""
        group = self.chat(chat)
        if not group.is_group:
            raise ValueError("add_bot is for groups")
        old_status = group.bot_status
        group.bot_status = "member"
        self._my_chat_member(group, self._user(by), old_status, "member")

    def kick_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        """Remove the bot from a group: sends become 403 "bot was kicked from the ... chat"."""
        group = self.chat(chat)
        if not group.is_group:
            raise ValueError("kick_bot is for groups; use block() for private chats")
        old_status = group.bot_status
        group.bot_status = "kicked"
        actor_id = (
            self._user(by).id if by is not None else (group.creator_id or group.member_ids[0])
        )
        self._my_chat_member(group, self.user(actor_id), old_status, "kicked")

    def block(self, user: UserRef) -> None:
        """The user blocks the bot: sends and edits to them answer 403 "bot was blocked..."."""
        person = self._user(user)
        if person.blocked:
            return
        person.blocked = True
        self._my_chat_member(self.chat(person.id), person, "member", "kicked")

    def unblock(self, user: UserRef) -> None:
        person = self._user(user)
        if not person.blocked:
            return
        person.blocked = False
        self._my_chat_member(self.chat(person.id), person, "kicked", "member")

    # --------------------------------------------------------------------------------------
    # forums (set-up and what admins do; see "Forums" in the module docstring)

    def topic(self, chat: ChatRef, topic: TopicRef) -> FakeTopic:
        """A topic of a forum by id (GENERAL_TOPIC_ID: General)."""
        return self.chat(chat).topic(topic)

    def topics(self, chat: ChatRef) -> list[FakeTopic]:
        """The topics of a forum that were not deleted, General first."""
        group = self.chat(chat)
        return [t for _, t in sorted(group.topics.items()) if not t.deleted]

    def _forum_admin(self, chat: ChatRef, by: UserRef | None) -> tuple[FakeChat, FakeUser]:
        group = self.chat(chat)
        if not group.is_forum:
            raise ValueError(f"chat {group.id} is not a forum")
        if by is None:
            if group.creator_id is None:
                raise ValueError(f"chat {group.id} has no creator; say who acts with by=")
            return group, self.user(group.creator_id)
        person = self._user(by)
        if person.id != group.creator_id and person.id not in group.admin_ids:
            raise ValueError(f"user {person.id} is not an admin of chat {group.id}")
        return group, person

    def create_topic(
        self,
        chat: ChatRef,
        name: str,
        *,
        by: UserRef | None = None,
        icon_color: int = TOPIC_ICON_COLORS[0],
        icon_custom_emoji_id: str | None = None,
    ) -> FakeTopic:
        """An admin (``by``, default the creator) creates a topic: the bot gets the
        forum_topic_created service message, whose id is the topic's message_thread_id."""
        group, person = self._forum_admin(chat, by)
        created: JSONDict = {"name": name, "icon_color": icon_color}
        if icon_custom_emoji_id:
            created["icon_custom_emoji_id"] = icon_custom_emoji_id
        message = self._new_message(group, sender=person.to_api(), from_bot=False,
                                    service={"forum_topic_created": created})
        topic = self._open_topic(message, name, icon_color, person.id, icon_custom_emoji_id)
        self._deliver_service(group, message)
        return topic

    def _open_topic(self, message: FakeMessage, name: str, icon_color: int, creator_id: int,
                    icon_custom_emoji_id: str | None) -> FakeTopic:
        topic = FakeTopic(message.chat, message.message_id, name, icon_color, creator_id,
                          icon_custom_emoji_id)
        message.chat.topics[topic.message_thread_id] = topic
        message.topic = topic
        message.thread_id = topic.message_thread_id
        message.is_topic_message = True
        return topic

    def close_topic(self, chat: ChatRef, topic: TopicRef, *, by: UserRef | None = None) -> None:
        """An admin closes a topic (General too): the bot gets forum_topic_closed in it, and
        only admins (and, in a topic, its creator) may write there until it is reopened."""
        group, person = self._forum_admin(chat, by)
        self._toggle_topic(group.topic(topic), person.to_api(), closed=True, deliver=True)

    def reopen_topic(self, chat: ChatRef, topic: TopicRef, *, by: UserRef | None = None) -> None:
        """An admin reopens a closed topic: the bot gets forum_topic_reopened in it."""
        group, person = self._forum_admin(chat, by)
        self._toggle_topic(group.topic(topic), person.to_api(), closed=False, deliver=True)

    def close_general(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        self.close_topic(chat, GENERAL_TOPIC_ID, by=by)

    def reopen_general(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        self.reopen_topic(chat, GENERAL_TOPIC_ID, by=by)

    def delete_topic(self, chat: ChatRef, topic: TopicRef, *, by: UserRef | None = None) -> None:
        """An admin deletes a topic with all its messages (the bot is not told: Telegram sends
        no update); sends to it answer 400 ``deleted_topic_error`` afterwards."""
        group, _ = self._forum_admin(chat, by)
        self._remove_topic(group.topic(topic))

    def _toggle_topic(self, topic: FakeTopic, sender: JSONDict, *, closed: bool,
                      deliver: bool) -> FakeMessage:
        if topic.deleted:
            raise ValueError(f"topic {topic.id} of chat {topic.chat.id} was deleted")
        if topic.closed == closed:
            raise ApiError(400, TOPIC_NOT_MODIFIED)
        topic.closed = closed
        kind = "forum_topic_closed" if closed else "forum_topic_reopened"
        message = self._new_message(topic.chat, sender=sender, from_bot=not deliver,
                                    service={kind: {}}, topic=topic)
        if deliver:
            self._deliver_service(topic.chat, message)
        return message

    def _remove_topic(self, topic: FakeTopic) -> None:
        if topic.is_general:
            raise ApiError(400, TOPIC_ID_INVALID)  # General can't be deleted
        if topic.deleted:
            raise ApiError(400, TOPIC_ID_INVALID)
        topic.deleted = True
        for message in topic.chat.messages.values():
            if message.topic is topic:
                message.deleted = True

    def _deliver_service(self, chat: FakeChat, message: FakeMessage) -> None:
        """Service messages reach the bot whatever its privacy mode, if it is in the chat."""
        if chat.bot_status in ("member", "administrator"):
            self._enqueue("message", message.to_api())

    def _user_topic(self, person: FakeUser, chat: FakeChat, topic: TopicRef | None,
                    reply: FakeMessage | None) -> FakeTopic | None:
        """Where a person's message lands, refused as a Telegram client refuses it."""
        if topic is not None:
            place = chat.topic(topic)
            if reply is not None and reply.topic is not place:
                raise ValueError("a reply stays in the topic of the message it answers")
        elif reply is not None and reply.topic is not None:
            place = reply.topic
        elif chat.is_forum:
            place = chat.general
        else:
            return None
        if place.deleted:
            raise ValueError(f"topic {place.id} of chat {chat.id} was deleted")
        is_admin = person.id == chat.creator_id or person.id in chat.admin_ids
        if place.closed and not is_admin and (place.is_general or place.creator_id != person.id):
            raise ValueError(f"topic {place.id} of chat {chat.id} is closed")
        return place

    # --------------------------------------------------------------------------------------
    # simulated people

    def _writer(self, user: UserRef, chat: ChatRef | None) -> tuple[FakeUser, FakeChat]:
        """The person writing and the chat written in (their private chat if ``chat`` is
        None), as a real client allows it: one's own private chat (writing there restarts a
        blocked bot, as the "Restart bot" button does), or a group one is a member of."""
        person = self._user(user)
        target = self.chat(chat if chat is not None else person)
        if target.type == "private":
            if target.id != person.id:
                raise ValueError(f"user {person.id} can't write in the private chat {target.id}")
            if person.blocked:
                self.unblock(person)
            person.started = True
        else:
            if target.migrated_to is not None:
                raise ValueError(f"chat {target.id} was migrated to {target.migrated_to}")
            if person.id not in target.member_ids:
                raise ValueError(f"user {person.id} is not a member of chat {target.id}")
        return person, target

    async def send_text(
        self,
        user: UserRef,
        chat: ChatRef | None,
        text: str,
        *,
        reply_to: FakeMessage | int | None = None,
        topic: TopicRef | None = None,
    ) -> FakeMessage:
        """``user`` writes ``text`` in ``chat`` (their private chat if ``chat`` is the user or
        None).  Bot commands and @mentions get entities.  In a forum the message goes to
        ``topic`` (default: the topic of ``reply_to``, else General).  Returns the stored
        message."""
        person, target = self._writer(user, chat)
        reply: FakeMessage | None = None
        if reply_to is not None:
            reply_id = reply_to.message_id if isinstance(reply_to, FakeMessage) else reply_to
            reply = target.messages.get(reply_id)
            if reply is None:
                raise LookupError(f"no message {reply_id} in chat {target.id}")
        place = self._user_topic(person, target, topic, reply)
        message = self._new_message(
            target,
            topic=place,
            sender=person.to_api(),
            from_bot=False,
            text=text,
            entities=_detect_entities(text),
            source_text=text,
            reply_to=reply,
        )
        if self._delivers(target, message):
            self._enqueue("message", message.to_api())
        await asyncio.sleep(0)
        return message

    async def send_as_group(self, admin: UserRef, chat: ChatRef, text: str, *,
                            topic: TopicRef | None = None) -> FakeMessage:
        """An anonymous admin of ``chat`` writes ``text`` on behalf of the group: ``from`` is
        @GroupAnonymousBot and ``sender_chat`` is the group itself (as Telegram sends it); in a
        forum in ``topic`` (default General)."""
        person = self._user(admin)
        target = self.chat(chat)
        if person.id not in target.admin_ids and person.id != target.creator_id:
            raise ValueError(f"user {person.id} is not an admin of chat {target.id}")
        place = self._user_topic(person, target, topic, None)
        message = self._new_message(
            target,
            topic=place,
            sender={"id": GROUP_ANONYMOUS_BOT, "is_bot": True, "first_name": "Group",
                    "username": "GroupAnonymousBot"},
            from_bot=False,
            text=text,
            entities=_detect_entities(text),
            source_text=text,
            service={"sender_chat": target.to_api()},
        )
        if self._delivers(target, message):
            self._enqueue("message", message.to_api())
        await asyncio.sleep(0)
        return message

    async def send_document(
        self,
        user: UserRef,
        chat: ChatRef | None,
        data: bytes,
        file_name: str = "file.json",
        *,
        mime_type: str | None = "application/json",
        caption: str | None = None,
        topic: TopicRef | None = None,
    ) -> FakeMessage:
        """``user`` sends a file to ``chat`` (their private chat if ``chat`` is the user or
        None; in a forum to ``topic``, default General); the server stores it, so the bot can
        getFile and download it."""
        person, target = self._writer(user, chat)
        place = self._user_topic(person, target, topic, None)
        stored = self.store_file(data, "documents", file_name=file_name, mime_type=mime_type)
        message = self._new_message(
            target,
            topic=place,
            sender=person.to_api(),
            from_bot=False,
            entities=_detect_entities(caption) if caption else [],
        )
        message.caption = caption
        message.document = stored
        if self._delivers(target, message):
            self._enqueue("message", message.to_api())
        await asyncio.sleep(0)
        return message

    def store_file(self, data: bytes, folder: str, *, file_name: str | None = None,
                   mime_type: str | None = None) -> StoredFile:
        """Keep ``data`` as a new file (ids and a download path like Telegram's)."""
        number = next(self._file_ids)
        suffix = ""
        if file_name and "." in file_name:
            suffix = "." + file_name.rsplit(".", 1)[1][:8]
        size = png_size(data) if folder == "photos" else None
        stored = StoredFile(
            file_id=f"BQACAgIAAxkBAAI{number:08d}",
            file_unique_id=f"AgAD{number:06d}",
            data=bytes(data),
            file_path=f"{folder}/file_{number}{suffix or ('.jpg' if folder == 'photos' else '')}",
            file_name=file_name,
            mime_type=mime_type,
            width=size[0] if size else 0,
            height=size[1] if size else 0,
        )
        self.files[stored.file_id] = stored
        self._files_by_path[stored.file_path] = stored
        return stored

    def press_inline(self, user: UserRef, inline_message_id: str,
                     callback_data: str) -> PressedQuery:
        """A press on a message sent through inline mode: the update has
        ``inline_message_id`` and no ``message`` (a modified client can send any data)."""
        person = self._user(user)
        query_id = str(next(self._query_ids))
        payload: JSONDict = {"id": query_id, "from": person.to_api(),
                             "inline_message_id": inline_message_id,
                             "chat_instance": "inline", "data": callback_data}
        query = PressedQuery(id=query_id, user_id=person.id, chat_id=0, message_id=0,
                             data=callback_data, pressed_at=self.clock())
        self.callback_queries[query_id] = query
        self._enqueue("callback_query", payload)
        return query

    def inline_query_nowait(self, user: UserRef, query: str = "", *,
                            chat_type: str | None = "group") -> FakeInlineQuery:
        """``@bot <query>`` typed in some chat (``chat_type`` as the Bot API names it:
        "sender", "private", "group", "supergroup", "channel"; None from a secret chat)."""
        if not self.inline_mode:
            raise ValueError("inline mode is off for this bot (/setinline with @BotFather)")
        if len(query) > 256:
            raise ValueError("an inline query is up to 256 characters")
        person = self._user(user)
        query_id = str(next(self._query_ids))
        payload: JSONDict = {"id": query_id, "from": person.to_api(), "query": query,
                             "offset": ""}
        if chat_type is not None:
            payload["chat_type"] = chat_type
        found = FakeInlineQuery(id=query_id, user_id=person.id, query=query,
                                chat_type=chat_type, sent_at=self.clock())
        self.inline_queries[query_id] = found
        self._enqueue("inline_query", payload)
        return found

    async def inline_query(self, user: UserRef, query: str = "", *,
                           chat_type: str | None = "group",
                           timeout: float | None = None) -> InlineAnswer | None:
        """An inline query and the bot's answerInlineQuery (None on timeout)."""
        found = self.inline_query_nowait(user, query, chat_type=chat_type)
        limit = self.callback_answer_timeout if timeout is None else timeout
        await self._wait(lambda: found.answer is not None, limit)
        return found.answer

    def send_inline_result(self, user: UserRef, chat: ChatRef, answer: InlineAnswer,
                           result_id: str | None = None) -> FakeMessage:
        """The person picks a result of ``answer`` and it is sent to ``chat`` as their
        message "via @bot"; it gets an ``inline_message_id`` only when it has an inline
        keyboard.  A chosen_inline_result update follows when inline feedback is on."""
        person = self._user(user)
        query = self.inline_queries[answer.query_id]
        if query.user_id != person.id:
            raise ValueError("only the person who asked can send the inline result")
        result = answer.result(result_id)
        content = result.get("input_message_content")
        if not isinstance(content, dict) or "message_text" not in content:
            raise ValueError("the fake server sends only text results")
        formatted = self._format(content, text_key="message_text")
        mode = content.get("parse_mode")
        target = self.chat(chat)
        message = self._new_message(
            target, sender=person.to_api(), from_bot=False, text=formatted.text,
            entities=list(formatted.entities), source_text=str(content["message_text"]),
            parse_mode=mode if isinstance(mode, str) else None,
            reply_markup=_inline_markup(result.get("reply_markup")))
        message.via_bot = self.bot_user
        if message.reply_markup:
            message.inline_message_id = f"AgAAA{next(self._inline_ids):011d}"
            self.inline_messages[message.inline_message_id] = message
        if self.inline_feedback:
            chosen: JSONDict = {"result_id": str(result["id"]), "from": person.to_api(),
                                "query": query.query}
            if message.inline_message_id is not None:
                chosen["inline_message_id"] = message.inline_message_id
            self._enqueue("chosen_inline_result", chosen)
        self._notify()
        return message

    async def press_inline_message(self, user: UserRef, message: FakeMessage,
                                   callback_data: str, *,
                                   timeout: float | None = None) -> CallbackAnswer | None:
        """A press on a button of a message sent through inline mode (it must have that
        button now), and the bot's answer."""
        if message.inline_message_id is None:
            raise ValueError("not an inline message (no inline keyboard)")
        if not message.find_buttons(data=callback_data):
            raise LookupError(f"the inline message has no button with callback_data "
                              f"{callback_data!r}; buttons: {message.button_texts}")
        query = self.press_inline(user, message.inline_message_id, callback_data)
        return await self.wait_answer(query, timeout)

    def press_nowait(
        self,
        user: UserRef,
        chat: ChatRef,
        message_id: int,
        callback_data: str,
        *,
        strict: bool = True,
    ) -> PressedQuery:
        """Queue a callback_query update; ``strict`` demands that the message currently has a
        button with this callback_data (a real client can press nothing else)."""
        person = self._user(user)
        target = self.chat(chat)
        message = target.messages.get(message_id)
        if strict:
            if message is None or message.deleted:
                raise LookupError(f"no message {message_id} in chat {target.id}")
            if not message.find_buttons(data=callback_data):
                raise LookupError(
                    f"message {message_id} of chat {target.id} has no button with "
                    f"callback_data {callback_data!r}; buttons: "
                    f"{[[(b.text, b.callback_data) for b in row] for row in message.buttons]}"
                )
            if target.is_group and person.id not in target.member_ids:
                raise ValueError(f"user {person.id} is not a member of chat {target.id}")
        query_id = str(next(self._query_ids))
        payload: JSONDict = {"id": query_id, "from": person.to_api()}
        if message is not None and not message.deleted:
            payload["message"] = message.to_api()
        else:
            payload["message"] = {"chat": target.to_api(), "message_id": message_id, "date": 0}
        payload["chat_instance"] = target.chat_instance
        payload["data"] = callback_data
        query = PressedQuery(
            id=query_id,
            user_id=person.id,
            chat_id=target.id,
            message_id=message_id,
            data=callback_data,
            pressed_at=self.clock(),
        )
        self.callback_queries[query_id] = query
        self._enqueue("callback_query", payload)
        return query

    async def wait_answer(
        self, query: PressedQuery, timeout: float | None = None
    ) -> CallbackAnswer | None:
        """The bot's answer to ``query``; None, recorded in unanswered_callbacks, on timeout."""
        limit = self.callback_answer_timeout if timeout is None else timeout
        if not await self._wait(lambda: query.answer is not None, limit):
            if query not in self.unanswered_callbacks:
                self.unanswered_callbacks.append(query)
            return None
        return query.answer

    async def press(
        self,
        user: UserRef,
        chat: ChatRef,
        message_id: int,
        callback_data: str,
        *,
        timeout: float | None = None,
        strict: bool = True,
    ) -> CallbackAnswer | None:
        """Press a callback button and wait (``timeout``, default callback_answer_timeout) for
        the bot's answerCallbackQuery."""
        query = self.press_nowait(user, chat, message_id, callback_data, strict=strict)
        return await self.wait_answer(query, timeout)

    async def click(
        self,
        user: UserRef,
        message: FakeMessage,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
        timeout: float | None = None,
    ) -> CallbackAnswer | None:
        """Find a button of ``message`` (see FakeMessage.find_button) and press it."""
        button = message.find_button(text, contains=contains, data=data, predicate=predicate)
        if button.callback_data is None:
            raise ValueError(f"button {button.text!r} is not a callback button")
        return await self.press(
            user, message.chat, message.message_id, button.callback_data, timeout=timeout
        )

    # --------------------------------------------------------------------------------------
    # faults (a bad minute of Telegram)

    @staticmethod
    def _fault_key(target: str) -> str:
        if target not in FAULT_KINDS and not re.fullmatch(r"[A-Za-z]+", target):
            raise ValueError(f"{target!r} is neither a method name nor one of {FAULT_KINDS}")
        return target.lower()

    def set_faults(self, target: str, *, fail: float = 0.0, delay: float = 0.0,
                   delay_seconds: float = 12.0, seed: int | None = None) -> None:
        """From now on answer a share ``fail`` of the calls of ``target`` (a kind: "send",
        "edit", "answer", "delete", "action"; or a method name, which wins over its kind) with
        502 Bad Gateway before running them, and a share ``delay`` only ``delay_seconds``
        after running them.  ``seed`` reseeds ``fault_rng`` (one draw per call)."""
        if fail < 0.0 or delay < 0.0 or fail + delay > 1.0:
            raise ValueError("fail and delay are shares: 0 <= fail, delay; fail + delay <= 1")
        if delay_seconds < 0:
            raise ValueError("delay_seconds must not be negative")
        self._fault_rules[self._fault_key(target)] = FaultRule(fail, delay, delay_seconds)
        if seed is not None:
            self.fault_rng.seed(seed)

    def fail_next(self, target: str, count: int = 1) -> None:
        """The next ``count`` calls of ``target`` (kind or method) answer 502 (not run)."""
        self._fault_script.setdefault(self._fault_key(target), []).extend(
            [Fault(BAD_GATEWAY)] * count)

    def delay_next(self, target: str, seconds: float, count: int = 1) -> None:
        """The next ``count`` calls of ``target`` run at once and are answered ``seconds``
        later."""
        self._fault_script.setdefault(self._fault_key(target), []).extend(
            [Fault(LATE, seconds)] * count)

    def slow_next(self, target: str, seconds: float, count: int = 1) -> None:
        """The next ``count`` calls of ``target`` reach the server ``seconds`` late (a
        congested network, a client that stalled after deciding to send): the method runs
        then, and Telegram's limits count it from then (its ``time``)."""
        self._fault_script.setdefault(self._fault_key(target), []).extend(
            [Fault(SLOW, seconds)] * count)

    def clear_faults(self) -> None:
        """No more faults (rules and scripted ones); ``faulted`` keeps what happened."""
        self._fault_rules.clear()
        self._fault_script.clear()

    def duplicates(self, chat: ChatRef | None = None, *, window: float | None = None,
                   ) -> list[list[FakeMessage]]:
        """Messages the bot posted more than once: groups (oldest first) of its messages
        with the same chat, topic, thread, message replied to, text or caption and inline
        keyboard as sent (before any edit) and the same file bytes, deleted ones too.  With
        ``window``, only copies sent within ``window`` s of the previous one count."""
        groups: dict[tuple[object, ...], list[FakeMessage]] = {}
        for message in self.sent_by_bot(chat):
            file = message.photo or message.document
            key = (message.chat.id, message.topic_id, message.thread_id,
                   message.reply_to.message_id if message.reply_to else None, message.first_text,
                   json.dumps(message.first_markup, sort_keys=True),
                   file.data if file is not None else None)
            groups.setdefault(key, []).append(message)
        found: list[list[FakeMessage]] = []
        for same in groups.values():
            run = [same[0]]
            for message in same[1:]:
                if window is None or message.created_at - run[-1].created_at <= window:
                    run.append(message)
                    continue
                if len(run) > 1:
                    found.append(run)
                run = [message]
            if len(run) > 1:
                found.append(run)
        return sorted(found, key=lambda run: run[0].created_at)

    def duplicate_count(self, chat: ChatRef | None = None, *, window: float | None = None) -> int:
        """How many messages were posted in excess (a message posted twice counts 1)."""
        return sum(len(run) - 1 for run in self.duplicates(chat, window=window))

    # --------------------------------------------------------------------------------------
    # looking at the state

    def chat(self, ref: ChatRef) -> FakeChat:
        """A chat by id, FakeChat, or FakeUser (their private chat)."""
        if isinstance(ref, FakeChat):
            return ref
        chat_id = ref.id if isinstance(ref, FakeUser) else ref
        try:
            return self._chats[chat_id]
        except KeyError:
            raise LookupError(f"no chat {chat_id}") from None

    @property
    def chats(self) -> list[FakeChat]:
        return list(self._chats.values())

    def message(self, chat: ChatRef, message_id: int) -> FakeMessage:
        target = self.chat(chat)
        try:
            return target.messages[message_id]
        except KeyError:
            raise LookupError(f"no message {message_id} in chat {target.id}") from None

    def text_of(self, chat: ChatRef, message_id: int) -> str:
        """The current text of a message, as the user sees it (entities stripped)."""
        return self.message(chat, message_id).text or ""

    def buttons_of(self, chat: ChatRef, message_id: int) -> list[list[Button]]:
        return self.message(chat, message_id).buttons

    def find_button(
        self,
        message: FakeMessage,
        text: str | None = None,
        *,
        contains: str | None = None,
        data: str | None = None,
        predicate: Callable[[Button], bool] | None = None,
    ) -> Button:
        return message.find_button(text, contains=contains, data=data, predicate=predicate)

    def last_bot_message(self, chat: ChatRef, *, topic: TopicRef | None = None
                         ) -> FakeMessage | None:
        return self.chat(chat).last_bot_message(topic)

    def bot_messages(self, chat: ChatRef, *, topic: TopicRef | None = None) -> list[FakeMessage]:
        """The bot's text messages in ``chat`` (only those in ``topic`` if given)."""
        return self.chat(chat).bot_messages(topic)

    def sent_by_bot(self, chat: ChatRef | None = None, *, include_deleted: bool = True,
                    ) -> list[FakeMessage]:
        """Every message the bot sent (text, photo, document; not service messages), in
        ``chat`` or in all chats, oldest first; deleted ones too unless told otherwise."""
        chats = [self.chat(chat)] if chat is not None else list(self._chats.values())
        found = [m for c in chats for m in c.messages.values()
                 if m.from_bot and not m.service and (include_deleted or not m.deleted)
                 and (m.text is not None or m.photo is not None or m.document is not None)]
        return sorted(found, key=lambda m: (m.created_at, m.chat.id, m.message_id))

    def topics_of(self, messages: Iterable[FakeMessage]) -> set[int | None]:
        """The topics (ids; GENERAL_TOPIC_ID for General, None outside forums) the messages
        landed in: ``{topic.id}`` when every one is in that topic."""
        return {m.topic_id for m in messages}

    def photos(self, chat: ChatRef) -> list[FakeMessage]:
        """The photos the bot sent to ``chat`` (``message.photo.data``: the file's bytes)."""
        return self.chat(chat).bot_photos()

    def documents(self, chat: ChatRef) -> list[FakeMessage]:
        """The documents the bot sent to ``chat`` (``message.document.data``: the bytes)."""
        return self.chat(chat).bot_documents()

    def calls(
        self, method: str | None = None, chat: ChatRef | None = None
    ) -> list[RecordedRequest]:
        """Recorded requests, filtered by method (case-insensitive) and/or chat."""
        chat_id = self.chat(chat).id if chat is not None else None
        wanted = method.lower() if method is not None else None
        return [
            r
            for r in self.requests
            if (wanted is None or r.method.lower() == wanted)
            and (chat_id is None or r.chat_id == chat_id)
        ]

    def commands(self, scope: JSONDict | None = None, language_code: str = "") -> list[JSONDict]:
        """The commands stored by setMyCommands for this scope and language."""
        return list(self._commands.get(self._scope_key(scope, language_code), []))

    def request_times(
        self, chat: ChatRef, methods: Collection[str] = MESSAGE_METHODS, *, only_ok: bool = True
    ) -> list[float]:
        """Server-clock times of the requests of ``methods`` to ``chat``."""
        chat_id = chat if isinstance(chat, int) else self.chat(chat).id
        wanted = {m.lower() for m in methods}
        return sorted(
            r.time
            for r in self._chat_requests.get(chat_id, [])
            if r.method.lower() in wanted and (r.ok or not only_ok)
        )

    def max_in_window(
        self,
        chat: ChatRef,
        window: float = 60.0,
        methods: Collection[str] = MESSAGE_METHODS,
        *,
        only_ok: bool = True,
    ) -> int:
        """The largest number of ``methods`` requests to ``chat`` within any ``window``
        seconds (by default: messages sent + edited per minute)."""
        times = self.request_times(chat, methods, only_ok=only_ok)
        best = 0
        first = 0
        for index, moment in enumerate(times):
            while moment - times[first] >= window:
                first += 1
            best = max(best, index - first + 1)
        return best

    def assert_clean(self, *, allow_not_modified: bool = False) -> None:
        """AssertionError listing spec violations, server errors, callback queries not answered
        in time and (unless allowed) "message is not modified" errors."""
        problems = [f"violation: {v}" for v in self.violations]
        problems += [f"internal error: {e}" for e in self.internal_errors]
        now = self.clock()
        late = list(self.unanswered_callbacks)
        late += [
            q
            for q in self.callback_queries.values()
            if q.answer is None
            and q not in late
            and now - q.pressed_at > self.callback_answer_timeout
        ]
        problems += [
            f"callback query not answered in time: data={q.data!r} chat={q.chat_id} "
            f"message={q.message_id}"
            for q in late
        ]
        if not allow_not_modified:
            problems += [
                f"message is not modified: {r.method} {r.params}" for r in self.not_modified
            ]
        assert not problems, "\n".join(problems)

    # --------------------------------------------------------------------------------------
    # waiting

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, *, what: str | None = None
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value; re-checked after every
        request the bot makes (and every ``poll_interval`` s).  TimeoutError otherwise."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            event = self._changed
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "; ".join(
                    f"{r.method}({r.chat_id})->{r.status}" for r in self.requests[-8:]
                )
                raise TimeoutError(
                    f"{what or 'condition'} not met within {timeout} s "
                    f"(last requests: {recent or 'none'})"
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), min(remaining, self.poll_interval))

    async def _wait(self, predicate: Callable[[], bool], timeout: float) -> bool:
        try:
            await self.wait_for(predicate, timeout)
        except TimeoutError:
            return False
        return True

    async def wait_bot_message(
        self,
        chat: ChatRef,
        *,
        after: FakeMessage | int | None = None,
        predicate: Callable[[FakeMessage], bool] | None = None,
        timeout: float = 5.0,
        topic: TopicRef | None = None,
    ) -> FakeMessage:
        """The first (oldest) bot text message in ``chat`` (in ``topic`` if given) newer than
        ``after`` that matches ``predicate``, waiting for it if need be."""
        target = self.chat(chat)
        after_id = after.message_id if isinstance(after, FakeMessage) else (after or 0)
        wanted = target.topic(topic) if topic is not None else None

        def find() -> FakeMessage | None:
            for message in target.bot_messages(wanted):
                if message.message_id > after_id and (predicate is None or predicate(message)):
                    return message
            return None

        return await self.wait_for(
            find, timeout, what=f"a bot message in chat {target.id} after {after_id}"
        )

    async def wait_updates_delivered(self, timeout: float = 5.0) -> None:
        """Wait until getUpdates has handed out every update queued so far (with a webhook:
        until each was answered 2xx by a webhook target)."""
        last = self._next_update_id - 1

        def delivered() -> bool:
            if self.webhook_url:
                return all(u["update_id"] > last for u in self._queue)
            return self._last_delivered_id >= last

        await self.wait_for(delivered, timeout, what="updates delivered")

    def webhook_counts(self) -> dict[str, int]:
        """Updates delivered (answered 2xx) per webhook target."""
        counts: dict[str, int] = {}
        for d in self.webhook_deliveries:
            if d.ok:
                counts[d.target] = counts.get(d.target, 0) + 1
        return counts

    # --------------------------------------------------------------------------------------
    # internals: state

    def _user(self, ref: UserRef) -> FakeUser:
        return ref if isinstance(ref, FakeUser) else self.user(ref)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _now(self) -> int:
        return int(time.time())

    def _enqueue(self, kind: str, payload: JSONDict) -> JSONDict:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._queue.append(update)
        self.updates.append(update)
        self.update_times.append(self.clock())
        self._notify()
        return update

    def _new_message(
        self,
        chat: FakeChat,
        *,
        sender: JSONDict,
        from_bot: bool,
        text: str | None = None,
        entities: list[JSONDict] | None = None,
        source_text: str | None = None,
        parse_mode: str | None = None,
        reply_markup: JSONDict | None = None,
        reply_to: FakeMessage | None = None,
        service: JSONDict | None = None,
        topic: FakeTopic | None = None,
    ) -> FakeMessage:
        message = FakeMessage(
            chat=chat,
            message_id=chat.next_message_id,
            sender=sender,
            from_bot=from_bot,
            date=self._now(),
            created_at=self.clock(),
            text=text,
            entities=list(entities or []),
            source_text=source_text,
            parse_mode=parse_mode,
            reply_markup=reply_markup,
            reply_to=reply_to,
            service=dict(service or {}),
        )
        chat.next_message_id += 1
        chat.messages[message.message_id] = message
        self._place(message, topic)
        return message

    @staticmethod
    def _place(message: FakeMessage, topic: FakeTopic | None) -> None:
        """Thread fields as Telegram sets them: in a forum topic (not General) message_thread_id
        is the topic and is_topic_message is true; a reply in a supergroup outside topics
        (General included) has the id of the first message of its reply chain as
        message_thread_id, without is_topic_message; basic groups and private chats none."""
        chat, reply = message.chat, message.reply_to
        if chat.is_forum:
            if topic is None:
                topic = reply.topic if reply is not None and reply.topic is not None else (
                    chat.general)
            message.topic = topic
            if not topic.is_general:
                message.thread_id = topic.message_thread_id
                message.is_topic_message = True
                return
        if chat.type == "supergroup" and reply is not None:
            message.thread_id = reply.thread_id if reply.thread_id is not None else (
                reply.message_id)

    def _delivers(self, chat: FakeChat, message: FakeMessage) -> bool:
        if chat.type == "private":
            return True
        if chat.bot_status not in ("member", "administrator"):
            return False
        if not self.privacy_mode or chat.bot_status == "administrator":
            return True
        if message.reply_to is not None and message.reply_to.from_bot:
            return True
        text = message.text or ""
        own = f"@{self.bot_username}".lower()
        for entity in message.entities:
            chunk = text[entity["offset"] : entity["offset"] + entity["length"]].lower()
            if entity["type"] == "bot_command" and ("@" not in chunk or chunk.endswith(own)):
                return True
            if entity["type"] == "mention" and chunk == own:
                return True
        return False

    def _member(self, user: JSONDict, status: str, chat: FakeChat | None = None) -> JSONDict:
        if status == "creator":
            return {"status": "creator", "user": user, "is_anonymous": False}
        if status == "administrator":
            rights: JSONDict = {}
            if chat is not None and chat.type == "supergroup":
                rights["can_manage_topics"] = (
                    chat.bot_can_manage_topics if user.get("id") == self.bot_id else True)
            return {
                **rights,
                "status": "administrator",
                "user": user,
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
                "can_pin_messages": (chat.bot_can_pin_messages
                                     if chat is not None and user.get("id") == self.bot_id
                                     else True),
            }
        if status == "kicked":
            return {"status": "kicked", "user": user, "until_date": 0}
        return {"status": status, "user": user}

    def _my_chat_member(
        self, chat: FakeChat, actor: FakeUser, old_status: str, new_status: str
    ) -> None:
        self._enqueue(
            "my_chat_member",
            {
                "chat": chat.to_api(),
                "from": actor.to_api(),
                "date": self._now(),
                "old_chat_member": self._member(self.bot_user, old_status),
                "new_chat_member": self._member(self.bot_user, new_status),
            },
        )

    def _scope_key(self, scope: object, language_code: object) -> tuple[str, str]:
        scope_value = scope if isinstance(scope, dict) and scope else {"type": "default"}
        return json.dumps(scope_value, sort_keys=True), str(language_code or "")

    # --------------------------------------------------------------------------------------
    # internals: HTTP

    async def _handle_file(self, request: web.Request) -> web.StreamResponse:
        """``GET /file/bot<token>/<file_path>``: the bytes of a file after getFile."""
        stored = self._files_by_path.get(request.match_info["path"])
        if (request.match_info["prefix"] != f"bot{self.token}" or request.method != "GET"
                or stored is None):
            return web.json_response(
                {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
            )
        self.downloads.append(stored.file_path)
        self._notify()
        return web.Response(body=stored.data,
                            content_type=stored.mime_type or "application/octet-stream")

    async def _read_params(self, request: web.Request) -> dict[str, object]:
        params: dict[str, object] = dict(request.query)
        if not request.can_read_body:
            return params
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except ValueError as exc:
                raise ApiError(400, f"Bad Request: can't parse JSON body: {exc}") from exc
            if not isinstance(body, dict):
                raise ApiError(400, "Bad Request: the JSON body must be an object")
            params.update(body)
        elif request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    data = value.file.read()
                    params[key] = UploadedFile(value.filename, value.content_type, len(data),
                                               data)
                elif isinstance(value, bytes):
                    params[key] = value.decode("utf-8", "replace")
                else:
                    params[key] = value
        return params

    def _answer(self, rec: RecordedRequest, status: int, payload: JSONDict) -> web.Response:
        rec.status = status
        if status == 200:
            rec.result = payload.get("result")
        else:
            rec.description = payload.get("description")
            rec.error_parameters = payload.get("parameters")
            self.errors.append(rec)
        if rec.chat_id is not None:
            self._chat_requests.setdefault(rec.chat_id, []).append(rec)
        self._notify()
        return web.json_response(payload, status=status)

    def _fail(self, rec: RecordedRequest, error: ApiError) -> web.Response:
        payload: JSONDict = {
            "ok": False,
            "error_code": error.code,
            "description": error.description,
        }
        if error.parameters:
            payload["parameters"] = error.parameters
        if error.description == NOT_MODIFIED:
            self.not_modified.append(rec)
        if error.code == 429:
            self.rate_limited.append(rec)
        return self._answer(rec, error.code, payload)

    def _violation(self, rec: RecordedRequest, problems: list[str]) -> None:
        rec.problems.extend(problems)
        self.violations.extend(f"{rec.method}: {p}" for p in problems)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method_name = request.match_info["method"]
        rec = RecordedRequest(method=method_name, params={}, time=self.clock())
        self.requests.append(rec)
        if request.match_info["prefix"] != f"bot{self.token}":
            return self._fail(rec, ApiError(401, "Unauthorized"))
        try:
            raw = await self._read_params(request)
        except ApiError as exc:
            return self._fail(rec, exc)
        rec.params = dict(raw)
        method = self.spec.find_method(method_name)
        if method is None:
            self._violation(rec, [f"unknown method {method_name!r}"])
            return self._fail(rec, ApiError(404, "Not Found"))
        rec.method = method.name
        params, problems = self.spec.parse_request(method.name, raw)
        rec.params = params
        chat_id = params.get("chat_id")
        if isinstance(chat_id, int) and not isinstance(chat_id, bool):
            rec.chat_id = chat_id
        if problems:
            self._violation(rec, problems)
            return self._fail(rec, ApiError(400, "Bad Request: " + "; ".join(problems)))
        handler = self._handlers.get(method.name.lower())
        if handler is None:
            problem = "not implemented by the fake server"
            self._violation(rec, [problem])
            return self._fail(rec, ApiError(400, f"Bad Request: {method.name} is {problem}"))
        fault = self._draw_fault(method.name)
        if fault is not None and fault.kind == BAD_GATEWAY:
            return self._bad_gateway(rec, fault)
        if fault is not None and fault.kind == SLOW:  # it arrives now: counted from now
            self._record_fault(rec, fault)
            fault = None
            try:
                await asyncio.sleep(rec.fault_delay)
            except asyncio.CancelledError:
                rec.abandoned = True
                self._notify()
                raise
            rec.time = self.clock()
        try:
            result = await handler(params, rec)
        except ApiError as exc:
            response = self._fail(rec, exc)
        except Exception as exc:
            self.internal_errors.append(
                f"{method.name}: {exc!r}\n{''.join(traceback.format_exception(exc))}"
            )
            response = self._fail(rec, ApiError(500, f"Internal Server Error: {exc!r}"))
        else:
            response = self._answer(rec, 200, {"ok": True, "result": result})
        if fault is not None:  # LATE: the method took effect; the answer comes after a while
            self._record_fault(rec, fault)
            try:
                await asyncio.sleep(fault.seconds)
            except asyncio.CancelledError:
                rec.abandoned = True  # the client gave up waiting (its read timeout)
                self._notify()
                raise
        return response

    # --------------------------------------------------------------------------------------
    # internals: faults (see "Faults" in the module docstring)

    def _draw_fault(self, method: str) -> Fault | None:
        """The fault for one call of ``method``: a scripted one first (fail_next / delay_next,
        by method name, then by kind), else one drawn with ``fault_rng`` from the rule for the
        method name or its kind (set_faults)."""
        kind = fault_kind(method)
        keys = [method.lower()] + ([kind] if kind else [])
        for key in keys:
            script = self._fault_script.get(key)
            if script:
                return script.pop(0)
        for key in keys:
            rule = self._fault_rules.get(key)
            if rule is not None:
                draw = self.fault_rng.random()
                if draw < rule.fail:
                    return Fault(BAD_GATEWAY)
                if draw < rule.fail + rule.delay:
                    return Fault(LATE, rule.delay_seconds)
                return None
        return None

    def _record_fault(self, rec: RecordedRequest, fault: Fault) -> None:
        rec.fault = fault.kind
        rec.fault_delay = fault.seconds
        self.faulted.append(rec)

    def _bad_gateway(self, rec: RecordedRequest, fault: Fault) -> web.Response:
        """What api.telegram.org's front answers when the Bot API server behind it is away:
        502 with nginx's HTML page (the method did not run)."""
        self._record_fault(rec, fault)
        rec.status = 502
        rec.description = "Bad Gateway"
        self.errors.append(rec)
        if rec.chat_id is not None:
            self._chat_requests.setdefault(rec.chat_id, []).append(rec)
        self._notify()
        return web.Response(status=502, text=BAD_GATEWAY_PAGE, content_type="text/html")

    # --------------------------------------------------------------------------------------
    # internals: method helpers

    def _resolve_chat(self, value: object, rec: RecordedRequest, *, sending: bool) -> FakeChat:
        chat: FakeChat | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            chat = self._chats.get(value)
        elif isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            chat = self._chats.get(int(value))
        elif isinstance(value, str) and value.startswith("@"):
            name = value[1:].lower()
            chat = next(
                (c for c in self._chats.values() if c.username and c.username.lower() == name),
                None,
            )
        if chat is None:
            raise ApiError(400, CHAT_NOT_FOUND)
        rec.chat_id = chat.id
        if chat.migrated_to is not None:
            raise ApiError(400, MIGRATED, {"migrate_to_chat_id": chat.migrated_to})
        if chat.type == "private":
            assert chat.user is not None
            if sending and chat.user.blocked:
                raise ApiError(403, BLOCKED)
            if sending and not chat.user.started:
                raise ApiError(403, CANT_INITIATE)
        elif chat.bot_status in ("kicked", "left"):
            kind = "supergroup" if chat.type == "supergroup" else "group"
            if chat.bot_status == "kicked":
                raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        return chat

    def _rate_check(self, chat: FakeChat, rec: RecordedRequest) -> None:
        limit = self.group_rate_limit
        if limit is None or not chat.is_group:
            return
        now = self.clock()
        recent = [t for t in self.request_times(chat.id) if now - t < 60.0]
        if len(recent) >= limit:
            retry_after = max(1, math.ceil(recent[0] + 60.0 - now))
            raise ApiError(
                429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
            )

    def _format(self, params: JSONDict, *, text_key: str = "text") -> FormattedText:
        text = params.get(text_key)
        if not isinstance(text, str):
            raise ApiError(400, "Bad Request: message text is empty")
        mode = params.get("parse_mode")
        entities = params.get("entities")
        try:
            formatted = parse_formatted(
                text,
                mode if isinstance(mode, str) else None,
                entities if isinstance(entities, list) else None,
            )
        except UnsupportedParseModeError as exc:
            raise ApiError(400, "Bad Request: unsupported parse_mode") from exc
        except EntityParseError as exc:
            raise ApiError(400, f"Bad Request: can't parse entities: {exc}") from exc
        if not formatted.text:
            raise ApiError(400, "Bad Request: message text is empty")
        if len(formatted.text) > 4096:
            raise ApiError(400, "Bad Request: message is too long")
        return formatted

    def _bot_message(self, chat: FakeChat, message_id: object, missing: str) -> FakeMessage:
        message = chat.messages.get(message_id) if isinstance(message_id, int) else None
        if message is None or message.deleted:
            raise ApiError(400, missing)
        return message

    # --------------------------------------------------------------------------------------
    # methods

    async def _accept(self, params: JSONDict, rec: RecordedRequest) -> bool:
        return True

    async def _get_me(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        return {
            **self.bot_user,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": self.inline_mode,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _set_webhook(self, params: JSONDict, rec: RecordedRequest) -> bool:
        url = params["url"]
        if url == "":
            return await self._delete_webhook(params, rec)
        if not re.match(r"^https?://[^\s/]+(/\S*)?$", url):  # Telegram wants https; tests: http
            raise ApiError(400, "Bad Request: bad webhook: An HTTPS URL must be provided for "
                                "webhook")
        if params.get("certificate") is not None:
            raise ApiError(400, "Bad Request: the fake server takes no webhook certificate")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_RE.match(secret):
            raise ApiError(400, "Bad Request: secret token contains unallowed characters")
        connections = params.get("max_connections", 40)
        if not 1 <= connections <= 100:
            raise ApiError(400, "Bad Request: bad webhook: max_connections must be 1-100")
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        if params.get("drop_pending_updates"):
            self._queue.clear()
        self.webhook_url = url
        self.webhook_secret = secret
        self.webhook_max_connections = connections
        self._webhook_error = None
        self._poll_generation += 1  # a long poll in progress ends with 409
        if self._webhook_loop is None or self._webhook_loop.done():
            self._webhook_loop = asyncio.get_running_loop().create_task(self._deliver_updates())
        return True

    async def _delete_webhook(self, params: JSONDict, rec: RecordedRequest) -> bool:
        if params.get("drop_pending_updates"):
            self._queue.clear()
        self.webhook_url = ""
        self.webhook_secret = None
        self._webhook_error = None
        return True

    async def _get_webhook_info(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        info: JSONDict = {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._queue),
        }
        if self.webhook_url:
            info["max_connections"] = self.webhook_max_connections
            info["allowed_updates"] = sorted(self._allowed_updates)
            if self._webhook_error is not None:
                info["last_error_date"], info["last_error_message"] = self._webhook_error
        return info

    async def _get_updates(self, params: JSONDict, rec: RecordedRequest) -> list[JSONDict]:
        if self.webhook_url:
            raise ApiError(409, WEBHOOK_ACTIVE)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # ends an older long poll with 409
        allowed = params.get("allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_ALLOWED_UPDATES
        offset = params.get("offset")
        if isinstance(offset, int):
            if offset < 0:
                self._queue = self._queue[offset:]
            else:
                self._queue = [u for u in self._queue if u["update_id"] >= offset]
        limit = params.get("limit", 100)
        timeout = params.get("timeout", 0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0, timeout)
        while True:
            if self.webhook_url:
                raise ApiError(409, WEBHOOK_ACTIVE)
            if generation != self._poll_generation:
                raise ApiError(409, CONFLICT)
            event = self._changed
            self._queue = [u for u in self._queue if self._update_kind(u) in self._allowed_updates]
            batch = self._queue[:limit]
            remaining = deadline - loop.time()
            if batch or self._closing or remaining <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
        if batch:
            self._last_delivered_id = max(self._last_delivered_id, batch[-1]["update_id"])
        delivered: list[JSONDict] = json.loads(json.dumps(batch))
        return delivered

    @staticmethod
    def _update_kind(update: JSONDict) -> str:
        return next(k for k in update if k != "update_id")

    # --------------------------------------------------------------------------------------
    # internals: webhook delivery

    @classmethod
    def _order_key(cls, update: JSONDict) -> tuple[str, int]:
        """Updates with the same key are delivered one after another, in order: the chat's
        (a button's: the chat of its message), else the sender's."""
        payload = update[cls._update_kind(update)]
        if isinstance(payload, dict):
            message = payload.get("message")
            for holder in (payload, message if isinstance(message, dict) else {}):
                chat = holder.get("chat")
                if isinstance(chat, dict) and isinstance(chat.get("id"), int):
                    return "chat", chat["id"]
            sender = payload.get("from")
            if isinstance(sender, dict) and isinstance(sender.get("id"), int):
                return "user", sender["id"]
        return "update", int(update["update_id"])

    async def _deliver_updates(self) -> None:
        """While a webhook is set: POST each queued update to a target; a chat's next update
        only once its previous one was answered 2xx (Telegram keeps a chat's order)."""
        while not self._closing:
            event = self._changed
            if self.webhook_url:
                self._queue = [u for u in self._queue
                               if self._update_kind(u) in self._allowed_updates]
                busy: set[tuple[str, int]] = set()
                for update in self._queue:
                    if len(self._webhook_sending) >= self.webhook_max_connections:
                        break
                    key = self._order_key(update)
                    if key in busy:
                        continue  # an older update of this chat is not delivered yet
                    busy.add(key)
                    update_id = int(update["update_id"])
                    if update_id not in self._webhook_sending:
                        self._webhook_sending[update_id] = asyncio.get_running_loop(
                            ).create_task(self._deliver(update))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), self.poll_interval)

    async def _deliver(self, update: JSONDict) -> None:
        """POST ``update`` to a target chosen at random; on a failure (no answer, or not
        2xx) another target, then all of them again after ``webhook_retry_delay``."""
        update_id = int(update["update_id"])
        body = json.dumps(update).encode()
        tried: set[str] = set()
        try:
            while self.webhook_url and not self._closing:
                targets = list(self.webhook_targets or [self.webhook_url])
                fresh = [t for t in targets if t not in tried]
                if not fresh:
                    tried.clear()
                    fresh = targets
                    await asyncio.sleep(self.webhook_retry_delay)
                target = self.webhook_rng.choice(fresh)
                tried.add(target)
                attempt = await self._post_update(target, update_id, body)
                self.webhook_deliveries.append(attempt)
                if attempt.ok:
                    if update in self._queue:
                        self._queue.remove(update)
                    self._last_delivered_id = max(self._last_delivered_id, update_id)
                    return
                self._webhook_error = (self._now(), attempt.error or "")
        finally:
            self._webhook_sending.pop(update_id, None)
            self._notify()

    async def _post_update(self, target: str, update_id: int, body: bytes) -> WebhookDelivery:
        if self._webhook_http is None:
            self._webhook_http = aiohttp.ClientSession(
                timeout=aiohttp.ClientTimeout(total=self.webhook_timeout))
        headers = {"Content-Type": "application/json"}
        if self.webhook_secret:
            headers[SECRET_HEADER] = self.webhook_secret
        try:
            async with self._webhook_http.post(target, data=body, headers=headers) as response:
                await response.read()
                status = response.status
        except (aiohttp.ClientError, TimeoutError) as exc:
            return WebhookDelivery(update_id, target, self.clock(), None,
                                   f"Connection failed: {exc!r}")
        error = None if 200 <= status < 300 else f"Wrong response from the webhook: {status}"
        return WebhookDelivery(update_id, target, self.clock(), status, error)

    async def _stop_webhook(self) -> None:
        tasks = [t for t in (self._webhook_loop, *self._webhook_sending.values())
                 if t is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._webhook_loop = None
        self._webhook_sending.clear()
        if self._webhook_http is not None:
            await self._webhook_http.close()
            self._webhook_http = None

    async def _set_my_commands(self, params: JSONDict, rec: RecordedRequest) -> bool:
        scope = params.get("scope")
        if isinstance(scope, dict) and "chat_id" in scope:
            self._resolve_chat(scope["chat_id"], rec, sending=False)
        commands = params.get("commands", [])
        if len(commands) > 100:
            raise ApiError(400, "Bad Request: too many commands")
        key = self._scope_key(scope, params.get("language_code"))
        if commands:
            self._commands[key] = [dict(c) for c in commands]
        else:
            self._commands.pop(key, None)
        return True

    async def _get_my_commands(self, params: JSONDict, rec: RecordedRequest) -> list[JSONDict]:
        key = self._scope_key(params.get("scope"), params.get("language_code"))
        return [dict(c) for c in self._commands.get(key, [])]

    async def _delete_my_commands(self, params: JSONDict, rec: RecordedRequest) -> bool:
        self._commands.pop(self._scope_key(params.get("scope"), params.get("language_code")), None)
        return True

    def _set_bot_text(self, param: str, kind: str) -> Handler:
        async def handler(params: JSONDict, rec: RecordedRequest) -> bool:
            key = (kind, str(params.get("language_code") or ""))
            value = params.get(param)
            if value:
                self._bot_texts[key] = str(value)
            else:
                self._bot_texts.pop(key, None)
            return True

        return handler

    def _get_bot_text(self, param: str, kind: str) -> Handler:
        async def handler(params: JSONDict, rec: RecordedRequest) -> JSONDict:
            key = (kind, str(params.get("language_code") or ""))
            default = self.bot_first_name if kind == "name" else ""
            return {param: self._bot_texts.get(key, default)}

        return handler

    def _placement(self, chat: FakeChat, params: JSONDict) -> tuple[FakeMessage | None,
                                                                    FakeTopic | None]:
        """The message replied to and the forum topic of a send, refused as the Bot API does
        (check_message_topic in tdlib/telegram-bot-api, then Telegram's TOPIC_CLOSED).  A
        reply to a message of another topic than message_thread_id is an external reply."""
        thread = params.get("message_thread_id")
        thread_id = thread if isinstance(thread, int) and thread > 0 else 0  # < 0 is as none
        topic: FakeTopic | None = None
        if thread_id and chat.is_forum:
            if thread_id == GENERAL_TOPIC_ID:
                raise ApiError(400, THREAD_NOT_FOUND)  # General is reached without the id
            topic = chat.topics.get(thread_id)
            if topic is None:
                raise ApiError(400, THREAD_NOT_FOUND)
            if topic.deleted:
                raise ApiError(400, self.deleted_topic_error)
        elif thread_id and chat.type == "private":
            raise ApiError(400, THREAD_NOT_FOUND)  # no topics in private chats here
        # elsewhere (basic groups, supergroups without topics) the id is ignored
        reply_to: FakeMessage | None = None
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            reply_to = chat.messages.get(reply.get("message_id", 0))
            if reply_to is not None and reply_to.deleted:
                reply_to = None
            if reply_to is None and not reply.get("allow_sending_without_reply"):
                raise ApiError(400, "Bad Request: message to be replied not found")
        if chat.is_forum:
            if topic is None:
                topic = reply_to.topic if reply_to is not None and reply_to.topic else (
                    chat.general)
            if topic.closed and not chat.bot_manages_topics and topic.creator_id != self.bot_id:
                raise ApiError(400, TOPIC_CLOSED)
        return reply_to, topic

    async def _send_message(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        reply_to, topic = self._placement(chat, params)
        self._rate_check(chat, rec)
        formatted = self._format(params)
        mode = params.get("parse_mode")
        message = self._new_message(
            chat,
            sender=self.bot_user,
            from_bot=True,
            text=formatted.text,
            entities=formatted.entities,
            source_text=params["text"],
            parse_mode=mode if isinstance(mode, str) else None,
            reply_markup=_inline_markup(params.get("reply_markup")),
            reply_to=reply_to,
            topic=topic,
        )
        message.reply_external = reply_to is not None and reply_to.topic is not topic
        return message.to_api()

    def _upload(self, params: JSONDict, key: str, folder: str, limit: int) -> StoredFile:
        """The file of an upload parameter: a multipart part, or the file_id of a stored
        file (a URL is not fetched by the fake server)."""
        value = params.get(key)
        if isinstance(value, UploadedFile):
            if value.size == 0:
                raise ApiError(400, "Bad Request: file must be non-empty")
            if value.size > limit:
                raise ApiError(400, "Bad Request: file is too big")
            if folder == "photos" and png_size(value.data) is None:
                raise ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
            return self.store_file(value.data, folder, file_name=value.filename,
                                   mime_type=value.content_type)
        if isinstance(value, str) and value in self.files:
            return self.files[value]
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            raise ApiError(400, "Bad Request: URLs are not supported by the fake server")
        raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")

    def _send_media(self, params: JSONDict, rec: RecordedRequest, kind: str) -> JSONDict:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        reply_to, topic = self._placement(chat, params)
        self._rate_check(chat, rec)
        caption: FormattedText | None = None
        if isinstance(params.get("caption"), str) and params["caption"]:
            caption = self._format(params, text_key="caption")
            if len(caption.text) > 1024:
                raise ApiError(400, "Bad Request: message caption is too long")
        if kind == "photo":
            stored = self._upload(params, "photo", "photos", PHOTO_LIMIT)
        else:
            stored = self._upload(params, "document", "documents", DOCUMENT_LIMIT)
        mode = params.get("parse_mode")
        message = self._new_message(
            chat,
            sender=self.bot_user,
            from_bot=True,
            entities=caption.entities if caption else [],
            source_text=params.get("caption") if caption else None,
            parse_mode=mode if isinstance(mode, str) else None,
            reply_markup=_inline_markup(params.get("reply_markup")),
            reply_to=reply_to,
            topic=topic,
        )
        message.reply_external = reply_to is not None and reply_to.topic is not topic
        message.caption = caption.text if caption else None
        if kind == "photo":
            message.photo = stored
        else:
            message.document = stored
        return message.to_api()

    async def _send_photo(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        return self._send_media(params, rec, "photo")

    async def _send_document(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        return self._send_media(params, rec, "document")

    async def _get_file(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        stored = self.files.get(str(params.get("file_id")))
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        if stored.size > DOWNLOAD_LIMIT:
            raise ApiError(400, "Bad Request: file is too big")
        return {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id,
                "file_size": stored.size, "file_path": stored.file_path}

    def _editable(self, params: JSONDict, rec: RecordedRequest) -> FakeMessage:
        if "inline_message_id" in params:
            # "Required if chat_id and message_id are not specified": one way or the other
            if "chat_id" in params or "message_id" in params:
                raise ApiError(400, "Bad Request: chat_id and message_id must be empty "
                                    "for an inline message")
            found = self.inline_messages.get(str(params["inline_message_id"]))
            if found is None or found.deleted:
                raise ApiError(400, "Bad Request: MESSAGE_ID_INVALID")
            return found
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        self._rate_check(chat, rec)
        message = self._bot_message(chat, params.get("message_id"), EDIT_NOT_FOUND)
        if not message.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    def _apply_edit(
        self,
        message: FakeMessage,
        formatted: FormattedText,
        markup: JSONDict | None,
        source_text: str | None,
        parse_mode: str | None,
    ) -> None:
        message.history.append(
            MessageVersion(
                time=self.clock(),
                text=message.text,
                entities=[dict(e) for e in message.entities],
                reply_markup=message.reply_markup,
            )
        )
        message.text = formatted.text
        message.entities = list(formatted.entities)
        message.source_text = source_text
        message.parse_mode = parse_mode
        message.reply_markup = markup
        message.edit_date = self._now()

    async def _edit_message_text(self, params: JSONDict, rec: RecordedRequest) -> JSONDict | bool:
        message = self._editable(params, rec)
        if "text" not in params:
            raise ApiError(400, "Bad Request: rich messages are not supported by the fake server")
        if message.text is None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        formatted = self._format(params)
        markup = _inline_markup(params.get("reply_markup"))
        if (
            formatted.text == message.text
            and formatted.entities == message.entities
            and markup == message.reply_markup
        ):
            raise ApiError(400, NOT_MODIFIED)
        mode = params.get("parse_mode")
        self._apply_edit(
            message, formatted, markup, params["text"], mode if isinstance(mode, str) else None
        )
        return message.to_api() if message.inline_message_id is None else True

    async def _edit_message_reply_markup(
        self, params: JSONDict, rec: RecordedRequest
    ) -> JSONDict | bool:
        message = self._editable(params, rec)
        markup = _inline_markup(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        formatted = FormattedText(message.text or "", list(message.entities))
        self._apply_edit(message, formatted, markup, message.source_text, message.parse_mode)
        return message.to_api() if message.inline_message_id is None else True

    async def _delete_message(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=False)
        message = self._bot_message(chat, params.get("message_id"), DELETE_NOT_FOUND)
        if not (message.from_bot or chat.type == "private" or chat.bot_status == "administrator"):
            raise ApiError(400, "Bad Request: message can't be deleted")
        if "forum_topic_created" in message.service:  # deleteForumTopic deletes it
            raise ApiError(400, "Bad Request: message can't be deleted")
        if self.clock() - message.created_at > DELETE_LIMIT and not (
                chat.is_group and chat.bot_status == "administrator"):
            # "a message can only be deleted if it was sent less than 48 hours ago" (admins
            # of a group may delete any message there)
            raise ApiError(400, "Bad Request: message can't be deleted for everyone")
        message.deleted = True
        return True

    async def _answer_callback_query(self, params: JSONDict, rec: RecordedRequest) -> bool:
        query = self.callback_queries.get(str(params.get("callback_query_id")))
        now = self.clock()
        if query is None or query.answer is not None:
            raise ApiError(400, QUERY_TOO_OLD)
        rec.chat_id = query.chat_id
        if now - query.pressed_at > CALLBACK_QUERY_EXPIRY:
            raise ApiError(400, QUERY_TOO_OLD)
        text = params.get("text")
        url = params.get("url")
        cache_time = params.get("cache_time")
        query.answer = CallbackAnswer(
            query_id=query.id,
            text=text if isinstance(text, str) else None,
            show_alert=bool(params.get("show_alert", False)),
            url=url if isinstance(url, str) else None,
            cache_time=cache_time if isinstance(cache_time, int) else None,
            answered_at=now,
            latency=now - query.pressed_at,
        )
        return True

    async def _answer_inline_query(self, params: JSONDict, rec: RecordedRequest) -> bool:
        query = self.inline_queries.get(str(params.get("inline_query_id")))
        now = self.clock()
        if query is None or query.answer is not None or now - query.sent_at > INLINE_QUERY_EXPIRY:
            raise ApiError(400, QUERY_TOO_OLD)
        results = params.get("results")
        if not isinstance(results, list):
            raise ApiError(400, "Bad Request: can't parse inline query results")
        if len(results) > 50:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        seen: set[str] = set()
        for r in results:
            rid = r.get("id") if isinstance(r, dict) else None
            if not isinstance(rid, str) or not 1 <= len(rid.encode()) <= 64:
                raise ApiError(400, "Bad Request: RESULT_ID_INVALID")
            if rid in seen:
                raise ApiError(400, "Bad Request: RESULT_ID_DUPLICATE")
            seen.add(rid)
            content = r.get("input_message_content")
            if isinstance(content, dict) and "message_text" in content:
                self._format(content, text_key="message_text")  # its entities must parse
        offset = params.get("next_offset")
        if isinstance(offset, str) and len(offset.encode()) > 64:
            raise ApiError(400, "Bad Request: NEXT_OFFSET_INVALID")
        cache_time = params.get("cache_time")
        button = params.get("button")
        query.answer = InlineAnswer(
            query_id=query.id, results=[dict(r) for r in results],
            cache_time=cache_time if isinstance(cache_time, int) else None,
            is_personal=bool(params.get("is_personal", False)),
            next_offset=offset if isinstance(offset, str) else None,
            button=dict(button) if isinstance(button, dict) else None, answered_at=now)
        return True

    async def _get_chat(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=False)
        data = chat.to_api()
        data.update(
            {
                "accent_color_id": 0,
                "max_reaction_count": 11,
                "accepted_gift_types": {
                    "unlimited_gifts": chat.type == "private",
                    "limited_gifts": chat.type == "private",
                    "unique_gifts": chat.type == "private",
                    "premium_subscription": chat.type == "private",
                    "gifts_from_channels": chat.type == "private",
                },
            }
        )
        return data

    def _status_in(self, chat: FakeChat, user_id: int) -> str:
        if user_id == self.bot_id:
            return chat.bot_status if chat.is_group else "member"
        if chat.type == "private":
            if user_id != chat.id:
                raise ApiError(400, "Bad Request: user not found")
            return "member"
        if user_id == chat.creator_id:
            return "creator"
        if user_id in chat.admin_ids:
            return "administrator"
        if user_id in chat.member_ids:
            return "member"
        if user_id in self._users:
            return "left"
        raise ApiError(400, "Bad Request: user not found")

    def _user_api(self, user_id: int) -> JSONDict:
        return self.bot_user if user_id == self.bot_id else self.user(user_id).to_api()

    async def _get_chat_member(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=False)
        user_id = int(params["user_id"])
        status = self._status_in(chat, user_id)
        return self._member(self._user_api(user_id), status, chat)

    async def _get_chat_administrators(
        self, params: JSONDict, rec: RecordedRequest
    ) -> list[JSONDict]:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=False)
        if not chat.is_group:
            raise ApiError(400, "Bad Request: there are no administrators in the private chat")
        result: list[JSONDict] = []
        if chat.creator_id is not None:
            result.append(self._member(self._user_api(chat.creator_id), "creator"))
        result += [self._member(self._user_api(a), "administrator", chat) for a in chat.admin_ids]
        if chat.bot_status == "administrator":
            result.append(self._member(self.bot_user, "administrator", chat))
        return result

    async def _pin_chat_message(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        message = self._bot_message(
            chat, params.get("message_id"), "Bad Request: message to pin not found"
        )
        if chat.is_group and not self._bot_may_pin(chat):
            raise ApiError(
                400, "Bad Request: not enough rights to manage pinned messages in the chat"
            )
        message.pinned = True
        message.pin_silent = bool(params.get("disable_notification", False))
        return True

    @staticmethod
    def _bot_may_pin(chat: FakeChat) -> bool:
        return chat.bot_status == "administrator" and chat.bot_can_pin_messages

    async def _unpin_chat_message(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        if chat.is_group and not self._bot_may_pin(chat):
            raise ApiError(
                400, "Bad Request: not enough rights to manage pinned messages in the chat"
            )
        if "message_id" in params:
            message = self._bot_message(
                chat, params.get("message_id"), "Bad Request: message to unpin not found"
            )
            message.pinned = False
        else:
            pinned = [m for _, m in sorted(chat.messages.items()) if m.pinned]
            if pinned:
                pinned[-1].pinned = False
        return True

    async def _send_chat_action(self, params: JSONDict, rec: RecordedRequest) -> bool:
        self._resolve_chat(params.get("chat_id"), rec, sending=True)
        return True

    async def _set_chat_menu_button(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat_id = params.get("chat_id")
        if chat_id is not None:
            chat = self._resolve_chat(chat_id, rec, sending=False)
            if chat.is_group:
                raise ApiError(400, "Bad Request: chat_id must be a private chat")
            chat_id = chat.id
        button = params.get("menu_button") or {"type": "default"}
        self.menu_buttons[chat_id] = json.loads(json.dumps(button))
        return True

    async def _get_chat_menu_button(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        chat_id = params.get("chat_id")
        button = self.menu_buttons.get(chat_id if isinstance(chat_id, int) else None)
        return button or self.menu_buttons.get(None) or {"type": "commands"}

    async def _leave_chat(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=False)
        if not chat.is_group:
            raise ApiError(400, "Bad Request: chat member status can't be changed in private chats")
        chat.bot_status = "left"
        return True

    # --------------------------------------------------------------------------------------
    # forum topics (errors as TDLib's ForumTopicManager and Telegram give them)

    def _forum(self, params: JSONDict, rec: RecordedRequest) -> FakeChat:
        chat = self._resolve_chat(params.get("chat_id"), rec, sending=True)
        if not chat.is_forum:
            raise ApiError(400, NOT_A_FORUM)
        return chat

    def _bot_topic(self, chat: FakeChat, params: JSONDict) -> FakeTopic:
        thread = params.get("message_thread_id")
        if not isinstance(thread, int) or thread <= 0:
            raise ApiError(400, "Bad Request: invalid forum topic identifier specified")
        topic = chat.topics.get(thread)
        if topic is None or topic.deleted:
            raise ApiError(400, TOPIC_ID_INVALID)
        return topic

    async def _create_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> JSONDict:
        chat = self._forum(params, rec)
        if not chat.bot_manages_topics:
            raise ApiError(400, "Bad Request: not enough rights to create a topic")
        name = str(params.get("name", "")).strip()
        if not name:
            raise ApiError(400, "Bad Request: name must be non-empty")
        color = params.get("icon_color")
        if not isinstance(color, int) or color not in TOPIC_ICON_COLORS:
            if isinstance(color, int) and not 0 <= color <= 0xFFFFFF:
                raise ApiError(400, "Bad Request: invalid icon color specified")
            color = TOPIC_ICON_COLORS[0]
        emoji = params.get("icon_custom_emoji_id")
        emoji_id = emoji if isinstance(emoji, str) and emoji else None
        created: JSONDict = {"name": name, "icon_color": color}
        if emoji_id:
            created["icon_custom_emoji_id"] = emoji_id
        message = self._new_message(chat, sender=self.bot_user, from_bot=True,
                                    service={"forum_topic_created": created})
        topic = self._open_topic(message, name, color, self.bot_id, emoji_id)
        return topic.to_api()

    async def _edit_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        topic = self._bot_topic(chat, params)
        if not chat.bot_manages_topics and topic.creator_id != self.bot_id:
            raise ApiError(400, "Bad Request: not enough rights to edit the topic")
        name = params.get("name")
        edited: JSONDict = {}
        if isinstance(name, str) and name.strip():
            edited["name"] = name.strip()
        if "icon_custom_emoji_id" in params:
            edited["icon_custom_emoji_id"] = str(params["icon_custom_emoji_id"] or "")
        if not edited:
            return True
        if edited.get("name", topic.name) == topic.name and edited.get(
                "icon_custom_emoji_id", topic.icon_custom_emoji_id or "") == (
                topic.icon_custom_emoji_id or ""):
            raise ApiError(400, TOPIC_NOT_MODIFIED)
        topic.name = edited.get("name", topic.name)
        if "icon_custom_emoji_id" in edited:
            topic.icon_custom_emoji_id = edited["icon_custom_emoji_id"] or None
        self._new_message(chat, sender=self.bot_user, from_bot=True,
                          service={"forum_topic_edited": edited}, topic=topic)
        return True

    def _bot_toggle(self, chat: FakeChat, topic: FakeTopic, closed: bool) -> bool:
        if not chat.bot_manages_topics and topic.creator_id != self.bot_id:
            raise ApiError(400, "Bad Request: not enough rights to close or open the topic")
        self._toggle_topic(topic, self.bot_user, closed=closed, deliver=False)
        return True

    async def _close_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        return self._bot_toggle(chat, self._bot_topic(chat, params), True)

    async def _reopen_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        return self._bot_toggle(chat, self._bot_topic(chat, params), False)

    async def _close_general_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        return self._bot_toggle(chat, chat.general, True)

    async def _reopen_general_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        return self._bot_toggle(chat, chat.general, False)

    async def _delete_forum_topic(self, params: JSONDict, rec: RecordedRequest) -> bool:
        chat = self._forum(params, rec)
        topic = self._bot_topic(chat, params)
        if chat.bot_status != "administrator" and topic.creator_id != self.bot_id:
            raise ApiError(400, "Bad Request: not enough rights to delete the topic")
        self._remove_topic(topic)
        return True
