"""The bot's replay of a stored game reads records as ``python -m bot replay`` does: games
stored before redeal requests became private (with ``keep``) are restored after an upgrade
instead of being marked broken."""

from __future__ import annotations

import json
import random

from bot.engine.game import apply, legal_actions, new_game
from bot.engine.rules import make_rules
from bot.tg.model import BY_HUMAN, move_record, replay


def test_an_old_keep_record_is_read_as_nothing() -> None:
    rules = make_rules("classic")
    state = new_game(rules, 7)
    rng = random.Random(3)
    records = []
    for _ in range(40):
        seat = state.to_act
        action = rng.choice(legal_actions(state))
        records.append(move_record(seat, str(action), BY_HUMAN))
        state = apply(state, action, seat)
    old = [json.dumps({"s": 0, "a": "keep", "by": "h"}), *records]
    assert replay(rules, 7, old).state == replay(rules, 7, records).state == state
