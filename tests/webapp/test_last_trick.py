"""At a deal's end the page keeps that deal's last trick in the middle until the next
deal's first card, as every trick stays until the next lead; its summary opens with it."""

from __future__ import annotations

from pathlib import Path

from bot.ai.explain import play_of_deal
from bot.engine import cards as C
from bot.engine.game import apply
from bot.webapp.adapter import ServicePort
from bot.webapp.payload import card_code, seat_payload
from bot.webapp.port import SeatView
from tests.bot.helpers import open_table, play, running, service, session, start_private
from tests.fakeapi import FakeTelegramServer

GROUP = -400177


async def test_the_finished_deals_last_trick_stays_in_the_middle_until_the_next_lead(
        server: FakeTelegramServer, db: Path) -> None:
    people = [server.add_user(2201 + i, name)
              for i, name in enumerate(["Анна", "Борис", "Вера"])]
    server.add_group(GROUP, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=24) as app:
        await start_private(server, *people)
        gid, _ = await open_table(server, app, GROUP, people[0], people[1:], args="3")
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id) for i in range(3)}
        port = ServicePort(service(app))

        async def payload(seat: int) -> dict[str, object]:
            sv = await port.seat_view(gid, seats[seat].id)
            assert isinstance(sv, SeatView)
            return seat_payload(sv)

        while True:  # people press until the first deal that is played out ends
            s = session(app, gid)
            assert s is not None and s.state is not None
            played = [h for h in s.state.history if h.outcome in ("made", "failed")]
            if played:
                break
            assert await play(server, app, gid, seats, seed=24, max_moves=1, timeout=20) == 1
        st = s.state
        n = played[0].number
        assert st.deal is not None and st.deal.number == n + 1 and not st.deal.tricks
        before, moves = play_of_deal(st, n)  # the trick before its last card, and that card
        for seat, action in moves[:-1]:
            before = apply(before, action, seat)
        d = before.deal
        assert d is not None
        cards = (*d.trick, (moves[-1][0], moves[-1][1].card))
        won = cards[C.trick_winner_index([c for _, c in cards],
                                         d.trump if d.trump >= 0 else None)][0]
        want = {"cards": [[x, card_code(c)] for x, c in cards], "winner": won}
        for seat in range(3):
            v = await payload(seat)
            assert v["deal_last_trick"] == want and v["last_trick"] is None
            assert str(v["summary"]).startswith("Последняя взятка: ")
        # the bidding of the next deal: still there; its first card: gone
        while True:
            st = s.state
            assert st is not None and st.deal is not None and st.deal.number == n + 1
            if st.deal.trick:
                break
            assert (await payload(st.to_act))["deal_last_trick"] == want
            assert await play(server, app, gid, seats, seed=24, max_moves=1, timeout=20) == 1
        v = await payload(0)
        assert v["deal_last_trick"] is None and v["trick"]
