"""Issue 49, "Invite from any chat": inline mode (``@bot`` in any chat) on the fake Bot API.

The article offered to ``@bot`` (in the asker's language) is sent into a chat the bot is not
in; people press «🪑 Сесть» on it and the message edits itself listing them; when the seats
are taken the game starts, the hands go to each person's private chat, and the inline
message shows the public table (with the table's link when the Mini App is set) and at the
end the final sheet.  The table's place is a synthetic chat (``model.inline_place``):
nothing is ever sent to it.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path

import pytest

from bot.tg.io.app import ThousandApplication
from bot.tg.model import inline_place
from bot.tg.rooms.session import Session
from bot.tg.view.callbacks import SCORE, decode, encode
from bot.webapp.adapter import ServicePort
from bot.webapp.auth import WebUser
from bot.webapp.port import Refusal, SeatView
from storage import Storage
from tests.bot.helpers import (
    idle,
    open_table,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.bot.procs import BotProcess, bots
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser
from tests.fakeapi.server import InlineAnswer
from tests.webapp.helpers import webapp_running

CHAT = -100_555_0001  # a group the bot is not in: the invitation is sent there
OTHER = -400_777
WRONG = "Эта кнопка не отсюда: нажмите её там, где её показал бот"


def invite_button(msg: FakeMessage) -> str:
    found = [b.callback_data for b in msg.all_buttons
             if b.callback_data and b.callback_data.startswith("iv:")]
    assert len(found) == 1, msg.button_texts
    return found[0]


def no_chat_requests(server: FakeTelegramServer, place: int) -> None:
    """Nothing was ever asked of the synthetic chat of an inline table."""
    hit = [r for r in server.requests
           if r.chat_id == place or str(r.params.get("chat_id")) == str(place)]
    assert hit == [], [(r.method, r.params) for r in hit]


def no_chat_errors(caplog: pytest.LogCaptureFixture) -> None:
    """No room tried to send to an inline table's place (the outbox refuses and logs)."""
    assert not [r for r in caplog.records if "it is no chat" in r.getMessage()
                and r.levelno >= logging.ERROR]


async def sent_invitation(server: FakeTelegramServer, user: FakeUser,
                          chat: int = CHAT) -> FakeMessage:
    answer = await server.inline_query(user, "тысяча", chat_type="supergroup")
    assert answer is not None
    return server.send_inline_result(user, chat, answer)


async def press(server: FakeTelegramServer, user: FakeUser, msg: FakeMessage,
                data: str | None = None) -> tuple[str | None, str | None]:
    answer = await server.press_inline_message(user, msg, data or invite_button(msg))
    assert answer is not None, "the press was not answered"
    return answer.text, answer.url


async def edited_to(server: FakeTelegramServer, msg: FakeMessage, *parts: str) -> None:
    await server.wait_for(lambda: all(p in txt(msg) for p in parts),
                          what=f"the inline message showing {parts}: {txt(msg)!r}")


def playing(app: ThousandApplication, place: int) -> Session | None:
    """The game of an inline table once it began (None before)."""
    s = service(app).session_of_chat(place)
    return s if s is not None and s.state is not None else None


async def test_the_article_is_in_the_askers_language(server: FakeTelegramServer,
                                                     db: Path) -> None:
    server.inline_mode = True
    anna = server.add_user(5001, "Анна", language_code="ru")
    bob = server.add_user(5002, "Bob", language_code="en")
    olha = server.add_user(5003, "Ольга", language_code="uk")
    async with running(server, db) as app:
        for person, title, sit in ((anna, "🃏 Партия в тысячу", "🪑 Сесть"),
                                   (bob, "🃏 A game of Thousand", "🪑 Sit down"),
                                   (olha, "🃏 Партія в тисячу", "🪑 Сісти")):
            answer = await server.inline_query(person, "")
            assert isinstance(answer, InlineAnswer)
            assert len(answer.results) == 1 and answer.is_personal
            assert answer.cache_time is not None and answer.cache_time <= 10
            article = answer.result()
            assert article["type"] == "article" and article["title"] == title
            buttons = [b for row in article["reply_markup"]["inline_keyboard"] for b in row]
            assert [b["text"] for b in buttons] == [sit]
            assert title in article["input_message_content"]["message_text"]
        # typing stores nothing: no chat, no game
        assert await service(app).storage.games_in_progress() == []
    server.assert_clean()


async def test_an_inline_table_seats_people_starts_and_plays(
        server: FakeTelegramServer, db: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    server.inline_mode = True
    anna = server.add_user(5101, "Анна")
    boris = server.add_user(5102, "Борис")
    vera = server.add_user(5103, "Вера")  # never started the bot (at first)
    server.add_group(CHAT, "Друзья", members=[anna, boris, vera], bot_status="left")
    server.add_group(OTHER, "Другие", members=[anna], admins=[anna])
    async with webapp_running(server, db, seed=24, webapp_short_name="table") as app:
        await start_private(server, anna, boris)
        msg = await sent_invitation(server, anna)
        assert msg.inline_message_id is not None and msg.via_bot is not None
        iid = msg.inline_message_id
        place = inline_place(iid)
        assert "свободно" in txt(msg) and "Анна" not in txt(msg)
        # the first press makes the table and seats the presser; the message shows it
        assert await press(server, anna, msg) == (None, None)
        await edited_to(server, msg, "1. Анна", "1 из 3")
        s = service(app).session_of_chat(place)
        assert s is not None and s.status == "lobby" and s.inline == iid
        gid = s.game_id
        links = [b.url for b in msg.all_buttons if b.url]
        assert len(links) == 1 and "startapp=g" in str(links[0])
        # a second press by a seated person: refused kindly, nothing changes
        edits = msg.edit_count
        text, _ = await press(server, anna, msg)
        assert text == "Вы уже за столом"
        # someone who never started the bot: the link to start it first, not seated
        text, url = await press(server, vera, msg)
        assert text is None and url is not None and url.startswith(
            f"https://t.me/{server.bot_user['username']}?start=join_")
        await idle(app)
        assert msg.edit_count == edits and [x.user_id for x in s.seats] == [anna.id]
        # forged and foreign presses: refused, nothing changes
        forged = await server.press(anna, anna, 1, invite_button(msg), strict=False)
        assert forged is not None and forged.text == WRONG
        # another inline table, and a group table
        other_msg = await sent_invitation(server, boris)
        assert await press(server, boris, other_msg) == (None, None)
        await edited_to(server, other_msg, "1. Борис")
        other = service(app).session_of_chat(inline_place(str(other_msg.inline_message_id)))
        assert other is not None and other.game_id != gid
        for who, on, data in ((anna, msg, encode(other.game_id, 0, SCORE)),
                              (boris, other_msg, encode(gid, 0, SCORE))):
            q = server.press_inline(who, str(on.inline_message_id), data)
            answer = await server.wait_answer(q)
            assert answer is not None and answer.text == WRONG
        group_gid, group_table = await open_table(server, app, OTHER, anna, [], computers=2,
                                                  start=False)
        q = server.press_nowait(anna, OTHER, group_table.message_id, encode(gid, 0, SCORE),
                                strict=False)
        answer = await server.wait_answer(q)
        assert answer is not None and answer.text == WRONG
        await idle(app)
        assert msg.edit_count == edits
        # Борис sits: the message lists both
        assert await press(server, boris, msg) == (None, None)
        await edited_to(server, msg, "1. Анна", "2. Борис", "2 из 3")
        # Вера starts the bot by the link she got: seated there, and the game begins
        await server.send_text(vera, vera, "/start " + url.partition("?start=")[2])
        s2 = await server.wait_for(lambda: playing(app, place), what="the inline game started")
        assert s2.game_id == gid
        assert [x.user_id for x in s2.seats] == [anna.id, boris.id, vera.id]
        for p in (anna, boris, vera):  # every hand in its own private chat
            await server.wait_bot_message(p, predicate=lambda m: "Кон 1" in txt(m))
        await edited_to(server, msg, "Кон 1", "Карты — в личном чате")
        assert [b.url for b in msg.all_buttons if b.url] == links  # the table's link stays
        assert "Сесть" not in str(msg.button_texts)
        # the Mini App: a seated person gets the seat; anyone holding the link (here a
        # person of no chat the bot knows) watches the public view — no chat to ask
        assert app.webapp is not None
        port = app.webapp.port
        assert isinstance(port, ServicePort)
        stranger = server.add_user(5109, "Глеб")
        seat = await port.seat_view(gid, anna.id)
        assert isinstance(seat, SeatView) and seat.view.seat == s2.seat_of(anna.id)
        # no «Ещё партия» at its end (no chat to post the next game in); a forged one is
        # refused and makes nothing
        assert seat.place.rematch is False
        games = len(service(app).sessions)
        refused = await port.act(gid, WebUser(anna.id, "Анна"), {"kind": "rematch"}, 0)
        assert isinstance(refused, Refusal) and refused.code == "stale", refused
        assert len(service(app).sessions) == games
        watched = await port.watch_view(gid, stranger.id)
        assert isinstance(watched, SeatView) and watched.view.seat == -1
        assert watched.view.hand == ()
        assert not server.calls("getChatMember")
        # a late press on the invitation's data: the game is on
        q = server.press_inline(anna, iid, "iv:ru")
        answer = await server.wait_answer(q)
        assert answer is not None and answer.text == "Партия уже идёт: все места заняты."
        # a few moves by the private hand buttons; the inline message follows them
        seats = {i: server.user(s2.seats[i].user_id) for i in range(3)}
        assert await play(server, app, gid, seats, seed=24, max_moves=6) == 6
        await idle(app)
        st = s2.state
        assert st is not None and st.version >= 6
        to_act = s2.seats[st.to_act].name
        await edited_to(server, msg, to_act)
        # the score button of the inline table works on its own message
        text, _ = await press(server, boris, msg, encode(gid, 0, SCORE))
        assert text is not None and "Анна" in text
        # hands never reached the inline message
        for shown in [txt(msg), *(old.text or "" for old in msg.history)]:
            assert "Ваши карты" not in shown
        assert group_gid != gid
    no_chat_requests(server, place)
    no_chat_errors(caplog)
    server.assert_clean()


async def test_an_inline_game_played_to_its_end(server: FakeTelegramServer, db: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """Without the Mini App: no link; the message ends with the final sheet."""
    caplog.set_level(logging.INFO)
    server.inline_mode = True
    people = [server.add_user(5201 + i, name, language_code="en")
              for i, name in enumerate(["Ann", "Ben", "Cat"])]
    server.add_group(CHAT, "Friends", members=people, bot_status="left")
    async with running(server, db, seed=24) as app:
        await start_private(server, *people)
        msg = await sent_invitation(server, people[0])
        assert "A game of Thousand" in txt(msg)
        for i, p in enumerate(people):
            assert await press(server, p, msg) == (None, None)
            if i < 2:
                await edited_to(server, msg, f"{i + 1}. {p.first_name}")
        place = inline_place(str(msg.inline_message_id))
        s = await server.wait_for(lambda: playing(app, place), what="the game started")
        gid = s.game_id
        assert s.lang == "en"
        seats = {i: server.user(s.seats[i].user_id) for i in range(3)}
        assert await play(server, app, gid, seats, seed=24, timeout=20) > 30
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        await edited_to(server, msg, "🏆")
        # whatever follows the end (the pictures a group gets) is done or never began
        tasks = service(app).kit.tasks.all
        await server.wait_for(lambda: all(t.done() for t in tasks
                                          if t.get_name().startswith("pictures:")), 20,
                              what="the end's pictures")
        await idle(app)
        assert not [b for b in msg.all_buttons if b.url or b.callback_data]
        for p in people:  # each person's private chat has the end too
            last = server.chat(p).last_bot_message()
            assert last is not None and "🏆" in txt(last)
        # a stale press on the old invitation: the game is over, nothing new is made
        q = server.press_inline(people[1], str(msg.inline_message_id), "iv:en")
        answer = await server.wait_answer(q)
        assert answer is not None and answer.text == "This game is over."
        await idle(app)
        assert service(app).session_of_chat(place) is None
    no_chat_requests(server, place)
    no_chat_errors(caplog)
    server.assert_clean()


async def test_an_inline_table_goes_on_after_restarts(server: FakeTelegramServer,
                                                      db: Path) -> None:
    """The bot restarts mid-lobby and mid-game: the inline table goes on, on its message."""
    server.inline_mode = True
    anna, boris, vera = (server.add_user(5301, "Анна"), server.add_user(5302, "Борис"),
                         server.add_user(5303, "Вера"))
    server.add_group(CHAT, "Друзья", members=[anna, boris, vera], bot_status="left")
    async with running(server, db, seed=5) as app:
        await start_private(server, anna, boris, vera)
        msg = await sent_invitation(server, anna)
        assert await press(server, anna, msg) == (None, None)
        await edited_to(server, msg, "1. Анна")
        await idle(app)
    place = inline_place(str(msg.inline_message_id))
    async with running(server, db, seed=6) as app:  # mid-lobby
        assert await press(server, boris, msg) == (None, None)
        await edited_to(server, msg, "1. Анна", "2. Борис")
        assert await press(server, vera, msg) == (None, None)
        s = await server.wait_for(lambda: playing(app, place), what="the game started")
        gid = s.game_id
        seats = {i: server.user(s.seats[i].user_id) for i in range(3)}
        assert await play(server, app, gid, seats, seed=5, max_moves=3) == 3
        await idle(app)
        assert s.state is not None
        version = s.state.version
    async with running(server, db, seed=7) as app:  # mid-game
        s = await server.wait_for(lambda: session(app, gid), what="the game rebuilt")
        assert s.state is not None and s.state.version == version and s.inline is not None
        assert await play(server, app, gid, seats, seed=5, max_moves=3) == 3
        await idle(app)
        st = s.state
        assert st is not None and st.version > version
        await edited_to(server, msg, s.seats[st.to_act].name, "Кон")
        text, _ = await press(server, anna, msg, encode(gid, 0, SCORE))
        assert text is not None and "Борис" in text
    no_chat_requests(server, place)
    server.assert_clean()


def move_data(msg: FakeMessage) -> list[str]:
    return [b.callback_data for b in msg.all_buttons
            if b.callback_data is not None and ":a:" in b.callback_data]


def gone(msg: FakeMessage, data: str) -> bool:
    return data not in move_data(msg)


async def some_moves(server: FakeTelegramServer, people: list[FakeUser], count: int) -> None:
    """People press the newest move button offered in their private chats until ``count``
    presses were accepted (a refused one — not their turn, played meanwhile — is skipped)."""
    accepted = 0
    for _ in range(count * 6):
        if accepted == count:
            return

        def offered() -> tuple[int, FakeUser, FakeMessage, str] | None:
            best = None
            for p in people:
                for m in server.chat(p).bot_messages():
                    for data in move_data(m):
                        c = decode(data)
                        if c is not None and (best is None or c.version > best[0]):
                            best = (c.version, p, m, data)
            return best

        _, who, msg, data = await server.wait_for(offered, 20, what="a move button")
        answer = await server.press(who, who, msg.message_id, data, timeout=10)
        assert answer is not None
        if answer.text is None:
            accepted += 1
            await server.wait_for(functools.partial(gone, msg, data), 10,
                                  what="the hand to change")
    assert accepted == count


async def test_a_killed_bot_goes_on_with_its_inline_table(server: FakeTelegramServer,
                                                          tmp_path: Path) -> None:
    """``python -m bot`` killed (SIGKILL) mid-lobby and mid-game: a new process finds the
    inline table by its message and goes on, on that message."""
    server.inline_mode = True
    people = [server.add_user(5401 + i, name) for i, name in enumerate(["Анна", "Борис", "Вера"])]
    server.add_group(CHAT, "Друзья", members=people, bot_status="left")
    db = tmp_path / "thousand.sqlite3"
    bot = BotProcess.polling(server, tmp_path, "inline", {"database_path": db})
    async with bots(bot):
        await bot.start()
        await start_private(server, *people)
        msg = await sent_invitation(server, people[0])
        assert await press(server, people[0], msg) == (None, None)
        await edited_to(server, msg, "1. Анна")
        await bot.kill()  # mid-lobby
        await bot.start()
        assert await press(server, people[1], msg) == (None, None)
        await edited_to(server, msg, "1. Анна", "2. Борис")
        assert await press(server, people[2], msg) == (None, None)
        await edited_to(server, msg, "Кон 1")
        await some_moves(server, people, 3)
        await bot.kill()  # mid-game
        async with Storage.open(db) as store:
            (game,) = await store.games_in_progress()
            stored = game.version
        assert stored >= 3
        edits = msg.edit_count
        await bot.start()
        await some_moves(server, people, 3)
        async with Storage.open(db) as store:
            (game,) = await store.games_in_progress()
        assert game.version >= stored + 3
        await server.wait_for(lambda: msg.edit_count > edits, 10, what="the table edited")
        assert "Кон" in txt(msg)
        await bot.stop()
    assert "it is no chat" not in bot.log()
    no_chat_requests(server, inline_place(str(msg.inline_message_id)))
    # after a kill the bot may repeat one edit Telegram already had ("not modified")
    server.assert_clean(allow_not_modified=True)


async def test_an_idle_inline_lobby_closes_on_its_message(
        server: FakeTelegramServer, db: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Nobody sits for the lobby's time: the message says the table is closed and how to
    open another (no /newgame: there is no chat with the bot); a late press makes nothing."""
    caplog.set_level(logging.INFO)
    server.inline_mode = True
    anna, boris = server.add_user(5501, "Анна"), server.add_user(5502, "Борис")
    server.add_group(CHAT, "Друзья", members=[anna, boris], bot_status="left")
    async with running(server, db, lobby_ttl=0.6) as app:
        await start_private(server, anna, boris)
        msg = await sent_invitation(server, anna)
        assert await press(server, anna, msg) == (None, None)
        await edited_to(server, msg, "1. Анна")
        place = inline_place(str(msg.inline_message_id))
        await edited_to(server, msg, "Стол закрыт", f"@{server.bot_user['username']}")
        assert msg.all_buttons == []
        q = server.press_inline(boris, str(msg.inline_message_id), "iv:ru")
        answer = await server.wait_answer(q)
        assert answer is not None and answer.text == "Эта партия закончилась."
        await idle(app)
        assert service(app).session_of_chat(place) is None
        assert await service(app).storage.active_game(place) is None
    no_chat_requests(server, place)
    no_chat_errors(caplog)
    server.assert_clean()


async def test_a_lobby_whose_message_id_was_never_stored_is_that_messages_table(
        server: FakeTelegramServer, db: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The process died between making an inline lobby and storing its message's id: the
    place is made from that id, so the next press finds the lobby, stores the id and goes
    on (the message lists the first person and the next one), not refused for ever."""
    from bot.engine.rules import CLASSIC
    from bot.tg.model import SeatInfo, seats_json

    caplog.set_level(logging.INFO)
    server.inline_mode = True
    anna, boris = server.add_user(5601, "Анна"), server.add_user(5602, "Борис")
    server.add_group(CHAT, "Друзья", members=[anna, boris], bot_status="left")
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        msg = await sent_invitation(server, anna)
        iid = str(msg.inline_message_id)
        place = inline_place(iid)
        storage = service(app).storage  # what the dead process had stored: the lobby only
        await storage.upsert_chat(place, "group", language="ru")
        gid = await storage.create_game(
            place, anna.id, rules=CLASSIC.model_dump_json(), seed=3,
            seats=seats_json([SeatInfo("human", anna.id, "Анна", "")]), lobby_code="k3v9q2m7x4")
        assert service(app).session_of_chat(place) is None
        assert await press(server, boris, msg) == (None, None)
        await edited_to(server, msg, "1. Анна", "2. Борис", "2 из 3")
        s = service(app).session_of_chat(place)
        assert s is not None and s.game_id == gid and s.inline == iid
        await idle(app)
        row = await storage.get_game(gid)
        assert row is not None and iid in row.message_ids
    no_chat_requests(server, place)
    no_chat_errors(caplog)
    server.assert_clean()
