"""``python -m bot migrate-db``: a SQLite database filled through the storage API reads back
equal through the same API on PostgreSQL; a non-empty target is refused."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.__main__ import main
from bot.cli.migrate_db import MigrateError, migrate
from storage import Backend, Outcome, SeatResult, Storage
from storage.postgres import PostgresStorage
from tests.pg import pg_url
from tests.storage.backends import FakeClock

__all__ = ["pg_url"]

GROUP, PRIVATE, OTHER = -1001, 77, -1002
ALICE, BOB = 11, 22
SEATS = json.dumps([{"kind": "human", "user_id": ALICE, "name": "Alice", "level": None},
                    {"kind": "human", "user_id": BOB, "name": "Bob", "level": None},
                    {"kind": "computer", "user_id": None, "name": "Bot", "level": 2}])


def move(seat: int, action: str) -> str:
    return json.dumps({"s": seat, "a": action})


async def fill(store: Storage) -> dict[str, int]:
    """Every kind of row the bot writes; returns the ids of the games."""
    await store.upsert_chat(GROUP, "supergroup", language="en")
    await store.set_default_rules(GROUP, json.dumps({"barrel": 880}))
    await store.upsert_chat(PRIVATE, "private")
    await store.upsert_chat(OTHER, "group")
    await store.upsert_user(ALICE, "Alice", "alice", language="en")
    await store.mark_started(ALICE)
    await store.upsert_user(BOB, "Боб")
    await store.mark_blocked(BOB)
    ids: dict[str, int] = {}

    finished = await store.create_game(GROUP, ALICE, rules="{}", seed=-(2**62), seats=SEATS)
    await store.start_game(finished, 0, snapshot='{"v": 0}', deadline=123.5)
    version = 0
    for i in range(6):
        version = await store.append_action(
            finished, version, move(i % 3, f"play {i}"), json.dumps({"v": version + 1}),
            deadline=200.0 + i, human=i % 3 != 2,
            sheet_rows=[(i // 3, json.dumps({"deal": i // 3, "after": i}))] if i % 3 == 2 else (),
            outcome=Outcome(0, "[1000, 400, 300]", False) if i == 5 else None)
    await store.record_game_result(
        finished,
        [SeatResult(0, f"u:{ALICE}", 1, True, declared=2, made=2, falls=0, bolts=1),
         SeatResult(1, f"u:{BOB}", 3, False, declared=1, made=0, falls=1, bolts=0),
         SeatResult(2, "ai:2", 2, False, declared=0, made=0, falls=0, bolts=2)],
        lambda current: {p: (25.0 + len(p), 8.0 - len(p) / 10) for p in current})
    ids["finished"] = finished

    expired = await store.create_game(GROUP, BOB, rules="{}", seed=5, seats=SEATS)
    await store.start_game(expired, 0, snapshot="{}", deadline=None)
    await store.append_action(expired, 0, move(0, "bid 100"), "{}", deadline=None, human=True)
    await store.expire_game(expired, reason="idle", totals="[0, 0, 0]")
    ids["expired"] = expired

    broken = await store.create_game(OTHER, ALICE, rules="{}", seed=6, seats=SEATS)
    await store.start_game(broken, 0, snapshot="{}", deadline=None)
    await store.mark_broken(broken, "cannot replay")
    ids["broken"] = broken

    playing = await store.create_game(GROUP, ALICE, rules='{"dark": true}', seed=7, seats=SEATS)
    await store.update_lobby(playing, 0, seats=SEATS)
    await store.start_game(playing, 1, snapshot='{"v": 0}', deadline=999.25)
    await store.append_action(playing, 0, move(0, "bid 105"), '{"v": 1}', deadline=1000.0,
                              human=True)
    await store.append_action(playing, 1, json.dumps({"takeover": 1}), '{"v": 2}',
                              deadline=1001.0)
    await store.set_message_ids(playing, json.dumps({"table": 501}))
    ids["playing"] = playing

    lobby = await store.create_game(PRIVATE, ALICE, rules="{}", seed=8, seats=SEATS,
                                    lobby_code="ABCD", deadline=5000.0)
    ids["lobby"] = lobby
    # A game id that was given and then deleted: PostgreSQL must not give it again.
    gone = await store.create_game(OTHER, BOB, rules="{}", seed=9, seats="[]")
    await store.cancel_lobby(gone)
    ids["gone"] = gone
    return ids


async def snapshot(store: Backend, ids: dict[str, int]) -> dict[str, object]:
    """Everything the bot reads, through the storage API."""
    seen: dict[str, object] = {}
    for name, game_id in ids.items():
        seen[f"game {name}"] = await store.get_game(game_id)
        seen[f"actions {name}"] = await store.actions(game_id)
        seen[f"sheet {name}"] = await store.score_sheet(game_id)
        seen[f"result {name}"] = await store.get_result(game_id)
        seen[f"rated {name}"] = await store.is_rated(game_id)
        if await store.get_game(game_id) is not None:
            seen[f"export {name}"] = await store.export_game(game_id)
    for chat in (GROUP, PRIVATE, OTHER):
        seen[f"chat {chat}"] = await store.get_chat(chat)
        seen[f"active {chat}"] = await store.active_game(chat)
        seen[f"last {chat}"] = await store.last_game(chat)
        seen[f"top {chat}"] = await store.chat_top(chat)
    for user in (ALICE, BOB):
        seen[f"user {user}"] = await store.get_user(user)
        seen[f"stats {user}"] = await store.player_stats(f"u:{user}")
        seen[f"versus {user}"] = await store.versus_computers(f"u:{user}")
    seen["stats ai"] = await store.player_stats("ai:2")
    seen["in progress"] = await store.games_in_progress()
    seen["unrated"] = await store.unrated_games()
    seen["code"] = await store.game_by_lobby_code("ABCD")
    seen["idle lobbies"] = await store.idle_lobbies(0, now=10_000.0)
    seen["idle games"] = await store.idle_games(0, now=2e9)
    return seen


async def test_everything_reads_back_equal_on_postgresql(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "thousand.sqlite3"
    async with Storage.open(path, clock=FakeClock()) as lite:
        ids = await fill(lite)
        before = await snapshot(lite, ids)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM games WHERE game_id = ?", (ids["gone"],))
    del ids["gone"]
    assert before["game finished"] is not None and before["stats 11"] is not None

    assert await asyncio.to_thread(main, ["migrate-db", "--from", str(path), "--to", pg_url]) == 0
    out = capsys.readouterr().out
    for table, rows in (("chats", 3), ("users", 2), ("games", 5), ("game_actions", 9),
                        ("score_sheets", 2), ("results", 2), ("rated_games", 1),
                        ("game_players", 3), ("player_stats", 3)):
        assert f"  {table:<14} {rows:>8} rows" in out, out
    assert "games.game_id: new ids start after 6" in out

    async with PostgresStorage.open(pg_url) as pg:
        after = await snapshot(pg, ids)
        assert after == {k: v for k, v in before.items() if "gone" not in k}
        # New games get new ids, past the deleted one; the game in play goes on.
        new = await pg.create_game(OTHER, ALICE, rules="{}", seed=1, seats="[]")
        assert new == 7
        assert await pg.append_action(ids["playing"], 2, move(1, "pass"), "{}",
                                      deadline=None) == 3


async def test_a_non_empty_target_is_refused(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "thousand.sqlite3"
    async with Storage.open(path) as lite:
        await lite.upsert_chat(1, "private")
    async with PostgresStorage.open(pg_url) as pg:
        await pg.upsert_chat(2, "private")
    with pytest.raises(MigrateError, match=r"is not empty: chats \(1 rows\)"):
        await migrate(str(path), pg_url, out=lambda _: None)
    assert await asyncio.to_thread(
        main, ["migrate-db", "--from", str(path), "--to", pg_url]) == 2
    assert "nothing was written" in capsys.readouterr().err
    conn = await asyncpg.connect(pg_url)
    try:
        assert await conn.fetchval("SELECT array_agg(chat_id) FROM chats") == [2]
    finally:
        await conn.close()


async def test_a_missing_source_is_refused(pg_url: str, tmp_path: Path) -> None:
    with pytest.raises(MigrateError, match="no such SQLite file"):
        await migrate(str(tmp_path / "nope.sqlite3"), pg_url, out=lambda _: None)
    assert not (tmp_path / "nope.sqlite3").exists()
