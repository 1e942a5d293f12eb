"""A test's conversation as people saw it: what they did (updates) and what the bot
did (requests), in time order, one line each, for reading an end-to-end test as a player
would.  ``THOUSAND_TRANSCRIPTS=DIR pytest …`` writes one file per test (tests/conftest.py).
"""

from __future__ import annotations

import html
import re
from typing import Any

from tests.fakeapi.server import FakeTelegramServer

_TAG = re.compile(r"<[^>]+>")
_SHOWN = ("sendMessage", "editMessageText", "deleteMessage", "answerCallbackQuery",
          "sendPhoto", "sendDocument", "pinChatMessage", "unpinChatMessage",
          "editMessageReplyMarkup", "editMessageCaption")


def _plain(text: Any) -> str:
    return html.unescape(_TAG.sub("", str(text or "")))


def _buttons(markup: Any) -> str:
    if not isinstance(markup, dict):
        return ""
    rows = markup.get("inline_keyboard") or []
    labels = [" ".join(f"[{b.get('text', '')}]" for b in row) for row in rows if row]
    return ("\n      " + "\n      ".join(labels)) if labels else ""


def _who(server: FakeTelegramServer, payload: dict[str, Any]) -> str:
    user = payload.get("from") or {}
    return str(user.get("first_name") or user.get("id") or "?")


def _where(chat_id: Any, thread: Any = None) -> str:
    where = "private" if isinstance(chat_id, int) and chat_id > 0 else f"group {chat_id}"
    return f"{where}/topic {thread}" if thread else where


def transcript(server: FakeTelegramServer) -> str:
    lines: list[tuple[float, int, str]] = []
    for n, (update, at) in enumerate(zip(server.updates, server.update_times, strict=False)):
        if "message" in update:
            m = update["message"]
            text = m.get("text") or ("(" + ", ".join(k for k in m if k not in (
                "message_id", "from", "chat", "date", "message_thread_id",
                "is_topic_message")) + ")")
            where = _where(m["chat"]["id"], m.get("message_thread_id"))
            lines.append((at, n, f"{_who(server, m)} → {where}: {text}"))
        elif "callback_query" in update:
            q = update["callback_query"]
            label = ""
            msg = q.get("message") or {}
            for row in (msg.get("reply_markup") or {}).get("inline_keyboard") or []:
                for b in row:
                    if b.get("callback_data") == q.get("data"):
                        label = b.get("text", "")
            where = _where((msg.get("chat") or {}).get("id"), msg.get("message_thread_id"))
            lines.append((at, n, f"{_who(server, q)} presses [{label or q.get('data')}] "
                                 f"in {where} #{msg.get('message_id')}"))
        else:
            kind = next((k for k in update if k != "update_id"), "?")
            lines.append((at, n, f"(update {kind})"))
    base = len(lines)
    for n, r in enumerate(server.requests):
        if r.method not in _SHOWN:
            continue
        p = r.params
        where = _where(p.get("chat_id", r.chat_id), p.get("message_thread_id"))
        status = "" if r.ok else f"  ⟵ {r.status} {r.description or ''}"
        if r.method == "sendMessage":
            body = f"bot → {where}: {_plain(p.get('text'))}{_buttons(p.get('reply_markup'))}"
        elif r.method == "editMessageText":
            body = (f"bot edits {where} #{p.get('message_id')}: {_plain(p.get('text'))}"
                    f"{_buttons(p.get('reply_markup'))}")
        elif r.method == "answerCallbackQuery":
            text = _plain(p.get("text"))
            if not text:
                continue
            body = f"bot answers a press: «{text}»" + (" (alert)" if p.get("show_alert") else "")
        elif r.method in ("sendPhoto", "sendDocument"):
            body = f"bot → {where}: ({r.method}) {_plain(p.get('caption'))}"
        else:
            body = f"bot {r.method} {where} #{p.get('message_id')}"
        lines.append((r.time, base + n, body.replace("\n", "\n      ") + status))
    lines.sort()
    start = lines[0][0] if lines else 0.0
    return "\n".join(f"{t - start:8.2f}  {text}" for t, _, text in lines) + "\n"


_ENTRY = re.compile(r"\n(?= *\d+\.\d\d  )")
_STAMPED = re.compile(r" *\d+\.\d\d  (.*)", re.S)


def deal_quote(text: str, chat: str, head: str, summary: str) -> str:
    """One chat of a transcript from the message that shows ``head`` (a deal's table) to
    the one with a line that starts with ``summary`` (its summary), with the presses between: each
    edit shows the lines that changed, ``…`` for a run of unchanged ones.  ``chat`` is
    ``group`` or ``private`` as the transcript names it."""
    out: list[str] = []
    seen: dict[str, list[str]] = {}
    started = False
    for entry in _ENTRY.split(text):
        m = _STAMPED.match(entry)
        if m is None:
            continue
        first, *rest = m.group(1).split("\n")
        ours = first.startswith((f"bot → {chat}", f"bot edits {chat}"))
        if not started:
            started = ours and head in first
            if not started:
                continue
        if " presses [" in first:
            out.append(first)
            continue
        if not ours:
            continue
        where, _, body = first.partition(": ")
        lines = [body, *(x.strip() for x in rest)]
        key = where.rsplit("#", 1)[-1] if "#" in where else ""
        # an edit of the message last sent when it was not seen by its number yet
        old = seen.get(key, seen.get("")) if first.startswith("bot edits") else None
        seen[key] = lines
        shown: list[str] = []
        for line in lines:
            same = old is not None and line in old and line != body
            if not (same and shown and shown[-1] == "…"):
                shown.append("…" if same else line)
        out.append(where + ": " + "\n    ".join(shown))
        if any(line.startswith(summary) for line in lines):  # (after its last trick)
            break
    return "\n".join(out) + "\n"
