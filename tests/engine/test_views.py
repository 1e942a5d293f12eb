"""What a view shows of the deals played: every deal's result, none of its cards or
actions, the same for every seat — also when the views share their stripped history
(``views._stripped``) and when that store is emptied."""

from __future__ import annotations

import random

from bot.engine import views as V
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import Rules
from bot.engine.state import GameState


def _deals_played(seed: int, deals: int) -> list[GameState]:
    """Every state of a random legal game, until ``deals`` deals have ended."""
    rng = random.Random(seed)
    state = new_game(Rules(), seed)
    states = [state]
    while len(state.history) < deals and state.winner < 0:
        state = apply(state, rng.choice(legal_actions(state)), state.to_act)
        states.append(state)
    return states


def test_the_history_of_every_view_is_the_results_without_cards() -> None:
    states = _deals_played(7, 3)
    assert len(states[-1].history) == 3
    for st in states:
        for seat in (-1, *range(st.n)):
            v = V.public_view(st) if seat < 0 else V.view(st, seat)
            assert len(v.history) == len(st.history)
            for shown, real in zip(v.history, st.history, strict=True):
                assert shown.layout.hands == () and shown.layout.talon == ()
                assert shown.actions == ()
                assert (shown.number, shown.points, shown.notes) == \
                    (real.number, real.points, real.notes)


def test_shared_histories_never_mix_games_and_survive_being_emptied() -> None:
    a, b = _deals_played(1, 2)[-1], _deals_played(2, 2)[-1]
    # (emptied first: the tests before this one in its process may have left it one entry
    # short of full, and then the view of ``b`` would start it over between those of ``a``)
    V._HISTORIES.clear()
    first = V.view(a, 0).history
    assert V.view(b, 0).history != first  # another game's deals
    assert V.view(a, 1).history is first  # the same tuple, stripped once
    V._HISTORIES.clear()
    again = V.view(a, 2).history
    assert again == first and again is not first
    for _ in range(V._HISTORIES_KEPT + 5):  # more histories than it keeps: it starts over
        V._stripped(tuple(a.history))
    assert V.view(b, 1).history == V.view(b, 0).history
