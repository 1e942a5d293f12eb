"""PTB handlers: thin — read the update, hand it to the room that owns it, answer.

Commands go to ``service.commands`` (but /stats and /top: ``service.ratings``, /export and
files: ``service.media``), buttons to ``service.buttons``, the bot's own membership and
migrations to ``service.membership``, the touch before every update to ``service.restore``.

Forum topics: a message's topic is its ``message_thread_id`` only when ``is_topic_message``
is true (the id also comes with plain reply chains); General (id 1) is no topic.  A
command is answered in its topic and acts on that topic's table (``ChatRef.thread_id``);
``forum_topic_closed`` / ``forum_topic_reopened`` go to the membership room.

Every callback query is answered exactly once, whatever happens (a popup for a refused
press, a deep link for a person who has not started the bot, nothing for an accepted one).
"""

from __future__ import annotations

import logging
from typing import Any, cast

from telegram import (
    Chat,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.i18n import lang_of, t
from bot.tg.io.outbox import NO_PREVIEW, markup
from bot.tg.rooms.inline import ARTICLE_ID, CACHE_TIME
from bot.tg.rooms.service import (
    Answer,
    ChatKind,
    ChatRef,
    GameService,
    Reply,
    UserRef,
    Where,
    topic_of,
)
from bot.tg.view.render import popup
from storage import StorageError

log = logging.getLogger(__name__)

Ctx = ContextTypes.DEFAULT_TYPE
AnyApp = Application[Any, Any, Any, Any, Any, Any]


def service_of(context: Ctx) -> GameService:
    return cast(GameService, context.bot_data["service"])


def user_ref(user: User) -> UserRef:
    return UserRef(user.id, user.first_name or "", user.username, user.language_code)


def thread_of(msg: object) -> int | None:
    """The forum topic of a message: its ``message_thread_id`` when it is a topic message
    (not a reply chain's id, not General's)."""
    if not isinstance(msg, Message) or not msg.is_topic_message:
        return None
    return topic_of(msg.message_thread_id)


def chat_ref(chat: Chat, msg: object = None) -> ChatRef:
    kind: ChatKind
    if chat.type == ChatType.PRIVATE:
        kind = "private"
    elif chat.type == ChatType.SUPERGROUP:
        kind = "supergroup"
    else:
        kind = "group"
    return ChatRef(chat.id, kind, chat.title or "",
                   thread_of(msg) if kind == "supergroup" else None)


def _refs(update: Update) -> tuple[ChatRef, UserRef] | None:
    chat, user = update.effective_chat, update.effective_user
    if chat is None or user is None or chat.type == ChatType.CHANNEL:
        return None
    msg = update.effective_message
    sender = msg.sender_chat if msg is not None else None
    if sender is not None:
        if sender.id != chat.id or chat.type == ChatType.PRIVATE:
            return None  # a channel or another chat speaking here: not a person of this chat
        # an anonymous admin writes on behalf of the group (from: @GroupAnonymousBot)
        return chat_ref(chat, msg), UserRef(user.id, chat.title or "", None,
                                            user.language_code, anonymous_admin=True)
    if user.is_bot:
        return None
    return chat_ref(chat, msg), user_ref(user)


def _guarded(fn: Any) -> Any:
    """A command handler whose storage failure is told to the chat ("not saved, try
    again") instead of being lost in the log."""
    async def run(update: Update, context: Ctx) -> None:
        try:
            await fn(update, context)
        except StorageError as e:
            log.warning("%s: storage failed: %s", fn.__name__, e)
            chat, user = update.effective_chat, update.effective_user
            if chat is not None:
                lang = lang_of(user.language_code if user else None)
                service_of(context).reply(chat.id, t(lang, "guard.not_saved_cmd"),
                                          thread=thread_of(update.effective_message))

    run.__name__ = fn.__name__
    return run


async def on_start(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is None:
        return
    chat, user = refs
    service = service_of(context)
    if chat.kind != "private":
        service.commands.help(chat, await service.kit.people.chat_lang(chat, user))
        return
    await service.commands.start_cmd(user, context.args[0] if context.args else "")


async def on_newgame(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.newgame(refs[0], refs[1], list(context.args or []))


async def on_score(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.score(refs[0], refs[1])


async def on_rules(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.rules_cmd(refs[0], refs[1], list(context.args or []))


async def on_help(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        service = service_of(context)
        service.commands.help(refs[0], await service.kit.people.chat_lang(refs[0], refs[1]))


async def on_leave(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.leave(refs[0], refs[1])


async def on_stop(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.stop(refs[0], refs[1])


async def on_pace(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.pace(refs[0], refs[1], list(context.args or []))


async def on_export(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).media.export_cmd(refs[0], refs[1])


async def on_document(update: Update, context: Ctx) -> None:
    """A file in the private chat: the score sheet of the game record in it."""
    refs = _refs(update)
    msg = update.effective_message
    if refs is None or msg is None or msg.document is None:
        return
    doc = msg.document
    await service_of(context).media.record_file(refs[0], refs[1], doc.file_id, doc.file_size)


async def on_stats(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).ratings.show_stats(refs[0], refs[1])


async def on_top(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).ratings.show_top(refs[0], refs[1])


async def on_private_text(update: Update, context: Ctx) -> None:
    """Any other private message: the person can now be written to; a short hint."""
    refs = _refs(update)
    if refs is None:
        return
    service = service_of(context)
    await service.membership.private_message(refs[1])
    await service.commands.hint(refs[0], refs[1], command=False)


async def on_lang(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.lang_cmd(refs[0], refs[1], list(context.args or []))


async def on_table(update: Update, context: Ctx) -> None:
    refs = _refs(update)
    if refs is not None:
        await service_of(context).commands.table_cmd(refs[0], refs[1])


async def on_keepers(update: Update, context: Ctx) -> None:
    """``/auto``, ``/sit``, ``/kick``: a keeper's controls, answering a person's message
    (its sender is meant) or naming a seat (keepers.py)."""
    refs = _refs(update)
    msg = update.effective_message
    if refs is None or msg is None or not msg.text:
        return
    name = msg.text.split()[0].lstrip("/").partition("@")[0].lower()
    target = None
    answered = msg.reply_to_message
    if answered is not None and answered.from_user is not None and not answered.from_user.is_bot \
            and answered.sender_chat is None and (not msg.is_topic_message or
                                                  answered.forum_topic_created is None):
        target = user_ref(answered.from_user)
    await service_of(context).keepers.command(name, refs[0], refs[1], target,
                                              list(context.args or []))


async def on_unknown_command(update: Update, context: Ctx) -> None:
    """A command the bot does not know: a hint in private, and in a group only when it was
    addressed to this bot (``/foo@thisbot``) — other bots' commands are not ours."""
    refs = _refs(update)
    msg = update.effective_message
    if refs is None or msg is None or not msg.text:
        return
    target = msg.text.split()[0].partition("@")[2].lower()
    mine = (context.bot.username or "").lower()
    if target != mine and (target or refs[0].kind != "private"):
        return  # another bot's command, or a bare one in a group
    await service_of(context).commands.hint(refs[0], refs[1], command=True)


async def on_callback(update: Update, context: Ctx) -> None:
    query = update.callback_query
    if query is None:
        return
    user = user_ref(query.from_user)

    async def send(answer: Answer) -> None:
        try:
            await query.answer(text=popup(answer.text) if answer.text else None,
                               show_alert=answer.alert or None, url=answer.url)
        except TelegramError as e:
            log.info("callback query not answered: %s", e)

    reply = Reply(send)
    msg = query.message  # None for a button of an inline-mode message (inline_message_id)
    where = Where(msg.chat.id if msg is not None and query.inline_message_id is None else None,
                  msg.message_id if msg is not None else None, thread_of(msg),
                  inline_id=query.inline_message_id)
    try:
        answer = await service_of(context).buttons.press(query.data, user, where, reply)
    except StorageError as e:
        log.warning("a button press was not stored: %s", e)
        answer = Answer(t(lang_of(user.language_code), "guard.not_saved"), alert=True)
    except Exception:
        log.exception("a button press failed")
        answer = Answer(t(lang_of(user.language_code), "popup.error"))
    await reply.finish(answer)


async def on_inline_query(update: Update, context: Ctx) -> None:
    """``@bot`` typed in any chat (inline mode, /setinline with @BotFather): one article,
    the invitation to an inline table (rooms/inline.py), whatever the query's text.  It is
    personal (in the asker's language) and cached briefly; nothing is stored."""
    query = update.inline_query
    if query is None or query.from_user.is_bot:
        return
    article = service_of(context).inline.article(user_ref(query.from_user))
    content = article.message
    result = InlineQueryResultArticle(
        id=ARTICLE_ID, title=article.title, description=article.description,
        input_message_content=InputTextMessageContent(
            content.text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW),
        reply_markup=markup(content.keyboard))
    try:
        await query.answer([result], cache_time=CACHE_TIME, is_personal=True)
    except TelegramError as e:  # (too late: the person typed on)
        log.info("inline query not answered: %s", e)


async def on_migrate(update: Update, context: Ctx) -> None:
    msg = update.effective_message
    if msg is None:
        return
    service = service_of(context)
    if msg.migrate_to_chat_id:
        await service.membership.migrate(msg.chat.id, msg.migrate_to_chat_id)
    elif msg.migrate_from_chat_id:
        await service.membership.migrate(msg.migrate_from_chat_id, msg.chat.id)


async def on_topic(update: Update, context: Ctx) -> None:
    """A forum topic (or General) was closed or opened again: its table pauses or goes on."""
    msg = update.effective_message
    if msg is None:
        return
    membership = service_of(context).membership
    thread = thread_of(msg)
    if msg.forum_topic_closed is not None:
        await membership.topic_closed(msg.chat.id, thread)
    elif msg.forum_topic_reopened is not None:
        await membership.topic_reopened(msg.chat.id, thread)


async def on_my_chat_member(update: Update, context: Ctx) -> None:
    change = update.my_chat_member
    if change is None:
        return
    service = service_of(context)
    status = change.new_chat_member.status
    gone = status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT)
    if change.chat.type == ChatType.PRIVATE:
        if gone:
            await service.membership.user_blocked(change.chat.id)
        else:
            await service.membership.private_message(user_ref(change.from_user))
    elif gone:
        await service.membership.bot_kicked(change.chat.id)
    elif change.old_chat_member.status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
        adder = change.from_user
        await service.membership.bot_added(chat_ref(change.chat),
                                None if adder.is_bot else user_ref(adder))


async def on_touch(update: Update, context: Ctx) -> None:
    """Before every handler: the game of the update's chat is rebuilt if the restore has
    not reached it yet, or (several processes) checked against storage (restore.py)."""
    chat = update.effective_chat
    if chat is None:
        return
    try:
        await service_of(context).restore.touch_chat(chat.id)
    except StorageError as e:  # the handler itself meets the database's answer
        log.warning("chat %s: its game was not checked: %s", chat.id, e)


async def on_error(update: object, context: Ctx) -> None:
    log.error("error while handling an update", exc_info=context.error)


COMMANDS = ("start", "newgame", "score", "rules", "help", "leave", "stop", "lang", "table",
            "export", "stats", "top", "auto", "sit", "kick")

#: The update types ``add_handlers`` handles: the ``allowed_updates`` of getUpdates and
#: setWebhook, so Telegram sends nothing else (commands, private text, files and group
#: migrations are ``message``; buttons ``callback_query``; being added, removed or blocked
#: ``my_chat_member``).  tests/bot/test_e2e_webhook.py checks it against the handlers.
UPDATE_TYPES = (Update.MESSAGE, Update.CALLBACK_QUERY, Update.MY_CHAT_MEMBER,
                Update.INLINE_QUERY)


def add_handlers(app: AnyApp) -> None:
    msgs = filters.UpdateType.MESSAGE
    app.add_handler(TypeHandler(Update, on_touch), group=-1)
    app.add_handler(CommandHandler("start", _guarded(on_start), filters=msgs))
    app.add_handler(CommandHandler("newgame", _guarded(on_newgame), filters=msgs))
    app.add_handler(CommandHandler("score", _guarded(on_score), filters=msgs))
    app.add_handler(CommandHandler("rules", _guarded(on_rules), filters=msgs))
    app.add_handler(CommandHandler("help", _guarded(on_help), filters=msgs))
    app.add_handler(CommandHandler("leave", _guarded(on_leave), filters=msgs))
    app.add_handler(CommandHandler("stop", _guarded(on_stop), filters=msgs))
    app.add_handler(CommandHandler("pace", _guarded(on_pace), filters=msgs))
    app.add_handler(CommandHandler("lang", _guarded(on_lang), filters=msgs))
    app.add_handler(CommandHandler("table", _guarded(on_table), filters=msgs))
    app.add_handler(CommandHandler("stats", _guarded(on_stats), filters=msgs))
    app.add_handler(CommandHandler("top", _guarded(on_top), filters=msgs))
    app.add_handler(CommandHandler("export", _guarded(on_export), filters=msgs))
    app.add_handler(CommandHandler(("auto", "sit", "kick"), _guarded(on_keepers), filters=msgs))
    app.add_handler(MessageHandler(filters.COMMAND & msgs, _guarded(on_unknown_command)))
    app.add_handler(CallbackQueryHandler(on_callback))
    app.add_handler(InlineQueryHandler(on_inline_query))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrate))
    app.add_handler(MessageHandler(filters.StatusUpdate.FORUM_TOPIC_CLOSED
                                   | filters.StatusUpdate.FORUM_TOPIC_REOPENED, on_topic))
    app.add_handler(ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE & msgs & filters.Document.ALL,
                                   _guarded(on_document)))
    app.add_handler(MessageHandler(filters.ChatType.PRIVATE & msgs & ~filters.COMMAND,
                                   _guarded(on_private_text)))
    app.add_error_handler(on_error)
