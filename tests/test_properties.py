"""Properties of the engine over random legal games (hypothesis), for 2, 3 and 4 players and
random rule sets: cards are conserved, a played deal holds all card points, every legal
action applies and every other action is refused, the score sheet adds up, a record
replays to the same state, and no view shows what its seat may not know."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import cards as C
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import game_record, load_record
from bot.engine.rules import RULE_SPECS, Rules, make_rules, rule_problem_list, rules_from_dict
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    KEEP,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
    DealResult,
    DealState,
    GameState,
    IllegalAction,
    Phase,
)
from bot.engine.views import public_view, view

ALL_ACTIONS: list[Action] = (
    [Action(k) for k in (DARK, LIGHT, REDEAL, KEEP, PASS, CONCEDE)]
    + [Action(BID, value=v) for v in range(95, 405, 5)]
    + [Action(CONTRACT, value=v) for v in range(95, 405, 5)]
    + [Action(TALON, value=v) for v in (0, 1, 2, 3)]
    + [Action(k, card=c) for k in (GIVE, DISCARD, PLAY, DECLARE) for c in C.DECK]
)


@st.composite
def rule_sets(draw: st.DrawFn, players: int | None = None) -> Rules:
    """Random valid rule sets: every rule drawn from the values a settings menu offers, then
    the rules the others make meaningless (a sub-rule whose parent is off, a house rule in
    the stock game, …) put back to their defaults (so the draw stays playable)."""
    defaults = Rules().model_dump()
    data = dict(defaults)
    for rid, spec in RULE_SPECS.items():
        if draw(st.booleans()):
            data[rid] = draw(st.sampled_from(spec.options))
    if players is not None:
        data["players"] = players
    # put back to its default every rule the others make meaningless or contradict
    for _ in range(5):
        problems = rule_problem_list(Rules.model_construct(**data))
        if not problems:
            break
        for p in problems:
            rule = str(p.params["rule"])
            if rule != "players":
                data[rule] = defaults[rule]
    return rules_from_dict(data)


def cards_in_play(s: GameState) -> list[int]:
    d = s.deal
    assert d is not None
    out = [c for h in d.hands for c in h] + list(d.talon) + list(d.discarded)
    out += [c for _, c in d.trick]
    out += [c for t in d.tricks for _, c in t.cards]
    return out


def check_invariants(s: GameState) -> None:
    if s.deal is not None:
        assert sorted(cards_in_play(s)) == list(C.DECK), "24 cards conserved"
    # the score sheet adds up: each deal's totals are the last totals plus its scores
    totals = [0] * s.n
    for h in s.history:
        if "golden_reset" not in {note.code for note in h.notes}:
            assert [h.totals[i] - totals[i] for i in range(s.n)] == list(h.scores)
        totals = list(h.totals)
    assert tuple(totals) == s.totals
    check_views(s)


def check_views(s: GameState) -> None:
    d = s.deal
    pub = public_view(s)
    assert pub.hand == ()
    if d is None:
        return
    hidden_talon = () if d.talon_shown else d.talon_taken
    for seat in range(s.n):
        v = view(s, seat)
        visible = set(v.hand) | set(v.talon) | {v.received} | {c for _, c in v.gave}
        visible |= set(v.discarded)
        others = {c for i, h in enumerate(d.hands) if i != seat for c in h}
        leaked = visible & others
        # cards this seat gave (it knows them) and shown talon cards may be in others' hands
        allowed = {c for _, c in v.gave} | (set(d.talon_taken) if d.talon_shown else set())
        assert not (leaked - allowed), f"seat {seat} sees {leaked - allowed}"
        if seat != d.declarer:
            assert not (set(v.talon) & set(hidden_talon)), "hidden talon leaked"
            assert v.discarded == ()
        if v.legal:
            assert seat == s.to_act
        if v.offers:  # out of turn: only a late redeal request
            assert seat != s.to_act and [a.kind for a in v.offers] == [REDEAL]
    for c in pub.talon:
        assert d.talon_shown and c in d.talon_taken


def play_random(rules: Rules, seed: int, max_steps: int, check_refusals: bool) -> GameState:
    rng = random.Random(seed)
    s = new_game(rules, seed=seed)
    for step in range(max_steps):
        if s.phase == Phase.GAME_OVER:
            break
        legal = legal_actions(s)
        assert legal, f"no legal action in phase {s.phase}"
        if check_refusals and step % 4 == 0:
            others = [a for a in ALL_ACTIONS if a not in legal]
            for a in rng.sample(others, min(12, len(others))):
                try:
                    apply(s, a)
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"{a} was accepted though not legal in {s.phase}")
            for a in rng.sample(legal, min(4, len(legal))):
                apply(s, a)  # every listed legal action applies
            wrong_seat = (s.to_act + 1) % s.n
            try:
                apply(s, legal[0], seat=wrong_seat)
            except IllegalAction:
                pass
            else:
                raise AssertionError("an action by the wrong seat was accepted")
        before = len(s.history)
        version = s.version
        d = s.deal
        s = apply(s, rng.choice(legal))
        assert s.version == version + 1
        if len(s.history) > before and d is not None:
            check_deal_points(rules, d, s.history[-1])
        check_invariants(s)
    return s


def check_deal_points(rules: Rules, d: DealState, res: DealResult) -> None:
    """A played deal's card points: 120 (plus the last-trick bonus); with two players and two
    talons, less what was put aside and the closed talon (unless it goes to the last trick)."""
    if res.outcome not in ("made", "failed", "played"):
        return
    marriages = sum(m.value for m in d.declared)
    card_points = sum(res.points) - marriages
    expected = 120 + rules.last_trick_bonus
    if rules.players == 2 and not rules.stock_mode:
        expected -= sum(C.POINTS[c] for c in d.discarded)
        if not rules.unused_talon_to_last_trick:
            expected -= sum(C.POINTS[c] for c in d.talon)
    assert card_points == expected, f"card points {card_points}, expected {expected}"


SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(seed=st.integers(0, 10**9), rules=rule_sets(players=3))
def test_three_players_random_rules(seed: int, rules: Rules) -> None:
    play_random(rules, seed, max_steps=400, check_refusals=True)


@SETTINGS
@given(seed=st.integers(0, 10**9), rules=rule_sets(players=4))
def test_four_players_random_rules(seed: int, rules: Rules) -> None:
    play_random(rules, seed, max_steps=400, check_refusals=True)


@SETTINGS
@given(seed=st.integers(0, 10**9), rules=rule_sets(players=2))
def test_two_players_random_rules(seed: int, rules: Rules) -> None:
    play_random(rules, seed, max_steps=400, check_refusals=True)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**9), rules=rule_sets(), steps=st.integers(0, 600))
def test_replay_equals_live_play(seed: int, rules: Rules, steps: int) -> None:
    live = play_random(rules, seed, max_steps=steps, check_refusals=False)
    record = game_record(live)
    assert load_record(record) == live
    # a record with the cards written out (no seed) replays to the same game too
    explicit = game_record(replace(live, seed=None))
    replayed = load_record(explicit)
    assert replace(replayed, seed=live.seed) == live or replayed.phase == Phase.DEALING
    if replayed.phase != Phase.DEALING:
        assert replayed.history == live.history
        assert replayed.totals == live.totals


def test_finished_game_replays() -> None:
    """A game played to its end (the stock game ends quickly even with random moves) writes a
    record that replays to the same finished state."""
    rules = make_rules(players=2, two_player_mode="stock")
    for seed in range(5):
        rng = random.Random(seed)
        s = new_game(rules, seed=seed)
        while s.phase != Phase.GAME_OVER:
            s = apply(s, rng.choice(legal_actions(s)))
        assert s.winner >= 0
        record = game_record(s)
        assert len(record["deals"]) == len(s.history)
        assert load_record(record) == s
