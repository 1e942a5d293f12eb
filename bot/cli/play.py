"""``python -m bot play``: a whole game of Thousand in the terminal, one person against two
computer players. ``--seed N`` repeats a game, ``--save FILE`` writes its record as it goes,
``--lang ru|uk|en`` (default: the language of ``LC_ALL``/``LC_MESSAGES``/``LANG``, else
Russian).

A move is typed as the table shows it: a card as ``9♠`` (or ``9s``, ``9 пик``, ``9п``, or the
number it keeps for the whole deal), a bid or a contract as its value, ``пас``, ``роспись``…
Only what the person's seat may know is shown: the card the declarer passes to the other
opponent stays hidden (unless the rules show passed cards)."""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from bot.ai import LEVELS, choose_action
from bot.cli.moves import CARD_KINDS, normal, read_move
from bot.engine import cards as C
from bot.engine.game import apply, defenders, new_game
from bot.engine.record import game_record
from bot.engine.refusals import why_illegal
from bot.engine.rules import PRESETS, make_rules
from bot.engine.state import (
    BID,
    CONTRACT,
    DECLARE,
    GIVE,
    PLAY,
    TALON,
    Action,
    GameState,
    Kind,
    Phase,
)
from bot.engine.views import TableView, view
from bot.i18n import DEFAULT_LANG, LANGS, Lang, lang_of, t
from bot.tg.view.common import SeatLabel
from bot.tg.view.rules import refusal_text

HUMAN = 0
_TAG = re.compile(r"<[^<>]+>")


def action_text(lang: str, a: Action, names: Sequence[str], v: TableView | None = None,
                single_talon: bool = False) -> str:
    """A short label of an action: "пас", "105", "снести 9♠ → Борис", "K♥ с марьяжем (+100)"."""
    card = C.fmt(a.card) if a.card >= 0 else ""
    if a.kind == GIVE and v is not None:
        return t(lang, "term_act_give", card=card, to=names[give_target(v)])
    if a.kind == DECLARE:
        value = 200 if C.rank_of(a.card) == C.ACE else C.MARRIAGE_VALUES[C.suit_of(a.card)]
        return t(lang, "term_act_declare", card=card, value=value)
    if a.kind == TALON and single_talon:
        return t(lang, "term_act_talon_one")
    if a.kind in (BID, CONTRACT, TALON):
        return t(lang, f"term_act_{a.kind}", value=a.value)
    return t(lang, f"term_act_{a.kind}", card=card)


def give_target(v: TableView) -> int:
    """The seat the declarer's next card goes to: the next defender clockwise without one
    (two players: the opponent)."""
    given = {g for g, _ in v.gave}
    return next(s for s in defenders(v) if s not in given)


class Numbers:
    """The numbers of the person's cards: a card keeps its number for the whole deal (the
    talon's and a passed card get the next ones), so a number never shifts between turns."""

    def __init__(self) -> None:
        self.deal = 0
        self.of: dict[C.Card, int] = {}

    def update(self, deal: int, hand: Sequence[C.Card]) -> None:
        if deal != self.deal:
            self.deal, self.of = deal, {}
        for c in hand:
            if c not in self.of:
                self.of[c] = len(self.of) + 1

    @property
    def cards(self) -> dict[int, C.Card]:
        return {n: c for c, n in self.of.items()}

    def label(self, c: C.Card) -> str:
        return f"[{self.of[c]}]{C.fmt(c)}" if c in self.of else C.fmt(c)


def render_table(lang: str, v: TableView, names: Sequence[str],
                 numbers: Numbers | None = None) -> list[str]:
    """The table as the human seat sees it, a few short lines."""
    lines: list[str] = []
    totals = []
    for i in range(v.n):
        mark = ""
        if v.barrel[i] >= 0:
            mark = " " + t(lang, "term_barrel", tries=v.barrel[i], attempts=v.rules.barrel_attempts)
        totals.append(f"{names[i]} {v.totals[i]}{mark}")
    lines.append(t(lang, "term_totals", totals=" · ".join(totals)))
    if v.bids:
        bids = " · ".join(
            f"{names[s]} {b if b else t(lang, 'term_bid_pass')}" for s, b in v.bids
        )
        lines.append(t(lang, "term_bids", bids=bids))
    if v.declarer >= 0 and v.phase in (Phase.CONTRACT, Phase.PLAY, Phase.PASSING, Phase.TALON):
        lines.append(t(lang, "term_contract", who=names[v.declarer], contract=v.contract))
        if v.talon:
            lines.append(t(lang, "term_talon", cards=C.fmt_cards(v.talon)))
        elif v.rules.players != 2:
            lines.append(t(lang, "term_talon_hidden"))
    if v.phase == Phase.PLAY:
        if v.trump >= 0:
            lines.append(t(lang, "term_trump", suit=C.SUITS[v.trump]))
        else:
            lines.append(t(lang, "term_no_trump"))
        if v.trick:
            lines.append(t(lang, "term_trick", cards=" · ".join(
                f"{names[s]} {C.fmt(c)}" for s, c in v.trick)))
    if v.received >= 0 and v.received in v.hand:
        lines.append(t(lang, "term_received", card=C.fmt(v.received)))
    if v.seat >= 0:
        if v.phase == Phase.DARK and not v.hand:
            lines.append(t(lang, "term_hand_dark"))
        elif v.hand:
            by_suit = []
            for su in range(4):
                cards = [c for c in v.hand if C.suit_of(c) == su]
                if cards:
                    by_suit.append(" ".join(numbers.label(c) if numbers else C.fmt(c)
                                            for c in cards))
            lines.append(t(lang, "term_hand", cards=" · ".join(by_suit)))
    return lines


def options_text(lang: str, v: TableView, names: Sequence[str], numbers: Numbers) -> str:
    """The legal moves as they may be typed: ``[3]K♥ 💍 +100 · [4]9♠ · без марьяжа: 3 без``
    (a card with a marriage is declared; playing it plainly is a deliberate extra word),
    ``пас · 105…160 · пересдача``."""
    items: list[str] = []
    values: list[int] = []
    value_kind = ""
    plain: list[str] = []
    cards: list[tuple[C.Card, str]] = []
    single_talon = sum(1 for a in v.legal if a.kind == TALON) == 1
    declared = {a.card for a in v.legal if a.kind == DECLARE}
    for a in v.legal:
        if a.kind in (BID, CONTRACT) or (a.kind == TALON and not single_talon):
            values.append(a.value)
            value_kind = a.kind
            continue
        if values:
            items.append(_value_run(lang, value_kind, values))
            values = []
        if a.kind == PLAY and a.card in declared:
            number = numbers.of.get(a.card)
            plain.append(f"{number if number else C.fmt(a.card)} {t(lang, 'term_plain_key')}")
        elif a.kind == DECLARE:
            value = 200 if C.rank_of(a.card) == C.ACE else C.MARRIAGE_VALUES[C.suit_of(a.card)]
            cards.append((a.card, f"{numbers.label(a.card)} 💍 +{value}"))
        elif a.kind in CARD_KINDS:
            cards.append((a.card, numbers.label(a.card)))
        else:
            items.append(action_text(lang, a, names, v, single_talon))
    if values:
        items.append(_value_run(lang, value_kind, values))
    order = {c: k for k, c in enumerate(v.hand)}  # the cards in the hand's order
    items[:0] = [text for _, text in sorted(cards, key=lambda x: order.get(x[0], 99))]
    if plain:
        items.append(t(lang, "term_plain_hint", keys=", ".join(plain)))
    return " · ".join(items)


def _value_run(lang: str, kind: str, values: list[int]) -> str:
    """Bids or contracts, a long run of steps shortened: ``105…160``."""
    out: list[str] = []
    start = 0
    for i in range(1, len(values) + 1):
        if i == len(values) or values[i] - values[i - 1] != values[1] - values[0]:
            run = values[start:i]
            out.append(f"{run[0]}…{run[-1]}" if len(run) > 3 else " · ".join(map(str, run)))
            start = i
    text = " · ".join(out)
    return t(lang, "term_act_contract", value=text) if kind == CONTRACT else text


def deal_summary(lang: str, state: GameState, names: Sequence[str]) -> str:
    res = state.history[-1]
    parts = []
    if res.declarer >= 0:
        parts.append(t(lang, "term_summary_contract", who=names[res.declarer],
                       contract=res.contract, outcome=t(lang, f"term_out_{res.outcome}"),
                       points=res.points[res.declarer]))
    elif res.outcome == "redeal":
        parts.append(t(lang, "term_out_redeal"))
    deltas = ", ".join(
        t(lang, "term_deal_result", who=names[i], delta=f"{res.scores[i]:+d}")
        for i in range(state.n)
    )
    parts.append(deltas)
    return t(lang, "term_deal_summary", number=res.number, line=" — ".join(parts))


def _width(text: str) -> int:
    """The columns ``text`` takes in a terminal (wide characters two, marks none)."""
    return sum(0 if unicodedata.combining(ch) or ch == "\ufe0f" else
               2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    gap = " " * max(0, width - _width(text))
    return gap + text if right else text + gap


def sheet_lines(lang: str, state: GameState, names: Sequence[str]) -> list[str]:
    """The score sheet as a monospace table with running totals and marks: the names in
    full, every column as wide as its widest cell."""
    rows: list[list[str]] = []
    for h in state.history:
        if h.declarer >= 0:
            game = t(lang, "term_sheet_game", who=names[h.declarer], contract=h.contract,
                     outcome=t(lang, f"term_out_{h.outcome}"))
        else:
            game = t(lang, f"term_out_{h.outcome}")
        cells = [str(h.number), names[h.dealer], game]
        for i in range(state.n):
            mark = "".join(MARK_SYMBOLS.get(m, "") for m in h.marks[i])
            cells.append(f"{h.totals[i]}{mark}")
        rows.append(cells)
    head = ["#", t(lang, "term_sheet_dealer"), t(lang, "term_sheet_game_col"), *names]
    widths = [max(_width(r[k]) for r in [head, *rows]) for k in range(len(head))]
    right = [True, False, False] + [True] * state.n
    lines = [t(lang, "term_sheet_header")]
    for r in [head, *rows]:
        lines.append("  ".join(_pad(c, w, rt) for c, w, rt in zip(r, widths, right, strict=True))
                     .rstrip())
    return lines


MARK_SYMBOLS = {
    "bolt": "|",
    "barrel_on": "🛢",
    "fall": "↓",
    "knocked_off": "↓",
    "samosval": "♻",
    "failed": "✗",
    "made": "✓",
    "conceded": "р",
}


def _trick_done(state: GameState, action: Action, seat: int) -> tuple[int, list[C.Card]] | None:
    """The winner and the cards of the trick ``action`` completes (before it is applied),
    or None: so the last trick of a deal is shown too, not only the ones before it."""
    d = state.deal
    if d is None or state.phase != Phase.PLAY or action.kind not in (PLAY, DECLARE):
        return None
    trick = [*d.trick, (seat, action.card)]
    if len(trick) < len(d.active):
        return None
    win = C.trick_winner_index([c for _, c in trick], d.trump if d.trump >= 0 else None)
    return trick[win][0], [c for _, c in trick]


def _did_text(lang: str, before: GameState, after: GameState, action: Action, seat: int,
              names: Sequence[str]) -> str:
    """What the person sees of a computer's move: a card passed to the other computer is
    hidden (unless the person's view of the table shows it)."""
    v = view(before, seat)
    if action.kind == GIVE:
        to = give_target(v)
        if to == HUMAN or (to, action.card) in view(after, HUMAN).gave:
            return t(lang, "term_did_give", who=names[seat], card=C.fmt(action.card),
                     to=names[to])
        return t(lang, "term_did_give_hidden", who=names[seat], to=names[to])
    single_talon = sum(1 for a in v.legal if a.kind == TALON) == 1
    return t(lang, "term_did", who=names[seat],
             action=action_text(lang, action, names, v, single_talon))


def _by_label(lang: str, text: str, v: TableView, names: Sequence[str]) -> Action | None:
    """The legal action whose label is ``text`` ("играть втемную", "взять прикуп")."""
    single_talon = sum(1 for a in v.legal if a.kind == TALON) == 1
    typed = normal(text)
    found = [a for a in v.legal if a.kind not in CARD_KINDS
             and normal(action_text(lang, a, names, v, single_talon)) == typed]
    return found[0] if len(found) == 1 else None


def _refusal(lang: str, state: GameState, action: Action, names: Sequence[str]) -> str:
    """Why a card of the hand cannot be played now, in the person's words (plain text)."""
    v = view(state, HUMAN)
    error = why_illegal(state, action, list(v.legal))
    text = refusal_text(lang, error, [SeatLabel(n) for n in names])
    return html.unescape(_TAG.sub("", text)).replace("\ufe0f", "")


def play_game(
    lang: str,
    seed: int,
    level: str,
    preset: str,
    save: Path | None,
    read: Callable[[str], str],
    out: TextIO,
) -> int:
    rules = make_rules(preset)
    names = [t(lang, "term_you"), t(lang, "term_computer", n=1), t(lang, "term_computer", n=2)]
    state = new_game(rules, seed=seed)
    shown_deal = 0
    numbers = Numbers()

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    def save_record() -> None:
        if save is not None:
            save.write_text(json.dumps(game_record(state, names), ensure_ascii=False, indent=1),
                            encoding="utf-8")

    say(t(lang, "term_help"))
    while state.phase != Phase.GAME_OVER:
        d = state.deal
        assert d is not None
        if d.number != shown_deal:
            shown_deal = d.number
            kind = {Kind.GOLDEN: t(lang, "term_kind_golden")}.get(d.kind, "")
            say()
            if d.dealer == HUMAN:
                say(t(lang, "term_deal_header_you", number=d.number, kind=kind))
            else:
                say(t(lang, "term_deal_header", number=d.number, dealer=names[d.dealer],
                      kind=kind))
        seat = state.to_act
        v = view(state, seat)
        if seat == HUMAN:
            numbers.update(d.number, v.hand)
            for line in render_table(lang, v, names, numbers):
                say(line)
            if any(a.kind == GIVE for a in v.legal):
                say(t(lang, "term_give_to", to=names[give_target(v)]))
            say(t(lang, "term_your_move", options=options_text(lang, v, names, numbers)))
            while True:
                try:
                    text = read(t(lang, "term_prompt")).strip()
                except EOFError:
                    text = "quit"
                word = text.lower()
                if word in ("q", "quit", "exit", "выход", "вихід", "в"):
                    save_record()
                    say(t(lang, "term_quit"))
                    if save is not None:
                        say(t(lang, "term_saved", path=save))
                    return 0
                if word in ("s", "score", "счёт", "счет", "рахунок"):
                    for line in sheet_lines(lang, state, names):
                        say(line)
                    continue
                if word in ("?", "help", "помощь", "допомога"):
                    say(t(lang, "term_help"))
                    continue
                found = _by_label(lang, text, v, names) or read_move(text, v.legal,
                                                                     numbers.cards)
                options = options_text(lang, v, names, numbers)
                if isinstance(found, Action):
                    action = found
                    break
                if found is None:
                    say(t(lang, "term_bad_choice", text=text, options=options))
                elif found not in v.hand:
                    say(t(lang, "term_not_in_hand", card=C.fmt(found), options=options))
                else:
                    kind = next((a.kind for a in v.legal if a.kind in CARD_KINDS), PLAY)
                    reason = _refusal(lang, state, Action(kind, card=found), names)
                    say(t(lang, "term_not_now", card=C.fmt(found), reason=reason,
                          options=options))
            before = state
            state = apply(state, action, seat)
        else:
            action = choose_action(v, level, seed=seed * 7919 + state.version)
            before = state
            state = apply(state, action, seat)
            say(_did_text(lang, before, state, action, seat, names))
        done = _trick_done(before, action, seat)
        if done is not None:
            winner, cards = done
            say(t(lang, "term_trick_won", who=names[winner],
                  cards=" ".join(C.fmt(c) for c in cards)))
        if len(state.history) >= d.number and state.history[d.number - 1].number == d.number:
            say(deal_summary(lang, state, names))
        save_record()
    for line in sheet_lines(lang, state, names):
        say(line)
    if state.winner == HUMAN:
        say(t(lang, "term_winner_you"))
    else:
        say(t(lang, "term_winner", who=names[state.winner]))
    if save is not None:
        say(t(lang, "term_saved", path=save))
    return 0


def env_lang(environ: Mapping[str, str] = os.environ) -> Lang:
    """The language of the locale (``LC_ALL``, then ``LC_MESSAGES``, then ``LANG``, as
    POSIX orders them): ``uk_UA.UTF-8`` → uk, ``en_GB`` → en; Russian when none is set or
    it is ``C``/``POSIX``."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(var, "").strip()
        if value:
            code = value.split(".")[0].split("@")[0]
            return DEFAULT_LANG if code in ("C", "POSIX") else lang_of(code)
    return DEFAULT_LANG


def play_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot play")
    parser.add_argument("--seed", type=int, default=None, help="repeat a game (default: random)")
    parser.add_argument("--save", type=Path, default=None, help="write the game record here")
    parser.add_argument("--level", choices=LEVELS, default="normal", help="computer players")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="classic")
    parser.add_argument("--lang", choices=LANGS, default=None,
                        help="ru, uk or en (default: from LC_ALL/LC_MESSAGES/LANG, else ru)")
    args = parser.parse_args(argv)
    seed = args.seed
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    lang = args.lang or env_lang()
    return play_game(lang, seed, args.level, args.preset, args.save, input, sys.stdout)
