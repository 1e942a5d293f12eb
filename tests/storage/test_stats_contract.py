"""The repository contract of players' records and ratings (schema version 3), run against
every backend like ``test_contract.py``: a finished game counts once, in one transaction,
the rating step sees the current ratings, and the queries of /stats and /top."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import pytest

from storage import Backend as Storage
from storage import NotFound, SeatResult, StatusConflict
from storage.sqlite import RatingPair
from tests.storage.backends import Backend
from tests.storage.test_contract import ALICE, BOB, CHAT, OTHER_CHAT, new_game, play


async def finished(store: Storage, chat_id: int = CHAT) -> int:
    game_id = await new_game(store, chat_id, start=True)
    await play(store, game_id, 1)
    await store.finish_game(game_id, winner_seat=0, totals="[1000, 300]", stopped=False)
    return game_id


def seats(winner: str = "u:11", loser: str = "ai:hard") -> list[SeatResult]:
    return [SeatResult(0, winner, 1, True, declared=3, made=2, falls=1, bolts=0),
            SeatResult(1, loser, 2, False, declared=1, made=0, falls=0, bolts=2)]


def plus_one(current: Mapping[str, RatingPair | None]) -> dict[str, RatingPair]:
    """A toy rating step: mu goes up by one per game (from 25), sigma stays 8."""
    return {p: ((r[0] if r else 25.0) + 1.0, 8.0) for p, r in current.items()}


async def test_a_game_counts_once(store: Storage) -> None:
    game_id = await finished(store)
    assert await store.unrated_games() == [await store.get_game(game_id)]
    assert not await store.is_rated(game_id)
    assert await store.record_game_result(game_id, seats(), plus_one) is True
    assert await store.record_game_result(game_id, seats(), plus_one) is False
    assert await store.is_rated(game_id)
    assert await store.unrated_games() == []
    me = await store.player_stats("u:11")
    assert me is not None
    assert (me.games, me.wins, me.place_sum, me.declared, me.made, me.falls, me.bolts) == (
        1, 1, 1.0, 3, 2, 1, 0)
    assert (me.mu, me.sigma, me.avg_place) == (26.0, 8.0, 1.0)
    ai = await store.player_stats("ai:hard")
    assert ai is not None and (ai.games, ai.wins, ai.place_sum, ai.bolts) == (1, 0, 2.0, 2)
    assert await store.player_stats("u:22") is None


async def test_sums_add_up_and_the_rating_step_sees_the_current_rating(store: Storage) -> None:
    seen: list[Mapping[str, RatingPair | None]] = []

    def rate(current: Mapping[str, RatingPair | None]) -> dict[str, RatingPair]:
        seen.append(dict(current))
        return plus_one(current)

    first, second = await finished(store), await finished(store)
    await store.record_game_result(first, seats(), rate)
    await store.record_game_result(second, seats("ai:hard", "u:11"), rate)
    assert seen == [{"u:11": None, "ai:hard": None},
                    {"ai:hard": (26.0, 8.0), "u:11": (26.0, 8.0)}]
    me = await store.player_stats("u:11")
    assert me is not None
    assert (me.games, me.wins, me.place_sum, me.avg_place, me.mu) == (2, 1, 3.0, 1.5, 27.0)


async def test_games_ending_at_once_lose_no_rating_change(store: Storage) -> None:
    games = [await finished(store) for _ in range(6)]
    done = await asyncio.gather(*(store.record_game_result(g, seats(), plus_one)
                                  for g in games + games))
    assert sorted(done) == [False] * 6 + [True] * 6
    me = await store.player_stats("u:11")
    assert me is not None and (me.games, me.mu) == (6, 31.0)


async def test_several_seats_of_one_player_count_one_game(store: Storage) -> None:
    game_id = await finished(store)
    three = [SeatResult(0, "ai:hard", 1, True, made=1), SeatResult(1, "u:11", 2, False),
             SeatResult(2, "ai:hard", 3, False, made=2)]
    await store.record_game_result(game_id, three, plus_one)
    ai = await store.player_stats("ai:hard")
    assert ai is not None and (ai.games, ai.wins, ai.place_sum, ai.made) == (1, 1, 2.0, 3)
    [vs] = await store.versus_computers("u:11")
    assert (vs.computer, vs.games, vs.wins, vs.place_sum) == ("ai:hard", 1, 0, 2.0)


async def test_without_a_rating_step_nobody_is_rated(store: Storage) -> None:
    await store.record_game_result(await finished(store), seats())
    me = await store.player_stats("u:11")
    assert me is not None and me.games == 1 and me.mu is None and me.sigma is None


async def test_only_a_finished_game_counts_and_bad_input_writes_nothing(
        store: Storage) -> None:
    playing = await new_game(store, start=True)
    with pytest.raises(StatusConflict):
        await store.record_game_result(playing, seats(), plus_one)
    await store.finish_game(playing, winner_seat=None, totals="[1, 2]", stopped=True)
    with pytest.raises(StatusConflict):  # stopped: nobody won, nothing to count
        await store.record_game_result(playing, seats(), plus_one)
    with pytest.raises(NotFound):
        await store.record_game_result(999, seats(), plus_one)
    game_id = await finished(store, OTHER_CHAT)
    with pytest.raises(ValueError):
        await store.record_game_result(game_id, [])
    with pytest.raises(ValueError):
        await store.record_game_result(game_id, [*seats(), SeatResult(1, "u:22", 3, False)])
    with pytest.raises(ValueError):
        await store.record_game_result(game_id, seats(), lambda _: {"u:99": (1.0, 1.0)})
    with pytest.raises(ValueError):
        await store.record_game_result(game_id, seats(), lambda _: {"u:11": (1.0, 0.0)})

    def boom(_: Mapping[str, RatingPair | None]) -> dict[str, RatingPair]:
        raise RuntimeError("the rating step failed")

    with pytest.raises(RuntimeError):
        await store.record_game_result(game_id, seats(), boom)
    assert not await store.is_rated(game_id)
    assert await store.player_stats("u:11") is None
    assert [g.game_id for g in await store.unrated_games()] == [game_id]


async def test_chat_top_lists_the_chats_people_by_rating(store: Storage) -> None:
    await store.upsert_user(ALICE, "Alice", None)
    await store.upsert_user(BOB, "Bob", None)
    here = await finished(store)
    await store.record_game_result(here, [SeatResult(0, "u:11", 1, True),
                                          SeatResult(1, "u:22", 2, False),
                                          SeatResult(2, "ai:hard", 3, False)],
                                   lambda cur: {"u:11": (30.0, 5.0), "u:22": (20.0, 5.0),
                                                "ai:hard": (40.0, 1.0)})
    elsewhere = await finished(store, OTHER_CHAT)
    await store.record_game_result(elsewhere, seats("u:33", "u:22"), plus_one)
    top = await store.chat_top(CHAT)
    assert [(p.player, p.name, p.games) for p in top] == [("u:11", "Alice", 1),
                                                          ("u:22", "Bob", 2)]
    # u:33 (26, 8) is above u:22 (21, 8): the order is by mu - 3 sigma
    assert [(p.player, p.name) for p in await store.chat_top(OTHER_CHAT)] == [
        ("u:33", None), ("u:22", "Bob")]
    assert await store.chat_top(-999) == []
    assert len(await store.chat_top(CHAT, limit=1)) == 1
    # the table follows the chat when a group becomes a supergroup
    assert await store.migrate_chat(CHAT, -300)
    assert [p.player for p in await store.chat_top(-300)] == ["u:11", "u:22"]
    assert await store.chat_top(CHAT) == []


async def test_versus_computers(store: Storage) -> None:
    for winner, loser in (("u:11", "ai:hard"), ("ai:hard", "u:11"), ("u:11", "ai:random")):
        await store.record_game_result(await finished(store), seats(winner, loser))
    await store.record_game_result(await finished(store), seats("u:11", "u:22"))
    got = [(v.computer, v.games, v.wins, v.place_sum)
           for v in await store.versus_computers("u:11")]
    assert got == [("ai:hard", 2, 1, 3.0), ("ai:random", 1, 1, 1.0)]
    assert await store.versus_computers("u:22") == []


async def test_the_count_survives_a_reopen(backend: Backend) -> None:
    if not backend.persistent:
        pytest.skip("an in-memory database does not outlive its connection")
    store = await backend.open()
    game_id = await finished(store)
    unrated = await finished(store)
    await store.record_game_result(game_id, seats(), plus_one)
    # never closed, as if the process was killed: a second connection sees the count
    store2 = await backend.open()
    try:
        assert await store2.record_game_result(game_id, seats(), plus_one) is False
        assert [g.game_id for g in await store2.unrated_games()] == [unrated]
        me = await store2.player_stats("u:11")
        assert me is not None and me.games == 1
    finally:
        await store2.close()
        await store.close()
