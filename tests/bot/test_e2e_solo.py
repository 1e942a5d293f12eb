"""A person alone against two computer players, on the fake Bot API server."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

from bot.engine.views import view
from bot.tg.view.callbacks import decode
from tests.bot.helpers import (
    buttons_at,
    click_and_wait,
    first_button,
    idle,
    play,
    running,
    service,
    smart,
    start_private,
    txt,
)
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser


async def test_solo_game_to_its_end(server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(1001, "Анна")
    async with running(server, db) as app:
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame")
        # one question a message: the table's size (or "Play" with what is marked), then
        # the computers' level, whose press starts the game; Anna picks 3 and "средний"
        setup = await server.wait_bot_message(anna, predicate=lambda m: "Играть" in str(
            m.button_texts))
        assert "Сколько игроков" in txt(setup) and "уровень компьютеров" not in txt(setup)
        assert "средний" not in str(setup.button_texts)
        assert await click_and_wait(server, anna, setup, "3 игрока") is None
        assert "уровень компьютеров" in txt(setup) and "Сколько игроков" not in txt(setup)
        assert "игрока" not in str(setup.button_texts)
        assert await click_and_wait(server, anna, setup, "средний") is None
        gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
        s = service(app).sessions[gid]
        assert [x.level for x in s.seats if x.computer] == ["normal", "normal"]
        assert not setup.buttons and "средний" in txt(setup)  # what was chosen stays
        first = await server.wait_bot_message(anna, predicate=lambda m: "Кон 1" in (m.text or ""))
        assert "🤖" in txt(first) and "Ваши карты" in txt(first)
        started = time.monotonic()
        presses = await play(server, app, gid, {0: anna}, policy=smart, seed=1, timeout=20)
        assert presses > 20
        await idle(app)
        # the last deal's message says who won; then the final sheet with a rematch
        hands = [m for m in server.chat(anna).bot_messages()
                 if "Кон" in txt(m) and "Партия окончена" not in txt(m)]
        # a finished deal keeps only its 🔍 analysis button (issue 11)
        assert all(":z:" in (b.callback_data or "") for m in hands for b in m.all_buttons)
        last = server.chat(anna).last_bot_message()
        assert last is not None and "Партия окончена" in txt(last) and "🏆" in txt(last)
        assert [b.text for b in last.all_buttons] == ["🔁 Ещё партия", "🃏 Новый стол"]
        game = await app.service.storage.get_game(gid) if app.service else None
        assert game is not None and game.status == "finished"
        result = await service(app).storage.get_result(gid)
        assert result is not None and result.winner_seat is not None
        # the score sheet of the finished game
        before = server.chat(anna).last_bot_message()
        await server.send_text(anna, anna, "/score")
        sheet = await server.wait_bot_message(anna, after=before)
        assert "Запись последней партии" in txt(sheet) and "Кон Сдаёт" in txt(sheet)
        assert time.monotonic() - started < 60
    server.assert_clean()


async def test_solo_buttons_are_only_legal_actions(server: FakeTelegramServer, db: Path) -> None:
    boris = server.add_user(1002, "Boris", language_code="en")
    async with running(server, db, seed=5) as app:
        await start_private(server, boris)
        await server.send_text(boris, boris, "/newgame 2")
        gid = await server.wait_for(lambda: service(app).by_chat.get(boris.id))
        s = service(app).sessions[gid]
        checked = paged = 0
        while checked < 15:
            st = s.state
            assert st is not None
            if st.to_act != 0:
                await play(server, app, gid, {0: boris}, max_moves=0)
                await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
                continue
            msg = await buttons_at(server, boris, gid, st.version)
            assert "Deal" in txt(msg) and "Your" in txt(msg)
            legal = set(view(st, 0).legal)
            shown = set()
            pages = []
            for b in msg.all_buttons:
                c = decode(b.callback_data)
                assert c is not None and c.version == st.version
                if c.verb == "q":  # 💡: a hint, not an action (issue 11)
                    continue
                if c.verb == "pg":  # another page of the buttons (the other bids, …)
                    pages.append(b.callback_data)
                    continue
                action = c.action()
                assert action is not None and action in legal
                shown.add(action)
            assert shown and shown <= legal
            for data in pages:  # each page holds legal actions only, and a way back
                assert data is not None
                await _open_page(server, boris, msg, data)
                back = [b for b in msg.all_buttons if b.callback_data is not None
                        and b.callback_data.endswith(":pg:")]
                assert len(back) == 1
                for b in msg.all_buttons:
                    c = decode(b.callback_data)
                    assert c is not None and c.version == st.version
                    if c.verb not in ("pg", "q"):
                        action = c.action()
                        assert action is not None and action in legal
                        shown.add(action)
                await _open_page(server, boris, msg, back[0].callback_data or "")
                paged += 1
            assert shown == legal  # every legal action, one press away or two
            checked += 1
            await play(server, app, gid, {0: boris}, policy=first_button, max_moves=1)
        assert paged  # a page of other bids or contracts was walked
        await idle(app)
    server.assert_clean()


async def _open_page(server: FakeTelegramServer, user: FakeUser, msg: FakeMessage,
                     data: str) -> None:
    """Press a page button of ``msg`` and wait for its keyboard to change."""
    count = msg.edit_count
    answer = await server.press(user, user, msg.message_id, data)
    assert answer is not None and answer.text is None
    await server.wait_for(lambda: msg.edit_count > count, what="the page")


async def test_sends_and_edits_through_do_api_request_warn_nothing(
        server: FakeTelegramServer, db: Path) -> None:
    """The outbox sends and edits by ``Bot.do_api_request`` on purpose (no decoded answer);
    python-telegram-bot's advice to use its own methods must not reach the operator's log."""
    anna = server.add_user(1003, "Анна")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")  # what the bot's own filters do not silence shows
        async with running(server, db) as app:
            await start_private(server, anna)
            await server.send_text(anna, anna, "/newgame 3")
            gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
            await play(server, app, gid, {0: anna}, policy=smart, seed=2, max_moves=4)
            await idle(app)
            sends = [r for r in server.requests if r.method == "sendMessage"]
            edits = [r for r in server.requests if r.method == "editMessageText"]
            assert sends and edits  # both paths ran
    ptb = [str(w.message) for w in seen if "Please use 'Bot." in str(w.message)]
    assert ptb == []
