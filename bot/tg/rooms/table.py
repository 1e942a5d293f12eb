"""The table room: the path of every move, once a press has reached it (``buttons.py``).

    ``game_press``: seat, turn, version, legal → ``_commit``: ``engine.apply`` →
    ``storage.append_action`` (one transaction; nothing is shown before it) → ``refresh``:
    render the views → ``outbox.put`` → ``schedule``: drive the computer seats or arm the
    turn timer.

Computer moves (``_drive``) and moves for absent people (``_time_out``) take the same path
through ``_machine_move``; a storage error there is retried with backoff.  The replies that
follow a press at once (shown in its edit) go in one transaction (``_replies``,
``storage.append_actions``).

The table room plays a game and shows it; it calls no other room.  What it changes of a
table it asks the table's owner (``owner.py``) to change and store: the moves
(``TableOwner.commit``: one write for a press, or for a press's replies), the seats handed
to the computer and back, the pace, the end.  It shows the table in answer to the owner's
events, wired in ``service.py``: ``MovesStored`` (``moved``), ``SeatChanged`` and
``SettingChanged`` (``seat_changed``, ``setting_changed``), ``GameStarted`` (``started``),
``GameStopped`` (``stopped``).  Its one other upward need is the signal ``TableHooks.reload``
(the restore room rebuilds a game whose stored copy is newer than memory's), wired there too.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.engine.game import apply, forced_action
from bot.engine.record import last_trick
from bot.engine.state import Action, GameState, IllegalAction, Phase
from bot.engine.views import public_view, view
from bot.i18n import esc, t
from bot.tg.model import (
    BY_AUTO,
    BY_COMPUTER,
    BY_FORCED,
    BY_HUMAN,
    BY_TIMEOUT,
    KEEPER,
    UNHURRIED,
    Event,
    deal_number,
    is_inline_place,
    move_events,
    sheet_row,
)
from bot.tg.rooms.base import Kit
from bot.tg.rooms.events import (
    GameStarted,
    GameStopped,
    MovesStored,
    SeatChanged,
    SettingChanged,
)
from bot.tg.rooms.owner import Shows, TableOwner
from bot.tg.rooms.session import (
    AWAY,
    AWAY_AFTER,
    Answer,
    Backoff,
    Reply,
    Session,
    UserRef,
    hand_key,
    hints_allowed,
    message_link,
    reminder_key,
    shown_message,
    table_key,
)
from bot.tg.view import callbacks as cb
from bot.tg.view import inline as RI
from bot.tg.view import keepers as K
from bot.tg.view import render as R
from storage import (
    StatusConflict,
    StorageError,
    VersionConflict,
)

log = logging.getLogger(__name__)

REPLIES_MAX = 12  # moves stored in one transaction by _replies (a press's replies)


async def _no_reload(s: Session) -> None:
    raise NotImplementedError("TableHooks.reload is set by the service")


@dataclass
class TableHooks:
    """The table's upward signal (wired by ``GameService`` after the rooms are built)."""

    reload: Callable[[Session], Awaitable[None]] = _no_reload
    """Storage disagrees with memory (another process?): rebuild the session."""


class TableRoom:
    """Moves, the table and hand messages, computer seats and turn timers."""

    def __init__(self, kit: Kit, owner: TableOwner, hooks: TableHooks) -> None:
        self.storage = kit.storage
        self.outbox = kit.outbox
        self.thinker = kit.thinker
        self.coord = kit.coord
        self.config = kit.config
        self.registry = kit.registry
        self.people = kit.people
        self.tasks = kit.tasks
        self.owner = owner
        self.hooks = hooks

    def resume(self, s: Session) -> None:
        """A background task of ``s`` died (``Tasks``): its moves and timers re-armed."""
        if self.tasks.closing or not self.registry.live(s):
            return
        if s.ids_dirty:
            self.owner.save(s)
        self.schedule(s)

    def _want_lease(self, s: Session) -> None:
        """Several processes: ``s`` needs its timers or computer moves run but this process
        does not hold its lease: it takes it if nobody holds it, then schedules."""
        if s.claiming or self.tasks.closing:
            return
        s.claiming = True

        async def run() -> None:
            try:
                if await self.coord.claim(s.game_id) and self.registry.live(s):
                    self.schedule(s)
            finally:
                s.claiming = False

        self.tasks.spawn(s, run(), f"lease:{s.game_id}")

    async def game_press(self, s: Session, c: cb.Callback, user: UserRef,
                         reply: Reply | None = None) -> Answer:
        lang = self.people.lang_for_user(user.id) if not s.solo else s.lang
        st = s.state
        if s.status != "playing" or st is None:
            return Answer(t(lang, "popup.stale"))
        if c.verb == cb.HAND:
            seat = s.seat_of(user.id)
            if seat < 0:
                return Answer(t(lang, "popup.not_seated"))
            await self._back_from_away(s, seat)
            return Answer(R.hand_popup(lang, view(st, seat)), alert=True)
        if c.verb == cb.SCORE:
            return Answer(R.totals_popup(lang, public_view(st), s.labels()), alert=True)
        seat = s.seat_of(user.id)
        if seat < 0:
            return Answer(t(lang, "popup.not_seated"))
        back = await self._back_from_away(s, seat)
        if c.version != st.version:
            return Answer(t(lang, "autopilot.off_popup") if back else t(lang, "popup.stale"))
        if s.seats[seat].auto:
            return Answer(t(lang, "popup.auto"))
        if c.verb == cb.PAGE:  # another page of the seat's own buttons: no game state changes
            return self._page_press(s, st, seat, c.arg, lang)
        action = c.action()
        mine = view(st, seat)
        if st.to_act != seat and (action is None or action not in mine.offers):
            # (a redeal request may come out of turn: four nines with redeal_after_pass)
            name = s.seats[st.to_act].name if st.to_act >= 0 else "—"
            return Answer(t(lang, "popup.not_your_turn", name=name))
        if action is None or (action not in mine.legal and action not in mine.offers):
            return Answer(t(lang, "popup.unknown"))
        # The move is stored (one transaction) before the presser or anyone else is answered.
        try:
            await self._commit(s, seat, action, BY_HUMAN)
        except IllegalAction:  # pragma: no cover - checked above
            return Answer(t(lang, "popup.unknown"))
        except (VersionConflict, StatusConflict):
            await self.hooks.reload(s)
            return Answer(t(lang, "popup.stale"))
        except StorageError as e:
            log.warning("game %s: a move of seat %s was not stored: %s", s.game_id, seat, e)
            return Answer(t(lang, "guard.not_saved"), alert=True)
        s.touched = self.config.clock()
        return Answer()

    def _page_press(self, s: Session, st: GameState, seat: int, page: str,
                    lang: str) -> Answer:
        """Show another page of the seat's buttons (callbacks.PAGE): only its hand message is
        edited, and the page is kept until the game moves on."""
        if st.to_act != seat:
            name = s.seats[st.to_act].name if st.to_act >= 0 else "—"
            return Answer(t(lang, "popup.not_your_turn", name=name))
        s.hand_pages[seat] = (st.version, page)
        cur = deal_number(st)
        self.put_hand(s, seat, cur, R.render_hand(lang, view(st, seat), self.info(s, cur), page))
        return Answer()

    async def _commit(self, s: Session, seat: int, action: Action, by: str) -> None:
        """Apply and store one move (the caller holds ``s.lock``); raises IllegalAction."""
        await self._commit_all(s, [(seat, action, by)])

    async def _commit_all(self, s: Session, moves: list[tuple[int, Action, str]]) -> None:
        """Apply moves that follow each other and have the owner store them in ONE write
        (the caller holds ``s.lock``; raises IllegalAction, and nothing is stored).  Several
        only for the computers' replies shown with a press (``_replies``): a person's press
        is stored alone, before it is answered.  What follows is ``moved``'s (the owner's
        ``MovesStored``, published once stored)."""
        before = s.state
        assert before is not None
        states = [before]
        for seat, action, _ in moves:
            states.append(apply(states[-1], action, seat))
        await self.owner.commit(s, moves, states, self._shows(s, moves, states))

    async def moved(self, e: MovesStored) -> None:
        """Moves are stored (``MovesStored``): the table's lines, the reminders, the
        timeouts, the messages (merged with the replies that follow at once) and what
        comes next — the computers, the turn timer; the end of the game."""
        s, moves, states, after = e.session, e.moves, e.states, e.after
        for i, (seat, action, by) in enumerate(moves):
            evs = move_events(states[i], states[i + 1], seat, str(action), by)
            if evs:
                s.events.setdefault(deal_number(states[i]), []).extend(evs)
        seat, _, by = moves[-1]
        for earlier, _, _ in moves[:-1]:  # (computer or forced moves: no timeouts)
            if not (s.seats[earlier].auto and s.seats[earlier].why in (AWAY, KEEPER)):
                self.forget_reminder(s, earlier)
        going_away = (by == BY_TIMEOUT and not s.seats[seat].auto
                      and s.timeouts.get(seat, 0) + 1 >= AWAY_AFTER)
        if going_away:  # the reminder becomes the one private line about the autopilot
            uid = s.seats[seat].user_id
            s.reminded.add(seat)
            self.outbox.put(uid, reminder_key(s.game_id, seat),
                            R.Rendered(t(self.people.lang_for_user(uid), "autopilot.private")))
        elif not (s.seats[seat].auto and s.seats[seat].why in (AWAY, KEEPER)):
            self.forget_reminder(s, seat)
        if by == BY_HUMAN:
            s.timeouts.pop(seat, None)
        elif by == BY_TIMEOUT:
            s.timeouts[seat] = s.timeouts.get(seat, 0) + 1
        over = after.phase == Phase.GAME_OVER
        if by == BY_HUMAN:  # the computers' replies to this press merge into its edit
            s.merge_until = self.config.clock() + self.config.move_delay
        if not over and self._replies_follow(s, after):
            self._refresh_later(s)
        else:
            self.refresh(s)
        if over:
            self.registry.unregister(s)  # (then the owner's ``GameOver``)
        elif by == BY_TIMEOUT and s.timeouts[seat] >= AWAY_AFTER and not s.seats[seat].auto:
            # twice in a row nobody answered: the computer plays on at normal speed until
            # the person presses anything again
            await self.set_auto(s, seat, True, AWAY)
        else:
            self.schedule(s)

    def forget_reminder(self, s: Session, seat: int) -> None:
        """The turn of ``seat`` is over: its reminder (if any) is deleted."""
        if seat not in s.reminded:
            return
        s.reminded.discard(seat)
        s.pings.pop(seat, None)
        self.owner.forget_ping(s, seat)
        uid = s.seats[seat].user_id
        key = reminder_key(s.game_id, seat)
        mid = self.outbox.message_id(uid, key)
        self.outbox.forget(uid, key)
        if mid is not None:
            self.outbox.delete(uid, mid)

    def deadline(self, s: Session, st: GameState) -> float | None:
        """The stored deadline of the turn that begins now at ``st`` (``owner.deadline``)."""
        return self.owner.deadline(s, st)

    def next_moment(self, pace: str, deadline: float, now: float, pings: int) -> float | None:
        """When the turn timer of a turn whose stored deadline is ``deadline`` next acts
        after ``now`` (a ping, the reminder, the timeout), ``pings`` pings of the turn being
        sent; None: it has nothing more to do (an unhurried turn after its two pings).  An
        evicted table is rebuilt just before it (restore.py); waking early costs nothing."""
        cfg = self.config
        timeout = cfg.timeout(pace)
        if timeout is None:
            began = deadline - cfg.unhurried_ping_after
            moments = [deadline, began + cfg.unhurried_ping_again][pings:]
        else:
            began, half = deadline - timeout, deadline - timeout / 2
            ping = began + cfg.ping_quiet
            moments = ([ping] if pings < 1 and ping < half else []) + [half, deadline]
        future = [m for m in moments if m > now]
        if future:
            return min(future)
        return None if timeout is None else deadline

    def began(self, s: Session, deadline: float) -> float:
        """When the turn whose stored deadline is ``deadline`` began (see ``deadline``)."""
        timeout = self.config.timeout(s.pace)
        return deadline - (timeout if timeout is not None else self.config.unhurried_ping_after)

    def info(self, s: Session, deal: int) -> R.TableInfo:
        keepers = None if s.solo else K.KeepersInfo(  # the keepers' controls (keepers.py)
            K.seat_rev(s.seats), tuple(K.seat_state(x) for x in s.seats))
        return R.TableInfo(s.game_id, s.labels(), tuple(s.events.get(deal, ())), s.solo,
                           hints_allowed(s), s.pace,
                           s.since if s.pace == UNHURRIED and s.since else None,
                           now=self.config.clock(), keepers=keepers,
                           webapp=self.config.webapp_url,
                           link="" if s.solo else self.config.table_link(s.game_id))

    def _replies_follow(self, s: Session, st: GameState) -> bool:
        """Within a press's merge window, is the next move made at once (a computer seat or
        a forced move)?  Then its messages wait for it: one edit shows them all."""
        if s.status != "playing" or st.to_act < 0 or self.config.clock() >= s.merge_until:
            return False
        seat = st.to_act
        return s.seats[seat].played_by_computer or self._forced_action(s, st, seat) is not None

    def _refresh_later(self, s: Session) -> None:
        """Show the messages when the merge window closes, unless a refresh comes first."""
        if s.merge_timer is None:
            delay = max(0.0, s.merge_until - self.config.clock())
            s.merge_timer = asyncio.get_running_loop().call_later(delay, self._merge_due, s)

    def _merge_due(self, s: Session) -> None:
        s.merge_timer = None
        if not self.tasks.closing and self.registry.live(s):
            self.refresh(s)

    def refresh(self, s: Session) -> None:
        """Hand the current messages of ``s`` to the outbox (finishing an ended deal's)."""
        if s.merge_timer is not None:
            s.merge_timer.cancel()
            s.merge_timer = None
        st = s.state
        if st is None:
            return
        cur = deal_number(st)
        over = st.phase == Phase.GAME_OVER or s.status in ("finished", "stopped")
        if s.shown_deal and (s.shown_deal != cur or over):
            self._finish_deal(s, s.shown_deal, stopped=s.status == "stopped",
                              then=0 if over else cur)
            if s.keepers_menu:  # the keepers' menu goes with the deal it was opened in
                s.keepers_menu = ""
                self.outbox.withdraw(s.chat_id, K.menu_key(s.game_id))
        if over:
            s.shown_deal = 0
            for seat in list(s.reminded):  # no ping outlives its game
                self.forget_reminder(s, seat)
            self.owner.unpin(s)
            return
        s.shown_deal = cur
        table, hands, digests = self._render(s, st, cur)
        s.rendered = None  # (kept only from the commit that stored it to its refresh)
        if table is not None:
            self._put_table(s, cur, table, digest=digests.get(-1))
        for seat, content in hands.items():
            self.put_hand(s, seat, cur, content, digest=digests.get(seat))

    def _render(self, s: Session, st: GameState, cur: int, lines: tuple[Event, ...] = ()
                ) -> tuple[R.Rendered | None, dict[int, R.Rendered], dict[int, str]]:
        """The table message and the hands of deal ``cur`` at ``st`` (``lines``: the table's
        lines of moves not stored yet, ``_commit_all``), and their digests if known (seat
        -1: the table).  The render made to store what the messages will show (``_shows``)
        is kept for the refresh that shows them, if nothing they show changed meanwhile."""
        langs = tuple(self.people.lang_for_user(who.user_id) if not s.solo else s.lang
                      for who in s.seats)
        key = (tuple(s.events.get(cur, ())) + lines, s.lang, langs, s.pace, s.since,
               s.keepers_menu, s.settings.hints, tuple(sorted(s.hand_pages.items())),
               tuple((x.user_id, x.name, x.kind, x.auto, x.why) for x in s.seats))
        kept = s.rendered
        if kept is not None and kept[0] is st and kept[1] == key:
            return kept[2], kept[3], kept[4]
        info = self.info(s, cur)
        if lines:
            info = dataclasses.replace(info, events=info.events + lines)
        table = None if s.solo else RI.render_inline_table(s.lang, public_view(st), info) \
            if is_inline_place(s.chat_id) else R.render_table(s.lang, public_view(st), info)
        hands: dict[int, R.Rendered] = {}
        for seat, who in enumerate(s.seats):
            if who.kind != "human" or (who.auto and who.why in ("leave", "blocked")):
                continue
            page = s.hand_pages.get(seat)  # (a page of its buttons, while the turn lasts)
            hands[seat] = R.render_hand(langs[seat], view(st, seat), info,
                                        page[1] if page and page[0] == st.version else "")
        digests: dict[int, str] = {}
        s.rendered = (st, key, table, hands, digests)
        return table, hands, digests

    def _shows(self, s: Session, moves: list[tuple[int, Action, str]],
               states: list[GameState]) -> Callable[[], Shows] | None:
        """What the messages will show once these moves are stored, if they are shown at
        once (not merged with replies still to come, not a new deal, not the end): stored
        with the moves (``owner.commit``), so that a restart never edits a message to what
        it shows already.  Rendered when the owner asks (after the turn's deadline is
        set: an unhurried table shows when the turn began)."""
        after = states[-1]
        cur = deal_number(after)
        if after.phase == Phase.GAME_OVER or s.paused or s.status != "playing" \
                or s.shown_deal != cur or deal_number(states[0]) != cur:
            return None
        merge_until = self.config.clock() + self.config.move_delay \
            if moves[-1][2] == BY_HUMAN else s.merge_until
        if after.to_act >= 0 and self.config.clock() < merge_until:
            seat = after.to_act
            if s.seats[seat].played_by_computer \
                    or self._forced_action(s, after, seat) is not None:
                return None  # (the replies follow: shown with them)
        lines = tuple(ev for i, (seat, action, by) in enumerate(moves)
                      for ev in move_events(states[i], states[i + 1], seat, str(action), by))

        def shows() -> Shows:
            table, hands, digests = self._render(s, after, cur, lines)
            if table is not None:
                digests[-1] = table.digest()
            digests.update((seat, h.digest()) for seat, h in hands.items())
            return Shows(cur, digests.get(-1), {seat: digests[seat] for seat in hands})

        return shows

    def _put_table(self, s: Session, deal: int, content: R.Rendered, final: bool = False, *,
                   digest: str | None = None) -> None:
        if is_inline_place(s.chat_id):  # an inline table: its one message (no chat)
            if s.inline is not None:
                self.owner.show_inline(s, content if not final else RI.render_inline_end(
                    s.lang, content.text, self.config.table_link(s.game_id)))
            return
        def sent(mid: int, digest: str, new: bool) -> None:
            self.owner.table_shown(s, deal, mid, digest, new, final)

        self.outbox.put(s.chat_id, table_key(s.game_id, deal), content, final=final,
                        game=s.game_id, on_sent=sent, thread=s.thread_id, digest=digest)

    def put_hand(self, s: Session, seat: int, deal: int, content: R.Rendered,
                 final: bool = False, *, digest: str | None = None) -> None:
        user_id = s.seats[seat].user_id

        def sent(mid: int, digest: str, new: bool) -> None:
            self.owner.hand_shown(s, seat, deal, mid, digest, new)

        self.outbox.put(user_id, hand_key(s.game_id, seat, deal), content, final=final,
                        on_sent=sent, game=s.game_id, digest=digest)

    def _finish_deal(self, s: Session, deal: int, *, stopped: bool = False,
                     then: int = 0) -> None:
        st = s.state
        assert st is not None
        res = next((h for h in st.history if h.number == deal), None)
        # one message says a redeal: the deal's messages become deal ``then``'s, whose table
        # opens with the redeal's line (view/table.py), not a summary and then that line
        redeal = res is not None and res.outcome == "redeal" and then > deal
        labels = s.labels()
        # its last trick opens the summary: the table goes from that trick's first cards
        # to the summary, so this is where its last card and who took it are seen
        last = last_trick(st.rules, res) if res is not None else None
        if res is None:  # the deal did not end (a stopped game)
            content = R.render_stopped(s.lang, st.totals, labels)
        else:
            content = R.render_deal_end(s.lang, sheet_row(res), labels, stopped=stopped,
                                        game_id=s.game_id, last=last)
        if is_inline_place(s.chat_id):  # (a redeal: the next table opens with its line)
            if not redeal:
                self._put_table(s, deal, content, final=True)
        elif not s.solo and not (redeal and self.outbox.rename(
                s.chat_id, table_key(s.game_id, deal), table_key(s.game_id, then))):
            self._put_table(s, deal, content, final=True)
        for seat, who in enumerate(s.seats):
            if who.kind != "human" or (who.auto and who.why in ("leave", "blocked")):
                continue
            if redeal and self.outbox.rename(who.user_id, hand_key(s.game_id, seat, deal),
                                             hand_key(s.game_id, seat, then)):
                continue
            lang = self.people.lang_for_user(who.user_id) if not s.solo else s.lang
            if res is None:
                c = R.render_stopped(lang, st.totals, labels)
            else:
                c = R.render_deal_end(lang, sheet_row(res), labels, stopped=stopped,
                                      game_id=s.game_id, last=last, me=seat)
            self.put_hand(s, seat, deal, c, final=True)
        s.events = {k: v for k, v in s.events.items() if k > deal}

    def schedule(self, s: Session) -> None:
        """Drive computer seats, or arm the turn timer of the person to act."""
        st = s.state
        if self.tasks.closing or st is None or s.status != "playing" or st.to_act < 0:
            return
        if s.paused:  # its topic is closed: nothing runs until it opens (membership.py)
            return
        if not self.coord.owns(s.game_id):  # another process runs it, or nobody yet
            self._want_lease(s)
            return
        seat = st.to_act
        if s.seats[seat].played_by_computer or self._forced_action(s, st, seat) is not None:
            if s.driver is None or s.driver.done():
                s.driver = self.tasks.spawn(s, self._drive(s), f"drive:{s.game_id}")
        elif not s.solo:
            deadline = self.deadline(s, st)
            if deadline is not None:
                self.arm(s, st.version, deadline)

    @staticmethod
    def _forced_action(s: Session, st: GameState, seat: int) -> Action | None:
        """A person's move that is forced on public facts alone (the last card, a pass
        forced by the rules), played at once unless the table turned that off.  A move
        that is the only one because of the hand (one card of the suit led) still waits
        for the press: answering it at once would show the hand to the table."""
        if not s.forced or st.to_act != seat:
            return None
        return forced_action(st)

    def arm(self, s: Session, version: int, deadline: float) -> None:
        if s.timer is not None and not s.timer.done() and s.timer is not asyncio.current_task():
            s.timer.cancel()
        s.deadline = deadline  # (an idle game may leave memory until shortly before it)
        s.timer = self.tasks.spawn(s, self._wait_turn(s, version, deadline),
                                   f"timer:{s.game_id}")

    def _move_seed(self, s: Session, st: GameState, seat: int) -> int:
        return (s.seed * 1000003 + st.version * 31 + seat) & 0x7FFFFFFF

    async def _machine_move(self, s: Session, st: GameState,
                            moves: list[tuple[int, Action, str]], backoff: Backoff) -> bool:
        """Store moves the computer chose (or forced ones) from ``st``, in one transaction;
        False if they must be tried again later (the database did not answer).  Stale
        states are skipped (True)."""
        async with s.lock:
            if s.state is not st or s.status != "playing" or not self.coord.owns(s.game_id) \
                    or s.paused:
                return True  # (another process runs this game now: coord.py; or paused)
            for seat, _, by in moves:
                if by in (BY_COMPUTER, BY_AUTO) and not s.seats[seat].played_by_computer:
                    return True  # a person took the seat meanwhile (keepers.py)
            try:
                await self._commit_all(s, moves)
            except (VersionConflict, StatusConflict):
                await self.hooks.reload(s)
                return True
            except StorageError as e:
                backoff.failed(e)
                return False
        backoff.ok()
        return True

    async def _move_at(self, s: Session, st: GameState) -> tuple[int, Action, str] | None:
        """The move made at ``st`` without a press: the computer seat's (thought out now,
        not paced) or a person's forced one; None when it is a person's to press."""
        seat = st.to_act
        who = s.seats[seat]
        if who.played_by_computer:
            level = who.level if who.computer else self.config.computer_level
            action = await self.thinker.choose(view(st, seat), level,
                                               self._move_seed(s, st, seat))
            return seat, action, BY_COMPUTER if who.computer else BY_AUTO
        forced = self._forced_action(s, st, seat)
        return None if forced is None else (seat, forced, BY_FORCED)

    async def _replies(self, s: Session, st: GameState,
                       first: tuple[int, Action, str]) -> list[tuple[int, Action, str]]:
        """``first`` and the moves made at once after it within a press's merge window (a
        computer seat's, a forced one), up to the next person's turn: they are shown
        together in one edit, so they are stored together too (one transaction, one
        COMMIT instead of one each).  Thinking for them stores nothing; a state that
        changes meanwhile makes the whole list stale (``_machine_move``)."""
        moves = [first]
        cur = st
        while len(moves) < REPLIES_MAX:
            seat, action, _ = moves[-1]
            try:
                cur = apply(cur, action, seat)
            except IllegalAction:
                return moves[:-1] or moves  # (_commit_all raises for a lone illegal move)
            if cur.phase == Phase.GAME_OVER or not self._replies_follow(s, cur):
                break
            reply = await self._move_at(s, cur)
            if reply is None or s.state is not st:
                break
            moves.append(reply)
        return moves

    async def _drive(self, s: Session) -> None:
        backoff = Backoff(s.game_id, "a computer move")
        chosen: tuple[GameState, list[tuple[int, Action, str]]] | None = None
        while not self.tasks.closing:
            st = s.state
            if st is None or s.status != "playing" or st.to_act < 0 or s.paused:
                return
            if not self.coord.owns(s.game_id):  # the lease went to another process
                return
            computer = s.seats[st.to_act].played_by_computer
            if not computer and self._forced_action(s, st, st.to_act) is None:
                return  # a person's turn (a forced move of theirs is played at once)
            if chosen is None or chosen[0] is not st:
                # replies to a press come at once (shown with it); others are paced
                if computer and self.config.move_delay \
                        and self.config.clock() >= s.merge_until:
                    await asyncio.sleep(self.config.move_delay)
                first = await self._move_at(s, st)
                if first is None:  # a person took the seat meanwhile
                    continue
                chosen = (st, await self._replies(s, st, first))
            if not await self._machine_move(s, st, chosen[1], backoff):
                await backoff.wait()
            if not self.registry.live(s):
                return

    def _turn_of(self, s: Session, version: int) -> int:
        """The seat of a person whose turn at ``version`` is still waiting (-1: it is not)."""
        st = s.state
        if st is None or st.version != version or s.status != "playing" or s.paused \
                or st.to_act < 0 or not self.registry.live(s):
            return -1
        who = s.seats[st.to_act]
        return st.to_act if who.kind == "human" and not who.auto else -1

    def pings_sent(self, s: Session, seat: int, version: int) -> int:
        """The pings sent for the turn of ``seat`` at ``version`` (kept in memory, and in
        ``messages.pings`` for a rebuilt session)."""
        mine = s.pings.get(seat)
        if mine is not None and mine[0] == version:
            return mine[1]
        stored = s.messages.pings.get(seat)
        if stored is not None and stored.version == version:
            return stored.sent
        return 0

    def _ping(self, s: Session, seat: int, version: int, text: str, n: int) -> None:
        """The person's one private line about this turn (the slot of the reminder): a new
        message (``n`` > the pings sent: Telegram notifies it; the one before is deleted
        first, so one is out at a time), or the same message edited."""
        uid = s.seats[seat].user_id
        key = reminder_key(s.game_id, seat)
        if n > self.pings_sent(s, seat, version) and self.outbox.message_id(uid, key) is not None:
            self.forget_reminder(s, seat)
        s.reminded.add(seat)
        s.pings[seat] = (version, n)

        def sent(mid: int, digest: str, new: bool) -> None:
            self.owner.ping_shown(s, seat, version, n, mid, new)

        self.outbox.put(uid, key, R.Rendered(text), on_sent=sent)

    def _ping_text(self, s: Session, key: str, lang: str, **kw: object) -> str:
        text = t(lang, key, title=esc(s.title or "—"), **kw)
        url = message_link(s.chat_id, s.thread_id, shown_message(s))
        return text + ("\n" + t(lang, "ping.link", url=esc(url)) if url else "")

    async def _sleep_until(self, when: float) -> None:
        wait = when - self.config.clock()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _wait_turn(self, s: Session, version: int, deadline: float) -> None:
        """A person's turn: the "your move" ping, the reminders, and at a quick or normal
        table the move made for them when the time is out.

        * quick and normal: one ping once the person has been silent at this table for
          ``ping_quiet`` seconds of their turn (no press since the turn began, or since
          their last press in it): someone who answers within that is never pinged, however
          long the others took; the reminder at half the time edits that message (a new
          message only if there was no ping: never two notifications a turn);
        * unhurried: no ping at first (the game waits); after ``unhurried_ping_after`` one
          ping, after ``unhurried_ping_again`` (from the turn's start) a second one that
          replaces it (the first is deleted): two notifications a turn at most, one
          message out at a time.
        Every ping is deleted when the turn is over (``forget_reminder``)."""
        cfg = self.config
        timeout = cfg.timeout(s.pace)
        began = self.began(s, deadline)
        seat = self._turn_of(s, version)
        if seat < 0:
            return
        uid = s.seats[seat].user_id
        if timeout is None:
            for n, at, key in ((1, began + cfg.unhurried_ping_after, "ping.unhurried"),
                               (2, began + cfg.unhurried_ping_again, "ping.again")):
                if self.pings_sent(s, seat, version) >= n:
                    continue
                await self._sleep_until(at)
                if self._turn_of(s, version) != seat:
                    return
                lang = self.people.lang_for_user(uid)
                self._ping(s, seat, version, self._ping_text(
                    s, key, lang, since=R.clock_time(began)), n)
                self.refresh(s)  # the table says how long it waits now ("ждём 2 ч")
            return
        half = deadline - timeout / 2
        while self.pings_sent(s, seat, version) < 1:
            at = max(began, s.pressed.get(uid, -math.inf)) + cfg.ping_quiet
            if at >= half:
                break  # the reminder is their ping
            if at > cfg.clock():
                await self._sleep_until(at)
                if self._turn_of(s, version) != seat:
                    return
                continue  # (a press meanwhile moves the ping later)
            self._ping(s, seat, version,
                       self._ping_text(s, "ping.turn", self.people.lang_for_user(uid)), 1)
        if cfg.clock() < half:
            await self._sleep_until(half)
            if self._turn_of(s, version) != seat:
                return
            lang = self.people.lang_for_user(uid)
            left = max(1, round(deadline - cfg.clock()))
            # one message per seat and turn: the ping becomes the reminder (an edit)
            self._ping(s, seat, version, t(lang, "reminder", seconds=left,
                                           title=esc(s.title or "—")),
                       max(1, self.pings_sent(s, seat, version)))
        await asyncio.sleep(max(0.0, deadline - self.config.clock()))
        backoff = Backoff(s.game_id, "a move for an absent player")
        while not self.tasks.closing:
            st = s.state
            if st is None or st.version != version or s.status != "playing" or st.to_act < 0 \
                    or s.paused:  # (the turn's time starts again when the topic reopens)
                return
            seat = st.to_act
            action = await self.thinker.choose(view(st, seat), self.config.computer_level,
                                               self._move_seed(s, st, seat))
            if await self._machine_move(s, st, [(seat, action, BY_TIMEOUT)], backoff):
                return
            await backoff.wait()

    async def _back_from_away(self, s: Session, seat: int) -> bool:
        """A press by a person whose seat went on autopilot (``away``): the seat is theirs
        again (the caller holds the lock).  True if it was taken back."""
        who = s.seats[seat]
        if not (who.auto and who.why in (AWAY, KEEPER)):  # (a keeper's: keepers.py)
            return False
        await self.give_back(s, seat)
        return True

    async def give_back(self, s: Session, seat: int,
                        keeper: tuple[int, str] | None = None) -> None:
        """A seat on autopilot is its person's again (they pressed, or ``keeper`` decided:
        keepers.py); the caller holds the lock."""
        s.timeouts.pop(seat, None)
        gone = ("timeout",) if keeper else ("timeout", "kauto")  # (a keeper's: keepers.py)
        for deal, evs in s.events.items():  # the "time ran out" lines go with the autopilot
            s.events[deal] = [e for e in evs if not (e.code in gone and e.seat == seat)]
        self.forget_reminder(s, seat)
        await self.set_auto(s, seat, False, "back", keeper)

    async def set_auto(self, s: Session, seat: int, auto: bool, why: str,
                       keeper: tuple[int, str] | None = None) -> None:
        """Hand a seat to the computer (or give it back); the caller holds ``s.lock``.
        ``keeper``: (id, name) of the keeper who decided it (keepers.py).  Stored by the
        owner; shown by ``seat_changed``."""
        await self.owner.control(s, seat, auto, why, keeper)

    def seat_changed(self, e: SeatChanged) -> None:
        """A seat changed hands (``SeatChanged``): shown, and the computers or the timer
        follow."""
        self.refresh(e.session)
        self.schedule(e.session)

    async def set_pace(self, s: Session, pace: str, user_id: int) -> None:
        """A keeper changed the pace of a playing game (the caller holds ``s.lock``): one
        record line (replayed after a restart), one line on the table; the turn's clock
        starts again at the new pace."""
        await self.owner.set_pace(s, pace, user_id)

    def setting_changed(self, e: SettingChanged) -> None:
        """A table setting changed (``SettingChanged``): the pace of a playing game is a
        line on the table, and its turn's clock starts again."""
        s = e.session
        st = s.state
        if e.name != "pace" or s.status != "playing" or st is None:
            return
        s.events.setdefault(deal_number(st), []).append(Event("pace", -1, why=str(e.value)))
        self.refresh(s)
        self.schedule(s)

    def started(self, e: GameStarted) -> None:
        """A game began (``GameStarted``): shown, and its first turn armed."""
        self.refresh(e.session)
        self.schedule(e.session)

    async def reload(self, s: Session) -> None:
        """Storage disagrees with memory: the session rebuilt (``TableHooks.reload``)."""
        await self.hooks.reload(s)

    async def stop(self, s: Session) -> None:
        """End a playing game, keeping its results (the caller holds ``s.lock``)."""
        await self.owner.stop(s)

    def stopped(self, e: GameStopped) -> None:
        """A playing game ended before its last move (``GameStopped``): its messages say
        so; it leaves memory."""
        self.refresh(e.session)
        self.registry.unregister(e.session)
