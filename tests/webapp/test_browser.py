"""The page in a real headless Chromium: a whole solo deal played by touching the cards,
every payload checked, the screenshots of the docs taken (Russian, light and dark)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bot.engine import cards as C
from bot.engine.game import forced_action
from bot.engine.state import GameState
from bot.webapp.auth import WebUser
from bot.webapp.port import Refusal
from tests.bot.helpers import play, service, txt
from tests.fakeapi import FakeTelegramServer
from tests.webapp.browser import browser, open_page
from tests.webapp.helpers import base_url, init_data, solo_game, webapp_running
from tests.webapp.test_payload import cards_in, may_know

__all__ = ["browser"]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


async def _my_move(page: Any) -> None:
    """One move by touch: a legal card (tap, tap or the panel's button), else the panel's
    first button (a bid, the talon, the contract)."""
    legal = page.locator("#hand .card.legal")
    if await legal.count():
        card = legal.first  # (touched at its visible left edge: the fan overlaps)
        await card.click(position={"x": 8, "y": 30})
        main = page.locator("#panel button:not(.alt)")
        if await main.count():
            await main.first.click()
        else:
            await card.click(position={"x": 8, "y": 30})
        return
    chips = page.locator("#panel button:not(.alt)")
    if await chips.count():
        await chips.first.click()
        return
    await page.locator("#panel button").first.click()


async def test_a_whole_solo_deal_by_touch(server: FakeTelegramServer, db: Path,
                                         browser: Any) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db, seed=3) as app:
        gid = await solo_game(server, app, anna)
        s = service(app).sessions[gid]
        states: dict[int, GameState] = {}
        assert s.state is not None
        states[s.state.version] = s.state
        assert app.webapp is not None

        def keep(game: int | None, version: int) -> None:
            if game == gid and s.state is not None:
                states[version] = s.state

        app.webapp.port.on_change(keep)
        page = await open_page(browser, f"{base_url(app)}/?game={gid}",
                               init_data(anna, server.token))
        frames: list[dict[str, Any]] = []
        opened: list[Any] = []

        def socket(ws: Any) -> None:
            opened.append(ws)
            ws.on("framereceived", lambda f: frames.append(json.loads(f)))

        page.on("websocket", socket)
        await page.goto(f"{base_url(app)}/?game={gid}")
        await page.wait_for_selector("#hand .card", timeout=10000)
        calls = await page.evaluate("window.__tg_calls")
        assert "ready" in calls and "disableVerticalSwipes" in calls
        assert await page.evaluate("Telegram.WebApp.isClosingConfirmationEnabled")
        assert await page.title() == "Тысяча"
        shot_taken = False
        moves = 0
        for _ in range(200):
            st = s.state
            assert st is not None
            if len(st.history) >= 1:
                break
            if st.to_act != 0 or (s.forced and forced_action(st) is not None):
                await page.wait_for_timeout(50)  # (a last card is played by the bot)
                continue
            await page.wait_for_function(
                f"document.body.dataset.version == '{st.version}'", timeout=5000)
            if not shot_taken and st.phase == "play" and st.deal is not None \
                    and st.deal.trick and len(st.deal.tricks) >= 2:
                IMG.mkdir(parents=True, exist_ok=True)
                await page.screenshot(path=str(IMG / "webapp-light.png"))
                shot_taken = True
            before = st.version
            await _my_move(page)
            moves += 1
            await page.wait_for_function(
                f"Number(document.body.dataset.version) > {before}", timeout=5000)
        st = s.state
        assert st is not None and len(st.history) >= 1, "the deal did not end"
        assert moves >= 8 and shot_taken
        # the deal's summary slides up; the back button closes it
        await page.wait_for_selector("#summary:not([hidden])", timeout=5000)
        assert "Кон 1" in (await page.inner_text("#summary-body"))
        assert await page.evaluate("Telegram.WebApp.BackButton.isVisible")
        await page.screenshot(path=str(IMG / "webapp-summary.png"))
        # 🔍: the deal analysed, through the same press as the summary's button
        await page.click("#summary-analyse")
        await page.wait_for_selector("#toast:not([hidden])", timeout=30000)
        assert "🔍 Кон 1" in await page.inner_text("#toast")
        await page.click("#toast")  # a tap dismisses it
        assert await page.locator("#toast").is_hidden()
        await page.evaluate("Telegram.WebApp.__back()")
        assert await page.locator("#summary").is_hidden()
        assert not await page.evaluate("Telegram.WebApp.BackButton.isVisible")
        # the deal's last trick stays in the middle until the next deal's first card (that
        # deal's bidding waits for Anna): its three cards, who took it
        await page.wait_for_selector("#trick.last .slot", timeout=5000)
        assert await page.locator("#trick.last .slot").count() == 3
        assert await page.locator("#trick.last .slot.won").count() == 1
        assert (await page.inner_text("#note")).startswith("Последняя взятка: ")
        # 📋 the sheet: a row per deal and the totals; the four-colour deck as a setting
        await page.click("#sheet-btn")
        paper = await page.inner_text("#sheet pre.paper")  # as /score shows it
        assert "Анна" in paper and "  1 " in paper and "160" in paper
        await page.screenshot(path=str(IMG / "webapp-sheet.png"))
        assert await page.evaluate("Telegram.WebApp.BackButton.isVisible")
        await page.click("#four")
        colour = await page.evaluate(
            "getComputedStyle(document.documentElement).getPropertyValue('--suit-D')")
        assert colour.strip() == "#1565c0"
        await page.evaluate("Telegram.WebApp.__back()")
        assert await page.locator("#sheet").is_hidden()
        # back to the foreground: the whole view again (of the same version: nothing moved
        # meanwhile, it is Anna's move); a dropped socket: reconnected, the whole view again
        await server.wait_for(lambda: s.state is not None and s.state.to_act == 0)
        now = s.state.version if s.state is not None else -1
        await page.wait_for_function(f"document.body.dataset.version == '{now}'")
        count = len(frames)
        await page.evaluate("Telegram.WebApp.__fire('activated')")

        def again() -> bool:
            return any(f.get("type") == "view" and f["view"]["version"] == now
                       for f in frames[count:])

        for _ in range(100):
            if again():
                break
            await page.wait_for_timeout(20)
        assert again()
        sockets = len(opened)
        for pages in list(app.webapp.pages.values()):
            for p in list(pages):
                await app.webapp._drop(p, "test")
        count = len(frames)
        for _ in range(200):
            if len(opened) > sockets and any(f.get("type") == "view" for f in frames[count:]):
                break
            await page.wait_for_timeout(20)
        assert len(opened) > sockets and any(f.get("type") == "view" for f in frames[count:])
        calls = await page.evaluate("window.__tg_calls")
        assert any(c.startswith("impact") for c in calls)
        # every view the page received holds only cards its seat may know
        views = [f["view"] for f in frames if f.get("type") == "view"]
        assert len(views) >= moves
        for v in views:
            state = states.get(v["version"])
            if state is not None:
                assert not cards_in(v) - may_know(state, 0), v["version"]
        assert sum(1 for v in views if v["version"] in states) >= moves
        # the same table in the dark theme
        dark = await open_page(browser, f"{base_url(app)}/?game={gid}",
                               init_data(anna, server.token), dark=True)
        await dark.goto(f"{base_url(app)}/?game={gid}")
        await dark.wait_for_selector("#hand .card")
        await dark.wait_for_timeout(300)
        await dark.screenshot(path=str(IMG / "webapp-dark.png"))


async def test_a_group_deal_two_on_pages_one_with_buttons(server: FakeTelegramServer, db: Path,
                                                          browser: Any) -> None:
    """Anna and Boris touch their pages, Vera presses her buttons: one deal of a group
    table to its end, every page in step with every move."""
    from tests.bot.helpers import action_button, open_table, start_private

    anna = server.add_user(1001, "Анна")
    boris = server.add_user(1002, "Борис")
    vera = server.add_user(1003, "Вера")
    group = -100778
    server.add_group(group, "Клуб", members=[anna, boris, vera])
    async with webapp_running(server, db, seed=5) as app:
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, group, anna, [boris, vera])
        s = service(app).sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        pages = {}
        for person in (anna, boris):
            page = await open_page(browser, "", init_data(person, server.token))
            await page.goto(f"{base_url(app)}/?game={gid}")
            await page.wait_for_selector("#hand .card", timeout=10000)
            pages[s.seat_of(person.id)] = page
        touched = pressed = 0
        for _ in range(200):
            st = s.state
            assert st is not None
            if st.history:
                break
            if s.forced and forced_action(st) is not None:  # the bot plays it at once
                await server.wait_for(lambda st=st: s.state is not st)  # type: ignore[misc]
                continue
            for page in pages.values():  # every page shows the table as it is now
                await page.wait_for_function(
                    f"Number(document.body.dataset.version) >= {st.version}", timeout=5000)
            if s.state is not st:
                continue
            seat = st.to_act
            if seat in pages:
                await _my_move(pages[seat])
                touched += 1
            else:
                found = action_button(server, vera, gid, st.version)
                assert found is not None
                msg, button = found
                assert button.callback_data is not None
                answer = await server.press(vera, vera.chat, msg.message_id,
                                            button.callback_data)
                assert answer is not None and answer.text is None
                pressed += 1
            await server.wait_for(lambda st=st: s.state is not st)  # type: ignore[misc]
        st = s.state
        assert st is not None and st.history, "the deal did not end"
        assert touched >= 8 and pressed >= 4
        for page in pages.values():  # the deal's summary on both pages
            await page.wait_for_selector("#summary:not([hidden])", timeout=5000)
            assert "Кон 1" in await page.inner_text("#summary-body")


async def test_a_whole_game_to_its_end_and_a_rematch_from_the_page(
        server: FakeTelegramServer, db: Path, browser: Any) -> None:
    """A solo game played to its end with the page open (Anna's presses on her buttons,
    the computers' moves, the page following every one): the page shows the final — the
    winner, the last trick, the sheet, «Ещё партия» — and that touch starts the next
    game, to which the page moves by itself (``followRematch``: the person's games,
    newest first), showing its new hand; the chat gets the new game as after the sheet's
    button."""
    anna = server.add_user(1003, "Анна")
    async with webapp_running(server, db, seed=5) as app:
        gid = await solo_game(server, app, anna)
        svc = service(app)
        page = await open_page(browser, f"{base_url(app)}/?game={gid}",
                               init_data(anna, server.token))
        frames: list[dict[str, Any]] = []
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda f: frames.append(json.loads(f))))
        await page.goto(f"{base_url(app)}/?game={gid}")
        await page.wait_for_selector("#hand .card", timeout=10000)
        presses = await play(server, app, gid, {0: anna}, seed=5, timeout=20)
        game = await svc.storage.get_game(gid)
        assert game is not None and game.status == "finished", game
        result = await svc.storage.get_result(gid)
        assert result is not None
        # the page has the final: the rematch and the sheet, nothing else to touch
        await page.wait_for_function("document.body.dataset.phase == 'game_over'",
                                     timeout=10000)
        buttons = [t.strip() for t in await page.locator("#panel button").all_inner_texts()]
        assert buttons == ["Ещё партия", "Запись"], buttons
        assert await page.locator("#hand .card.legal").count() == 0
        # the middle: the last deal's last trick, as the summary opens with it (not that
        # deal's talon, which the view still holds: the page showed it there once)
        final = [f["view"] for f in frames if f.get("type") == "view"][-1]
        assert final["over"] and final["deal_last_trick"] is not None
        last = [C.fmt(C.parse(code)) for _, code in final["deal_last_trick"]["cards"]]
        middle = await page.locator("#trick.last .slot svg").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))")
        assert middle == last, (middle, last, final["talon"])
        summary = await page.inner_text("#summary-body")
        assert summary.startswith("Последняя взятка: "), summary
        assert all(card in summary.splitlines()[0] for card in last), summary
        assert "🏆" in await page.inner_text("#note")
        await page.evaluate("Telegram.WebApp.__back()")  # the summary closed
        assert await page.locator("#summary").is_hidden()
        await page.screenshot(path=str(IMG / "webapp-over.png"))
        await page.click("#sheet-btn")
        paper = await page.inner_text("#sheet pre.paper")  # as /score shows it
        totals = json.loads(result.totals)
        assert "Анна" in paper and str(totals[0]) in paper, (paper, totals)
        await page.evaluate("Telegram.WebApp.__back()")
        # «Ещё партия»: a new game, and the page goes to it
        before = set(svc.sessions)
        await page.locator("#panel button", has_text="Ещё партия").click()
        new = await server.wait_for(lambda: next(
            (g for g, s in svc.sessions.items() if g not in before and s.state is not None
             and any(seat.user_id == anna.id for seat in s.seats)), None), 10,
            what="the rematch's game")
        assert new != gid
        await page.wait_for_function(f"document.body.dataset.game == '{new}'", timeout=10000)
        await page.wait_for_selector("#hand .card", timeout=10000)
        assert await page.evaluate("document.body.dataset.phase") != "game_over"
        assert await page.locator("#hand .card").count() >= 7
        # and the chat has the new game's first deal, as after the final sheet's button
        await server.wait_for(lambda: any(
            re.search(r"Кон 1\b", txt(m)) for m in server.chat(anna).bot_messages()[-3:]), 5,
            what="the new game in the chat")
        print(f"a whole game on the page: {presses} presses, then game {new}")
    server.assert_clean()


@pytest.mark.parametrize("first", ["page", "chat"])
async def test_a_group_games_end_on_the_pages_and_its_rematch_from_one(
        server: FakeTelegramServer, db: Path, browser: Any, first: str) -> None:
    """A group game (Anna and Boris, one computer) played to its end while Anna's page
    and Vera's (a member of the group watching) are open: Anna's final offers «Ещё
    партия», Vera's does not.  ``page``: Anna's touch starts the next game in the group —
    pressed where the final sheet is, the group, not Anna's private chat (from there it
    was refused: «Эта кнопка не отсюда») — and her page moves to it.  ``chat``: Boris
    presses the final sheet's «Ещё партия» in the group first; Anna's touch then says
    «Здесь уже идёт партия» and her page moves to that game all the same."""
    from tests.bot.helpers import idle, open_table, start_private

    anna = server.add_user(1011, "Анна")
    boris = server.add_user(1012, "Борис")
    vera = server.add_user(1013, "Вера")
    group = -100779
    server.add_group(group, "Клуб", members=[anna, boris, vera])
    async with webapp_running(server, db, seed=7) as app:
        svc = service(app)
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, group, anna, [boris], computers=1)
        s = svc.sessions[gid]
        await server.wait_for(lambda: s.state is not None)
        pages = {}
        for person in (anna, vera):
            page = await open_page(browser, "", init_data(person, server.token))
            await page.goto(f"{base_url(app)}/?game={gid}")
            await page.wait_for_selector("#trick", timeout=10000)
            await page.wait_for_function("document.body.dataset.game !== undefined")
            pages[person.id] = page
        people = {s.seat_of(p.id): p for p in (anna, boris)}
        await play(server, app, gid, people, seed=7, timeout=20)
        game = await svc.storage.get_game(gid)
        assert game is not None and game.status == "finished", game
        for page in pages.values():
            await page.wait_for_function("document.body.dataset.phase == 'game_over'",
                                         timeout=10000)
            await page.evaluate("Telegram.WebApp.__back()")  # the last deal's summary
        seated = [t.strip() for t in await pages[anna.id].locator(
            "#panel button").all_inner_texts()]
        assert seated == ["Ещё партия", "Запись"], seated
        assert await pages[vera.id].locator("#panel button").count() == 0  # watching
        assert await pages[vera.id].locator("#trick.last .slot").count() == 3
        # refused, and nothing made: a member of the group who is not seated (a forged
        # press: her page shows no such button), a seated person who has left the group
        assert app.webapp is not None
        port = app.webapp.port
        refused = await port.act(gid, WebUser(vera.id, "Вера"), {"kind": "rematch"}, 0)
        assert isinstance(refused, Refusal) and refused.code == "not_seated", refused
        chat = server.chat(group)
        chat.member_ids.remove(boris.id)
        refused = await port.act(gid, WebUser(boris.id, "Борис"), {"kind": "rematch"}, 0)
        assert isinstance(refused, Refusal) and refused.code == "not_member", refused
        assert refused.text == "Стол этой группы видят только её участники."
        chat.member_ids.append(boris.id)  # (back: he may press in the group)
        assert svc.session_of_chat(group) is None
        before = set(svc.sessions)

        def started() -> int | None:
            return next((g for g, x in svc.sessions.items() if g not in before
                         and x.chat_id == group and x.state is not None), None)

        if first == "chat":
            await idle(app)
            final = server.chat(group).last_bot_message()
            assert final is not None and "Партия окончена" in txt(final)
            assert await server.click(boris, final, contains="Ещё партия") is not None
            await server.wait_for(started, 10, what="Boris's next game")
        toasts: list[str] = []  # what the page says (a toast shows for 2.6 s)

        def toasted(text: str) -> None:
            toasts.append(text)

        await pages[anna.id].expose_function("__toasted", toasted)
        await pages[anna.id].evaluate("""new MutationObserver(() => {
            const t = document.getElementById('toast');
            if (!t.hidden) window.__toasted(t.textContent);
        }).observe(document.getElementById('toast'), {attributes: true, childList: true})""")
        await pages[anna.id].locator("#panel button", has_text="Ещё партия").click()
        new = await server.wait_for(started, 10, what="the group's next game")
        await pages[anna.id].wait_for_function(
            f"document.body.dataset.game == '{new}'", timeout=10000)
        await pages[anna.id].wait_for_selector("#hand .card", timeout=10000)
        if first == "chat":
            assert "Здесь уже идёт партия" in toasts, toasts
        else:
            assert toasts == [], toasts  # (before: «Эта кнопка не отсюда…»)
        assert [g for g in svc.sessions if g not in before] == [new]  # one next game
        seats = {x.user_id for x in svc.sessions[new].seats if x.kind == "human"}
        assert seats == {anna.id, boris.id}
    server.assert_clean()
