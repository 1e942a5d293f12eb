"""Group tables on the fake Bot API server: lobbies, whole games, the people in them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ai.explain import play_of_deal
from bot.engine import cards as C
from bot.engine.game import apply
from bot.tg.view.render import card_text
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
from tests.fakeapi import FakeMessage, FakeTelegramServer

GROUP = -400100


# seeds whose games (people playing tests.bot.helpers.smart) end in 12-20 deals
@pytest.mark.parametrize(("players", "seed"), [(3, 24), (2, 26), (4, 44)])
async def test_group_game_played_to_its_end(server: FakeTelegramServer, db: Path,
                                            players: int, seed: int) -> None:
    people = [server.add_user(2001 + i, name)
              for i, name in enumerate(["Анна", "Борис", "Вера", "Глеб"][:players])]
    server.add_group(GROUP, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=seed) as app:
        await start_private(server, *people)
        gid, table = await open_table(server, app, GROUP, people[0], people[1:],
                                      args=str(players))
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id)
                 for i in range(players)}
        # every person got a private hand message; the group only the table
        for p in people:
            await server.wait_bot_message(p, predicate=lambda m: "Кон 1" in (m.text or ""))
        assert "Кон 1" in txt(table)
        presses = await play(server, app, gid, seats, seed=seed, timeout=20)
        assert presses > 30
        await idle(app)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        final = server.chat(GROUP).last_bot_message()
        assert final is not None and "🏆" in txt(final)
        for p in people:
            last = server.chat(p).last_bot_message()
            assert last is not None and "🏆" in txt(last)
        # hands never reached the group: no "Ваши карты" line there, ever
        for m in server.chat(GROUP).bot_messages():
            assert "Ваши карты" not in txt(m)
            assert all("Ваши карты" not in (old.text or "") for old in m.history)
    server.assert_clean()


async def test_a_deals_summary_opens_with_its_last_trick_and_who_took_it(
        server: FakeTelegramServer, db: Path) -> None:
    """The table goes from the last trick's first cards to the summary: the summary, in the
    group and in each hand, opens with that trick, its last card and who took it."""
    people = [server.add_user(2101 + i, name)
              for i, name in enumerate(["Анна", "Борис", "Вера"])]
    server.add_group(GROUP, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=24) as app:
        await start_private(server, *people)
        gid, _ = await open_table(server, app, GROUP, people[0], people[1:], args="3")
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id) for i in range(3)}
        while True:  # to the end of the first deal that is played out
            s = session(app, gid)
            assert s is not None and s.state is not None
            played = [h for h in s.state.history if h.outcome in ("made", "failed")]
            if played:
                break
            assert await play(server, app, gid, seats, seed=24, max_moves=1, timeout=20) == 1
        await idle(app)
        s = session(app, gid)
        assert s is not None and s.state is not None
        n = played[0].number
        # the trick as the table held it before its last card, and that card
        before, moves = play_of_deal(s.state, n)
        for seat, action in moves[:-1]:
            before = apply(before, action, seat)
        d = before.deal
        assert d is not None and len(d.trick) == 2
        cards = (*d.trick, (moves[-1][0], moves[-1][1].card))
        won = C.trick_winner_index([c for _, c in cards], d.trump if d.trump >= 0 else None)
        names = [seats[i].first_name for i in range(3)]

        def line(me: int, you: str = "вы") -> str:
            said = [you if i == me else names[i] for i in range(3)]
            played = " · ".join(f"{said[x]} {card_text(c)}" for x, c in cards)
            return f"Последняя взятка: {played} → {said[cards[won][0]]}"

        def summary(m: FakeMessage) -> bool:
            lines = txt(m).split("\n")
            return len(lines) > 1 and lines[1].startswith(f"Кон {n} — ")

        group = [m for m in server.chat(GROUP).bot_messages() if summary(m)]
        assert len(group) == 1 and txt(group[0]).split("\n")[0] == line(-1)
        for i, person in seats.items():
            hand = [m for m in server.chat(person).bot_messages() if summary(m)]
            assert len(hand) == 1 and txt(hand[0]).split("\n")[0] == line(i), person.first_name
    server.assert_clean()
