"""The storage the bot uses: :class:`Backend`, one facade over the roles a backend supplies.

A backend gives the facade one object per role (``storage.base``): ``games``, ``moves``,
``people``, ``stats``, ``coord`` and ``feed``, plus how to close its connection.  The
feed has no method on the facade (``storage.feed.subscribe(listener)``, ``hear``,
``tell``).  Each method of
the facade is one of theirs, written here once: most are the role's own method (``_Forward``:
``storage.get_game`` *is* ``storage.games.get_game``, no body in between); the writes
whose arguments are many check them here (``storage.checks``) and hand the role one request
(``NewGame``, ``LobbyEdit``, ``Moves``, ``Ending``), so neither backend spells them again.
The SQLite backend (``storage.sqlite.Storage``) and the PostgreSQL one
(``storage.postgres.PostgresStorage``) are this facade with their ``open`` and extras.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable, Sequence
from types import TracebackType
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from storage.base import (
    CoordinationStore,
    Ending,
    FeedStore,
    GamesStore,
    LobbyEdit,
    Moves,
    MovesStore,
    NewGame,
    PeopleStore,
    StatsStore,
)
from storage.checks import (
    check_int64,
    check_json,
    check_outcome,
    check_reason,
    check_thread,
    check_time,
)
from storage.models import Game, GameResult, Outcome

__all__ = ["ROLES", "Backend"]

_P = ParamSpec("_P")
_T = TypeVar("_T")
_R = TypeVar("_R")

ROLES: dict[str, type] = {
    "games": GamesStore,
    "moves": MovesStore,
    "people": PeopleStore,
    "stats": StatsStore,
    "coord": CoordinationStore,
    "feed": FeedStore,
}
"""The facade's role attributes and the protocol each one's object follows."""


class _Forward(Generic[_P, _T]):
    """A method of the facade that is the same method of one of its roles: reading it from
    a facade gives the role object's bound method (typed as the protocol declares it)."""

    def __init__(self, role: str, method: Callable[..., Any]) -> None:
        self.role = role
        self.name: str = method.__name__
        self.__doc__ = method.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        if name != self.name:
            raise TypeError(f"{owner.__name__}.{name} forwards {self.role}.{self.name}")

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(
        self, obj: object, owner: type | None = None
    ) -> Callable[_P, Coroutine[Any, Any, _T]]: ...

    def __get__(
        self, obj: object | None, owner: type | None = None
    ) -> Self | Callable[_P, Coroutine[Any, Any, _T]]:
        if obj is None:
            return self
        method: Callable[_P, Coroutine[Any, Any, _T]] = getattr(
            getattr(obj, self.role), self.name
        )
        return method


class _Role(Generic[_R]):
    """``_Role[GamesStore]("games")(GamesStore.get_game)``: the facade's ``get_game`` is
    its ``games``'s; the protocol in the type makes mypy refuse another role's method."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(
        self, method: Callable[Concatenate[_R, _P], Coroutine[Any, Any, _T]]
    ) -> _Forward[_P, _T]:
        return _Forward(self.name, method)


_games = _Role[GamesStore]("games")
_people = _Role[PeopleStore]("people")
_stats = _Role[StatsStore]("stats")
_coord = _Role[CoordinationStore]("coord")


class Backend:
    """The repository of chats, users, games, their action logs, score sheets and results,
    on whichever backend made it (``storage.open_storage``).

    Every backend behaves the same (``tests/storage/test_contract.py``); the documentation
    of a forwarded method is on the SQLite role that does the work (``storage/sqlite/``)
    and in ``docs/storage.md``.
    """

    def __init__(
        self,
        *,
        games: GamesStore,
        moves: MovesStore,
        people: PeopleStore,
        stats: StatsStore,
        coord: CoordinationStore,
        feed: FeedStore,
        close: Callable[[], Coroutine[Any, Any, None]],
    ) -> None:
        self.games = games
        self.moves = moves
        self.people = people
        self.stats = stats
        self.coord = coord
        self.feed = feed
        self._close = close

    # ------------------------------------------------------------------ lifecycle

    async def close(self) -> None:
        """Close the connection (idempotent); waits for the running operations to finish."""
        await self._close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ------------------------------------------------------------------ chats and users

    upsert_chat = _people(PeopleStore.upsert_chat)
    get_chat = _people(PeopleStore.get_chat)
    set_chat_language = _people(PeopleStore.set_chat_language)
    set_default_rules = _people(PeopleStore.set_default_rules)
    migrate_chat = _people(PeopleStore.migrate_chat)
    upsert_user = _people(PeopleStore.upsert_user)
    get_user = _people(PeopleStore.get_user)
    set_user_language = _people(PeopleStore.set_user_language)
    mark_started = _people(PeopleStore.mark_started)
    mark_blocked = _people(PeopleStore.mark_blocked)

    # ------------------------------------------------------------------ games: lobby

    async def create_game(
        self,
        chat_id: int,
        creator_id: int,
        *,
        rules: str,
        seed: int,
        seats: str,
        lobby_code: str | None = None,
        deadline: float | None = None,
        thread_id: int | None = None,
    ) -> int:
        """Create a game in ``lobby`` status (version 0) in the forum topic ``thread_id``
        of the chat (None: General, or a chat without topics) and return its id.

        Raises ``NotFound`` for an unknown chat, ``ActiveGameConflict`` if that thread of
        the chat has a game in lobby/playing, ``LobbyCodeTaken`` if the code is in use;
        writes nothing then.
        """
        new = NewGame(
            chat_id=check_int64("chat_id", chat_id),
            creator_id=check_int64("creator_id", creator_id),
            rules=check_json("rules", rules),
            seed=check_int64("seed", seed),
            seats=check_json("seats", seats),
            lobby_code=lobby_code,
            deadline=check_time("deadline", deadline),
            thread_id=check_thread(thread_id),
        )
        return await self.games.create_game(new)

    async def update_lobby(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        seats: str | None = None,
        rules: str | None = None,
    ) -> int:
        """Change the seats and/or rules of a game in lobby; returns the new ``lobby_rev``.

        Raises ``VersionConflict`` if ``lobby_rev`` is not ``expected_lobby_rev`` and
        ``StatusConflict`` if the game is not in lobby; writes nothing then.
        """
        return await self.games.update_lobby(_lobby_edit(game_id, expected_lobby_rev,
                                                         seats, rules))

    async def start_game(
        self,
        game_id: int,
        expected_lobby_rev: int,
        *,
        snapshot: str,
        deadline: float | None,
        seats: str | None = None,
        rules: str | None = None,
    ) -> None:
        """Move a game from lobby to playing with its first snapshot (version stays 0).

        The start counts as a person's move for ``idle_games`` (``human_moved`` = now).

        Optionally sets the final seats/rules.  Raises ``VersionConflict`` /
        ``StatusConflict`` like ``update_lobby``; writes nothing then.
        """
        check_json("snapshot", snapshot)
        check_time("deadline", deadline)
        edit = _lobby_edit(game_id, expected_lobby_rev, seats, rules)
        await self.games.start_game(edit, snapshot, deadline)

    cancel_lobby = _games(GamesStore.cancel_lobby)

    # ------------------------------------------------------------------ games: play

    async def append_action(
        self,
        game_id: int,
        expected_version: int,
        action: str,
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
        message_ids: str | None = None,
    ) -> int:
        """Record one accepted action; returns the new version (= its seq).

        ``human=True``: a person made this move, so the game's ``human_moved`` becomes now
        (the clock of ``idle_games``); computer moves and seat hand-overs leave it.

        In ONE transaction: checks the game is ``playing`` (else ``StatusConflict``) and
        its version equals ``expected_version`` (else ``VersionConflict``), appends the
        action with seq = version + 1, stores the snapshot and the deadline, writes (or
        replaces) the given ``(deal_no, data JSON)`` score-sheet rows and, with an
        ``outcome``, finishes the game as ``finish_game`` does.  When it returns, all of it
        is committed; when it raises, nothing was written.
        """
        return await self.append_actions(
            game_id, expected_version, (action,), snapshot, deadline=deadline,
            sheet_rows=sheet_rows, outcome=outcome, human=human, message_ids=message_ids)

    async def append_actions(
        self,
        game_id: int,
        expected_version: int,
        actions: Sequence[str],
        snapshot: str,
        *,
        deadline: float | None,
        sheet_rows: Iterable[tuple[int, str]] = (),
        outcome: Outcome | None = None,
        human: bool = False,
        message_ids: str | None = None,
    ) -> int:
        """Moves that follow each other, in ONE transaction: as ``append_action`` for each
        of ``actions`` in turn (seqs ``expected_version + 1`` on), with the snapshot, the
        deadline, the sheet rows and the outcome of the last.  Returns the new version
        (``expected_version + len(actions)``); all of it is written or nothing.  A deal
        given twice in ``sheet_rows`` gets its last data.  ``message_ids``: the game's message
        ids (``set_message_ids``), stored in the same transaction."""
        if not actions:
            raise ValueError("append_actions: no actions")
        sheet: dict[int, str] = {}
        for deal_no, data in sheet_rows:
            sheet[check_int64("deal_no", deal_no)] = check_json("sheet data", data)
        if outcome is not None:
            check_outcome(outcome)
        moves = Moves(
            game_id=check_int64("game_id", game_id),
            expected_version=check_int64("expected_version", expected_version),
            actions=tuple(check_json("action", action) for action in actions),
            snapshot=check_json("snapshot", snapshot),
            deadline=check_time("deadline", deadline),
            sheet_rows=tuple(sheet.items()),
            outcome=outcome,
            human=bool(human),
            message_ids=None if message_ids is None else check_json("message_ids", message_ids),
        )
        return await self.moves.append(moves)

    actions = _games(GamesStore.actions)
    set_message_ids = _games(GamesStore.set_message_ids)
    set_seats = _games(GamesStore.set_seats)
    set_deadline = _games(GamesStore.set_deadline)

    async def finish_game(
        self,
        game_id: int,
        *,
        winner_seat: int | None,
        totals: str,
        stopped: bool,
        expected_version: int | None = None,
    ) -> GameResult:
        """End a playing game: the result row and the status (finished/stopped) in one
        transaction; clears the deadline and lobby code.

        ``StatusConflict`` unless the game is ``playing`` (so it ends once);
        ``VersionConflict`` if ``expected_version`` is given and stale.
        """
        outcome = Outcome(winner_seat=winner_seat, totals=totals, stopped=stopped)
        check_outcome(outcome)
        return await self.games.finish_game(game_id, outcome, expected_version)

    # ------------------------------------------------------------------ games: the end

    async def expire_game(
        self,
        game_id: int,
        *,
        reason: str = "idle",
        totals: str | None = None,
        expected_version: int | None = None,
        expected_lobby_rev: int | None = None,
    ) -> Game:
        """Close a game left idle: ``lobby``/``playing`` → ``expired``; returns the row.

        The record (rules, seed, seats, actions, score sheet) is kept; the deadline and the
        lobby code are cleared and ``reason`` is stored.  A playing game given ``totals``
        (JSON) also gets a result row (``stopped``, no winner), as ``/stop`` writes, so
        ``last_game`` and the score sheet still show it; without ``totals`` it gets none.

        ``expected_version`` / ``expected_lobby_rev`` guard against a move or a lobby edit
        made since the caller saw the game idle (``VersionConflict``).  ``StatusConflict``
        unless the game is in lobby or playing; ``NotFound``.  Writes nothing when it raises.
        """
        if totals is not None:
            check_json("totals", totals)
        return await self.games.end_game(Ending(
            game_id=check_int64("game_id", game_id), status="expired",
            reason=check_reason(reason), totals=totals,
            expected_version=expected_version, expected_lobby_rev=expected_lobby_rev,
        ))

    async def mark_broken(
        self, game_id: int, reason: str, *, expected_version: int | None = None
    ) -> Game:
        """A game that cannot be restored: ``lobby``/``playing`` → ``broken``; returns the row.

        ``broken`` is not active, so the chat can start a new game at once.  Everything of
        the game stays (``export_game`` gives its record for a bug report); ``reason`` (the
        error, at most 4000 characters are kept) is stored; deadline and lobby code are
        cleared; no result row.  ``StatusConflict`` unless lobby/playing; ``NotFound``;
        ``VersionConflict`` on a stale ``expected_version``.
        """
        return await self.games.end_game(Ending(
            game_id=check_int64("game_id", game_id), status="broken",
            reason=check_reason(reason), totals=None,
            expected_version=expected_version, expected_lobby_rev=None,
        ))

    idle_lobbies = _games(GamesStore.idle_lobbies)
    idle_games = _games(GamesStore.idle_games)
    export_game = _games(GamesStore.export_game)

    # ------------------------------------------------------------------ games: queries

    get_game = _games(GamesStore.get_game)
    active_game = _games(GamesStore.active_game)
    active_games = _games(GamesStore.active_games)
    game_by_lobby_code = _games(GamesStore.game_by_lobby_code)
    games_in_progress = _games(GamesStore.games_in_progress)
    last_game = _games(GamesStore.last_game)
    score_sheet = _games(GamesStore.score_sheet)
    get_result = _games(GamesStore.get_result)

    # ------------------------------------------------------------------ stats and ratings

    record_game_result = _stats(StatsStore.record_game_result)
    is_rated = _stats(StatsStore.is_rated)
    unrated_games = _stats(StatsStore.unrated_games)
    player_stats = _stats(StatsStore.player_stats)
    chat_top = _stats(StatsStore.chat_top)
    versus_computers = _stats(StatsStore.versus_computers)

    # ------------------------------------------------------------------ coordination

    take_lease = _coord(CoordinationStore.take_lease)
    renew_leases = _coord(CoordinationStore.renew_leases)
    claim_expired_leases = _coord(CoordinationStore.claim_expired_leases)
    release_leases = _coord(CoordinationStore.release_leases)
    lease_owner = _coord(CoordinationStore.lease_owner)
    group_send = _coord(CoordinationStore.group_send)
    group_sent = _coord(CoordinationStore.group_sent)
    claim_message = _coord(CoordinationStore.claim_message)
    message_sent = _coord(CoordinationStore.message_sent)
    begin_edit = _coord(CoordinationStore.begin_edit)
    end_edit = _coord(CoordinationStore.end_edit)
    prune_coordination = _coord(CoordinationStore.prune_coordination)


def _lobby_edit(game_id: int, expected_lobby_rev: int, seats: str | None,
                rules: str | None) -> LobbyEdit:
    return LobbyEdit(
        game_id=check_int64("game_id", game_id),
        expected_lobby_rev=check_int64("expected_lobby_rev", expected_lobby_rev),
        seats=None if seats is None else check_json("seats", seats),
        rules=None if rules is None else check_json("rules", rules),
    )
