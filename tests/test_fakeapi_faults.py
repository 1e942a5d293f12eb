"""Faults as switches in the fake Bot API server (issue 22): 502 Bad Gateway before a method
runs, answers held back after it ran, scripted faults, and counting what was posted twice —
driven through real HTTP by a real PTB ``Bot``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, NetworkError, TimedOut
from telegram.request import HTTPXRequest

from tests.fakeapi import FakeTelegramServer, default_spec
from tests.fakeapi.server import BAD_GATEWAY, LATE, SLOW, fault_kind

KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("Play", callback_data="play")]])
OTHER_KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("Pass", callback_data="pass")]])
GROUP = -1008001


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as fake:
        fake.add_user(1001, "Alice")
        fake.add_group(GROUP, "Table", admins=[1001])
        yield fake


def impatient_bot(server: FakeTelegramServer, read_timeout: float = 0.3) -> Bot:
    """A PTB Bot that gives up on an answer after ``read_timeout`` s."""
    return Bot(server.token, base_url=server.base_url,
               request=HTTPXRequest(read_timeout=read_timeout, connection_pool_size=8))


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    async with impatient_bot(server) as tg_bot:
        yield tg_bot


def test_method_kinds() -> None:
    assert [fault_kind(m) for m in ("sendMessage", "sendPhoto", "sendDocument", "copyMessage",
                                     "editMessageText", "editMessageReplyMarkup",
                                     "answerCallbackQuery", "deleteMessage", "sendChatAction",
                                     "getUpdates", "getChat")] == [
        "send", "send", "send", "send", "edit", "edit", "answer", "delete", "action", None, None]


async def test_a_502_means_the_method_never_ran(server: FakeTelegramServer, bot: Bot) -> None:
    server.set_faults("send", fail=1.0)
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.send_message(GROUP, "lost")
    assert server.bot_messages(GROUP) == []
    [rec] = server.faulted
    assert rec.fault == BAD_GATEWAY and rec.status == 502 and rec.chat_id == GROUP
    assert rec in server.errors
    # other kinds are untouched, and a 502 is not counted in the group's budget
    assert (await bot.get_chat(GROUP)).title == "Table"
    server.clear_faults()
    sent = await bot.send_message(GROUP, "kept")  # a retry after a 502 is safe
    assert [m.text for m in server.bot_messages(GROUP)] == ["kept"]
    await bot.edit_message_text("kept!", chat_id=GROUP, message_id=sent.message_id)
    assert server.max_in_window(GROUP) == 2
    assert server.duplicates() == []
    assert server.violations == [] and server.internal_errors == []


async def test_a_late_answer_means_the_method_ran(server: FakeTelegramServer, bot: Bot) -> None:
    sent = await bot.send_message(GROUP, "deal", reply_markup=KEYBOARD)
    server.set_faults("edit", delay=1.0, delay_seconds=2.0)
    started = time.monotonic()
    with pytest.raises(TimedOut):
        await bot.edit_message_text("dealt", chat_id=GROUP, message_id=sent.message_id)
    assert time.monotonic() - started < 1.5  # the client gave up first
    message = server.message(GROUP, sent.message_id)
    assert message.text == "dealt" and message.edit_count == 1  # ... but the edit was made
    [rec] = server.faulted
    assert rec.fault == LATE and rec.fault_delay == 2.0 and rec.ok
    await server.wait_for(lambda: rec.abandoned, what="the abandoned answer")
    # the unknown outcome, retried, shows as "not modified"
    server.clear_faults()
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("dealt", chat_id=GROUP, message_id=sent.message_id)
    assert len(server.not_modified) == 1


async def test_a_late_answer_within_the_timeout_arrives(server: FakeTelegramServer) -> None:
    async with impatient_bot(server, read_timeout=3.0) as bot:
        server.delay_next("sendMessage", 0.3)
        started = time.monotonic()
        sent = await bot.send_message(GROUP, "slow")
        assert time.monotonic() - started >= 0.3
        assert sent.text == "slow"
        [rec] = server.faulted
        assert rec.fault == LATE and not rec.abandoned
        fast = await bot.send_message(GROUP, "fast")  # scripted: only the next one
        assert fast.text == "fast" and len(server.faulted) == 1


async def test_a_slow_request_runs_and_counts_when_it_arrives(
    server: FakeTelegramServer,
) -> None:
    """SLOW: the request reaches Telegram late; nothing of it shows before, and the group's
    rate limit counts it from its arrival, after a quick one sent later."""
    async with impatient_bot(server, read_timeout=4.0) as bot:
        server.slow_next("send", 0.5)
        started = server.clock()
        slow = asyncio.create_task(bot.send_message(GROUP, "slow"))
        await server.wait_for(lambda: server.faulted, what="the slow send")
        assert not server.chat(GROUP).bot_messages()  # not arrived yet
        fast = await bot.send_message(GROUP, "fast")
        sent = await slow
        assert sent.message_id > fast.message_id  # it ran when it arrived
        [rec] = server.faulted
        assert rec.fault == SLOW and rec.fault_delay == 0.5 and rec.ok
        assert rec.time - started >= 0.5
        assert server.request_times(GROUP)[-1] == rec.time  # counted last: on arrival


async def test_other_requests_go_on_while_an_answer_is_held_back(
    server: FakeTelegramServer,
) -> None:
    async with impatient_bot(server, read_timeout=4.0) as bot:
        server.delay_next("send", 2.0)
        slow = asyncio.create_task(bot.send_message(GROUP, "slow"))
        await server.wait_for(lambda: server.faulted, what="the held-back send")
        fast = await bot.send_message(GROUP, "fast")
        assert not slow.done()  # the fast one was answered while the slow one waited
        assert (await slow).message_id < fast.message_id


async def test_scripted_faults_on_callback_answers(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.user(1001)
    sent = await bot.send_message(GROUP, "deal", reply_markup=KEYBOARD)
    query = server.press_nowait(alice, GROUP, sent.message_id, "play")
    server.fail_next("answer")
    with pytest.raises(NetworkError, match="Bad Gateway"):
        await bot.answer_callback_query(query.id, "ok")
    assert query.answer is None  # not run: a retry is fine
    assert await bot.answer_callback_query(query.id, "ok")
    assert query.answer is not None and query.answer.text == "ok"
    # a late answer ran: the retry is refused like a second answer
    second = server.press_nowait(alice, GROUP, sent.message_id, "play")
    server.delay_next("answerCallbackQuery", 1.0)
    with pytest.raises(TimedOut):
        await bot.answer_callback_query(second.id, "late")
    assert second.answer is not None and second.answer.text == "late"
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await bot.answer_callback_query(second.id, "again")
    assert [r.fault for r in server.faulted] == [BAD_GATEWAY, LATE]
    server.assert_clean()


async def test_seeded_shares_are_reproducible(server: FakeTelegramServer, bot: Bot) -> None:
    async def run(seed: int) -> list[str | None]:
        server.set_faults("send", fail=0.3, delay=0.1, delay_seconds=0.0, seed=seed)
        outcomes: list[str | None] = []
        for n in range(100):
            before = len(server.faulted)
            with contextlib.suppress(NetworkError):
                await bot.send_message(GROUP, f"{seed} {n}")
            outcomes.append(server.faulted[-1].fault if len(server.faulted) > before else None)
        return outcomes

    first = await run(7)
    again = await run(7)
    other = await run(8)
    assert first == again and first != other
    assert 20 <= first.count(BAD_GATEWAY) <= 40
    assert 3 <= first.count(LATE) <= 20
    # every 502 is a message not posted, every late one was posted
    posted = {m.text for m in server.bot_messages(GROUP)}
    assert all((f"7 {n}" in posted) == (o != BAD_GATEWAY) for n, o in enumerate(first))


async def test_a_method_rule_wins_over_its_kind(server: FakeTelegramServer, bot: Bot) -> None:
    server.set_faults("send", fail=1.0)
    server.set_faults("sendPhoto", fail=0.0)
    with pytest.raises(ValueError, match="neither a method name"):
        server.set_faults("send-ish", fail=1.0)
    with pytest.raises(ValueError, match="shares"):
        server.set_faults("edit", fail=0.8, delay=0.3)
    with pytest.raises(NetworkError):
        await bot.send_message(GROUP, "x")
    with pytest.raises(NetworkError):
        await bot.send_document(GROUP, b"{}", filename="a.json")
    png = (b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + (4).to_bytes(4, "big")
           + (3).to_bytes(4, "big") + b"\x08\x02\x00\x00\x00" + b"\x00" * 4)
    assert (await bot.send_photo(GROUP, png)).photo


async def test_requests_are_still_checked_against_the_spec(
    server: FakeTelegramServer, bot: Bot
) -> None:
    server.set_faults("send", fail=1.0)
    with pytest.raises(BadRequest, match=r"(?i)colour: unknown parameter"):
        await bot.send_message(GROUP, "x", api_kwargs={"colour": "red"})
    assert server.violations == ["sendMessage: colour: unknown parameter of sendMessage"]
    assert server.faulted == []  # a bad request is refused before any fault


async def test_duplicates_are_counted(server: FakeTelegramServer, bot: Bot) -> None:
    """A sender that retries after a timeout posts twice: the helper finds it."""
    alice = server.user(1001)
    forum = server.add_group(-1008002, "Forum", admins=[alice], is_forum=True)
    topic = server.create_topic(forum, "Table")

    async def send_retrying(chat_id: int, text: str, **kwargs: object) -> None:
        for _ in range(3):
            try:
                await bot.send_message(chat_id, text, **kwargs)  # type: ignore[arg-type]
                return
            except (TimedOut, NetworkError):
                continue

    server.delay_next("send", 1.0)
    await send_retrying(GROUP, "Your turn", reply_markup=KEYBOARD)  # timed out, sent twice
    server.fail_next("send")
    await send_retrying(GROUP, "Trick 1")  # 502, then sent once
    await bot.send_message(GROUP, "Your turn", reply_markup=OTHER_KEYBOARD)  # other keyboard
    server.delay_next("send", 1.0)
    await send_retrying(forum.id, "Your turn", reply_markup=KEYBOARD,
                        message_thread_id=topic.id)
    await bot.send_message(forum.id, "Your turn", reply_markup=KEYBOARD)  # General: other place
    twice = server.duplicates()
    assert [[m.text for m in run] for run in twice] == [["Your turn"] * 2] * 2
    assert [run[0].chat.id for run in twice] == [GROUP, forum.id]
    assert twice[1][0].topic_id == topic.id and twice[1][1].topic_id == topic.id
    assert server.duplicate_count() == 2 and server.duplicate_count(GROUP) == 1
    assert server.duplicate_count(GROUP, window=0.0) == 0  # the copies were a moment apart
    # an edit later does not hide a copy: what counts is what was sent
    copy = twice[0][1]
    await bot.edit_message_text("Your turn!", chat_id=GROUP, message_id=copy.message_id)
    await bot.delete_message(GROUP, copy.message_id)
    assert server.duplicate_count(GROUP) == 1
    spec = default_spec()
    for rec in server.calls("sendMessage"):
        if rec.ok:
            assert spec.check_object("Message", rec.result) == []
    assert server.violations == [] and server.internal_errors == []
