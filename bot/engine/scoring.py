"""Scoring a finished deal: results, bolts, the barrel, the 555 dump (RULES.md §4.6 order).

Every effect leaves a ``Note`` (code, seat, value) so a score sheet can say why a
number changed, and a mark for the sheet.
"""

from __future__ import annotations

from dataclasses import replace

from . import cards as C
from .state import DealResult, DealState, GameState, Kind, Note


def rospis_payout(rules_pays: str, bid: int, players: int) -> int:
    """What each defender gets when the declarer concedes (§4.3)."""
    if players == 2:
        return 60
    half = -(-bid // 10) * 5
    if rules_pays == "sixty":
        return 60
    if rules_pays == "half_max_60":
        return min(half, 60)
    return half


def deal_points(d: DealState, n: int) -> list[int]:
    """Points taken in play per seat: card points + declared marriages."""
    pts = list(d.taken)
    for m in d.declared:
        pts[m.seat] += m.value
    return pts + [0] * (n - len(pts))


def score_deal(s: GameState, conceded: bool) -> GameState:
    r, d = s.rules, s.deal
    assert d is not None
    n = s.n
    decl = d.declarer
    notes: list[Note] = []
    marks: list[list[str]] = [[] for _ in range(n)]
    base = [0] * n
    doubled = d.kind in (Kind.GOLDEN, Kind.DARK)
    mult = 2 if doubled else 1
    if doubled:
        notes.append(Note(f"{d.kind.value}_double"))
    sitters_before = {i for i in range(n) if r.barrel and s.barrel[i] >= 0}
    active = set(d.active)
    pts = deal_points(d, n)
    made = False
    winner = -1
    bolts = list(s.bolts)
    bolts_game = list(s.bolts_game)
    rospis_count = list(s.rospis_count)
    totals = list(s.totals)
    falls = list(s.falls)
    barrel = list(s.barrel)
    frozen = r.barrel_freezes_defenders and decl in sitters_before
    bolt_seats: dict[int, int] = {}  # seat -> bolts to add
    streak_broken: list[int] = []  # bolts_in_a_row: seats whose streak a won trick ends
    bolt_size = 2 if (d.kind == Kind.GOLDEN and r.golden_double_bolts) or (
        d.kind == Kind.DARK and r.dark_double_bolts
    ) else 1

    if r.stock_mode:
        for i in range(n):
            base[i] = pts[i]
            notes.append(Note("stock_points", i, pts[i]))
        outcome = "played"
    elif conceded:
        outcome = "conceded"
        rospis_count[decl] += 1
        if r.rospis_keeps_contract:
            notes.append(Note("rospis_keeps", decl))
            bolt_seats[decl] = bolt_size
        else:
            base[decl] = -d.bid * mult
            notes.append(Note("conceded", decl, base[decl]))
        pay = rospis_payout(r.rospis_pays, d.bid, r.players) * mult
        for i in d.active:
            if i != decl:
                base[i] = pay
                notes.append(Note("rospis_paid", i, pay))
        marks[decl].append("conceded")
        if r.rospis_third_penalty and rospis_count[decl] % 3 == 0:
            fine = r.penalty * (2 if d.kind == Kind.GOLDEN else 1)  # doubled like a bolt's
            base[decl] -= fine
            notes.append(Note("rospis_penalty", decl, -fine))
            marks[decl].append("penalty")
    else:
        card_pts = d.taken[decl]
        marr = pts[decl] - card_pts
        compared = (C.round5(card_pts) + marr) if r.round_declarer else pts[decl]
        made = compared >= d.contract
        if (
            not made
            and r.players == 2
            and d.contract == 120
            and not any(m.seat == decl for m in d.declared)
            and d.ntricks[decl] == sum(d.ntricks)
        ):
            made = True
            notes.append(Note("all_tricks_120", decl))
        if made and d.kind == Kind.DARK and not r.dark_cap_240:
            base[decl] = 2 * C.round5(pts[decl])
        else:
            base[decl] = (d.contract if made else -d.contract) * mult
        outcome = "made" if made else "failed"
        notes.append(Note("contract_" + outcome, decl, base[decl]))
        marks[decl].append(outcome)
        for i in d.active:
            if i == decl:
                continue
            base[i] = (C.round5(d.taken[i]) + pts[i] - d.taken[i]) * mult
            notes.append(Note("defender_points", i, base[i]))
        # bolts
        for i in d.active:
            if i in sitters_before or (frozen and i != decl):
                continue
            if r.bolt_own_game_free and i == decl:
                continue
            if d.ntricks[i] == 0:
                bolt_seats[i] = bolt_size
            elif r.bolts_in_a_row:
                streak_broken.append(i)
    if r.four_nines_bonus and not r.stock_mode:
        # four nines left in hand after the pass: +120, declarer or defender, played or
        # conceded, doubled with the deal (§5.7)
        for i in d.four_nines:
            base[i] += 120 * mult
            notes.append(Note("four_nines_bonus", i, 120 * mult))
    if r.players == 4 and r.dealer_scores_talon and not r.stock_mode:
        dealer = d.dealer
        talon = d.layout.talon
        value = C.hand_points(talon) + sum(C.MARRIAGE_VALUES[su] for su in C.marriages_in(talon))
        base[dealer] = value * mult
        notes.append(Note("talon_score", dealer, base[dealer]))
    for i in range(n):
        if r.players == 4 and i == d.dealer:
            marks[i].append("sitting_out")

    # 1. the winner (the barrel on: a sitter that makes its contract)
    if r.barrel and not r.stock_mode and made and decl in sitters_before:
        winner = decl
    # 2. what the sitter may not score
    for i in sitters_before:
        if i == decl:
            if not made and not r.barrel_fail_costs_contract and base[i]:
                notes.append(Note("sitter_nothing", i, base[i]))
                base[i] = 0
        elif base[i]:
            notes.append(Note("sitter_nothing", i, base[i]))
            base[i] = 0
    if frozen:
        for i in d.active:
            if i != decl and base[i]:
                notes.append(Note("frozen", i, base[i]))
                base[i] = 0
    # 3. add to the totals
    for i in range(n):
        totals[i] += base[i]
    # the barrel off or the stock game: the first to 1000 (on the totals of step 3)
    if not r.barrel or r.stock_mode:
        reached = [i for i in range(n) if totals[i] >= 1000]
        if reached:
            if r.stock_mode:
                top = max(totals[i] for i in reached)
                best = [i for i in reached if totals[i] == top]
                winner = best[0] if len(best) == 1 else -1
                if winner < 0:
                    notes.append(Note("tie_one_more"))
            elif decl in reached and not conceded:
                winner = decl
            else:
                order = list(d.active) + [i for i in range(n) if i not in active]
                winner = max(reached, key=lambda i: (totals[i], -order.index(i)))
    # The deal that wins the game ends it here: no bolts, climbing, tries, falls or dump.
    if winner >= 0:
        bolt_seats, streak_broken = {}, []
    # 4. bolts and their penalties
    for i in streak_broken:
        bolts[i] = 0
    for i, count in sorted(bolt_seats.items()):
        bolts[i] += count
        bolts_game[i] += count
        marks[i].append("bolt")
        notes.append(Note("bolt", i, bolts_game[i]))
        if bolts[i] >= r.bolts_limit:
            bolts[i] -= r.bolts_limit
            fine = r.penalty * (2 if d.kind == Kind.GOLDEN else 1)
            totals[i] -= fine
            notes.append(Note("bolt_penalty", i, -fine))
            marks[i].append("penalty")
    fallen: list[int] = []
    if winner < 0 and r.barrel and not r.stock_mode:
        # 5. climbing the barrel
        at = r.barrel_at
        climbers = [i for i in range(n) if barrel[i] < 0 and totals[i] >= at]
        if climbers:
            sit: list[int]
            if len(climbers) == 1 or not r.barrel_knock_off:
                sit = climbers
            elif r.barrel_simultaneous_fall:
                sit = []
            else:
                order = list(d.active) + [i for i in range(n) if i not in active]
                sit = [max(climbers, key=lambda i: (totals[i], i == decl, -order.index(i)))]
            for i in climbers:
                if i in sit:
                    if totals[i] != at:
                        notes.append(Note("barrel_capped", i, totals[i] - at))
                    totals[i] = at
                    barrel[i] = 0
                    marks[i].append("barrel_on")
                    notes.append(Note("barrel_on", i, at))
                else:
                    totals[i] = at - r.penalty
                    marks[i].append("barrel_back")
                    notes.append(Note("barrel_back", i, totals[i]))
            if sit and r.barrel_knock_off:
                for i in sorted(sitters_before):
                    if barrel[i] >= 0:
                        barrel[i] = -1
                        fallen.append(i)
                        marks[i].append("knocked_off")
                        notes.append(Note("knocked_off", i))
        # 6. the tries of seats that sat before this deal and still sit
        for i in sorted(sitters_before):
            if barrel[i] < 0:
                continue
            barrel[i] += 1
            if r.barrel_fail_costs_contract and i == decl and not made and not conceded:
                barrel[i] = -1
                fallen.append(i)
                marks[i].append("fall")
                notes.append(Note("barrel_failed", i))
                continue
            notes.append(Note("barrel_try", i, barrel[i]))
            marks[i].append(f"try{barrel[i]}")
            if barrel[i] >= r.barrel_attempts:
                barrel[i] = -1
                fallen.append(i)
                marks[i].append("fall")
                notes.append(Note("barrel_tries_out", i))
        # 7. falls, the third fall to 0
        for i in fallen:
            falls[i] += 1
            penalty_applies = not (r.barrel_fail_costs_contract and i == decl and not made)
            if r.barrel_third_fall_zero and falls[i] >= 3:
                falls[i] = 0
                totals[i] = 0
                marks[i].append("third_fall")
                notes.append(Note("third_fall_zero", i))
            elif penalty_applies:
                totals[i] -= r.penalty
                notes.append(Note("fall", i, -r.penalty))
            else:
                notes.append(Note("fall", i, 0))
    # 8. the 555 dump
    if winner < 0 and not r.stock_mode:
        for i in range(n):
            if (totals[i] == 555 and r.samosval) or (totals[i] == -555 and r.samosval_negative):
                totals[i] = 0
                marks[i].append("samosval")
                notes.append(Note("samosval", i))
    if winner >= 0:
        marks[winner].append("winner")
        notes.append(Note("winner", winner, totals[winner]))

    golden_left, golden_made = s.golden_left, s.golden_made
    if d.kind == Kind.GOLDEN:
        golden_left -= 1
        golden_made = golden_made or made
    if d.kind == Kind.GOLDEN and golden_left == 0 and not golden_made and winner < 0:
        if r.golden_reset:
            notes.append(Note("golden_reset"))
            zero = [0] * n
            totals, bolts, bolts_game, rospis_count, falls = (
                list(zero), list(zero), list(zero), list(zero), list(zero)
            )
            barrel = [-1] * n
        else:
            notes.append(Note("golden_again"))
            golden_left = n

    scores = tuple(totals[i] - s.totals[i] for i in range(n))
    res = DealResult(
        number=d.number,
        dealer=d.dealer,
        kind=d.kind,
        declarer=decl,
        bid=d.bid,
        contract=d.contract if not conceded else d.bid,
        outcome=outcome,
        points=tuple(pts),
        scores=scores,
        totals=tuple(totals),
        marks=tuple(tuple(m) for m in marks),
        notes=tuple(notes),
        layout=d.layout,
        actions=d.actions,
        winner=winner,
    )
    return replace(
        s,
        totals=tuple(totals),
        bolts=tuple(bolts),
        bolts_game=tuple(bolts_game),
        rospis_count=tuple(rospis_count),
        falls=tuple(falls),
        barrel=tuple(barrel),
        golden_left=golden_left,
        golden_made=golden_made,
        history=(*s.history, res),
        winner=winner,
    )
