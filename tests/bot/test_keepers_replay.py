"""The keepers' records (issue 19) replay: a seat handed to the computer by a keeper and
given back, a latecomer sitting in a computer's seat — read back from the record alone, with
the table's lines naming the keeper; the moves are what they were."""

from __future__ import annotations

import json
import random

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import make_rules
from bot.tg.model import (
    BY_COMPUTER,
    BY_HUMAN,
    KEEPER,
    SeatInfo,
    control_record,
    deal_number,
    move_record,
    replay,
    sit_record,
)
from bot.tg.view import keepers as K


def _moves(n: int, seed: int = 7) -> tuple[list[str], object]:
    rules = make_rules("classic")
    state = new_game(rules, seed)
    rng = random.Random(3)
    records = []
    for _ in range(n):
        seat = state.to_act
        action = rng.choice(legal_actions(state))
        records.append(move_record(seat, str(action), BY_HUMAN))
        state = apply(state, action, seat)
    return records, state


def test_a_keepers_seat_changes_replay_with_their_lines() -> None:
    rules = make_rules("classic")
    moves, state = _moves(30)
    anna = (11, "Анна")
    records = [*moves[:5], control_record(1, "auto", KEEPER, anna), *moves[5:12],
               control_record(1, "human", "back", anna), *moves[12:20],
               sit_record(2, 77, "Глеб", anna), *moves[20:]]
    rep = replay(rules, 7, records)
    assert rep.state == replay(rules, 7, moves).state == state  # the moves are the same
    assert rep.auto == {}  # given back
    assert rep.sits == {2: (77, "Глеб")}
    lines = [(e.code, e.seat, e.why) for evs in rep.events.values() for e in evs
             if e.code.startswith("k")]
    assert lines == [("kauto", 1, "Анна"), ("khuman", 1, "Анна"), ("ksit", 2, "Анна")]
    # each line is filed under the deal it happened in
    deals = [deal_number(replay(rules, 7, moves[:n]).state) for n in (5, 12, 20)]
    assert [next(e.code for e in rep.events[d] if e.code.startswith("k") and e.seat == seat
                 and e.code == code) for d, seat, code in
            zip(deals, (1, 1, 2), ("kauto", "khuman", "ksit"), strict=True)] == \
        ["kauto", "khuman", "ksit"]
    # the record itself names the latecomer and the keeper
    sit = json.loads(records[22])
    assert sit == {"s": 2, "ctl": "sit", "uid": 77, "name": "Глеб", "keeper": "Анна",
                   "kid": 11}


def test_a_seat_handed_over_stays_the_computers_until_given_back() -> None:
    rules = make_rules("classic")
    moves, _ = _moves(10)
    rep = replay(rules, 7, [*moves[:3], control_record(0, "auto", KEEPER, (5, "Вера")),
                            *moves[3:]])
    assert rep.auto == {0: KEEPER}
    # an older record without a keeper (the autopilot after timeouts) makes no keeper line
    rep2 = replay(rules, 7, [*moves[:3], control_record(0, "auto", "away"), *moves[3:]])
    assert rep2.auto == {0: "away"}
    assert all(not e.code.startswith("k") for evs in rep2.events.values() for e in evs)


def test_a_person_back_by_a_press_takes_the_keepers_line_away() -> None:
    rules = make_rules("classic")
    moves, _ = _moves(10)
    rep = replay(rules, 7, [*moves[:3], control_record(0, "auto", KEEPER, (5, "Вера")),
                            *moves[3:6], control_record(0, "human", "back"), *moves[6:]])
    assert rep.auto == {}
    assert all(e.code != "kauto" for evs in rep.events.values() for e in evs)


def test_a_latecomer_in_a_computers_seat_is_handed_to_the_computer_again() -> None:
    rules = make_rules("classic")
    moves, _ = _moves(12)
    records = [*moves[:4], sit_record(1, 9, "Оля", (1, "Анна")), *moves[4:8],
               control_record(1, "auto", KEEPER, (1, "Анна")), *moves[8:]]
    rep = replay(rules, 7, records)
    assert rep.sits == {1: (9, "Оля")} and rep.auto == {1: KEEPER}


def test_the_seat_revision_changes_with_seats_not_moves() -> None:
    seats = [SeatInfo("human", 1, "Анна", ""), SeatInfo("human", 2, "Борис", ""),
             SeatInfo("computer", 0, "Вася", "hard")]
    rev = K.seat_rev(seats)
    assert K.free_seats(seats) == [2]
    seats[1].auto, seats[1].why = True, KEEPER
    assert K.seat_rev(seats) != rev and K.seat_state(seats[1]) == "auto"
    seats[1].auto, seats[1].why = False, ""
    assert K.seat_rev(seats) == rev
    seats[2] = SeatInfo("human", 3, "Глеб", "")
    assert K.seat_rev(seats) != rev and K.free_seats(seats) == []
    seats[0].auto, seats[0].why = True, "leave"
    assert K.free_seats(seats) == [0]  # a seat its person left: a latecomer may take it
    assert move_record(0, "pass", BY_COMPUTER)  # (moves do not enter the revision)
