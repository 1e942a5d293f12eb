"""A made-up game's score sheet for the benchmark, the tests and the docs' pictures.

``sample_rows(deals, players, seed)`` gives ``sheet_row``-shaped dicts of a plausible game
(contracts, bolts and their fines, the barrel at 880 with three tries, falls, the 555
dump, golden and dark deals, a winner on the last deal) without playing a single card.
The numbers follow the classic rules roughly; they are for drawing, not for checking rules.
"""

from __future__ import annotations

import random
from typing import Any

BARREL, GOAL, FINE = 880, 1000, 120
CONTRACTS = (100, 100, 100, 105, 110, 110, 115, 120, 120, 125, 130, 140, 150, 160)


def _r5(x: int) -> int:
    return 5 * round(x / 5)


def sample_rows(deals: int = 30, players: int = 3, seed: int = 1) -> list[dict[str, Any]]:
    """``deals`` score-sheet rows of a made-up game of ``players`` seats; the last is won
    when someone sits on the barrel by then."""
    rng = random.Random(seed * 7919 + players)
    n = players
    totals = [0] * n
    bolts = [0] * n
    barrel = [-1] * n  # tries used, -1 when not on the barrel
    falls = [0] * n
    rows: list[dict[str, Any]] = []
    for k in range(1, deals + 1):
        last = k == deals
        dealer = (k - 1) % n
        active = [i for i in range(n) if not (n == 4 and i == dealer)]
        marks: list[list[str]] = [[] for _ in range(n)]
        if n == 4:
            marks[dealer].append("sitting_out")
        base = [0] * n
        kind = "golden" if k == 1 else ("dark" if rng.random() < 0.06 else "normal")
        mult = 1 if kind == "normal" else 2
        sitters = [i for i in active if barrel[i] >= 0]
        winner = -1
        if not last and rng.random() < 0.05:
            rows.append(_row(k, dealer, kind, -1, 0, 0, "redeal", [0] * n, totals, marks, -1))
            continue
        decl = rng.choice(sitters) if (last and sitters) else rng.choice(active)
        contract = rng.choice(CONTRACTS)
        if decl in sitters:
            contract = max(contract, 120)
        roll = rng.random()
        outcome = "made" if roll < 0.68 else ("failed" if roll < 0.92 else "conceded")
        if decl in sitters:
            outcome = "made" if last else ("failed" if roll < 0.8 else "conceded")
        if outcome == "conceded":
            base[decl] = -contract * mult
            for i in active:
                if i != decl:
                    base[i] = 60 * mult
        else:
            base[decl] = (contract if outcome == "made" else -contract) * mult
            for i in active:
                if i == decl:
                    continue
                if rng.random() < 0.13:
                    marks[i].append("bolt")
                    bolts[i] += 1
                else:
                    base[i] = _r5(rng.randint(5, 90 if outcome == "failed" else 50)) * mult
        marks[decl].insert(0, outcome)
        if decl in sitters and outcome == "made":
            winner = decl
        for i in sitters:
            if i != winner:
                base[i] = 0
        for i in range(n):
            totals[i] += base[i]
            if bolts[i] >= 3:
                bolts[i] = 0
                totals[i] -= FINE
                marks[i].append("penalty")
        if winner < 0:
            climbers = [i for i in range(n) if barrel[i] < 0 and totals[i] >= BARREL]
            if climbers:
                top = max(climbers, key=lambda i: totals[i])
                for i in climbers:
                    if i == top:
                        totals[i], barrel[i] = BARREL, 0
                        marks[i].append("barrel_on")
                    else:
                        totals[i] = BARREL - FINE
                        marks[i].append("barrel_back")
                for i in range(n):
                    if i != top and barrel[i] >= 0:
                        barrel[i] = -1
                        marks[i].append("knocked_off")
                        falls[i] += 1
                        totals[i] -= FINE
            for i in sitters:
                if barrel[i] < 0:
                    continue
                barrel[i] += 1
                marks[i].append(f"try{barrel[i]}")
                if barrel[i] >= 3:
                    barrel[i] = -1
                    falls[i] += 1
                    marks[i].append("fall")
                    if falls[i] >= 3:
                        falls[i] = totals[i] = 0
                        marks[i].append("third_fall")
                    else:
                        totals[i] -= FINE
            for i in range(n):
                if totals[i] == 555:
                    totals[i] = 0
                    marks[i].append("samosval")
        else:
            marks[winner].append("winner")
        scores = [t - (rows[-1]["totals"][i] if rows else 0) for i, t in enumerate(totals)]
        rows.append(_row(k, dealer, kind, decl, contract, contract, outcome, scores, totals,
                         marks, winner))
    return rows


def _row(n: int, dealer: int, kind: str, decl: int, bid: int, contract: int, outcome: str,
         scores: list[int], totals: list[int], marks: list[list[str]], winner: int
         ) -> dict[str, Any]:
    return {"n": n, "dealer": dealer, "kind": kind, "declarer": decl, "bid": bid,
            "contract": contract, "outcome": outcome, "points": [0] * len(totals),
            "scores": list(scores), "totals": list(totals), "marks": [list(m) for m in marks],
            "notes": [], "winner": winner}
