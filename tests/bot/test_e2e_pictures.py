"""Pictures and record files (issue 11): the 🖼 button under /score, the pictures at the end
of a game, /export and a record sent back to the bot, on the fake Bot API server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from bot.engine.record import load_record, score_sheet
from bot.i18n import t
from bot.pictures import RACE_SIZE, sheet_size
from bot.tg.io.app import ThousandApplication
from bot.tg.model import sheet_row
from bot.tg.rooms.media import MAX_RECORD_BYTES
from bot.tg.view.callbacks import PICTURES, decode
from tests.bot.helpers import idle, open_table, play, running, service, session, start_private
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -900100


def png_size(msg: FakeMessage) -> tuple[int, int]:
    """The size of a photo the bot sent, decoded by Pillow."""
    assert msg.photo is not None
    with Image.open(io.BytesIO(msg.photo.data)) as im:
        im.load()
        assert im.format == "PNG"
        return im.size


async def reply_to(server: FakeTelegramServer, user: FakeUser, chat: int, text: str,
                   ) -> FakeMessage:
    before = server.chat(chat).last_bot_message()
    await server.send_text(user, chat, text)
    return await server.wait_bot_message(chat, after=before)


async def play_deals(server: FakeTelegramServer, app: ThousandApplication, gid: int,
                     people: dict[int, FakeUser], deals: int) -> int:
    """Press until ``deals`` deals are written; the number of deals written."""
    while True:
        s = session(app, gid)
        assert s is not None and s.state is not None
        if len(s.state.history) >= deals:
            return len(s.state.history)
        await play(server, app, gid, people, max_moves=3)


def picture_button(msg: FakeMessage) -> str:
    [button] = [b for b in msg.all_buttons if ":pc:" in (b.callback_data or "")]
    assert button.text == "🖼 Картинки" and button.callback_data is not None
    c = decode(button.callback_data)
    assert c is not None and c.verb == PICTURES
    return button.callback_data


async def test_pictures_export_and_a_record_sent_back(server: FakeTelegramServer,
                                                      db: Path) -> None:
    anna = server.add_user(1101, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame 3")
        gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        deals = await play_deals(server, app, gid, {0: anna}, 2)
        # /score: the text sheet with a 🖼 button; pressing it sends the two pictures
        sheet = await reply_to(server, anna, anna.id, "/score")
        data = picture_button(sheet)
        answer = await server.click(anna, sheet, data=data)
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: len(server.photos(anna)) == 2, 10, what="two photos")
        first, race = server.photos(anna)
        assert png_size(first) == sheet_size("ru", 3, deals)
        assert png_size(race) == RACE_SIZE
        assert first.caption == t("ru", "pictures.caption_sheet")
        # the same pictures again at once: one line, no new photos
        again = await server.click(anna, sheet, data=data)
        assert again is not None and again.text == t("ru", "pictures.recent")
        # the same button pressed in another chat is refused
        wrong = await server.press(anna, GROUP, 1, data, strict=False)
        assert wrong is not None and wrong.text == t("ru", "guard.wrong_place")
        # a game in progress is not exported (its record shows every hand)
        assert (await reply_to(server, anna, anna.id, "/export")).text == \
            t("ru", "export.playing")
        # the end of the game: the final sheet, then its two pictures
        await play(server, app, gid, {0: anna}, timeout=20)
        await server.wait_for(lambda: len(server.photos(anna)) == 4, 15, what="end pictures")
        await idle(app)
        rows = [json.loads(r.data) for r in await service(app).storage.score_sheet(gid)]
        end_sheet, end_race = server.photos(anna)[2:]
        assert png_size(end_sheet) == sheet_size("ru", 3, len(rows))
        assert png_size(end_race) == RACE_SIZE
        final = [m for m in server.bot_messages(anna) if "Партия окончена" in (m.text or "")]
        assert final and final[-1].message_id < end_sheet.message_id
        # /export: the record as a JSON file whose replay is the game
        before = len(server.documents(anna))
        await server.send_text(anna, anna, "/export")
        await server.wait_for(lambda: len(server.documents(anna)) > before, what="a file")
        doc = server.documents(anna)[-1]
        assert doc.document is not None and doc.document.file_name == f"thousand-{gid}.json"
        assert doc.caption is not None and f"№{gid}" in doc.caption
        record = json.loads(doc.document.data)
        assert record["format"] == "thousand-record/1"
        state = load_record(record)
        assert [sheet_row(h) for h in state.history] == rows
        result = await service(app).storage.get_result(gid)
        assert result is not None and state.winner == result.winner_seat
        assert score_sheet(state)["deals"]
        # the file sent back: its score sheet
        sent = await server.send_document(anna, anna, doc.document.data, "game.json")
        back = await server.wait_bot_message(anna, after=sent)
        assert back.text is not None and back.text.startswith(t("ru", "export.sheet_title"))
        last_totals = "".join(str(x) for x in rows[-1]["totals"])
        assert last_totals[:3] in back.text.replace(" ", "")
        assert server.downloads  # fetched through getFile and the file URL
        # a broken file and a file too big: one clear line each
        for payload, key in ((b"{not a record", "export.broken"),
                             (json.dumps({"format": "thousand-record/1",
                                          "deals": [{"actions": ["9:bid 100"]}]}).encode(),
                              "export.broken"),
                             (b"\xff\xfe garbage", "export.broken"),
                             (b" " * (MAX_RECORD_BYTES + 1), "export.too_big")):
            sent = await server.send_document(anna, anna, payload, "x.json")
            line = await server.wait_bot_message(anna, after=sent)
            assert line.text == t("ru", key)
            await idle(app)
            assert server.chat(anna).last_bot_message() is line  # one line, nothing more
    server.assert_clean()


async def test_group_pictures_respect_the_budget(server: FakeTelegramServer, db: Path) -> None:
    """With Telegram's 20 requests a minute in force, the photos are paced like replies:
    never more than 20 requests to the group in any minute, never a 429."""
    server.group_rate_limit = 20
    anna = server.add_user(1201, "Анна")
    boris = server.add_user(1202, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, group_messages_per_minute=20,
                       computer_move_delay=0.05) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [], computers=2)
        s = session(app, gid)
        assert s is not None
        await play_deals(server, app, gid, {s.seat_of(anna.id): anna}, 1)
        sheet = await reply_to(server, anna, GROUP, "/score")
        data = picture_button(sheet)
        # pressed from a private chat: refused
        wrong = await server.press(boris, boris, 1, data, strict=False)
        assert wrong is not None and wrong.text == t("ru", "guard.wrong_place")
        answer = await server.click(boris, sheet, data=data)
        assert answer is not None and answer.text is None
        for command in ("/score", "/rules", "/help", "/export"):  # replies compete for room
            await server.send_text(anna, GROUP, command)
        await server.wait_for(lambda: len(server.photos(GROUP)) == 2, 75, what="photos")
        assert all(png_size(m) for m in server.photos(GROUP))
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None, 75)
        await idle(app)
        assert server.max_in_window(GROUP) <= 20 and not server.rate_limited
        assert server.max_in_window(GROUP, methods=["sendPhoto"]) == 2
    server.assert_clean()


def test_bench_pictures_is_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    from bot.__main__ import main

    assert main(["bench", "pictures", "--deals", "3", "--runs", "1"]) in (0, 1)
    out = capsys.readouterr().out
    assert "score sheet" in out and "race chart" in out and "ms/picture" in out
