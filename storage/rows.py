"""Rows of either backend (``sqlite3.Row``, ``asyncpg.Record``) to the models, and the
column lists the queries of both select."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final, Protocol, cast

from storage.models import (
    Chat,
    ChatKind,
    Game,
    GameResult,
    GameStatus,
    Language,
    PlayerStats,
    ScoreRow,
    User,
)

__all__ = [
    "ACTIVE_SQL",
    "GAME_COLUMNS",
    "STATS_COLUMNS",
    "Row",
    "chat_row",
    "game_row",
    "opt_float",
    "opt_int",
    "opt_str",
    "result_row",
    "score_row",
    "stats_row",
    "user_row",
]

GAME_COLUMNS: Final = "*"
"""What a query of games selects: every column of ``games``, which ``game_row`` reads by
name (a database at an older schema version, as the migration tests open, has no
``thread_id`` yet: ``game_row`` gives None)."""
ACTIVE_SQL: Final = "status IN ('lobby', 'playing')"
STATS_COLUMNS: Final = (
    "player, games, wins, place_sum, declared, made, falls, bolts, mu, sigma, updated"
)


class Row(Protocol):
    """A result row read by column name (``sqlite3.Row``, ``asyncpg.Record``)."""

    def __getitem__(self, key: str, /) -> Any: ...

    def keys(self) -> Iterable[str]: ...


def opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def opt_float(value: object) -> float | None:
    return None if value is None else float(cast(float, value))


def opt_int(value: object) -> int | None:
    return None if value is None else int(cast(int, value))


def chat_row(row: Row) -> Chat:
    return Chat(
        chat_id=int(row["chat_id"]),
        kind=cast(ChatKind, row["kind"]),
        language=cast(Language, row["language"]),
        default_rules=opt_str(row["default_rules"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
    )


def user_row(row: Row) -> User:
    return User(
        user_id=int(row["user_id"]),
        first_name=str(row["first_name"]),
        username=opt_str(row["username"]),
        language=cast(Language | None, row["language"]),
        started=bool(row["started"]),
        blocked=bool(row["blocked"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
    )


def game_row(row: Row) -> Game:
    keys = row.keys()
    return Game(
        game_id=int(row["game_id"]),
        chat_id=int(row["chat_id"]),
        status=cast(GameStatus, row["status"]),
        creator_id=int(row["creator_id"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
        rules=str(row["rules"]),
        seed=int(row["seed"]),
        seats=str(row["seats"]),
        version=int(row["version"]),
        lobby_rev=int(row["lobby_rev"]),
        snapshot=opt_str(row["snapshot"]),
        message_ids=str(row["message_ids"]),
        deadline=opt_float(row["deadline"]),
        lobby_code=opt_str(row["lobby_code"]),
        human_moved=opt_float(row["human_moved"]),
        reason=opt_str(row["reason"]),
        thread_id=opt_int(row["thread_id"]) if "thread_id" in keys else None,
    )


def score_row(row: Row) -> ScoreRow:
    return ScoreRow(
        game_id=int(row["game_id"]),
        deal_no=int(row["deal_no"]),
        data=str(row["data"]),
        created=float(row["created"]),
    )


def result_row(row: Row) -> GameResult:
    return GameResult(
        game_id=int(row["game_id"]),
        finished=float(row["finished"]),
        winner_seat=opt_int(row["winner_seat"]),
        totals=str(row["totals"]),
        stopped=bool(row["stopped"]),
    )


def stats_row(row: Row) -> PlayerStats:
    keys = row.keys()
    return PlayerStats(
        player=str(row["player"]),
        games=int(row["games"]),
        wins=int(row["wins"]),
        place_sum=float(row["place_sum"]),
        declared=int(row["declared"]),
        made=int(row["made"]),
        falls=int(row["falls"]),
        bolts=int(row["bolts"]),
        mu=opt_float(row["mu"]),
        sigma=opt_float(row["sigma"]),
        updated=float(row["updated"]),
        name=opt_str(row["name"]) if "name" in keys else None,
    )
