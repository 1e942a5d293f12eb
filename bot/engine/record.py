"""Game records: the JSON form of a game (rules, seats, deals, actions) and its replay.

The format is documented in ``docs/record-format.md``. A record is the export
format, the bug-report format and a test fixture: replaying it gives the same
state as the live game it was written from.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import cards as C
from .game import (
    active_seats,
    apply,
    deal,
    derive_seed,
    layout_from_seed,
    legal_actions,
    new_game,
)
from .rules import CLASSIC, PRESETS, Rules, RulesError, rules_from_dict
from .state import (
    CONTRACT,
    DECLARE,
    GIVE,
    KEEP,
    PLAY,
    REDEAL,
    TALON,
    Action,
    DealResult,
    GameState,
    IllegalAction,
    Layout,
    Phase,
    Trick,
    parse_action,
)

FORMAT = "thousand-record/1"


class RecordError(ValueError):
    """A record that cannot be replayed; the message names the deal and the action."""


def split_action(text: str) -> tuple[int, str]:
    """``"1:bid 105"`` → ``(1, "bid 105")``."""
    seat_s, sep, action = text.partition(":")
    if not sep or not seat_s.strip().lstrip("-").isdigit():
        raise IllegalAction(f"an action must be written 'seat:action', got {text!r}",
                            "action_format", text=text)
    return int(seat_s), action.strip()


def last_trick(rules: Rules, res: DealResult) -> Trick | None:
    """The last trick of a finished deal, read from its actions (public once played: the
    cards of the tricks, the marriages declared and so the trump); None when the deal had
    no complete trick (a redeal, a concession)."""
    if res.outcome not in ("made", "failed", "played"):
        return None
    size = len(active_seats(rules, res.dealer))
    trump = -1
    trick: list[tuple[int, int]] = []
    last: Trick | None = None
    for text in res.actions:
        seat, a = split_action(text)
        action = parse_action(a)
        if action.kind not in (PLAY, DECLARE):
            continue
        if action.kind == DECLARE and C.rank_of(action.card) != C.ACE:
            trump = C.suit_of(action.card)
        trick.append((seat, action.card))
        if len(trick) == size:
            won = C.trick_winner_index([c for _, c in trick], trump if trump >= 0 else None)
            last = Trick(trick[0][0], tuple(trick), trick[won][0], trump)
            trick = []
    return last


def _apply_text(state: GameState, text: str, where: str) -> GameState:
    try:
        seat, action = split_action(text)
        return _apply_implied(state, parse_action(action), seat)
    except IllegalAction as e:
        number = state.deal.number if state.deal is not None else len(state.history) + 1
        raise RecordError(f"deal {number}, {where} ({text!r}): {e}") from None


def _apply_implied(state: GameState, action: Action, seat: int) -> GameState:
    """Apply one recorded action, accepting the two harmless forms of a forced contract
    (docs/record-format.md): a contract written although the engine skipped the step (the
    contract was forced on public facts: a dark deal, a golden deal without golden_raise, a
    bid at max_bid, with no concession allowed), and a contract step left out where the
    declarer had exactly one choice (older records: a sitter without a marriage). Records
    written before redeal requests became private are read too: their ``keep`` is
    skipped, and a talon they took without ``talon 1`` is taken."""
    d = state.deal
    if d is None:
        return apply(state, action, seat)
    if action.kind == KEEP:
        return state  # "no redeal": nothing to do since the requests are private
    if (action.kind == CONTRACT and seat == d.declarer and state.phase == Phase.PLAY
            and not d.tricks and not d.trick and action.value == d.contract):
        return state  # already implied
    if (state.phase == Phase.TALON and state.n != 2 and seat == d.declarer
            and action.kind in (GIVE, REDEAL) and (action.kind == GIVE or Action(REDEAL)
                                                   not in legal_actions(state))):
        state = apply(state, Action(TALON, value=1), seat)
    if (state.phase == Phase.CONTRACT and seat == d.declarer
            and action.kind in (PLAY, DECLARE)):
        only = legal_actions(state)
        if len(only) == 1 and only[0].kind == CONTRACT:
            state = apply(state, only[0], seat)
    return apply(state, action, seat)


apply_recorded = _apply_implied
"""Apply one stored action as a record is read (public name for the bot's replay)."""


def deals_of(state: GameState) -> list[tuple[Layout, tuple[str, ...]]]:
    """Every deal of the game so far with its cards and actions (the current one last)."""
    out = [(h.layout, h.actions) for h in state.history]
    if state.deal is not None and state.deal.number > len(state.history):  # still being played
        out.append((state.deal.layout, state.deal.actions))
    return out


def rules_to_json(rules: Rules) -> dict[str, Any]:
    """A preset name and the rules that differ from it."""
    preset = min(PRESETS, key=lambda name: len(rules.diff(PRESETS[name])))
    return {"preset": preset, **rules.diff(PRESETS[preset])}


def rules_from_json(data: Any) -> Rules:
    if data is None:
        return CLASSIC
    if not isinstance(data, dict):
        raise RecordError("rules must be an object")
    data = dict(data)
    preset = data.pop("preset", "classic")
    if preset not in PRESETS:
        raise RecordError(f"unknown preset {preset!r}")
    base = PRESETS[preset].model_dump()
    unknown = [k for k in data if k not in base]
    if unknown:
        raise RecordError(f"unknown rule {unknown[0]!r}")
    base.update(data)
    try:
        return rules_from_dict(base)
    except RulesError as e:
        raise RecordError(f"rules: {e}") from None


def game_record(state: GameState, seats: Sequence[str] | None = None) -> dict[str, Any]:
    """The record of a game: replaying it gives ``state`` back."""
    deals: list[dict[str, Any]] = []
    for i, (layout, actions) in enumerate(deals_of(state)):
        entry: dict[str, Any] = {}
        if state.seed is not None:
            entry["seed"] = derive_seed(state.seed, i)
        else:
            entry["hands"] = [C.fmt_cards(h) for h in layout.hands]
            entry["talon"] = C.fmt_cards(layout.talon)
        entry["actions"] = list(actions)
        deals.append(entry)
    return {
        "format": FORMAT,
        "rules": rules_to_json(state.rules),
        "seats": list(seats) if seats is not None else [f"P{i}" for i in range(state.n)],
        "first_dealer": state.first_dealer,
        "seed": state.seed,
        "deals": deals,
    }


def _parse_cards(value: Any, what: str) -> tuple[int, ...]:
    try:
        if isinstance(value, str):
            return C.parse_cards(value)
        if isinstance(value, list) and all(isinstance(x, str) for x in value):
            return C.parse_cards(value)
    except C.CardError as e:
        raise RecordError(f"{what}: {e}") from None
    raise RecordError(f"{what}: cards must be a string like 'A♥ 10♠' or a list of such")


def _explicit_layout(entry: dict[str, Any], n: int, number: int) -> Layout:
    hands = entry.get("hands")
    if not isinstance(hands, list) or len(hands) != n:
        raise RecordError(f"deal {number}: 'hands' must list {n} hands")
    return Layout(
        tuple(
            C.sort_hand(_parse_cards(h, f"deal {number}, hand {i}")) for i, h in enumerate(hands)
        ),
        _parse_cards(entry.get("talon", ""), f"deal {number}, talon"),
    )


def load_record(data: Any) -> GameState:
    """Replay a record; RecordError names the deal and the action that is wrong."""
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format", FORMAT) != FORMAT:
        raise RecordError(f"unknown format {data.get('format')!r} (expected {FORMAT})")
    rules = rules_from_json(data.get("rules"))
    n = rules.players
    seats = data.get("seats")
    if seats is not None and (not isinstance(seats, list) or len(seats) != n):
        raise RecordError(f"'seats' must list {n} names")
    seed = data.get("seed")
    if seed is not None and not isinstance(seed, int):
        raise RecordError("'seed' must be an integer or null")
    first_dealer = data.get("first_dealer")
    bad_dealer = not isinstance(first_dealer, int) or not 0 <= first_dealer < n
    if first_dealer is not None and bad_dealer:
        raise RecordError(f"'first_dealer' must be a seat from 0 to {n - 1}")
    deals = data.get("deals", [])
    if not isinstance(deals, list):
        raise RecordError("'deals' must be a list")
    for i, entry in enumerate(deals):
        if not isinstance(entry, dict) or not isinstance(entry.get("actions", []), list):
            raise RecordError(f"deal {i + 1}: must be an object with a list of 'actions'")
    # A record whose deals all come from the game seed replays as the seeded game itself.
    seeded = seed is not None and all(
        "hands" not in e and e.get("seed", derive_seed(seed, i)) == derive_seed(seed, i)
        for i, e in enumerate(deals)
    )
    try:
        state = new_game(rules, seed=seed if seeded else None, first_dealer=first_dealer)
    except IllegalAction as e:
        raise RecordError(str(e)) from None
    for i, entry in enumerate(deals):
        number = i + 1
        if not seeded:
            if state.phase == Phase.GAME_OVER:
                raise RecordError(f"deal {number}: the game was already over")
            if "hands" in entry:
                layout = _explicit_layout(entry, n, number)
            elif "seed" in entry or seed is not None:
                s = entry.get("seed", derive_seed(seed, i) if seed is not None else 0)
                if not isinstance(s, int):
                    raise RecordError(f"deal {number}: 'seed' must be an integer")
                layout = layout_from_seed(s, rules, state.dealer)
            else:
                raise RecordError(f"deal {number}: needs 'hands' and 'talon', or a 'seed'")
            try:
                state = deal(state, layout)
            except IllegalAction as e:
                raise RecordError(f"deal {number}: {e}") from None
        elif state.deal is None or state.deal.number != number:
            raise RecordError(f"deal {number}: the game has no such deal (it is over)")
        actions = entry.get("actions", [])
        for k, text in enumerate(actions, 1):
            if not isinstance(text, str):
                raise RecordError(f"deal {number}, action {k}: must be a string 'seat:action'")
            if len(state.history) >= number:
                raise RecordError(
                    f"deal {number}, action {k} ({text!r}): the deal was already over"
                )
            state = _apply_text(state, text, f"action {k}")
        if number < len(deals) and len(state.history) < number:
            raise RecordError(f"deal {number}: the deal is not finished but another follows")
    return state


def read_record(path: str | Path) -> GameState:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"cannot read {path}: {e}") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path} is not JSON: {e}") from None
    return load_record(data)


def score_sheet(state: GameState) -> dict[str, Any]:
    """The score sheet as plain data (``python -m bot replay --json``)."""
    rows = []
    for h in state.history:
        rows.append({
            "number": h.number,
            "dealer": h.dealer,
            "declarer": h.declarer if h.declarer >= 0 else None,
            "contract": h.contract if h.outcome in ("made", "failed", "conceded") else None,
            "outcome": h.outcome,
            "scores": list(h.scores),
            "totals": list(h.totals),
            "marks": [list(m) for m in h.marks],
            "notes": [[note.code, note.seat, note.value] for note in h.notes],
        })
    return {
        "deals": rows,
        "totals": list(state.totals),
        "winner": state.winner if state.winner >= 0 else None,
    }
