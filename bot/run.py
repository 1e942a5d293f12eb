"""``python -m bot``: run the bot (long polling, or a webhook server when WEBHOOK_URL is
set); ``python -m bot bench bot``: the benchmark."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from urllib.parse import urlsplit

from telegram.error import InvalidToken, TelegramError

from bot.config import ConfigError, Settings, load_settings
from bot.ops.server import ListenError
from storage import StorageError

log = logging.getLogger("bot.run")


class _Redacting(logging.Formatter):
    """Never lets the token into a log line (httpx and tracebacks may carry URLs)."""

    def __init__(self, secret: str) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secret = secret

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text.replace(self.secret, "<token>") if self.secret else text


class _NoStartupTraceback(logging.Filter):
    """PTB logs a failed start-up (bad token, unreachable Bot API, setWebhook or
    deleteWebhook refused) with a traceback before raising; ``main`` reports it in one clear
    line, so that record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("telegram") and
                    "Network Retry Loop (Bootstrap " in record.getMessage())


def _secrets(settings: Settings) -> list[str]:
    """What must never be logged besides the token: the webhook secret, the database's
    password."""
    found = [settings.webhook_secret.get_secret_value()]
    if settings.database_url:
        with contextlib.suppress(ValueError):
            found.append(urlsplit(settings.database_url).password or "")
    return [s for s in found if s]


def process_name(settings: Settings) -> str:
    return settings.instance_name or f"{socket.gethostname()}:{os.getpid()}"


def setup_logging(settings: Settings) -> None:
    handler = logging.StreamHandler()
    if settings.log_format == "json":
        from bot.ops.logs import JsonFormatter

        handler.setFormatter(JsonFormatter(process_name(settings), token=settings.token,
                                           secrets=_secrets(settings)))
    else:
        handler.setFormatter(_Redacting(settings.token))
    handler.addFilter(_NoStartupTraceback())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # httpx logs every request URL, and the URL carries the token
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


def _database(settings: Settings) -> str:
    """The database for a message: the PostgreSQL URL without its password, or the file."""
    if not settings.database_url:
        return settings.database_path
    from storage.postgres import redact

    return redact(settings.database_url)


def main() -> int:
    """Run the bot until SIGINT/SIGTERM — by long polling, or as a webhook server when
    WEBHOOK_URL is set; a bad setting stops it with one line (exit code 2)."""
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"thousand-bot: {e}", file=sys.stderr)
        return 2
    setup_logging(settings)
    from bot.tg.io.app import build_application
    from bot.tg.io.handlers import UPDATE_TYPES

    app = build_application(settings)
    webhook = settings.webhook_url
    where = f"{settings.webhook_listen}:{settings.webhook_port}"
    path = urlsplit(webhook).path or "/"
    opened = False

    async def ready(_: object) -> None:  # post_init: the database is open, the games restored
        nonlocal opened
        opened = True
        if webhook:  # never the secret
            log.info("webhook mode: listening on %s%s for updates posted to %s",
                     where, path, webhook)
        else:
            log.info("polling mode: long polling %s", settings.telegram_api_url)

    app.post_init = ready
    try:
        if webhook:
            app.run_webhook(
                listen=settings.webhook_listen, port=settings.webhook_port, url_path=path,
                webhook_url=webhook, secret_token=settings.webhook_secret.get_secret_value(),
                allowed_updates=UPDATE_TYPES, drop_pending_updates=False)
        else:
            app.run_polling(allowed_updates=UPDATE_TYPES, drop_pending_updates=False)
    except ListenError as e:
        print(f"thousand-bot: {e}", file=sys.stderr)
        return 1
    except InvalidToken:
        print("thousand-bot: Telegram refused TELEGRAM_BOT_TOKEN (invalid token)",
              file=sys.stderr)
        return 2
    except TelegramError as e:
        msg = str(e).replace(settings.token, "<token>")
        print(f"thousand-bot: cannot talk to the Bot API at {settings.telegram_api_url}: {msg}",
              file=sys.stderr)
        return 1
    except OSError as e:
        if opened and webhook:  # the webhook server could not bind its address
            print(f"thousand-bot: cannot listen on {where} (WEBHOOK_LISTEN, WEBHOOK_PORT): "
                  f"{e.strerror or e}", file=sys.stderr)
            return 1
        print(f"thousand-bot: cannot open the database {_database(settings)}: {e}",
              file=sys.stderr)
        return 1
    except StorageError as e:
        print(f"thousand-bot: cannot open the database {_database(settings)}: {e}",
              file=sys.stderr)
        return 1
    return 0
