"""💡 from the page: the hint is the answer; a refused one (stale, not seated, not the
seat's turn, hints off) is a refusal with its code — the page shows it as an error, and the
metrics count it — never a hint's text."""

from __future__ import annotations

from pathlib import Path

from bot.i18n import t
from bot.webapp.auth import WebUser
from bot.webapp.port import Refusal
from tests.bot.helpers import service
from tests.fakeapi import FakeTelegramServer
from tests.webapp.helpers import solo_game, webapp_running


async def test_a_refused_hint_is_a_refusal_and_a_hint_is_an_answer(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris = server.add_user(1001, "Анна"), server.add_user(1002, "Борис")
    async with webapp_running(server, db, seed=2) as app:
        gid = await solo_game(server, app, anna)
        s = service(app).sessions[gid]
        seat = s.seat_of(anna.id)
        await server.wait_for(lambda: s.state is not None and s.state.to_act == seat,
                              what="Анна's turn")
        assert app.webapp is not None
        port = app.webapp.port
        st = s.state
        assert st is not None
        me, other = WebUser(anna.id, "Анна"), WebUser(boris.id, "Борис")
        stale = await port.act(gid, me, {"kind": "hint"}, st.version + 7)
        assert stale == Refusal("stale", t("ru", "popup.stale"))
        alien = await port.act(gid, other, {"kind": "hint"}, st.version)
        assert isinstance(alien, Refusal) and alien.code == "not_seated"
        hint = await port.act(gid, me, {"kind": "hint"}, st.version)
        assert isinstance(hint, str) and hint and "💡" in hint
