"""What a player reads and presses at the table (issue 47), on the fake Bot API server:
every bid and contract at most two presses away, a marriage's card shown declaring with its
plain lead a deliberate second step, and the running points on the table and in each hand
after every trick."""

from __future__ import annotations

import random
from pathlib import Path

from bot.engine import cards as C
from bot.engine.game import forced_action
from bot.engine.state import BID, CONTRACT, DECLARE, PLAY, Action, GameState, Phase
from bot.engine.views import TableView, public_view, view
from bot.tg.io.app import ThousandApplication
from bot.tg.rooms.service import Session
from bot.tg.view.callbacks import PAGE, decode
from tests.bot.helpers import (
    open_table,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.fakeapi import FakeMessage, FakeTelegramServer, FakeUser

GROUP = -470100


def _page_buttons(msg: FakeMessage, version: int) -> dict[str, str]:
    """The page buttons of a hand message at ``version``: page -> callback data."""
    out = {}
    for b in msg.all_buttons:
        c = decode(b.callback_data)
        if c is not None and c.verb == PAGE and c.version == version:
            out[c.arg] = b.callback_data or ""
    return out


def _actions(msg: FakeMessage, version: int) -> dict[Action, str]:
    out = {}
    for b in msg.all_buttons:
        c = decode(b.callback_data)
        if c is not None and c.version == version and c.action() is not None:
            a = c.action()
            assert a is not None and a not in out
            out[a] = b.callback_data or ""
    return out


def _hand_message(server: FakeTelegramServer, user: FakeUser, gid: int,
                  version: int) -> FakeMessage | None:
    for msg in reversed(server.chat(user).bot_messages()):
        for b in msg.all_buttons:
            c = decode(b.callback_data)
            if c is not None and c.game_id == gid and c.version == version:
                return msg
    return None


def _points(v: TableView) -> list[int]:
    """Each seat's points from what everybody saw: its tricks' cards and its marriages."""
    pts = [0] * v.n
    for tr in v.tricks:
        pts[tr.winner] += sum(C.POINTS[c] for _, c in tr.cards)
    for m in v.declared:
        pts[m.seat] += m.value
    return pts


class Walk:
    """People at a group table, pressing their buttons and reading every page."""

    def __init__(self, server: FakeTelegramServer, app: ThousandApplication, s: Session,
                 gid: int, people: dict[int, FakeUser]) -> None:
        self.server, self.app, self.s, self.gid, self.people = server, app, s, gid, people
        self.pages_opened = 0
        self.rng = random.Random(3)
        self.walked = {BID: 0, CONTRACT: 0}  # turns whose keyboards were walked
        self.paged_values = {BID: 0, CONTRACT: 0}  # ... with a "more" page
        self.from_more = {BID: 0, CONTRACT: 0}  # values pressed on the "more" page
        self.marriage_turns = 0
        self.plain_leads = 0
        self.declared = 0
        self.tricks_checked = 0

    async def press(self, user: FakeUser, msg: FakeMessage, data: str) -> None:
        answer = await self.server.press(user, user.chat, msg.message_id, data)
        assert answer is not None and answer.text is None, answer

    async def open_page(self, user: FakeUser, msg: FakeMessage, data: str) -> None:
        """A page press: only the presser's hand message changes, the game does not."""
        count, before, st = msg.edit_count, len(self.server.requests), self.s.state
        await self.press(user, msg, data)
        await self.server.wait_for(lambda: msg.edit_count > count, what="the page's edit")
        await service(self.app).outbox.idle(5.0)
        assert self.s.state is st
        sent = [(r.method, r.chat_id, r.params.get("message_id"))
                for r in self.server.requests[before:]
                if r.method.startswith(("send", "edit", "delete"))]
        assert sent and all(x[1:] == (user.id, msg.message_id) for x in sent), sent
        self.pages_opened += 1

    async def turn(self, st: GameState) -> None:
        seat = st.to_act
        user = self.people[seat]
        v = view(st, seat)
        msg = await self.server.wait_for(lambda: _hand_message(self.server, user, self.gid,
                                                               st.version),
                                         what=f"the hand message of seat {seat}")
        first = _actions(msg, st.version)
        pages = _page_buttons(msg, st.version)
        legal = set(v.legal)
        kinds = {a.kind for a in legal}
        action = smart(v, self.rng)
        if v.phase in (Phase.BIDDING, Phase.CONTRACT) and kinds & {BID, CONTRACT}:
            kind = BID if v.phase == Phase.BIDDING else CONTRACT
            # the first page, then the other page and back: every value, 1 or 2 presses
            more: dict[Action, str] = {}
            if "m" in pages:
                first_text = txt(msg)
                await self.open_page(user, msg, pages["m"])
                more = _actions(msg, st.version)
                assert more and not set(more) & set(first)
                assert txt(msg) == first_text  # the same question, other buttons
                back = _page_buttons(msg, st.version)
                assert set(back) == {""}
                await self.open_page(user, msg, back[""])
                assert _actions(msg, st.version) == first
                self.paged_values[kind] += 1
            assert set(first) | set(more) == legal
            values = [a.value for a in legal if a.kind == kind]
            round_values = {x for x in values if x % 10 == 0}
            assert round_values <= {a.value for a in first if a.kind == kind}
            self.walked[kind] += 1
            if more and self.from_more[kind] == 0:  # a value of the other page, pressed
                action = min(more, key=lambda a: a.value)
                await self.open_page(user, msg, pages["m"])
                await self.press(user, msg, more[action])
                self.from_more[kind] += 1
                await self.moved(st, action)
                return
        elif v.phase == Phase.PLAY and DECLARE in kinds:
            self.marriage_turns += 1
            declaring = {a.card for a in legal if a.kind == DECLARE}
            labels = [b.text for b in msg.all_buttons]
            for c in declaring:  # shown declaring, never also plain beside it
                assert Action(DECLARE, card=c) in first and Action(PLAY, card=c) not in first
                assert not any(x == C.fmt(c) for x in labels), labels
            assert set(pages) == {"l"} and "Без марьяжа…" in labels
            if self.plain_leads == 0:  # the deliberate second step, taken once
                card = min(declaring)
                await self.open_page(user, msg, pages["l"])
                plain = _actions(msg, st.version)
                assert set(plain) == {Action(PLAY, card=c) for c in declaring}
                assert "💍" not in " ".join(b.text for b in msg.all_buttons)
                assert "без марьяжа" in txt(msg)
                await self.press(user, msg, plain[Action(PLAY, card=card)])
                self.plain_leads += 1
                after = await self.moved(st, Action(PLAY, card=card))
                d = after.deal
                before = st.deal
                assert d is not None and before is not None
                assert len(d.declared) == len(before.declared)  # no marriage written
                return
            self.declared += 1
        await self.press(user, msg, (first if action in first else {})[action])
        await self.moved(st, action)

    async def moved(self, st: GameState, action: Action) -> GameState:
        s = self.s
        await self.server.wait_for(lambda: s.state is not st, what=f"the move {action}")
        assert s.state is not None
        return s.state

    async def check_points(self, st: GameState) -> None:
        """After a trick: the declarer's points against the contract on the group's table
        and in every hand, and each defender's."""
        pv = public_view(st)
        pts = _points(pv)
        decl = pv.declarer
        group = self.server.chat(GROUP)
        names = {i: self.people[i].first_name for i in self.people}
        want = f"Очки: {names[decl]} — набрано {pts[decl]} из {pv.contract}"
        others = [f"{names[x]} {pts[x]}" for x in sorted(pv.active)
                  if x != decl and pv.barrel[x] < 0]

        def table_shows() -> bool:
            msg = group.last_bot_message()
            return msg is not None and any(line.startswith(want) and all(o in line for o in others)
                                           for line in txt(msg).split("\n"))

        await self.server.wait_for(table_shows, what=f"{want!r} on the table")
        for seat, user in self.people.items():
            mine = want.replace(names[decl], "вы") if seat == decl else want

            def hand_shows(user: FakeUser = user, mine: str = mine) -> bool:
                return any(mine in txt(m) for m in self.server.chat(user).bot_messages())

            await self.server.wait_for(hand_shows, what=f"{mine!r} in {user.first_name}'s hand")
        self.tricks_checked += 1


async def test_bids_marriages_and_running_points_at_a_group_table(
        server: FakeTelegramServer, db: Path) -> None:
    people = [server.add_user(4701 + i, name) for i, name in enumerate(["Анна", "Борис", "Вера"])]
    server.add_group(GROUP, "Друзья", members=people[1:], admins=people[:1])
    async with running(server, db, seed=47) as app:
        await start_private(server, *people)
        gid, _ = await open_table(server, app, GROUP, people[0], people[1:], args="3")
        s = session(app, gid)
        assert s is not None and s.state is not None
        seats = {i: next(p for p in people if p.id == s.seats[i].user_id) for i in range(3)}
        walk = Walk(server, app, s, gid, seats)
        tricks_seen = 0
        for _ in range(2000):
            st = s.state
            assert st is not None
            d = st.deal
            if st.phase == Phase.PLAY and d is not None and d.tricks and not d.trick \
                    and len(d.tricks) != tricks_seen:
                tricks_seen = len(d.tricks)
                await walk.check_points(st)
            if d is not None and not d.tricks:
                tricks_seen = 0
            if s.status != "playing" or st.phase == Phase.GAME_OVER:
                break
            if walk.plain_leads and walk.declared and all(walk.from_more.values()) \
                    and walk.tricks_checked >= 16:
                break
            if s.forced and forced_action(st) is not None:
                def moved(st: GameState = st) -> bool:
                    return s.state is not st

                await server.wait_for(moved, what="a forced move")
                continue
            await walk.turn(st)
        assert walk.walked[BID] >= 5 and walk.walked[CONTRACT] >= 2, walk.walked
        assert all(walk.paged_values.values()), walk.paged_values
        assert all(walk.from_more.values()), walk.from_more
        assert walk.marriage_turns >= 2 and walk.plain_leads == 1 and walk.declared >= 1
        assert walk.tricks_checked >= 16 and walk.pages_opened >= 6
        await server.send_text(people[0], GROUP, "/stop")
        await server.wait_for(lambda: s.status != "playing")
    server.assert_clean()
