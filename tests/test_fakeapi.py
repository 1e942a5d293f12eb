"""Tests of the fake Bot API server and the spec checker, driving a real PTB Application."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    Update,
)
from telegram.error import BadRequest, ChatMigrated, EndPointNotFound, Forbidden, RetryAfter
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from tests.fakeapi import (
    NOT_MODIFIED,
    FakeTelegramServer,
    check_request,
    connect,
    default_spec,
    polling,
)
from tests.fakeapi.formatting import EntityParseError, parse_formatted, utf16_len

AnyApplication = Application[Any, Any, Any, Any, Any, Any]

KEYBOARD = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton("Play", callback_data="play")],
        [InlineKeyboardButton("Rules", callback_data="rules")],
    ]
)


# ------------------------------------------------------------------------------------------
# a small bot


async def on_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(
        "<b>Hello</b> &amp; welcome!", parse_mode="HTML", reply_markup=KEYBOARD
    )


async def on_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    if query.data == "silent":
        return  # forgets to answer
    await query.answer(f"You chose {query.data}")
    await query.edit_message_text(f"Chosen: <i>{query.data}</i>", parse_mode="HTML")


def build_app(server: FakeTelegramServer) -> AnyApplication:
    app = connect(ApplicationBuilder(), server).build()
    app.add_handler(CommandHandler("start", on_start))
    app.add_handler(CallbackQueryHandler(on_press))
    return app


@pytest.fixture
async def server() -> AsyncIterator[FakeTelegramServer]:
    async with FakeTelegramServer() as fake:
        yield fake


@pytest.fixture
async def bot(server: FakeTelegramServer) -> AsyncIterator[Bot]:
    async with Bot(server.token, base_url=server.base_url) as tg_bot:
        yield tg_bot


def assert_updates_follow_spec(server: FakeTelegramServer) -> None:
    spec = default_spec()
    for update in server.updates:
        assert spec.check_object("Update", update) == [], update


# ------------------------------------------------------------------------------------------
# spec checker


def test_spec_methods_are_case_insensitive_and_unknown_ones_flagged() -> None:
    assert check_request("getMe", {}) == []
    assert check_request("GETME", {}) == []
    assert check_request("sendMessage", {"chat_id": "5", "text": "hi"}) == []
    assert check_request("sendmessage", {"chat_id": "@group", "text": "hi"}) == []
    assert check_request("sendMesage", {"chat_id": "5", "text": "hi"}) == [
        "unknown method 'sendMesage'"
    ]


def test_spec_required_unknown_and_types() -> None:
    assert check_request("sendMessage", {"text": "hi"}) == [
        "chat_id: required parameter of sendMessage is missing"
    ]
    assert check_request("sendMessage", {"chat_id": 1, "text": "x", "colour": "red"}) == [
        "colour: unknown parameter of sendMessage"
    ]
    assert check_request("deleteMessage", {"chat_id": "1", "message_id": "seven"}) == [
        "message_id: expected Integer, got String"
    ]
    assert check_request(
        "sendMessage", {"chat_id": 1, "text": "x", "disable_notification": "maybe"}
    )
    assert (
        check_request("sendMessage", {"chat_id": 1, "text": "x", "disable_notification": "true"})
        == []
    )
    # JSON bodies carry real types
    assert check_request("deleteMessage", {"chat_id": -100123, "message_id": 5}) == []
    assert check_request("deleteMessage", {"chat_id": 1.5, "message_id": 5}) != []
    assert check_request("editMessageText", {"text": "x"}) == [
        "chat_id: required by editMessageText when inline_message_id is not given",
        "message_id: required by editMessageText when inline_message_id is not given",
    ]
    assert check_request("getUpdates", {"limit": "101"}) == [
        "limit: must be between 1 and 100, got 101"
    ]


def test_spec_inline_keyboard() -> None:
    def markup(*buttons: dict[str, Any]) -> dict[str, object]:
        return {
            "chat_id": "1",
            "text": "x",
            "reply_markup": json.dumps({"inline_keyboard": [list(buttons)]}),
        }

    assert check_request("sendMessage", markup({"text": "a", "callback_data": "я" * 32})) == []
    assert check_request("sendMessage", markup({"text": "a", "callback_data": "я" * 33})) == [
        "reply_markup.inline_keyboard[0][0].callback_data: must be 1-64 bytes, got 66"
    ]
    assert check_request("sendMessage", markup({"text": "a", "callback_data": ""})) != []
    assert check_request("sendMessage", markup({"callback_data": "x"})) == [
        "reply_markup.inline_keyboard[0][0].text: required field of InlineKeyboardButton is missing"
    ]
    assert check_request("sendMessage", markup({"text": " ", "callback_data": "x"})) != []
    assert check_request("sendMessage", markup({"text": "a"})) != []  # no action
    assert (
        check_request("sendMessage", markup({"text": "a", "callback_data": "x", "url": "u"})) != []
    )
    assert (
        check_request("sendMessage", markup({"text": "a", "callback_data": "x", "colour": 1})) != []
    )
    nine = [{"text": str(i), "callback_data": str(i)} for i in range(9)]
    assert check_request("sendMessage", markup(*nine)) != []
    reply_keyboard = {"chat_id": 1, "text": "x", "reply_markup": {"keyboard": [[{"text": "a"}]]}}
    assert check_request("sendMessage", reply_keyboard) == []
    assert check_request("sendMessage", {"chat_id": 1, "text": "x", "reply_markup": "[1]"}) != []
    assert check_request("sendMessage", {"chat_id": 1, "text": "x", "reply_markup": "{oops"}) != []


def test_spec_text_lengths_after_entity_parsing() -> None:
    long_html = "<b>" + "я" * 4096 + "</b> &amp;"
    assert (
        check_request(
            "sendMessage", {"chat_id": 1, "text": "<b>" + "я" * 4096 + "</b>", "parse_mode": "HTML"}
        )
        == []
    )
    assert check_request(
        "sendMessage", {"chat_id": 1, "text": long_html, "parse_mode": "HTML"}
    ) == ["text: must be 1-4096 characters after entities parsing, got 4098"]
    assert (
        check_request("sendMessage", {"chat_id": 1, "text": "<b>x</i>", "parse_mode": "html"}) != []
    )
    assert (
        check_request("sendMessage", {"chat_id": 1, "text": "<b> </b>", "parse_mode": "HTML"}) != []
    )
    assert check_request("sendMessage", {"chat_id": 1, "text": "x", "parse_mode": "XML"}) != []
    assert (
        check_request("sendMessage", {"chat_id": 1, "text": "1.5", "parse_mode": "MarkdownV2"})
        != []
    )
    assert (
        check_request("sendMessage", {"chat_id": 1, "text": "1\\.5", "parse_mode": "MarkdownV2"})
        == []
    )
    assert (
        check_request("editMessageText", {"chat_id": 1, "message_id": 2, "text": "я" * 4097}) != []
    )
    assert check_request("answerCallbackQuery", {"callback_query_id": "1", "text": "я" * 200}) == []
    assert check_request("answerCallbackQuery", {"callback_query_id": "1", "text": "я" * 201}) == [
        "text: must be 0-200 characters, got 201"
    ]


def test_spec_bot_commands_and_scopes() -> None:
    ok = [{"command": "new_game", "description": "Новая игра"}]
    assert check_request("setMyCommands", {"commands": json.dumps(ok)}) == []
    scope = json.dumps({"type": "chat", "chat_id": -100})
    assert check_request("setMyCommands", {"commands": json.dumps(ok), "scope": scope}) == []
    bad = [{"command": "NewGame", "description": "x"}]
    assert check_request("setMyCommands", {"commands": json.dumps(bad)}) != []
    wrong_scope = json.dumps({"type": "everyone"})
    assert check_request("setMyCommands", {"commands": json.dumps(ok), "scope": wrong_scope}) != []


def test_formatting_html_and_markdown() -> None:
    parsed = parse_formatted("<b>Пики ♠</b> &lt;10&gt; <a href='https://x.org'>🂡 link</a>", "HTML")
    assert parsed.text == "Пики ♠ <10> 🂡 link"
    assert parsed.entities == [
        {"type": "bold", "offset": 0, "length": 6},
        {"type": "text_link", "offset": 12, "length": utf16_len("🂡 link"), "url": "https://x.org"},
    ]
    pre = parse_formatted('<pre><code class="language-python">x = 1</code></pre>', "HTML")
    assert pre.entities == [{"type": "pre", "offset": 0, "length": 5, "language": "python"}]
    with pytest.raises(EntityParseError, match="Unsupported start tag"):
        parse_formatted("a <br> b", "HTML")
    with pytest.raises(EntityParseError, match="Unmatched end tag"):
        parse_formatted("<b><i>x</b></i>", "HTML")
    md = parse_formatted(
        "*bold* _it_ __under__ ~s~ ||sp|| `c` [l](http://a\\.b) 1\\.5", "MarkdownV2"
    )
    assert md.text == "bold it under s sp c l 1.5"
    assert [e["type"] for e in md.entities] == [
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "text_link",
    ]
    assert parse_formatted("  \n x \n", None).text == "x"


# ------------------------------------------------------------------------------------------
# the server with a real PTB Application


async def test_start_press_and_edit_through_polling(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice", username="alice")
    app = build_app(server)
    async with polling(app):
        sent = await server.send_text(alice, alice, "/start")
        reply = await server.wait_bot_message(alice, after=sent)
        assert reply.text == "Hello & welcome!"
        assert reply.entities == [{"type": "bold", "offset": 0, "length": 5}]
        assert reply.button_texts == [["Play"], ["Rules"]]
        assert reply.reply_to is None
        assert server.last_bot_message(alice) is reply

        answer = await server.click(alice, reply, "Play")
        assert answer is not None and answer.text == "You chose play"
        await server.wait_for(lambda: reply.edit_count == 1, what="the edit")
        assert server.text_of(alice, reply.message_id) == "Chosen: play"
        assert reply.buttons == []  # editMessageText without reply_markup drops the keyboard
        assert reply.history[0].text == "Hello & welcome!"

    methods = [r.method for r in server.requests]
    assert methods[:2] == ["getMe", "deleteWebhook"]
    assert {"getUpdates", "sendMessage", "answerCallbackQuery", "editMessageText"} <= set(methods)
    spec = default_spec()
    for rec in server.calls("sendMessage") + server.calls("editMessageText"):
        assert spec.check_object("Message", rec.result) == []
        Message.de_json(rec.result, app.bot)
    assert_updates_follow_spec(server)
    server.assert_clean()
    assert server.max_in_window(alice) == 2


async def test_group_command_with_bot_username(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    bob = server.add_user(1002, "Bob", language_code="en")
    group = server.add_group(-4001, "Table", members=[bob], admins=[alice])
    app = build_app(server)
    async with polling(app):
        await server.send_text(bob, group, "/start@thousand_test_bot")
        reply = await server.wait_bot_message(group)
        assert reply.reply_to is not None and reply.reply_to.sender_id == bob.id
        await server.send_text(bob, group, "/start@other_bot")
        await server.send_text(bob, group, "/start")
        second = await server.wait_bot_message(group, after=reply)
        assert second.reply_to is not None and second.reply_to.text == "/start"
        await server.click(bob, second, contains="Rul")
        await server.wait_for(lambda: second.text == "Chosen: rules")
    first_update = server.updates[0]["message"]
    assert first_update["entities"] == [{"type": "bot_command", "offset": 0, "length": 24}]
    assert first_update["chat"] == {"id": -4001, "title": "Table", "type": "group"}
    assert first_update["from"]["language_code"] == "en"
    assert len(group.bot_messages()) == 2  # "/start@other_bot" was ignored by PTB
    assert_updates_follow_spec(server)
    server.assert_clean()


async def test_unanswered_callback_is_recorded(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    app = build_app(server)
    async with polling(app):
        await server.send_text(alice, alice, "/start")
        reply = await server.wait_bot_message(alice)
        # A button the bot never made can't be pressed ...
        with pytest.raises(LookupError):
            await server.press(alice, alice, reply.message_id, "silent")
        # ... unless the test says so.
        answer = await server.press(
            alice, alice, reply.message_id, "silent", strict=False, timeout=0.3
        )
        assert answer is None
    assert [q.data for q in server.unanswered_callbacks] == ["silent"]
    with pytest.raises(AssertionError, match="not answered"):
        server.assert_clean()


async def test_unknown_parameter_and_long_callback_data_are_violations(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    await server.send_text(alice, None, "hi")
    with pytest.raises(BadRequest, match=r"(?i)colour: unknown parameter"):
        await bot.send_message(alice.id, "x", api_kwargs={"colour": "red"})
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="я" * 33)]])
    with pytest.raises(BadRequest, match="1-64 bytes"):
        await bot.send_message(alice.id, "x", reply_markup=too_long)
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendMesage", api_kwargs={"chat_id": alice.id, "text": "x"})
    with pytest.raises(BadRequest, match="not implemented"):
        await bot.send_dice(alice.id)
    assert server.violations == [
        "sendMessage: colour: unknown parameter of sendMessage",
        "sendMessage: reply_markup.inline_keyboard[0][0].callback_data: must be 1-64 bytes, got 66",
        "sendMesage: unknown method 'sendMesage'",
        "sendDice: not implemented by the fake server",
    ]
    assert server.bot_messages(alice) == []


async def test_forbidden_for_users_who_never_started_or_blocked(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(alice.id, "hello")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(999, "hello")
    await server.send_text(alice, alice, "/start")
    message = await bot.send_message(alice.id, "hello")
    alice.block()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(alice.id, "again")
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.edit_message_text("edited", chat_id=alice.id, message_id=message.message_id)
    member_update = server.updates[-1]["my_chat_member"]
    assert member_update["new_chat_member"]["status"] == "kicked"
    await alice.send("/start")  # writing to the bot again unblocks it
    await bot.send_message(alice.id, "welcome back")
    assert server.violations == []
    assert [r.status for r in server.calls("sendMessage")] == [403, 400, 200, 403, 200]
    assert_updates_follow_spec(server)


async def test_message_not_modified_and_not_found(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.add_user(1001, "Alice")
    await server.send_text(alice, alice, "/start")
    sent = await bot.send_message(
        alice.id, "<b>Score</b>: 0", parse_mode="HTML", reply_markup=KEYBOARD
    )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Score</b>: 0",
            chat_id=alice.id,
            message_id=sent.message_id,
            parse_mode="HTML",
            reply_markup=KEYBOARD,
        )
    assert server.not_modified[0].description == NOT_MODIFIED
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(alice.id, sent.message_id, reply_markup=KEYBOARD)
    edited = await bot.edit_message_reply_markup(alice.id, sent.message_id, reply_markup=None)
    assert isinstance(edited, Message) and edited.reply_markup is None
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("x", chat_id=alice.id, message_id=999)
    assert await bot.delete_message(alice.id, sent.message_id)
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(alice.id, sent.message_id)
    assert len(server.not_modified) == 2
    assert server.violations == []
    with pytest.raises(AssertionError, match="not modified"):
        server.assert_clean()
    server.assert_clean(allow_not_modified=True)


async def test_group_migration(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    server.add_group(-4001, "Table", admins=[alice])
    migrations: list[tuple[int, int]] = []

    async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        assert message is not None
        if message.migrate_to_chat_id:
            migrations.append((message.chat.id, message.migrate_to_chat_id))

    app = build_app(server)
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    async with polling(app):
        await app.bot.send_message(-4001, "before")
        new = server.migrate_group(-4001, -1004001)
        await server.wait_for(lambda: migrations, what="the migration message")
        with pytest.raises(ChatMigrated) as caught:
            await app.bot.send_message(-4001, "after")
        assert caught.value.new_chat_id == -1004001
        await app.bot.send_message(-1004001, "after")
    assert migrations == [(-4001, -1004001)]
    error = server.calls("sendMessage", chat=-4001)[-1]
    assert error.status == 400 and error.error_parameters == {"migrate_to_chat_id": -1004001}
    assert error.description == "Bad Request: group chat was upgraded to a supergroup chat"
    assert new.type == "supergroup" and [m.text for m in new.bot_messages()] == ["after"]
    assert_updates_follow_spec(server)
    server.assert_clean()


async def test_chat_queries_and_commands(server: FakeTelegramServer, bot: Bot) -> None:
    alice = server.add_user(1001, "Alice", username="alice")
    bob = server.add_user(1002, "Bob")
    carol = server.add_user(1003, "Carol")
    group = server.add_group(
        -1002002, "Club", members=[bob], admins=[alice], bot_status="administrator"
    )
    assert (await bot.get_chat(group.id)).title == "Club"
    assert (await bot.get_chat_member(group.id, alice.id)).status == "creator"
    assert (await bot.get_chat_member(group.id, bob.id)).status == "member"
    assert (await bot.get_chat_member(group.id, carol.id)).status == "left"
    assert (await bot.get_chat_member(group.id, bot.id)).status == "administrator"
    admins = await bot.get_chat_administrators(group.id)
    assert [a.user.id for a in admins] == [alice.id, bot.id]
    private = await bot.get_chat(alice.id)
    assert private.type == "private" and private.username == "alice"
    pinned = await bot.send_message(group.id, "pin me")
    assert await bot.pin_chat_message(group.id, pinned.message_id)
    assert await bot.unpin_chat_message(group.id, pinned.message_id)

    await bot.set_my_commands([BotCommand("new_game", "Новая игра")])
    await bot.set_my_commands([BotCommand("stop", "Stop")], scope=BotCommandScopeChat(group.id))
    assert [c.command for c in await bot.get_my_commands()] == ["new_game"]
    assert server.commands() == [{"command": "new_game", "description": "Новая игра"}]
    assert server.commands({"type": "chat", "chat_id": group.id}) == [
        {"command": "stop", "description": "Stop"}
    ]
    assert await bot.delete_my_commands()
    assert await bot.get_my_commands() == ()
    server.kick_bot(group)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(group.id, "hi")
    assert server.violations == []
    assert server.internal_errors == []


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter
async def test_rate_limit_is_measured_and_optionally_enforced(
    server: FakeTelegramServer, bot: Bot
) -> None:
    alice = server.add_user(1001, "Alice")
    group = server.add_group(-4001, "Table", admins=[alice])
    server.group_rate_limit = 3
    first = await bot.send_message(group.id, "1")
    await bot.send_message(group.id, "2")
    await bot.edit_message_text("1!", chat_id=group.id, message_id=first.message_id)
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "3")
    assert server.max_in_window(group) == 3
    assert server.max_in_window(group, window=60.0, methods=["sendMessage"]) == 2
    [limited] = server.rate_limited
    assert limited.error_parameters is not None
    assert 55 <= limited.error_parameters["retry_after"] <= 60
    assert (
        limited.description
        == f"Too Many Requests: retry after {limited.error_parameters['retry_after']}"
    )
    server.group_rate_limit = None
    await bot.send_message(group.id, "4")
    assert server.max_in_window(group) == 4


async def test_long_polling_offset_and_conflict(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    url = f"{server.base_url}{server.token}/getUpdates"
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession() as http:

        async def get_updates(**params: Any) -> tuple[int, dict[str, Any]]:
            async with http.post(url, json=params) as response:
                return response.status, await response.json()

        status, body = await get_updates(timeout=0)
        assert (status, body) == (200, {"ok": True, "result": []})

        started = loop.time()
        waiting = asyncio.create_task(get_updates(timeout=5))
        await server.wait_for(lambda: server.calls("getUpdates")[1:], what="the long poll")
        await server.send_text(alice, alice, "/start")
        status, body = await waiting
        assert loop.time() - started < 2
        [update] = body["result"]
        assert update["message"]["text"] == "/start"

        # Not confirmed yet: delivered again; confirmed with offset: gone.
        assert len((await get_updates())[1]["result"]) == 1
        assert (await get_updates(offset=update["update_id"] + 1))[1]["result"] == []

        # A newer getUpdates ends the older one with 409 Conflict.
        older = asyncio.create_task(get_updates(timeout=5))
        await server.wait_for(lambda: len(server.calls("getUpdates")) == 5)
        status, body = await get_updates(timeout=0)
        assert status == 200
        status, body = await older
        assert status == 409 and body["description"].startswith("Conflict: terminated by other")

        # Wrong token: 401 like Telegram.
        async with http.post(f"{server.base_url}123:wrong/getMe") as response:
            assert response.status == 401
    assert server.violations == []


async def test_privacy_mode_filters_group_chatter(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    group = server.add_group(-4001, "Table", admins=[alice])
    server.privacy_mode = True
    await server.send_text(alice, group, "just talking")
    await server.send_text(alice, group, "/start")
    await server.send_text(alice, group, "hey @thousand_test_bot")
    assert [u["message"]["text"] for u in server.updates] == ["/start", "hey @thousand_test_bot"]


# ------------------------------------------------------------------------------------------
# files: sendPhoto, sendDocument, getFile, downloads, documents from users


def _png(width: int, height: int) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


async def test_send_photo_and_document_are_stored_and_downloadable(
    server: FakeTelegramServer,
) -> None:
    alice = server.add_user(1001, "Alice")
    group = server.add_group(-4002, "Table", admins=[alice])
    server.chat(alice).user.started = True  # type: ignore[union-attr]
    picture = _png(40, 30)
    async with Bot(server.token, base_url=server.base_url,
                   base_file_url=server.base_file_url) as bot:
        sent = await bot.send_photo(group.id, InputFile(picture, filename="p.png"),
                                    caption="<b>Sheet</b>", parse_mode="HTML")
        assert sent.photo[-1].width == 40 and sent.photo[-1].height == 30
        assert sent.caption == "Sheet" and sent.caption_entities[0].type == "bold"
        doc = await bot.send_document(alice.id, InputFile(b'{"a": 1}', filename="game.json"),
                                      caption="record")
        assert doc.document is not None and doc.document.file_name == "game.json"
        # the same file again by its file_id: no upload
        again = await bot.send_photo(group.id, sent.photo[-1].file_id)
        assert again.photo[-1].file_id == sent.photo[-1].file_id
        file = await bot.get_file(doc.document.file_id)
        assert file.file_size == 8 and file.file_path is not None
        assert bytes(await file.download_as_bytearray()) == b'{"a": 1}'
        with pytest.raises(BadRequest, match=r"(?i)invalid file_id"):
            await bot.get_file("nope")
        with pytest.raises(BadRequest, match=r"(?i)image_process_failed"):
            await bot.send_photo(group.id, InputFile(b"not a png", filename="x.png"))
    [photo, _] = server.photos(group)
    assert photo.photo is not None and photo.photo.data == picture and photo.caption == "Sheet"
    assert [m.document.data for m in server.documents(alice)
            if m.document is not None] == [b'{"a": 1}']
    assert server.bot_messages(group) == []  # photos are not text messages
    assert server.max_in_window(group) == 2  # photos count against the group's budget
    params = server.calls("sendPhoto")[0].params
    assert params["photo"].filename == "p.png" and params["photo"].size == len(picture)
    assert len(server.downloads) == 1 and file.file_path.endswith("/" + server.downloads[0])
    server.violations.clear()
    server.errors.clear()
    assert not server.internal_errors


async def test_a_user_sends_a_document_and_the_bot_downloads_it(
    server: FakeTelegramServer,
) -> None:
    alice = server.add_user(1001, "Alice")
    got: list[bytes] = []

    async def on_doc(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        msg = update.effective_message
        assert msg is not None and msg.document is not None
        file = await context.bot.get_file(msg.document.file_id)
        got.append(bytes(await file.download_as_bytearray()))
        await msg.reply_text(f"{msg.document.file_name}: {msg.document.file_size} bytes")

    app = connect(ApplicationBuilder(), server).build()
    app.add_handler(MessageHandler(filters.Document.ALL, on_doc))
    async with polling(app):
        sent = await server.send_document(alice, alice, b"[1, 2, 3]", "game.json",
                                          caption="mine")
        reply = await server.wait_bot_message(alice, after=sent)
    assert reply.text == "game.json: 9 bytes" and got == [b"[1, 2, 3]"]
    assert_updates_follow_spec(server)
    update = server.updates[-1]["message"]
    assert update["document"]["mime_type"] == "application/json"
    assert update["caption"] == "mine"
    server.assert_clean()


async def test_files_over_the_limits_are_refused(server: FakeTelegramServer) -> None:
    alice = server.add_user(1001, "Alice")
    big = server.store_file(b"x" * (20 * 1024 * 1024 + 1), "documents", file_name="big.bin")
    async with aiohttp.ClientSession() as http:
        url = f"http://{server.host}:{server.port}/bot{server.token}/getFile"
        async with http.post(url, json={"file_id": big.file_id}) as resp:
            body = await resp.json()
        assert resp.status == 400 and body["description"] == "Bad Request: file is too big"
        # the download path needs the token and an existing file
        async with http.get(f"{server.base_file_url}wrong/{big.file_path}") as resp:
            assert resp.status == 404
        async with http.get(f"{server.base_file_url}{server.token}/missing") as resp:
            assert resp.status == 404
    assert alice.id == 1001
