"""A fake Telegram Bot API server for end-to-end tests (see ``tests.fakeapi.server``) and the
Bot API 10.1 request checker (``tests.fakeapi.spec``)."""

from tests.fakeapi.ptb import connect, polling
from tests.fakeapi.server import (
    DEFAULT_TOKEN,
    MESSAGE_METHODS,
    NOT_MODIFIED,
    ApiError,
    Button,
    CallbackAnswer,
    FakeChat,
    FakeMessage,
    FakeTelegramServer,
    FakeUser,
    MessageVersion,
    PressedQuery,
    RecordedRequest,
    StoredFile,
)
from tests.fakeapi.spec import BotApiSpec, check_request, default_spec

__all__ = [
    "DEFAULT_TOKEN",
    "MESSAGE_METHODS",
    "NOT_MODIFIED",
    "ApiError",
    "BotApiSpec",
    "Button",
    "CallbackAnswer",
    "FakeChat",
    "FakeMessage",
    "FakeTelegramServer",
    "FakeUser",
    "MessageVersion",
    "PressedQuery",
    "RecordedRequest",
    "StoredFile",
    "check_request",
    "connect",
    "default_spec",
    "polling",
]
