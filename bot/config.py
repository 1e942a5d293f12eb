"""The bot's settings: environment variables and an optional ``.env`` file (pydantic-settings).

``load_settings()`` returns validated ``Settings`` or raises ``ConfigError`` whose message is
one line fit to print to a person (never a traceback, never the token).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
Level = Literal["random", "normal", "hard"]

_TOKEN_RE = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,80}$")


class ConfigError(Exception):
    """A setting is missing or wrong; ``str(error)`` is one readable line."""


class Settings(BaseSettings):
    """Every setting of the bot; the environment name is the upper-case field name."""

    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", frozen=True
    )

    telegram_bot_token: SecretStr = Field(
        description="The bot's token from @BotFather (a secret: never logged)."
    )
    telegram_api_url: str = Field(
        "https://api.telegram.org/bot",
        description="The Bot API base URL; the token is appended to it.",
    )
    database_path: str = Field("thousand.sqlite3", description="The SQLite database file.")
    turn_timeout: float = Field(
        90.0, gt=0, le=86400, description="Seconds a person has for a move at a shared table."
    )
    quick_turn_timeout: float = Field(
        30.0, gt=0, le=86400, description="Seconds a person has for a move at a quick table."
    )
    unhurried_ping_after: float = Field(
        300.0, gt=0, le=30 * 86400,
        description="Seconds an unhurried table waits before it reminds the person to move "
                    "(a private message).",
    )
    unhurried_ping_again: float = Field(
        3 * 3600.0, gt=0, le=30 * 86400,
        description="Seconds after the turn began when an unhurried table reminds once more "
                    "(the first reminder is deleted).",
    )
    ping_quiet: float = Field(
        15.0, ge=0, le=3600,
        description="A person who pressed at the table this recently is not told at once "
                    "that it is their move: only if they stay silent this long.",
    )
    computer_move_delay: float = Field(
        1.0, ge=0, le=60,
        description="Seconds between computer moves (0 in tests); the replies to a "
                    "person's move within it come at once, shown in one edit.",
    )
    log_level: LogLevel = Field("INFO", description="Logging level.")
    computer_level: Level = Field("hard", description="The level of new computer seats.")
    computer_think_seconds: float = Field(
        1.0, gt=0, le=30, description="How long a computer player may think about one move."
    )
    computer_workers: int = Field(
        0, ge=0, le=64, description="Processes for computer thinking (0: one per CPU core)."
    )
    group_messages_per_minute: int = Field(
        20, ge=1, le=100000, description="Messages sent or edited per minute in one group."
    )
    messages_per_second: float = Field(
        30.0, ge=0, le=100000, description="Messages sent or edited per second in all (0: off)."
    )

    database_url: str = Field(
        "",
        description="postgresql://user:password@host:port/db selects the PostgreSQL backend; "
                    "empty: SQLite at DATABASE_PATH (the default).",
    )
    http_client: Literal["aiohttp", "httpx"] = Field(
        "aiohttp",
        description="The HTTP client of Bot API requests: aiohttp (connection reuse, cheaper "
                    "per request) or httpx (python-telegram-bot's default).",
    )
    webhook_url: str = Field(
        "",
        description="The public https URL Telegram posts updates to; empty: long polling "
                    "(the default).",
    )
    webhook_listen: str = Field("127.0.0.1", description="The address the webhook server binds.")
    webhook_port: int = Field(8443, ge=1, le=65535, description="The webhook server's port.")
    webhook_secret: SecretStr = Field(
        SecretStr(""),
        description="The secret token Telegram sends with every webhook request (1-256 of "
                    "A-Z a-z 0-9 _ -); required in webhook mode.",
    )
    instance_name: str = Field(
        "",
        description="This process's name in leases and logs (default: host name and process id).",
    )

    request_timeout: float = Field(
        5.0, gt=0, le=600,
        description="Seconds to wait for the Bot API's answer to a request (a timed-out edit "
                    "or callback answer is retried or dropped: doing it twice is harmless).",
    )
    send_timeout: float = Field(
        60.0, gt=0, le=3600,
        description="Seconds a new message waits for the Bot API's answer: a send that timed "
                    "out may have been delivered, so the bot keeps waiting rather than send "
                    "it twice.",
    )

    metrics_port: int = Field(
        0, ge=0, le=65535,
        description="The port of GET /healthz and GET /metrics (Prometheus); 0: off (the "
                    "default). In webhook mode a port of its own, not WEBHOOK_PORT.",
    )
    metrics_listen: str = Field(
        "127.0.0.1", description="The address the health and metrics server binds.",
    )
    webapp_url: str = Field(
        "",
        description="The public https address of the Mini App (the table page, served by "
                    "the bot itself on WEBAPP_PORT behind a reverse proxy); empty: no Mini "
                    "App, and nothing of it is shown (docs/webapp.md).",
    )
    webapp_short_name: str = Field(
        "",
        description="The short name of the Mini App registered with @BotFather /newapp: a "
                    "group's table links to https://t.me/<bot>/<short name>?startapp=...; "
                    "empty: to the bot's main Mini App, https://t.me/<bot>?startapp=... "
                    "(docs/webapp.md).",
    )
    webapp_listen: str = Field("127.0.0.1", description="The address the Mini App server binds.")
    webapp_port: int = Field(
        8090, ge=0, le=65535,
        description="The port of the Mini App's page and API (0 in tests: a free one).",
    )
    log_format: Literal["text", "json"] = Field(
        "text", description="text: one readable line per record; json: one JSON object a "
                            "line (game, chat, update id and process name where they apply).",
    )

    database_busy_timeout: float = Field(
        5.0, gt=0, le=600,
        description="Seconds to wait for another connection's write lock on the database.",
    )
    lobby_ttl: float = Field(
        1800.0, gt=0, le=30 * 86400,
        description="Seconds a lobby may stay untouched before it is closed.",
    )
    game_ttl: float = Field(
        14 * 86400.0, gt=0, le=366 * 86400,
        description="Seconds an unfinished game may go without a person's move before it "
                    "is stopped (its record is kept).",
    )
    idle_evict_after: float = Field(
        600.0, ge=0, le=366 * 86400,
        description="Seconds a game may stay untouched before it leaves memory (rebuilt "
                    "from the database on its next touch; 0: never).",
    )

    @field_validator("telegram_bot_token")
    @classmethod
    def _check_token(cls, value: SecretStr) -> SecretStr:
        if not _TOKEN_RE.match(value.get_secret_value().strip()):
            raise ValueError("does not look like a bot token (digits, a colon, then a secret)")
        return SecretStr(value.get_secret_value().strip())

    @field_validator("telegram_api_url")
    @classmethod
    def _check_url(cls, value: str) -> str:
        value = value.strip()
        if not re.match(r"^https?://[^\s/]+(/\S*)?$", value):
            raise ValueError("must be an http(s) URL such as https://api.telegram.org/bot")
        return value

    @field_validator("database_path")
    @classmethod
    def _check_path(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str) -> str:
        value = value.strip()
        if value and not re.match(r"^postgres(ql)?://\S+$", value):
            raise ValueError("must be a postgresql:// URL (or empty for SQLite)")
        return value

    @field_validator("webhook_url")
    @classmethod
    def _check_webhook_url(cls, value: str) -> str:
        value = value.strip()
        if value and not re.match(r"^https?://[^\s/]+(/\S*)?$", value):
            raise ValueError("must be an https URL such as https://bot.example.org/telegram")
        return value

    @field_validator("webapp_url")
    @classmethod
    def _check_webapp_url(cls, value: str) -> str:
        value = value.strip()
        if value and not re.match(r"^https?://[^\s/?#]+(/[^\s?#]*)?$", value):
            raise ValueError("must be an https URL such as https://bot.example.org/app/")
        return value

    @field_validator("webapp_short_name")
    @classmethod
    def _check_short_name(cls, value: str) -> str:
        value = value.strip()
        if value and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value):
            raise ValueError("must be the short name given to @BotFather: 3-30 characters of "
                             "A-Z, a-z, 0-9 and _")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _check_secret(cls, value: SecretStr) -> SecretStr:
        secret = value.get_secret_value().strip()
        if secret and not re.match(r"^[A-Za-z0-9_-]{1,256}$", secret):
            raise ValueError("must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
        return SecretStr(secret)

    @model_validator(mode="after")
    def _check_webhook(self) -> Settings:
        if self.webhook_url and not self.webhook_secret.get_secret_value():
            raise ValueError("WEBHOOK_SECRET must be set when WEBHOOK_URL is set")
        if self.webhook_url and self.metrics_port and self.metrics_port == self.webhook_port:
            raise ValueError("METRICS_PORT must differ from WEBHOOK_PORT")
        if self.webapp_url and self.webapp_port and self.webapp_port in (
                self.metrics_port, self.webhook_port if self.webhook_url else 0):
            raise ValueError("WEBAPP_PORT must differ from METRICS_PORT and WEBHOOK_PORT")
        return self

    @property
    def token(self) -> str:
        return self.telegram_bot_token.get_secret_value()

    @property
    def file_url(self) -> str:
        """The file download base URL next to ``telegram_api_url`` (…/bot -> …/file/bot)."""
        base = self.telegram_api_url
        head, sep, tail = base.rpartition("/")
        if sep and tail.startswith("bot"):
            return f"{head}/file/{tail}"
        return base.rstrip("/") + "/file/bot"


def load_settings(**overrides: Any) -> Settings:
    """Read the settings (keyword overrides win over the environment); ``ConfigError`` if bad."""
    try:
        return Settings(**overrides)
    except ValidationError as e:
        raise ConfigError(_one_line(e)) from None


def _one_line(e: ValidationError) -> str:
    parts = []
    for err in e.errors():
        name = ".".join(str(x) for x in err["loc"]).upper() or "settings"
        if err["type"] == "missing":
            parts.append(f"{name} is not set")
        else:
            msg = str(err["msg"]).removeprefix("Value error, ")
            parts.append(f"{name}: {msg}")
    return "bad settings: " + "; ".join(parts)
