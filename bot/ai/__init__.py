"""Computer players: they see only their seat's view and return one of its legal actions.

``choose_action(view, level, seed, deadline)`` is the one entry point. Levels:
``random`` (a legal move, a baseline), ``normal`` (rules that count cards and value
marriages, see ``normal``) and ``hard`` (sampling the hidden cards and solving each
sample exactly, see ``hard``). The same view and seed give the same action.
"""

from __future__ import annotations

import random

from bot.engine.state import Action
from bot.engine.views import TableView

from . import hard, normal

LEVELS = ("random", "normal", "hard")
DEFAULT_LEVEL = "hard"


def _rng(view: TableView, seed: int) -> random.Random:
    # the seed and the position in the game: one decision, one stream of choices
    return random.Random(f"{seed}:{view.number}:{view.version}:{view.seat}")


def choose_action(view: TableView, level: str = DEFAULT_LEVEL, seed: int = 0,
                  deadline: float | None = None) -> Action:
    """The action a computer player at ``level`` takes; ``view.legal`` must not be empty.

    ``seed`` makes the choice repeatable; ``deadline`` (time.monotonic() value) bounds thinking
    (``hard`` only: by default it thinks about a quarter of a second, never more than 0.9 s).
    """
    if not view.legal:
        raise ValueError("the seat has nothing to do")
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")
    rng = _rng(view, seed)
    if level == "random":
        return rng.choice(view.legal)
    act = normal.choose(view, rng) if level == "normal" else hard.choose(view, rng, deadline)
    if act not in view.legal:  # a safety net: never return an illegal action
        return view.legal[0]
    return act
