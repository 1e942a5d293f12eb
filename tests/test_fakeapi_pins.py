"""The fake Bot API pins, unpins and deletes as Telegram does: the rights asked for (an
administrator with can_pin_messages), silent pins recorded, the 48 hours of deleteMessage."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot
from telegram.error import BadRequest

from tests.fakeapi import FakeTelegramServer
from tests.fakeapi.server import DELETE_LIMIT

RIGHTS = r"(?i)not enough rights to manage pinned messages in the chat"


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    async with Bot(server.token, base_url=server.base_url) as tg_bot:
        yield tg_bot


async def test_an_admin_bot_pins_silently_and_unpins(server: FakeTelegramServer,
                                                     bot: Bot) -> None:
    alice = server.add_user(1001, "Alice")
    group = server.add_group(-1002101, "Club", admins=[alice], bot_status="administrator")
    me = await bot.get_chat_member(group.id, bot.id)
    assert me.status == "administrator" and getattr(me, "can_pin_messages", None) is True
    first = await bot.send_message(group.id, "table 1")
    second = await bot.send_message(group.id, "table 2")
    assert await bot.pin_chat_message(group.id, first.message_id, disable_notification=True)
    assert await bot.pin_chat_message(group.id, second.message_id)
    one = server.message(group, first.message_id)
    two = server.message(group, second.message_id)
    assert one.pinned and one.pin_silent
    assert two.pinned and not two.pin_silent
    assert await bot.unpin_chat_message(group.id, message_id=first.message_id)
    assert not one.pinned and two.pinned
    assert await bot.unpin_chat_message(group.id)  # no id: the most recent pin
    assert not two.pinned
    with pytest.raises(BadRequest, match=r"(?i)message to pin not found"):
        await bot.pin_chat_message(group.id, 999)
    assert server.violations == [] and server.internal_errors == []


@pytest.mark.parametrize("status, right", [("member", True), ("administrator", False)])
async def test_pinning_without_the_right_is_refused(server: FakeTelegramServer, bot: Bot,
                                                    status: str, right: bool) -> None:
    alice = server.add_user(1001, "Alice")
    group = server.add_group(-1002102, "Club", admins=[alice], bot_status=status,
                             bot_can_pin_messages=right)
    if status == "administrator":
        me = await bot.get_chat_member(group.id, bot.id)
        assert getattr(me, "can_pin_messages", None) is False
    msg = await bot.send_message(group.id, "table")
    with pytest.raises(BadRequest, match=RIGHTS):
        await bot.pin_chat_message(group.id, msg.message_id, disable_notification=True)
    with pytest.raises(BadRequest, match=RIGHTS):
        await bot.unpin_chat_message(group.id, message_id=msg.message_id)
    assert not server.message(group, msg.message_id).pinned
    assert [r.method for r in server.errors][-2:] == ["pinChatMessage", "unpinChatMessage"]


async def test_delete_follows_the_48_hours(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.add_user(1001, "Alice")
    await server.send_text(alice, alice, "/start")
    fresh = await bot.send_message(alice.id, "your move")
    old = await bot.send_message(alice.id, "an old ping")
    server.message(alice, old.message_id).created_at -= DELETE_LIMIT + 1
    assert await bot.delete_message(alice.id, fresh.message_id)
    assert server.message(alice, fresh.message_id).deleted
    with pytest.raises(BadRequest, match=r"(?i)message can't be deleted for everyone"):
        await bot.delete_message(alice.id, old.message_id)
    with pytest.raises(BadRequest, match=r"(?i)message to delete not found"):
        await bot.delete_message(alice.id, fresh.message_id)  # deleted already
    # an admin of a group deletes its old messages there
    group = server.add_group(-1002103, "Club", admins=[alice], bot_status="administrator")
    msg = await bot.send_message(group.id, "an old table")
    server.message(group, msg.message_id).created_at -= DELETE_LIMIT + 1
    assert await bot.delete_message(group.id, msg.message_id)
    assert server.violations == [] and server.internal_errors == []
