"""The roles a storage backend supplies, and the values passed to them.

A backend (SQLite, ``storage.sqlite``; PostgreSQL, ``storage.postgres``) supplies one object
per role: ``GamesStore`` (games: lobby, end, queries, export), ``MovesStore`` (the moves),
``PeopleStore`` (chats and users), ``StatsStore`` (results and ratings),
``CoordinationStore`` (several processes on one database) and ``FeedStore`` (the changes of
the games, as they are committed, for whoever shows them live); each is only that backend's
SQL (and, for the feed, how its changes travel).
The bot sees them through one facade, ``storage.facade.Backend``, which checks the
arguments of the many-argument writes once and hands the role a request (``NewGame``,
``LobbyEdit``, ``Moves``, ``Ending``).  Both backends pass the same contract tests
(``tests/storage/test_contract.py``): the same results, the same exceptions
(``storage.errors``) and the same all-or-nothing writes.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Generic, Literal, NamedTuple, Protocol, TypeVar

from storage.models import (
    Chat,
    ChatKind,
    Game,
    GameResult,
    GameStatus,
    Language,
    Outcome,
    PlayerStats,
    ScoreRow,
    SeatResult,
    User,
    Versus,
)

__all__ = [
    "MOVED_BYTES",
    "NOTE_BYTES",
    "Change",
    "CoordinationStore",
    "Ending",
    "FeedListener",
    "FeedStore",
    "GamesStore",
    "LobbyEdit",
    "Migration",
    "Moved",
    "Moves",
    "MovesStore",
    "NewGame",
    "NoteListener",
    "Opening",
    "PeopleStore",
    "Rater",
    "RatingPair",
    "StatsStore",
]


class _Closable(Protocol):
    async def close(self) -> None: ...


_S = TypeVar("_S", bound=_Closable)


class Opening(Generic[_S]):
    """What a backend's ``open(...)`` returns: await it, or use it as ``async with`` (the
    storage is closed at the end of the block)."""

    def __init__(self, opener: Callable[[], Coroutine[Any, Any, _S]]) -> None:
        self._opener = opener
        self._storage: _S | None = None

    def __await__(self) -> Generator[Any, None, _S]:
        return self._opener().__await__()

    async def __aenter__(self) -> _S:
        self._storage = await self
        return self._storage

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._storage is not None:
            await self._storage.close()

Migration = tuple[str, ...]
"""The SQL statements of one migration, run in order in one transaction (the lists are
``storage/sqlite/schema.py`` and ``storage/postgres/schema.py``)."""

RatingPair = tuple[float, float]
"""A rating as (mu, sigma)."""
Rater = Callable[[Mapping[str, RatingPair | None]], Mapping[str, RatingPair]]
"""``record_game_result``'s rating step: the players' current ratings (None: not rated
yet) to their new ones, called inside the transaction."""




# --------------------------------------------------------------------------- requests
# The arguments of the writes whose arguments are many, checked once by the facade
# (``storage.facade.Backend``) and handed to the backend's role as one value.


@dataclass(frozen=True, slots=True)
class NewGame:
    """``create_game``: a game in lobby in the forum topic ``thread_id`` of the chat."""

    chat_id: int
    creator_id: int
    rules: str
    seed: int
    seats: str
    lobby_code: str | None
    deadline: float | None
    thread_id: int | None


@dataclass(frozen=True, slots=True)
class LobbyEdit:
    """``update_lobby``/``start_game``: the lobby at ``expected_lobby_rev`` and what
    changes in it (None: kept)."""

    game_id: int
    expected_lobby_rev: int
    seats: str | None
    rules: str | None


@dataclass(frozen=True, slots=True)
class Moves:
    """``append_action``/``append_actions``: moves that follow each other, stored in ONE
    transaction with the snapshot, deadline, sheet rows and outcome of the last."""

    game_id: int
    expected_version: int
    actions: tuple[str, ...]
    """At least one; the first gets seq ``expected_version + 1``."""
    snapshot: str
    deadline: float | None
    sheet_rows: tuple[tuple[int, str], ...]
    """(deal_no, data JSON), each deal once."""
    outcome: Outcome | None
    human: bool
    message_ids: str | None = None
    """The game's message ids and what each shows (``set_message_ids``), stored in the same
    transaction; None leaves them."""

    def moved(self) -> Moved | None:
        """What the feed carries of these moves once they are committed (``Change.moved``);
        None when they are longer than a notification holds (``MOVED_BYTES``)."""
        size = sum(len(a.encode()) + 1 for a in self.actions)
        if self.message_ids is not None:
            size += len(self.message_ids.encode())
        if size > MOVED_BYTES:
            return None
        status: GameStatus = "playing" if self.outcome is None else \
            "stopped" if self.outcome.stopped else "finished"
        deadline = self.deadline if self.outcome is None else None
        return Moved(self.actions, status, deadline, self.message_ids)


@dataclass(frozen=True, slots=True)
class Ending:
    """``expire_game``/``mark_broken``: how a game in lobby or playing is closed."""

    game_id: int
    status: Literal["expired", "broken"]
    reason: str
    """At most ``checks.REASON_MAX`` characters."""
    totals: str | None
    """A playing game's result row (stopped, no winner) with these totals; None: none."""
    expected_version: int | None
    expected_lobby_rev: int | None


# --------------------------------------------------------------------------- the roles
# What a backend supplies: one object per role, each only its SQL.  The documentation of
# the methods is on the facade (``storage/facade.py``) and in ``docs/storage.md``.


class GamesStore(Protocol):
    """Games: the lobby, the end of a game, the queries and the export."""

    async def create_game(self, new: NewGame) -> int: ...

    async def update_lobby(self, edit: LobbyEdit) -> int: ...

    async def start_game(self, edit: LobbyEdit, snapshot: str, deadline: float | None) -> None:
        ...

    async def cancel_lobby(self, game_id: int) -> None: ...

    async def actions(self, game_id: int, *, after: int = 0) -> list[str]: ...

    async def set_message_ids(self, game_id: int, message_ids: str) -> None: ...

    async def set_seats(self, game_id: int, seats: str) -> None: ...

    async def set_deadline(
        self, game_id: int, deadline: float | None, *, expected_version: int | None = None
    ) -> None: ...

    async def finish_game(
        self, game_id: int, outcome: Outcome, expected_version: int | None
    ) -> GameResult: ...

    async def end_game(self, ending: Ending) -> Game: ...

    async def idle_lobbies(self, idle_for: float, *, now: float | None = None) -> list[Game]: ...

    async def idle_games(self, idle_for: float, *, now: float | None = None) -> list[Game]: ...

    async def export_game(self, game_id: int) -> str: ...

    async def get_game(self, game_id: int) -> Game | None: ...

    async def active_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None: ...

    async def active_games(self, chat_id: int) -> list[Game]: ...

    async def game_by_lobby_code(self, code: str) -> Game | None: ...

    async def games_in_progress(self) -> list[Game]: ...

    async def last_game(self, chat_id: int, *, thread_id: int | None = None) -> Game | None: ...

    async def score_sheet(self, game_id: int) -> list[ScoreRow]: ...

    async def get_result(self, game_id: int) -> GameResult | None: ...


class MovesStore(Protocol):
    """The moves of the games in play: the hot path, one transaction per call."""

    async def append(self, moves: Moves) -> int: ...


class PeopleStore(Protocol):
    """Chats and users."""

    async def upsert_chat(self, chat_id: int, kind: ChatKind, *, language: Language = "ru"
                          ) -> Chat: ...

    async def get_chat(self, chat_id: int) -> Chat | None: ...

    async def set_chat_language(self, chat_id: int, language: Language) -> None: ...

    async def set_default_rules(self, chat_id: int, rules: str | None) -> None: ...

    async def migrate_chat(self, old_id: int, new_id: int) -> bool: ...

    async def upsert_user(self, user_id: int, first_name: str, username: str | None = None, *,
                          language: Language | None = None) -> User: ...

    async def get_user(self, user_id: int) -> User | None: ...

    async def set_user_language(self, user_id: int, language: Language | None) -> None: ...

    async def mark_started(self, user_id: int) -> None: ...

    async def mark_blocked(self, user_id: int, blocked: bool = True) -> None: ...


class StatsStore(Protocol):
    """Results, statistics and ratings."""

    async def record_game_result(
        self, game_id: int, seats: Sequence[SeatResult], rate: Rater | None = None
    ) -> bool: ...

    async def is_rated(self, game_id: int) -> bool: ...

    async def unrated_games(self) -> list[Game]: ...

    async def player_stats(self, player: str) -> PlayerStats | None: ...

    async def chat_top(self, chat_id: int, *, limit: int = 20) -> list[PlayerStats]: ...

    async def versus_computers(self, player: str) -> list[Versus]: ...


class CoordinationStore(Protocol):
    """Several bot processes on one database (``bot/tg/io/coord.py``, ``docs/deploy.md``):
    game leases, the shared group request budget and send-once messages."""

    async def take_lease(self, game_id: int, owner: str, ttl: float, *,
                         force: bool = False) -> bool: ...

    async def renew_leases(self, owner: str, ttl: float) -> dict[int, int]: ...

    async def claim_expired_leases(self, owner: str, ttl: float, *,
                                   limit: int = 100) -> list[int]: ...

    async def release_leases(self, owner: str) -> int: ...

    async def lease_owner(self, game_id: int) -> str | None: ...

    async def group_send(self, chat_id: int, limit: int,
                         window: float) -> tuple[float, float | None]: ...

    async def group_sent(self, chat_id: int, counted: float) -> None: ...

    async def claim_message(self, chat_id: int, slot: str, owner: str, *,
                            stale_after: float = 30.0) -> tuple[bool, int | None]: ...

    async def message_sent(self, chat_id: int, slot: str, message_id: int | None) -> None: ...

    async def begin_edit(self, game_id: int | None, chat_id: int, slot: str, owner: str,
                         digest: str, *, busy_for: float = 3.0) -> str: ...

    async def end_edit(self, chat_id: int, slot: str, owner: str, shown: str | None) -> None: ...

    async def prune_coordination(self, older_than: float) -> int: ...


# --------------------------------------------------------------------------- the feed


MOVED_BYTES: Final = 7000
"""The most bytes of records and message ids a change carries (``Moved``): PostgreSQL's
notification holds fewer than 8,000 bytes, with the game, the version, the status and the
deadline."""


class Moved(NamedTuple):
    """What a write of moves left, carried by its change so that a listener that has the
    game just before them need not read it back: the records of the moves (the versions
    ``version - len(records) + 1`` to ``version``, as ``actions`` returns them), the
    game's status and deadline after them and its message ids if they wrote them (None:
    as before).  The rest of the row is as before them."""

    records: tuple[str, ...]
    status: GameStatus
    deadline: float | None
    message_ids: str | None = None


class Change(NamedTuple):
    """A game's row changed and was committed: ``game_id`` is at ``version`` (its
    ``games.version``: the number of its moves) or later.  A write that adds no move (a
    lobby edit, the start, a deadline, the seats, the end) gives the version it left.
    A write of moves carries them (``moved``) unless they are too long to carry
    (``Moves.moved``); None: read the game to know what changed."""

    game_id: int
    version: int
    moved: Moved | None = None


FeedListener = Callable[[Change | None], object]
"""Told every committed change of a game (``Change``); ``None`` means "changes may have
been missed: read again everything you show" (the PostgreSQL feed lost its connection and
has it back).  Called in the event loop, in commit order: it must return quickly (hand the
work to a task or a queue); what it returns is ignored and what it raises is logged."""


NoteListener = Callable[[str], object]
"""Told every note a process ``tell``s (``FeedStore.tell``), its own included; called in
the event loop: it must return quickly; what it raises is logged."""

NOTE_BYTES = 7000
"""The longest note (UTF-8 bytes): PostgreSQL's payload limit is 8,000."""


class FeedStore(Protocol):
    """The changes of the games as they are committed (``docs/storage.md``, *The feed*):
    on PostgreSQL every process's, through ``LISTEN``/``NOTIFY``; on SQLite this process's,
    in memory.  For one game the versions come in commit order (never decreasing), and a
    change is told only once it can be read.

    Beside the changes, *notes*: what processes tell each other and nobody stores (the
    people watching a game on each process's pages).  A note reaches every process that
    listens when it is told (this one included), at most once; one told while a process's
    connection is down never reaches it (``subscribe``'s ``None`` says so)."""

    def subscribe(self, listener: FeedListener) -> Callable[[], None]:
        """Tell ``listener`` every change from now on; returns the call that stops it."""
        ...

    note_bytes: int
    """``NOTE_BYTES``."""

    def hear(self, listener: NoteListener) -> Callable[[], None]:
        """Tell ``listener`` every note from now on; returns the call that stops it."""
        ...

    async def tell(self, note: str) -> None:
        """Tell every listening process ``note`` (at most ``NOTE_BYTES``; ValueError if
        longer; StorageError if the database cannot take it)."""
        ...
