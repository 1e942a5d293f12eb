"""WEBAPP_URL, WEBAPP_LISTEN, WEBAPP_PORT: checked at start-up, one clear line when wrong."""

from __future__ import annotations

import pytest

from bot.config import ConfigError, load_settings

TOKEN = "123456:" + "A" * 35


def test_webapp_settings() -> None:
    s = load_settings(telegram_bot_token=TOKEN, _env_file=None)
    assert s.webapp_url == "" and s.webapp_port == 8090 and s.webapp_listen == "127.0.0.1"
    s = load_settings(telegram_bot_token=TOKEN, webapp_url=" https://t.example/app/ ",
                      _env_file=None)
    assert s.webapp_url == "https://t.example/app/"
    for bad in ("t.example/app", "https://t.example/app?x=1", "ftp://t.example/"):
        with pytest.raises(ConfigError, match="WEBAPP_URL"):
            load_settings(telegram_bot_token=TOKEN, webapp_url=bad, _env_file=None)
    with pytest.raises(ConfigError, match="WEBAPP_PORT must differ"):
        load_settings(telegram_bot_token=TOKEN, webapp_url="https://t.example/",
                      webapp_port=9090, metrics_port=9090, _env_file=None)
    with pytest.raises(ConfigError, match="WEBAPP_PORT must differ"):
        load_settings(telegram_bot_token=TOKEN, webapp_url="https://t.example/",
                      webhook_url="https://t.example/hook", webhook_secret="s",
                      webapp_port=8443, _env_file=None)
    # without WEBAPP_URL the port is not used: no clash to report
    assert load_settings(telegram_bot_token=TOKEN, webapp_port=9090, metrics_port=9090,
                         _env_file=None).webapp_port == 9090


def test_webapp_short_name() -> None:
    assert load_settings(telegram_bot_token=TOKEN, _env_file=None).webapp_short_name == ""
    s = load_settings(telegram_bot_token=TOKEN, webapp_short_name=" table ", _env_file=None)
    assert s.webapp_short_name == "table"
    for bad in ("ab", "a b c", "table/x", "x" * 31, "стол"):
        with pytest.raises(ConfigError, match="WEBAPP_SHORT_NAME"):
            load_settings(telegram_bot_token=TOKEN, webapp_short_name=bad, _env_file=None)
