"""Forums in the fake Bot API server (issue 18): topics, General, reply chains, closed and
deleted topics, driven through real HTTP by a real PTB ``Bot`` / ``Application``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Bot, ForumTopic, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update
from telegram.error import BadRequest, RetryAfter
from telegram.ext import Application, ApplicationBuilder, ContextTypes, MessageHandler, filters

from tests.fakeapi import FakeTelegramServer, connect, default_spec, polling
from tests.fakeapi.server import (
    GENERAL_TOPIC_ID,
    THREAD_NOT_FOUND,
    TOPIC_CLOSED,
    TOPIC_DELETED,
    TOPIC_NOT_MODIFIED,
    JSONDict,
)

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
FORUM = -1005001
KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("Play", callback_data="play")]])


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    async with Bot(server.token, base_url=server.base_url) as tg_bot:
        yield tg_bot


def assert_follow_spec(server: FakeTelegramServer) -> None:
    """Every update queued and every Message the server answered is a valid Bot API object."""
    spec = default_spec()
    for update in server.updates:
        assert spec.check_object("Update", update) == [], update
    for rec in server.requests:
        if rec.ok and isinstance(rec.result, dict) and "message_id" in rec.result:
            assert spec.check_object("Message", rec.result) == [], rec.result
    assert server.violations == []
    assert server.internal_errors == []


def messages(server: FakeTelegramServer) -> list[JSONDict]:
    return [u["message"] for u in server.updates if "message" in u]


def echo_app(server: FakeTelegramServer) -> AnyApplication:
    """A bot that answers every text with ``reply_text`` (PTB passes message_thread_id only
    for topic messages) and every command with ``chat.send_message`` (no thread)."""

    async def on_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        assert message is not None and message.text is not None
        if message.text.startswith("/"):
            await message.chat.send_message(f"to the chat: {message.text}")
        else:
            await message.reply_text(f"echo: {message.text}", do_quote=False)

    app = connect(ApplicationBuilder(), server).build()
    app.add_handler(MessageHandler(filters.TEXT, on_text))
    return app


# ------------------------------------------------------------------------------------------


async def test_the_docstring_example(server: FakeTelegramServer) -> None:
    """The example of the module docstring, as written there."""
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob")
    forum = server.add_group(-1005001, "Club", members=[bob], admins=[alice], is_forum=True)
    table_a = server.create_topic(forum, "Table A", by=alice)
    table_b = server.create_topic(forum, "Table B", by=alice)
    app = echo_app(server)
    async with polling(app):
        await server.send_text(bob, forum, "hello A", topic=table_a)
        await server.send_text(bob, forum, "hello B", topic=table_b)
        await server.wait_bot_message(forum, topic=table_b)
    assert [m.text for m in server.bot_messages(forum, topic=table_a)] == ["echo: hello A"]
    assert server.topics_of(server.bot_messages(forum, topic=table_b)) == {table_b.id}
    assert server.topics_of(server.sent_by_bot(forum)) == {table_a.id, table_b.id}
    server.assert_clean()


async def test_a_forum_and_its_topics_through_the_bot_api(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    forum = server.add_group(FORUM, "Club", admins=[alice], is_forum=True,
                             bot_status="administrator")
    chat = await bot.get_chat(FORUM)
    assert chat.is_forum is True
    member = await bot.get_chat_member(FORUM, bot.id)
    assert member.status == "administrator"
    assert member.can_manage_topics is True  # type: ignore[attr-defined]

    topic = await bot.create_forum_topic(FORUM, "Table 1")
    assert isinstance(topic, ForumTopic) and topic.name == "Table 1"
    assert topic.icon_color == 7322096
    created = server.message(forum, topic.message_thread_id)
    assert created.service["forum_topic_created"] == {"name": "Table 1", "icon_color": 7322096}
    assert created.topic_id == topic.message_thread_id and created.is_topic_message

    sent = await bot.send_message(FORUM, "deal", message_thread_id=topic.message_thread_id,
                                  reply_markup=KEYBOARD)
    assert sent.is_topic_message is True
    assert sent.message_thread_id == topic.message_thread_id
    # messages in a topic are shown as replies to the topic's first message (Telegram does it)
    assert sent.reply_to_message is not None
    assert sent.reply_to_message.forum_topic_created is not None
    assert sent.chat.is_forum is True
    stored = server.message(forum, sent.message_id)
    assert stored.topic_id == topic.message_thread_id and stored.reply_to is None
    # a press on it tells the topic too
    query = server.press_nowait(alice, forum, sent.message_id, "play")
    pressed = server.updates[-1]["callback_query"]["message"]
    assert pressed["message_thread_id"] == topic.message_thread_id
    assert pressed["is_topic_message"] is True
    assert await bot.answer_callback_query(query.id)

    general = await bot.send_message(FORUM, "lobby")  # no message_thread_id: General
    assert general.message_thread_id is None and general.is_topic_message is None
    assert general.reply_to_message is None
    assert server.message(forum, general.message_id).topic_id == GENERAL_TOPIC_ID

    # General can't be named, an unknown topic isn't there
    for thread in (GENERAL_TOPIC_ID, 999):
        with pytest.raises(BadRequest, match=r"(?i)^message thread not found$"):
            await bot.send_message(FORUM, "x", message_thread_id=thread)
    assert [r.description for r in server.errors] == [THREAD_NOT_FOUND] * 2

    # edits and deletes need no thread id; the edited message stays in its topic
    edited = await bot.edit_message_text("dealt", chat_id=FORUM, message_id=sent.message_id)
    assert isinstance(edited, Message) and edited.message_thread_id == topic.message_thread_id
    assert stored.text == "dealt" and stored.topic_id == topic.message_thread_id
    assert await bot.edit_message_reply_markup(FORUM, sent.message_id, reply_markup=KEYBOARD)
    assert await bot.delete_message(FORUM, sent.message_id)
    assert stored.deleted

    # a reply without message_thread_id lands in the topic of the message it answers
    first = await bot.send_message(FORUM, "one", message_thread_id=topic.message_thread_id)
    reply = await bot.send_message(FORUM, "two", reply_to_message_id=first.message_id)
    assert reply.message_thread_id == topic.message_thread_id and reply.is_topic_message
    assert reply.reply_to_message is not None
    assert reply.reply_to_message.message_id == first.message_id

    # a reply from another topic is an external reply
    lobby = await bot.send_message(FORUM, "lobby again")
    across = await bot.send_message(FORUM, "from the table", reply_to_message_id=lobby.message_id,
                                    message_thread_id=topic.message_thread_id)
    assert across.message_thread_id == topic.message_thread_id
    assert across.external_reply is not None
    assert across.external_reply.message_id == lobby.message_id
    assert across.external_reply.origin.type == "user"
    assert across.reply_to_message is not None
    assert across.reply_to_message.forum_topic_created is not None
    assert server.message(forum, across.message_id).topic_id == topic.message_thread_id

    # photos and documents go to topics the same way
    document = await bot.send_document(FORUM, b"{}", filename="game.json",
                                       message_thread_id=topic.message_thread_id)
    assert document.message_thread_id == topic.message_thread_id
    assert server.documents(forum)[0].topic_id == topic.message_thread_id
    assert_follow_spec(server)
    server.assert_clean()


async def test_closing_reopening_editing_and_deleting_topics_by_the_bot(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    forum = server.add_group(FORUM, "Club", admins=[alice], is_forum=True,
                             bot_status="administrator")
    topic = await bot.create_forum_topic(FORUM, "Table")
    thread = topic.message_thread_id
    assert await bot.close_forum_topic(FORUM, thread)
    assert server.topic(forum, thread).closed
    closed_note = server.message(forum, forum.next_message_id - 1)
    assert closed_note.service == {"forum_topic_closed": {}}
    assert closed_note.thread_id == thread and closed_note.from_bot
    with pytest.raises(BadRequest, match=r"(?i)topic_not_modified"):
        await bot.close_forum_topic(FORUM, thread)
    # the bot manages topics: it may still write in the closed topic
    await bot.send_message(FORUM, "still here", message_thread_id=thread)
    assert await bot.reopen_forum_topic(FORUM, thread)
    assert await bot.edit_forum_topic(FORUM, thread, name="Table 2")
    assert server.topic(forum, thread).name == "Table 2"
    with pytest.raises(BadRequest, match=r"(?i)topic_not_modified"):
        await bot.edit_forum_topic(FORUM, thread, name="Table 2")

    assert await bot.close_general_forum_topic(FORUM)
    assert forum.general.closed
    assert await bot.reopen_general_forum_topic(FORUM)

    assert await bot.delete_forum_topic(FORUM, thread)
    assert all(m.deleted for m in forum.messages.values() if m.topic_id == thread)
    assert server.topics(forum) == [forum.general]
    with pytest.raises(BadRequest, match=r"(?i)^message thread not found$"):
        await bot.send_message(FORUM, "gone", message_thread_id=thread)
    with pytest.raises(BadRequest, match=r"(?i)topic_id_invalid"):
        await bot.close_forum_topic(FORUM, thread)

    # without the right: nothing to manage
    forum.bot_can_manage_topics = False
    assert (await bot.get_chat_member(FORUM, bot.id)).can_manage_topics is False  # type: ignore[attr-defined]
    with pytest.raises(BadRequest, match=r"(?i)not enough rights to create a topic"):
        await bot.create_forum_topic(FORUM, "New")
    group = server.add_group(-1005002, "Plain", admins=[alice], bot_status="administrator")
    with pytest.raises(BadRequest, match=r"(?i)the chat is not a forum"):
        await bot.create_forum_topic(group.id, "New")
    assert [r.description for r in server.errors if r.method == "closeForumTopic"] == [
        TOPIC_NOT_MODIFIED, "Bad Request: TOPIC_ID_INVALID"]
    assert_follow_spec(server)


async def test_people_in_topics_and_what_the_bot_gets(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob")
    forum = server.add_group(FORUM, "Club", members=[bob], admins=[alice], is_forum=True)
    app = echo_app(server)
    async with polling(app):
        table = server.create_topic(forum, "Table A", by=alice)
        other = server.create_topic(forum, "Table B", by=alice, icon_color=16766590)
        await server.send_text(bob, forum, "in A", topic=table)
        in_a = await server.wait_bot_message(forum, topic=table)
        assert in_a.text == "echo: in A" and in_a.thread_id == table.id
        reply = await server.send_text(bob, forum, "answer", reply_to=in_a)  # stays in A
        assert reply.topic is table
        second = await server.wait_bot_message(forum, topic=table, after=in_a)
        await server.send_text(bob, forum, "in B", topic=other.id)
        in_b = await server.wait_bot_message(forum, topic=other)
        await server.send_text(bob, forum, "in General")
        lobby = await server.wait_bot_message(forum, topic=GENERAL_TOPIC_ID)
        # a reply in General has a thread id (its reply chain) but is no topic message:
        # PTB's reply_text sends no message_thread_id for it, so the answer lands in General
        chain = await server.send_text(alice, forum, "reply in General", reply_to=lobby)
        assert chain.thread_id == lobby.message_id and not chain.is_topic_message
        chained = await server.wait_bot_message(forum, after=lobby)
        # a command answered with chat.send_message (no thread id) lands in General
        await server.send_text(bob, forum, "/score", topic=table)
        to_chat = await server.wait_bot_message(
            forum, predicate=lambda m: "/score" in (m.text or ""))
        await server.wait_updates_delivered()
    assert second.text == "echo: answer"
    assert in_b.topic is other and lobby.topic is forum.general
    assert chained.topic_id == GENERAL_TOPIC_ID and chained.thread_id is None
    assert to_chat.topic_id == GENERAL_TOPIC_ID
    assert server.topics_of(server.bot_messages(forum, topic=table)) == {table.id}

    updates = messages(server)
    created = updates[0]
    assert created["forum_topic_created"] == {"name": "Table A", "icon_color": 7322096}
    assert created["message_thread_id"] == table.id and created["is_topic_message"] is True
    assert created["chat"]["is_forum"] is True
    assert "reply_to_message" not in created
    in_topic = next(u for u in updates if u.get("text") == "in A")
    assert in_topic["message_thread_id"] == table.id and in_topic["is_topic_message"] is True
    assert in_topic["reply_to_message"]["forum_topic_created"]["name"] == "Table A"
    answer = next(u for u in updates if u.get("text") == "answer")
    assert answer["reply_to_message"]["message_id"] == in_a.message_id
    assert answer["message_thread_id"] == table.id
    general = next(u for u in updates if u.get("text") == "in General")
    assert "message_thread_id" not in general and "is_topic_message" not in general
    in_chain = next(u for u in updates if u.get("text") == "reply in General")
    assert in_chain["message_thread_id"] == lobby.message_id
    assert "is_topic_message" not in in_chain
    assert_follow_spec(server)
    server.assert_clean()


async def test_closed_and_deleted_topics(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob")
    forum = server.add_group(FORUM, "Club", members=[bob], admins=[alice], is_forum=True)
    table = server.create_topic(forum, "Table", by=alice)
    await bot.send_message(FORUM, "open", message_thread_id=table.id)

    server.close_topic(forum, table, by=alice)
    note = messages(server)[-1]
    assert note["forum_topic_closed"] == {} and note["message_thread_id"] == table.id
    assert note["is_topic_message"] is True and note["from"]["id"] == alice.id
    with pytest.raises(BadRequest, match=r"(?i)^topic_closed$"):
        await bot.send_message(FORUM, "closed", message_thread_id=table.id)
    with pytest.raises(ValueError, match="closed"):
        await server.send_text(bob, forum, "let me in", topic=table)
    await server.send_text(alice, forum, "admins may", topic=table)
    # edits of messages in a closed topic still work
    first = server.bot_messages(forum, topic=table)[0]
    await bot.edit_message_text("open?", chat_id=FORUM, message_id=first.message_id)
    server.reopen_topic(forum, table, by=alice)
    assert messages(server)[-1]["forum_topic_reopened"] == {}
    await bot.send_message(FORUM, "reopened", message_thread_id=table.id)

    server.close_general(forum)
    assert messages(server)[-1]["forum_topic_closed"] == {}
    assert "message_thread_id" not in messages(server)[-1]
    with pytest.raises(BadRequest, match=r"(?i)^topic_closed$"):
        await bot.send_message(FORUM, "to General")
    with pytest.raises(ValueError, match="closed"):
        await server.send_text(bob, forum, "General?")
    await bot.send_message(FORUM, "topics stay open", message_thread_id=table.id)
    server.reopen_general(forum)
    await bot.send_message(FORUM, "General again")

    server.delete_topic(forum, table)
    assert all(m.deleted for m in forum.messages.values() if m.topic is table)
    with pytest.raises(BadRequest, match=r"(?i)^message thread not found$"):
        await bot.send_message(FORUM, "gone", message_thread_id=table.id)
    server.deleted_topic_error = TOPIC_DELETED  # what Telegram's own servers answer at times
    with pytest.raises(BadRequest, match=r"(?i)^topic_deleted$"):
        await bot.send_message(FORUM, "gone", message_thread_id=table.id)
    with pytest.raises(ValueError, match="deleted"):
        await server.send_text(bob, forum, "hello?", topic=table)
    assert [r.description for r in server.errors] == [
        TOPIC_CLOSED, TOPIC_CLOSED, THREAD_NOT_FOUND, TOPIC_DELETED]
    assert_follow_spec(server)


async def test_a_topic_the_bot_created_stays_writable_for_it_when_closed(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    forum = server.add_group(FORUM, "Club", admins=[alice], is_forum=True,
                             bot_status="administrator", bot_can_manage_topics=True)
    own = await bot.create_forum_topic(FORUM, "Bot's table")
    foreign = server.create_topic(forum, "Alice's table", by=alice)
    forum.bot_can_manage_topics = False  # an admin took the right away
    server.close_topic(forum, own.message_thread_id)
    server.close_topic(forum, foreign)
    await bot.send_message(FORUM, "mine", message_thread_id=own.message_thread_id)
    with pytest.raises(BadRequest, match=r"(?i)^topic_closed$"):
        await bot.send_message(FORUM, "theirs", message_thread_id=foreign.id)
    assert await bot.reopen_forum_topic(FORUM, own.message_thread_id)  # its creator may
    with pytest.raises(BadRequest, match=r"(?i)not enough rights to close or open the topic"):
        await bot.reopen_forum_topic(FORUM, foreign.id)
    assert_follow_spec(server)


async def test_reply_chains_outside_forums(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob")
    supergroup = server.add_group(-1006001, "Super", members=[bob], admins=[alice])
    basic = server.add_group(-4006001, "Basic", members=[bob], admins=[alice])
    root = await server.send_text(alice, supergroup, "root")
    first = await server.send_text(bob, supergroup, "first reply", reply_to=root)
    second = await server.send_text(alice, supergroup, "second reply", reply_to=first)
    updates = messages(server)
    assert "message_thread_id" not in updates[0]
    assert updates[1]["message_thread_id"] == root.message_id
    assert updates[2]["message_thread_id"] == root.message_id
    assert not any("is_topic_message" in u for u in updates)
    assert first.topic_id is None and second.thread_id == root.message_id
    assert "is_forum" not in updates[0]["chat"]

    # the Bot API ignores message_thread_id where there are no topics
    sent = await bot.send_message(supergroup.id, "ignored", message_thread_id=root.message_id)
    assert sent.message_thread_id is None and sent.reply_to_message is None
    answer = await bot.send_message(supergroup.id, "in the chain",
                                    reply_to_message_id=second.message_id)
    assert answer.message_thread_id == root.message_id and answer.is_topic_message is None
    basic_root = await server.send_text(alice, basic, "root")
    await server.send_text(bob, basic, "reply", reply_to=basic_root)
    assert "message_thread_id" not in messages(server)[-1]  # basic groups: none
    in_basic = await bot.send_message(basic.id, "ignored too", message_thread_id=7)
    assert in_basic.message_thread_id is None
    # a private chat has no topics here
    await server.send_text(alice, alice, "/start")
    with pytest.raises(BadRequest, match=r"(?i)^message thread not found$"):
        await bot.send_message(alice.id, "x", message_thread_id=5)
    with pytest.raises(ValueError, match="not a forum"):
        await server.send_text(bob, supergroup, "x", topic=3)
    assert_follow_spec(server)


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter
async def test_the_group_rate_limit_is_shared_by_all_topics(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    forum = server.add_group(FORUM, "Club", admins=[alice], is_forum=True)
    one = server.create_topic(forum, "One")
    two = server.create_topic(forum, "Two")
    server.group_rate_limit = 3
    await bot.send_message(FORUM, "1", message_thread_id=one.id)
    await bot.send_message(FORUM, "2", message_thread_id=two.id)
    await bot.send_message(FORUM, "3")
    with pytest.raises(RetryAfter):
        await bot.send_message(FORUM, "4", message_thread_id=one.id)
    assert server.max_in_window(forum) == 3
    assert [len(server.bot_messages(forum, topic=t)) for t in (one, two, forum.general)] == [
        1, 1, 1]


async def test_forum_set_up_is_checked(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob")
    with pytest.raises(ValueError, match="supergroups"):
        server.add_group(-4007001, "Basic", admins=[alice], is_forum=True)
    forum = server.add_group(FORUM, "Club", members=[bob], admins=[alice], is_forum=True)
    with pytest.raises(ValueError, match="not an admin"):
        server.create_topic(forum, "Mine", by=bob)
    table = server.create_topic(forum, "Table")
    assert table.creator_id == alice.id and server.topic(forum, table.id) is table
    assert table.to_api() == {"message_thread_id": table.id, "name": "Table",
                              "icon_color": 7322096}
    with pytest.raises(LookupError):
        server.topic(forum, 12345)
    other = server.create_topic(forum, "Other")
    first = await server.send_text(bob, forum, "hi", topic=table)
    with pytest.raises(ValueError, match="stays in the topic"):
        await server.send_text(bob, forum, "cross", topic=other, reply_to=first)


async def test_anonymous_admins_and_the_first_message_of_a_topic(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    forum = server.add_group(FORUM, "Club", admins=[alice], is_forum=True,
                             bot_status="administrator")
    topic = await bot.create_forum_topic(FORUM, "Table")
    anonymous = await server.send_as_group(alice, forum, "from the club",
                                           topic=topic.message_thread_id)
    assert anonymous.topic_id == topic.message_thread_id
    assert messages(server)[-1]["sender_chat"]["is_forum"] is True
    # the topic's first message goes only with the topic (deleteForumTopic)
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted"):
        await bot.delete_message(FORUM, topic.message_thread_id)
    assert_follow_spec(server)
