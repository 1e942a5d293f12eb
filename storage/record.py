"""``export_game``'s record (``thousand-record/1``, ``docs/record-format.md``) built from a
game's stored columns; the same for both backends."""

from __future__ import annotations

import json
from typing import Any, Final

from storage.models import Game, GameResult

__all__ = ["RECORD_FORMAT", "build_record"]

RECORD_FORMAT: Final = "thousand-record/1"
"""The format ``export_game`` writes (``docs/record-format.md``)."""


def _record_seats(seats_json: str) -> list[str] | None:
    try:
        seats = json.loads(seats_json)
    except ValueError:
        return None
    if not isinstance(seats, list):
        return None
    names: list[str] = []
    for i, seat in enumerate(seats):
        name = seat.get("name") if isinstance(seat, dict) else None
        names.append(name if isinstance(name, str) and name else f"P{i}")
    return names


def _record_move(action_json: str) -> str | None:
    """``{"s": 1, "a": "bid 105", ...}`` → ``"1:bid 105"``; None for other log entries."""
    try:
        entry = json.loads(action_json)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    seat, action = entry.get("s"), entry.get("a")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(action, str):
        return None
    return f"{seat}:{action}"


def build_record(
    game: Game,
    log: list[tuple[int, str]],
    deal_ends: list[int | None],
    result: GameResult | None,
) -> dict[str, Any]:
    """The ``thousand-record/1`` object of a game from its stored columns: the log as
    ``(seq, action JSON)``, the seq of the action that ended each deal (None: a row from
    before schema version 2 whose action was not found), the result row if any."""
    try:
        rules: object = json.loads(game.rules)
    except ValueError:
        rules = None
    moves = [(seq, text) for seq, action in log if (text := _record_move(action)) is not None]
    deals: list[dict[str, Any]] = []
    i = 0
    for end in deal_ends:
        if end is None:  # a row from before version 2 whose action was not found
            continue
        actions: list[str] = []
        while i < len(moves) and moves[i][0] <= end:
            actions.append(moves[i][1])
            i += 1
        deals.append({"actions": actions})
    if i < len(moves):  # the deal being played
        deals.append({"actions": [text for _, text in moves[i:]]})
    record: dict[str, Any] = {"format": RECORD_FORMAT, "rules": rules}
    seats = _record_seats(game.seats)
    if seats is not None:
        record["seats"] = seats
    record["seed"] = game.seed
    record["deals"] = deals
    record["game"] = {
        "id": game.game_id,
        "status": game.status,
        "reason": game.reason,
        "version": game.version,
        "created": game.created,
        "updated": game.updated,
        "winner_seat": None if result is None else result.winner_seat,
        "totals": None if result is None else json.loads(result.totals),
    }
    return record
