"""A bid (or a contract) among up to forty values is chosen on one line: − value + and the
button that makes it; a tap steps to the next legal value, a press held runs; nothing
scrolls and the whole line is on the phone's screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.engine.game import legal_actions
from tests.bot.helpers import service
from tests.fakeapi import FakeTelegramServer
from tests.webapp.browser import PHONE, browser, open_page
from tests.webapp.helpers import base_url, init_data, solo_game, webapp_running

__all__ = ["browser"]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"


async def _shown(page: Any) -> tuple[str, str]:
    return (await page.inner_text("#panel .stepper .value"),
            await page.inner_text("#panel .stepper .go"))


async def test_a_bid_is_chosen_on_the_stepper_and_made_by_its_button(
        server: FakeTelegramServer, db: Path, browser: Any) -> None:
    anna = server.add_user(1001, "Анна")
    async with webapp_running(server, db, seed=2) as app:  # (a marriage in hand)
        gid = await solo_game(server, app, anna)
        s = service(app).sessions[gid]
        page = await open_page(browser, f"{base_url(app)}/?game={gid}",
                               init_data(anna, server.token))
        await page.goto(f"{base_url(app)}/?game={gid}")
        await page.wait_for_selector("#panel .stepper", timeout=20000)
        st = s.state
        assert st is not None and st.to_act == s.seat_of(anna.id)
        values = sorted(a.value for a in legal_actions(st) if a.kind == "bid")
        assert len(values) > 8  # many values: the old chips scrolled here
        assert await _shown(page) == (str(values[0]), f"Ставлю {values[0]}")
        assert await page.is_disabled("#panel .stepper .step >> nth=0")  # (− at the lowest)
        await page.screenshot(path=str(IMG / "webapp-bid.png"))
        plus = page.locator("#panel .stepper .step").nth(1)
        minus = page.locator("#panel .stepper .step").nth(0)
        assert await plus.get_attribute("aria-label") == "Больше"
        await plus.click()
        await plus.click()
        assert await _shown(page) == (str(values[2]), f"Ставлю {values[2]}")
        await minus.click()
        assert await _shown(page) == (str(values[1]), f"Ставлю {values[1]}")
        box = await plus.bounding_box()
        assert box is not None
        await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await page.mouse.down()  # held: it runs
        await page.wait_for_timeout(1200)
        await page.mouse.up()
        held = int((await _shown(page))[0])
        assert held in values and values.index(held) >= 5
        # the whole line is on the screen, nothing in the panel scrolls
        for sel in ("#panel .stepper .step >> nth=0", "#panel .stepper .go",
                    "#panel button.alt >> nth=0"):
            b = await page.locator(sel).bounding_box()
            assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"]
            assert b["y"] + b["height"] <= PHONE["height"]
        assert await page.evaluate(
            "[...document.querySelectorAll('#panel, #panel .chips')]"
            ".every(e => e.scrollHeight <= e.clientHeight + 1)")
        seat = s.seat_of(anna.id)
        await page.click("#panel .stepper .go")

        def made() -> bool:
            now = s.state
            return now is not None and now.deal is not None and (seat, held) in now.deal.bids

        await server.wait_for(made, 10, what="the bid made from the stepper")
