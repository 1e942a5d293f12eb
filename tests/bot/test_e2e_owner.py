"""The table's owner (bot/tg/rooms/owner.py): what it stores, and the events it publishes.

* every event of a game reaches each of its listeners (wired in service.py) once, in the
  order they were wired, and only after what it tells of is in storage;
* an accepted move, or a batch of the computers' replies, is ONE storage write (the message
  ids that changed meanwhile go with it);
* the owner knows what each of its messages shows: after a SIGKILL and a restart nothing is
  edited to what it already shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.engine.game import apply, legal_actions
from bot.tg.rooms.events import GameOver, GameStarted, MovesStored, TableEvent
from bot.tg.rooms.owner import Shows
from bot.tg.rooms.service import GameService
from bot.tg.rooms.session import Session, Shown, read_table_json
from storage.errors import StorageBusy
from tests.bot.helpers import (
    idle,
    play,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.bot.procs import free_port
from tests.bot.test_e2e_restart import _bot_process, _moves, changed, stop_process
from tests.fakeapi import FakeTelegramServer

WRITES = ("create_game", "update_lobby", "start_game", "cancel_lobby", "set_message_ids",
          "set_seats", "set_deadline", "finish_game", "expire_game", "mark_broken",
          "set_default_rules")
# (moves are counted where their one transaction is: the moves role's ``append``, which
# the facade's append_action and append_actions both reach)


def _count(storage: Any, seen: Counter[str],
           by_task: Counter[asyncio.Task[Any] | None] | None = None) -> None:
    """Count the writes of ``storage`` by method (and by the task that made them)."""
    def counted(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            seen[name] += 1
            if by_task is not None:
                by_task[asyncio.current_task()] += 1
            return await fn(*args, **kwargs)
        return call

    for name in WRITES:
        setattr(storage, name, counted(name, getattr(storage, name)))
    storage.moves.append = counted("append", storage.moves.append)


async def test_each_event_reaches_every_listener_once_in_order_after_it_was_stored(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(7101, "Анна")
    calls: list[tuple[str, int, int, int, str]] = []  # kind, event, listener, stored, status
    alive: list[TableEvent] = []
    async with running(server, db) as app:
        svc = service(app)
        storage = svc.storage

        def wrap(of: type[TableEvent], i: int, listener: Any) -> Any:
            async def probe(e: Any) -> None:
                game = await storage.get_game(e.session.game_id)
                assert game is not None
                calls.append((of.__name__, id(e), i, game.version, game.status))
                alive.append(e)  # (so that no two events share an id())
                result = listener(e)
                if inspect.isawaitable(result):
                    await result
            return probe

        wired: dict[str, int] = {}
        wrapped: tuple[type[TableEvent], ...] = (MovesStored, GameOver, GameStarted)
        for event_kind in wrapped:
            listeners = svc.events.listeners(event_kind)
            wired[event_kind.__name__] = len(listeners)
            listeners[:] = [wrap(event_kind, i, fn) for i, fn in enumerate(listeners)]
        assert wired == {"MovesStored": 1, "GameOver": 3, "GameStarted": 2}
        moves: list[MovesStored] = []
        svc.events.subscribe(MovesStored, moves.append)  # (the test's own, last)
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame 3")
        gid = await server.wait_for(lambda: svc.by_chat.get(anna.id))
        presses = await play(server, app, gid, {0: anna}, policy=smart, seed=3, timeout=20)
        # (the probes read storage before each listener: the last ones may still run)
        await server.wait_for(lambda: [c[0] for c in calls].count("GameOver") >= 3,
                              what="the end's listeners")
        await idle(app)
        assert presses > 10
        game = await storage.get_game(gid)
        assert game is not None and game.status == "finished"
    by_event: dict[int, list[tuple[str, int, int, str]]] = {}
    for kind, event, i, stored, status in calls:
        by_event.setdefault(event, []).append((kind, i, stored, status))
    assert len([e for e in by_event.values() if e[0][0] == "MovesStored"]) == len(moves)
    assert sum(len(m.moves) for m in moves) >= presses
    versions = {id(m): m.version for m in moves}
    for event, seen in by_event.items():
        kind = seen[0][0]
        assert [i for _, i, _, _ in seen] == list(range(wired[kind])), seen  # once, in order
        if kind == "MovesStored":
            assert all(stored == versions[event] for _, _, stored, _ in seen), seen
        if kind == "GameOver":
            assert all(status == "finished" for _, _, _, status in seen)
        if kind == "GameStarted":
            assert all(status == "playing" for _, _, _, status in seen)
    kinds = [kind for kind, *_ in calls]
    assert kinds.count("GameOver") == 3 and kinds.count("GameStarted") == 2
    assert kinds[:2] == ["GameStarted", "GameStarted"] and kinds[-3:] == ["GameOver"] * 3
    server.assert_clean()


async def test_an_accepted_move_or_a_batch_of_replies_is_one_storage_write(
        server: FakeTelegramServer, db: Path) -> None:
    anna = server.add_user(7102, "Анна")
    # (the computers' replies to a press within COMPUTER_MOVE_DELAY are made at once and
    # shown with it: one batch, one write)
    async with running(server, db, computer_move_delay=0.3) as app:
        svc = service(app)
        seen: Counter[str] = Counter()
        by_task: Counter[asyncio.Task[Any] | None] = Counter()
        _count(svc.storage, seen, by_task)
        owner = svc.owner
        per_commit: list[int] = []
        commit = owner.commit

        async def counted_commit(*args: Any) -> None:
            me = asyncio.current_task()
            before = by_task[me]
            try:
                await commit(*args)
            finally:  # (the writes of this commit's task: background saves run apart)
                per_commit.append(by_task[me] - before)

        owner.commit = counted_commit  # type: ignore[method-assign,assignment]
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame 3")
        gid = await server.wait_for(lambda: svc.by_chat.get(anna.id))
        presses = await play(server, app, gid, {0: anna}, policy=smart, seed=5, timeout=20)
        await idle(app)
        moves = owner.moves
        deals = len(await svc.storage.score_sheet(gid))
    assert presses > 10 and len(per_commit) >= presses
    # each commit (a press; a computer's reply with the moves made at once after it) is one
    # write, the message ids that changed meanwhile included (the publish's listeners
    # write nothing but the ids of new messages, soon after)
    assert all(n == 1 for n in per_commit), per_commit
    assert seen["append"] == len(per_commit)
    # beside them: the game's creation and start, the id of each new message (a deal's
    # hand) stored at once — a kill must not post it twice — and what a deal's message
    # shows once its first moves (the computers' bids, no move of the person's to carry
    # it) wait for the person — a kill must not repeat that edit
    assert seen["set_message_ids"] <= 2 * deals + 2, (seen, deals)
    total = sum(seen.values())
    print(f"{presses} presses, {moves} moves stored in {len(per_commit)} commits, {deals} "
          f"deals; storage writes {total} ({dict(seen)}) = {total / moves:.2f} per move")
    assert total / moves <= 1.0


async def test_no_message_is_edited_to_what_it_shows_after_a_kill(
        server: FakeTelegramServer, db: Path) -> None:
    """SIGKILL mid-game and a new process, as an operator runs the bot (metrics and JSON
    logs on): the restored game shows its messages as they are — no edit to what a message
    already shows ("message is not modified"), nothing sent twice — and goes on."""
    vera = server.add_user(7103, "Вера")
    settings = {"METRICS_PORT": str(free_port()), "LOG_FORMAT": "json"}
    proc = await _bot_process(server, db, **settings)
    try:
        await server.send_text(vera, vera, "/newgame 3")
        await server.wait_bot_message(vera, predicate=lambda m: "Кон 1" in txt(m), timeout=20)
        for round_no in range(3):
            for _ in range(4 + round_no):
                msg = await server.wait_for(
                    lambda: next((m for m in reversed(server.chat(vera).bot_messages())
                                  if _moves(m)), None), 20, what="a button")
                data = _moves(msg)[0]
                answer = await server.press(vera, vera, msg.message_id, data, timeout=10)
                assert answer is not None
                if answer.text is None:
                    await changed(server, msg, data)
            await asyncio.sleep(0.3)  # (the computers' replies shown)
            sent = len(server.chat(vera).bot_messages())
            proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(proc.wait(), 10)
            proc = await _bot_process(server, db, **{**settings,
                                                     "METRICS_PORT": str(free_port())})
            # the game is rebuilt (in the background at start-up) and shown as it is
            await server.wait_for(
                lambda: next((m for m in reversed(server.chat(vera).bot_messages())
                              if _moves(m)), None), 20, what="a button after the restart")
            await asyncio.sleep(1.5)
            assert server.not_modified == [], server.not_modified
            assert len(server.chat(vera).bot_messages()) == sent  # nothing posted again
    finally:
        await stop_process(proc)
    server.assert_clean()




SEED_PERSON_FIRST = 5


@contextlib.asynccontextmanager
async def person_first(server: FakeTelegramServer, db: Path, user_id: int
                       ) -> AsyncIterator[tuple[GameService, Session]]:
    """A solo game against two computers that think for 30 s, at its start: the person
    bids first (``SEED_PERSON_FIRST``), everything shown."""
    anna = server.add_user(user_id, "Анна")
    async with running(server, db, seed=SEED_PERSON_FIRST, computer_move_delay=30) as app:
        svc = service(app)
        await start_private(server, anna)
        await server.send_text(anna, anna, "/newgame 3")
        gid = await server.wait_for(lambda: svc.by_chat.get(anna.id))
        s = session(app, gid)
        assert s is not None and s.state is not None and s.state.to_act == 0
        await idle(app)
        yield svc, s


async def test_an_edit_no_move_carried_is_stored_at_once_when_the_table_waits_for_a_person(
        server: FakeTelegramServer, db: Path) -> None:
    """What an edited message shows is stored with the move that caused it; an edit no
    stored move carried (a deal's first moves shown apart from its new message, a
    redeal) is stored at once when the table then waits for a person: nothing would
    carry it soon, and a SIGKILL while the person thinks would make the restart repeat
    the edit ("message is not modified"; round 4's CI caught it).  (While a computer is
    about to move, its move carries it: the count of writes in
    ``test_an_accepted_move_or_a_batch_of_replies_is_one_storage_write``.)"""
    async with person_first(server, db, 7104) as (svc, s):
        async def stored_hand() -> Shown | None:
            game = await svc.storage.get_game(s.game_id)
            assert game is not None
            return read_table_json(game.message_ids).messages.hands.get(0)

        shown = s.messages.hands[0]
        assert await stored_hand() == shown
        svc.owner.hand_shown(s, 0, shown.deal, shown.message_id, "edited", new=False)
        await server.wait_for(lambda: not s.ids_dirty, 2, what="the edit stored at once")
        assert await stored_hand() == Shown(shown.deal, shown.message_id, "edited")
    server.assert_clean()


async def test_a_move_not_stored_keeps_what_a_message_reported_meanwhile(
        server: FakeTelegramServer, db: Path) -> None:
    """A move's write marks what the messages will show once it is stored (``_will_show``);
    if the write fails (a busy database, or a clean stop cancelling it) the marks are put
    back — but an edit of an earlier move that reported meanwhile what its message shows,
    or a new message's id, is kept: it is what the message shows.  (Put back wholesale,
    a clean stop stored the stale copy and the restart repeated an edit — "message is not
    modified", ``test_sigterm_mid_game_and_a_restart_on_the_same_database`` under load.)"""
    async with person_first(server, db, 7105) as (svc, s):
        st = s.state
        assert st is not None
        before = s.messages.hands[0]
        writing, fail = asyncio.Event(), asyncio.Event()

        async def busy(*args: Any, **kwargs: Any) -> int:
            writing.set()
            await fail.wait()
            raise StorageBusy("database is locked")

        svc.storage.append_action = busy  # type: ignore[method-assign]
        action = legal_actions(st)[0]
        after = apply(st, action, 0)
        shows = Shows(before.deal, None, {0: "the move's"})
        async with s.lock:
            commit = asyncio.create_task(svc.owner.commit(
                s, [(0, action, "h")], [st, after], lambda: shows))
            await writing.wait()
            assert s.messages.hands[0].digest == "the move's"  # marked to go with it
            # meanwhile an edit of an earlier move reports what the hand shows
            svc.owner.hand_shown(s, 0, before.deal, before.message_id, "reported", new=False)
            fail.set()
            with pytest.raises(StorageBusy):
                await commit
        assert s.state is st  # nothing moved
        assert s.messages.hands[0] == Shown(before.deal, before.message_id, "reported")
        # and a mark nothing reported over is put back
        async with s.lock:
            fail.clear()
            writing.clear()
            commit = asyncio.create_task(svc.owner.commit(
                s, [(0, action, "h")], [st, after], lambda: shows))
            await writing.wait()
            fail.set()
            with pytest.raises(StorageBusy):
                await commit
        assert s.messages.hands[0] == Shown(before.deal, before.message_id, "reported")
