"""One press, one edit: the computers' replies to a person's move are shown in the edit
that shows the move (issue 12), with the bot's real ``COMPUTER_MOVE_DELAY`` of 1 s."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.engine.game import forced_action
from bot.engine.state import Action, GameState
from bot.engine.views import view
from bot.tg.rooms.session import Session
from storage.base import Moves
from tests.bot.helpers import action_button, idle, running, service, session, smart, start_private
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser
from tests.fakeapi.server import Button

MESSAGES = ("sendmessage", "editmessagetext", "deletemessage")


def _button(server: FakeTelegramServer, user: FakeUser, gid: int, st: GameState,
            action: Action) -> Callable[[], tuple[FakeMessage, Button] | None]:
    return lambda: action_button(server, user, gid, st.version, action)


def _her_turn(s: Session, st: GameState) -> Callable[[], bool]:
    """Anna (seat 0) acts again after ``st``, or the game is over."""
    return lambda: s.state is not st and (
        s.status != "playing" or (s.state is not None and s.state.to_act == 0))


def _her_turn_shown(server: FakeTelegramServer, user: FakeUser, s: Session,
                    st: GameState) -> Callable[[], bool]:
    """... and her message offers the buttons of that turn."""
    def shown() -> bool:
        if s.state is st:
            return False
        if s.status != "playing":
            return True
        now = s.state
        return now is not None and now.to_act == 0 and \
            action_button(server, user, s.game_id, now.version) is not None
    return shown


async def _solo(server: FakeTelegramServer, app: Any, anna: FakeUser) -> Session:
    """Anna's solo game against two computers, started."""
    await start_private(server, anna)
    await server.send_text(anna, anna, "/newgame 3 full")
    gid = await server.wait_for(lambda: service(app).by_chat.get(anna.id))
    s = session(app, gid)
    assert s is not None
    return s


async def _her_state(server: FakeTelegramServer, s: Session, seconds: float) -> GameState:
    """The state at Anna's next turn that waits for her press (not a forced move)."""
    def waiting() -> GameState | None:
        st = s.state
        if st is None or st.to_act != 0 or (s.forced and forced_action(st) is not None):
            return None
        return st
    return await server.wait_for(waiting, seconds, what="Anna's turn")


async def _her_button(server: FakeTelegramServer, anna: FakeUser, s: Session,
                      st: GameState, action: Action) -> tuple[int, str]:
    """The message and the callback data of the button of ``action`` at ``st``."""
    msg, button = await server.wait_for(_button(server, anna, s.game_id, st, action),
                                        what="her button")
    assert button.callback_data is not None
    return msg.message_id, button.callback_data


async def test_a_press_makes_one_answer_and_one_edit_with_the_replies(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(1201, "Анна")
    async with running(server, db, computer_move_delay=1.0) as app:
        s = await _solo(server, app, anna)
        rng = random.Random(3)
        same_deal = new_deal = 0
        for _ in range(24):
            st = await _her_state(server, s, 10)
            await idle(app)
            action = smart(view(st, 0), rng)
            mid, data = await _her_button(server, anna, s, st, action)
            before = len(server.requests)
            answer = await server.press(anna, anna, mid, data)
            assert answer is not None and answer.text is None
            # her next turn (or the end of the game), shown on her message
            await server.wait_for(_her_turn_shown(server, anna, s, st), 10,
                                  what="the replies")
            await idle(app)
            after = s.state
            assert after is not None
            made = [r.method.lower() for r in server.requests[before:]
                    if r.method.lower() != "getupdates"]
            assert made.count("answercallbackquery") == 1
            shown = [m for m in made if m in MESSAGES]
            if s.status != "playing":
                break
            if after.deal is not None and st.deal is not None \
                    and after.deal.number == st.deal.number:
                # her move and every computer reply up to her next turn: one edit
                assert shown == ["editmessagetext"], (str(action), made)
                same_deal += 1
            else:  # a deal ended: its message is closed and the next deal's is sent
                assert len(shown) <= 2, (str(action), made)
                new_deal += 1
        assert same_deal >= 15
    server.assert_clean()


async def test_replies_to_a_press_are_not_paced(
        server: FakeTelegramServer, db: Path) -> None:
    """Within the merge window the computers answer at once; their replies show with the
    press, so the person does not wait ``COMPUTER_MOVE_DELAY`` per computer."""
    anna = server.add_user(1202, "Анна")
    async with running(server, db, computer_move_delay=5.0) as app:
        s = await _solo(server, app, anna)
        rng = random.Random(5)
        loop_time = asyncio.get_running_loop().time
        for _ in range(6):
            st = await _her_state(server, s, 12)
            action = smart(view(st, 0), rng)
            mid, data = await _her_button(server, anna, s, st, action)
            started = loop_time()
            await server.press(anna, anna, mid, data)
            await server.wait_for(_her_turn(s, st), 12, what="the replies")
            # two computers replied well inside one delay (5 s), not after 2 x 5 s
            assert loop_time() - started < 5.0
            if s.status != "playing":
                break
    server.assert_clean()


async def test_a_press_is_stored_alone_and_its_replies_in_one_transaction(
        server: FakeTelegramServer, db: Path) -> None:
    """The person's move is stored (and answered) first; the computers' replies that follow
    at once, shown in the same edit, are stored together: one ``append_actions`` call,
    one transaction, instead of one each.  The stored game is the live one after each."""
    anna = server.add_user(1203, "Анна")
    async with running(server, db, computer_move_delay=1.0) as app:
        s = await _solo(server, app, anna)
        gid = s.game_id
        store = service(app).storage
        calls: list[tuple[int, bool]] = []  # (actions stored, human) of each transaction
        moves_role = store.moves
        append = moves_role.append

        async def counted(moves: Moves) -> int:  # one call of the role = one transaction
            calls.append((len(moves.actions), moves.human))
            return await append(moves)

        setattr(moves_role, "append", counted)  # noqa: B010
        rng = random.Random(7)
        together = 0
        for _ in range(16):
            st = await _her_state(server, s, 10)
            await idle(app)
            calls.clear()
            action = smart(view(st, 0), rng)
            mid, data = await _her_button(server, anna, s, st, action)
            await server.press(anna, anna, mid, data)
            await server.wait_for(_her_turn_shown(server, anna, s, st), 10,
                                  what="the replies")
            await idle(app)
            made = list(calls)
            assert made[0] == (1, True), made  # her move, alone
            after = s.state
            assert after is not None
            assert sum(n for n, _ in made) == after.version - st.version
            stored = await store.get_game(gid)
            assert stored is not None and stored.version == after.version
            if s.status != "playing":
                break
            replies = made[1:]
            assert all(not human for _, human in replies), made
            assert len(replies) <= 2, made  # (more than REPLIES_MAX moves: a second one)
            if len(replies) == 1 and replies[0][0] >= 2:
                together += 1
        assert together >= 5
    server.assert_clean()
