"""Issue 4: the table size, presets and every rule set in the lobby's settings menu; a game
with changed rules played to its end; the chat remembering its rules; /rules."""

from __future__ import annotations

import json
from pathlib import Path

from bot.engine.rules import make_rules, rules_from_dict
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
    txt,
)
from tests.bot.helpers import start_private as started
from tests.fakeapi import FakeMessage, FakeTelegramServer

GROUP = -400400


def seen(msg: FakeMessage, text: str) -> bool:
    """``text`` in the message now or in any earlier version of it."""
    return text in (msg.text or "") or any(text in (old.text or "") for old in msg.history)


async def test_rules_changed_in_the_menu_and_played_to_the_end(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = (server.add_user(5001, "Анна"), server.add_user(5002, "Борис"),
                         server.add_user(5003, "Вера"))
    server.add_group(GROUP, "Друзья", members=[boris, vera], admins=[anna])
    async with running(server, db, seed=66) as app:
        await started(server, anna, boris, vera)
        gid, lobby = await open_table(server, app, GROUP, anna, [boris, vera], start=False)
        assert "Правила: классика" in txt(lobby)
        # only the creator (or an admin) may open and change the rules
        assert await click_and_wait(server, boris, lobby, "Ещё") == \
            "Это может создатель стола или админ"
        await lobby_more(server, anna, lobby)
        assert await click_and_wait(server, boris, lobby, "Все правила") == \
            "Это может создатель стола или админ"
        assert await click_and_wait(server, anna, lobby, "Все правила") is None
        assert "Выберите раздел" in txt(lobby)
        assert await click_and_wait(server, anna, lobby, "Золотой кон") is None
        assert await click_and_wait(server, anna, lobby, "⬜ Золотой кон") is None
        assert lobby.find_button(contains="✅ Золотой кон")
        assert await click_and_wait(server, boris, lobby, "Золотой кон") == \
            "Это может создатель стола или админ"
        assert await click_and_wait(server, anna, lobby, "Разделы") is None
        assert await click_and_wait(server, anna, lobby, "Игра втемную") is None
        # a sub-rule that would do nothing without its rule is not offered until it is on
        assert not lobby.find_buttons(contains="Растемнение")
        assert await click_and_wait(server, anna, lobby, "⬜ Игра втемную") is None
        assert await click_and_wait(server, anna, lobby, "⬜ Растемнение") is None
        assert await click_and_wait(server, anna, lobby, "Разделы") is None
        assert await click_and_wait(server, anna, lobby, "Штрафы и очки") is None
        assert await click_and_wait(server, anna, lobby, "Размер штрафа: 120") is None
        assert "Сейчас: <b>120</b>" in (lobby.source_text or "")
        assert await click_and_wait(server, anna, lobby, "100") is None
        assert "Сейчас: <b>100</b>" in (lobby.source_text or "")
        assert await click_and_wait(server, anna, lobby, "Назад") is None
        assert await click_and_wait(server, anna, lobby, "Разделы") is None
        assert await click_and_wait(server, anna, lobby, "Готово") is None
        # the lobby says what differs from the preset
        assert "изменено: Золотой кон, Игра втемную, Растемнение, Размер штрафа" in txt(lobby)
        s = session(app, gid)
        assert s is not None
        want = make_rules("classic", golden_round=True, dark_play=True, dark_unblind=True,
                          penalty=100)
        assert s.rules == want
        assert await click_and_wait(server, anna, lobby, "Начать") is None
        people = {i: server.user(s.seats[i].user_id) for i in range(3)}
        await play(server, app, gid, people, seed=66, timeout=20)
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        assert rules_from_dict(json.loads(game.rules)) == want
        tables = server.chat(GROUP).bot_messages()
        assert any(seen(m, "золотой кон") for m in tables)
        assert any(seen(m, "играет втемную") for m in tables)
        assert any(seen(m, ": растемнение") for m in tables)
        hands = [m for p in people.values() for m in server.chat(p).bot_messages()]
        assert any(seen(m, "Сыграете втемную?") for m in hands)
        # the chat remembers these rules for its next game
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/newgame")
        lobby2 = await server.wait_bot_message(
            GROUP, after=before, predicate=lambda m: "новая партия" in txt(m))
        assert "изменено: Золотой кон, Игра втемную, Растемнение, Размер штрафа" in txt(lobby2)
        assert await click_and_wait(server, anna, lobby2, "Отменить") is None
        assert "отменена" in txt(lobby2)
        # /rules shows them, /rules NAME explains one
        await server.send_text(anna, GROUP, "/rules")
        rules_msg = await server.wait_bot_message(
            GROUP, after=lobby2, predicate=lambda m: "Правила этого стола" in txt(m))
        assert "Размер штрафа: 100" in txt(rules_msg)
        await server.send_text(boris, GROUP, "/rules бочка")
        one = await server.wait_bot_message(GROUP, after=rules_msg)
        assert txt(one).startswith("Бочка") and "У этого стола" in txt(one)
        await server.send_text(boris, GROUP, "/rules абракадабра")
        unknown = await server.wait_bot_message(GROUP, after=one)
        assert "Не знаю правила" in txt(unknown)
        await idle(app)
    server.assert_clean()


async def test_table_size_and_preset_and_computer_level(server: FakeTelegramServer,
                                                        db: Path) -> None:
    anna = server.add_user(5011, "Анна", language_code="en")
    server.add_group(GROUP, "Friends", admins=[anna])
    async with running(server, db) as app:
        await started(server, anna)
        gid, lobby = await open_table(server, app, GROUP, anna, [], start=False)
        assert "Thousand — a new game" in txt(lobby)  # the chat follows its people's language
        # a quiet lobby: no computer seated, no computer's level
        assert "Computer:" not in txt(lobby) and "Computer:" not in str(lobby.button_texts)
        assert "Pace" not in str(lobby.button_texts) and "More…" in str(lobby.button_texts)
        s = session(app, gid)
        assert s is not None
        assert await click_and_wait(server, anna, lobby, "Players: 3") is None
        assert s.rules.players == 4 and txt(lobby).count("— free —") == 3
        for _ in range(3):
            assert await click_and_wait(server, anna, lobby, "Add computer") is None
        assert await click_and_wait(server, anna, lobby, "Add computer") == "Every seat is taken"
        assert await click_and_wait(server, anna, lobby, "Players: 4") == \
            "More players are seated — somebody must stand up first"
        assert await click_and_wait(server, anna, lobby, "Remove") is None
        assert await click_and_wait(server, anna, lobby, "Remove") is None
        assert await click_and_wait(server, anna, lobby, "Players: 4") is None
        assert s.rules == make_rules("classic", players=2)
        await lobby_more(server, anna, lobby)  # (the rules: one press away, «⚙️ More…»)
        assert await click_and_wait(server, anna, lobby, "Rules: classic") is None
        assert s.rules == make_rules("full", players=2)
        await lobby_main(server, anna, lobby)
        assert await click_and_wait(server, anna, lobby, "Computer: random") is None
        assert "Computer: normal" in txt(lobby)
        assert s.seats[1].computer and s.seats[1].level == "normal"
        assert await click_and_wait(server, anna, lobby, "Start") is None
        hand = await server.wait_bot_message(anna, predicate=lambda m: "Deal 1" in txt(m))
        assert "Your cards" in txt(hand) or "face down" in txt(hand)
        game = await service(app).storage.get_game(gid)
        assert game is not None and json.loads(game.seats)[1]["level"] == "normal"
        # the computer thinks in its own process: let it make a few moves
        await play(server, app, gid, {0: anna}, max_moves=3)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()
