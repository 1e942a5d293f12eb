"""Plain data of the Telegram layer and its JSON forms in storage.

* ``SeatInfo`` — who sits in a seat (stored in ``games.seats``).
* Records of the action log (``game_actions.action``): ``{"s": seat, "a": "bid 105", "by": …}``
  for a move (``by``: ``h`` a person, ``c`` a computer seat, ``t`` a computer move made for a
  person whose time ran out, ``a`` a computer playing a seat whose person left or blocked the
  bot) and ``{"s": seat, "ctl": "auto" | "human", "why": …}`` when a seat is handed to the
  computer or taken back (``why`` "keeper": by a keeper of the table, named in ``"keeper"``,
  ``"kid"`` their id); ``{"s": seat, "ctl": "sit", "uid": …, "name": …, "keeper": …,
  "kid": …}`` when a person sits down in a computer's seat during the game (keepers.py); and
  ``{"pace": "quick" | "normal" | "unhurried", "uid": user}`` when a keeper changes the
  table's pace during the game (``PACES``).
* ``replay`` rebuilds a game from its record; ``sheet_row`` is the score-sheet JSON of a deal.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.engine.game import new_game
from bot.engine.record import apply_recorded
from bot.engine.rules import Rules
from bot.engine.state import BID, DealResult, GameState, Kind, parse_action

# A table sent through inline mode (``@bot`` in any chat: inline.py) has no chat the bot
# knows: its place is a synthetic chat row whose id is in [INLINE_BASE, 2 * INLINE_BASE),
# made from the inline message's id (``inline_place``).  Telegram's chat ids fit in 52 bits
# (|id| < 2**52), so such an id is never a real chat's; it is positive (never taken for a
# supergroup's ``t.me/c/`` link) and below 2**53 (exact in a JavaScript number).  Nothing
# is ever sent to it (the outbox refuses: ``Outbox.put``); its messages are the one inline
# message, edited by its ``inline_message_id`` (``Messages.inline``).
INLINE_BASE = 1 << 52


def inline_place(inline_message_id: str) -> int:
    """The synthetic chat id of the table of an inline message (the same for every press
    on it: the place of its table; a 52-bit hash of the id, 2**-52 a pair to collide, and a
    collision is refused since the game stores its own inline message id)."""
    digest = hashlib.blake2b(inline_message_id.encode(), digest_size=8,
                             person=b"thousand-inline").digest()
    return INLINE_BASE + (int.from_bytes(digest, "big") % INLINE_BASE)


def is_inline_place(chat_id: int) -> bool:
    """Is ``chat_id`` the synthetic chat of an inline table (``inline_place``)?"""
    return INLINE_BASE <= chat_id < 2 * INLINE_BASE


SeatKind = Literal["human", "computer"]

BY_HUMAN = "h"
BY_COMPUTER = "c"
BY_TIMEOUT = "t"
BY_AUTO = "a"
BY_FORCED = "f"  # a person's only legal action, played at once

QUICK = "quick"
NORMAL = "normal"
UNHURRIED = "unhurried"
PACES = (QUICK, NORMAL, UNHURRIED)  # a table's pace: its turn timeout (none when unhurried)


@dataclass(slots=True)
class SeatInfo:
    kind: SeatKind
    user_id: int
    name: str
    level: str
    auto: bool = False  # a person's seat played by the computer (left / blocked the bot)
    why: str = ""

    @property
    def computer(self) -> bool:
        return self.kind == "computer"

    @property
    def played_by_computer(self) -> bool:
        return self.kind == "computer" or self.auto

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "user_id": self.user_id, "name": self.name,
                "level": self.level}

    @staticmethod
    def from_json(d: dict[str, Any]) -> SeatInfo:
        kind = d.get("kind")
        if kind not in ("human", "computer"):
            raise ValueError(f"bad seat kind {kind!r}")
        return SeatInfo(kind, int(d.get("user_id") or 0), str(d.get("name") or "?"),
                        str(d.get("level") or "hard"))


def seats_json(seats: list[SeatInfo]) -> str:
    return json.dumps([s.to_json() for s in seats], ensure_ascii=False)


def seats_from_json(text: str) -> list[SeatInfo]:
    data = json.loads(text)
    if not isinstance(data, list):
        raise ValueError("seats must be a list")
    return [SeatInfo.from_json(d) for d in data]


@dataclass(frozen=True, slots=True)
class Event:
    """Something the table is told that the engine's views do not say by themselves."""

    code: str  # "unblind", "timeout", "auto", "back", "pace" (``why``: the new pace)
    seat: int
    value: int = 0
    why: str = ""


def move_record(seat: int, action: str, by: str) -> str:
    return json.dumps({"s": seat, "a": action, "by": by}, ensure_ascii=False)


def control_record(seat: int, ctl: Literal["auto", "human"], why: str,
                   keeper: tuple[int, str] | None = None) -> str:
    rec: dict[str, Any] = {"s": seat, "ctl": ctl, "why": why}
    if keeper is not None:  # a keeper's decision (keepers.py): who decided
        rec["keeper"], rec["kid"] = keeper[1], keeper[0]
    return json.dumps(rec, ensure_ascii=False)


# ---- the keepers' controls (bot/tg/rooms/keepers.py)

KEEPER = "keeper"  # the ``why`` of a seat handed to the computer by a keeper
SIT = "sit"  # the ``ctl`` of a person sitting down in a computer's seat


def sit_record(seat: int, user_id: int, name: str, keeper: tuple[int, str]) -> str:
    return json.dumps({"s": seat, "ctl": SIT, "uid": user_id, "name": name,
                       "keeper": keeper[1], "kid": keeper[0]}, ensure_ascii=False)


def control_event(rec: dict[str, Any]) -> Event | None:
    """The table's line for a keeper's seat change (None for other seat changes):
    ``kauto`` (handed to the computer), ``khuman`` (given back), ``ksit`` (a person sat
    down); ``why`` is the keeper's name."""
    keeper = rec.get("keeper")
    if not isinstance(keeper, str):
        return None
    code = {"auto": "kauto", "human": "khuman", SIT: "ksit"}.get(str(rec.get("ctl")))
    return Event(code, int(rec["s"]), why=keeper) if code else None


def pace_record(pace: str, user_id: int) -> str:
    return json.dumps({"pace": pace, "uid": user_id})


def move_events(before: GameState, after: GameState, seat: int, action: str,
                by: str) -> list[Event]:
    """Events a move makes (for the table's lines), from the states around it."""
    out: list[Event] = []
    d = before.deal
    if d is not None and d.kind == Kind.DARK and not d.unblinded and action.startswith(BID):
        out.append(Event("unblind", seat, int(action.split()[1])))
    if by == BY_TIMEOUT:
        out.append(Event("timeout", seat))
    return out


@dataclass(slots=True)
class Replayed:
    state: GameState
    auto: dict[int, str] = field(default_factory=dict)  # seat -> why, seats now played by AI
    sits: dict[int, tuple[int, str]] = field(default_factory=dict)  # seat -> (user id, name)
    events: dict[int, list[Event]] = field(default_factory=dict)  # deal number -> events
    moves: int = 0
    pace: str | None = None  # the last pace a keeper set during the game (None: unchanged)


def deal_number(state: GameState) -> int:
    return state.deal.number if state.deal is not None else len(state.history)


def replay(rules: Rules, seed: int, records: list[str], *,
           onto: Replayed | None = None) -> Replayed:
    """The game after its stored records (moves and seat changes); ``onto``: the game
    after the records before these (it is changed and returned: the Mini App follows a
    game another process runs by its new records only)."""
    out = onto if onto is not None else Replayed(new_game(rules, seed))
    for text in records:
        rec = json.loads(text)
        if "pace" in rec:  # a keeper changed the pace: a line on the table of this deal
            if rec["pace"] in PACES:
                out.pace = str(rec["pace"])
                out.events.setdefault(deal_number(out.state), []).append(
                    Event("pace", -1, why=out.pace))
            continue
        seat = int(rec["s"])
        if "ctl" in rec:
            if rec["ctl"] == "auto":
                out.auto[seat] = str(rec.get("why", ""))
            else:
                out.auto.pop(seat, None)
            if rec["ctl"] == "human" and "keeper" not in rec:  # the person came back by
                for deal, evs in out.events.items():  # pressing: a keeper's line goes
                    out.events[deal] = [e for e in evs if not (e.code == "kauto"
                                                               and e.seat == seat)]
            if rec["ctl"] == SIT:  # the seat is this person's from now on
                out.sits[seat] = (int(rec["uid"]), str(rec.get("name") or "?"))
            ev = control_event(rec)
            if ev is not None:
                out.events.setdefault(deal_number(out.state), []).append(ev)
            continue
        before = out.state
        action = str(rec["a"])
        # as records are read: games stored before redeal requests became private replay
        out.state = apply_recorded(before, parse_action(action), seat)
        out.moves += 1
        evs = move_events(before, out.state, seat, action, str(rec.get("by", BY_HUMAN)))
        if evs:
            out.events.setdefault(deal_number(before), []).extend(evs)
    return out


def snapshot(state: GameState) -> str:
    """A small summary of the state stored with every action (the record is the truth)."""
    return json.dumps({
        "version": state.version,
        "phase": str(state.phase),
        "deal": deal_number(state),
        "to_act": state.to_act,
        "totals": list(state.totals),
        "winner": state.winner,
    })


def sheet_row(res: DealResult) -> dict[str, Any]:
    """The score-sheet data of one deal (``score_sheets.data``)."""
    return {
        "n": res.number,
        "dealer": res.dealer,
        "kind": str(res.kind),
        "declarer": res.declarer,
        "bid": res.bid,
        "contract": res.contract,
        "outcome": res.outcome,
        "points": list(res.points),
        "scores": list(res.scores),
        "totals": list(res.totals),
        "marks": [list(m) for m in res.marks],
        "notes": [[n.code, n.seat, n.value] for n in res.notes],
        "winner": res.winner,
    }
