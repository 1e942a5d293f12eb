"""Hypothesis fuzzes callback data against a running game (issue 8).

Any data of at most 64 bytes (random bytes, random text, and real button data of this and
other games with random versions), from any chat (the game's group, a private chat, another
group, an inline message), by any user: every press is answered, and none changes the game,
its record or any message — unless it is exactly the legal move of the seat to act, pressed
by that seat's person in their own private chat, which such a fuzzer never produces by
accident and which is excluded.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.views import view
from bot.tg.io.app import ThousandApplication
from bot.tg.view.callbacks import ACT, PAGE, decode, encode_action
from tests.bot.helpers import idle, open_table, running, service, session, start_private
from tests.fakeapi import FakeTelegramServer

GROUP = -700100
OTHER = -700200
VERBS = ["a", "h", "s", "j", "l", "c", "d", "n", "p", "v", "st", "x", "m", "r", "pg", "zz", ""]


def _fit(text: str) -> str:
    """``text`` cut to at most 64 UTF-8 bytes (Telegram's limit for callback data)."""
    data = text.encode()[:64]
    return data.decode("utf-8", "ignore")


def _forged(gid: int) -> st.SearchStrategy[str]:
    near = st.builds(
        lambda g, v, verb, arg: f"g{g}:{v}:{verb}:{arg}",
        st.sampled_from([gid, gid + 1, 1, 0, 10**17]),
        st.integers(min_value=-1, max_value=400),
        st.sampled_from(VERBS),
        st.one_of(st.sampled_from(["", "ps", "dk", "lt", "rd", "kp", "cs", "b100", "b120",
                                   "p0", "p23", "m11", "g5", "x7", "c200", "t1", "4", "full",
                                   "hard", "m", "l", "s1", "r0", "0.1", "99.99"]),
                  st.text(max_size=12)),
    )
    return st.one_of(
        st.binary(max_size=64).map(lambda b: _fit(b.decode("utf-8", "replace"))),
        st.text(max_size=64).map(_fit),
        near.map(_fit),
    )


@contextlib.asynccontextmanager
async def _table(server: FakeTelegramServer, db: Path) -> AsyncIterator[
        tuple[ThousandApplication, int]]:
    anna, boris = server.add_user(7001, "Анна"), server.add_user(7002, "Борис")
    mallory = server.add_user(7003, "Мэллори")
    server.add_group(GROUP, "Друзья", members=[boris, mallory], admins=[anna])
    server.add_group(OTHER, "Чужие", members=[mallory], admins=[mallory])
    async with running(server, db) as app:
        await start_private(server, anna, boris, mallory)
        gid, _ = await open_table(server, app, GROUP, anna, [boris], computers=1)
        s = session(app, gid)
        assert s is not None
        # wait for a person to be on turn (computers move at once); the state then holds
        await server.wait_for(lambda: s.state is not None
                              and not s.seats[s.state.to_act].computer)
        await idle(app)
        yield app, gid


async def test_fuzzed_presses_change_nothing(server: FakeTelegramServer, db: Path) -> None:
    async with _table(server, db) as (app, gid):
        s = session(app, gid)
        assert s is not None and s.state is not None
        st0 = s.state
        to_act = st0.to_act
        owner = s.seats[to_act].user_id
        legal = {encode_action(a) for a in view(st0, to_act).legal}
        users = [u.id for u in server.users]
        chats = [GROUP, OTHER, *users]
        store = service(app).storage
        game0 = await store.get_game(gid)
        requests0 = len(server.requests)
        answered = 0

        def counts(data: str, chat: int | None, user: int) -> bool:
            """The seat's own legal move, or a page of its own buttons (an edit of its
            hand message, no change of the game): excluded."""
            c = decode(data)
            return (c is not None and c.game_id == gid and c.version == st0.version
                    and ((c.verb == ACT and c.arg in legal) or c.verb == PAGE)
                    and user == owner and chat == owner)

        @settings(max_examples=150, deadline=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow])
        @given(data=_forged(gid), chat=st.sampled_from([*chats, None]),
               user=st.sampled_from(users))
        def one(data: str, chat: int | None, user: int) -> None:
            if counts(data, chat, user):
                return
            fut = asyncio.run_coroutine_threadsafe(_press(server, data, chat, user), loop)
            nonlocal answered
            answered += fut.result(timeout=30)

        loop = asyncio.get_running_loop()
        await asyncio.to_thread(one)
        await idle(app)
        assert answered > 100
        assert s.state is st0 and session(app, gid) is s
        game1 = await store.get_game(gid)
        assert game0 is not None and game1 is not None
        assert (game1.version, game1.seats, game1.status, game1.lobby_rev) == \
               (game0.version, game0.seats, game0.status, game0.lobby_rev)
        sent = [r for r in server.requests[requests0:]
                if r.method in ("sendMessage", "editMessageText", "editMessageReplyMarkup",
                                "deleteMessage")]
        assert sent == [], [(r.method, r.params) for r in sent]
        assert not server.unanswered_callbacks
        await server.send_text(server.user(7001), GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
    server.assert_clean()


async def _press(server: FakeTelegramServer, data: str, chat: int | None, user: int) -> int:
    """One press; 1 when it was answered (the test fails on a press left unanswered)."""
    if chat is None:
        q = server.press_inline(server.user(user), "AAQAAAB", data)
    else:
        target = server.chat(chat)
        last = target.last_bot_message()
        mid = last.message_id if last is not None else 1
        q = server.press_nowait(server.user(user), target, mid, data, strict=False)
    answer = await server.wait_answer(q, 10)
    assert answer is not None, f"no answer to {data!r} from {chat} by {user}"
    return 1
