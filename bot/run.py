"""``python -m bot``: run the bot by long polling; ``python -m bot bench bot``: the benchmark."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from telegram import Update
from telegram.error import InvalidToken, TelegramError

from bot.config import ConfigError, Settings, load_settings
from storage import StorageError


class _Redacting(logging.Formatter):
    """Never lets the token into a log line (httpx and tracebacks may carry URLs)."""

    def __init__(self, secret: str) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secret = secret

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text.replace(self.secret, "<token>") if self.secret else text


class _NoStartupTraceback(logging.Filter):
    """PTB logs a failed start-up (bad token, unreachable Bot API) with a traceback before
    raising; ``main`` reports it in one clear line, so that record is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name.startswith("telegram") and
                    "Bootstrap Initialize Application" in record.getMessage())


def setup_logging(settings: Settings) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(_Redacting(settings.token))
    handler.addFilter(_NoStartupTraceback())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # httpx logs every request URL, and the URL carries the token
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)


def main() -> int:
    """Run the bot until SIGINT/SIGTERM; a bad setting stops it with one line (exit code 2)."""
    try:
        settings = load_settings()
    except ConfigError as e:
        print(f"thousand-bot: {e}", file=sys.stderr)
        return 2
    setup_logging(settings)
    from bot.tg.app import build_application

    app = build_application(settings)
    try:
        app.run_polling(allowed_updates=Update.ALL_TYPES, drop_pending_updates=False)
    except InvalidToken:
        print("thousand-bot: Telegram refused TELEGRAM_BOT_TOKEN (invalid token)",
              file=sys.stderr)
        return 2
    except TelegramError as e:
        msg = str(e).replace(settings.token, "<token>")
        print(f"thousand-bot: cannot talk to the Bot API at {settings.telegram_api_url}: {msg}",
              file=sys.stderr)
        return 1
    except (StorageError, OSError) as e:
        print(f"thousand-bot: cannot open the database {settings.database_path}: {e}",
              file=sys.stderr)
        return 1
    return 0


def bench_bot(argv: Sequence[str]) -> int:
    """``python -m bot bench bot [--games N] ...`` (needs the source checkout: tests/fakeapi)."""
    try:
        from bot.tg import bench
    except ImportError as e:  # pragma: no cover - an installed wheel without tests/
        print(f"bench bot: {e}", file=sys.stderr)
        return 2
    return bench.main(list(argv))
