"""Shared pieces of the bot's end-to-end tests: the real application on the fake Bot API
server, and simulated people who read their private message and press its buttons."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from bot.config import Settings, load_settings
from bot.engine import cards as C
from bot.engine.game import forced_action
from bot.engine.state import Action, GameState, Phase
from bot.engine.views import TableView, view
from bot.tg.io.app import ThousandApplication, build_application
from bot.tg.rooms.service import GameService, Session
from bot.tg.view.callbacks import ACT, PAGE, decode
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser, polling
from tests.fakeapi.server import Button

Policy = Callable[[TableView, random.Random], Action]


def settings_for(server: FakeTelegramServer, db: Path, **changes: Any) -> Settings:
    """The real settings, pointed at the fake server (as TELEGRAM_API_URL would be)."""
    values: dict[str, Any] = {
        "telegram_bot_token": server.token,
        "telegram_api_url": server.base_url,
        "database_path": str(db),
        "computer_move_delay": 0,
        "computer_level": "random",
        "group_messages_per_minute": 100000,
        "messages_per_second": 0,
        "turn_timeout": 600,
    }
    values.update(changes)
    return load_settings(**values)


@contextlib.asynccontextmanager
async def running(server: FakeTelegramServer, db: Path, *, seed: int = 1,
                  **changes: Any) -> AsyncIterator[ThousandApplication]:
    """The bot's application, built as ``python -m bot`` builds it, polling the fake server."""
    app = build_application(settings_for(server, db, **changes), rng=random.Random(seed))
    async with polling(app):
        yield app


def service(app: ThousandApplication) -> GameService:
    assert app.service is not None
    return app.service


# ------------------------------------------------------------------------- a sensible player


def _estimate(hand: tuple[int, ...]) -> int:
    marriages = sum(C.MARRIAGE_VALUES[s] for s in C.marriages_in(hand))
    return (C.hand_points(hand) + marriages + 10 * C.count_rank(hand, C.ACE)
            + 5 * C.count_rank(hand, C.TEN) + 10)


def smart(v: TableView, rng: random.Random) -> Action:
    """A plain human-like player: bids what its hand is worth, plays high cards to win
    tricks, declares marriages; sometimes plays dark or asks for a redeal when offered."""
    legal = list(v.legal)
    kinds = {a.kind for a in legal}
    if "dark" in kinds:
        return Action("dark") if rng.random() < 0.3 else Action("light")
    if "keep" in kinds:
        return Action("redeal") if rng.random() < 0.3 else Action("keep")
    if v.phase == Phase.BIDDING:
        bids = [a for a in legal if a.kind == "bid" and a.value <= _estimate(v.hand)]
        return bids[0] if bids else Action("pass")
    if v.phase == Phase.TALON:
        return legal[0]
    if v.phase == Phase.PASSING:
        cards = [a for a in legal if a.kind in ("give", "discard")]
        keep = {C.card(r, s) for s in C.marriages_in(v.hand) for r in (C.KING, C.QUEEN)}
        return min(cards, key=lambda a: (a.card in keep, C.points(a.card)))
    if v.phase == Phase.CONTRACT:
        return next(a for a in legal if a.kind == "contract")
    declares = [a for a in legal if a.kind == "declare"]
    if declares:
        return declares[0]
    plays = [a for a in legal if a.kind == "play"]
    trump = v.trump if v.trump >= 0 else None
    if not v.trick:
        return max(plays, key=lambda a: (C.rank_of(a.card) == C.ACE, C.points(a.card)))
    led = [c for _, c in v.trick]
    best = led[C.trick_winner_index(led, trump)]
    winners = [a for a in plays if C.beats(a.card, best, trump)]
    if winners:
        return max(winners, key=lambda a: C.points(a.card))
    return min(plays, key=lambda a: C.points(a.card))


def first_button(v: TableView, rng: random.Random) -> Action:
    return v.legal[0]


# ------------------------------------------------------------------------- pressing buttons


def action_button(server: FakeTelegramServer, user: FakeUser, game_id: int, version: int,
                  action: Action | None = None) -> tuple[FakeMessage, Button] | None:
    """A button of the user's private messages for this game at this version (the one for
    ``action``, or any)."""
    prefix = f"g{game_id}:{version}:{ACT}:"
    for msg in reversed(server.chat(user).bot_messages()):
        for b in msg.all_buttons:
            if b.callback_data is None or not b.callback_data.startswith(prefix):
                continue
            if action is None:
                return msg, b
            c = decode(b.callback_data)
            if c is not None and c.action() == action:
                return msg, b
    return None


def page_button(server: FakeTelegramServer, user: FakeUser, game_id: int, version: int
                ) -> tuple[FakeMessage, Button] | None:
    """A button of the user's private messages for this game at this version that opens
    another page of its buttons (the other bids, the plain leads)."""
    prefix = f"g{game_id}:{version}:{PAGE}:"
    for msg in reversed(server.chat(user).bot_messages()):
        for b in msg.all_buttons:
            if b.callback_data is not None and b.callback_data.startswith(prefix) \
                    and b.callback_data != prefix:
                return msg, b
    return None


async def buttons_at(server: FakeTelegramServer, user: FakeUser, game_id: int,
                     version: int) -> FakeMessage:
    """The user's message offering this game's actions at ``version`` (waiting for it)."""
    found = await server.wait_for(lambda: action_button(server, user, game_id, version),
                                  what=f"{user.first_name}'s buttons at version {version}")
    return found[0]


def session(app: ThousandApplication, game_id: int) -> Session | None:
    return service(app).sessions.get(game_id)


async def play(server: FakeTelegramServer, app: ThousandApplication, game_id: int,
               people: dict[int, FakeUser], *, policy: Policy = smart, seed: int = 0,
               max_moves: int | None = None, timeout: float = 10.0) -> int:
    """People press their buttons until the game ends (or ``max_moves`` presses); returns
    the number of presses.  Each press is answered without a popup."""
    rng = random.Random(seed)
    presses = 0
    while max_moves is None or presses < max_moves:
        s = session(app, game_id)
        if s is None or s.status != "playing" or s.state is None:
            return presses
        st = s.state

        def moved(s: Session = s, st: GameState = st) -> bool:
            return session(app, game_id) is not s or s.state is not st

        seat = st.to_act
        user = people.get(seat)
        if user is None or s.seats[seat].auto:
            await server.wait_for(moved, timeout, what="a computer move")
            continue
        if s.forced and forced_action(st) is not None:  # the bot plays it at once
            await server.wait_for(moved, timeout, what="the forced move")
            continue
        action = policy(view(st, seat), rng)

        def ready(user: FakeUser = user, version: int = st.version,
                  action: Action = action) -> tuple[FakeMessage, Button] | None:
            return action_button(server, user, game_id, version, action)

        def paged(user: FakeUser = user, version: int = st.version
                  ) -> tuple[FakeMessage, Button] | None:
            return page_button(server, user, game_id, version)

        # the button is on the first page, or one page press away (the other bids, the
        # plain lead of a marriage's card): that page is opened first
        found = await server.wait_for(lambda: ready() or paged() or moved(), timeout,
                                      what=f"{user.first_name}'s button for {action}")
        if not isinstance(found, tuple):
            continue
        pressed = decode(found[1].callback_data)
        if pressed is not None and pressed.verb == PAGE:
            msg, button = found
            assert button.callback_data is not None
            answer = await server.press(user, user.chat, msg.message_id, button.callback_data)
            assert answer is not None and answer.text is None, "the page press was refused"
            found = await server.wait_for(lambda: ready() or moved(), timeout,
                                          what=f"{user.first_name}'s paged button for {action}")
            if not isinstance(found, tuple):
                continue
        msg, button = found
        assert button.callback_data is not None
        answer = await server.press(user, user.chat, msg.message_id, button.callback_data)
        assert answer is not None, "the press was not answered"
        assert answer.text is None, f"press refused: {answer.text}"
        presses += 1
        # the answer comes before the move is stored: wait for the move itself
        await server.wait_for(moved, timeout, what="the accepted move")
    return presses


async def start_private(server: FakeTelegramServer, *users: FakeUser) -> None:
    for u in users:
        before = server.chat(u).last_bot_message()
        await server.send_text(u, u, "/start")
        await server.wait_bot_message(u, after=before)


async def idle(app: ThousandApplication) -> None:
    """The games of the start-up are rebuilt (the background restore) and the outbox has
    nothing left to send."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(service(app).restored.wait(), 10.0)
    await service(app).outbox.idle(10.0)


# ------------------------------------------------------------------------- group tables


async def edited(server: FakeTelegramServer, msg: FakeMessage, count: int,
                 timeout: float = 5.0) -> None:
    """Wait until ``msg`` was edited more than ``count`` times."""
    await server.wait_for(lambda: msg.edit_count > count, timeout, what="an edit")


async def click_and_wait(server: FakeTelegramServer, user: FakeUser, msg: FakeMessage,
                         contains: str) -> str | None:
    """Press the button containing ``contains``; wait for the message to change if it was
    accepted; return the popup text (None if none)."""
    count = msg.edit_count
    answer = await server.click(user, msg, contains=contains)
    assert answer is not None
    if answer.text is None and answer.url is None:
        await edited(server, msg, count)
    return answer.text


async def click_data(server: FakeTelegramServer, user: FakeUser, msg: FakeMessage,
                     part: str, *, wait: bool = True) -> str | None:
    """Like ``click_and_wait``, finding the button by a part of its callback data."""
    count = msg.edit_count
    answer = await server.click(user, msg, predicate=lambda b: part in (b.callback_data or ""))
    assert answer is not None
    if wait and answer.text is None and answer.url is None:
        await edited(server, msg, count)
    return answer.text


async def open_table(server: FakeTelegramServer, app: ThousandApplication, group: int,
                     creator: FakeUser, joiners: list[FakeUser], *, args: str = "",
                     computers: int = 0, start: bool = True,
                     wait: bool = True) -> tuple[int, FakeMessage]:
    """``/newgame`` in the group, people press "Сесть", the creator starts; the game id and
    the lobby (later: table) message.  ``wait``: see each press change the lobby (the
    lobby's buttons need not be current for joining, adding computers and starting)."""
    before = server.chat(group).last_bot_message()
    await server.send_text(creator, group, f"/newgame {args}".strip())
    lobby = await server.wait_bot_message(
        group, after=before,
        predicate=lambda m: any(":j:" in (b.callback_data or "") for b in m.all_buttons))
    for person in joiners:
        assert await click_data(server, person, lobby, ":j:", wait=wait) is None
    for _ in range(computers):
        assert await click_data(server, creator, lobby, ":c:", wait=wait) is None
    gid = decode(lobby.all_buttons[0].callback_data)
    assert gid is not None
    if start:
        assert await click_data(server, creator, lobby, ":st:", wait=wait) is None
    return gid.game_id, lobby


def txt(msg: FakeMessage | None) -> str:
    """The text of a message as its reader sees it ("" for none)."""
    return (msg.text or "") if msg is not None else ""


async def lobby_more(server: FakeTelegramServer, user: FakeUser, lobby: FakeMessage) -> None:
    """Open the lobby's «⚙️ Ещё…» page (the rules and the table's settings)."""
    assert await click_data(server, user, lobby, ":m:o") is None
    await server.wait_for(lambda: any(":tp:" in (b.callback_data or "")
                                      for b in lobby.all_buttons), what="the lobby's page")


async def lobby_main(server: FakeTelegramServer, user: FakeUser, lobby: FakeMessage) -> None:
    """Back from the «⚙️ Ещё…» page to the lobby (✅ Готово)."""
    count = lobby.edit_count
    answer = await server.click(user, lobby,
                                predicate=lambda b: (b.callback_data or "").endswith(":m:"))
    assert answer is not None and answer.text is None, answer
    await edited(server, lobby, count)
    await server.wait_for(lambda: any(":st:" in (b.callback_data or "")
                                      for b in lobby.all_buttons), what="the lobby")


async def lobby_setting(server: FakeTelegramServer, user: FakeUser, lobby: FakeMessage,
                        part: str) -> None:
    """Change a setting of the «⚙️ Ещё…» page (the button whose data has ``part``) and go
    back to the lobby."""
    await lobby_more(server, user, lobby)
    assert await click_data(server, user, lobby, part) is None
    await lobby_main(server, user, lobby)
