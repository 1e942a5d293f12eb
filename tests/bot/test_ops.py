"""What an operator sees (issue 22): GET /healthz and GET /metrics with a real HTTP client,
and LOG_FORMAT=json."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import re
import socket
from pathlib import Path

import aiohttp
import pytest

from bot.cli.health import health_main
from bot.config import load_settings
from bot.ops.logs import JsonFormatter
from bot.run import setup_logging
from tests.bot.helpers import (
    action_button,
    idle,
    play,
    running,
    service,
    session,
    start_private,
)
from tests.bot.procs import BotExited, BotProcess, bots, free_port
from tests.fakeapi import FakeTelegramServer


def _value(text: str, name: str, **labels: str) -> float:
    """The sample ``name{labels}`` of a Prometheus text page (0 if absent)."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.fullmatch(r"([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)", line)
        if m is None or m.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(m.group(4))
    return 0.0


def _health(env: dict[str, str]) -> int:
    saved = {k: os.environ.pop(k, None) for k in ("METRICS_PORT", "METRICS_LISTEN")}
    try:
        os.environ.update(env)
        return health_main(["2"])
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None)
            if v is not None:
                os.environ[k] = v


async def test_healthz_and_metrics(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(2301, "Анна")
    port = free_port()
    async with running(server, db, metrics_port=port) as app, aiohttp.ClientSession() as http:
        base = f"http://127.0.0.1:{port}"
        async with http.get(f"{base}/healthz") as r:
            assert r.status == 200 and await r.text() == "ok\n"
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame 2")
        gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        presses = await play(server, app, gid, {0: anna}, max_moves=6, timeout=20)
        assert presses == 6

        def waiting_for_anna() -> bool:  # the computer's answer to the last press is made
            s = session(app, gid)
            return s is not None and s.state is not None and s.state.to_act == 0

        await server.wait_for(waiting_for_anna)
        await idle(app)
        async with http.get(f"{base}/metrics") as r:
            assert r.status == 200
            assert r.headers["Content-Type"].startswith("text/plain")
            page = await r.text()
        assert _value(page, "thousand_updates_total", kind="command") >= 2
        assert _value(page, "thousand_updates_total", kind="callback_query") >= presses
        assert _value(page, "thousand_presses_total", kind="a") >= presses
        assert _value(page, "thousand_update_seconds_count") >= 2 + presses
        assert _value(page, "thousand_bot_api_requests_total", method="sendMessage",
                      outcome="ok") >= 2
        assert _value(page, "thousand_bot_api_request_seconds_count",
                      method="answerCallbackQuery") >= presses
        assert _value(page, "thousand_storage_write_seconds_count", op="append_action") >= 1
        assert _value(page, "thousand_live_games") == 1
        assert _value(page, "thousand_sessions") == 1
        assert _value(page, "thousand_outbox_queue_depth") == 0
        assert "thousand_lease_takeovers_total" in page
        assert "thousand_bot_api_429_total" in page or "thousand_bot_api_429" in page
        assert server.token not in page and server.token.split(":")[1] not in page
        # the database stops answering: 503
        storage = service(app).storage

        async def broken(chat_id: int) -> None:
            raise OSError("disk I/O error")

        real = storage.get_chat
        storage.get_chat = broken
        async with http.get(f"{base}/healthz") as r:
            assert r.status == 503 and "database" in await r.text()
        storage.get_chat = real
        async with http.get(f"{base}/healthz") as r:
            assert r.status == 200
        # python -m bot health (the Docker HEALTHCHECK) asks the same endpoint
        env = {"METRICS_PORT": str(port), "METRICS_LISTEN": "0.0.0.0"}
        code = await asyncio.to_thread(_health, env)
        assert code == 0
        assert await asyncio.to_thread(_health, {"METRICS_PORT": str(free_port())}) == 1
        assert await asyncio.to_thread(_health, {}) == 1
    # stopped with the bot
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.ClientConnectionError):
            async with http.get(f"http://127.0.0.1:{port}/healthz"):
                pass


async def test_metrics_off_by_default(server: FakeTelegramServer, db: Path) -> None:
    async with running(server, db) as app:
        assert app.ops is None and app.ops_server is None


def test_metrics_port_must_differ_from_the_webhook_port() -> None:
    from bot.config import ConfigError

    with pytest.raises(ConfigError, match="METRICS_PORT must differ from WEBHOOK_PORT"):
        load_settings(telegram_bot_token="123:" + "a" * 30, webhook_url="https://x.org/t",
                      webhook_secret="s3cret", webhook_port=8443, metrics_port=8443)


async def test_json_logs(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(2302, "Анна")
    out = io.StringIO()
    secret_db = "postgresql://bot:hunter2pass@db.example/thousand"
    settings = load_settings(telegram_bot_token=server.token, log_format="json",
                             instance_name="bot-a", database_url=secret_db,
                             telegram_api_url=server.base_url)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        setup_logging(settings)
        handler = root.handlers[0]
        assert isinstance(handler.formatter, JsonFormatter)
        handler.setStream(out)  # type: ignore[attr-defined]
        async with running(server, db, log_format="json") as app:
            await start_private(server, anna)
            await server.send_text(anna, anna, "/newgame 2")
            gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
            def annas_turn() -> bool:
                x = service(app).sessions[gid].state
                return x is not None and x.to_act == 0

            await server.wait_for(annas_turn, 20, what="Anna's turn")
            st = service(app).sessions[gid].state
            assert st is not None and st.to_act == 0
            msg, button = await server.wait_for(
                lambda: action_button(server, anna, gid, st.version), 10, what="a button")
            assert button.callback_data is not None
            server.fail_next("answerCallbackQuery")  # logged while the press is handled
            server.fail_next("send")  # logged by the chat's outbox worker
            server.fail_next("edit")
            assert await server.press(anna, anna, msg.message_id, button.callback_data,
                                      timeout=3) is None
            await play(server, app, gid, {0: anna}, max_moves=2, timeout=20)
            await idle(app)
            log = logging.getLogger("test")
            log.warning("the token %s and the password %s", server.token, "hunter2pass")
            try:
                raise RuntimeError(f"boom {server.token}")
            except RuntimeError:
                log.exception("a failure")
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    text = out.getvalue()
    assert server.token not in text and "hunter2pass" not in text
    entries = [json.loads(line) for line in text.splitlines()]
    assert entries and all(e["process"] == "bot-a" for e in entries)
    assert all({"time", "level", "logger", "message"} <= e.keys() for e in entries)
    press = [e for e in entries if "callback query not answered" in e["message"]]
    assert press and press[0]["chat_id"] == anna.id and press[0]["game_id"] == gid
    assert isinstance(press[0]["update_id"], int)
    worker = [e for e in entries if e["logger"] == "bot.tg.io.outbox"
              and "network error" in e["message"]]
    assert worker and worker[0]["chat_id"] == anna.id
    mine = [e for e in entries if e["logger"] == "test"]
    assert mine[0]["message"] == "the token <token> and the password <secret>"
    assert "Traceback" in mine[1]["exc"] and "boom <token>" in mine[1]["exc"]


def test_request_outcomes_429s_and_retry_afters() -> None:
    from prometheus_client import generate_latest
    from telegram.error import NetworkError, TimedOut

    from bot.ops.metrics import BotMetrics, method_of, press_kind

    m = BotMetrics()
    m.request("sendMessage", 0.01, status=200)
    m.request("sendMessage", 0.02, status=429,
              body=b'{"ok":false,"error_code":429,"parameters":{"retry_after":7}}')
    m.request("editMessageText", 0.03, status=502, body=b"<html>502</html>")
    m.request("editMessageText", 5.0, error=TimedOut())
    m.request("answerCallbackQuery", 0.1, error=NetworkError("reset"))
    page = generate_latest(m.registry).decode()
    assert _value(page, "thousand_bot_api_requests_total", method="sendMessage",
                  outcome="ok") == 1
    assert _value(page, "thousand_bot_api_requests_total", method="sendMessage",
                  outcome="retry_after") == 1
    assert _value(page, "thousand_bot_api_429_total", method="sendMessage") == 1
    assert _value(page, "thousand_bot_api_retry_after_seconds_total") == 7
    assert _value(page, "thousand_bot_api_requests_total", method="editMessageText",
                  outcome="server_error") == 1
    assert _value(page, "thousand_bot_api_requests_total", method="editMessageText",
                  outcome="timeout") == 1
    assert _value(page, "thousand_bot_api_requests_total", method="answerCallbackQuery",
                  outcome="network_error") == 1
    assert _value(page, "thousand_bot_api_request_seconds_count", method="sendMessage") == 2
    assert method_of("https://api.telegram.org/bot123:SECRET/sendMessage") == "sendMessage"
    assert press_kind("g12:3:a:h5") == "a" and press_kind("garbage:with:" + "x" * 50) == "other"
    assert press_kind(None) == "none"


async def test_python_m_bot_serves_health_in_polling_mode(server: FakeTelegramServer,
                                                          tmp_path: Path) -> None:
    """A real ``python -m bot`` process (long polling) with METRICS_PORT: /healthz answers,
    /metrics counts; a busy METRICS_PORT stops start-up with one line."""
    port = free_port()
    bot = BotProcess.polling(server, tmp_path / "a", "metrics", {
        "database_path": tmp_path / "a.sqlite3", "metrics_port": port})
    async with bots(bot), aiohttp.ClientSession() as http:
        await bot.start()
        async with http.get(f"http://127.0.0.1:{port}/healthz") as r:
            assert r.status == 200
        async with http.get(f"http://127.0.0.1:{port}/metrics") as r:
            assert "thousand_bot_api_requests_total" in await r.text()
    assert f"health and metrics on http://127.0.0.1:{port}/healthz" in bot.log()
    assert server.token not in bot.log()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = int(taken.getsockname()[1])
        other = BotProcess.polling(server, tmp_path / "b", "busy", {
            "database_path": tmp_path / "b.sqlite3", "metrics_port": busy})
        with pytest.raises(BotExited):
            await other.start()
    assert other.proc is not None and other.proc.returncode == 1
    said = [ln for ln in other.log().splitlines() if ln.startswith("thousand-bot:")]
    assert said == [f"thousand-bot: cannot listen on 127.0.0.1:{busy} "
                    f"(METRICS_LISTEN, METRICS_PORT): Address already in use"]
    assert "Traceback" not in other.log()


async def test_start_up_leaves_the_collectors_view_once_the_bot_is_ready(
        server: FakeTelegramServer, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``gc.freeze`` after the service started (its games restored), once per process:
    a second application (as in these tests) freezes nothing more."""
    import gc

    import bot.tg.io.app as app_module

    frozen: list[bool] = []
    monkeypatch.setattr(app_module, "_frozen", False)
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    async with running(server, db) as app:
        assert frozen == [True]
        assert service(app).sessions is not None
    async with running(server, db.with_name("second.sqlite3")):
        assert frozen == [True]


def test_a_bot_process_is_frozen_when_ready(tmp_path: Path) -> None:
    """The real thing in a fresh interpreter: what start-up made is in the permanent
    generation (``gc.get_freeze_count``), the collections after it walk only the rest."""
    import subprocess
    import sys

    script = (
        "import asyncio, gc\n"
        "from tests.fakeapi import FakeTelegramServer\n"
        "from tests.bot.helpers import running\n"
        "from pathlib import Path\n"
        "async def main():\n"
        "    async with FakeTelegramServer() as server:\n"
        "        before = gc.get_freeze_count()\n"
        f"        async with running(server, Path({str(tmp_path / 'db.sqlite3')!r})):\n"
        "            print(before, gc.get_freeze_count())\n"
        "asyncio.run(main())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, cwd=Path(__file__).resolve().parents[2], check=True)
    before, after = map(int, out.stdout.split())
    assert before == 0 and after > 50_000  # the modules, classes and catalogs of start-up


def test_the_plain_tallies_expose_what_prometheus_clients_own_metrics_would() -> None:
    """``BotMetrics`` counts in plain dicts (cheaper per update) and exposes them at scrape
    time; the samples must equal those of prometheus_client's Counter and Histogram fed
    the same observations (bucket edges included: a value equal to a bound is in it)."""
    import random

    from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
    from prometheus_client.parser import text_string_to_metric_families

    from bot.ops.metrics import LATENCY_BUCKETS, BotMetrics

    ours = BotMetrics()
    ref = CollectorRegistry()
    requests = Counter("thousand_bot_api_requests", "x", ["method", "outcome"], registry=ref)
    seconds = Histogram("thousand_bot_api_request_seconds", "x", ["method"], registry=ref,
                        buckets=LATENCY_BUCKETS)
    flood = Counter("thousand_bot_api_429", "x", ["method"], registry=ref)
    waited = Counter("thousand_bot_api_retry_after_seconds", "x", registry=ref)
    outcome = {200: "ok", 400: "bad_request", 429: "retry_after", 502: "server_error"}
    rng = random.Random(3)
    for _ in range(500):
        method = rng.choice(["sendMessage", "editMessageText", "answerCallbackQuery"])
        status = rng.choice([200, 200, 400, 429, 502])
        took = rng.choice([*LATENCY_BUCKETS, rng.random() * 40, 0.0])
        ours.request(method, took, status=status, body=b'{"parameters":{"retry_after":3}}')
        requests.labels(method, outcome[status]).inc()
        seconds.labels(method).observe(took)
        if status == 429:
            flood.labels(method).inc()
            waited.inc(3)

    def samples(registry: CollectorRegistry) -> dict[tuple[str, frozenset[tuple[str, str]]],
                                                      float]:
        page = generate_latest(registry).decode()
        return {(s.name, frozenset(s.labels.items())): round(s.value, 9)
                for f in text_string_to_metric_families(page) for s in f.samples
                if f.name.startswith("thousand_bot_api") and not s.name.endswith("_created")}

    mine = samples(ours.registry)
    assert mine == samples(ref)
    assert len(mine) == 3 * (len(LATENCY_BUCKETS) + 3) + 3 * 4 + 3 + 1  # every series
