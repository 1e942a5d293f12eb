"""A group table that flows (issue 10): answers at once under the group budget, nobody
waits for the absent, forced moves at once, rematch, /lang, /table, hints, no English in
Russian."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from bot.engine.game import forced_action, new_game
from bot.engine.rules import preset_of, rules_from_dict
from tests.bot.helpers import (
    click_and_wait,
    idle,
    lobby_main,
    lobby_more,
    open_table,
    play,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.bot.test_texts import ALLOWED_LATIN
from tests.fakeapi import FakeTelegramServer, FakeUser

GROUP = -800100


async def _answer_time(server: FakeTelegramServer, user: FakeUser, chat: int,
                       text: str) -> float:
    """Seconds from ``user`` writing ``text`` in ``chat`` to the bot's next message there."""
    before = server.chat(chat).last_bot_message()
    sent = server.clock()
    await server.send_text(user, chat, text)
    reply = await server.wait_bot_message(chat, after=before, timeout=10)
    return reply.created_at - sent


async def test_group_commands_are_answered_within_a_second(
        server: FakeTelegramServer, db: Path) -> None:
    """With Telegram's budget of 20 messages a minute in force, a command and a new lobby
    are answered at once while the table keeps changing."""
    server.group_rate_limit = 20
    anna = server.add_user(8001, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db, group_messages_per_minute=20, computer_move_delay=0.05) \
            as app:
        await start_private(server, anna)
        sent = server.clock()
        gid, _ = await open_table(server, app, GROUP, anna, [], computers=2, start=False)
        assert server.chat(GROUP).bot_messages()[0].created_at - sent < 1.0  # the lobby
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        gid, _ = await open_table(server, app, GROUP, anna, [], computers=2)
        s = session(app, gid)
        assert s is not None
        times = []
        for command in ("/score", "/rules", "/help"):
            await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=4)
            in_window = server.max_in_window(GROUP)
            times.append(await _answer_time(server, anna, GROUP, command))
            assert in_window < 20
        print(f"group command answer times (s): {[round(x, 3) for x in times]}")
        assert max(times) < 1.0, times
        assert server.max_in_window(GROUP) <= 20 and not server.rate_limited
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_three_people_one_walks_away_after_deal_3(
        server: FakeTelegramServer, db: Path) -> None:
    """Vera stops answering after deal 3: two timeouts, then her seat is on autopilot and
    the game flows to its winner; the table says so in one line; her reminder is gone."""
    anna, boris = server.add_user(8011, "Анна"), server.add_user(8012, "Борис")
    vera = server.add_user(8013, "Вера")
    server.add_group(GROUP, "Друзья", members=[boris, vera], admins=[anna])
    async with running(server, db, turn_timeout=3.0) as app:
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None and s.state is not None
        people = {s.seat_of(p.id): p for p in (anna, boris, vera)}
        while s.state is not None and s.state.deal is not None and s.state.deal.number <= 3:
            await play(server, app, gid, people, max_moves=1, timeout=20)
        vseat = s.seat_of(vera.id)
        del people[vseat]
        loop = asyncio.get_running_loop()
        started = loop.time()
        rest = asyncio.create_task(play(server, app, gid, people, timeout=20))
        await server.wait_for(lambda: s.seats[vseat].auto, 20, what="Vera's autopilot")
        assert s.seats[vseat].why == "away"

        def table_says() -> bool:
            text = txt(server.chat(GROUP).last_bot_message())
            return "Вера не отвечает" in text or "Кон" not in text

        await server.wait_for(table_says, 10)
        text = txt(server.chat(GROUP).last_bot_message())
        if "Вера не отвечает" in text:  # (unless the deal ended meanwhile)
            assert text.count("Вера не отвечает") == 1  # one line, replacing the timeouts
            assert "Вера: время вышло" not in text
        # the private reminder became one line about the autopilot
        await server.wait_for(lambda: not any("Ваш ход" in txt(m) for m in
                                              server.chat(vera).bot_messages() if not m.deleted))
        mine = [txt(m) for m in server.chat(vera).bot_messages() if not m.deleted]
        assert sum("компьютер ходит за вас" in m for m in mine) == 1
        await rest
        took = loop.time() - started
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        records = [json.loads(r) for r in await service(app).storage.actions(gid)]
        timeouts = [r for r in records if r.get("by") == "t"]
        assert len(timeouts) == 2 and all(r["s"] == vseat for r in timeouts)
        assert any(r.get("by") == "a" and r["s"] == vseat for r in records)
        assert took < 60, took  # no turn timer after the second timeout
        final = server.chat(GROUP).last_bot_message()
        assert final is not None and "Партия окончена" in txt(final)
        await idle(app)
    server.assert_clean()


async def test_autopilot_ends_with_the_next_press(server: FakeTelegramServer, db: Path) -> None:
    anna, vera = server.add_user(8021, "Анна"), server.add_user(8022, "Вера")
    server.add_group(GROUP, "Друзья", members=[vera], admins=[anna])
    async with running(server, db, turn_timeout=0.6, computer_move_delay=0.3) as app:
        await start_private(server, anna, vera)
        gid, _ = await open_table(server, app, GROUP, anna, [vera], computers=1)
        s = session(app, gid)
        assert s is not None
        vseat = s.seat_of(vera.id)
        people = {s.seat_of(anna.id): anna}
        while not s.seats[vseat].auto:
            await play(server, app, gid, people, max_moves=1, timeout=20)
        # any press of Vera's gives her the seat back (here: the table's "my cards")
        await idle(app)
        table = server.chat(GROUP).last_bot_message()
        assert table is not None
        answer = await server.click(vera, table, contains="карты")
        assert answer is not None
        assert not s.seats[vseat].auto
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
        records = [json.loads(r) for r in await service(app).storage.actions(gid)]
        assert {"s": vseat, "ctl": "human", "why": "back"} in records
    server.assert_clean()


async def test_only_moves_are_played_at_once_unless_turned_off(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(8031, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        for forced in (True, False):
            gid, lobby = await open_table(server, app, GROUP, anna, [], computers=2,
                                          start=False)
            if not forced:
                await lobby_more(server, anna, lobby)
                assert await click_and_wait(server, anna, lobby, "Единственный ход") is None
                assert "вручную" in str(lobby.button_texts)
                await lobby_main(server, anna, lobby)
            assert await click_and_wait(server, anna, lobby, "Начать") is None
            s = session(app, gid)
            assert s is not None
            seat = s.seat_of(anna.id)
            only = 0
            while s.status == "playing" and only < 3:
                st = s.state
                assert st is not None
                if st.to_act == seat and forced_action(st) is not None:
                    only += 1
                    if forced:
                        await server.wait_for(lambda: s.state is not st, 5)  # noqa: B023
                        continue
                await play(server, app, gid, {seat: anna}, max_moves=1, timeout=20)
            records = [json.loads(r) for r in await service(app).storage.actions(gid)]
            assert any(r.get("by") == "f" for r in records) == forced
            before = server.chat(GROUP).last_bot_message()
            await server.send_text(anna, GROUP, "/stop")  # the game may have ended already:
            await server.wait_bot_message(  # its answer, before the next /newgame is sent
                GROUP, after=before, predicate=lambda m: (m.text or "").startswith(
                    ("Партия остановлена", "Здесь нет партии")))
            await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_rematch_starts_the_same_table_with_the_next_dealer(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(8041, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna)
        gid, _ = await open_table(server, app, GROUP, anna, [], args="2", computers=1)
        s = session(app, gid)
        assert s is not None
        seats = [(x.kind, x.user_id, x.name) for x in s.seats]
        await play(server, app, gid, {s.seat_of(anna.id): anna}, timeout=20)
        await idle(app)
        final = server.chat(GROUP).last_bot_message()
        assert final is not None and "Партия окончена" in txt(final)
        assert await server.click(anna, final, contains="Ещё партия") is not None
        s2 = await server.wait_for(lambda: service(app).session_of_chat(GROUP))
        assert s2.game_id != gid and s2.status == "playing"
        assert [(x.kind, x.user_id, x.name) for x in s2.seats] == seats
        old = await service(app).storage.get_game(gid)
        assert old is not None
        rules = rules_from_dict(json.loads(old.rules))
        assert s2.rules == rules
        assert new_game(rules, s2.seed).dealer == (new_game(rules, old.seed).dealer + 1) % 2
        # a second press of the same button does not make a second game
        again = await server.click(anna, final, contains="Ещё партия")
        assert again is not None and again.text is not None and "уже идёт" in again.text
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        # "New table" opens a lobby
        assert await server.click(anna, final, contains="Новый стол") is not None
        await server.wait_for(lambda: (x := service(app).session_of_chat(GROUP)) is not None
                              and x.status == "lobby")
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_lang_switches_a_chat(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(8051, "Анна"), server.add_user(8052, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(boris, GROUP, "/lang en")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "админ" in txt(said)  # Boris is not allowed
        before = said
        await server.send_text(anna, GROUP, "/lang en")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "English" in txt(said) or "speak" in txt(said)
        await server.wait_for(lambda: "Players" in str(lobby.button_texts))
        before = said
        await server.send_text(anna, GROUP, "/lang xx")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "xx" in txt(said) and not re.search("[А-Яа-я]{4}", txt(said).replace(
            "русский", "").replace("українська", ""))
        before = said
        await server.send_text(anna, GROUP, "/lang")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "English" in txt(said)
        before = said
        await server.send_text(anna, GROUP, "/lang uk")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "українською" in txt(said)
        await server.wait_for(lambda: "👥 Гравців: 3" in str(lobby.button_texts))
        # in private: the person's language
        before = server.chat(boris).last_bot_message()
        await server.send_text(boris, boris, "/lang en")
        said = await server.wait_bot_message(boris, after=before)
        assert not re.search("[А-Яа-я]{4}", txt(said))
        before = said
        await server.send_text(boris, boris, "/help")
        said = await server.wait_bot_message(boris, after=before)
        assert "/newgame" in txt(said) and not re.search("[А-Яа-я]{4}", txt(said))
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        assert gid
        await idle(app)
    server.assert_clean()


async def test_hints_table_and_greeting(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(8061, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    server.add_group(GROUP - 1, "Новые", admins=[anna], bot_status="left")
    async with running(server, db) as app:
        await start_private(server, anna)
        for text, expect in (("/frobnicate", "Не знаю такой команды"),
                             ("привет", "/newgame")):
            before = server.chat(anna).last_bot_message()
            await server.send_text(anna, anna, text)
            said = await server.wait_bot_message(anna, after=before)
            assert expect in txt(said)
        # in a group, a command for another bot is not ours; one addressed to us is
        count = len(server.chat(GROUP).bot_messages())
        await server.send_text(anna, GROUP, "/frobnicate@other_bot")
        await server.send_text(anna, GROUP, "/frobnicate")
        await server.wait_updates_delivered()
        await idle(app)
        assert len(server.chat(GROUP).bot_messages()) == count
        await server.send_text(anna, GROUP, f"/frobnicate@{server.bot_user['username']}")
        said = await server.wait_bot_message(GROUP)
        assert "Не знаю такой команды" in txt(said)
        # /table: the table again at the bottom; the old message says where it went
        gid, table = await open_table(server, app, GROUP, anna, [], computers=2)
        await idle(app)
        await server.send_text(anna, GROUP, "/table")
        await server.wait_for(lambda: "ниже" in txt(table))
        s = session(app, gid)
        assert s is not None
        newest = await server.wait_bot_message(GROUP, predicate=lambda m: "Кон" in txt(m)
                                               and m.message_id > table.message_id)
        assert newest.buttons
        await play(server, app, gid, {s.seat_of(anna.id): anna}, max_moves=3)
        await idle(app)
        assert "ниже" in txt(table)  # the old one stays put
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        # added to a group: it says what it does
        server.add_bot(GROUP - 1, by=anna)
        hello = await server.wait_bot_message(GROUP - 1)
        assert "/newgame" in txt(hello)
        await idle(app)
    server.assert_clean()


async def test_a_russian_game_shows_no_english(server: FakeTelegramServer, db: Path) -> None:
    """Every message and button of a group game with people and computers, read as the
    players read them: no Latin word in Russian (but commands), the arguments typed in
    Russian too."""
    anna, boris = server.add_user(8071, "Анна"), server.add_user(8072, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, turn_timeout=1.0) as app:
        await start_private(server, anna, boris)
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/newgame 5")  # a bad argument, in Russian
        said = await server.wait_bot_message(GROUP, after=before)
        assert "5" in txt(said)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], args="полные",
                                  computers=1)  # the preset's name in Russian
        s = session(app, gid)
        assert s is not None and preset_of(s.rules) == "full"
        people = {s.seat_of(anna.id): anna, s.seat_of(boris.id): boris}
        await play(server, app, gid, people, policy=smart, max_moves=60, timeout=20)
        for cmd in ("/score", "/rules", "/rules бочка", "/help"):
            await server.send_text(anna, GROUP, cmd)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
        texts = []
        for chat in (GROUP, anna.id, boris.id):
            for m in server.chat(chat).bot_messages():
                texts.append(txt(m))
                texts.extend(b.text for b in m.all_buttons)
        texts.extend(q.answer.text for q in server.callback_queries.values()
                     if q.answer is not None and q.answer.text)
        bad = set()
        for text in texts:
            clean = re.sub(r"/[a-z_]+(@\w+)?|t\.me/\S+|https?://\S+", " ", text)
            # a card is written as on the cards themselves (K♣️, 10♥️): not a word
            clean = re.sub(r"(?:10|[9AKQJ])[♠♣♦♥]", " ", clean)
            bad |= {w for w in re.findall(r"[A-Za-z][A-Za-z0-9_]*", clean)
                    if w not in ALLOWED_LATIN}
        assert not bad, bad
    server.assert_clean()
