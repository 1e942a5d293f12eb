"""LOG_FORMAT=json: one JSON object a line, with the game, chat and update an entry is
about and the process's name, where they apply; the token and the secrets never appear.

The update, chat and game come from context variables set while an update is handled
(``ThousandApplication.log_context``, called by the update processor: the chat of the
update, the game of its button or of its chat) and in each chat's outbox worker (the
chat); tasks started meanwhile (a game's timers, a computer's move) inherit them.  A
record may also name them itself: ``log.info(..., extra={"game_id": 7})``.
"""

from __future__ import annotations

import contextvars
import json
import logging
import time
from collections.abc import Iterable
from typing import Any, Final

update_id: Final = contextvars.ContextVar[int | None]("thousand_log_update", default=None)
chat_id: Final = contextvars.ContextVar[int | None]("thousand_log_chat", default=None)
game_id: Final = contextvars.ContextVar[int | None]("thousand_log_game", default=None)


def _iso(created: float) -> str:
    msecs = int((created - int(created)) * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created)) + f".{msecs:03d}Z"


class JsonFormatter(logging.Formatter):
    """A record as one line of JSON: time (UTC), level, logger, message, process, and
    update_id / chat_id / game_id when known, the traceback as ``exc``; every secret in
    ``secrets`` replaced by ``<secret>`` (the token as ``<token>``) in the whole line."""

    def __init__(self, process: str, *, token: str = "", secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.process = process
        self.replace = [(s, "<token>") for s in (token,) if s]
        self.replace += [(s, "<secret>") for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": self.process,
        }
        for name, var in (("update_id", update_id), ("chat_id", chat_id),
                          ("game_id", game_id)):
            value = getattr(record, name, None)
            if value is None:
                value = var.get()
            if value is not None:
                entry[name] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        line = json.dumps(entry, ensure_ascii=False, default=str)
        for secret, mask in self.replace:
            line = line.replace(secret, mask)
            quoted = json.dumps(secret)[1:-1]  # as it appears inside a JSON string
            if quoted != secret:
                line = line.replace(quoted, mask)
        return line
