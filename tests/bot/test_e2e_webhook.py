"""Webhook mode and several bot processes (issue 13), with ``python -m bot`` as real child
processes (``tests/bot/procs.py``) and the fake Bot API posting updates to them.

The people here play from what they see (their messages' buttons) and what is stored (the
game's record, replayed to choose a move): no test code runs inside a bot process.
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sqlite3
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

import asyncpg
import pytest
from telegram import Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
)

from bot.engine.game import new_game
from bot.engine.record import apply_recorded
from bot.engine.rules import rules_from_dict
from bot.engine.state import Action, GameState, parse_action
from bot.engine.views import view
from bot.tg.io.handlers import UPDATE_TYPES, add_handlers
from bot.tg.model import replay, seats_from_json
from bot.tg.view.callbacks import decode
from storage import Backend, Game, open_storage
from tests.bot.helpers import action_button, smart, start_private, txt
from tests.bot.procs import SECRET, BotExited, BotProcess, bots, free_port, probe
from tests.fakeapi import FakeTelegramServer, FakeUser, connect
from tests.fakeapi.server import MESSAGE_METHODS, Button
from tests.pg import pg_url

__all__ = ["pg_url"]  # the fixture

T = TypeVar("T")
GROUP = -900100
SENDS = ("sendMessage", "sendPhoto", "sendDocument")


# ----------------------------------------------------------------------------- the database


@dataclass(frozen=True)
class Db:
    """The database the bot processes share: a SQLite file or a PostgreSQL URL."""

    path: Path | None = None
    url: str = ""

    def settings(self) -> dict[str, object]:
        return {"database_url": self.url} if self.url else {"database_path": self.path}

    async def open(self) -> Backend:
        return await open_storage(database_url=self.url, database_path=self.path or "")

    async def seqs(self, game_id: int) -> list[int]:
        """The seq of every stored action of the game, in order, duplicates included."""
        sql = "SELECT seq FROM game_actions WHERE game_id = {} ORDER BY seq"
        if self.url:
            conn = await asyncpg.connect(self.url)
            try:
                return [int(r["seq"]) for r in await conn.fetch(sql.format("$1"), game_id)]
            finally:
                await conn.close()
        assert self.path is not None
        with sqlite3.connect(self.path) as conn:
            return [int(r[0]) for r in conn.execute(sql.format("?"), (game_id,))]

    async def coordination(self) -> str:
        """The coordination tables and the games, for a failure's report (PostgreSQL)."""
        conn = await asyncpg.connect(self.url)
        try:
            lines = ["== coordination at the failure =="]
            for sql in ("SELECT game_id, status, version, updated FROM games ORDER BY game_id",
                        "SELECT * FROM leases ORDER BY game_id",
                        "SELECT * FROM sent_messages WHERE message_id IS NULL",
                        "SELECT extract(epoch FROM now()) AS now"):
                lines.append(sql)
                lines += [f"  {dict(r)}" for r in await conn.fetch(sql)]
            return "\n".join(lines)
        except asyncpg.PostgresError as e:
            return f"coordination tables not readable: {e!r}"
        finally:
            await conn.close()

    async def lease_owner(self, game_id: int) -> str | None:
        """Who holds the game's lease (PostgreSQL; None: nobody, or no leases yet)."""
        conn = await asyncpg.connect(self.url)
        try:
            row = await conn.fetchrow("SELECT owner FROM leases WHERE game_id = $1", game_id)
        except asyncpg.UndefinedTableError:
            return None
        finally:
            await conn.close()
        return str(row["owner"]) if row is not None else None


async def until(check: Callable[[], Awaitable[T | None]], timeout: float, what: str) -> T:
    """Poll ``check`` every 20 ms until it gives something truthy."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = await check()
        if value:
            return value
        if loop.time() > deadline:
            raise TimeoutError(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.02)


# ----------------------------------------------------------------------------- people playing


@dataclass
class Tally:
    """What the people did: presses the bot accepted (answered without a popup), presses
    left unanswered (a process died with them), refused ones (the game had moved on)."""

    accepted: int = 0
    unanswered: int = 0
    refused: int = 0
    versions: list[int] = field(default_factory=list)


class Follower:
    """A game as stored, followed record by record (``bot.tg.model.replay`` one step at a
    time: replaying the whole record for every move would cost O(moves²))."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.records = 0
        self.state: GameState | None = None
        self.auto: set[int] = set()

    async def follow(self, store: Backend, game: Game) -> bool:
        """Catch up with ``game``; False if the record read does not match its version."""
        if self.state is None:
            self.state = new_game(rules_from_dict(json.loads(game.rules)), game.seed)
        records = await store.actions(self.game_id, after=self.records)
        if self.records + len(records) != game.version:
            return False
        for text in records:
            rec = json.loads(text)
            seat = int(rec["s"])
            if "ctl" in rec:
                (self.auto.add if rec["ctl"] == "auto" else self.auto.discard)(seat)
            else:
                self.state = apply_recorded(self.state, parse_action(str(rec["a"])), seat)
        self.records = game.version
        return True


async def play(server: FakeTelegramServer, store: Backend, game_id: int,
               people: dict[int, FakeUser], *, seed: int = 0, timeout: float = 30.0,
               moves: int | None = None, tally: Tally | None = None) -> Tally:
    """People press their buttons until the game ends (or the game's version reaches
    ``moves``): each looks at the stored game, picks the move ``smart`` would, presses
    its button once it is shown, and waits for the move to be stored."""
    rng = random.Random(seed)
    tally = tally or Tally()
    follower = Follower(game_id)
    while True:
        game = await store.get_game(game_id)
        assert game is not None
        if game.status != "playing" or (moves is not None and game.version >= moves):
            return tally
        if not await follower.follow(store, game):
            continue  # a move stored between the two reads
        st = follower.state
        assert st is not None
        seat = st.to_act
        user = people.get(seat)
        version = game.version  # stored moves and seat changes; st.version: moves

        async def moved(version: int = version) -> Game | None:
            g = await store.get_game(game_id)
            return g if g is not None and (g.version != version or g.status != "playing") \
                else None

        if user is None or seat in follower.auto or seats_from_json(game.seats)[seat].computer:
            await until(moved, timeout, f"the computer's move after version {version}")
            continue
        action = smart(view(st, seat), rng)

        async def button(user: FakeUser = user, st_version: int = st.version,
                         action: Action = action) -> object:
            found = action_button(server, user, game_id, st_version, action)
            return found or await moved()

        found = await until(button, timeout, f"{user.first_name}'s button at {version}")
        if not isinstance(found, tuple):
            continue  # played meanwhile (a forced move)
        msg, pressed = found
        assert pressed.callback_data is not None
        answer = await server.press(user, user.chat, msg.message_id, pressed.callback_data,
                                    timeout=10, strict=False)
        if answer is None:
            tally.unanswered += 1
            continue
        if answer.text is not None:
            assert "устарела" in answer.text or "не ваш" in answer.text.lower(), answer.text
            tally.refused += 1
            continue
        tally.accepted += 1
        tally.versions.append(version)
        await until(moved, timeout, f"the move {action} stored")


async def solo_game(server: FakeTelegramServer, store: Backend, user: FakeUser) -> int:
    """``/newgame 3`` in the private chat: a game against two computer players."""
    await server.send_text(user, user, "/newgame 3")

    async def started() -> int | None:
        game = await store.active_game(user.id)
        return game.game_id if game is not None and game.status == "playing" else None

    return await until(started, 20, "the solo game")


async def group_game(server: FakeTelegramServer, store: Backend, creator: FakeUser,
                     joiners: list[FakeUser]) -> int:
    """``/newgame`` in the group; the others sit down; the creator starts."""
    before = server.chat(GROUP).last_bot_message()
    await server.send_text(creator, GROUP, "/newgame")
    lobby = await server.wait_bot_message(
        GROUP, after=before, timeout=20,
        predicate=lambda m: any(":j:" in (b.callback_data or "") for b in m.all_buttons))
    for person in [*joiners, creator]:
        part = ":st:" if person is creator else ":j:"
        edits = lobby.edit_count

        def wanted(b: Button, part: str = part) -> bool:
            return part in (b.callback_data or "")

        def changed(edits: int = edits) -> bool:
            return lobby.edit_count > edits

        answer = await server.click(person, lobby, predicate=wanted)
        assert answer is not None and answer.text is None, answer
        if part == ":j:":
            await server.wait_for(changed, 10, what="a seat taken")
    callback = decode(lobby.all_buttons[0].callback_data)
    assert callback is not None

    async def started() -> int | None:
        game = await store.get_game(callback.game_id)
        return game.game_id if game is not None and game.status == "playing" else None

    return await until(started, 20, "the group game")


async def seats_of(store: Backend, game_id: int, people: list[FakeUser]) -> dict[int, FakeUser]:
    game = await store.get_game(game_id)
    assert game is not None
    by_id = {p.id: p for p in people}
    return {i: by_id[s.user_id] for i, s in enumerate(seats_from_json(game.seats))
            if s.user_id in by_id and not s.computer}


async def finished(store: Backend, game_id: int) -> Game:
    game = await store.get_game(game_id)
    assert game is not None and game.status == "finished", game
    result = await store.get_result(game_id)
    assert result is not None and result.winner_seat is not None
    return game


async def check_log(db: Db, store: Backend, game_id: int, tally: Tally) -> int:
    """The move log of a game: seq 1..version, no gap, no duplicate; it replays to the
    stored winner; every accepted press is in it exactly once.  Returns its length."""
    game = await finished(store, game_id)
    seqs = await db.seqs(game_id)
    assert seqs == list(range(1, game.version + 1)), "a gap or a duplicate in the move log"
    records = await store.actions(game_id)
    rep = replay(rules_from_dict(json.loads(game.rules)), game.seed, records)
    result = await store.get_result(game_id)
    assert result is not None and rep.state.winner == result.winner_seat
    human = [json.loads(r) for r in records]
    human = [r for r in human if r.get("by") == "h"]
    assert tally.accepted <= len(human) <= tally.accepted + tally.unanswered, (tally, len(human))
    assert len(set(tally.versions)) == len(tally.versions)  # one accepted press per version
    return len(records)


IN_FLIGHT: Final = 1.0
"""Seconds around a SIGKILL within which a new message Telegram accepted may not have had
its id stored by the killed process (``sent_twice``'s ``kills``)."""


def sent_twice(server: FakeTelegramServer, kills: Sequence[float] = ()) -> list[str]:
    """Messages sent twice.  A message's *key* is its chat and its first line (the photo's
    caption): the bot's messages of a game are one per key — the lobby, the table of deal
    N ("Кон N · сдаёт …") in the group and in each person's chat, the final sheet, each
    picture — and are edited afterwards, never sent again.  So two successful
    sendMessage / sendPhoto / sendDocument requests with one key are a message sent twice
    (e.g. by two processes, or anew after a takeover).

    One exception, with ``kills`` (the ``time.monotonic()`` of each SIGKILL): a message
    sent twice whose first send Telegram accepted within ``IN_FLIGHT`` seconds of a kill
    (before it, or just after: the fake server stamps a request when its event loop, the
    test's, reads it, and a request the killed process wrote just before its death can be
    read after the test's ``kill`` took its time) and whose second came after it.
    Telegram's ``sendMessage`` has no idempotency key: a process killed between
    Telegram's answer and the storing of the new message's id (``SharedSends.sent``)
    leaves a claim the other process cannot tell from a send that never reached
    Telegram, and it sends the message (docs/deploy.md, *A new message in flight at a
    crash*).  Each one excused is printed."""
    sends: dict[tuple[int | None, str], list[float]] = {}
    for r in server.requests:
        if r.method in SENDS and r.ok:
            text = str(r.params.get("text") or r.params.get("caption") or "")
            sends.setdefault((r.chat_id, text.partition("\n")[0]), []).append(r.time)
    twice = []
    for (chat, line), times in sends.items():
        if len(times) < 2:
            continue
        kill = next((k for k in kills if len(times) == 2
                     and k - IN_FLIGHT <= times[0] <= k + IN_FLIGHT
                     and max(k, times[0]) < times[1]), None)
        if kill is None:
            twice.append(f"chat {chat}: {line!r} x{len(times)} at {times}, kills {kills}")
        else:
            print(f"sent again after a kill: chat {chat}: {line!r}, accepted "
                  f"{times[0] - kill:+.4f} s from the SIGKILL, again {times[1] - kill:.1f} s "
                  f"after it")
    return twice


def test_sent_twice_excuses_only_a_message_sent_at_a_kill() -> None:
    """The check of the two-process test: a message sent again long after a kill is
    excused only if its first send came within ``IN_FLIGHT`` of the kill (stamped just
    after it too: the CI run that found it had +0.4 ms); any other repeat is reported."""
    from tests.fakeapi.server import RecordedRequest

    def sends(*times: float, chat: int = 1, line: str = "🃏 Кон 8") -> list[RecordedRequest]:
        return [RecordedRequest("sendMessage", {"text": f"{line}\nстол"}, t, chat, 200)
                for t in times]

    @dataclass
    class Server:
        requests: list[RecordedRequest]

    def check(*times: float, kills: Sequence[float] = (100.0,)) -> list[str]:
        return sent_twice(Server(sends(*times)), kills)  # type: ignore[arg-type]

    assert check(99.5, 130.0) == []  # accepted 0.5 s before the kill
    assert check(100.0004, 130.0) == []  # stamped 0.4 ms after it
    assert check(98.0, 130.0)  # 2 s before: the killed process had time to store it
    assert check(102.0, 130.0)  # 2 s after: not the killed process's
    assert check(99.5, 99.8)  # both before the kill: sent twice by a living process
    assert check(99.5, 120.0, 130.0)  # three times
    assert check(99.5, 130.0, kills=())  # no kill at all
    other_chats = Server(sends(99.5) + sends(130.0, chat=2))  # once in each chat
    assert sent_twice(other_chats, (100.0,)) == []  # type: ignore[arg-type]


def chats_report(server: FakeTelegramServer, people: list[FakeUser]) -> str:
    """Each person's last bot message (its move buttons) and last requests, for a
    failure's report."""
    lines = ["== the people's chats at the failure =="]
    for p in people:
        last = server.chat(p).last_bot_message()
        data = [b.callback_data for b in last.all_buttons] if last is not None else []
        lines.append(f"{p.first_name}: message {last.message_id if last else None} "
                     f"buttons {data[:6]}")
        lines += [f"  {r.method} -> {r.status} {r.description or ''}"
                  for r in server.calls(chat=p)[-4:]]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the handled types


async def test_allowed_updates_are_what_the_handlers_handle(
        server: FakeTelegramServer) -> None:
    """``UPDATE_TYPES`` is derived from the handlers: message-like updates reach a handler
    only as ``message``, buttons are ``callback_query``, membership ``my_chat_member``; a
    handler of another kind must update the list (and this test)."""
    app: Application[Any, Any, Any, Any, Any, Any] = connect(
        ApplicationBuilder(), server).updater(None).build()
    await app.bot.initialize()  # getMe: commands are matched against the bot's name
    add_handlers(app)
    # negative groups run before the handlers for every update (on_touch): they do not
    # make an update type wanted
    for number, group in app.handlers.items():
        assert number >= 0 or all(isinstance(h, TypeHandler) for h in group), group
    handlers = [h for number, group in app.handlers.items() if number >= 0 for h in group]
    kinds: set[str] = set()
    for h in handlers:
        if isinstance(h, CallbackQueryHandler):
            kinds.add(Update.CALLBACK_QUERY)
        elif isinstance(h, ChatMemberHandler):
            assert h.chat_member_types == ChatMemberHandler.MY_CHAT_MEMBER
            kinds.add(Update.MY_CHAT_MEMBER)
        elif isinstance(h, InlineQueryHandler):  # ``@bot`` in any chat (rooms/inline.py)
            kinds.add(Update.INLINE_QUERY)
        else:
            assert isinstance(h, CommandHandler | MessageHandler), h
    user = {"id": 5, "is_bot": False, "first_name": "A"}
    private = {"id": 5, "type": "private", "first_name": "A"}
    group_chat = {"id": -7, "type": "group", "title": "G"}
    samples: list[dict[str, object]] = [
        {"chat": private, "from": user, "text": "/start",
         "entities": [{"type": "bot_command", "offset": 0, "length": 6}]},
        {"chat": private, "from": user, "text": "hello"},
        {"chat": private, "from": user,
         "document": {"file_id": "f", "file_unique_id": "u", "file_name": "r.json"}},
    ]
    message_kinds = (Update.MESSAGE, Update.EDITED_MESSAGE, Update.CHANNEL_POST,
                     Update.EDITED_CHANNEL_POST, Update.BUSINESS_MESSAGE,
                     Update.EDITED_BUSINESS_MESSAGE)
    # a group's migration is a service message: Telegram sends those as ``message`` only
    migrate = {"chat": group_chat, "from": user, "migrate_to_chat_id": -1007}
    for kind in message_kinds:
        for n, sample in enumerate(samples if kind != Update.MESSAGE else [*samples, migrate]):
            payload: dict[str, object] = {"message_id": 1, "date": 0, **sample}
            if kind.startswith("edited"):
                payload["edit_date"] = 1
            update = Update.de_json({"update_id": n + 1, kind: payload}, app.bot)
            if any(h.check_update(update) for h in handlers):
                kinds.add(kind)
    await app.bot.shutdown()
    assert kinds == set(UPDATE_TYPES)
    assert kinds == {"message", "callback_query", "my_chat_member", "inline_query"}


# ----------------------------------------------------------------------------- one process


async def test_one_webhook_process_plays_a_solo_game_to_its_winner(
        server: FakeTelegramServer, tmp_path: Path) -> None:
    """(a) ``python -m bot`` with WEBHOOK_URL set, on SQLite: setWebhook with the handled
    update types and the secret; every update comes by POST; a solo game to its winner.
    (c) allowed_updates of setWebhook is the handled list."""
    db = Db(path=tmp_path / "thousand.sqlite3")
    vera = server.add_user(4101, "Вера")
    bot = BotProcess.webhook(server, tmp_path, "solo", db.settings())
    async with bots(bot):
        await bot.start()
        assert bot.hook is not None
        assert server.webhook_url == bot.hook and server.webhook_secret == SECRET
        (call,) = server.calls("setWebhook")
        assert call.params["allowed_updates"] == list(UPDATE_TYPES)
        assert call.params.get("drop_pending_updates") in (None, False)
        assert not server.calls("getUpdates") and not server.calls("deleteWebhook")
        store = await db.open()
        try:
            await start_private(server, vera)
            gid = await solo_game(server, store, vera)
            tally = await play(server, store, gid, {0: vera})
            moves = await check_log(db, store, gid, tally)
        finally:
            await store.close()
        last = await server.wait_for(lambda: next(
            (m for m in reversed(server.chat(vera).bot_messages())
             if "Партия окончена" in txt(m)), None), 10, what="the final sheet")
        assert "🏆" in txt(last)
        assert tally.accepted > 20 and tally.unanswered == 0
        assert await bot.stop() == 0
    counts = server.webhook_counts()
    assert counts == {bot.hook: len(server.updates)}  # every update, by POST, once
    assert all(d.ok for d in server.webhook_deliveries)
    assert not sent_twice(server)
    log = bot.log()
    assert "webhook mode: listening on 127.0.0.1" in log and bot.hook in log
    assert SECRET not in log and server.token not in log
    server.assert_clean()
    print(f"one webhook process: {moves} moves, {tally.accepted} presses, "
          f"{len(server.updates)} updates posted")


async def test_a_wrong_or_missing_secret_is_refused_and_changes_nothing(
        server: FakeTelegramServer, tmp_path: Path) -> None:
    """(b) PTB's webhook server answers 403 to a request without the secret header or with
    a wrong one, and the update in it is not handled; the same update with the secret is."""
    db = Db(path=tmp_path / "thousand.sqlite3")
    anna = server.add_user(4201, "Анна")
    bot = BotProcess.webhook(server, tmp_path, "secret", db.settings())
    async with bots(bot):
        await bot.start()
        assert bot.hook is not None
        await start_private(server, anna)
        store = await db.open()
        try:
            sent = len(server.calls("sendMessage"))
            update = {"update_id": 777_000_001, "message": {
                "message_id": 999, "date": int(time.time()), "text": "/newgame 3",
                "chat": {"id": anna.id, "type": "private", "first_name": "Анна"},
                "from": {"id": anna.id, "is_bot": False, "first_name": "Анна"},
                "entities": [{"type": "bot_command", "offset": 0, "length": 8}]}}
            body = json.dumps(update).encode()
            assert await probe(bot.hook, body=body) == 403
            assert await probe(bot.hook, body=body, secret="not-" + SECRET) == 403
            assert await probe(bot.hook, body=body, secret=SECRET[:-1]) == 403
            await asyncio.sleep(1.0)  # time enough for a handled update to show
            assert await store.active_game(anna.id) is None
            assert len(server.calls("sendMessage")) == sent
            # the very same request with the secret is handled: a game starts
            assert await probe(bot.hook, body=body, secret=SECRET) == 200
            async def playing() -> Game | None:  # (a solo game is a lobby for a moment)
                game = await store.active_game(anna.id)
                return game if game is not None and game.status == "playing" else None

            await until(playing, 10, "the game")
        finally:
            await store.close()
        assert await bot.stop() == 0
    server.assert_clean()


async def test_polling_asks_for_the_handled_updates_only(
        server: FakeTelegramServer, tmp_path: Path) -> None:
    """(c) Without WEBHOOK_URL the bot polls (deleteWebhook first) with the same list."""
    bot = BotProcess.polling(server, tmp_path, "poll",
                             {"database_path": tmp_path / "thousand.sqlite3"})
    boris = server.add_user(4301, "Борис", language_code="en")
    async with bots(bot):
        await bot.start()
        await server.wait_for(lambda: server.calls("getUpdates"), 10)
        assert server.calls("deleteWebhook") and not server.calls("setWebhook")
        for call in server.calls("getUpdates"):
            assert call.params["allowed_updates"] == list(UPDATE_TYPES)
        await start_private(server, boris)  # updates flow
        assert await bot.stop() == 0
    assert "polling mode" in bot.log()
    server.assert_clean()


async def test_sigterm_mid_game_and_a_restart_on_the_same_database(
        server: FakeTelegramServer, tmp_path: Path) -> None:
    """(d) SIGTERM during a game (a clean stop, exit code 0), then a new process on the
    same database and port: the game goes on from the stored version to its winner."""
    db = Db(path=tmp_path / "thousand.sqlite3")
    gleb = server.add_user(4401, "Глеб")
    bot = BotProcess.webhook(server, tmp_path, "restart", db.settings())
    async with bots(bot):
        await bot.start()
        store = await db.open()
        try:
            await start_private(server, gleb)
            gid = await solo_game(server, store, gleb)
            tally = await play(server, store, gid, {0: gleb}, moves=40)
            assert await bot.stop() == 0
            game = await store.get_game(gid)
            assert game is not None and game.status == "playing" and game.version >= 40
            stopped_at = game.version
            await bot.start()  # the same WEBHOOK_PORT: the old socket is closed
            assert server.webhook_url == bot.hook
            await play(server, store, gid, {0: gleb}, tally=tally)
            moves = await check_log(db, store, gid, tally)
            assert moves > stopped_at
        finally:
            await store.close()
        assert await bot.stop() == 0
    assert bot.exits == [0, 0] and bot.starts == 2
    assert not sent_twice(server)
    server.assert_clean()


async def test_a_busy_port_is_one_line(server: FakeTelegramServer, tmp_path: Path) -> None:
    """The webhook server cannot listen: one line, exit code 1 (as a bad database)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        bot = BotProcess.webhook(server, tmp_path, "busy",
                                 {"database_path": tmp_path / "thousand.sqlite3"})
        bot.env["WEBHOOK_PORT"] = str(port)
        with pytest.raises(BotExited):
            await bot.start()
    assert bot.proc is not None and bot.proc.returncode == 1
    lines = [ln for ln in bot.log().splitlines() if ln.startswith("thousand-bot:")]
    assert lines == [f"thousand-bot: cannot listen on 127.0.0.1:{port} "
                     f"(WEBHOOK_LISTEN, WEBHOOK_PORT): Address already in use"]
    assert "Traceback" not in bot.log()


# ----------------------------------------------------------------------------- two processes


async def test_two_processes_on_one_postgresql(
        server: FakeTelegramServer, tmp_path: Path, pg_url: str) -> None:
    """(e) The issue's proof: two bot processes in webhook mode on one PostgreSQL behind
    one public URL; the fake API delivers each update to either at random.  A solo game
    and a three-person group game run at once; mid-game the process holding the solo
    game's lease is SIGKILLed and the other carries on (takeover: from the kill to the
    next move stored); the killed one comes back later.  At the end: both games have a
    winner, their move logs have no gap and no duplicate and hold every accepted press
    once, no message was sent twice (``sent_twice``: but the one Telegram accepted at
    a kill), and the group never got more than 20 messages in a minute."""
    db = Db(url=pg_url)
    server.group_rate_limit = 20  # Telegram's answer (429) to a group over its budget
    vera = server.add_user(4501, "Вера")
    anna, boris, gleb = (server.add_user(4511, "Анна"), server.add_user(4512, "Борис"),
                         server.add_user(4513, "Глеб"))
    server.add_group(GROUP, "Друзья", members=[boris, gleb], admins=[anna])
    public = f"http://127.0.0.1:{free_port()}/hook"  # the reverse proxy's address
    # the computers think (level hard, up to 0.3 s a move): the window to kill in
    common = {**db.settings(), "group_messages_per_minute": 20, "computer_move_delay": 0,
              "computer_level": "hard", "computer_think_seconds": 0.3,
              "computer_workers": 1}
    a = BotProcess.webhook(server, tmp_path, "a", common, public_url=public)
    b = BotProcess.webhook(server, tmp_path, "b", common, public_url=public)
    assert a.hook is not None and b.hook is not None
    server.webhook_targets = [a.hook, b.hook]
    server.webhook_rng = random.Random(13)
    async with bots(a, b):
        await a.start()  # the first one creates the schema
        await b.start()
        store = await db.open()
        try:
            await start_private(server, vera, anna, boris, gleb)
            solo = await solo_game(server, store, vera)
            group = await group_game(server, store, anna, [boris, gleb])
            people = await seats_of(store, group, [anna, boris, gleb])
            solo_tally, group_tally = Tally(), Tally()
            group_play = asyncio.create_task(
                play(server, store, group, people, seed=2, timeout=40, tally=group_tally))
            await play(server, store, solo, {0: vera}, moves=60, tally=solo_tally)
            # the moment: Vera's press is stored and a computer is to move next; only the
            # holder of the game's lease makes that move: it is killed, so the other
            # process must take the lease over (after it expires) to go on
            victim, before = await _kill_the_lease_holder(server, store, db, solo, vera,
                                                          solo_tally, (a, b))
            killed = time.monotonic()
            solo_play = asyncio.create_task(
                play(server, store, solo, {0: vera}, timeout=40, tally=solo_tally))

            async def next_move() -> float | None:
                g = await store.get_game(solo)
                assert g is not None
                return time.monotonic() if g.version > before.version or \
                    g.status != "playing" else None

            takeover = await until(next_move, 30, "a move after the kill") - killed
            taken = json.loads((await store.actions(solo, after=before.version))[0])
            assert taken["by"] == "c" and taken["s"] != 0, taken  # the computer's move
            await victim.start()  # a deploy brings it back
            try:
                await asyncio.gather(solo_play, group_play)
            except BaseException:
                print(await db.coordination(), file=sys.stderr)
                print(chats_report(server, [vera, anna, boris, gleb]), file=sys.stderr)
                raise
            solo_moves = await check_log(db, store, solo, solo_tally)
            group_moves = await check_log(db, store, group, group_tally)
        finally:
            await store.close()
    counts = server.webhook_counts()
    assert counts.get(a.hook, 0) > 0 and counts.get(b.hook, 0) > 0, counts
    kills = sum(code == -9 for p in (a, b) for code in p.exits)
    assert kills >= 1 and all(code in (0, -9) for p in (a, b) for code in p.exits)
    kill_times = sorted(k for p in (a, b) for k in p.kills)
    assert not (twice := sent_twice(server, kill_times)), twice
    assert server.max_in_window(GROUP, methods=MESSAGE_METHODS) <= 20
    assert not server.rate_limited
    assert not server.violations and not server.internal_errors
    print(f"two processes on PostgreSQL: solo {solo_moves} moves, group {group_moves} moves, "
          f"{kills} kill(s) (bot {victim.name}, the lease holder), takeover {takeover:.2f} s "
          f"(SIGKILL to the computer's next move, stored by the other); "
          f"deliveries {counts}; unanswered presses "
          f"{solo_tally.unanswered + group_tally.unanswered}; 'not modified' "
          f"{len(server.not_modified)}")
    assert takeover < 15, takeover  # the lease lasts 6 s (bot/tg/io/coord.py)
    # issue 22's target: at most two "not modified" answers per kill (an edit in flight
    # when its process died is waited for 3 s, then made again: it may have landed)
    where = Counter((r.chat_id, r.params.get("message_id")) for r in server.not_modified)
    print(f"'not modified' by (chat, message): {dict(where.most_common(12))}")
    assert len(server.not_modified) <= 2 * kills, dict(where)


async def _kill_the_lease_holder(
        server: FakeTelegramServer, store: Backend, db: Db, game_id: int, person: FakeUser,
        tally: Tally, processes: tuple[BotProcess, ...]) -> tuple[BotProcess, Game]:
    """Play the person's moves one at a time until, right after one is stored, a computer
    is to move; then SIGKILL the process holding the game's lease.  The process killed
    and the game as it was at the kill."""
    follower = Follower(game_id)
    while True:
        game = await store.get_game(game_id)
        assert game is not None and game.status == "playing"
        if not await follower.follow(store, game):
            continue
        assert follower.state is not None
        if follower.state.to_act != 0:  # the computers' turn: wait for them
            await play(server, store, game_id, {}, moves=game.version + 1, tally=tally)
            continue
        await play(server, store, game_id, {0: person}, moves=game.version + 1, tally=tally)
        after = await store.get_game(game_id)
        assert after is not None
        if not await follower.follow(store, after) or after.version != game.version + 1:
            continue  # a computer was faster than this look
        assert follower.state is not None
        if after.status != "playing" or follower.state.to_act == 0:
            continue
        owner = await db.lease_owner(game_id)
        victim = next((p for p in processes if owner and f":{p.pid}:" in f":{owner}:"), None)
        assert victim is not None, f"no process holds the lease of game {game_id}: {owner}"
        await victim.kill()
        stored = await store.get_game(game_id)
        assert stored is not None
        if stored.version == after.version:
            return victim, stored
        await victim.start()  # the computer moved before the kill: once more
