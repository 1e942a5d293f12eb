"""Small pieces every message uses: cards, names, buttons, the limits of a text and a popup."""

from __future__ import annotations

import datetime
import hashlib
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from bot.engine import cards as C
from bot.i18n import esc, t

MAX_TEXT: Final = 4096
MAX_POPUP: Final = 200
SUIT_EMOJI: Final = ("♠️", "♣️", "♦️", "♥️")
RANK_NAMES: Final = C.RANKS
SECTIONS: Final = ("bidding", "play", "redeal", "rospis", "golden", "dark", "scoring", "barrel",
                   "table")
LEVELS: Final = ("random", "normal", "hard")


@dataclass(frozen=True, slots=True)
class Button:
    text: str
    data: str | None = None
    url: str | None = None
    web_app: str | None = None  # opens the Mini App at this URL (private chats only)


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    keyboard: Keyboard = ()

    def digest(self) -> str:
        """A short hash of the text and buttons (to skip an edit that would change nothing)."""
        raw = json.dumps([self.text, [[(b.text, b.data, b.url, b.web_app) for b in row]
                                      for row in self.keyboard]], ensure_ascii=False)
        return hashlib.blake2b(raw.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class SeatLabel:
    name: str
    computer: bool = False
    auto: bool = False  # a person's seat now played by the computer
    away: bool = False  # ... because the person did not answer twice (until the next press)


# --------------------------------------------------------------------------- small pieces


def card_text(c: int) -> str:
    """A card in a message text: ``A♥️`` (emoji suits render in colour)."""
    return RANK_NAMES[c % 6] + SUIT_EMOJI[c // 6]


def card_button(c: int) -> str:
    """A card on a button: ``A♥`` (plain symbols)."""
    return C.fmt(c)


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def hand_text(hand: Iterable[int]) -> str:
    """``♠️ A K 9 · ♣️ Q · ♥️ K Q`` — by suit, high cards first."""
    groups: dict[int, list[int]] = {}
    for c in C.sort_hand(hand):
        groups.setdefault(C.suit_of(c), []).append(c)
    return " · ".join(
        SUIT_EMOJI[s] + " " + " ".join(RANK_NAMES[c % 6] for c in groups[s]) for s in sorted(groups)
    )


NAME_LIMIT: Final = 12  # characters of a name on the table and in the lines about it


def unique_names(names: Sequence[str], limit: int = NAME_LIMIT) -> list[str]:
    """The names cut to ``limit`` characters and made unique, in the same order.

    A long name ends in "…" (``limit`` ≥ 4), a blank one is "?".  Names that still
    collide are numbered: by their own trailing numbers when those differ
    (``Компьютер 1``/``Компьютер 2`` at three characters: ``Ко1``, ``Ко2``), else the first
    keeps its name and the others get 2, 3, … (``Вера``, ``Вера 2``; at two: ``Ан``, ``А2``)."""
    limit = max(1, limit)
    clean = [" ".join(n.split()) or "?" for n in names]
    out = [_cut(c, limit) for c in clean]
    for i in range(len(out)):
        group = [j for j in range(len(out)) if out[j] == out[i]]
        if len(group) < 2:
            continue
        digits = [_trailing_number(clean[j]) for j in group]
        if all(digits) and len(set(digits)) == len(digits):
            for j, d in zip(group, digits, strict=True):
                out[j] = _tagged(clean[j].removesuffix(d).rstrip(), d, limit)
    taken: list[str] = []
    for i, label in enumerate(out):
        k = 2
        while label in taken:
            label = _tagged(clean[i], str(k), limit)
            k += 1
        taken.append(label)
    return taken


def _cut(name: str, limit: int) -> str:
    if len(name) <= limit:
        return name
    if limit >= 4:
        return name[: limit - 1].rstrip() + "…"
    return name[:limit].rstrip() or "?"


def _trailing_number(name: str) -> str:
    return "".join(itertools.takewhile(str.isdigit, reversed(name)))[::-1]


def _tagged(name: str, tag: str, limit: int) -> str:
    """``name`` with ``tag`` at its end, cut to ``limit`` (a space between when it fits)."""
    if len(name) + 1 + len(tag) <= limit:
        return f"{name} {tag}"
    return name[: max(0, limit - len(tag))].rstrip() + tag


def seat_labels(seats: Sequence[SeatLabel], limit: int = NAME_LIMIT) -> tuple[SeatLabel, ...]:
    """The seats with unique names of at most ``limit`` characters (what the service
    passes to every render function)."""
    names = unique_names([s.name for s in seats], limit)
    return tuple(replace(s, name=nm) for s, nm in zip(seats, names, strict=True))


def seat_name(seats: Sequence[SeatLabel], seat: int) -> str:
    """The escaped display name of a seat: ``🤖 Вера`` for a computer, ``Борис 🤖`` when the
    computer plays for a person."""
    if not 0 <= seat < len(seats):
        return "?"
    s = seats[seat]
    if s.computer:
        return "🤖 " + esc(s.name)
    if s.auto:
        return esc(s.name) + " 🤖"
    return esc(s.name)


def who(lang: str, seats: Sequence[SeatLabel], seat: int, me: int) -> str:
    return t(lang, "you") if seat == me and me >= 0 else seat_name(seats, seat)


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


def num(n: int) -> str:
    return f"−{-n}" if n < 0 else str(n)


def button_rows(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    return [tuple(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def pace_name(lang: str, pace: str) -> str:
    """A table's pace in one short word ("быстрый")."""
    return t(lang, f"pace.{pace}" if pace in ("quick", "normal", "unhurried") else "pace.normal")


def waited_text(lang: str, seconds: float) -> str:
    """How long something has waited, said shortly and relative to now ("2 ч"); "" under
    a minute."""
    if seconds < 60:
        return ""
    if seconds < 3600:
        return t(lang, "time.minutes", n=int(seconds // 60))
    if seconds < 86400:
        return t(lang, "time.hours", n=int(seconds // 3600))
    return t(lang, "time.days", n=int(seconds // 86400))


def clock_time(ts: float) -> str:
    """A time of day shown in the reader's own time zone (Telegram's date_time entity;
    a client without it shows the UTC time)."""
    unix = int(ts)
    hhmm = datetime.datetime.fromtimestamp(unix, datetime.UTC).strftime("%H:%M")
    return f'<tg-time unix="{unix}" format="t">{hhmm} UTC</tg-time>'


def fit(text: str, limit: int = MAX_TEXT) -> str:
    """Cut ``text`` to Telegram's limit (at a line break when possible)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    nl = cut.rfind("\n")
    if nl > limit // 2:
        cut = cut[:nl]
    return cut + "…"


def popup(text: str) -> str:
    """A callback answer: one short line."""
    line = " ".join(text.split())
    return line if len(line) <= MAX_POPUP else line[: MAX_POPUP - 1] + "…"


def split_text(text: str, limit: int = MAX_TEXT) -> list[str]:
    """Split at line breaks into pieces of at most ``limit`` characters."""
    out: list[str] = []
    cur = ""
    for line in text.split("\n"):
        candidate = line if not cur else cur + "\n" + line
        if len(candidate) <= limit:
            cur = candidate
            continue
        if cur:
            out.append(cur)
        cur = fit(line, limit)
    if cur:
        out.append(cur)
    return out
