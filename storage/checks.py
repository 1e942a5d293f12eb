"""The argument checks made before touching the database (by the facade, or by both
backends; the checks of a game's row are ``storage.state``).

Storage keeps JSON opaque but well formed, ids in a signed 64-bit integer, times finite
epoch seconds; a bad argument is a ``TypeError``/``ValueError`` and nothing is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from storage.base import RatingPair
from storage.models import Outcome, SeatResult

__all__ = [
    "REASON_MAX",
    "check_busy_timeout",
    "check_choice",
    "check_int64",
    "check_json",
    "check_outcome",
    "check_ratings",
    "check_reason",
    "check_seats",
    "check_thread",
    "check_time",
    "cutoff",
]

REASON_MAX: Final = 4000
"""``mark_broken``/``expire_game`` keep at most this many characters of the reason."""

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1

_S = TypeVar("_S", bound=str)


def check_json(name: str, value: str) -> str:
    """Check that ``value`` is JSON text (storage keeps it opaque but well formed)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be JSON text (str), got {type(value).__name__}")
    try:
        json.loads(value)
    except ValueError as e:
        raise ValueError(f"{name} is not valid JSON: {e}") from None
    return value


def check_choice(name: str, value: _S, allowed: tuple[_S, ...]) -> _S:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_int64(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{name} must fit in a signed 64-bit integer, got {value}")
    return value


def check_thread(thread_id: int | None) -> int | None:
    """A forum topic: None (General, or no topics) or a thread id >= 1."""
    if thread_id is None:
        return None
    if check_int64("thread_id", thread_id) < 1:
        raise ValueError(f"thread_id must be >= 1 or None, got {thread_id}")
    return thread_id


def check_time(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be epoch seconds (float) or None")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    return float(value)


def check_busy_timeout(busy_timeout: float) -> None:
    """``open``: how long a write waits for another's lock, seconds >= 0."""
    check_time("busy_timeout", busy_timeout)
    if busy_timeout < 0:
        raise ValueError(f"busy_timeout must be >= 0, got {busy_timeout}")


def check_reason(reason: str) -> str:
    if not isinstance(reason, str):
        raise TypeError(f"reason must be text, got {type(reason).__name__}")
    return reason[:REASON_MAX]


def check_outcome(outcome: Outcome) -> None:
    if outcome.winner_seat is not None and (check_int64("winner_seat", outcome.winner_seat) < 0):
        raise ValueError(f"winner_seat must be >= 0, got {outcome.winner_seat}")
    check_json("totals", outcome.totals)


def cutoff(idle_for: float, now: float | None, clock: Callable[[], float]) -> float:
    """``idle_lobbies``/``idle_games``: the time before which a game counts as idle."""
    idle = check_time("idle_for", idle_for)
    assert idle is not None
    if idle < 0:
        raise ValueError(f"idle_for must be >= 0, got {idle_for}")
    at = check_time("now", now)
    return (float(clock()) if at is None else at) - idle


def check_seats(seats: Sequence[SeatResult]) -> dict[str, list[SeatResult]]:
    """``record_game_result``'s seats checked, by player (``ValueError`` if they are bad)."""
    if not seats:
        raise ValueError("a game result needs its seats")
    if len({x.seat for x in seats}) != len(seats):
        raise ValueError("a seat is given twice")
    by_player: dict[str, list[SeatResult]] = {}
    for x in seats:
        if not isinstance(x.player, str) or not x.player:
            raise ValueError(f"seat {x.seat}: a player id is text, got {x.player!r}")
        if x.seat < 0 or x.place < 1:
            raise ValueError(f"seat {x.seat}: bad seat or place {x.place}")
        by_player.setdefault(x.player, []).append(x)
    return by_player


def check_ratings(
    new: dict[str, RatingPair], by_player: dict[str, list[SeatResult]]
) -> None:
    """The ratings ``rate`` returned are for players of the game and finite."""
    for player, (mu, sigma) in new.items():
        if player not in by_player:
            raise ValueError(f"a rating for {player!r}, who did not play")
        if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
            raise ValueError(f"bad rating for {player!r}: {mu}, {sigma}")

