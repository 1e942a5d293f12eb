"""The outbox with a scripted bot: coalescing, no identical edits, the group's budget,
priorities, deletes, errors.

The budget tests run on an event loop with virtual time (``run_virtual``): the loop's
clock jumps to the next timer instead of sleeping, so a minute of pacing takes no time
and the request times are exact."""

from __future__ import annotations

import asyncio
import math
import random
import selectors
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import pytest
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TimedOut

from bot.tg.io.outbox import GroupBudget, Outbox
from bot.tg.view.render import Button, Rendered

GROUP = -100


@dataclass
class Msg:
    message_id: int


@dataclass
class FakeBot:
    calls: list[tuple[str, int, str]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # loop time of each call
    fail: list[Exception] = field(default_factory=list)
    gate: asyncio.Event | None = None
    next_id: int = 100
    latency: float = 0.0

    async def _step(self, kind: str, chat_id: int, text: str) -> None:
        if self.gate is not None:
            await self.gate.wait()
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.fail:
            raise self.fail.pop(0)
        self.calls.append((kind, chat_id, text))
        self.times.append(asyncio.get_running_loop().time())

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Msg:
        await self._step("send", chat_id, text)
        self.next_id += 1
        return Msg(self.next_id)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                **kw: Any) -> Msg:
        await self._step(f"edit {message_id}", chat_id, text)
        return Msg(message_id)

    async def delete_message(self, chat_id: int, message_id: int, **kw: Any) -> bool:
        await self._step("delete", chat_id, str(message_id))
        return True

    async def send_photo(self, chat_id: int, photo: Any, **kw: Any) -> Msg:
        await self._step("photo", chat_id, str(photo.filename))
        self.next_id += 1
        return Msg(self.next_id)

    async def send_document(self, chat_id: int, document: Any, **kw: Any) -> Msg:
        await self._step("document", chat_id, str(document.filename))
        self.next_id += 1
        return Msg(self.next_id)


def r(text: str) -> Rendered:
    return Rendered(text, ((Button("b", "g1:1:h:"),),))


# --------------------------------------------------------------------------- virtual time


class _VirtualSelector(selectors.SelectSelector):
    """Never blocks: a select that would wait moves the loop's clock instead."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if not ready:
            if timeout is None:
                raise RuntimeError("deadlock: nothing scheduled and nothing to wait for")
            self.now += timeout
        return ready


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        self._virtual = _VirtualSelector()
        super().__init__(self._virtual)

    def time(self) -> float:
        return self._virtual.now


def run_virtual(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    with asyncio.Runner(loop_factory=VirtualLoop) as runner:
        runner.run(main())


def now() -> float:
    return asyncio.get_running_loop().time()


def max_in_window(times: list[float], window: float = 60.0) -> int:
    """The most requests that any ``window`` seconds (half-open) ever saw."""
    best = 0
    for i, start in enumerate(times):
        best = max(best, sum(1 for x in times[i:] if x < start + window))
    return best


# --------------------------------------------------------------------------- slots


async def test_a_burst_becomes_one_edit_and_identical_content_is_never_sent() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    out.put(5, "k", r("one"))
    await out.idle()
    bot.gate = asyncio.Event()
    out.put(5, "k", r("two"))
    await asyncio.sleep(0.01)  # "two" is in flight
    for i in range(50):
        out.put(5, "k", r(f"burst {i}"))
    bot.gate.set()
    await out.idle()
    assert bot.calls == [("send", 5, "one"), ("edit 101", 5, "two"), ("edit 101", 5, "burst 49")]
    out.put(5, "k", r("burst 49"))
    await out.idle()
    assert len(bot.calls) == 3


async def test_a_final_slot_is_forgotten_once_out_and_on_sent_reports_every_request() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    seen: list[tuple[int, bool]] = []
    out.put(5, "t", r("a"), on_sent=lambda mid, digest, anew: seen.append((mid, anew)))
    await out.idle()
    out.put(5, "t", r("b"), final=True)
    await out.idle()
    assert seen == [(101, True), (101, False)]
    assert out.message_id(5, "t") is None  # final: forgotten
    out.send(5, r("reply"))
    await out.idle()
    assert bot.calls[-1] == ("send", 5, "reply") and 5 not in out.queues


async def test_delete_is_queued_and_its_errors_are_ignored() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    out.delete(5, 77)
    await out.idle()
    assert bot.calls == [("delete", 5, "77")]
    bot.fail = [BadRequest("Message to delete not found")]
    out.delete(5, 78)
    out.send(5, r("after"))
    await out.idle()
    assert bot.calls[-1] == ("send", 5, "after")
    bot.fail = [Forbidden("Forbidden: bot was blocked by the user")]
    out.delete(GROUP, 79)
    await out.idle()
    assert GROUP in out.queues  # a failed delete reports nothing and drops nothing


# --------------------------------------------------------------------------- the group's budget


def test_replies_go_at_once_while_the_minute_has_room_and_the_21st_waits() -> None:
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        for i in range(21):
            out.send(GROUP, r(f"reply {i}"))
        await out.idle(600)
        assert [c[2] for c in bot.calls] == [f"reply {i}" for i in range(21)]
        assert bot.times[:20] == [0.0] * 20  # all twenty at once
        assert 60.0 <= bot.times[20] <= 60.1  # the 21st when the first leaves the window

    run_virtual(main)


def test_photos_and_documents_are_paced_like_replies() -> None:
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        out.put(GROUP, "table", r("table 0"))
        await out.idle(600)
        for i in range(1, 4):
            out.put(GROUP, "table", r(f"table {i}"))
        for i in range(19):
            out.send_photo(GROUP, f"p{i}.png", b"png", caption="<b>x</b>")
        out.send_document(GROUP, "game.json", b"{}")
        await out.idle(600)
        kinds = [c[0] for c in bot.calls]
        assert kinds[:20] == ["send"] + ["photo"] * 19  # uploads go before the waiting edit
        assert kinds.count("document") == 1 and bot.calls[-1][0].startswith("edit")
        assert bot.times[19] == 0.0 and bot.times[20] >= 60.0  # the 21st request waits
        assert not out.queues[GROUP].slots.keys() - {"table"}  # one-off slots forgotten

    run_virtual(main)


def test_a_reply_goes_before_pending_table_edits() -> None:
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        out.put(GROUP, "table", r("table 0"))
        await out.idle(600)
        for i in range(1, 6):  # the edit bucket runs dry: the table waits for its pace
            out.put(GROUP, "table", r(f"table {i}"))
            await asyncio.sleep(0.1)
        out.put(GROUP, "table", r("table latest"))
        assert GROUP in out.queues and out.queues[GROUP].dirty == ["table"]
        asked = now()
        out.send(GROUP, r("reply"))
        await asyncio.sleep(0.001)
        assert bot.calls[-1] == ("send", GROUP, "reply") and bot.times[-1] == asked
        await out.idle(600)
        assert bot.calls[-1] == ("edit 101", GROUP, "table latest")
        # both queued together: the new message first
        out.put(GROUP, "table", r("table again"))
        out.send(GROUP, r("second reply"))
        await out.idle(600)
        assert [c[2] for c in bot.calls[-2:]] == ["second reply", "table again"]

    run_virtual(main)


def test_a_burst_of_table_edits_becomes_few_requests_and_ends_on_the_latest() -> None:
    async def main() -> None:
        bot = FakeBot(latency=0.05)
        out = Outbox(bot, group_per_minute=20)
        out.put(GROUP, "table", r("table start"))
        await out.idle(600)
        start = now()
        for i in range(50):  # a move every 0.2 s for 10 s
            out.put(GROUP, "table", r(f"table {i}"))
            await asyncio.sleep(0.2)
        await out.idle(600)
        edits = [c for c in bot.calls if c[0].startswith("edit")]
        assert len(edits) <= 7, edits
        assert edits[-1][2] == "table 49"
        assert bot.times[-1] - start < 15  # the last state shows soon after the burst

    run_virtual(main)


def test_edits_leave_a_reserve_for_replies() -> None:
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        budget = GroupBudget(20)
        assert budget.reserve >= 3
        # a table that changes every half second for two minutes
        for i in range(240):
            out.put(GROUP, "table", r(f"table {i}"))
            await asyncio.sleep(0.5)
            in_window = sum(1 for x in bot.times if x > now() - 60)
            assert in_window <= 20 - budget.reserve
        # ... and then three replies go out at once
        asked = now()
        for i in range(budget.reserve):
            out.send(GROUP, r(f"reply {i}"))
        await asyncio.sleep(0.01)
        replies = [x for c, x in zip(bot.calls, bot.times, strict=True) if c[2].startswith("re")]
        assert len(replies) == budget.reserve and all(x == asked for x in replies)
        await out.idle(600)

    run_virtual(main)


def test_replies_are_answered_at_once_while_tables_deal_at_full_speed() -> None:
    """Two tables in a busy group, each with a new deal's message every second and edits
    in between: a reply every ten seconds never waits (the tables' new messages are paced
    like their edits, and the room a reply took goes back to replies first)."""
    async def main() -> None:
        bot = FakeBot(latency=0.01)
        out = Outbox(bot, group_per_minute=20)
        waits: list[float] = []
        for tick in range(1, 900):  # three minutes in steps of 0.2 s
            for g in (1, 2):
                deal = tick // 5
                out.put(GROUP, f"t{g}:{deal}", r(f"table {g} {deal} {tick}"))
            if tick % 50 == 0:
                asked = now()
                out.send(GROUP, r(f"reply {tick}"))
                await asyncio.sleep(0.1)
                sent = [x for c, x in zip(bot.calls, bot.times, strict=True)
                        if c[2] == f"reply {tick}"]
                waits.append(sent[0] - asked if sent else math.inf)
                await asyncio.sleep(0.1)
            else:
                await asyncio.sleep(0.2)
        assert len(waits) == 17 and max(waits) <= 0.05, str([round(w, 2) for w in waits])
        group = [x for c, x in zip(bot.calls, bot.times, strict=True) if c[1] == GROUP]
        assert max_in_window(group) <= 20
        tables = [c for c in bot.calls if c[2].startswith("table")]
        assert len(tables) > 20  # the tables were shown meanwhile, as the budget allowed
        await out.close()

    run_virtual(main)


def test_a_deals_summary_goes_before_the_next_deals_table() -> None:
    """The final edit of a deal's table (its summary) is put before the next deal's new
    table message: it is sent before it, however the budget paces them."""
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        out.put(GROUP, "t1:1", r("deal 1"))
        for deal in range(1, 9):
            await asyncio.sleep(0.5)
            out.put(GROUP, f"t1:{deal}", r(f"move {deal}"))
            await asyncio.sleep(0.5)
            out.put(GROUP, f"t1:{deal}", r(f"summary {deal}"), final=True)
            out.put(GROUP, f"t1:{deal + 1}", r(f"deal {deal + 1}"))
        await out.idle(600)
        shown = [c[2] for c in bot.calls]
        summaries = [x for x in shown if x.startswith("summary")]
        assert summaries == [f"summary {d}" for d in range(1, 9)]
        # each deal's message ends on its summary before the next deal's message is sent
        for deal in range(2, 9):
            first_of_next = min(i for i, x in enumerate(shown) if x.endswith(f" {deal}"))
            assert shown.index(f"summary {deal - 1}") < first_of_next

    run_virtual(main)


@pytest.mark.parametrize("seed", range(5))
def test_the_budget_is_never_exceeded_in_any_minute(seed: int) -> None:
    async def main() -> None:
        rnd = random.Random(seed)
        bot = FakeBot(latency=0.02)
        out = Outbox(bot, group_per_minute=20)
        for _ in range(600):  # ten minutes of replies, table edits and hand-like slots
            x = rnd.random()
            if x < 0.1:
                out.send(GROUP, r(f"reply {rnd.random()}"))
            elif x < 0.8:
                out.put(GROUP, f"table {rnd.randrange(2)}", r(f"t {rnd.random()}"))
            elif x < 0.9:
                out.delete(GROUP, rnd.randrange(1000))
            else:
                out.put(GROUP, f"new {rnd.random()}", r("n"), final=True)
            await asyncio.sleep(rnd.expovariate(1.0))
        await out.idle(3600)
        group = [x for c, x in zip(bot.calls, bot.times, strict=True) if c[1] == GROUP]
        assert len(group) > 100
        assert max_in_window(group) <= 20

    run_virtual(main)


def test_private_chats_are_not_paced() -> None:
    async def main() -> None:
        bot = FakeBot()
        out = Outbox(bot, group_per_minute=20)
        for i in range(30):
            out.put(7, "hand", r(f"hand {i}"))
            await asyncio.sleep(0)
            await asyncio.sleep(0)
        await out.idle(600)
        assert len(bot.calls) == 30 and bot.times[-1] == 0.0

    run_virtual(main)


# --------------------------------------------------------------------------- errors


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter(0)
async def test_errors() -> None:
    bot = FakeBot()
    out = Outbox(bot)
    blocked: list[int] = []
    moved: list[tuple[int, int]] = []

    async def on_forbidden(chat: int) -> None:
        blocked.append(chat)

    async def on_migrated(old: int, new: int) -> None:
        moved.append((old, new))

    out.on_forbidden = on_forbidden
    out.on_migrated = on_migrated
    # a message that cannot be edited any more is sent anew; "not modified" counts as done
    out.put(7, "k", r("a"))
    await out.idle()
    bot.fail = [BadRequest("Message to edit not found")]
    out.put(7, "k", r("b"))
    await out.idle()
    assert bot.calls[-1] == ("send", 7, "b")
    bot.fail = [BadRequest("Message is not modified: specified new message content ...")]
    out.put(7, "k", r("c"))
    await out.idle()
    out.put(7, "k", r("c"))
    await out.idle()
    assert bot.calls[-1] == ("send", 7, "b")
    # flood control and a network error are retried
    bot.fail = [RetryAfter(0), TimedOut()]
    out.put(7, "k", r("d"))
    await out.idle()
    assert bot.calls[-1][2] == "d"
    # 403 in a private chat: reported, the chat's queue dropped
    bot.fail = [Forbidden("Forbidden: bot was blocked by the user")]
    out.put(8, "x", r("e"))
    await out.idle()
    assert blocked == [8] and 8 not in out.queues
    # a group that became a supergroup: reported, sent again in the new chat
    bot.fail = [ChatMigrated(-1009)]
    out.put(-9, "t", r("f"))
    await out.idle()
    assert moved == [(-9, -1009)] and bot.calls[-1] == ("send", -1009, "f")


# --------------------------------------------------------------------------- forum topics


@dataclass
class TopicBot(FakeBot):
    """Records where each new message went; refuses sends into ``closed`` / ``gone``
    topics as the Bot API does."""

    threads: list[tuple[str, int | None]] = field(default_factory=list)
    closed: set[int] = field(default_factory=set)
    gone: set[int] = field(default_factory=set)

    def _where(self, kind: str, kw: dict[str, Any]) -> None:
        thread = kw.get("message_thread_id")
        if thread in self.gone or thread == 1:
            raise BadRequest("Message thread not found")
        if thread in self.closed:
            raise BadRequest("Topic_closed")
        self.threads.append((kind, thread))

    async def send_message(self, chat_id: int, text: str, **kw: Any) -> Msg:
        self._where(text, kw)
        return await super().send_message(chat_id, text, **kw)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int,
                                **kw: Any) -> Msg:
        assert "message_thread_id" not in kw  # edits need none
        return await super().edit_message_text(text, chat_id, message_id, **kw)

    async def send_photo(self, chat_id: int, photo: Any, **kw: Any) -> Msg:
        self._where("photo", kw)
        return await super().send_photo(chat_id, photo, **kw)

    async def send_document(self, chat_id: int, document: Any, **kw: Any) -> Msg:
        self._where("document", kw)
        return await super().send_document(chat_id, document, **kw)


async def test_new_messages_go_to_their_topic_and_never_to_thread_1() -> None:
    bot = TopicBot()
    out = Outbox(bot)
    out.put(GROUP, "t1:1", r("table"), thread=7)
    out.send(GROUP, r("general"))
    out.send(GROUP, r("reply"), thread=9)
    out.send_photo(GROUP, "a.png", b"x", thread=9)
    out.send_document(GROUP, "a.json", b"{}", thread=7)
    out.send(GROUP, r("one"), thread=1)  # General's id: sent without a thread id
    await out.idle()
    out.put(GROUP, "t1:1", r("table 2"))  # an edit: no thread id (TopicBot checks)
    await out.idle()
    assert sorted(bot.threads, key=str) == sorted(
        [("table", 7), ("general", None), ("reply", 9), ("photo", 9), ("document", 7),
         ("one", None)], key=str)
    # (the replies went first: the table is the last new message)
    assert bot.calls[-1] == (f"edit {out.message_id(GROUP, 't1:1')}", GROUP, "table 2")
    assert out.message_id(GROUP, "t1:1") == 106


async def test_a_closed_topic_waits_and_the_others_go_on() -> None:
    bot = TopicBot(closed={7})
    out = Outbox(bot)
    closed: list[tuple[int, int | None]] = []

    async def on_closed(chat: int, thread: int | None) -> None:
        closed.append((chat, thread))

    out.on_topic_closed = on_closed
    out.put(GROUP, "t1:1", r("table A"), thread=7)
    out.send(GROUP, r("reply A"), thread=7)
    out.put(GROUP, "t2:1", r("table B"), thread=8)
    await out.idle()
    assert closed == [(GROUP, 7)]  # refused once, then nothing is tried for topic 7
    assert [c[2] for c in bot.calls] == ["table B"]
    assert out.paused(GROUP, 7) and not out.paused(GROUP, 8)
    out.put(GROUP, "t1:1", r("table A, later"), thread=7)  # kept, coalesced
    out.put(GROUP, "t2:1", r("table B, later"), thread=8)
    await out.idle()
    assert [c[2] for c in bot.calls] == ["table B", "table B, later"]
    bot.closed.clear()
    out.resume(GROUP, 7)
    await out.idle()
    assert sorted(c[2] for c in bot.calls[2:]) == ["reply A", "table A, later"]
    assert closed == [(GROUP, 7)]


async def test_a_deleted_topic_drops_its_slots_and_is_reported() -> None:
    bot = TopicBot(gone={7})
    out = Outbox(bot)
    gone: list[tuple[int, int | None]] = []

    async def on_gone(chat: int, thread: int | None) -> None:
        gone.append((chat, thread))

    out.on_topic_gone = on_gone
    out.put(GROUP, "t1:1", r("table A"), thread=7)
    out.send(GROUP, r("reply A"), thread=7)
    out.send(GROUP, r("reply B"), thread=8)
    await out.idle()
    assert gone == [(GROUP, 7)]
    assert [c[2] for c in bot.calls] == ["reply B"]
    assert out.message_id(GROUP, "t1:1") is None
    assert not out.queues[GROUP].dirty


def test_topics_share_the_groups_budget() -> None:
    async def main() -> None:
        bot = TopicBot()
        out = Outbox(bot, group_per_minute=20)
        for i in range(30):
            out.send(GROUP, r(f"reply {i}"), thread=7 + i % 3)
        await out.idle(600.0)
        assert len(bot.calls) == 30
        assert max_in_window(bot.times) <= 20

    run_virtual(main)


def test_a_keyboard_as_plain_json_is_what_ptb_would_send() -> None:
    """``keyboard_json`` (sends and edits through the real ``Bot``) gives the Bot API the
    same object as ``markup(...).to_dict()`` (the path of the fakes)."""
    from bot.tg.io.outbox import NO_PREVIEW, NO_PREVIEW_JSON, keyboard_json, markup

    keyboard = ((Button("9♠", "g12:3:a:p9S"), Button("🂡 Туз", "g12:3:a:pAS")),
                (Button("📖 Правила", url="https://example.org/rules"),),
                (Button("💡", "g12:3:h"),))
    built = markup(keyboard)
    assert built is not None
    assert keyboard_json(keyboard) == built.to_dict()
    assert keyboard_json(()) is None and markup(()) is None
    assert NO_PREVIEW.to_dict() == NO_PREVIEW_JSON
