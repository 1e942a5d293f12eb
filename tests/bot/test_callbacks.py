"""Callback data: short, versioned, strictly read back."""

from __future__ import annotations

import random

import pytest

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import make_rules
from bot.engine.state import Phase
from bot.tg.view import callbacks as cb


def test_every_action_of_real_games_round_trips_within_64_bytes() -> None:
    rng = random.Random(3)
    for players in (2, 3, 4):
        state = new_game(make_rules("full", players=players), seed=players)
        for _ in range(400):
            if state.phase == Phase.GAME_OVER:
                break
            for action in legal_actions(state):
                data = cb.action_data(999_999_999_999, 99_999_999, action)
                assert len(data.encode()) <= cb.MAX_BYTES
                decoded = cb.decode(data)
                assert decoded is not None and decoded.action() == action
                assert decoded.game_id == 999_999_999_999 and decoded.version == 99_999_999
            state = apply(state, rng.choice(legal_actions(state)))


@pytest.mark.parametrize("data", [
    None, "", "g", "g1", "g1:2", "g1:2:a", "g1:2:a:zz", "g0:1:a:ps", "g01:1:a:ps",
    "g1:01:a:ps", "g1:1:a:p24", "g1:1:a:p05", "g1:1:a:b", "g1:1:zz:", "g1:1:A:ps",
    "g1:1:a:ps:", "g1:1:a:ps ", " g1:1:a:ps", "g1:-1:a:ps", "g1:1:n:5", "g1:1:r:1",
    "g1:1:m:s", "g1:1:j:x", "x" * 65, "g1:1:a:pś", "g" + "9" * 19 + ":1:a:ps",
    "g1:1:pg:x", "g1:1:pg:mm", "g1:1:pg:ml", "g1:1:pg:M", "g1:1:pg:1", "g1:1:pg: ",
])
def test_forged_or_garbled_data_is_refused(data: str | None) -> None:
    assert cb.decode(data) is None


def test_lobby_and_table_codes() -> None:
    for verb, arg in [(cb.JOIN, ""), (cb.PLAYERS, "4"), (cb.PRESET, "full"), (cb.LEVEL, "hard"),
                      (cb.MENU, ""), (cb.MENU, "m"), (cb.MENU, "s3"), (cb.MENU, "r12"),
                      (cb.SET, "12.3"), (cb.HAND, ""), (cb.SCORE, ""), (cb.START, "")]:
        c = cb.decode(cb.encode(7, 3, verb, arg))
        assert c == cb.Callback(7, 3, verb, arg)
        assert c.action() is None


def test_a_page_of_the_hand_buttons_is_a_code_of_its_own() -> None:
    """The "more" bids and the plain leads: three pages, read strictly, no game action."""
    for page in ("", "m", "l"):
        data = cb.encode(999_999_999_999, 99_999_999, cb.PAGE, page)
        assert len(data.encode()) <= cb.MAX_BYTES
        c = cb.decode(data)
        assert c is not None and (c.verb, c.arg) == (cb.PAGE, page) and c.action() is None
