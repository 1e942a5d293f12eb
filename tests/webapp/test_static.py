"""The page's files: no text of any language in them (the server gives the page its words),
Telegram's script first in <head>, nothing loaded from anywhere but the page's own origin
(no CDN), and the browser tests' skip rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.webapp.payload import page_texts
from tests.webapp import browser as B

STATIC = Path(__file__).resolve().parents[2] / "bot" / "webapp" / "static"
CYRILLIC = re.compile(r"[А-Яа-яЁёІіЇїЄєҐґ]")


def test_no_language_lives_in_the_page() -> None:
    for path in STATIC.iterdir():
        text = path.read_text("utf-8")
        assert not CYRILLIC.search(text), path.name
    js = (STATIC / "app.js").read_text("utf-8")
    # every key the page asks for is a text of the catalogs
    keys = set(re.findall(r'fmt\("([a-z_.]+)"', js))
    assert keys and keys <= set(page_texts("ru")), keys - set(page_texts("ru"))
    # and no English word sits in a string the page shows (textContent/el(...) literals)
    # (signs are no language: "#", the stepper's "−" and "+")
    shown = re.findall(r'el\("[a-z]+", "[^"]*", "([^"]+)"\)', js)
    assert sorted(shown) == sorted(["#", "−", "+"]), shown


def test_telegram_script_first_and_nothing_from_elsewhere() -> None:
    html = (STATIC / "index.html").read_text("utf-8")
    head = html.split("</head>")[0]
    scripts = re.findall(r'<script src="([^"]+)"', html)
    assert scripts[0] == "https://telegram.org/js/telegram-web-app.js"
    assert head.index("telegram-web-app.js") < head.index("<link")
    assert all(not s.startswith(("http:", "https:", "//")) for s in scripts[1:])
    for path in STATIC.iterdir():
        others = re.findall(r'https?://[^\s"\')]+', path.read_text("utf-8"))
        assert set(others) <= {"https://telegram.org/js/telegram-web-app.js",
                               "http://www.w3.org/2000/svg"}, (path.name, others)


def test_browser_tests_skip_locally_and_fail_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install chromium"):
        B.unavailable(B.SKIP_REASON)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true but"):
        B.unavailable(B.SKIP_REASON)
