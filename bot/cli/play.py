"""``python -m bot play``: a whole game of Thousand in the terminal, one person against two
computer players. ``--seed N`` repeats a game, ``--save FILE`` writes its record as it goes."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from bot.ai import LEVELS, choose_action
from bot.engine import cards as C
from bot.engine.game import apply, defenders, new_game
from bot.engine.record import game_record
from bot.engine.rules import PRESETS, make_rules
from bot.engine.state import (
    BID,
    CONTRACT,
    DECLARE,
    GIVE,
    TALON,
    Action,
    GameState,
    IllegalAction,
    Kind,
    Phase,
    parse_action,
)
from bot.engine.views import TableView, view
from bot.i18n import LANGS, t

HUMAN = 0


def action_text(lang: str, a: Action, names: Sequence[str], v: TableView | None = None) -> str:
    """A short label of an action: "пас", "105", "снести 9♠ → Борис", "K♥ с марьяжем (+100)"."""
    card = C.fmt(a.card) if a.card >= 0 else ""
    if a.kind == GIVE and v is not None:
        # the card goes to the next defender clockwise without one (two players: the opponent)
        given = {g for g, _ in v.gave}
        to = next(s for s in defenders(v) if s not in given)
        return t(lang, "term_act_give", card=card, to=names[to])
    if a.kind == DECLARE:
        value = 200 if C.rank_of(a.card) == C.ACE else C.MARRIAGE_VALUES[C.suit_of(a.card)]
        return t(lang, "term_act_declare", card=card, value=value)
    if a.kind in (BID, CONTRACT, TALON):
        return t(lang, f"term_act_{a.kind}", value=a.value)
    return t(lang, f"term_act_{a.kind}", card=card)


def render_table(lang: str, v: TableView, names: Sequence[str]) -> list[str]:
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
    if v.received >= 0:
        lines.append(t(lang, "term_received", card=C.fmt(v.received)))
    if v.seat >= 0:
        if v.phase == Phase.DARK and not v.hand:
            lines.append(t(lang, "term_hand_dark"))
        elif v.hand:
            by_suit = []
            for su in range(4):
                ranks = [C.RANKS[C.rank_of(c)] for c in v.hand if C.suit_of(c) == su]
                if ranks:
                    by_suit.append(C.SUITS[su] + " " + " ".join(ranks))
            lines.append(t(lang, "term_hand", cards=" · ".join(by_suit)))
    return lines


def deal_summary(lang: str, state: GameState, names: Sequence[str]) -> str:
    res = state.history[-1]
    parts = []
    if res.declarer >= 0:
        outcome = t(lang, f"term_out_{res.outcome}")
        parts.append(f"{names[res.declarer]} {res.contract} {outcome}".strip())
    elif res.outcome == "redeal":
        parts.append(t(lang, "term_out_redeal"))
    deltas = ", ".join(
        t(lang, "term_deal_result", who=names[i], delta=f"{res.scores[i]:+d}")
        for i in range(state.n)
    )
    parts.append(deltas)
    return t(lang, "term_deal_summary", number=res.number, line=" — ".join(parts))


def sheet_lines(lang: str, state: GameState, names: Sequence[str]) -> list[str]:
    """The score sheet as a monospace table with running totals and marks."""
    width = max(6, *(len(n) for n in names))
    head = t(lang, "term_sheet_cols").ljust(22) + "".join(n[:width].rjust(width + 1)
                                                          for n in names)
    lines = [t(lang, "term_sheet_header"), head]
    for h in state.history:
        if h.declarer >= 0:
            game = f"{names[h.declarer][:1]} {h.contract} {t(lang, f'term_out_{h.outcome}')}"
        else:
            game = t(lang, f"term_out_{h.outcome}")
        row = f"{h.number:>3} {names[h.dealer][:5]:<6}{game[:13]:<13}"
        cells = []
        for i in range(state.n):
            mark = "".join(MARK_SYMBOLS.get(m, "") for m in h.marks[i])
            cells.append(f"{h.totals[i]}{mark}".rjust(width + 1))
        lines.append(row + "".join(cells))
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

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    def save_record() -> None:
        if save is not None:
            save.write_text(json.dumps(game_record(state, names), ensure_ascii=False, indent=1),
                            encoding="utf-8")

    while state.phase != Phase.GAME_OVER:
        d = state.deal
        assert d is not None
        if d.number != shown_deal:
            shown_deal = d.number
            kind = {Kind.GOLDEN: t(lang, "term_kind_golden")}.get(d.kind, "")
            say()
            say(t(lang, "term_deal_header", number=d.number, dealer=names[d.dealer], kind=kind))
        seat = state.to_act
        v = view(state, seat)
        if seat == HUMAN:
            for line in render_table(lang, v, names):
                say(line)
            say(t(lang, "term_your_move"))
            for k, a in enumerate(v.legal, 1):
                say(f"  {k:>2}) {action_text(lang, a, names, v)}")
            while True:
                try:
                    text = read(t(lang, "term_prompt")).strip()
                except EOFError:
                    text = "quit"
                if text.lower() in ("q", "quit", "exit", "выход", "вихід", "в"):
                    save_record()
                    say(t(lang, "term_quit"))
                    if save is not None:
                        say(t(lang, "term_saved", path=save))
                    return 0
                if text.lower() in ("s", "score", "счёт", "счет", "рахунок"):
                    for line in sheet_lines(lang, state, names):
                        say(line)
                    continue
                try:
                    action = (v.legal[int(text) - 1] if text.isdigit() and
                              0 < int(text) <= len(v.legal) else parse_action(text))
                    state = apply(state, action, seat)
                    break
                except IllegalAction as e:
                    say(t(lang, "term_bad_choice", text=text, reason=e))
        else:
            action = choose_action(v, level, seed=seed * 7919 + state.version)
            state = apply(state, action, seat)
            say(t(lang, "term_did", who=names[seat], action=action_text(lang, action, names, v)))
        nd = state.deal
        if nd is not None and nd.number == d.number and len(nd.tricks) > len(d.tricks):
            last = nd.tricks[-1]
            say(t(lang, "term_trick_won", who=names[last.winner],
                  cards=" ".join(C.fmt(c) for _, c in last.cards)))
        if len(state.history) >= d.number and state.history[d.number - 1].number == d.number:
            say(deal_summary(lang, state, names))
        save_record()
    for line in sheet_lines(lang, state, names):
        say(line)
    say(t(lang, "term_winner", who=names[state.winner]))
    if save is not None:
        say(t(lang, "term_saved", path=save))
    return 0


def play_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot play")
    parser.add_argument("--seed", type=int, default=None, help="repeat a game (default: random)")
    parser.add_argument("--save", type=Path, default=None, help="write the game record here")
    parser.add_argument("--level", choices=LEVELS, default="normal", help="computer players")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="classic")
    parser.add_argument("--lang", choices=LANGS, default="ru")
    args = parser.parse_args(argv)
    seed = args.seed
    if seed is None:
        import secrets

        seed = secrets.randbelow(2**31)
    return play_game(args.lang, seed, args.level, args.preset, args.save, input, sys.stdout)
