"""The deployment files (docs/deploy.md): compose.yaml is valid YAML, names only real
settings, and wires two bot replicas in webhook mode to PostgreSQL behind the proxy."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = {name.upper() for name in Settings.model_fields}


def _compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "compose.yaml").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_compose_runs_two_webhook_replicas_on_postgresql_behind_a_proxy() -> None:
    compose = _compose()
    services = compose["services"]
    assert set(services) == {"postgres", "bot", "caddy"}
    bot = services["bot"]
    assert bot["build"] == "." and bot["deploy"]["replicas"] == 2
    assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    env = bot["environment"]
    assert set(env) <= SETTINGS, set(env) - SETTINGS  # no misspelt setting
    assert {"TELEGRAM_BOT_TOKEN", "DATABASE_URL", "WEBHOOK_URL", "WEBHOOK_LISTEN",
            "WEBHOOK_PORT", "WEBHOOK_SECRET"} <= set(env)
    assert env["DATABASE_URL"].startswith("postgresql://thousand:")
    assert env["DATABASE_URL"].endswith("@postgres:5432/thousand")
    assert env["WEBHOOK_URL"].startswith("https://") and env["WEBHOOK_LISTEN"] == "0.0.0.0"
    pg = services["postgres"]["environment"]
    assert pg["POSTGRES_USER"] == "thousand" and pg["POSTGRES_DB"] == "thousand"
    # the proxy reaches every replica on the port the bots listen on, at random
    caddy = services["caddy"]
    assert "443:443" in caddy["ports"]
    caddyfile = compose["configs"][caddy["configs"][0]["source"]]["content"]
    assert f"dynamic a bot {env['WEBHOOK_PORT']}" in caddyfile
    assert "lb_policy random" in caddyfile and "lb_try_duration" in caddyfile
    # the secrets come from .env, never from the file itself
    for value in (env["TELEGRAM_BOT_TOKEN"], env["WEBHOOK_SECRET"], pg["POSTGRES_PASSWORD"]):
        assert re.fullmatch(r"\$\{[A-Z_]+:\?[^}]+\}", value), value


def test_deploy_doc_names_real_settings() -> None:
    text = (ROOT / "docs" / "deploy.md").read_text("utf-8")
    named = set(re.findall(r"`((?:WEBHOOK|DATABASE|INSTANCE|TELEGRAM|HTTP)_[A-Z_]+)", text))
    assert named and named <= SETTINGS, named - SETTINGS
    readme = (ROOT / "README.md").read_text("utf-8")
    for name in ("WEBHOOK_URL", "WEBHOOK_SECRET", "DATABASE_URL", "HTTP_CLIENT",
                 "INSTANCE_NAME"):
        assert f"| `{name}`" in readme


def test_the_image_and_compose_probe_the_health_endpoint() -> None:
    docker = (ROOT / "Dockerfile").read_text("utf-8")
    assert re.search(r"^ENV .*METRICS_PORT=9090", docker, re.M | re.S)
    assert re.search(r'^HEALTHCHECK .*\n?.*CMD \["python", "-m", "bot", "health"', docker, re.M)
    bot = _compose()["services"]["bot"]
    assert bot["healthcheck"]["test"][:4] == ["CMD", "python", "-m", "bot"]
    assert bot["healthcheck"]["test"][4] == "health"
    env = bot["environment"]
    assert env["METRICS_PORT"] == "9090" and env["METRICS_PORT"] != env["WEBHOOK_PORT"]
    assert "ports" not in bot  # metrics stay inside the compose network
    text = (ROOT / "docs" / "deploy.md").read_text("utf-8")
    named = set(re.findall(r"`((?:METRICS|LOG|REQUEST|SEND)_[A-Z_]+)", text))
    assert {"METRICS_PORT", "METRICS_LISTEN", "LOG_FORMAT"} <= named <= SETTINGS, named
    rows = [line for line in (ROOT / "README.md").read_text("utf-8").splitlines()
            if line.startswith("| `")]
    for name in ("METRICS_PORT", "METRICS_LISTEN", "LOG_FORMAT", "REQUEST_TIMEOUT",
                 "SEND_TIMEOUT"):
        assert any(f"`{name}`" in row.split(" | ")[0] for row in rows), name
