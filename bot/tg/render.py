"""Messages and keyboards as pure functions of engine views: no Telegram, no I/O.

Every game message is built from ``view(state, seat)`` (a private hand message) or
``public_view(state)`` (the group table), never from the full state, so a hand, a received
card or a hidden talon cannot reach another chat.  Texts are HTML (names escaped) and come
from the catalog (``bot.i18n``); a ``Rendered`` value is the text and the inline keyboard as
plain data, compared to skip identical edits.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from bot import rule_words as W
from bot.engine import cards as C
from bot.engine.game import hand_redeal_reason
from bot.engine.rules import (
    CLASSIC,
    PRESETS,
    RULE_IDS,
    RULE_SPECS,
    Rules,
    RulesError,
    inert_rules,
    preset_of,
)
from bot.engine.scoring import rospis_payout
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
    IllegalAction,
    Kind,
    Phase,
)
from bot.engine.views import TableView
from bot.i18n import esc, has, t
from bot.tg import callbacks as cb
from bot.tg.model import Event

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


Keyboard = tuple[tuple[Button, ...], ...]


@dataclass(frozen=True, slots=True)
class Rendered:
    text: str
    keyboard: Keyboard = ()

    def digest(self) -> str:
        """A short hash of the text and buttons (to skip an edit that would change nothing)."""
        raw = json.dumps([self.text, [[(b.text, b.data, b.url) for b in row]
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


def _who(lang: str, seats: Sequence[SeatLabel], seat: int, me: int) -> str:
    return t(lang, "you") if seat == me and me >= 0 else seat_name(seats, seat)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


def _num(n: int) -> str:
    return f"−{-n}" if n < 0 else str(n)


def _rows(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    return [tuple(buttons[i : i + width]) for i in range(0, len(buttons), width)]


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


# --------------------------------------------------------------------------- rules words


def rule_name(lang: str, rule_id: str) -> str:
    return W.rule_name(lang, rule_id)


def rule_value(lang: str, rule_id: str, value: Any) -> str:
    if isinstance(value, bool):
        return t(lang, "value.on" if value else "value.off")
    if value is None:
        return t(lang, "value.none")
    choice = W.choice_name(lang, rule_id, value)
    if choice is not None:
        return choice
    return _num(int(value)) if isinstance(value, int) else str(value)


def preset_name(lang: str, preset: str) -> str:
    return t(lang, f"preset.{preset}")


def level_name(lang: str, level: str) -> str:
    return t(lang, f"level.{level}" if level in LEVELS else "level.hard")


def rules_brief(lang: str, rules: Rules, *, limit: int = 6) -> str:
    """``классика`` or ``классика (изменено: золотой кон, …)``, the table size left out."""
    preset = preset_of(rules)
    changed = [k for k in rules.diff(PRESETS[preset]) if k != "players"]
    name = preset_name(lang, preset)
    if not changed:
        return name
    names = [esc(rule_name(lang, k)) for k in changed[:limit]]
    if len(changed) > limit:
        names.append(t(lang, "and_more", n=len(changed) - limit))
    return t(lang, "rules.changed", preset=name, changes=", ".join(names))


def find_rule(word: str) -> str | None:
    """The rule id a player means by ``word`` (an id, a name or an alias)."""
    return W.find_rule(word)


# --------------------------------------------------------------------------- lobby


@dataclass(frozen=True, slots=True)
class LobbyInfo:
    game_id: int
    rev: int
    rules: Rules
    seats: tuple[SeatLabel, ...]  # seated, in seat order
    level: str
    note: str = ""  # an escaped line ("Борис — за столом") or ""
    page: str = ""  # "" the lobby, "m" sections, "s<k>" a section, "r<i>" a rule
    forced: bool = True  # a person's only legal action is played at once
    hints: bool = False  # 💡 on the hand messages (a table setting, off by default)


def render_lobby(lang: str, info: LobbyInfo) -> Rendered:
    if info.page:
        return render_settings(lang, info)
    r = info.rules
    lines = [t(lang, "lobby.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    lines.append(t(lang, "lobby.computer_level", level=level_name(lang, info.level)))
    for i in range(r.players):
        who = seat_name(info.seats, i) if i < len(info.seats) else t(lang, "lobby.free")
        lines.append(f"{i + 1}. {who}")
    if info.note:
        lines.append(f"<i>{info.note}</i>")
    full = len(info.seats) >= r.players
    lines.append(t(lang, "lobby.hint_full" if full else "lobby.hint"))
    g, v = info.game_id, info.rev
    rows: list[tuple[Button, ...]] = [
        (Button(t(lang, "btn.join"), cb.encode(g, v, cb.JOIN)),
         Button(t(lang, "btn.leave"), cb.encode(g, v, cb.LEAVE))),
    ]
    ai_row = [Button(t(lang, "btn.add_computer"), cb.encode(g, v, cb.ADD_AI))]
    if any(s.computer for s in info.seats):
        ai_row.append(Button(t(lang, "btn.drop_computer"), cb.encode(g, v, cb.DROP_AI)))
    rows.append(tuple(ai_row))
    nxt_players = {2: 3, 3: 4, 4: 2}[r.players]
    preset = preset_of(r)
    presets = list(PRESETS)
    nxt_preset = presets[(presets.index(preset) + 1) % len(presets)]
    nxt_level = LEVELS[(LEVELS.index(info.level) + 1) % len(LEVELS)] if info.level in LEVELS \
        else "hard"
    # each button says what it changes and its value now ("Игроков: 3"): two a row fit
    rows.append((
        Button(t(lang, "btn.players", n=r.players), cb.encode(g, v, cb.PLAYERS, str(nxt_players))),
        Button(t(lang, "btn.level", level=level_name(lang, info.level)),
               cb.encode(g, v, cb.LEVEL, nxt_level)),
    ))
    rows.append((Button(t(lang, "btn.preset", preset=preset_name(lang, preset)),
                        cb.encode(g, v, cb.PRESET, nxt_preset)),
                 Button(t(lang, "btn.settings"), _menu(g, v, "m"))))
    rows.append((Button(t(lang, "btn.forced_on" if info.forced else "btn.forced_off"),
                        cb.encode(g, v, cb.FORCED, "0" if info.forced else "1")),
                 Button(t(lang, "btn.hints_on" if info.hints else "btn.hints_off"),
                        cb.encode(g, v, cb.HINTS, "0" if info.hints else "1"))))
    rows.append((Button(t(lang, "btn.start"), cb.encode(g, v, cb.START)),
                 Button(t(lang, "btn.cancel"), cb.encode(g, v, cb.CANCEL))))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def render_settings(lang: str, info: LobbyInfo) -> Rendered:
    """The rule settings menu shown in place of the lobby (pages "", sections, one rule)."""
    g, v, r = info.game_id, info.rev, info.rules
    page = info.page
    lines = [t(lang, "settings.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    rows: list[tuple[Button, ...]] = []
    if page.startswith("s"):
        k = int(page[1:])
        section = SECTIONS[k] if 0 <= k < len(SECTIONS) else SECTIONS[0]
        lines.append(f"<b>{t(lang, f'section.{section}')}</b>")
        inert = inert_rules(r)  # options that do nothing at this table are not offered
        for rid in RULE_IDS:
            spec = RULE_SPECS[rid]
            if spec.section != section or rid in inert:
                continue
            idx = RULE_IDS.index(rid)
            value = getattr(r, rid)
            if spec.kind == "bool":
                mark = "✅" if value else "⬜"
                rows.append((Button(f"{mark} {rule_name(lang, rid)}",
                                    cb.encode(g, v, cb.SET, f"{idx}.{0 if value else 1}")),))
            else:
                rows.append((Button(f"{rule_name(lang, rid)}: {rule_value(lang, rid, value)}",
                                    cb.encode(g, v, cb.MENU, f"r{idx}")),))
        rows.append((Button(t(lang, "btn.sections"), _menu(g, v, "m")),))
    elif page.startswith("r"):
        idx = int(page[1:])
        rid = RULE_IDS[idx] if 0 <= idx < len(RULE_IDS) else RULE_IDS[0]
        spec = RULE_SPECS[rid]
        text = W.rule_text(lang, rid)
        lines.append(f"<b>{esc(rule_name(lang, rid))}</b>")
        if text is not None:
            lines.append(esc(text))
        lines.append(t(lang, "settings.now", value=esc(rule_value(lang, rid, getattr(r, rid)))))
        opts = [Button(("✅ " if getattr(r, rid) == opt else "") + rule_value(lang, rid, opt),
                       cb.encode(g, v, cb.SET, f"{idx}.{j}"))
                for j, opt in enumerate(spec.options)]
        rows.extend(_rows(opts, 3))
        rows.append((Button(t(lang, "btn.back"), _menu(g, v, f"s{SECTIONS.index(spec.section)}")),))
    else:  # the list of sections
        lines.append(t(lang, "settings.pick"))
        secs = [Button(t(lang, f"section.{s}"), _menu(g, v, f"s{k}"))
                for k, s in enumerate(SECTIONS)]
        rows.extend(_rows(secs, 2))
        rows.append((Button(t(lang, "btn.reset_rules"), cb.encode(g, v, cb.PRESET, preset_of(r))),
                     Button(t(lang, "btn.done"), _menu(g, v, "")),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def _menu(g: int, v: int, page: str) -> str:
    """Menu navigation: ``page`` "" (lobby), "m" (sections), "s<k>", "r<i>"."""
    return cb.encode(g, v, cb.MENU, page)


def menu_page(arg: str) -> str | None:
    """The page a MENU callback asks for, None if there is no such page."""
    if arg.startswith("s") and int(arg[1:]) >= len(SECTIONS):
        return None
    if arg.startswith("r") and int(arg[1:]) >= len(RULE_IDS):
        return None
    return arg


# --------------------------------------------------------------------------- the game


@dataclass(frozen=True, slots=True)
class TableInfo:
    """What a game message needs besides the view."""

    game_id: int
    seats: tuple[SeatLabel, ...]
    events: tuple[Event, ...] = ()  # events of the current deal
    solo: bool = False
    hints: bool = False  # a 💡 button on the hand message (solo, or the table allows it)


def _header(lang: str, v: TableView, seats: Sequence[SeatLabel]) -> list[str]:
    head = t(lang, "table.head", n=v.number, dealer=seat_name(seats, v.dealer))
    if v.kind == Kind.GOLDEN:
        head += " · " + t(lang, "table.golden")
    lines = [head]
    if v.history and v.history[-1].outcome == "redeal" and v.history[-1].number == v.number - 1:
        lines.append("🔄 " + redeal_line(lang, v.history[-1].notes[0].code,
                                         v.history[-1].notes[0].seat, seats))
    if v.kind == Kind.DARK:
        lines.append("🌑 " + t(lang, "event.dark", name=seat_name(seats, v.forehand)))
    return lines


def redeal_line(lang: str, code: str, seat: int, seats: Sequence[SeatLabel]) -> str:
    reason = code.removeprefix("redeal_")
    key = f"redeal.{reason}"
    why = t(lang, key) if has(key) else reason
    return t(lang, "event.redeal", name=seat_name(seats, seat), reason=why)


def _event_lines(lang: str, info: TableInfo) -> list[str]:
    out = []
    timed_out: list[int] = []  # one line a seat, however often its time ran out
    for e in info.events:
        if e.code == "unblind":
            out.append("🌗 " + t(lang, "event.unblind", name=seat_name(info.seats, e.seat),
                                bid=e.value))
        elif e.code == "timeout" and e.seat not in timed_out and not (
                0 <= e.seat < len(info.seats) and info.seats[e.seat].away):
            timed_out.append(e.seat)
            out.append("⏰ " + t(lang, "event.timeout", name=seat_name(info.seats, e.seat)))
    for s in info.seats:
        if s.auto:
            out.append(t(lang, "autopilot.on", name=esc(s.name)) if s.away
                       else "🤖 " + t(lang, "event.auto", name=esc(s.name)))
    return out


def _seat_lines(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> list[str]:
    out = []
    r = v.rules
    for i in range(v.n):
        name = seat_name(seats, i)
        if i == me:
            name = f"<b>{name}</b>"
        parts = [f"{name} — {_num(v.totals[i])}"]
        if r.barrel and v.barrel[i] >= 0:
            parts.append(f"🛢 {v.barrel[i]}/{r.barrel_attempts}")
        if v.bolts[i]:
            parts.append("· " + (t(lang, "table.bolt") if v.bolts[i] == 1
                                 else t(lang, "table.bolts", n=v.bolts[i])))
        if v.number and i == v.dealer and v.n == 4:
            parts.append(t(lang, "table.sits_out"))
        if v.declarer == i and v.phase != Phase.GAME_OVER:
            parts.append(f"📣 {v.contract or v.bid}")
        out.append(" ".join(parts))
    return out


def _bids_line(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str:
    items = []
    for seat, bid in v.bids:
        word = t(lang, "table.pass") if bid == 0 else str(bid)
        items.append(f"{_who(lang, seats, seat, me)} {word}")
    return t(lang, "table.bids", bids=" · ".join(items))


def _marriages(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str:
    items = []
    for m in v.declared:
        what = t(lang, "table.aces") if m.suit == 4 else SUIT_EMOJI[m.suit]
        items.append(f"{_who(lang, seats, m.seat, me)} {what} {m.value}")
    return ", ".join(items)


def _trick_line(lang: str, v: TableView, seats: Sequence[SeatLabel], me: int) -> str | None:
    if v.trick:
        items = [f"{_who(lang, seats, s, me)} {card_text(c)}" for s, c in v.trick]
        if v.to_act >= 0:
            items.append(f"{_who(lang, seats, v.to_act, me)} …")
        return t(lang, "table.trick", cards=" · ".join(items))
    if v.tricks:
        last = v.tricks[-1]
        items = [f"{_who(lang, seats, s, me)} {card_text(c)}" for s, c in last.cards]
        return t(lang, "table.last_trick", cards=" · ".join(items),
                 winner=_who(lang, seats, last.winner, me))
    return None


def _table_lines(lang: str, v: TableView, info: TableInfo, me: int) -> list[str]:
    """The table: header, events, seats and totals, auction, talon, contract, trick, turn."""
    seats = info.seats
    lines = _header(lang, v, seats)
    lines += _event_lines(lang, info)
    lines += _seat_lines(lang, v, seats, me)
    if v.bids and v.phase in (Phase.BIDDING, Phase.TALON, Phase.PASSING, Phase.CONTRACT,
                              Phase.REDEAL):
        lines.append(_bids_line(lang, v, seats, me))
    if v.declarer >= 0:
        key = "table.contract" if v.phase == Phase.PLAY else "table.declarer"
        if v.declarer == me:
            key += "_me"
        lines.append(t(lang, key, name=seat_name(seats, v.declarer),
                       bid=v.contract if v.phase == Phase.PLAY else v.bid))
    if v.talon and (v.talon_shown or me == v.declarer):
        key = "table.talon" if v.talon_shown else "table.talon_yours"
        lines.append(t(lang, key, cards=cards_text(v.talon)))
    elif v.declarer >= 0 and not v.talon_shown and v.phase in (Phase.PASSING, Phase.CONTRACT):
        lines.append(t(lang, "table.talon_closed"))
    if v.phase == Phase.TALON and v.n == 2:
        lines.append(t(lang, "table.two_talons"))
    if v.phase == Phase.PLAY and v.rules.stock_mode:
        lines.append(t(lang, "table.stock", n=v.talon_size))
    if v.trump >= 0:
        lines.append(t(lang, "table.trump", suit=SUIT_EMOJI[v.trump],
                       marriages=_marriages(lang, v, seats, me)))
    elif v.declared:
        lines.append(t(lang, "table.marriages", marriages=_marriages(lang, v, seats, me)))
    if v.phase == Phase.PLAY:
        trick = _trick_line(lang, v, seats, me)
        if trick:
            lines.append(trick)
        if v.tricks:
            counts = " · ".join(f"{_who(lang, seats, s, me)} {v.ntricks[s]}"
                                for s in sorted(v.active))  # seat order, every deal the same
            lines.append(t(lang, "table.tricks", counts=counts))
    return lines


def render_table(lang: str, pv: TableView, info: TableInfo) -> Rendered:
    """The group's table message (from the public view)."""
    lines = _table_lines(lang, pv, info, -1)
    if pv.to_act >= 0:
        lines.append(t(lang, "table.turn", name=seat_name(info.seats, pv.to_act)))
    g = info.game_id
    rows = ((Button(t(lang, "btn.my_cards"), cb.encode(g, 0, cb.HAND)),
             Button(t(lang, "btn.score"), cb.encode(g, 0, cb.SCORE))),)
    return Rendered(fit("\n".join(lines)), rows)


def render_hand(lang: str, v: TableView, info: TableInfo) -> Rendered:
    """A player's private message: the table in a few lines, the hand, and what to do now."""
    me = v.seat
    lines = _table_lines(lang, v, info, me)
    if v.received >= 0:
        lines.append(t(lang, "hand.received", card=card_text(v.received)))
    if v.gave and me == v.declarer:
        gave = ", ".join(f"{card_text(c)} → {seat_name(info.seats, s)}" for s, c in v.gave)
        lines.append(t(lang, "hand.gave", cards=gave))
    if v.discarded:
        lines.append(t(lang, "hand.discarded", cards=cards_text(v.discarded)))
    if v.phase == Phase.DARK and me == v.forehand:
        lines.append(t(lang, "hand.closed"))
    elif v.hand:
        lines.append(t(lang, "hand.cards", cards=hand_text(v.hand)))
    rows: list[tuple[Button, ...]] = []
    if v.legal:
        prompt, rows = _actions(lang, v, info)
        lines.append(f"<b>{prompt}</b>")
        if info.hints:
            rows.append((Button(t(lang, "btn.hint"), cb.encode(info.game_id, v.version,
                                                               cb.HINT)),))
    elif v.to_act >= 0:
        lines.append(t(lang, "hand.waiting", name=seat_name(info.seats, v.to_act)))
        if v.offers:  # four nines after the pass: a redeal may be asked out of turn
            lines.append(t(lang, "prompt.redeal",
                           reason=t(lang, "redeal.four_nines_after_pass")))
            rows.append((Button(t(lang, "btn.redeal"),
                                cb.action_data(info.game_id, v.version, Action(REDEAL))),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def _pick_values(values: list[int], most: int = 20) -> list[int]:
    """At most ``most`` of the values: the first ten, then evenly spaced, always the last."""
    if len(values) <= most:
        return values
    head, rest = values[:10], values[10:]
    step = -(-len(rest) // (most - 10))
    picked = rest[step - 1 :: step]
    if picked[-1] != rest[-1]:
        picked[-1] = rest[-1]
    return head + picked


def _card_rows(g: int, ver: int, acts: list[Action], label: Any = None) -> list[tuple[Button, ...]]:
    by_suit: dict[int, list[Button]] = {}
    for a in sorted(acts, key=lambda a: (C.suit_of(a.card), -C.rank_of(a.card), a.kind)):
        text = card_button(a.card) if label is None else label(a)
        by_suit.setdefault(C.suit_of(a.card), []).append(Button(text, cb.action_data(g, ver, a)))
    return [tuple(by_suit[s]) for s in sorted(by_suit)]


def _talon_reason(r: Rules, talon: Sequence[int]) -> str:
    if r.redeal_talon_below is not None and C.hand_points(talon) < r.redeal_talon_below:
        return "talon_below"
    if r.redeal_talon_two_nines and C.count_rank(talon, C.NINE) >= 2:
        return "talon_two_nines"
    return "talon_three_jacks"


def _actions(lang: str, v: TableView, info: TableInfo) -> tuple[str, list[tuple[Button, ...]]]:
    """The prompt and the buttons of exactly the actions this seat may take now."""
    g, ver, seats = info.game_id, v.version, info.seats
    legal = list(v.legal)
    kinds = {a.kind for a in legal}

    def btn(text: str, a: Action) -> Button:
        return Button(text, cb.action_data(g, ver, a))

    rows: list[tuple[Button, ...]] = []
    if DARK in kinds:
        rows.append((btn(t(lang, "btn.dark"), Action(DARK)), btn(t(lang, "btn.light"),
                                                                Action(LIGHT))))
        return t(lang, "prompt.dark"), rows
    if REDEAL in kinds and v.phase != Phase.PASSING:
        # the private request (§2.3): a button beside the seat's first decision, or with
        # four nines after the pass until its first card
        prompt, rows = _actions(lang, replace(v, legal=tuple(a for a in legal
                                                              if a.kind != REDEAL)), info)
        late = (v.rules.redeal_after_pass and v.phase in (Phase.CONTRACT, Phase.PLAY)
                and C.count_rank(v.hand, C.NINE) == 4)
        reason = "four_nines_after_pass" if late else (
            hand_redeal_reason(v.rules, v.hand, v.seat == v.forehand) or "hand")
        rows.append((btn(t(lang, "btn.redeal_talon", reason=t(lang, f"redeal.{reason}")),
                         Action(REDEAL)),))
        return prompt, rows
    if v.phase == Phase.BIDDING:
        bids = [a.value for a in legal if a.kind == BID]
        buttons = [btn(t(lang, "btn.pass"), Action(PASS))]
        if v.kind == Kind.DARK:
            buttons += [btn(t(lang, "btn.unblind", bid=b), Action(BID, value=b)) for b in bids]
            rows.extend(_rows(buttons, 2))
            return t(lang, "prompt.unblind", name=seat_name(seats, v.bidder), bid=v.bid), rows
        buttons += [btn(str(b), Action(BID, value=b)) for b in _pick_values(bids)]
        rows.extend(_rows(buttons, 5))
        key = "prompt.bid" if bids else "prompt.bid_pass_only"
        return t(lang, key, bid=v.bid, name=seat_name(seats, v.bidder)), rows
    if v.phase == Phase.TALON:
        if v.n != 2:  # one talon, taken by hand
            rows.append((btn(t(lang, "btn.take_talon"), Action(TALON, value=1)),))
            return t(lang, "prompt.take_talon"), rows
        rows.append(tuple(btn(t(lang, "btn.talon", n=a.value), a) for a in legal))
        return t(lang, "prompt.talon"), rows
    if v.phase == Phase.PASSING:
        cards = [a for a in legal if a.kind in (GIVE, DISCARD)]
        rows.extend(_card_rows(g, ver, cards))
        if REDEAL in kinds:
            reason = _talon_reason(v.rules, v.talon)
            rows.append((btn(t(lang, "btn.redeal_talon", reason=t(lang, f"redeal.{reason}")),
                             Action(REDEAL)),))
        if any(a.kind == DISCARD for a in cards):
            return t(lang, "prompt.discard", k=len(v.discarded) + 1), rows
        return t(lang, "prompt.give", name=seat_name(seats, _give_target(v))), rows
    if v.phase == Phase.CONTRACT:
        values = [a.value for a in legal if a.kind == CONTRACT]
        buttons = [btn(t(lang, "btn.contract_first", bid=values[0]),
                       Action(CONTRACT, value=values[0]))] if values else []
        buttons += [btn(str(x), Action(CONTRACT, value=x)) for x in _pick_values(values[1:])]
        rows.extend(_rows(buttons, 5))
        if CONCEDE in kinds:
            pay = rospis_payout(v.rules.rospis_pays, v.bid, v.rules.players)
            mult = 2 if v.kind in (Kind.DARK, Kind.GOLDEN) else 1
            rows.append((btn(t(lang, "btn.concede", bid=v.bid * mult, pay=pay * mult),
                             Action(CONCEDE)),))
        return t(lang, "prompt.contract", bid=v.bid), rows
    # play
    plays = [a for a in legal if a.kind == PLAY]
    declares = [a for a in legal if a.kind == DECLARE]
    rows.extend(_card_rows(g, ver, plays))
    if declares:
        def label(a: Action) -> str:
            value = C.ACE_MARRIAGE_VALUE if C.rank_of(a.card) == C.ACE \
                else C.MARRIAGE_VALUES[C.suit_of(a.card)]
            return f"{card_button(a.card)} 💍 {value}"
        rows = _card_rows(g, ver, declares, label) + rows
    key = "prompt.play_lead" if not v.trick else "prompt.play"
    return t(lang, key), rows


def _give_target(v: TableView) -> int:
    if v.n == 2:
        return next((s for s in v.active if s != v.seat), -1)
    given = {s for s, _ in v.gave}
    i = v.active.index(v.declarer)
    for k in range(1, len(v.active)):
        s = v.active[(i + k) % len(v.active)]
        if s not in given:
            return s
    return -1


# --------------------------------------------------------------------------- results


_NOTE_SHOWN: Final = frozenset({
    "bolt", "bolt_penalty", "barrel_on", "barrel_back", "knocked_off", "barrel_tries_out",
    "barrel_failed", "third_fall_zero", "fall", "samosval", "sitter_nothing", "golden_reset",
    "golden_again", "four_nines_bonus", "talon_score", "rospis_penalty", "frozen",
    "all_tricks_120", "barrel_try", "golden_double", "dark_double", "tie_one_more",
})


def note_line(lang: str, code: str, seat: int, value: int, seats: Sequence[SeatLabel]) -> str:
    """One score-sheet note in words ("Анна: болт, второй за игру")."""
    if code.startswith("redeal_"):
        return redeal_line(lang, code, seat, seats)
    key = f"note.{code}"
    if not has(key):
        return code
    return t(lang, key, name=seat_name(seats, seat) if seat >= 0 else "", value=_num(value),
             abs=abs(value))


# notes whose value is what the deal itself wrote for a seat (before bolts' fines, the
# barrel, falls and the 555 dump change the totals); "sitter_nothing" and "frozen" take
# their value back out
_WRITTEN: Final = frozenset({"contract_made", "contract_failed", "defender_points", "conceded",
                             "rospis_paid", "rospis_penalty", "stock_points",
                             "four_nines_bonus", "talon_score"})


def written_points(row: dict[str, Any]) -> list[int]:
    """What the deal wrote for each seat by its own play, before the effects that follow
    (a bolt's fine, the barrel, a fall, the 555 dump): a failed 180 is −180 even when the
    dump then brings the total from −555 to 0 (a net +375)."""
    out = [0] * len(row["scores"])
    for code, seat, value in row["notes"]:
        if not 0 <= seat < len(out):
            continue
        if code in _WRITTEN:
            out[seat] += value
        elif code in ("sitter_nothing", "frozen"):
            out[seat] -= value
    return out


def row_notes(row: dict[str, Any]) -> list[tuple[str, int, int]]:
    """The deal's notes as (code, seat, value), the 555 dump with the total it hit
    (555 or −555)."""
    out = []
    for code, seat, value in row["notes"]:
        if code == "samosval" and 0 <= seat < len(row["totals"]):
            before = row["totals"][seat] - row["scores"][seat]
            value = -555 if before < 0 else 555
        out.append((str(code), int(seat), int(value)))
    return out


def deal_summary(lang: str, row: dict[str, Any], seats: Sequence[SeatLabel]) -> list[str]:
    """The lines a finished deal leaves on the table: who played what and what that wrote,
    then each later effect in words (bolts, barrel, falls, the 555 dump), then the totals."""
    n, decl = row["n"], row["declarer"]
    outcome = row["outcome"]
    scores = written_points(row)
    name = seat_name(seats, decl) if decl >= 0 else ""
    lines: list[str] = []
    if outcome == "redeal":
        code, seat = row["notes"][0][0], row["notes"][0][1]
        lines.append(t(lang, "summary.head", n=n) + " " + redeal_line(lang, code, seat, seats))
    elif outcome == "conceded":
        lines.append(t(lang, "summary.conceded", n=n, name=name, bid=row["bid"],
                       score=_signed(scores[decl])))
    elif outcome in ("made", "failed"):
        lines.append(t(lang, f"summary.{outcome}", n=n, name=name, contract=row["contract"],
                       points=row["points"][decl], score=_signed(scores[decl])))
    else:
        lines.append(t(lang, "summary.head", n=n))
    others = [f"{seat_name(seats, i)} {_signed(s)}" for i, s in enumerate(scores)
              if i != decl and outcome != "redeal"]
    if others:
        lines.append(" · ".join(others))
    for code, seat, value in row_notes(row):
        if code in _NOTE_SHOWN and code != "winner":
            lines.append("• " + note_line(lang, code, seat, value, seats))
    lines.append(t(lang, "summary.totals", totals=_totals(row["totals"], seats)))
    if row.get("winner", -1) >= 0:
        lines.append(t(lang, "summary.winner", name=seat_name(seats, row["winner"]),
                       total=_num(row["totals"][row["winner"]])))
    return lines


def _totals(totals: Sequence[int], seats: Sequence[SeatLabel]) -> str:
    return " · ".join(f"{seat_name(seats, i)} {_num(x)}" for i, x in enumerate(totals))


def render_deal_end(lang: str, row: dict[str, Any], seats: Sequence[SeatLabel],
                    *, stopped: bool = False, game_id: int = 0) -> Rendered:
    """What a table or hand message of a finished deal turns into: with ``game_id``, a
    deal that was played out gets a 🔍 button (its open-card analysis)."""
    lines = deal_summary(lang, row, seats)
    if row.get("winner", -1) >= 0:
        lines.append(t(lang, "summary.game_over"))
    if stopped:
        lines.append(t(lang, "game.stopped"))
    rows: Keyboard = ()
    if game_id and row.get("outcome") in ("made", "failed") and row.get("declarer", -1) >= 0:
        rows = ((Button(t(lang, "btn.analyse"),
                        cb.encode(game_id, 0, cb.ANALYSE, str(row["n"]))),),)
    return Rendered(fit("\n".join(lines)), rows)


def render_stopped(lang: str, totals: Sequence[int], seats: Sequence[SeatLabel]) -> Rendered:
    return Rendered(fit(t(lang, "game.stopped") + "\n" +
                        t(lang, "summary.totals", totals=_totals(totals, seats))))


def render_left(lang: str) -> Rendered:
    return Rendered(t(lang, "hand.left"))


def hand_popup(lang: str, v: TableView) -> str:
    if not v.hand:
        return popup(t(lang, "popup.no_cards"))
    groups: dict[int, list[int]] = {}
    for c in C.sort_hand(v.hand):
        groups.setdefault(C.suit_of(c), []).append(c)
    text = " · ".join(C.SUITS[s] + " " + " ".join(RANK_NAMES[c % 6] for c in groups[s])
                      for s in sorted(groups))
    extra = ""
    if v.received >= 0:
        extra = " " + t(lang, "popup.received", card=C.fmt(v.received))
    return popup(t(lang, "popup.hand", cards=text) + extra)


def totals_popup(lang: str, v: TableView, seats: Sequence[SeatLabel]) -> str:
    items = []
    for i in range(v.n):
        s = seats[i] if i < len(seats) else SeatLabel("?")
        mark = " 🛢" if v.rules.barrel and v.barrel[i] >= 0 else ""
        items.append(f"{('🤖 ' if s.computer else '')}{s.name} {_num(v.totals[i])}{mark}")
    return popup(t(lang, "popup.totals", totals=" · ".join(items)))


# --------------------------------------------------------------------------- /score


# The sheet is monospace: only ASCII marks (emoji and symbols from fallback fonts are wider
# than a column); the legend under the sheet names the marks it uses.
_MARKS: Final = {"bolt": "|", "penalty": "!", "barrel_on": "^", "barrel_back": "<",
                 "fall": "_", "knocked_off": "_", "third_fall": "_", "samosval": "~",
                 "winner": "*"}
_MARK_NAMES: Final = {"|": "bolt", "!": "penalty", "^": "barrel_on", "<": "barrel_back",
                      "_": "fall", "~": "samosval", "*": "winner", "+": "made", "-": "failed",
                      "$": "golden", "#": "dark"}
SHEET_NAME_LIMIT: Final = 6  # a column of the sheet
SHEET_LABEL_LIMIT: Final = 2  # the dealer and the declarer in a row


def render_score(lang: str, rows: Sequence[dict[str, Any]], seats: Sequence[SeatLabel],
                 *, title: str = "") -> str:
    """The score sheet as a monospace table with marks, and the last deal in words."""
    if not rows:
        return (title + "\n" if title else "") + t(lang, "score.empty")
    full = [s.name for s in seats]
    names = unique_names(full, SHEET_NAME_LIMIT)
    labels = unique_names(full, SHEET_LABEL_LIMIT)
    games = [_game_cell(lang, row, labels) for row in rows]
    gw = min(18, max(len(g) for g in [*games, t(lang, "score.game")]))
    cells = [[str(row["totals"][i]) + "".join(_MARKS.get(m, "") for m in row["marks"][i])
              for i in range(len(names))] for row in rows]  # ASCII minus: one column each
    widths = [max([5, len(nm)] + [len(c[i]) for c in cells]) for i, nm in enumerate(names)]
    dealer = t(lang, "score.dealer")
    dw = max(len(dealer), SHEET_LABEL_LIMIT)
    head = f"{'#':>3} {dealer:<{dw}} {t(lang, 'score.game'):<{gw}}"
    head += "".join(f" {nm:>{w}}" for nm, w in zip(names, widths, strict=True))

    body = []
    used: set[str] = set()
    for row, game, cell in zip(rows, games, cells, strict=True):
        who = labels[row["dealer"]] if 0 <= row["dealer"] < len(labels) else "?"
        line = f"{row['n']:>3} {who:<{dw}} {game:<{gw}}"
        line += "".join(f" {c:>{w}}" for c, w in zip(cell, widths, strict=True))
        body.append(line.rstrip())
        used.update(_MARKS[m] for marks in row["marks"] for m in marks if m in _MARKS)
        used.update({"made": "+", "failed": "-"}.get(row["outcome"], ""),
                    {"golden": "$", "dark": "#"}.get(str(row.get("kind")), ""))
    last = rows[-1]
    words = [note_line(lang, c, s, v, seats) for c, s, v in row_notes(last)
             if c in _NOTE_SHOWN or c.startswith("redeal_") or c == "winner"]
    marks = [f"{m} {t(lang, f'mark.{name}')}" for m, name in _MARK_NAMES.items() if m in used]
    who_is = [f"{lb} — {esc(nm)}" for lb, nm in zip(labels, full, strict=True)
              if not nm.startswith(lb)]
    legend_parts = []
    if marks:
        legend_parts.append(t(lang, "score.legend", marks=" · ".join(marks)))
    if who_is:
        legend_parts.append(t(lang, "score.labels", labels=", ".join(who_is)))

    def build(skip: int) -> str:
        parts = [title] if title else []
        table_lines = [head]
        if skip:
            table_lines.append(t(lang, "score.skipped", k=skip))
        table_lines += body[skip:]
        parts.append("<pre>" + esc("\n".join(table_lines)) + "</pre>")
        parts.extend(legend_parts)
        if words:
            parts.append(t(lang, "score.last", n=last["n"]) + "\n" + "\n".join(
                "• " + w for w in words))
        return "\n".join(parts)

    skip = 0
    text = build(0)
    while len(text) > MAX_TEXT and skip < len(body) - 1:
        skip += max(1, (len(text) - MAX_TEXT) // 40)
        skip = min(skip, len(body) - 1)
        text = build(skip)
    return fit(text)


def _game_cell(lang: str, row: dict[str, Any], labels: Sequence[str]) -> str:
    decl, outcome = row["declarer"], row["outcome"]
    who = labels[decl] if 0 <= decl < len(labels) else "?"
    if outcome == "redeal":
        game = t(lang, "score.redeal")
    elif outcome == "conceded":
        game = f"{who} {row['bid']} {t(lang, 'score.conceded')}"
    elif outcome == "made":
        game = f"{who} {row['contract']} +"
    elif outcome == "failed":
        game = f"{who} {row['contract']} -"
    else:
        game = "·"
    if row.get("kind") == "golden":
        game += " $"
    elif row.get("kind") == "dark":
        game += " #"
    return game


# --------------------------------------------------------------------------- /rules


def render_rules(lang: str, rules: Rules) -> list[str]:
    """The short rules, then this table's house rules; split into messages ≤ 4096."""
    lines = [t(lang, "rules.summary"), "", t(lang, "rules.table_head",
                                             preset=preset_name(lang, preset_of(rules)))]
    diff = rules.diff(CLASSIC)
    if not diff:
        lines.append(t(lang, "rules.table_classic"))
    for rid, value in diff.items():
        lines.append(f"• {esc(rule_name(lang, rid))}: {esc(rule_value(lang, rid, value))}")
    lines.append("")
    lines.append(t(lang, "rules.more"))
    return split_text("\n".join(lines))


def render_rule(lang: str, rule_id: str, rules: Rules) -> str:
    name, text = W.rule_name(lang, rule_id), W.rule_text(lang, rule_id) or ""
    value = rule_value(lang, rule_id, getattr(rules, rule_id))
    default = rule_value(lang, rule_id, getattr(CLASSIC, rule_id))
    return fit(t(lang, "rule.one", name=esc(name), id=rule_id, text=esc(text), value=esc(value),
                 default=esc(default)))


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


# --------------------------------------------------------------------------- refusals


def _refusal_param(lang: str, key: str, value: int | str, seats: Sequence[SeatLabel]) -> str:
    if key == "card" and isinstance(value, int):
        return card_text(value)
    if key == "suit" and isinstance(value, int):
        return SUIT_EMOJI[value] if 0 <= value < 4 else "?"
    if key in ("seat", "to_act") and isinstance(value, int):
        if 0 <= value < len(seats):
            return seat_name(seats, value)
        return t(lang, "refuse.seat", n=value + 1)
    if key == "phase":
        return t(lang, f"refuse.phase.{value}") if has(f"refuse.phase.{value}") else "?"
    if key == "kind":
        return t(lang, f"refuse.kind.{value}") if has(f"refuse.kind.{value}") else "?"
    return esc(value)


def refusal_text(lang: str, error: IllegalAction | RulesError,
                 seats: Sequence[SeatLabel] = ()) -> str:
    """A refused move or rule set, said in ``lang`` (catalog keys ``refuse.<code>``), from the
    error's code and parameters, never from its English message. Seats are named from
    ``seats`` when given. The text is HTML-escaped (a name, a typed word)."""
    if isinstance(error, RulesError):
        items = [(p.code, p.params) for p in error.problems]
    else:
        items = [(error.code, error.params)]
    out = []
    for code, params in items:
        key = f"refuse.{code}" if has(f"refuse.{code}") else "refuse.rules"
        kw = {k: _refusal_param(lang, k, v, seats) for k, v in params.items()}
        out.append(t(lang, key, **kw) if kw else t(lang, key))
    return " ".join(out)


# ====================================================================== solo setup, game end


def render_solo_setup(lang: str, info: LobbyInfo) -> Rendered:
    """``/newgame`` in a private chat: the computers' level and the table size as buttons
    (the chosen ones marked), the rules, and "Play" first."""
    r = info.rules
    g, v = info.game_id, info.rev
    lines = [t(lang, "lobby.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r)),
             t(lang, "solo.pick_level"), t(lang, "solo.pick_size")]
    levels = tuple(Button(("✅ " if lv == info.level else "") + level_name(lang, lv),
                          cb.encode(g, v, cb.LEVEL, lv)) for lv in LEVELS)
    sizes = tuple(Button(("✅ " if n == r.players else "") + t(lang, "solo.players", n=n),
                         cb.encode(g, v, cb.PLAYERS, str(n))) for n in (2, 3, 4))
    presets = list(PRESETS)
    nxt = presets[(presets.index(preset_of(r)) + 1) % len(presets)]
    rows: list[tuple[Button, ...]] = [
        (Button(t(lang, "solo.play"), cb.encode(g, v, cb.START)),),
        levels,
        sizes,
        (Button(t(lang, "btn.preset", preset=preset_name(lang, preset_of(r))),
                cb.encode(g, v, cb.PRESET, nxt)),
         Button(t(lang, "btn.settings"), _menu(g, v, "m"))),
        (Button(t(lang, "btn.cancel"), cb.encode(g, v, cb.CANCEL)),),
    ]
    return Rendered(fit("\n".join(lines)), tuple(rows))


def render_solo_started(lang: str, info: LobbyInfo) -> Rendered:
    """What the solo setup message keeps once the game started (no buttons)."""
    return Rendered(fit(t(lang, "solo.started", level=level_name(lang, info.level),
                          n=info.rules.players, rules=rules_brief(lang, info.rules))))


def render_game_end(lang: str, game_id: int, rows: Sequence[dict[str, Any]],
                    seats: Sequence[SeatLabel], winner: int) -> str:
    """The final score sheet posted when a game ends."""
    del game_id, winner  # the sheet's last deal names the winner
    return render_score(lang, rows, seats, title=t(lang, "end.title"))


def end_keyboard(lang: str, game_id: int) -> Keyboard:
    """"Rematch" (the same seats and rules, the next dealer) and "New table"."""
    return ((Button(t(lang, "end.rematch"), cb.encode(game_id, 0, cb.REMATCH)),
             Button(t(lang, "end.new_table"), cb.encode(game_id, 0, cb.NEW_TABLE))),)


def pictures_keyboard(lang: str, game_id: int) -> Keyboard:
    """The "🖼" button under a score sheet: the sheet and the race to 1000 as pictures."""
    return ((Button(t(lang, "pictures.button"), cb.encode(game_id, 0, cb.PICTURES)),),)
