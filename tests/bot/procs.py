"""Bot processes for end-to-end tests: ``python -m bot`` as a real child process.

``BotProcess`` starts the bot the way a deployment does — configured through the
environment only, in webhook mode (the default here: the fake Bot API posts updates to
it) or polling mode — waits until it is ready, keeps its log in a file, and stops it with
SIGTERM (a clean stop) or kills it with SIGKILL (a crash)::

    bot = BotProcess.webhook(server, tmp_path, "a", {"database_path": tmp_path / "db"})
    async with bots(bot):           # on an error: the tail of every bot's log is printed
        await bot.start()           # ready: its webhook server answers
        ...
        await bot.kill()            # SIGKILL
        await bot.start()           # the same settings, a new process
    # every bot still running is stopped with SIGTERM at the end of the block

Ready means: in webhook mode, an HTTP request to its webhook server is answered (PTB
listens only after ``setWebhook`` succeeded); in polling mode, the log line that polling
starts (after the database was opened).  A process that exits while starting raises
``BotExited`` with the tail of its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from tests.fakeapi import FakeTelegramServer

ROOT = Path(__file__).resolve().parents[2]
SECRET = "thousand-test-webhook-secret_0123456789"
READY_LINE = "INFO bot.run: polling mode:"  # bot/run.py, logged once initialised

# the settings of the parent's environment must not leak into a bot process
_OWN = ("TELEGRAM_", "WEBHOOK_", "DATABASE_", "COMPUTER_", "GROUP_", "MESSAGES_", "TURN_",
        "LOBBY_", "GAME_", "LOG_", "HTTP_CLIENT", "INSTANCE_NAME")


class BotExited(RuntimeError):
    """The bot process ended while it was expected to run."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class BotProcess:
    """One bot process (see the module docstring); ``env`` is its whole configuration."""

    name: str
    env: dict[str, str]
    workdir: Path
    hook: str | None = None
    """The URL of its own webhook server (None: polling mode)."""
    proc: asyncio.subprocess.Process | None = None
    starts: int = 0
    exits: list[int] = field(default_factory=list)
    kills: list[float] = field(default_factory=list)
    """The time.monotonic() of each SIGKILL (``kill``)."""

    @classmethod
    def webhook(cls, server: FakeTelegramServer, workdir: Path, name: str,
                settings: Mapping[str, object] | None = None, *,
                public_url: str | None = None, secret: str = SECRET) -> BotProcess:
        """A bot in webhook mode on a free port of 127.0.0.1.  ``public_url``: the
        WEBHOOK_URL it registers (default: its own server — Telegram posts straight to it;
        several processes behind one balancer register the balancer's URL, and the test
        sets ``server.webhook_targets``).  ``settings``: more settings by field name
        (``{"database_path": ..., "turn_timeout": 5}``), as environment variables."""
        port = free_port()
        hook = f"http://127.0.0.1:{port}/hook"
        env = _env(server, name, settings or {})
        env.update({"WEBHOOK_URL": public_url or hook, "WEBHOOK_LISTEN": "127.0.0.1",
                    "WEBHOOK_PORT": str(port), "WEBHOOK_SECRET": secret})
        return cls(name, env, workdir, hook)

    @classmethod
    def polling(cls, server: FakeTelegramServer, workdir: Path, name: str,
                settings: Mapping[str, object] | None = None) -> BotProcess:
        """A bot in polling mode (the default of ``python -m bot``)."""
        return cls(name, _env(server, name, settings or {}), workdir)

    @property
    def log_path(self) -> Path:
        return self.workdir / f"bot-{self.name}.log"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    async def start(self, timeout: float = 30.0) -> None:
        """Start a new process and wait until it is ready (``BotExited`` if it ends)."""
        if self.running:
            raise RuntimeError(f"bot {self.name} is already running")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"---- start {self.starts} of bot {self.name} ----\n".encode())
            log.flush()
            # cwd: an empty folder, so no .env file of the checkout is read
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.workdir, env=self.env,
                stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True)
        await self.wait_ready(timeout)

    async def wait_ready(self, timeout: float = 30.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if not self.running:
                raise BotExited(self._ended("exited while starting"))
            if await self._ready():
                return
            if loop.time() > deadline:
                raise TimeoutError(f"bot {self.name} not ready within {timeout} s\n"
                                   + self.tail())
            await asyncio.sleep(0.05)

    async def _ready(self) -> bool:
        if self.hook is None:
            return READY_LINE in self.log_path.read_text("utf-8", "replace").rpartition(
                f"---- start {self.starts} of")[2]
        return await probe(self.hook) is not None

    async def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM (PTB stops cleanly); SIGKILL after ``timeout`` s.  The exit code."""
        proc = self.proc
        if proc is None:
            raise RuntimeError(f"bot {self.name} was never started")
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        assert proc.returncode is not None
        self.exits.append(proc.returncode)
        return proc.returncode

    async def kill(self) -> float:
        """SIGKILL to the process and its children (the computer players' worker
        processes), as a crash of its machine; returns the time.monotonic() of the kill."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            raise BotExited(self._ended("was not running when it was to be killed"))
        killed = time.monotonic()
        os.killpg(proc.pid, signal.SIGKILL)  # its own session: start_new_session=True
        self.kills.append(killed)
        await proc.wait()
        assert proc.returncode is not None
        self.exits.append(proc.returncode)
        return killed

    def log(self) -> str:
        try:
            return self.log_path.read_text("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def tail(self, lines: int = 40) -> str:
        text = self.log().splitlines()[-lines:]
        return f"---- the last {len(text)} lines of {self.log_path} ----\n" + "\n".join(text)

    def _ended(self, what: str) -> str:
        code = self.proc.returncode if self.proc is not None else None
        return f"bot {self.name} {what} (exit code {code})\n{self.tail()}"


def _env(server: FakeTelegramServer, name: str,
         settings: Mapping[str, object]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_OWN)}
    env.update({
        "TELEGRAM_BOT_TOKEN": server.token,
        "TELEGRAM_API_URL": server.base_url,
        "COMPUTER_MOVE_DELAY": "0",
        "COMPUTER_LEVEL": "random",
        "MESSAGES_PER_SECOND": "0",
        "TURN_TIMEOUT": "600",
        "LOG_LEVEL": "INFO",
        "INSTANCE_NAME": name,
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                      if p),
        "PYTHONUNBUFFERED": "1",
    })
    env.update({key.upper(): str(value) for key, value in settings.items()})
    return env


async def probe(url: str, *, secret: str | None = None, body: bytes = b"{}",
                timeout: float = 2.0) -> int | None:
    """POST ``body`` (JSON) to a webhook URL: the HTTP status, None when nothing answers."""
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as http, \
                http.post(url, data=body, headers=headers) as response:
            await response.read()
            return response.status
    except (aiohttp.ClientError, TimeoutError):
        return None


@contextlib.asynccontextmanager
async def bots(*processes: BotProcess) -> AsyncIterator[tuple[BotProcess, ...]]:
    """Stop every process still running at the end (SIGTERM); when the block fails, print
    the tail of each one's log (pytest shows it with the failure)."""
    try:
        yield processes
    except BaseException:
        for p in processes:
            print(f"\n== bot {p.name} (pid {p.pid}, exits {p.exits}) ==\n{p.tail(60)}",
                  file=sys.stderr)
        raise
    finally:
        for p in processes:
            if p.running:
                await p.stop()
