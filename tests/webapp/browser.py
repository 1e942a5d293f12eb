"""Debian's chromium driven by Playwright (from PyPI) for the browser tests.

Never ``playwright install``: the browser is the distribution's, at ``CHROMIUM``.  Without
it the tests are skipped with ``SKIP_REASON``; with ``CI=true`` (``.ci/run`` installs
chromium and sets it) a missing or broken browser fails them instead.  Every request of the
page but to the bot's own server on 127.0.0.1 is refused, except Telegram's script, which
is answered with the stand-in ``telegram_standin.js``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SKIP_REASON = f"no {CHROMIUM}: apt-get install chromium (.ci/run installs it)"
TELEGRAM_JS = "https://telegram.org/js/telegram-web-app.js"
STANDIN = (Path(__file__).parent / "telegram_standin.js").read_text("utf-8")
PHONE = {"width": 390, "height": 844}

LIGHT = {"bg_color": "#ffffff", "text_color": "#000000", "hint_color": "#999999",
         "link_color": "#2481cc", "button_color": "#2481cc", "button_text_color": "#ffffff",
         "secondary_bg_color": "#efeff3", "accent_text_color": "#2481cc"}
DARK = {"bg_color": "#212121", "text_color": "#ffffff", "hint_color": "#aaaaaa",
        "link_color": "#8774e1", "button_color": "#8774e1", "button_text_color": "#ffffff",
        "secondary_bg_color": "#181818", "accent_text_color": "#8774e1"}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if not os.path.exists(CHROMIUM):
        unavailable(SKIP_REASON)
    from playwright.async_api import Error, async_playwright

    async with async_playwright() as p:
        try:
            b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Error as e:
            unavailable(f"{CHROMIUM} did not start: {str(e).splitlines()[0]}")
            raise
        try:
            yield b
        finally:
            await b.close()


async def open_page(browser: Any, url: str, init: str, *, dark: bool = False) -> Any:
    """A phone-sized page of ``url`` as Telegram opens it, with ``init`` as its init data."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2,
                                        color_scheme="dark" if dark else "light")
    config = {"initData": init, "theme": DARK if dark else LIGHT,
              "scheme": "dark" if dark else "light"}
    await context.add_init_script(f"window.__TG_CONFIG__ = {json.dumps(config)};")

    async def route(r: Any) -> None:
        target = r.request.url
        if target.startswith(TELEGRAM_JS):
            await r.fulfill(status=200, content_type="application/javascript", body=STANDIN)
        elif target.startswith(("http://127.0.0.1", "ws://127.0.0.1")):
            await r.continue_()
        else:
            await r.abort()

    await context.route("**/*", route)
    page = await context.new_page()
    return page
