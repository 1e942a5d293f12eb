"""The owner of every table: the one object that changes and stores a table's fields.

A table (``Session``) holds its record (``state``: the game after its stored moves),
``store_version``, ``status``, ``lobby_rev``, its ``seats`` (each seat's record included:
who sits there, the computer's level, handed to the computer and why) and ``rules``, the
lobby's ``note`` and ``level``, its typed ``settings`` (``session.Settings``: pace, forced
moves, hints, pinning, paused) and the typed ids of the messages that show it
(``session.Messages``, with what each shows).  The rooms read them; only ``TableOwner``
assigns them (``tests/test_rooms.py`` checks it), and it stores before it tells:

* ``commit``: moves (a person's press, or a computer's reply with the moves made at once
  after it) in ONE storage write — the actions, the snapshot, the deadline, the finished
  deals' score-sheet rows, the outcome, and the message ids when they changed since they
  were last stored — then ``MovesStored`` (``DealOver``, ``GameOver``) is published;
* ``control``, ``sit``, ``set_pace``: a record line (one write each: a seat to the computer
  and back, a latecomer in a computer's seat, the pace) → ``SeatChanged``,
  ``SettingChanged``;
* ``start``, ``stop``, ``expire``, ``end_lobby``: the status → ``GameStarted``,
  ``GameStopped``;
* the lobby's changes: a person or a computer sitting down or standing up (``seat``,
  ``unseat``: a press, /leave, a keeper's removal, a person who blocked the bot), its rules
  (``change_rules``: a rule, a preset, the size), its note and level (``note``,
  ``set_level``), then stored as one ``update_lobby`` at the lobby's revision
  (``save_lobby``; a lobby changed meanwhile is read back, ``reload_lobby``, and a change
  that could not be stored is put back, ``copy`` / ``undo``); its settings
  (``change_settings``, stored before the press is answered);
* what the outbox reports sent (``lobby_shown``, ``table_shown``, ``hand_shown``,
  ``ping_shown``): the message ids and what they show, stored soon (``save``: one write
  serves every change meanwhile, and the next move carries them if it comes first), and
  the table pinned through the outbox while the game is on.

The events (``events.py``) are published on the bus the composition root (``service.py``)
wired; the owner calls no room.

What is not the table's but how the rooms show and drive it stays theirs, assigned by
them: the lobby's open menu ``page`` and the keepers' ``keepers_menu``, the deal's event
lines ``events`` (the owner only adds a stored seat change), the hand messages' pages
``hand_pages``, the timers and tasks (``driver``, ``timer``, ``merge_*``, ``deadline``),
the reminders and timeouts (``reminded``, ``timeouts``, the pings' pacing), the lock and
the memory bookkeeping (``touched``, ``used``, ``live``, ``busy``, ``pressed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from telegram.error import BadRequest, Forbidden, TelegramError

from bot.engine.rules import Rules, rules_from_dict
from bot.engine.state import Action, GameState, Phase
from bot.tg.io.coord import Coordinator
from bot.tg.io.outbox import Outbox
from bot.tg.model import (
    BY_HUMAN,
    SeatInfo,
    control_event,
    control_record,
    deal_number,
    is_inline_place,
    move_record,
    pace_record,
    seats_from_json,
    seats_json,
    sheet_row,
    sit_record,
    snapshot,
)
from bot.tg.rooms.base import Config, Registry, Tasks
from bot.tg.rooms.events import (
    Bus,
    DealOver,
    GameOver,
    GameStarted,
    GameStopped,
    MovesStored,
    SeatChanged,
    SettingChanged,
)
from bot.tg.rooms.session import (
    EDIT_SAVE,
    NEW_MESSAGE_SAVE,
    Backoff,
    Ping,
    Session,
    Shown,
    lobby_key,
    table_json,
    table_key,
)
from bot.tg.view.render import Rendered
from storage import Backend, Game, Outcome, StatusConflict, StorageError

log = logging.getLogger(__name__)


@dataclass(slots=True)
class LobbyCopy:
    """What a lobby press may change, to put back when the change could not be stored."""

    seats: list[SeatInfo]
    rules: Rules
    level: str
    note: str
    page: str
    settings: Any
    lobby: int | None
    lobby_digest: str | None


@dataclass(frozen=True, slots=True)
class Shows:
    """What the messages of deal ``deal`` will show once a move is stored (digests of the
    table message and of each seat's hand): stored with the move."""

    deal: int
    table: str | None
    hands: dict[int, str]


class TableOwner:
    """Changes and stores the fields of every table (module text); publishes its events."""

    def __init__(self, storage: Backend, outbox: Outbox, coord: Coordinator, config: Config,
                 registry: Registry, tasks: Tasks, bus: Bus) -> None:
        self.storage = storage
        self.outbox = outbox
        self.coord = coord
        self.config = config
        self.registry = registry
        self.tasks = tasks
        self.bus = bus
        self._sooner: dict[int, asyncio.Event] = {}  # wakes a waiting save made due sooner
        self.writes = 0  # storage writes made for tables (moves, records, message ids)
        self.moves = 0  # moves stored (``commit``)

    # ================================================================ the turn's deadline

    def deadline(self, s: Session, st: GameState) -> float | None:
        """The stored deadline of the turn that begins now at ``st`` (None: no person's
        turn, or a solo game).  At a quick or normal table the turn times out then; at an
        unhurried table, which never times out, it is when the person is first reminded
        (the turn began ``unhurried_ping_after`` before it), so a rebuilt session re-arms
        its reminders from storage alone."""
        seat = st.to_act
        if s.solo or seat < 0 or st.phase == Phase.GAME_OVER:
            return None
        if s.seats[seat].played_by_computer:
            return None
        now = self.config.clock()
        s.since = now
        timeout = self.config.timeout(s.pace)
        return now + (timeout if timeout is not None else self.config.unhurried_ping_after)

    # ================================================================ moves and records

    def _carried(self, s: Session) -> str | None:
        """The message ids to store with the next write, if they changed since they were
        last stored (their pending save is then done by that write)."""
        if not (s.ids_dirty or s.ids_urgent) or self._replaced(s):
            return None
        return table_json(s)

    async def commit(self, s: Session, moves: list[tuple[int, Action, str]],
                     states: list[GameState],
                     shows: Callable[[], Shows] | None = None) -> None:
        """Store moves that follow each other (``states``: before each, and after the last)
        in ONE write, with the message ids if they changed — and, with ``shows``, what the
        messages will show once the moves are (the table room renders them before it asks,
        shows them after: a restart then edits no message to what it shows already); then
        publish ``MovesStored`` (and ``DealOver`` for each deal it ended, ``GameOver`` if it
        ended the game).  The caller holds ``s.lock``.  Raises what storage raises; then
        nothing changed (the digests it marked are put back: ``_unwill``)."""
        before, after = states[0], states[-1]
        finished = after.history[len(before.history):]
        rows = [(r.number, json.dumps(sheet_row(r))) for r in finished]
        outcome = None
        if after.phase == Phase.GAME_OVER:
            outcome = Outcome(winner_seat=after.winner if after.winner >= 0 else None,
                              totals=json.dumps(list(after.totals)))
        records = [move_record(seat, str(action), by) for seat, action, by in moves]
        human = moves[-1][2] == BY_HUMAN
        deadline = self.deadline(s, after)
        m = s.messages
        was = m.table, dict(m.hands), m.inline_digest
        willed = None
        if shows is not None:
            self._will_show(s, shows())
            willed = m.table, dict(m.hands), m.inline_digest
        ids = self._carried(s)
        urgent = s.ids_urgent
        s.ids_dirty = s.ids_urgent = False
        try:
            self.writes += 1
            if len(records) == 1:
                await self.storage.append_action(
                    s.game_id, s.store_version, records[0], snapshot(after), deadline=deadline,
                    sheet_rows=rows, outcome=outcome, human=human, message_ids=ids)
            else:
                await self.storage.append_actions(
                    s.game_id, s.store_version, records, snapshot(after), deadline=deadline,
                    sheet_rows=rows, outcome=outcome, human=human, message_ids=ids)
        except BaseException:
            if ids is not None:
                s.ids_dirty = True
                s.ids_urgent = s.ids_urgent or urgent
            if willed is not None:
                self._unwill(s, was, willed)
            raise
        self.moves += len(moves)
        s.store_version += len(moves)
        s.state = after
        if outcome is not None:
            s.status = "finished"
        if self.coord.shared:  # what follows this move runs here (coord.py)
            await self.coord.took(s.game_id)
        await self.bus.publish(MovesStored(s, tuple(moves), tuple(states), s.store_version))
        for r in finished:
            await self.bus.publish(DealOver(s, r.number, sheet_row(r)))
        if outcome is not None:
            await self.bus.publish(GameOver(s, tuple(sheet_row(h) for h in after.history)))

    @staticmethod
    def _will_show(s: Session, shows: Shows) -> None:
        """The messages of the deal ``shows.deal`` known here show ``shows`` from the next
        write on (marked to go with it)."""
        m = s.messages
        changed = False
        if shows.table is not None and m.table is not None and m.table.deal == shows.deal \
                and m.table.digest != shows.table:
            m.table = Shown(m.table.deal, m.table.message_id, shows.table)
            changed = True
        for seat, digest in shows.hands.items():
            h = m.hands.get(seat)
            if h is not None and h.deal == shows.deal and h.digest != digest:
                m.hands[seat] = Shown(h.deal, h.message_id, digest)
                changed = True
        if shows.table is not None and s.inline is not None \
                and m.inline_digest != shows.table:  # (an inline table: its one message)
            m.inline_digest = shows.table
            changed = True
        if changed:
            s.ids_dirty = True

    @staticmethod
    def _unwill(s: Session, was: tuple[Shown | None, dict[int, Shown], str | None],
                willed: tuple[Shown | None, dict[int, Shown], str | None]) -> None:
        """The moves were not stored: what ``_will_show`` marked is put back (``was``) —
        but only where it is still the mark (``willed``).  A message that reported meanwhile
        what it shows (``table_shown``, ``hand_shown``: an edit of an earlier move, a new
        message) keeps that: it is what the message shows, whatever became of this write
        (put back wholesale, the stale copy was stored at a clean stop, whose cancel lands
        here, and the restart repeated the edit: "message is not modified")."""
        m = s.messages
        if m.table == willed[0]:
            m.table = was[0]
        for seat, shown in willed[1].items():
            if m.hands.get(seat) == shown and seat in was[1]:
                m.hands[seat] = was[1][seat]
        if m.inline_digest == willed[2]:
            m.inline_digest = was[2]

    async def _record(self, s: Session, record: str) -> None:
        """Store one record line (not a move) at the state now, with the message ids."""
        st = s.state
        assert st is not None
        deadline = self.deadline(s, st)
        ids = self._carried(s)
        urgent = s.ids_urgent
        s.ids_dirty = s.ids_urgent = False  # (a change while it is stored marks them again)
        try:
            self.writes += 1
            await self.storage.append_action(s.game_id, s.store_version, record, snapshot(st),
                                             deadline=deadline, message_ids=ids)
        except BaseException:
            if ids is not None:
                s.ids_dirty = True
                s.ids_urgent = s.ids_urgent or urgent
            raise
        s.store_version += 1

    async def control(self, s: Session, seat: int, auto: bool, why: str,
                      keeper: tuple[int, str] | None = None) -> bool:
        """Hand a seat to the computer (or give it back), stored as a record line; then
        ``SeatChanged``.  False if it is so already.  The caller holds ``s.lock``."""
        who = s.seats[seat]
        if who.auto == auto and (not auto or who.why == why):
            return False
        record = control_record(seat, "auto" if auto else "human", why, keeper)
        was = who.auto, who.why
        who.auto, who.why = auto, why if auto else ""  # (the deadline follows the change)
        try:
            await self._record(s, record)
        except BaseException:
            who.auto, who.why = was
            raise
        st = s.state
        assert st is not None
        ev = control_event(json.loads(record))
        if ev is not None:
            s.events.setdefault(deal_number(st), []).append(ev)
        await self.bus.publish(SeatChanged(s, seat, "auto" if auto else "human", why, keeper,
                                           s.store_version))
        return True

    async def sit(self, s: Session, seat: int, user_id: int, name: str,
                  keeper: tuple[int, str]) -> None:
        """``user_id`` takes the computer's seat ``seat`` for the rest of the game (a record
        line; the game's seats too, for the rematch and the ratings); then ``SeatChanged``."""
        st = s.state
        assert st is not None
        record = sit_record(seat, user_id, name, keeper)
        old = s.seats[seat]
        s.seats[seat] = SeatInfo("human", user_id, name, "")
        try:
            await self._record(s, record)
        except BaseException:
            s.seats[seat] = old
            raise
        try:  # the record is the truth: a restart stores them again if this fails
            self.writes += 1
            await self.storage.set_seats(s.game_id, seats_json(s.seats))
        except StorageError as e:
            log.warning("game %s: the seats were not stored (%s); the record has them",
                        s.game_id, e)
        ev = control_event(json.loads(record))
        if ev is not None:
            s.events.setdefault(deal_number(st), []).append(ev)
        await self.bus.publish(SeatChanged(s, seat, "sit", "", keeper, s.store_version))

    async def set_pace(self, s: Session, pace: str, user_id: int) -> None:
        """A keeper changed the pace of a playing game: one record line (replayed after a
        restart) with the settings; then ``SettingChanged``."""
        old = s.settings
        s.settings = dataclasses.replace(old, pace=pace)
        s.ids_dirty = True
        try:
            await self._record(s, pace_record(pace, user_id))
        except BaseException:
            s.settings = old
            raise
        await self.bus.publish(SettingChanged(s, "pace", pace, user_id))

    # ================================================================ the status

    async def start(self, s: Session, state: GameState) -> None:
        """A lobby becomes a game (stored); the lobby message becomes the table (its id
        stored before the table shows: a kill right after must not post another); then
        ``GameStarted``."""
        deadline = self.deadline(s, state)
        self.writes += 1
        await self.storage.start_game(s.game_id, s.lobby_rev, snapshot=snapshot(state),
                                      deadline=deadline, seats=seats_json(s.seats),
                                      rules=s.rules.model_dump_json())
        s.lobby_rev += 1
        s.status = "playing"
        s.state = state
        s.page = ""
        self.registry.register(s)
        m = s.messages
        m.lobby_digest = None
        if not s.solo and not is_inline_place(s.chat_id):
            self.outbox.rename(s.chat_id, lobby_key(s.game_id), table_key(s.game_id, 1))
            if m.lobby is not None:  # the lobby message is the table now
                m.table, m.lobby = Shown(deal_number(state), m.lobby), None
                try:
                    await self.write(s)
                except StorageError:
                    self.save(s, 0.0)
        await self.bus.publish(GameStarted(s))

    def forget_lobby(self, s: Session) -> int | None:
        """The lobby (or solo setup) message shows the table no more; its id."""
        mid, s.messages.lobby = s.messages.lobby, None
        return mid

    async def stop(self, s: Session) -> None:
        """End a playing game, keeping its results (the caller holds ``s.lock``); then
        ``GameStopped``."""
        st = s.state
        if s.status != "playing" or st is None:
            return
        with contextlib.suppress(StatusConflict):
            self.writes += 1
            await self.storage.finish_game(s.game_id, winner_seat=None,
                                           totals=json.dumps(list(st.totals)), stopped=True)
        s.status = "stopped"
        await self.bus.publish(GameStopped(s, "stopped"))

    async def expire(self, s: Session, reason: str | None = None) -> None:
        """Close an idle (or topic-deleted) game: status ``expired``, records kept; then
        ``GameStopped``.  Raises VersionConflict / StatusConflict if it changed."""
        st = s.state
        assert st is not None
        self.writes += 1
        await self.storage.expire_game(s.game_id, totals=json.dumps(list(st.totals)),
                                       expected_version=s.store_version,
                                       reason=reason or "idle")
        s.status = "stopped"
        await self.bus.publish(GameStopped(s, reason or "idle"))

    async def end_lobby(self, s: Session, how: str) -> None:
        """A lobby ends: ``cancel`` (cancelled; also by a removed bot, which tolerates a
        lobby ended meanwhile), ``expire``, ``topic_deleted``.  Raises the conflicts."""
        self.writes += 1
        if how == "cancel":
            await self.storage.cancel_lobby(s.game_id)
        elif how == "kicked":
            with contextlib.suppress(StatusConflict):
                await self.storage.cancel_lobby(s.game_id)
        else:
            await self.storage.expire_game(
                s.game_id, expected_lobby_rev=s.lobby_rev,
                reason=how if how != "expire" else "idle")
        s.status = "stopped"

    # ================================================================ the lobby

    async def save_lobby(self, s: Session) -> None:
        """Store the lobby's seats and rules (raises VersionConflict / StatusConflict)."""
        self.writes += 1
        s.lobby_rev = await self.storage.update_lobby(
            s.game_id, s.lobby_rev, seats=seats_json(s.seats), rules=s.rules.model_dump_json())
        s.touched = self.config.clock()

    def reload_lobby(self, s: Session, game: Game) -> None:
        """The lobby as stored (another process changed it)."""
        s.seats = seats_from_json(game.seats)
        s.rules = rules_from_dict(json.loads(game.rules))
        s.lobby_rev = game.lobby_rev

    def seat(self, s: Session, place: SeatInfo) -> None:
        """A person or a computer takes the lobby's next seat (stored by ``save_lobby``)."""
        s.seats.append(place)

    def unseat(self, s: Session, seat: int) -> SeatInfo:
        """Seat ``seat`` of the lobby is left (stored by ``save_lobby``); who sat there."""
        return s.seats.pop(seat)

    def change_rules(self, s: Session, rules: Rules) -> None:
        """The lobby's rules (stored by ``save_lobby``)."""
        s.rules = rules

    def note(self, s: Session, text: str) -> None:
        """The lobby's line about its last change."""
        s.note = text

    def set_level(self, s: Session, level: str) -> None:
        """The computers' level of a lobby (its computers and those still to come)."""
        s.level = level
        for place in s.seats:
            if place.computer:
                place.level = level
        self.save(s)

    async def change_settings(self, s: Session, **changes: Any) -> None:
        """Table settings of a lobby, stored before this returns (a kill after the
        answer must not lose them); put back if they could not be."""
        old = s.settings
        s.settings = dataclasses.replace(old, **changes)
        try:
            await self.write(s)
        except BaseException:
            s.settings = old
            raise
        for name, value in changes.items():
            await self.bus.publish(SettingChanged(s, name, value))

    def copy(self, s: Session) -> LobbyCopy:
        return LobbyCopy([dataclasses.replace(x) for x in s.seats], s.rules, s.level, s.note,
                         s.page, s.settings, s.messages.lobby, s.messages.lobby_digest)

    def undo(self, s: Session, copy: LobbyCopy) -> None:
        """A lobby change that could not be stored is put back."""
        s.seats, s.rules, s.level, s.note, s.page = (copy.seats, copy.rules, copy.level,
                                                     copy.note, copy.page)
        s.settings = copy.settings
        s.messages.lobby, s.messages.lobby_digest = copy.lobby, copy.lobby_digest

    def set_paused(self, s: Session, paused: bool) -> None:
        """Its forum topic closed (or open again): kept with the message ids at once."""
        if s.settings.paused != paused:
            s.settings = dataclasses.replace(s.settings, paused=paused)
            self.save(s, 0.0)

    def moved(self, s: Session) -> None:
        """The game's group became a supergroup: its messages there are void."""
        s.messages.lobby = None
        s.messages.table = None
        self.save(s)

    def forget_shown(self, s: Session, *, lobby: bool = False, table: bool = False,
                     hand: int | None = None) -> None:
        """A message of the game shows it no more (``/table`` posts it anew)."""
        m = s.messages
        if lobby:
            m.lobby = None
        if table:
            m.table = None
        if hand is not None:
            m.hands.pop(hand, None)

    # ================================================================ what the messages show

    def show_inline(self, s: Session, content: Rendered) -> None:
        """Show ``content`` on the message of an inline table (inline.py; nothing for one
        whose message id is unknown); what it shows is stored (a restart edits it to
        that no more)."""
        iid = s.inline
        if iid is not None:
            self.outbox.edit_inline(iid, content, game=s.game_id,
                                    on_shown=lambda digest: self._inline_shown(s, digest))

    async def adopt_inline(self, s: Session, inline_message_id: str) -> None:
        """A lobby at an inline place whose message id was never stored (the process died
        between making it and storing the id): the place is made from that message's id,
        so the lobby is that message's table; the id is stored now (raises StorageError)."""
        s.messages.inline = inline_message_id
        s.messages.inline_digest = None
        await self.write(s)

    def _inline_shown(self, s: Session, digest: str) -> None:
        s = self._live_copy(s) or s
        if s.messages.inline_digest != digest:
            s.messages.inline_digest = digest
            self.save(s, self._edit_save(s))

    def lobby_shown(self, s: Session, mid: int, digest: str) -> None:
        m = s.messages
        if m.lobby != mid:
            m.lobby = mid
            m.lobby_digest = digest  # what it shows (no edit repeated after a restart)
            s.ids_urgent = True
            self.save(s, 0.0)
        elif m.lobby_digest != digest and s.status == "lobby":
            m.lobby_digest = digest
            self.save(s, self._edit_save(s))

    def table_shown(self, s: Session, deal: int, mid: int, digest: str, new: bool,
                    final: bool) -> None:
        shown = Shown(deal, mid, digest)
        if s.messages.table != shown or new:  # (stored with its move already: nothing new)
            s.messages.table = shown
            s.ids_urgent = s.ids_urgent or new
            self.save(s, NEW_MESSAGE_SAVE if new else self._edit_save(s))
        live = self._live_copy(s)
        if live is not None:
            known = live.messages.table
            if known is not None and known.deal == deal and known.message_id == mid \
                    and known.digest != digest:
                live.messages.table = shown
                self.save(live, self._edit_save(live))
        if not final and s.status == "playing":
            self.pin(s, mid)

    def hand_shown(self, s: Session, seat: int, deal: int, mid: int, digest: str,
                   new: bool) -> None:
        shown = Shown(deal, mid, digest)
        if s.messages.hands.get(seat) != shown or new:  # (stored with its move already)
            s.messages.hands[seat] = shown
            s.ids_urgent = s.ids_urgent or new
            self.save(s, NEW_MESSAGE_SAVE if new else self._edit_save(s))
        live = self._live_copy(s)
        if live is not None:
            known = live.messages.hands.get(seat)
            if known is not None and known.deal == deal and known.message_id == mid \
                    and known.digest != digest:
                live.messages.hands[seat] = shown
                self.save(live, self._edit_save(live))

    def ping_shown(self, s: Session, seat: int, version: int, n: int, mid: int,
                   new: bool) -> None:
        """A ping of the turn of ``seat`` at ``version`` (its ``n``-th) was sent or edited;
        one whose turn ended while it was on its way is deleted at once."""
        if self.registry.live(s) and s.pings.get(seat) == (version, n):
            s.messages.pings[seat] = Ping(version, mid, n)
            self.save(s, NEW_MESSAGE_SAVE if new else EDIT_SAVE)
        elif new:
            self.outbox.delete(s.seats[seat].user_id, mid)

    def forget_ping(self, s: Session, seat: int) -> None:
        if s.messages.pings.pop(seat, None) is not None:
            self.save(s, EDIT_SAVE)

    def _live_copy(self, s: Session) -> Session | None:
        """An old copy's request was answered (several processes: the game was rebuilt
        since): the live copy, whose ids are what gets stored, if there is one."""
        live = self.registry.get(s.game_id)
        return None if live is None or live is s else live

    def _edit_save(self, s: Session) -> float:
        """How late what an edited message shows (and no stored move carried) is stored:
        soon with several processes (the next process to edit the message compares with
        it, so that it never repeats an edit the other made: "message is not modified"),
        and soon when the table now waits for a person — no move will come soon to carry
        it, and a restart would repeat the edit (a lobby, a deal's first moves, a redeal);
        else within EDIT_SAVE (a computer's move is on its way and takes it; a clean stop
        stores it at once)."""
        if self.coord.shared or s.status != "playing" or s.state is None:
            return 0.0
        seat = s.state.to_act
        if 0 <= seat < len(s.seats) and s.seats[seat].played_by_computer:
            return EDIT_SAVE
        return 0.0

    # ================================================================ pinning

    def pin(self, s: Session, mid: int) -> None:
        """The table's message is pinned silently while the game is on (the one before
        unpinned), when the bot may pin in the group: asked once a game (getChatMember of
        the bot: can_pin_messages), the answer kept in ``settings.pin_ok``;
        ``messages.pin`` is the message pinned now.  Through the outbox (its budget)."""
        if s.solo or s.paused or s.settings.pin_ok is False or s.messages.pin == mid \
                or self.tasks.closing or is_inline_place(s.chat_id):
            return

        async def run() -> None:
            if s.settings.pin_ok is None:
                try:
                    me = await self.outbox.member(s.chat_id)
                except TelegramError as e:  # (asked again with the next table)
                    log.info("game %s: the bot's rights unknown: %s", s.game_id, e)
                    return
                ok = me.status == "creator" or (
                    me.status == "administrator" and bool(getattr(me, "can_pin_messages", False)))
                s.settings = dataclasses.replace(s.settings, pin_ok=ok)
                self.save(s, EDIT_SAVE)
            if not s.settings.pin_ok or s.status != "playing" or s.messages.pin == mid:
                return
            before = s.messages.pin
            s.messages.pin = mid
            self.save(s, EDIT_SAVE)
            self.outbox.pin(s.chat_id, mid, on_done=lambda e: self._pinned(s, mid, before, e))

        self.tasks.spawn_free(run(), f"pin:{s.game_id}")

    def _pinned(self, s: Session, mid: int, before: int | None,
                error: TelegramError | None) -> None:
        if isinstance(error, (BadRequest, Forbidden)):
            s.settings = dataclasses.replace(s.settings, pin_ok=False)
            if s.messages.pin == mid:
                s.messages.pin = before
            self.save(s, EDIT_SAVE)
            return
        if error is not None:  # (a network error: the next table tries again)
            return
        if s.status != "playing":  # the game ended meanwhile
            s.messages.pin = None
            self.outbox.unpin(s.chat_id, mid)
        if before is not None and before != mid:
            self.outbox.unpin(s.chat_id, before)

    def unpin(self, s: Session) -> None:
        """The game is over: its pinned table is unpinned."""
        pinned = s.messages.pin
        if s.solo or pinned is None or self.tasks.closing:
            return
        s.messages.pin = None
        self.outbox.unpin(s.chat_id, pinned)

    # ================================================================ storing the ids

    def _replaced(self, s: Session) -> bool:
        """``s`` is an old copy: the game was rebuilt since (several processes: another one
        moved it) and the new copy holds what storage holds; an answer that reaches the
        old copy late must not overwrite that with what the old copy knew."""
        live = self.registry.get(s.game_id)
        return live is not None and live is not s

    def save(self, s: Session, delay: float = NEW_MESSAGE_SAVE) -> None:
        """Store the settings and message ids within ``delay`` (one write serves every
        change meanwhile; the next stored move takes them if it comes first; a failed
        write is retried with backoff)."""
        if self._replaced(s):
            return
        s.ids_dirty = True
        due = time.monotonic() + delay
        if s.ids_task is not None and not s.ids_task.done():
            if due < s.ids_due:  # (a setting saved at once while an edit's save waits)
                s.ids_due = due
                sooner = self._sooner.get(s.game_id)
                if sooner is not None:
                    sooner.set()
            return
        s.ids_due = due
        if self.tasks.closing:
            return

        async def run() -> None:
            backoff = Backoff(s.game_id, "saving message ids")
            sooner = self._sooner[s.game_id] = asyncio.Event()
            try:
                while s.ids_dirty and not self.tasks.closing:
                    wait = s.ids_due - time.monotonic()
                    if wait > 0:
                        sooner.clear()
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(sooner.wait(), wait)
                        continue
                    try:
                        await self.write(s)
                        backoff.ok()
                    except StorageError as e:
                        backoff.failed(e)
                        await backoff.wait()
            finally:
                if self._sooner.get(s.game_id) is sooner:
                    del self._sooner[s.game_id]

        s.ids_task = self.tasks.spawn(s, run(), f"ids:{s.game_id}")

    async def write(self, s: Session) -> None:
        """Store the settings and message ids now (raises StorageError)."""
        urgent = s.ids_urgent
        s.ids_dirty = s.ids_urgent = False
        if self._replaced(s):
            return
        try:
            self.writes += 1
            await self.storage.set_message_ids(s.game_id, table_json(s))
        except BaseException:
            s.ids_dirty = True
            s.ids_urgent = s.ids_urgent or urgent
            raise

    async def flush(self, s: Session) -> None:
        """Shutdown: the ids stored now (errors ignored)."""
        with contextlib.suppress(StorageError):
            await self.storage.set_message_ids(s.game_id, table_json(s))
