"""The messages of an inline table (``@bot`` in any chat: bot/tg/rooms/inline.py).

The invitation is the article the bot offers to ``@bot``: its message lists the seats and
has «🪑 Сесть»; the same message, edited by its ``inline_message_id``, lists the people as
they sit, then shows the public table of the game (no hand ever: a person's cards go to
their private chat) and at the end its final sheet.  It is seen in a chat the bot may not
be in, so it carries only what everyone there may see; its buttons are the sit button (the
invitation's language in its data, ``invite_data``), the score popup and the link that
opens the table as a page (the Mini App).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from bot.engine.views import TableView
from bot.i18n import LANGS, esc, t
from bot.tg.view import callbacks as cb
from bot.tg.view.common import Button, Rendered
from bot.tg.view.table import TableInfo, render_table

INVITE: Final = "iv"  # the sit button of an inline table: ``iv:<language>``
_INVITE_RE: Final = re.compile(r"iv:([a-z]{2})")


def invite_data(lang: str) -> str:
    """The data of «🪑 Сесть» on an inline table's message (no game yet: the table is found
    by its inline message; the language is the invitation's, the table's)."""
    return f"{INVITE}:{lang}"


def decode_invite(data: str | None) -> str | None:
    """The language of an inline table's sit button, or None for any other data."""
    m = _INVITE_RE.fullmatch(data or "")
    return m.group(1) if m is not None and m.group(1) in LANGS else None


def render_invite(lang: str, names: Sequence[str], players: int, link: str = "") -> Rendered:
    """The invitation, and the lobby it becomes: who sits (``names``) out of ``players``;
    «🪑 Сесть»; the table's link once there is a table (``link``)."""
    lines = [f"<b>{esc(t(lang, 'inline.title'))}</b>",
             t(lang, "inline.seats", seated=len(names), players=players)]
    for i in range(players):
        who = esc(names[i]) if i < len(names) else f"<i>{esc(t(lang, 'inline.free'))}</i>"
        lines.append(f"{i + 1}. {who}")
    lines.append("")
    lines.append(t(lang, "inline.hint"))
    rows: list[tuple[Button, ...]] = [(Button(t(lang, "btn.inline_sit"), invite_data(lang)),)]
    if link:
        rows.append((Button(t(lang, "btn.webapp_table"), url=link),))
    return Rendered("\n".join(lines), tuple(rows))


def render_inline_table(lang: str, pv: TableView, info: TableInfo) -> Rendered:
    """The public table (as a group's table message shows it) with the score popup and the
    table's link; the cards are in each person's private chat."""
    table = render_table(lang, pv, info)
    rows: list[tuple[Button, ...]] = [
        (Button(t(lang, "btn.score"), cb.encode(info.game_id, 0, cb.SCORE)),)]
    if info.link:
        rows.append((Button(t(lang, "btn.webapp_table"), url=info.link),))
    return Rendered(table.text + "\n<i>" + esc(t(lang, "inline.hands")) + "</i>", tuple(rows))


def render_inline_end(lang: str, text: str, link: str = "") -> Rendered:
    """The last word of an inline table: ``text`` (the final sheet, a deal's summary of a
    stopped game, or a closed lobby's line) and the table's link (the page shows the sheet)."""
    rows: tuple[tuple[Button, ...], ...] = ((Button(t(lang, "btn.webapp_table"), url=link),),) \
        if link else ()
    return Rendered(text, rows)
