"""The keepers' controls (issue 19, part 2), end to end on the fake Bot API: the table's
creator and the group's admins (anonymous ones too) hand a seat to the computer and give it
back, let a latecomer sit in a computer's seat, stop the game and remove a person from the
lobby; everybody else is refused and nothing changes; forged and stale presses change
nothing; and all of it survives a SIGKILL and a restart."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

from storage import Storage
from tests.bot.helpers import (
    click_data,
    idle,
    lobby_more,
    open_table,
    play,
    running,
    service,
    session,
    start_private,
    txt,
)
from tests.bot.test_e2e_restart import _bot_process, stop_process
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -700100
OTHER = -700200
ONLY = "только создатель стола или админ"


def table_msg(server: FakeTelegramServer, gid: int, chat: int = GROUP) -> FakeMessage | None:
    """The group's current table message of game ``gid`` (the one with `Мои карты` and the
    keepers' ⚙️)."""
    for m in reversed(server.chat(chat).bot_messages()):
        data = [b.callback_data or "" for b in m.all_buttons]
        if any(d.startswith(f"g{gid}:") and ":km:m" in d for d in data) \
                and any(":h:" in d for d in data):
            return m
    return None


async def current_table(server: FakeTelegramServer, gid: int, chat: int = GROUP) -> FakeMessage:
    return await server.wait_for(lambda: table_msg(server, gid, chat), what="the table")


def data_with(msg: FakeMessage, part: str) -> str:
    return next(b.callback_data for b in msg.all_buttons
                if b.callback_data is not None and part in b.callback_data)


async def open_menu(server: FakeTelegramServer, user: FakeUser, table: FakeMessage,
                    timeout: float = 5.0) -> FakeMessage:
    """A keeper presses ⚙️: the keepers' menu comes as a message of its own below the
    table, whose keyboard stays as it was (`Мои карты`, `Счёт` for everybody)."""
    before = server.chat(GROUP).last_bot_message()
    keyboard = table.button_texts
    answer = await server.click(user, table, predicate=lambda b: ":km:m" in (b.callback_data
                                                                            or ""),
                                timeout=timeout)
    assert answer is not None and answer.text is None, answer
    menu = await server.wait_bot_message(GROUP, after=before, timeout=timeout,
                                         predicate=lambda m: "Меню создателя стола" in txt(m))
    assert "Меню создателя стола" not in txt(table)
    assert "Мои карты" in str(keyboard) and "Мои карты" in str(table.button_texts)
    assert not any(w in str(table.button_texts) for w in ("Отдать", "Вернуть", "Остановить"))
    return menu


async def refused(server: FakeTelegramServer, user: FakeUser, msg: FakeMessage,
                  part: str) -> str:
    """Press the button whose data has ``part``; it must be refused: its popup."""
    answer = await server.click(user, msg, predicate=lambda b: part in (b.callback_data or ""))
    assert answer is not None and answer.text is not None, f"{part} was not refused"
    return answer.text


async def test_a_latecomer_takes_a_computers_seat_and_plays_to_the_end(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(7001, "Анна"), server.add_user(7002, "Борис")
    gleb, vera = server.add_user(7003, "Глеб"), server.add_user(7004, "Вера")
    server.add_group(GROUP, "Друзья", members=[boris, gleb, vera], admins=[anna])
    async with running(server, db, seed=24) as app:
        await start_private(server, anna, boris, gleb)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], args="3", computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        comp = next(i for i, x in enumerate(s.seats) if x.computer)
        people = {i: server.user(x.user_id) for i, x in enumerate(s.seats) if not x.computer}
        await play(server, app, gid, people, max_moves=4, seed=1)
        table = await current_table(server, gid)
        assert "🪑" in " ".join(b.text for b in table.all_buttons)
        # Vera has not started the bot: the press opens it (the lobby's way)
        answer = await server.click(vera, table, predicate=lambda b: ":ts:" in (b.callback_data
                                                                               or ""))
        assert answer is not None and answer.url is not None and "start=seat_" in answer.url
        # Gleb asks; the keepers get a line with "let in" / "refuse"
        before = server.chat(GROUP).last_bot_message()
        assert "Просьба отправлена" in await refused(server, gleb, table, ":ts:")
        request = await server.wait_bot_message(GROUP, after=before,
                                                predicate=lambda m: "просит место" in txt(m))
        assert "Глеб" in txt(request)
        assert "уже отправлена" in await refused(server, gleb, table, ":ts:")
        # Boris (not a keeper) may not let him in: nothing changes
        seats = [x.to_json() for x in s.seats]
        assert ONLY in await refused(server, boris, request, ":ty:")
        assert [x.to_json() for x in s.seats] == seats
        # Anna (the creator) lets him in
        assert await click_data(server, anna, request, ":ty:") is None
        await server.wait_for(lambda: s.seats[comp].user_id == gleb.id)
        assert "Глеб за столом вместо" in txt(request) and "Анна" in txt(request)
        assert request.all_buttons == []
        sat_at = s.store_version
        hand = await server.wait_bot_message(gleb, predicate=lambda m: "Кон" in txt(m))
        assert "Ваши карты" in txt(hand)
        note = await server.wait_bot_message(gleb, predicate=lambda m: "Вы за столом"
                                             in txt(m))
        assert "«Друзья» вместо компьютера (решение: Анна)" in txt(note)
        # the table says so in one line, and offers no seat any more
        table = await current_table(server, gid)
        await server.wait_for(lambda: "Глеб теперь играет за столом" in txt(table_msg(server,
                                                                                        gid)))
        table = await current_table(server, gid)
        assert ":ts:" not in " ".join(b.callback_data or "" for b in table.all_buttons)
        # Gleb (seated now) cannot take a second seat: there is none, and he is seated
        people[comp] = gleb
        presses = await play(server, app, gid, people, seed=24, timeout=20)
        assert presses > 20
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        # the game's seats name the latecomer (the rematch, the ratings, /score read them)
        assert json.loads(game.seats)[comp]["user_id"] == gleb.id
        records = [json.loads(r) for r in await service(app).storage.actions(gid)]
        after = records[sat_at:]
        assert after and all(not (r.get("s") == comp and r.get("by") in ("c", "a"))
                             for r in after), "the computer moved for the latecomer's seat"
        assert any(r.get("s") == comp and r.get("by") == "h" for r in after)
        sit = records[sat_at - 1]
        assert sit["ctl"] == "sit" and sit["uid"] == gleb.id and sit["keeper"] == "Анна"
        last = server.chat(gleb).last_bot_message()
        assert last is not None and "🏆" in txt(last)
    server.assert_clean()


async def test_keepers_controls_work_and_members_are_refused(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(7011, "Анна"), server.add_user(7012, "Борис")
    carl, dan = server.add_user(7013, "Карл"), server.add_user(7014, "Дана")
    server.add_group(GROUP, "Друзья", members=[anna, boris], admins=[carl, dan])
    async with running(server, db, seed=5) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], args="3", computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        bseat = s.seat_of(boris.id)
        aseat = s.seat_of(anna.id)
        table = await current_table(server, gid)
        # Boris, a plain member: the menu is refused, nothing changes
        count = table.edit_count
        assert ONLY in await refused(server, boris, table, ":km:")
        await idle(app)
        assert table.edit_count == count and s.keepers_menu == ""
        # Anna, the creator: the menu opens below the table; Boris's seat goes to the computer
        menu = await open_menu(server, anna, table)
        assert "Отдать компьютеру: Борис" in " ".join(b.text for b in menu.all_buttons)
        # Boris may not press the menu's buttons either
        assert ONLY in await refused(server, boris, menu, f":ka:{bseat}")
        assert not s.seats[bseat].auto
        assert await click_data(server, anna, menu, f":ka:{bseat}", wait=False) is None
        assert s.seats[bseat].auto and s.seats[bseat].why == "keeper"
        await server.wait_for(lambda: menu.deleted, what="the menu gone once used")
        await server.wait_for(lambda: "Борис: место отдано компьютеру (решение: Анна)"
                              in txt(table_msg(server, gid)))
        await server.wait_bot_message(boris, predicate=lambda m: "за вас пока играет"
                                      in txt(m))
        # Carl, an admin not at the table, gives it back
        table = await current_table(server, gid)
        menu = await open_menu(server, carl, table)
        assert await click_data(server, carl, menu, f":kb:{bseat}", wait=False) is None
        assert not s.seats[bseat].auto
        await server.wait_for(lambda: "Борис снова играет без компьютера (решение: Карл)"
                              in txt(table_msg(server, gid)))
        # Dana, an admin writing on behalf of the group: /auto by the seat's name
        await server.send_as_group(dan, GROUP, "/auto Борис")
        await server.wait_for(lambda: s.seats[bseat].auto)
        await server.wait_for(lambda: "место отдано компьютеру (решение: админ группы)"
                              in txt(table_msg(server, gid)))
        # Boris, by command: refused, Anna's seat stays hers
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(boris, GROUP, "/auto Анна")
        no = await server.wait_bot_message(GROUP, after=before)
        assert ONLY in txt(no)
        assert not s.seats[aseat].auto
        # Boris comes back by pressing a button of the game, as after timeouts
        table = await current_table(server, gid)
        answer = await server.click(boris, table, predicate=lambda b: ":h:" in (b.callback_data
                                                                              or ""))
        assert answer is not None
        assert not s.seats[bseat].auto
        # the keeper's line goes with the autopilot; the private line is deleted
        await server.wait_for(lambda: "отдано компьютеру" not in txt(table_msg(server, gid)))
        await server.wait_for(lambda: all(m.deleted for m in server.chat(boris).bot_messages()
                                          if "за вас пока играет" in txt(m)) or all(
            "за вас пока играет" not in txt(m) for m in server.chat(boris).bot_messages()))
        # Boris may not stop the game; Anna may (asked once more first)
        table = await current_table(server, gid)
        assert ONLY in await refused(server, boris, table, ":km:")
        menu = await open_menu(server, anna, table)
        assert await click_data(server, anna, menu, ":km:s") is None
        await server.wait_for(lambda: "Остановить партию?" in txt(menu))
        assert "Остановить" not in txt(table) and "Мои карты" in str(table.button_texts)
        before = server.chat(GROUP).last_bot_message()
        answer = await server.click(anna, menu, predicate=lambda b: ":ks:" in (b.callback_data
                                                                             or ""))
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        line = await server.wait_bot_message(GROUP, after=before,
                                             predicate=lambda m: "решение: Анна" in txt(m))
        assert "остановлена" in txt(line)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "stopped"
        records = [json.loads(r) for r in await service(app).storage.actions(gid)]
        kept = [(r["ctl"], r.get("keeper")) for r in records if "ctl" in r]
        assert kept == [("auto", "Анна"), ("human", "Карл"), ("auto", "админ группы"),
                        ("human", None)]
        await idle(app)
    server.assert_clean()


def keyboards(m: FakeMessage) -> list[str]:
    """Every keyboard the message showed, each as the text of its buttons."""
    shown = [v.reply_markup for v in m.history] + [m.reply_markup]
    return [" ".join(b.get("text", "") for row in (k or {}).get("inline_keyboard", [])
                     for b in row) for k in shown]


async def test_the_keepers_menu_never_hides_the_table_and_goes_with_its_deal(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(7041, "Анна"), server.add_user(7042, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    async with running(server, db, seed=8) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], args="3", computers=1)
        s = session(app, gid)
        assert s is not None and s.state is not None
        people = {i: server.user(x.user_id) for i, x in enumerate(s.seats) if not x.computer}
        table = await current_table(server, gid)
        deal = len(s.state.history)
        # an open menu shows the seats as they are: /auto changes it in place
        menu = await open_menu(server, anna, table)
        assert "Отдать компьютеру: Борис" in str(menu.button_texts)
        await server.send_text(anna, GROUP, "/auto Борис")
        await server.wait_for(lambda: "Вернуть место: Борис" in str(menu.button_texts),
                              what="the menu brought up to date")
        assert not menu.deleted
        assert await click_data(server, anna, menu, ":kb:", wait=False) is None
        await server.wait_for(lambda: menu.deleted, what="the menu gone once used")
        # the menu is open (at "stop the game?") while the deal is played on
        menu = await open_menu(server, anna, table)
        assert await click_data(server, anna, menu, ":km:s") is None
        assert "Остановить партию?" in txt(menu)
        # everybody still has the table's own buttons while the menu is open
        answer = await server.click(boris, table, predicate=lambda b: ":h:" in (b.callback_data
                                                                              or ""))
        assert answer is not None and "Ваши карты" in (answer.text or "")
        await play(server, app, gid, people, max_moves=3, seed=2)
        assert not menu.deleted and "Мои карты" in str(table.button_texts)
        for _ in range(40):  # ... until the next deal
            s = session(app, gid)
            assert s is not None and s.state is not None
            if len(s.state.history) > deal:
                break
            await play(server, app, gid, people, max_moves=5, seed=3)
        await server.wait_for(lambda: menu.deleted, what="the menu gone with its deal")
        await idle(app)
        assert s.keepers_menu == ""
        # no table message ever lost `Мои карты` for the menu, nor showed it
        tables = [m for m in server.chat(GROUP).bot_messages()
                  if any(":h:" in (b.callback_data or "") for b in m.all_buttons)
                  or any("Кон" in (v.text or "") for v in m.history)]
        assert len(tables) >= 2  # the first deal's message, the next deal's
        for m in tables:
            for text in [v.text or "" for v in m.history] + [txt(m)]:
                assert "Остановить партию?" not in text and "Меню создателя" not in text
            for k in keyboards(m):
                assert not k or "Мои карты" in k or "🔍" in k or "Сесть" in k, k  # (a lobby first)
                assert "Отдать компьютеру" not in k and "Остановить" not in k
        # the next deal's table: the ⏹ question is not there, ⚙️ opens a menu anew
        table = await current_table(server, gid)
        menu = await open_menu(server, anna, table)
        assert "⏹ Остановить партию" in str(menu.button_texts)
        answer = await server.click(anna, menu, predicate=lambda b: (b.callback_data or "")
                                    .endswith(":km:"))  # ↩️ close
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: menu.deleted, what="the closed menu gone")
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_forged_stale_and_misplaced_keeper_presses_change_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(7021, "Анна"), server.add_user(7022, "Борис")
    server.add_group(GROUP, "Друзья", members=[boris], admins=[anna])
    server.add_group(OTHER, "Другие", members=[boris], admins=[anna])
    async with running(server, db, seed=6) as app:
        await start_private(server, anna, boris)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], args="3", computers=1)
        s = session(app, gid)
        assert s is not None
        bseat = s.seat_of(boris.id)
        table = await current_table(server, gid)
        menu = await open_menu(server, anna, table)
        old = data_with(menu, f":ka:{bseat}")
        assert await click_data(server, anna, menu, f":ka:{bseat}", wait=False) is None
        assert s.seats[bseat].auto
        versions = s.store_version
        # the old menu's button, pressed again: stale (the seats changed since)
        answer = await server.press(anna, GROUP, table.message_id, old, strict=False)
        assert answer is not None and answer.text is not None and "изменились" in answer.text
        # a forged revision, a forged seat, garbage
        rev = int(old.split(":")[1])
        for data in (f"g{gid}:{(rev + 1) % 10**9}:kb:{bseat}", f"g{gid}:{rev}:ka:7",
                     f"g{gid}:{rev}:ty:1.0", f"g{gid}:{rev}:ks:", f"g{gid}:{rev}:zz:"):
            answer = await server.press(anna, GROUP, table.message_id, data, strict=False)
            assert answer is not None and answer.text is not None, data
        # a valid button from another chat: not its place
        fresh = f"g{gid}:{rev}:km:m"
        msg = await server.send_text(anna, OTHER, "привет")
        answer = await server.press(anna, OTHER, msg.message_id, fresh, strict=False)
        assert answer is not None and answer.text is not None and "не отсюда" in answer.text
        # stop without being asked first ("stop the game?"): refused
        cur = await current_table(server, gid)
        rev_now = int(data_with(cur, ":km:").split(":")[1])
        answer = await server.press(anna, GROUP, cur.message_id, f"g{gid}:{rev_now}:ks:",
                                    strict=False)
        assert answer is not None and answer.text is not None
        await idle(app)
        assert s.store_version == versions and s.status == "playing" and s.seats[bseat].auto
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_keepers_changes_survive_a_sigkill(server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(7031, "Анна"), server.add_user(7032, "Борис")
    gleb, vera = server.add_user(7033, "Глеб"), server.add_user(7034, "Вера")
    server.add_group(GROUP, "Друзья", members=[boris, gleb], admins=[anna])
    server.add_group(OTHER, "Лобби", members=[boris, vera], admins=[anna])
    proc = await _bot_process(server, db)
    try:
        for u in (anna, boris, gleb, vera):
            await server.send_text(u, u, "/start")
            await server.wait_bot_message(u, timeout=20)
        # a lobby: Vera sits down, Anna removes her
        await server.send_text(anna, OTHER, "/newgame 3")
        lobby = await server.wait_bot_message(
            OTHER, predicate=lambda m: any(":j:" in (b.callback_data or "")
                                           for b in m.all_buttons), timeout=20)
        assert await click_data(server, vera, lobby, ":j:") is None
        assert await click_data(server, boris, lobby, ":j:") is None
        await lobby_more(server, anna, lobby)  # (🚪 is one press away: «⚙️ Ещё…»)
        assert ONLY in await refused(server, boris, lobby, ":km:")
        assert await click_data(server, anna, lobby, ":km:k") is None
        assert await click_data(server, anna, lobby, ":kk:1") is None  # Vera: seat 2
        assert "Вера больше не за столом (решение: Анна)" in txt(lobby)
        await server.wait_bot_message(vera, predicate=lambda m: "освобождено" in txt(m))
        # a game: Boris's seat goes to the computer, Gleb takes the computer's seat
        await server.send_text(anna, GROUP, "/newgame 3")
        table = await server.wait_bot_message(
            GROUP, predicate=lambda m: any(":j:" in (b.callback_data or "")
                                           for b in m.all_buttons), timeout=20)
        assert await click_data(server, boris, table, ":j:") is None
        assert await click_data(server, anna, table, ":c:") is None
        assert await click_data(server, anna, table, ":st:") is None
        gid = int((table.all_buttons[0].callback_data or "g0:").split(":")[0][1:])
        await server.wait_for(lambda: table_msg(server, gid) is not None, 20)
        table = await current_table(server, gid)
        menu = await open_menu(server, anna, table, timeout=10)
        bseat = int(next(b.callback_data or "" for b in menu.all_buttons
                         if "Борис" in b.text).split(":")[-1])
        assert await click_data(server, anna, menu, f":ka:{bseat}", wait=False) is None
        await server.wait_for(lambda: "место отдано компьютеру" in txt(table_msg(server, gid)),
                              10)
        table = await current_table(server, gid)
        answer = await server.click(gleb, table, predicate=lambda b: ":ts:" in (b.callback_data
                                                                               or ""))
        assert answer is not None
        request = await server.wait_bot_message(GROUP, predicate=lambda m: "просит место"
                                                in txt(m), timeout=10)
        answer = await server.click(anna, request, predicate=lambda b: ":ty:" in (b.callback_data
                                                                                 or ""))
        assert answer is not None and answer.text is None
        await server.wait_bot_message(gleb, predicate=lambda m: "Кон" in txt(m), timeout=10)
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 10)
        async with Storage.open(db) as store:
            ctl = [json.loads(r) for r in await store.actions(gid) if '"ctl"' in r]
            assert [r["ctl"] for r in ctl] == ["auto", "sit"]
            lobby_game = await store.active_game(OTHER)
            assert lobby_game is not None
            assert [x["name"] for x in json.loads(lobby_game.seats)] == ["Анна", "Борис"]
        # a new process: the seats are as the keepers left them; Anna gives Boris his back
        proc = await _bot_process(server, db)
        table = await current_table(server, gid)
        await asyncio.sleep(0.5)
        menu = await open_menu(server, anna, table, timeout=30)
        texts = " ".join(b.text for b in menu.all_buttons)
        assert "Вернуть место: Борис" in texts
        assert "Отдать компьютеру: Глеб" in texts  # the computer's seat is Gleb's now
        assert await click_data(server, anna, menu, f":kb:{bseat}", wait=False) is None
        await server.wait_for(
            lambda: "Борис снова играет без компьютера" in txt(table_msg(server, gid)), 30)
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 10)
    finally:
        await stop_process(proc)
    # the last restart, in this process: everything is there
    async with running(server, db) as app:
        s = await server.wait_for(lambda: service(app).session_of_chat(GROUP), 10)
        await server.wait_for(lambda: s.state is not None)
        assert not s.seats[bseat].auto
        assert any(x.user_id == gleb.id and x.kind == "human" for x in s.seats)
        assert not any(x.computer for x in s.seats)
        lob = await server.wait_for(lambda: service(app).session_of_chat(OTHER), 10)
        assert [x.name for x in lob.seats] == ["Анна", "Борис"]
        for chat in (GROUP, OTHER):
            await server.send_text(anna, chat, "/stop")

        def gone(chat: int) -> bool:
            return service(app).session_of_chat(chat) is None

        await server.wait_for(lambda: gone(GROUP) and gone(OTHER))
        await idle(app)
    server.assert_clean(allow_not_modified=True)
