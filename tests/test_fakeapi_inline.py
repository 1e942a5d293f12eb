"""The fake Bot API's inline mode as Telegram has it: an inline query and its answer
(answerInlineQuery checked against the spec), the chosen result sent "via @bot" with an
inline_message_id, presses on it, and edits by inline_message_id."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
)
from telegram.error import BadRequest
from telegram.warnings import PTBUserWarning

from bot.tg.io.outbox import Outbox
from bot.tg.view.render import Button, Rendered
from tests.fakeapi import FakeMessage, FakeTelegramServer


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as fake:
        fake.inline_mode = True
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    async with Bot(server.token, base_url=server.base_url) as tg_bot:
        yield tg_bot


def article(text: str = "<b>A game</b>", data: str | None = "sit") -> InlineQueryResultArticle:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Sit", callback_data=data)]]) \
        if data is not None else None
    return InlineQueryResultArticle("r1", "A game", InputTextMessageContent(text, "HTML"),
                                    reply_markup=markup)


async def test_an_inline_query_is_answered_sent_pressed_and_edited(
        server: FakeTelegramServer, bot: Bot) -> None:
    server.inline_feedback = True
    anna = server.add_user(1001, "Anna", language_code="uk")
    boris = server.add_user(1002, "Boris")
    group = server.add_group(-1003001, "Friends", members=[anna, boris])
    assert (await bot.get_me()).supports_inline_queries is True
    asked = server.inline_query_nowait(anna, "hi", chat_type="group")
    updates = await bot.get_updates()
    q = updates[0].inline_query
    assert q is not None and q.query == "hi" and q.chat_type == "group"
    assert q.from_user.id == anna.id and q.from_user.language_code == "uk"
    assert await bot.answer_inline_query(q.id, [article()], cache_time=5, is_personal=True)
    answer = asked.answer
    assert answer is not None and answer.cache_time == 5 and answer.is_personal
    message = server.send_inline_result(anna, group, answer, "r1")
    assert message.text == "A game" and message.sender_id == anna.id and not message.from_bot
    assert message.to_api()["via_bot"]["id"] == bot.id
    iid = message.inline_message_id
    assert iid is not None and server.inline_messages[iid] is message
    chosen = (await bot.get_updates(offset=updates[0].update_id + 1))[0].chosen_inline_result
    assert chosen is not None and chosen.inline_message_id == iid and chosen.result_id == "r1"
    # a press on it: inline_message_id and no message
    query = server.press_inline(boris, iid, "sit")
    press = (await bot.get_updates(offset=updates[0].update_id + 2))[0].callback_query
    assert press is not None and press.message is None and press.inline_message_id == iid
    assert await press.answer("seated")
    assert query.answer is not None and query.answer.text == "seated"
    # edits by inline_message_id return True and are kept in the message's history
    keep = InlineKeyboardMarkup([[InlineKeyboardButton("Sit", callback_data="sit")]])
    assert await bot.edit_message_text("<b>Boris</b> sits", inline_message_id=iid,
                                       parse_mode="HTML", reply_markup=keep)
    assert message.text == "Boris sits" and message.edit_count == 1
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("<b>Boris</b> sits", inline_message_id=iid,
                                    parse_mode="HTML", reply_markup=keep)
    assert await bot.edit_message_reply_markup(inline_message_id=iid)
    assert message.buttons == []
    with pytest.raises(BadRequest, match=r"(?i)message_id_invalid"):
        await bot.edit_message_text("x", inline_message_id="AgAAAnothing")
    # the bot cannot edit it as a chat message: the person sent it
    with pytest.raises(BadRequest, match="can't be edited"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=message.message_id)
    assert server.violations == [] and server.internal_errors == []


async def test_answers_are_checked(server: FakeTelegramServer, bot: Bot) -> None:
    anna = server.add_user(1001, "Anna")
    group = server.add_group(-1003002, "Friends", members=[anna])
    asked = server.inline_query_nowait(anna)
    with pytest.raises(BadRequest, match=r"(?i)result_id_duplicate"):
        await bot.answer_inline_query(asked.id, [article(), article()])
    with pytest.raises(BadRequest, match=r"(?i)can't parse entities"):
        await bot.answer_inline_query(asked.id, [article("<b>open")])
    assert asked.answer is None
    assert await bot.answer_inline_query(asked.id, [article(data=None)])
    with pytest.raises(BadRequest, match=r"(?i)query is too old"):
        await bot.answer_inline_query(asked.id, [article()])  # answered once only
    assert asked.answer is not None
    plain = server.send_inline_result(anna, group, asked.answer)
    assert plain.inline_message_id is None  # no keyboard: no id, nothing to edit
    assert server.updates[-1].get("chosen_inline_result") is None  # feedback is off
    # a field the spec does not know is a violation
    asked2 = server.inline_query_nowait(anna)
    with pytest.raises(BadRequest), pytest.warns(PTBUserWarning):
        await bot.do_api_request("answerInlineQuery", api_kwargs={
            "inline_query_id": asked2.id, "results": [], "cache_seconds": 5})
    assert server.violations
    server.inline_mode = False
    with pytest.raises(ValueError, match="inline mode is off"):
        server.inline_query_nowait(anna)


async def sent_inline(server: FakeTelegramServer, bot: Bot,
                      group_id: int) -> tuple[FakeMessage, str]:
    """Anna types @bot in a group, the bot offers the article, she sends it: the message
    (the fake's) and its ``inline_message_id``."""
    anna = server.add_user(1001, "Anna")
    group = server.add_group(group_id, "Friends", members=[anna])
    asked = server.inline_query_nowait(anna)
    assert await bot.answer_inline_query(asked.id, [article()])
    assert asked.answer is not None
    message = server.send_inline_result(anna, group, asked.answer)
    assert message.inline_message_id is not None
    return message, message.inline_message_id


async def test_the_outbox_edits_an_inline_message_by_its_id(
        server: FakeTelegramServer, bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    message, iid = await sent_inline(server, bot, -1003003)
    tg: Any = bot  # (PTB's Bot: the outbox's BotLike is the narrow part it uses)
    outbox = Outbox(tg)
    keyboard = ((Button("Sit", "sit"),),)
    for n in range(5):  # a burst: the newest is shown, the ones between may be skipped
        outbox.edit_inline(iid, Rendered(f"<b>{n}</b> seated", keyboard))
    await outbox.idle()
    edits = [r for r in server.requests if r.method == "editMessageText"]
    assert message.text == "4 seated" and message.entities[0]["type"] == "bold"
    assert message.button_texts == [["Sit"]] and 1 <= len(edits) <= 2
    assert all(r.params.get("inline_message_id") == iid and "chat_id" not in r.params
               for r in edits)
    outbox.edit_inline(iid, Rendered("<b>4</b> seated", keyboard))  # shown already
    await outbox.idle()
    assert len([r for r in server.requests if r.method == "editMessageText"]) == len(edits)
    outbox.edit_inline("AgAAAnothing", Rendered("x", keyboard))  # logged, nothing else
    await outbox.idle()
    assert "AgAAAnothing not edited" in caplog.text
    assert server.violations == [] and server.internal_errors == []
    await outbox.close()


class LeaseOf:
    """The outbox's coordination with other processes, reduced to whose is a game's lease
    (``Outbox.shared``; only ``may_show`` is asked of it for an inline message)."""

    def __init__(self, mine: bool) -> None:
        self.mine = mine
        self.asked: list[int] = []

    async def may_show(self, game_id: int) -> bool:
        self.asked.append(game_id)
        return self.mine


async def test_several_processes_edit_an_inline_table_only_with_its_lease(
        server: FakeTelegramServer, bot: Bot) -> None:
    """As a chat's table: the process holding the game's lease (or any, when nobody holds
    it) edits the inline message; another one leaves it alone; ``on_shown`` is told what
    it shows only when it was edited."""
    message, iid = await sent_inline(server, bot, -1003004)
    tg: Any = bot
    outbox = Outbox(tg)
    keyboard = ((Button("Sit", "sit"),),)
    shown: list[str] = []
    lease = LeaseOf(mine=False)
    outbox.shared = lease  # type: ignore[assignment]  # (only may_show is asked)
    outbox.edit_inline(iid, Rendered("<b>other</b> process", keyboard), game=7,
                       on_shown=shown.append)
    await outbox.idle()
    assert lease.asked == [7] and message.edit_count == 0 and shown == []
    lease.mine = True
    content = Rendered("<b>this</b> process", keyboard)
    outbox.edit_inline(iid, content, game=7, on_shown=shown.append)
    await outbox.idle()
    assert message.text == "this process" and message.edit_count == 1
    assert shown == [content.digest()]
    await outbox.close()
    assert server.violations == [] and server.internal_errors == []
