"""Several processes, one truth (issue 13): two game services in one test process share
one database (as two bot processes do: a SQLite file, and PostgreSQL when
THOUSAND_TEST_PG_URL names a server) and talk to one fake Bot API.
Updates are handed to either service, as a load balancer would; what the handlers do first
(``touch_chat``) is done here too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from telegram import Bot

from bot.tg.io.coord import SharedCoordinator, SharedSends
from bot.tg.io.outbox import Outbox
from bot.tg.io.thinking import Thinker
from bot.tg.rooms.service import ChatRef, GameService, UserRef, Where
from bot.tg.view import render as R
from storage import Backend, Storage
from storage.postgres import PostgresStorage
from tests.bot.helpers import txt
from tests.fakeapi import SLOW, FakeTelegramServer, FakeUser
from tests.pg import create_database, drop_database, server_url

GROUP = -700100


@dataclass
class Proc:
    name: str
    service: GameService
    storage: Backend
    bot: Bot
    thinker: Thinker

    @property
    def coord(self) -> SharedCoordinator:
        assert isinstance(self.service.coord, SharedCoordinator)
        return self.service.coord

    async def command(self, user: FakeUser, chat_id: int, name: str,
                      args: list[str] | None = None) -> None:
        chat = ChatRef(chat_id, "private") if chat_id > 0 else ChatRef(chat_id, "supergroup")
        ref = UserRef(user.id, user.first_name, language_code="ru")
        await self.service.touch_chat(chat_id)
        if name == "start":
            await self.service.commands.start_cmd(ref, "")
        elif name == "newgame":
            await self.service.commands.newgame(chat, ref, args or [])
        elif name == "stop":
            await self.service.commands.stop(chat, ref)

    async def press(self, user: FakeUser, chat_id: int, message_id: int,
                    data: str) -> str | None:
        await self.service.touch_chat(chat_id)
        ref = UserRef(user.id, user.first_name, language_code="ru")
        answer = await self.service.press(data, ref, Where(chat_id, message_id))
        return answer.text

    async def die(self) -> None:
        """The process is killed: its tasks stop, nothing is cleaned up or released."""
        svc = self.service
        svc.kit.tasks.closing = True
        tasks = [t for t in (*svc.kit.tasks.all, *svc.restore.background) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await svc.outbox.close()


@pytest.fixture(params=["sqlite", "postgres"])
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """The shared database: a SQLite file, or a new PostgreSQL database (skipped without
    a server)."""
    if request.param == "sqlite":
        yield str(tmp_path / "shared.sqlite3")
        return
    server = server_url()
    url = await create_database(server)
    try:
        yield url
    finally:
        await drop_database(server, url)


@contextlib.asynccontextmanager
async def process(server: FakeTelegramServer, db: str, name: str, *, move_delay: float = 0.0,
                  group_per_minute: int = 100000, window: float = 60.0
                  ) -> AsyncIterator[Proc]:
    storage: Backend = await (PostgresStorage.open(db) if db.startswith("postgresql")
                              else Storage.open(db))
    bot = Bot(server.token, base_url=server.base_url)
    await bot.initialize()
    api: Any = bot  # (python-telegram-bot's Bot is the outbox's BotLike)
    outbox = Outbox(api, group_per_minute=group_per_minute, window=window)
    outbox.shared = SharedSends(storage, name)
    thinker = Thinker(workers=1, budget=0.2)
    coord = SharedCoordinator(storage, name, ttl=1.5, renew_every=0.4, claim_every=0.3)
    svc = GameService(storage, outbox, thinker, bot=bot, move_delay=move_delay,
                      computer_level="random", turn_timeout=600, rng=random.Random(name),
                      coord=coord)
    await svc.start()
    proc = Proc(name, svc, storage, bot, thinker)
    try:
        yield proc
    finally:
        if not svc.kit.tasks.closing:
            await svc.close()
            await svc.outbox.close()
        thinker.close()
        await bot.shutdown()
        await storage.close()


def moves(server: FakeTelegramServer, user: FakeUser) -> tuple[int, str, int] | None:
    """The newest private message of ``user`` offering moves: (message id, data, version)."""
    for msg in reversed(server.chat(user).bot_messages()[-3:]):
        datas = [b.callback_data for b in msg.all_buttons
                 if b.callback_data and ":a:" in b.callback_data]
        if datas:
            return msg.message_id, datas[0], int(datas[0].split(":")[1])
    return None


def deals_posted(server: FakeTelegramServer, user: FakeUser) -> dict[str, int]:
    deals: dict[str, int] = {}
    for m in server.chat(user).bot_messages():
        head = re.search(r"Кон (\d+)", txt(m))
        if head:
            deals[head.group(1)] = deals.get(head.group(1), 0) + 1
    return deals


async def test_presses_given_to_either_process_apply_once_and_in_order(
        server: FakeTelegramServer, db: str) -> None:
    anna = server.add_user(7101, "Анна")
    anna.started = True  # she wrote to the bot before
    rng = random.Random(5)
    async with process(server, db, "a") as a, process(server, db, "b") as b:
        procs = (a, b)
        await a.command(anna, anna.id, "start")
        await b.command(anna, anna.id, "newgame", ["3"])
        gid = await server.wait_for(lambda: b.service.by_chat.get(anna.id))
        accepted = duplicates_refused = stale = 0
        last = -1

        def newer(after: int) -> tuple[int, str, int] | None:
            m = moves(server, anna)
            return m if m is not None and m[2] > after else None

        for _ in range(40):
            found = await server.wait_for(partial(newer, last), 10, what="Anna's buttons")
            assert isinstance(found, tuple)
            message_id, data, last = found
            if rng.random() < 0.3:  # the same press delivered to both (a retried update)
                answers = await asyncio.gather(*(p.press(anna, anna.id, message_id, data)
                                                 for p in procs))
                duplicates_refused += 1
            else:
                answers = [await rng.choice(procs).press(anna, anna.id, message_id, data)]
            ok = sum(x is None for x in answers)
            assert ok <= 1, answers  # never applied twice
            accepted += ok
            game = await a.storage.get_game(gid)
            assert game is not None
            if not ok:  # refused: only because the game had moved on (a forced move)
                stale += 1
                assert game.version > last, (answers, game.version, last)
            if game.status != "playing":
                break
        await asyncio.sleep(0.5)
        await a.service.outbox.idle(5)
        await b.service.outbox.idle(5)
        records = [json.loads(r) for r in await a.storage.actions(gid)]
        human = [r for r in records if r.get("by") == "h"]
        assert len(human) == accepted  # each press once, none lost
        assert duplicates_refused > 0 and accepted > 20 and stale < accepted
        posted = deals_posted(server, anna)
        assert posted and all(n == 1 for n in posted.values()), posted  # sent once
        # whichever process edited a message last, the other never repeats that edit:
        # what each shared message shows is stored with it and asked for before an edit,
        # and an edit in flight elsewhere is waited for (``SharedSends.begin_edit``)
        assert not server.not_modified, [r.params for r in server.not_modified]
        game = await a.storage.get_game(gid)
        if game is not None and game.status == "playing":
            await a.command(anna, anna.id, "stop")
    server.assert_clean(allow_not_modified=True)


async def test_the_computer_moves_of_a_dead_process_are_taken_over(
        server: FakeTelegramServer, db: str) -> None:
    """A process holds a game's lease while its computer thinks (for a minute); another
    process running beside it leaves the game alone; the first dies (its tasks stop, nothing
    is released): the other takes the lease over when it expires and makes the move."""
    vera = server.add_user(7201, "Вера")
    vera.started = True
    async with process(server, db, "slow") as slow:
        real = slow.thinker.choose

        async def thinks_long(*args: Any, **kw: Any) -> Any:
            await asyncio.sleep(60)
            return await real(*args, **kw)

        slow.thinker.choose = thinks_long  # type: ignore[method-assign]
        await slow.command(vera, vera.id, "start")
        await slow.command(vera, vera.id, "newgame", ["3"])
        gid = await server.wait_for(lambda: slow.service.by_chat.get(vera.id))
        s = slow.service.sessions[gid]

        def computer_to_act() -> bool:
            st = s.state
            return st is not None and s.seats[st.to_act].computer

        while not computer_to_act():  # Vera moves until a computer must think
            found = await server.wait_for(lambda: moves(server, vera), 10)
            assert isinstance(found, tuple)
            if await slow.press(vera, vera.id, found[0], found[1]) is not None:
                await asyncio.sleep(0.05)  # a forced move came first: look again
        assert slow.coord.owns(gid)
        version = (await slow.storage.get_game(gid) or pytest.fail()).version
        async with process(server, db, "b") as b:
            await asyncio.sleep(2.0)  # longer than a lease: "slow" renews it, "b" waits
            assert not b.coord.owns(gid)
            assert await b.storage.lease_owner(gid) == slow.coord.owner
            assert (await b.storage.get_game(gid) or pytest.fail()).version == version
            await slow.die()
            killed = asyncio.get_running_loop().time()

            async def moved() -> bool:
                game = await b.storage.get_game(gid)
                return game is not None and game.version > version

            while not await moved():
                assert asyncio.get_running_loop().time() - killed < 8, "no takeover"
                await asyncio.sleep(0.1)
            took = asyncio.get_running_loop().time() - killed
            print(f"takeover: {took:.2f} s from the death to the computer's move")
            assert b.coord.owns(gid)
            records = [json.loads(r) for r in await b.storage.actions(gid, after=version)]
            assert records and records[0]["by"] == "c"  # the computer's move, made by "b"
            await b.command(vera, vera.id, "stop")
            await b.service.outbox.idle(5)
    assert len(server.not_modified) <= 2, [r.params for r in server.not_modified]  # one kill
    server.assert_clean(allow_not_modified=True)


@pytest.mark.parametrize("slow", [None, 1.5], ids=["on-time", "late-arrival"])
async def test_two_processes_keep_one_group_budget(server: FakeTelegramServer, db: str,
                                                   slow: float | None) -> None:
    """Each process alone would allow ``limit``: together they still keep to it (the
    window counted across processes is a second longer: request latency).  late-arrival:
    the first message reaches Telegram 1.5 s after the budget counted it (more than that
    margin: a stalled process, a slow network), and Telegram counts it from its arrival.
    Counted from before, the shared window would open 1.5 s early and five messages land
    within one window; counted from its answer, never more than four."""
    anna = server.add_user(7301, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    limit, window = 4, 2.0
    if slow is not None:
        server.slow_next("send", slow)
    async with process(server, db, "a", group_per_minute=limit, window=window) as a, \
            process(server, db, "b", group_per_minute=limit, window=window) as b:
        for i in range(6):
            a.service.reply(GROUP, f"a {i}")
            b.service.reply(GROUP, f"b {i}")
        await server.wait_for(lambda: len(server.chat(GROUP).bot_messages()) == 12,
                              30 if slow is None else 40, what="every reply sent")
        assert [r.fault for r in server.faulted] == ([] if slow is None else [SLOW])
        assert server.max_in_window(GROUP, window) <= limit, server.request_times(GROUP)
        assert len(server.chat(GROUP).bot_messages()) == 12
    server.assert_clean()


async def test_a_new_message_is_sent_once_by_two_processes(
        server: FakeTelegramServer, db: str) -> None:
    anna = server.add_user(7401, "Анна")
    server.add_group(GROUP, "Друзья", admins=[anna])
    async with process(server, db, "a") as a, process(server, db, "b") as b:
        content = R.Rendered("Кон 1")
        a.service.outbox.put(GROUP, "t99:1", content)
        b.service.outbox.put(GROUP, "t99:1", content)
        await a.service.outbox.idle(5)
        await b.service.outbox.idle(5)
        assert len(server.calls("sendMessage", GROUP)) == 1
        mid = a.service.outbox.message_id(GROUP, "t99:1")
        assert mid is not None and b.service.outbox.message_id(GROUP, "t99:1") == mid
        # the next change comes from the other process: an edit of that message
        b.service.outbox.put(GROUP, "t99:1", R.Rendered("Кон 1, ход"))
        await b.service.outbox.idle(5)
        assert len(server.calls("sendMessage", GROUP)) == 1
        assert txt(server.message(GROUP, mid)) == "Кон 1, ход"
    server.assert_clean(allow_not_modified=True)


async def test_a_move_stored_by_a_process_that_died_before_its_lease_is_picked_up(
        server: FakeTelegramServer, db: str) -> None:
    """Process "b" stores a person's move and dies before it takes the game's lease: the
    lease holder "a" finds the stored version newer than its copy at its next renewal,
    rebuilds the game and makes the computers' moves that follow."""
    vera = server.add_user(7501, "Вера")
    vera.started = True
    async with process(server, db, "a") as a, process(server, db, "b") as b:
        await a.command(vera, vera.id, "start")
        await a.command(vera, vera.id, "newgame", ["3"])
        gid = await server.wait_for(lambda: a.service.by_chat.get(vera.id))
        s = a.service.sessions[gid]

        def vera_to_act() -> tuple[int, str, int] | None:
            st = s.state
            found = moves(server, vera)
            return found if st is not None and st.to_act == 0 and found is not None \
                and found[2] == st.version else None

        found = await server.wait_for(vera_to_act, 10, what="Vera's turn")
        assert isinstance(found, tuple)
        if not a.coord.owns(gid):  # (a solo game waiting for its person needs no lease)
            assert await a.coord.claim(gid)

        async def dies_first(game_id: int) -> None:
            await b.die()  # ... right after the move is stored, before the lease

        b.service.coord.took = dies_first  # type: ignore[method-assign]
        answer = await b.press(vera, vera.id, found[0], found[1])
        assert answer is None
        stored = (await a.storage.get_game(gid) or pytest.fail()).version
        assert s.store_version < stored  # "a" has not seen it

        async def went_on() -> bool:
            game = await a.storage.get_game(gid)
            return game is not None and (game.version > stored or game.status != "playing")

        started = asyncio.get_running_loop().time()
        while not await went_on():
            assert asyncio.get_running_loop().time() - started < 5, "the holder did not reload"
            await asyncio.sleep(0.1)
        records = [json.loads(r) for r in await a.storage.actions(gid, after=stored)]
        assert records[0]["by"] in ("c", "f")  # a computer's (or a forced) move, by "a"
        assert a.coord.owns(gid)
        await a.command(vera, vera.id, "stop")
        await a.service.outbox.idle(5)
    server.assert_clean(allow_not_modified=True)


async def test_a_renewal_that_read_an_older_version_rebuilds_nothing(
        server: FakeTelegramServer, db: str) -> None:
    """The lease renewal reads stored versions without the game's lock: a move this
    process stored meanwhile makes the copy here newer than what was read.  That copy is
    not old and is kept (rebuilding it re-sent an edit that Telegram refused as "not
    modified"); only a newer stored version means an old copy."""
    anna = server.add_user(7161, "Анна")
    anna.started = True
    async with process(server, db, "a") as a:
        await a.command(anna, anna.id, "start")
        await a.command(anna, anna.id, "newgame", ["3"])
        gid = await server.wait_for(lambda: a.service.by_chat.get(anna.id))
        s = a.service.sessions[gid]
        await server.wait_for(lambda: moves(server, anna), 10, what="Anna's buttons")
        await a.service.outbox.idle(5)
        requests = len(server.requests)
        assert s.store_version > 0
        await a.service.restore._take_over(gid, s.store_version - 1)  # what a late renewal read
        await a.service.outbox.idle(5)
        assert a.service.sessions[gid] is s  # not rebuilt
        sent = [r.method for r in server.requests[requests:] if r.method != "getUpdates"]
        assert sent == []
        await a.command(anna, anna.id, "stop")
    server.assert_clean()


async def test_a_process_without_the_lease_never_edits_what_the_other_shows(
        server: FakeTelegramServer, db: str) -> None:
    """Every press goes to process a (it holds the lease); process b catches up with storage
    before each (an update of the chat reached it too) and must not edit Anna's messages:
    its copy was read while a moved on, so its edit could land after a's newer one and
    leave Anna looking at old buttons (the test above stalled so under load)."""
    anna = server.add_user(7301, "Анна")
    anna.started = True
    async with process(server, db, "a") as a, process(server, db, "b") as b:
        edits_by_b: list[int] = []

        class Counted:  # b's requests pass through; its edits are counted
            def __init__(self, bot: Any) -> None:
                self.bot = bot

            def __getattr__(self, name: str) -> Any:
                return getattr(self.bot, name)

            async def edit_message_text(self, *args: Any, **kw: Any) -> Any:
                edits_by_b.append(int(kw.get("message_id", 0)))
                return await self.bot.edit_message_text(*args, **kw)

        b.service.outbox.bot = Counted(b.service.outbox.bot)
        await a.command(anna, anna.id, "start")
        await a.command(anna, anna.id, "newgame", ["3"])
        gid = await server.wait_for(lambda: a.service.by_chat.get(anna.id))
        last = -1
        pressed = 0
        refreshed_stale = False
        for _ in range(25):
            def newer(after: int) -> tuple[int, str, int] | None:
                m = moves(server, anna)
                return m if m is not None and m[2] > after else None

            found = await server.wait_for(partial(newer, last), 10, what="Anna's buttons")
            assert isinstance(found, tuple)
            message_id, data, last = found
            await b.service.touch_chat(anna.id)  # b reads the game as stored now
            answer = await a.press(anna, anna.id, message_id, data)
            if pressed == 5 and (stale := b.service.sessions.get(gid)) is not None:
                # b's old copy believes it holds the lease (its renewal is not due yet) and
                # shows itself: the edit is not made, since a holds the lease in storage
                b.coord.mine.add(gid)
                b.service.table.refresh(stale)
                await b.service.outbox.idle(5)
                b.coord.lost(gid)
                refreshed_stale = True
            await b.service.touch_chat(anna.id)
            game = await a.storage.get_game(gid)
            assert game is not None
            if answer is None:
                pressed += 1
            else:  # refused only because the game had moved on (a forced move)
                assert game.version > last, (answer, game.version, last)
            if game.status != "playing":
                break
        await a.service.outbox.idle(5)
        await b.service.outbox.idle(5)
        assert pressed >= 10 and refreshed_stale
        assert edits_by_b == []
        game = await a.storage.get_game(gid)
        if game is not None and game.status == "playing":
            await a.command(anna, anna.id, "stop")
    server.assert_clean(allow_not_modified=True)


async def test_what_a_message_shows_is_shared_and_two_edits_never_cross(
        server: FakeTelegramServer, db: str) -> None:
    """Issue 22, no edit that changes nothing across processes: two outboxes share one
    database (``SharedSends.begin_edit`` / ``end_edit``).  The content a message shows is
    not edited again by the other process, nor while its first edit is still in flight
    (Telegram has run it but not answered yet): the second edit waits for the first and
    then sees that nothing is left to change."""
    storage: Backend = await (PostgresStorage.open(db) if db.startswith("postgresql")
                              else Storage.open(db))
    vera = server.add_user(4701, "Вера")
    vera.started = True  # she wrote to the bot before
    bots = [Bot(server.token, base_url=server.base_url) for _ in range(2)]
    boxes: list[Outbox] = []
    for name, bot in zip("ab", bots, strict=True):
        await bot.initialize()
        api: Any = bot
        box = Outbox(api)
        box.shared = SharedSends(storage, name)
        boxes.append(box)
    a, b = boxes
    key = "h9:0:1"  # a hand (shared: sent once, edited by either)
    hand = [R.Rendered(f"Ваши карты, ход {i}") for i in range(4)]

    def edits() -> int:
        return sum(r.method == "editMessageText" for r in server.requests)

    try:
        a.put(vera.id, key, hand[1])
        await a.idle()
        msg = server.chat(vera).bot_messages()[-1]
        b.known(vera.id, key, msg.message_id, None)  # b rebuilt the game from storage
        b.put(vera.id, key, hand[1])  # the same content: shown already
        await b.idle()
        assert edits() == 0
        # a's edit runs at once but is answered 1 s late; b wants the same content meanwhile
        server.set_faults("editMessageText", delay=1.0, delay_seconds=1.0)
        a.put(vera.id, key, hand[2])
        await asyncio.sleep(0.3)
        assert edits() == 1 and txt(server.chat(vera).bot_messages()[-1]) == hand[2].text
        b.put(vera.id, key, hand[2])
        await asyncio.gather(a.idle(), b.idle())
        assert edits() == 1  # b waited for a's edit, then had nothing to change
        server.clear_faults()
        b.put(vera.id, key, hand[3])  # b moves on: one edit
        await b.idle()
        a.put(vera.id, key, hand[3])  # a's copy catches up: nothing to change
        await a.idle()
        assert edits() == 2 and txt(server.chat(vera).bot_messages()[-1]) == hand[3].text
        assert not server.not_modified
        server.assert_clean()
    finally:
        for box in boxes:
            await box.close()
        for bot in bots:
            await bot.shutdown()
        await storage.close()
