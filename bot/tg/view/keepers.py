"""The keepers' controls as messages and buttons (issue 19; the room is
``bot/tg/rooms/keepers.py``): the table's ⚙️ button and the menu it opens — a message of
its own below the table, so the table's keyboard never changes for it (issue 47) — the
"take a seat" button and the request line a latecomer's press posts, the lobby's "remove a
person" page, and the lines that say what a keeper decided.

The keepers of a table are its creator and the group's admins.  Every button here is bound
to its game and to the *seat revision* of the table (``seat_rev``): a number that changes
with every change of who plays a seat (and never with a move), so a press from a menu
shown before such a change is stale; the lobby's buttons are bound to the lobby revision.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.i18n import esc, t
from bot.tg.model import KEEPER, Event, SeatInfo
from bot.tg.view import callbacks as cb
from bot.tg.view.common import Button, Keyboard, Rendered, SeatLabel, fit

SeatState = Literal["human", "auto", "left", "computer"]

AWAY = "away"  # (the ``why`` of a seat on autopilot after timeouts: rooms/session.py)


def seat_state(seat: SeatInfo) -> SeatState:
    """What a keeper may do with a seat: ``human`` a person plays it (hand it to the
    computer), ``auto`` the computer plays a person's seat for now (give it back),
    ``left``/``computer`` a computer plays it for good (a latecomer may sit there)."""
    if seat.computer:
        return "computer"
    if seat.auto and seat.why in (AWAY, KEEPER):
        return "auto"
    if seat.auto:  # the person left the table, or blocked the bot
        return "left"
    return "human"


def _plain(seats: Sequence[SeatLabel], i: int) -> str:
    """A seat's name for a button (plain text, no mark)."""
    return seats[i].name if 0 <= i < len(seats) else "?"


def seat_rev(seats: Sequence[SeatInfo]) -> int:
    """The seat revision: changes with who plays each seat, not with moves."""
    raw = "|".join(f"{x.kind}:{x.user_id}:{int(x.auto)}:{x.why}" for x in seats)
    return zlib.crc32(raw.encode()) % 1_000_000_000


def free_seats(seats: Sequence[SeatInfo]) -> list[int]:
    """The seats a latecomer may take: a computer's, or one its person left."""
    return [i for i, x in enumerate(seats) if seat_state(x) in ("computer", "left")]


@dataclass(frozen=True, slots=True)
class KeepersInfo:
    """What the table's keyboard and the keepers' menu need."""

    rev: int
    states: tuple[SeatState, ...] = ()

    @property
    def free(self) -> bool:
        return any(x in ("computer", "left") for x in self.states)


MENU_PAGES = ("", "m", "s")  # the keepers' menu: "" closed, "m" open, "s" "stop the game?"


def menu_key(game_id: int) -> str:
    """The outbox slot of a table's keepers' menu (one at a time, in the table's chat)."""
    return f"k{game_id}:menu"


def table_keyboard(lang: str, game_id: int, seats: Sequence[SeatLabel],
                   k: KeepersInfo | None, base: tuple[Button, ...]) -> Keyboard:
    """The table's buttons: ``base`` (my cards, score) with ⚙️, and "take a seat" when a
    computer plays a seat.  The same whether the keepers' menu is open or not."""
    if k is None:
        return (base,)
    rows = [(*base, Button("⚙️", cb.encode(game_id, k.rev, cb.KMENU, "m")))]
    if k.free:
        rows.append((Button(t(lang, "keepers.btn_sit"), cb.encode(game_id, k.rev, cb.SIT)),))
    return tuple(rows)


def render_menu(lang: str, game_id: int, seats: Sequence[SeatLabel], k: KeepersInfo,
                page: str) -> Rendered:
    """The keepers' menu, a message of its own below the table (``page`` "m": what may be
    done with each seat, stop, close; "s": "stop the game?")."""
    g, v = game_id, k.rev
    if page == "s":
        return Rendered(t(lang, "keepers.menu_stop"), (
            (Button(t(lang, "keepers.btn_stop_yes"), cb.encode(g, v, cb.KSTOP)),
             Button(t(lang, "keepers.btn_back"), cb.encode(g, v, cb.KMENU, "m"))),))
    rows: list[tuple[Button, ...]] = []
    for i, state in enumerate(k.states):
        name = _plain(seats, i)
        if state == "human":
            rows.append((Button(t(lang, "keepers.btn_auto", name=name),
                                cb.encode(g, v, cb.KAUTO, str(i))),))
        elif state == "auto":
            rows.append((Button(t(lang, "keepers.btn_back_seat", name=name),
                                cb.encode(g, v, cb.KBACK, str(i))),))
    rows.append((Button(t(lang, "keepers.btn_stop"), cb.encode(g, v, cb.KMENU, "s")),
                 Button(t(lang, "keepers.btn_close"), cb.encode(g, v, cb.KMENU, ""))))
    return Rendered(t(lang, "keepers.menu"), tuple(rows))


def event_line(lang: str, e: Event, seats: Sequence[SeatLabel]) -> str | None:
    """A keeper's decision on the table (``model.control_event``); the keeper's name is
    ``e.why``."""
    keys = {"kauto": "keepers.line_auto", "khuman": "keepers.line_back",
            "ksit": "keepers.line_sit"}
    key = keys.get(e.code)
    if key is None:
        return None
    return t(lang, key, name=esc(_plain(seats, e.seat)), keeper=esc(e.why))


# ---------------------------------------------------------------- take a seat: the request


def request_text(lang: str, name: str, free: Sequence[tuple[int, str]]) -> str:
    seats = ", ".join(esc(n) for _, n in free)
    return t(lang, "keepers.request", name=esc(name), seats=seats)


def request_keyboard(lang: str, game_id: int, rev: int, user_id: int,
                     free: Sequence[tuple[int, str]]) -> Keyboard:
    """Approve (one button a free seat when there are several) or refuse."""
    rows: list[tuple[Button, ...]] = []
    for seat, name in free:
        text = t(lang, "keepers.btn_let_in") if len(free) == 1 else \
            t(lang, "keepers.btn_let_in_at", name=name)
        rows.append((Button(text, cb.encode(game_id, rev, cb.SIT_OK, f"{seat}.{user_id}")),))
    rows.append((Button(t(lang, "keepers.btn_refuse"),
                        cb.encode(game_id, rev, cb.SIT_NO, str(user_id))),))
    return tuple(rows)


def request_done(lang: str, name: str, keeper: str, seat_name_was: str | None) -> Rendered:
    """The request line once decided (no buttons): let in at a seat, or refused (None)."""
    if seat_name_was is None:
        return Rendered(t(lang, "keepers.request_refused", name=esc(name), keeper=esc(keeper)))
    return Rendered(t(lang, "keepers.request_done", name=esc(name), keeper=esc(keeper),
                      seat=esc(seat_name_was)))


# ---------------------------------------------------------------- the lobby: remove a person


def lobby_button(lang: str, game_id: int, rev: int) -> Button:
    return Button(t(lang, "keepers.btn_remove"), cb.encode(game_id, rev, cb.KMENU, "k"))


def lobby_remove_page(lang: str, game_id: int, rev: int, seats: Sequence[SeatLabel],
                      lines: list[str]) -> Rendered:
    """The lobby's page "remove a person": one button a seated person, and back."""
    rows: list[tuple[Button, ...]] = []
    for i, x in enumerate(seats):
        if not x.computer:
            rows.append((Button(t(lang, "keepers.btn_remove_person", name=_plain(seats, i)),
                                cb.encode(game_id, rev, cb.KICK, str(i))),))
    rows.append((Button(t(lang, "keepers.btn_back"), cb.encode(game_id, rev, cb.KMENU, "")),))
    return Rendered(fit("\n".join([*lines, t(lang, "keepers.remove_title")])), tuple(rows))
