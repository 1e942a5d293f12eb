"""Per-seat numbers of a finished game, for /stats: pure functions of the score sheet.

``game_stats(rows, seats)`` reads the score-sheet rows (``bot.tg.model.sheet_row`` dicts)
and gives, per seat, the numbers to store and show: a game played, won or not, the place,
deals declared and made, barrel falls, bolts (plus a few more the sheet has anyway).
``places(totals, winner)`` ranks the seats: the winner first, the rest by total; equal
totals share a place ("1, 2, 2, 4").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SeatStats", "game_stats", "places"]


def places(totals: Sequence[int], winner: int = -1) -> list[int]:
    """Each seat's place (1 the best) from the final totals; ``winner`` (a seat or -1) first.

    Equal totals share a place and the next place is skipped (competition ranking), so a
    stopped game with totals 500, 500, 300 gives 1, 1, 3.
    """
    n = len(totals)

    def key(i: int) -> tuple[int, int]:
        return (0 if i == winner else 1, -totals[i])

    out = [0] * n
    for i in range(n):
        out[i] = 1 + sum(1 for j in range(n) if key(j) < key(i))
    return out


@dataclass(frozen=True, slots=True)
class SeatStats:
    """One seat's numbers in one game."""

    seat: int
    games: int  # always 1: the per-game contribution to a player's sums
    win: bool
    place: int
    total: int  # the final total
    declared: int  # deals the seat played as declarer (conceded ones included)
    made: int  # contracts made
    failed: int  # contracts failed in play
    conceded: int  # deals conceded (rospis)
    barrel_falls: int  # falls off the barrel: tries out, failed contract, knocked off
    bolts: int  # bolts (deals without a trick)
    bolt_fines: int  # fines (for bolts or a third rospis)
    dumps: int  # 555 dumps


def game_stats(rows: Sequence[Mapping[str, Any]], seats: int) -> list[SeatStats]:
    """Per-seat statistics of a game of ``seats`` seats from its score-sheet rows.

    The winner is the last row's ``winner`` (-1 for a stopped game: nobody wins then);
    places come from the last row's totals (``places``).  Raises ValueError on rows of
    another number of seats.
    """
    if not 2 <= seats <= 4:
        raise ValueError(f"2 to 4 seats expected, got {seats}")
    totals = [0] * seats
    winner = -1
    declared = [0] * seats
    made = [0] * seats
    failed = [0] * seats
    conceded = [0] * seats
    falls = [0] * seats
    bolts = [0] * seats
    fines = [0] * seats
    dumps = [0] * seats
    for row in rows:
        row_totals = [int(x) for x in row["totals"]]
        marks = row.get("marks") or [[] for _ in range(seats)]
        if len(row_totals) != seats or len(marks) != seats:
            raise ValueError(f"deal {row.get('n')}: not a row of {seats} seats")
        totals, winner = row_totals, int(row.get("winner", -1))
        decl, outcome = int(row.get("declarer", -1)), row.get("outcome")
        if 0 <= decl < seats and outcome in ("made", "failed", "conceded"):
            declared[decl] += 1
            made[decl] += outcome == "made"
            failed[decl] += outcome == "failed"
            conceded[decl] += outcome == "conceded"
        for i, ms in enumerate(marks):
            for m in ms:
                if m in ("fall", "knocked_off"):
                    falls[i] += 1
                elif m == "bolt":
                    bolts[i] += 1
                elif m == "penalty":
                    fines[i] += 1
                elif m == "samosval":
                    dumps[i] += 1
    place = places(totals, winner)
    return [
        SeatStats(seat=i, games=1, win=i == winner, place=place[i], total=totals[i],
                  declared=declared[i], made=made[i], failed=failed[i], conceded=conceded[i],
                  barrel_falls=falls[i], bolts=bolts[i], bolt_fines=fines[i], dumps=dumps[i])
        for i in range(seats)
    ]
