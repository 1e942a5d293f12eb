"""A table's own pace (issue 19, part 1): quick, normal and unhurried tables, the "your
move" ping told once and deleted when the move is made, the pace kept across a kill, the
keepers' /pace, and the table pinned silently while the game is on."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from collections.abc import Callable
from pathlib import Path

from bot.engine.game import forced_action
from bot.engine.state import Action, GameState
from bot.engine.views import view
from bot.tg.io.app import ThousandApplication
from bot.tg.model import deal_number
from bot.tg.rooms.service import Session
from bot.tg.rooms.session import Shown
from storage import Storage
from tests.bot.helpers import (
    action_button,
    click_data,
    idle,
    lobby_main,
    lobby_more,
    lobby_setting,
    open_table,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.bot.test_e2e_restart import _bot_process as _restart_process
from tests.bot.test_e2e_restart import stop_process
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -1002019001
ROOT = Path(__file__).resolve().parents[2]


def pings(server: FakeTelegramServer, user: FakeUser) -> list[FakeMessage]:
    """The private "your move" pings and reminders the bot sent to ``user`` (deleted ones
    too): a message that began with 🔔 or ⏰."""
    return [m for m in server.sent_by_bot(user)
            if (m.first_text or m.text or "").startswith(("🔔", "⏰"))]


def people_of(server: FakeTelegramServer) -> tuple[FakeUser, FakeUser, FakeUser]:
    anna = server.add_user(19001, "Анна")
    boris = server.add_user(19002, "Борис")
    vera = server.add_user(19003, "Вера")
    return anna, boris, vera


async def records(app: ThousandApplication, gid: int) -> list[dict[str, object]]:
    return [json.loads(r) for r in await service(app).storage.actions(gid)]


async def take_turns(server: FakeTelegramServer, app: ThousandApplication, gid: int,
                     people: dict[int, FakeUser], *,
                     gap: Callable[[int, int], float] = lambda seat, n: 0.0,
                     until: Callable[[Session], bool] = lambda s: False,
                     on_turn: Callable[[int, int, int], None] | None = None,
                     timeout: float = 20.0) -> int:
    """People press the ``smart`` move until the game ends (or ``until``); a person waits
    ``gap(seat, n)`` seconds before their n-th press.  ``on_turn(seat, pings before,
    pings after)`` is called after each press, once the move was made and the turn's ping
    deleted.  Returns the presses."""
    rng = random.Random(7)
    presses: dict[int, int] = {}
    while True:
        s = session(app, gid)
        if s is None or s.status != "playing" or s.state is None or until(s):
            return sum(presses.values())
        st = s.state

        def moved(s: Session = s, st: GameState = st) -> bool:
            return session(app, gid) is not s or s.state is not st

        seat = st.to_act
        user = people.get(seat)
        if user is None or s.seats[seat].auto or (s.forced and forced_action(st) is not None):
            await server.wait_for(moved, timeout, what="a move made by the bot")
            continue
        action = smart(view(st, seat), rng)
        before = len(pings(server, user))  # (the turn began: no ping of it yet)

        def ready(user: FakeUser = user, st: GameState = st, action: Action = action,
                  moved: Callable[[], bool] = moved) -> object:
            return action_button(server, user, gid, st.version, action) or moved()

        found = await server.wait_for(ready, timeout, what=f"{user.first_name}'s button")
        if not isinstance(found, tuple):
            continue
        n = presses.get(seat, 0)
        wait = gap(seat, n)
        if wait:
            await asyncio.sleep(wait)
        msg, button = found
        assert button.callback_data is not None
        answer = await server.press(user, user.chat, msg.message_id, button.callback_data)
        assert answer is not None and answer.text is None, answer
        presses[seat] = n + 1
        await server.wait_for(moved, timeout, what="the accepted move")
        mine = pings(server, user)

        def gone(mine: list[FakeMessage] = mine) -> bool:
            return all(m.deleted for m in mine)

        # the turn is over: its ping (if any) is deleted
        try:
            await server.wait_for(gone, timeout, what="the answered ping deleted")
        except TimeoutError:
            left = [(m.message_id, m.first_text, m.text) for m in mine if not m.deleted]
            raise AssertionError(f"{user.first_name}: pings not deleted: {left}; "
                                 f"{session(app, gid)}") from None
        if on_turn is not None:
            on_turn(seat, before, len(mine))


async def test_an_unhurried_table_waits_for_a_slow_person_and_reaches_its_winner(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    gaps = 0
    per_turn: list[tuple[int, int]] = []  # (seat, pings this turn)

    def gap(seat: int, n: int) -> float:
        nonlocal gaps
        if seat == 2 and n % 10 == 5:  # Вера answers only after a long gap now and then
            gaps += 1
            return 2.6  # > TURN_TIMEOUT, > UNHURRIED_PING_AFTER
        return 0.0

    def on_turn(seat: int, before: int, after: int) -> None:
        per_turn.append((seat, after - before))

    async with running(server, db, seed=5, turn_timeout=0.6, quick_turn_timeout=0.3,
                       unhurried_ping_after=2.0, unhurried_ping_again=60,
                       ping_quiet=0.0) as app:
        await start_private(server, anna, boris, vera)
        gid, lobby = await open_table(server, app, GROUP, anna, [boris, vera], start=False)
        assert "Темп" not in str(lobby.button_texts)  # one press away: «⚙️ Ещё…»
        await lobby_more(server, anna, lobby)
        assert "⏱ Темп: обычный" in str(lobby.button_texts)
        assert await click_data(server, anna, lobby, ":tp:unhurried") is None
        assert "⏱ Темп: без спешки" in str(lobby.button_texts)
        await lobby_main(server, anna, lobby)
        assert await click_data(server, anna, lobby, ":st:") is None
        s = session(app, gid)
        assert s is not None and s.pace == "unhurried"
        await server.wait_for(lambda: "Темп стола: без спешки" in txt(lobby),
                              what="the pace on the table, once")
        assert txt(lobby).count("без спешки") == 1 and "UTC" not in txt(lobby)
        await take_turns(server, app, gid, {0: anna, 1: boris, 2: vera}, gap=gap,
                         on_turn=on_turn, timeout=30)
        game = await service(app).storage.get_game(gid)
        assert game is not None and game.status == "finished"
        winners = [r for r in await service(app).storage.score_sheet(gid)]
        assert winners, "a finished game has its sheet"
        by = {r.get("by") for r in await records(app, gid) if "a" in r}
        assert by <= {"h", "f"}, by  # no computer move for any person: no "t", no "a"
        assert gaps >= 3
        assert all(n <= 1 for _, n in per_turn), per_turn  # at most one ping a turn
        slow = [n for seat, n in per_turn if seat == 2]
        assert sum(slow) == gaps  # exactly the long gaps were pinged
        assert not pings(server, anna) and not pings(server, boris)  # fast: never pinged
        assert all(m.deleted for m in pings(server, vera))
        text = pings(server, vera)[0].first_text or ""
        assert "Вечер" in text and "🔔" in text
        await idle(app)
    server.assert_clean()


async def test_unhurried_reminds_again_after_hours_one_message_at_a_time(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    async with running(server, db, seed=6, turn_timeout=0.3, unhurried_ping_after=0.4,
                       unhurried_ping_again=1.2, ping_quiet=0.0) as app:
        await start_private(server, anna, boris, vera)
        gid, lobby = await open_table(server, app, GROUP, anna, [boris, vera], start=False)
        await server.send_text(anna, GROUP, "/pace unhurried")
        await server.wait_bot_message(GROUP, predicate=lambda m: "без спешки" in txt(m))
        assert await click_data(server, anna, lobby, ":st:") is None
        s = session(app, gid)
        assert s is not None and s.state is not None and s.pace == "unhurried"
        seat = s.state.to_act
        who = {0: anna, 1: boris, 2: vera}[seat]
        version = s.state.version
        first = await server.wait_for(lambda: pings(server, who) or None, 5, what="ping 1")
        assert len(first) == 1 and not first[0].deleted
        await idle(app)
        await service(app).restore.sweep()  # (the seated people's private chats are kept)
        def two() -> list[FakeMessage] | None:
            mine = pings(server, who)
            return mine if len(mine) == 2 else None

        both = await server.wait_for(two, 5, what="ping 2")
        assert both[0].deleted and not both[1].deleted  # one out at a time
        assert "всё ещё ждёт" in txt(both[1])
        await asyncio.sleep(1.0)
        assert len(pings(server, who)) == 2  # and no more
        assert s.state.version == version  # nothing was moved for them
        await take_turns(server, app, gid, {seat: who},
                         until=lambda x: x.state is not None and x.state.version > version)
        assert all(m.deleted for m in pings(server, who))
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_a_quick_table_puts_an_absent_seat_on_autopilot_after_two_timeouts(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    async with running(server, db, seed=8, turn_timeout=600, quick_turn_timeout=0.8) as app:
        await start_private(server, anna, boris, vera)
        gid, lobby = await open_table(server, app, GROUP, anna, [boris, vera], start=False)
        await lobby_more(server, anna, lobby)
        for _ in range(2):  # normal -> unhurried -> quick
            assert await click_data(server, anna, lobby, ":tp:") is None
        assert "⏱ Темп: быстрый" in str(lobby.button_texts)
        await lobby_main(server, anna, lobby)
        assert await click_data(server, anna, lobby, ":st:") is None
        s = session(app, gid)
        assert s is not None and s.pace == "quick"
        await take_turns(server, app, gid, {0: anna, 1: boris},
                         until=lambda x: x.seats[2].auto, timeout=20)
        assert s.seats[2].auto and s.seats[2].why == "away"
        timed_out = [r for r in await records(app, gid) if r.get("by") == "t"]
        assert len(timed_out) == 2 and all(r["s"] == 2 for r in timed_out)
        # one private line a turn for Вера at most: the reminder, then the autopilot's
        assert 1 <= len(pings(server, vera)) <= 2
        await server.wait_for(lambda: "автопилот" in txt(lobby).lower()
                              or "за вер" in txt(lobby).lower() or "🤖" in txt(lobby),
                              what="the autopilot on the table")
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_a_fast_player_is_never_pinged_and_a_ping_goes_with_the_move(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    seen: list[tuple[int, int]] = []
    async with running(server, db, seed=9, turn_timeout=600, ping_quiet=2.0) as app:
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None and s.pace == "normal"

        def gap(seat: int, n: int) -> float:
            return 3.0 if seat == 2 and n == 4 else 0.0  # Вера thinks once, a long time

        await take_turns(server, app, gid, {0: anna, 1: boris, 2: vera}, gap=gap,
                         on_turn=lambda seat, b, a: seen.append((seat, a - b)),
                         until=lambda x: len(seen) >= 24)
        assert not pings(server, anna) and not pings(server, boris)
        mine = pings(server, vera)
        assert len(mine) == 1 and mine[0].deleted  # pinged once, deleted with the move
        assert "🔔" in (mine[0].first_text or "") and "Вечер" in (mine[0].first_text or "")
        assert [n for seat, n in seen if seat == 2].count(1) == 1
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_pace_by_an_ordinary_member_is_refused(server: FakeTelegramServer,
                                                     db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    async with running(server, db, seed=10) as app:
        await start_private(server, anna, boris, vera)
        gid, table = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None
        before = await records(app, gid)
        last = server.chat(GROUP).last_bot_message()
        await server.send_text(boris, GROUP, "/pace quick")
        refusal = await server.wait_bot_message(GROUP, after=last)
        assert "Менять темп стола может его создатель или админ" in txt(refusal)
        assert s.pace == "normal" and await records(app, gid) == before
        await server.send_text(boris, GROUP, "/pace")  # anyone may ask
        told = await server.wait_bot_message(GROUP, after=refusal)
        assert "Темп стола: обычный" in txt(told)
        await server.send_text(anna, GROUP, "/pace быстрый")  # the creator may (any language)
        done = await server.wait_bot_message(GROUP, after=told)
        assert "быстрый" in txt(done) and s.pace == "quick"
        rec = (await records(app, gid))[-1]
        assert rec == {"pace": "quick", "uid": anna.id}
        await server.wait_for(lambda: "Темп стола теперь: быстрый" in txt(table))
        await server.send_text(anna, GROUP, "/pace как-нибудь")  # the words to use, in Russian
        unknown = await server.wait_bot_message(GROUP, after=done)
        assert "Можно быстрый, обычный или без спешки." in txt(unknown) and s.pace == "quick"
        await server.send_text(anna, GROUP, "/pace неспешный")  # another Russian word for it
        slow = await server.wait_bot_message(GROUP, after=unknown)
        assert "без спешки" in txt(slow) and s.pace == "unhurried"
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def test_the_table_is_pinned_silently_and_unpinned_at_the_end(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna],
                     bot_status="administrator")
    async with running(server, db, seed=11) as app:
        await start_private(server, anna, boris, vera)
        gid, table = await open_table(server, app, GROUP, anna, [boris, vera])
        await server.wait_for(lambda: table.pinned, what="the table pinned")
        assert table.pin_silent  # (disable_notification)
        s = session(app, gid)
        assert s is not None and s.state is not None
        await take_turns(server, app, gid, {0: anna, 1: boris, 2: vera},
                         until=lambda x: x.state is not None and deal_number(x.state) >= 2)
        # the next deal's table is pinned, the last one's unpinned
        def next_table() -> Shown | None:  # (its id is stored once it is sent)
            shown = s.messages.table
            return shown if shown is not None and shown.deal >= 2 else None

        shown = await server.wait_for(next_table, what="the next deal's table")
        new = server.message(GROUP, shown.message_id)
        await server.wait_for(lambda: new.pinned and not table.pinned, what="the new pin")
        await server.send_text(anna, GROUP, "/pace unhurried")
        await server.wait_for(lambda: "Темп стола теперь: без спешки" in txt(new))
        await asyncio.sleep(0.3)
        for m in server.sent_by_bot(GROUP):  # the transcript, as the group reads it
            print(f"--- group #{m.message_id}{' (pinned)' if m.pinned else ''}\n{txt(m)}")
        for m in server.sent_by_bot(vera):
            print(f"--- Вера #{m.message_id}{' (deleted)' if m.deleted else ''}\n{txt(m)}")
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: not new.pinned, what="unpinned at the end")
        assert not any(m.pinned for m in server.bot_messages(GROUP))
        await idle(app)
    server.assert_clean()


async def test_no_pin_and_no_error_spam_when_the_bot_may_not_pin(
        server: FakeTelegramServer, db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])  # a member
    async with running(server, db, seed=12) as app:
        await start_private(server, anna, boris, vera)
        gid, _ = await open_table(server, app, GROUP, anna, [boris, vera])
        s = session(app, gid)
        assert s is not None
        await take_turns(server, app, gid, {0: anna, 1: boris, 2: vera},
                         until=lambda x: x.state is not None and deal_number(x.state) >= 2)
        await server.send_text(anna, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
        assert not server.calls("pinChatMessage")  # the bot's rights were asked, once
        asked = [r for r in server.calls("getChatMember")
                 if r.params.get("user_id") == service(app).kit.bot.id]
        assert len(asked) == 1
        assert not server.calls("unpinChatMessage") and not server.errors
        assert not any(m.pinned for m in server.bot_messages(GROUP))
    server.assert_clean()


# ------------------------------------------------------------------------- a kill


async def _bot_process(server: FakeTelegramServer, db: Path) -> asyncio.subprocess.Process:
    """The restart tests' bot process, quick = 1.5 s, no computer delay, a long turn."""
    return await _restart_process(server, db, COMPUTER_MOVE_DELAY="0",
                                  GROUP_MESSAGES_PER_MINUTE="100000", TURN_TIMEOUT="600",
                                  QUICK_TURN_TIMEOUT="1.5")


async def test_the_pace_and_its_change_survive_a_kill(server: FakeTelegramServer,
                                                      db: Path) -> None:
    anna, boris, vera = people_of(server)
    server.add_group(GROUP, "Вечер", members=[boris, vera], admins=[anna])
    proc = await _bot_process(server, db)
    try:
        for u in (anna, boris, vera):
            await server.send_text(u, u, "/start")
            await server.wait_bot_message(u, timeout=20)
        await server.send_text(anna, GROUP, "/newgame")
        lobby = await server.wait_bot_message(
            GROUP, timeout=20,
            predicate=lambda m: any(":j:" in (b.callback_data or "") for b in m.all_buttons))
        for p in (boris, vera):
            assert await click_data(server, p, lobby, ":j:") is None
        await lobby_setting(server, anna, lobby, ":tp:unhurried")
        assert await click_data(server, anna, lobby, ":st:") is None
        await server.wait_for(lambda: "без спешки" in txt(lobby), 10)
        proc.send_signal(signal.SIGKILL)  # the lobby's pace must be stored already
        await asyncio.wait_for(proc.wait(), 10)
        async with Storage.open(db) as store:
            game = (await store.games_in_progress())[0]
            assert json.loads(game.message_ids)["pace"] == "unhurried"
        proc = await _bot_process(server, db)
        await server.send_text(anna, GROUP, "/pace")
        told = await server.wait_bot_message(GROUP, timeout=20,
                                             predicate=lambda m: "Темп стола:" in txt(m))
        assert "без спешки" in txt(told)
        await server.send_text(anna, GROUP, "/pace quick")
        await server.wait_for(lambda: any("Темп стола теперь: быстрый" in txt(m)
                                          for m in server.bot_messages(GROUP)), 20)
        assert "Темп стола теперь: быстрый" in txt(lobby)  # the lobby message is the table
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 10)
        async with Storage.open(db) as store:
            game = (await store.games_in_progress())[0]
            log = [json.loads(r) for r in await store.actions(game.game_id)]
            assert {"pace": "quick", "uid": anna.id} in log
            version = game.version
        # a new process: the table is quick (nobody presses: the 1.5 s run out, and the
        # computer moves for the person to act), and the change is still on the table
        proc = await _bot_process(server, db)
        async with Storage.open(db) as store:
            async def moved() -> bool:
                g = await store.get_game(game.game_id)
                return g is not None and g.version > version
            for _ in range(200):
                if await moved():
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("no move for the absent person at the quick pace")
            log = [json.loads(r) for r in await store.actions(game.game_id)]
            assert any(r.get("by") == "t" for r in log)
        await server.wait_for(lambda: "быстрый" in txt(lobby) or any(
            "быстрый" in txt(m) for m in server.bot_messages(GROUP)), 10)
    finally:
        await stop_process(proc)
    server.assert_clean(allow_not_modified=True)
