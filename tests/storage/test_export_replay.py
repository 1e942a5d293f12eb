"""``Storage.export_game`` writes a record that ``bot.engine.record`` replays to the same game.

The game is stored the way the bot stores it (``bot/tg/rooms/table.py``): the rules as
``Rules.model_dump_json()``, the seats as ``{kind, user_id, name, level}``, each move as
``{"s": seat, "a": action, "by": ...}`` with the score-sheet rows of the deals it ended, and
seat hand-overs as ``{"s": seat, "ctl": ...}`` entries in the same log.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from bot.ai import choose_action
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import load_record, read_record, score_sheet
from bot.engine.rules import PRESETS, Rules
from bot.engine.state import GameState, Phase
from bot.engine.views import view
from storage import MEMORY, Outcome, Storage

SEATS = [
    {"kind": "human", "user_id": 11, "name": "Анна", "level": "hard"},
    {"kind": "computer", "user_id": 0, "name": "Борис", "level": "normal"},
    {"kind": "human", "user_id": 33, "name": "Вера", "level": "hard"},
    {"kind": "computer", "user_id": 0, "name": "Глеб", "level": "hard"},
]


async def store_a_game(
    store: Storage, rules: Rules, seed: int, moves: int | None, chat_id: int = -1
) -> tuple[int, GameState]:
    """Play ``moves`` random legal moves, or with ``moves=None`` a whole game between
    ``normal`` computer players (random ones would take too long to reach 1000); store them.
    """
    await store.upsert_chat(chat_id, "group")
    seats = json.dumps(SEATS[: rules.players], ensure_ascii=False)
    game_id = await store.create_game(
        chat_id, 11, rules=rules.model_dump_json(), seed=seed, seats=seats
    )
    state = new_game(rules, seed)
    await store.start_game(game_id, 0, snapshot="{}", deadline=None)
    rng = random.Random(seed)
    version = 0
    made = 0
    while state.phase != Phase.GAME_OVER and (moves is None or made < moves):
        if made == 5:  # a seat handed to the computer: in the log, not in the record
            entry = json.dumps({"s": 0, "ctl": "auto", "why": "left"})
            version = await store.append_action(game_id, version, entry, "{}", deadline=None)
        seat = state.to_act
        if moves is None:
            action = choose_action(view(state, seat), "normal", seed=seed * 31 + made)
        else:
            action = rng.choice(legal_actions(state))
        after = apply(state, action, seat)
        rows = [(r.number, json.dumps({"n": r.number})) for r in after.history[len(state.history):]]
        outcome = None
        if after.phase == Phase.GAME_OVER:
            outcome = Outcome(winner_seat=after.winner, totals=json.dumps(list(after.totals)))
        entry = json.dumps({"s": seat, "a": str(action), "by": "h"}, ensure_ascii=False)
        version = await store.append_action(
            game_id, version, entry, "{}", deadline=None, sheet_rows=rows, outcome=outcome,
            human=seat % 2 == 0,
        )
        state = after
        made += 1
    return game_id, state


def same_game(replayed: GameState, played: GameState) -> None:
    assert score_sheet(replayed) == score_sheet(played)
    assert (replayed.phase, replayed.to_act, replayed.version) == (
        played.phase,
        played.to_act,
        played.version,
    )
    assert legal_actions(replayed) == legal_actions(played)
    assert replayed == played


@pytest.mark.parametrize(
    ("preset", "players", "seed", "moves"),
    [
        ("classic", 3, 1, 0),
        ("classic", 3, 2, 40),
        ("classic", 3, 3, 400),
        ("full", 3, 4, 250),
        ("classic", 4, 5, 300),
        ("classic", 2, 6, 300),
    ],
)
async def test_an_unfinished_game_replays_from_its_export(
    preset: str, players: int, seed: int, moves: int
) -> None:
    rules = PRESETS[preset].model_copy(update={"players": players})
    async with Storage.open(MEMORY) as store:
        game_id, played = await store_a_game(store, rules, seed, moves)
        assert moves < 100 or len(played.history) >= 2  # the record is cut into deals
        await store.mark_broken(game_id, "replay failed")
        record = json.loads(await store.export_game(game_id))
    assert record["seats"] == [s["name"] for s in SEATS[:players]]
    assert len(record["deals"]) in (len(played.history), len(played.history) + 1)
    same_game(load_record(record), played)


async def test_a_finished_game_replays_from_its_export(tmp_path: Path) -> None:
    async with Storage.open(MEMORY) as store:
        game_id, played = await store_a_game(store, PRESETS["classic"], 7, None)
        assert played.phase == Phase.GAME_OVER
        text = await store.export_game(game_id)
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    replayed = read_record(path)  # what ``python -m bot replay FILE`` reads
    same_game(replayed, played)
    record = json.loads(text)
    assert len(record["deals"]) == len(played.history)
    assert record["game"]["status"] == "finished"
    assert record["game"]["winner_seat"] == played.winner
