"""The floor of ``python -m bot bench bot``: a bare python-telegram-bot bot.

It is built like the project's application (``ApplicationBuilder`` with the fake server's
``base_url``, 256 concurrent updates, no job queue, the benchmark's stamped update queue,
its update processor and request measured by ``bot/tg/io/observe.py``) but has no storage,
engine, rendering, outbox or rate limiter:

* any text message (the simulated person's ``/newgame``) gets one message with eight buttons;
* a press is answered (``answerCallbackQuery``) and the message it came from is edited
  (``editMessageText``) to a new text with new button data — the next "version", so the
  simulated people of the benchmark see a changed hand and press again.

What it costs per update is what python-telegram-bot, httpx and the event loop cost for the
least a button-driven game must do: the floor the project's cost is compared with.
"""

from __future__ import annotations

from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.request import HTTPXRequest

from bot.tg import metrics as M
from bot.tg.io.observe import ObservedRequest, ObservedUpdates

CARDS = ("9♠", "10♠", "J♥", "Q♥", "K♦", "A♦", "10♣", "A♣")


def keyboard(version: int) -> InlineKeyboardMarkup:
    """Eight buttons (two rows), data ``g1:<version>:a:<i>`` as the benchmark expects."""
    buttons = [InlineKeyboardButton(c, callback_data=f"g1:{version}:a:{i}")
               for i, c in enumerate(CARDS)]
    return InlineKeyboardMarkup([buttons[:4], buttons[4:]])


def text(version: int) -> str:
    return f"Floor: move {version}. Your cards:"


async def _start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    await context.bot.send_message(chat.id, text(0), reply_markup=keyboard(0))


async def _press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None or query.data is None:
        return
    version = int(query.data.split(":")[1]) + 1
    await query.answer()
    await query.edit_message_text(text(version), reply_markup=keyboard(version))


def build_floor(token: str, base_url: str,
                metrics: M.Metrics) -> Application[Any, Any, Any, Any, Any, Any]:
    """The bare bot, pointed at ``base_url`` (the fake Bot API server's); its updates are
    measured the way the project's application's are (``ObservedUpdates``,
    ``ObservedRequest``)."""

    app = (
        ApplicationBuilder()
        .token(token)
        .base_url(base_url)
        .concurrent_updates(ObservedUpdates(256, probe=metrics))
        .job_queue(None)
        .update_queue(M.StampedQueue(metrics))
        .request(ObservedRequest(HTTPXRequest(connection_pool_size=256), probe=True))
        .build()
    )
    app.add_handler(MessageHandler(filters.TEXT, _start))
    app.add_handler(CallbackQueryHandler(_press))
    return app
