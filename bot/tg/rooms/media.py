"""The media room: pictures of a game and game records as files.

* ``/score`` shows a "🖼" button (``callbacks.PICTURES``) under the sheet; pressed in the
  game's chat, it sends the score-sheet picture and the race to 1000 as two photos.  The game
  is looked up in storage, so the button of a finished or stopped game works too.
* The end of a game: the two pictures follow the final sheet (``pictures_after_end``).
* ``/export``: the chat's current or last game as a ``thousand-record/1`` JSON file
  (``storage.export_game``).  A game in progress is not exported: its record names the seed,
  and so every hand.
* A file sent to the bot in private: the score sheet of the record in it (the text sheet of
  ``/score``), or one line saying why not (bigger than 1 MB, not a record).

The pictures are drawn in a worker thread (``asyncio.to_thread``), never on the event loop,
and go out through the outbox (``send_photo``: in a group paced like a reply, within the
group's budget).  One drawing at a time per chat and game; the same pictures are not sent
again within a minute.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from telegram.error import TelegramError

from bot.engine.record import load_record
from bot.i18n import Lang, norm_lang, t
from bot.pictures import render_race_png, render_sheet_png
from bot.tg.model import is_inline_place, seats_from_json, sheet_row
from bot.tg.rooms.base import Kit
from bot.tg.rooms.membership import MembershipRoom
from bot.tg.rooms.session import CACHE_LIMIT, Answer, ChatRef, Session, UserRef, Where
from bot.tg.view import callbacks as cb
from bot.tg.view import render as R

log = logging.getLogger(__name__)

MAX_RECORD_BYTES = 1024 * 1024  # a record file bigger than this is not read
AGAIN_AFTER = 60.0  # seconds before the same pictures are sent again on a press

Rows = Sequence[Mapping[str, Any]]


def render_pictures(lang: str, names: Sequence[str], rows: Rows) -> tuple[bytes, bytes]:
    """The score sheet and the race chart as PNG bytes (run it in a worker thread)."""
    return render_sheet_png(lang, names, rows), render_race_png(lang, names, rows)


def record_sheet(lang: Lang, data: bytes) -> str:
    """The score sheet (the text of ``/score``) of the record in ``data``; ValueError (or
    another error of a malformed record) when it is not one.  Run it in a worker thread: a
    long record replays for a while."""
    record = json.loads(data.decode("utf-8"))
    state = load_record(record)
    seats = record.get("seats") if isinstance(record, dict) else None
    if not isinstance(seats, list) or len(seats) != state.n:
        seats = [f"{i + 1}" for i in range(state.n)]
    labels = [R.SeatLabel(str(name)) for name in seats]
    rows = [sheet_row(h) for h in state.history]
    return R.render_score(lang, rows, labels, title=t(lang, "export.sheet_title"))


class MediaRoom:
    """Pictures, record files."""

    def __init__(self, kit: Kit, membership: MembershipRoom) -> None:
        self.kit = kit
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.people = kit.people
        self.tasks = kit.tasks
        self.membership = membership
        self.end_pictures = True  # post the pictures when a game ends
        self._drawing: set[tuple[int, int]] = set()  # (chat, game) being drawn
        self._drawn: dict[tuple[int, int], tuple[int, float]] = {}  # -> (deals, when sent)

    # ------------------------------------------------------------------ pictures

    async def pictures_press(self, c: cb.Callback, user: UserRef, where: Where) -> Answer:
        """"🖼" pressed under the score sheet of game ``c.game_id`` in ``where``'s chat."""
        lang = self.people.lang_for_user(user.id)
        game = await self.storage.get_game(c.game_id)
        if game is None or where.chat_id is None or game.chat_id != where.chat_id:
            return Answer(t(lang, "guard.wrong_place"))
        sheet = await self.storage.score_sheet(game.game_id)
        rows = [json.loads(r.data) for r in sheet]
        if not rows:
            return Answer(t(lang, "score.empty"))
        key = (game.chat_id, game.game_id)
        if key in self._drawing:
            return Answer(t(lang, "pictures.busy"))
        last = self._drawn.get(key)
        if last is not None and last[0] == len(rows) and time.monotonic() - last[1] < AGAIN_AFTER:
            return Answer(t(lang, "pictures.recent"))
        chat = await self.storage.get_chat(game.chat_id)
        clang = norm_lang(chat.language if chat is not None else lang)
        names = [x.name for x in seats_from_json(game.seats)]
        self._draw(game.chat_id, game.game_id, clang, names, rows, game.thread_id)
        return Answer()

    def pictures_after_end(self, s: Session, rows: list[dict[str, Any]]) -> None:
        """The end of a game (``GameOver``, wired in service.py): its pictures after the final
        sheet (none for an inline table: no chat to post them in; its message has the
        final sheet and the table's link)."""
        if self.end_pictures and rows and not self.tasks.closing \
                and not is_inline_place(s.chat_id):
            self._draw(s.chat_id, s.game_id, s.lang, [x.name for x in s.seats], rows,
                       s.thread_id)

    def _draw(self, chat_id: int, game_id: int, lang: Lang, names: list[str],
              rows: Rows, thread: int | None = None) -> None:
        """Draw both pictures in a worker thread, then hand them to the outbox (to the
        game's forum topic ``thread``)."""
        key = (chat_id, game_id)
        self._drawing.add(key)

        async def run() -> None:
            try:
                sheet, race = await asyncio.to_thread(render_pictures, lang, names, rows)
            except Exception:
                log.exception("game %s: the pictures were not drawn", game_id)
                return
            finally:
                self._drawing.discard(key)
            if len(self._drawn) > CACHE_LIMIT:
                self._drawn.clear()
            self._drawn[key] = (len(rows), time.monotonic())
            self.outbox.send_photo(chat_id, f"sheet-{game_id}.png", sheet,
                                   t(lang, "pictures.caption_sheet"), thread=thread)
            self.outbox.send_photo(chat_id, f"race-{game_id}.png", race,
                                   t(lang, "pictures.caption_race"), thread=thread)

        self.tasks.spawn_free(run(), f"pictures:{game_id}")

    # ------------------------------------------------------------------ records

    async def export_cmd(self, chat: ChatRef, user: UserRef | None) -> None:
        """``/export``: the last game of the chat as a record file (not while it is played)."""
        lang = await self.people.chat_lang(chat, user)
        game = await self.storage.last_game(chat.id, thread_id=chat.thread_id)
        if game is None or game.status == "lobby":
            self.kit.reply(chat.id, t(lang, "export.none"), thread=chat.thread_id)
            return
        if game.status == "playing":
            self.kit.reply(chat.id, t(lang, "export.playing"), thread=chat.thread_id)
            return
        text = await self.storage.export_game(game.game_id)
        self.outbox.send_document(chat.id, f"thousand-{game.game_id}.json", text.encode(),
                                  t(lang, "export.caption", n=game.game_id),
                                  thread=chat.thread_id)

    async def record_file(self, chat: ChatRef, user: UserRef, file_id: str,
                          size: int | None) -> None:
        """A file sent to the bot in private: the score sheet of the record in it."""
        await self.membership.private_message(user)
        lang = self.people.lang_for_user(user.id)
        if size is not None and size > MAX_RECORD_BYTES:
            self.kit.reply(chat.id, t(lang, "export.too_big"))
            return
        try:
            file = await self.outbox.file(file_id)
            if file.file_size is not None and file.file_size > MAX_RECORD_BYTES:
                self.kit.reply(chat.id, t(lang, "export.too_big"))
                return
            data = bytes(await file.download_as_bytearray())
        except TelegramError as e:
            log.info("a record file was not downloaded: %s", e)
            self.kit.reply(chat.id, t(lang, "export.too_big" if "too big" in str(e).lower()
                                  else "export.not_downloaded"))
            return
        if len(data) > MAX_RECORD_BYTES:
            self.kit.reply(chat.id, t(lang, "export.too_big"))
            return
        try:
            text = await asyncio.to_thread(record_sheet, lang, data)
        except (ValueError, TypeError, KeyError, IndexError, AttributeError,
                RecursionError) as e:  # RecordError, JSON and UTF-8 errors are ValueErrors
            log.info("a file from %s is not a record: %s", user.id, e)
            self.kit.reply(chat.id, t(lang, "export.broken"))
            return
        self.kit.reply(chat.id, text)
