"""The outbox with a scripted bot: coalescing, no identical edits, the group's pace, errors."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TimedOut

from bot.tg.outbox import Outbox
from bot.tg.render import Button, Rendered


@dataclass
class Msg:
    message_id: int


@dataclass
class FakeBot:
    calls: list[tuple[str, int, str]] = field(default_factory=list)
    fail: list[Exception] = field(default_factory=list)
    gate: asyncio.Event | None = None
    next_id: int = 100

    async def _step(self, kind: str, chat_id: int, text: str) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise self.fail.pop(0)
        self.calls.append((kind, chat_id, text))

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Msg:
        await self._step("send", chat_id, text)
        self.next_id += 1
        return Msg(self.next_id)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                **kw: Any) -> Msg:
        await self._step(f"edit {message_id}", chat_id, text)
        return Msg(message_id)


def r(text: str) -> Rendered:
    return Rendered(text, ((Button("b", "g1:1:h:"),),))


async def test_a_burst_becomes_one_edit_and_identical_content_is_never_sent() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    out.put(5, "k", r("one"))
    await out.idle()
    bot.gate = asyncio.Event()
    out.put(5, "k", r("two"))
    await asyncio.sleep(0.01)  # "two" is in flight
    for i in range(50):
        out.put(5, "k", r(f"burst {i}"))
    bot.gate.set()
    await out.idle()
    assert bot.calls == [("send", 5, "one"), ("edit 101", 5, "two"), ("edit 101", 5, "burst 49")]
    out.put(5, "k", r("burst 49"))
    await out.idle()
    assert len(bot.calls) == 3


async def test_a_group_gets_its_requests_spaced() -> None:
    bot = FakeBot()
    out = Outbox(bot, group_per_minute=600)  # one per 0.1 s
    started = time.monotonic()
    for i in range(4):
        out.send(-100, r(f"m{i}"))
    await out.idle()
    assert [c[2] for c in bot.calls] == ["m0", "m1", "m2", "m3"]
    assert time.monotonic() - started >= 0.29


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter(0)
async def test_errors() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    blocked: list[int] = []
    moved: list[tuple[int, int]] = []

    async def on_forbidden(chat: int) -> None:
        blocked.append(chat)

    async def on_migrated(old: int, new: int) -> None:
        moved.append((old, new))

    out.on_forbidden = on_forbidden
    out.on_migrated = on_migrated
    # a message that cannot be edited any more is sent anew; "not modified" counts as done
    out.put(7, "k", r("a"))
    await out.idle()
    bot.fail = [BadRequest("Message to edit not found")]
    out.put(7, "k", r("b"))
    await out.idle()
    assert bot.calls[-1] == ("send", 7, "b")
    bot.fail = [BadRequest("Message is not modified: specified new message content ...")]
    out.put(7, "k", r("c"))
    await out.idle()
    out.put(7, "k", r("c"))
    await out.idle()
    assert bot.calls[-1] == ("send", 7, "b")
    # flood control and a network error are retried
    bot.fail = [RetryAfter(0), TimedOut()]
    out.put(7, "k", r("d"))
    await out.idle()
    assert bot.calls[-1][2] == "d"
    # 403 in a private chat: reported, the chat's queue dropped
    bot.fail = [Forbidden("Forbidden: bot was blocked by the user")]
    out.put(8, "x", r("e"))
    await out.idle()
    assert blocked == [8] and 8 not in out.queues
    # a group that became a supergroup: reported, sent again in the new chat
    bot.fail = [ChatMigrated(-1009)]
    out.put(-9, "t", r("f"))
    await out.idle()
    assert moved == [(-9, -1009)] and bot.calls[-1] == ("send", -1009, "f")
