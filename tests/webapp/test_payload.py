"""A seat's payload holds exactly what the seat may know, and the page's texts are complete."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.game import active_seats, apply, legal_actions, new_game, seat_actions
from bot.engine.record import split_action
from bot.engine.rules import Rules
from bot.engine.state import (
    DECLARE,
    GIVE,
    PLAY,
    Action,
    GameState,
    Kind,
    Phase,
    parse_action,
)
from bot.engine.views import view
from bot.i18n import CATALOGS, LANGS
from bot.webapp.payload import (
    CARD_CODES,
    action_json,
    action_of,
    card_of,
    page_texts,
    seat_payload,
)
from bot.webapp.port import SeatPlace, SeatView
from tests.test_properties import rule_sets

CARDS = frozenset(CARD_CODES)


def cards_in(payload: Any) -> set[int]:
    """Every card written anywhere in a payload (a card is a string like "10H")."""
    found: set[int] = set()

    def walk(x: Any) -> None:
        if isinstance(x, str):
            if x in CARDS:
                c = card_of(x)
                assert c is not None
                found.add(c)
        elif isinstance(x, dict):
            for k, v in x.items():
                walk(k)
                walk(v)
        elif isinstance(x, list | tuple):
            for v in x:
                walk(v)

    walk(json.loads(json.dumps(payload)))
    return found


def finished_trick(s: GameState) -> set[int]:
    """The cards of the last trick of the deal just finished (played: everybody saw them;
    the page keeps them in the middle until the next deal's first card)."""
    if not s.history:
        return set()
    res = s.history[-1]
    played = [a.card for a in (parse_action(split_action(x)[1]) for x in res.actions)
              if a.kind in (PLAY, DECLARE)]
    return set(played[-len(active_seats(s.rules, res.dealer)):]) if played else set()


def may_know(s: GameState, seat: int) -> set[int]:
    """What ``seat`` may know, from the full state (independently of views.py)."""
    known = finished_trick(s)
    d = s.deal
    if d is None:
        return known
    if not (s.phase == Phase.DARK and seat == d.forehand):
        known |= set(d.hands[seat])
    known |= {c for _, c in d.trick} | {c for t in d.tricks for _, c in t.cards}
    if d.talon_shown or seat == d.declarer:
        known |= set(d.talon_taken)
    if d.received and d.received[seat] >= 0:
        known.add(d.received[seat])
    passed_open = d.unblinded or (not s.rules.pass_face_down and d.kind == Kind.NORMAL)
    if seat == d.declarer or passed_open:
        known |= {c for _, c in d.gave}
    if seat == d.declarer:
        known |= set(d.discarded)
    return known


def payload(s: GameState, seat: int) -> dict[str, Any]:
    place = SeatPlace(7, tuple(f"P{i}" for i in range(s.n)), (False,) * s.n, True, True, None)
    return seat_payload(SeatView(view(s, seat), place, "ru"))


def check(s: GameState) -> None:
    for seat in range(s.n):
        p = payload(s, seat)
        leaked = cards_in(p) - may_know(s, seat)
        assert not leaked, (seat, s.phase, sorted(leaked))
        assert p["version"] == s.version and p["seat"] == seat
        # what the page may send back is exactly what the seat may do
        assert [action_of(a) for a in p["legal"] + p["offers"]] == seat_actions(s, seat)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 10**9), rules=rule_sets())
def test_no_payload_holds_a_card_the_seat_may_not_know(seed: int, rules: Rules) -> None:
    rng = random.Random(seed)
    s = new_game(rules, seed)
    for _ in range(300):
        check(s)
        if s.phase == Phase.GAME_OVER:
            break
        acts = legal_actions(s)
        s = apply(s, rng.choice(acts), s.to_act)


def test_the_checker_catches_a_leak() -> None:
    s = new_game(Rules(), 3)
    while s.phase != Phase.PLAY:
        s = apply(s, legal_actions(s)[0], s.to_act)
    d = s.deal
    assert d is not None
    me = s.to_act
    other = next(c for c in d.hands[(me + 1) % 3] if c not in may_know(s, me))
    p = payload(s, me)
    assert other not in cards_in(p)
    p["trick"] = [[0, CARD_CODES[other]]]
    assert other in cards_in(p) - may_know(s, me)


def test_actions_round_trip_and_garbage_is_refused() -> None:
    for a in (Action(PLAY, card=5), Action(GIVE, card=23), Action("bid", value=105),
              Action("pass")):
        assert action_of(action_json(a)) == a
    bad: object
    for bad in (None, [], "play", {"kind": 5}, {"kind": "play", "card": "1H"},
                {"kind": "bid", "value": True}, {"kind": "bid", "value": -5},
                {"kind": "play", "card": "AS", "extra": 1}):
        assert action_of(bad) is None, bad


def test_the_page_texts_are_complete_in_every_language() -> None:
    ru = page_texts("ru")
    assert {"pass", "take_talon", "give", "concede", "sheet", "rematch", "err.flood"} <= set(ru)
    for lang in LANGS:
        texts = page_texts(lang)
        assert set(texts) == set(ru)
        assert all(f"webapp.{k}" in CATALOGS[lang] for k in texts)  # none fell back
    assert page_texts("en")["pass"] == "Pass" and page_texts("uk")["sheet"] == "Запис"
