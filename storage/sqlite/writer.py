"""The moves on SQLite (``append_action``): a stored move is one plain-sqlite3 function run on
aiosqlite's thread (one trip), and the moves that wait meanwhile share the next COMMIT
(group commit; ``docs/storage.md``, *One transaction per move*)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from storage.base import Change, Moves
from storage.errors import NotFound, StatusConflict, StorageFailure, VersionConflict
from storage.sql import SET_MESSAGE_IDS
from storage.sqlite.connection import Abandoned, Database, failure, in_transaction

__all__ = ["MoveWriter"]


@dataclass(slots=True, eq=False)
class _Move:
    """Moves waiting for ``MoveWriter._flush``."""

    moves: Moves
    future: asyncio.Future[int]
    now: float = 0.0
    abandoned: bool = False  # the caller was cancelled (set on the loop, read on the thread)


class MoveWriter:
    """The moves of one ``Database``: queued by ``append_action``, stored by one task."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # append_action's moves waiting for the next group commit (_flush).
        self._moves: list[_Move] = []
        self._flusher: asyncio.Task[None] | None = None

    async def append(self, moves: Moves) -> int:
        """Store ``moves`` (checked by the facade, ``storage.facade.Backend.append_actions``)
        with the moves queued meanwhile: one COMMIT for all (``_flush``)."""
        self._db.check_open()
        loop = asyncio.get_running_loop()
        move = _Move(moves, loop.create_future())
        self._moves.append(move)
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush(), name="storage-moves")
        try:
            return await asyncio.shield(move.future)
        except asyncio.CancelledError:
            if move in self._moves:  # not taken yet: never written
                self._moves.remove(move)
                raise
            move.abandoned = True  # rolled back unless its transaction is committing
            while not move.future.done():  # settle before returning, as write() does
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.shield(move.future)
            if not move.future.cancelled():
                move.future.exception()  # retrieved: the caller gets CancelledError
            raise

    async def _flush(self) -> None:
        """Store the queued moves: those that queued while the previous ones were being
        stored go together in ONE transaction, one trip to the thread, one COMMIT (group
        commit: with ``synchronous=FULL`` each COMMIT waits for the disk).  A lone move is
        plain ``BEGIN IMMEDIATE``, its statements, ``COMMIT``; in a group each move has its
        own SAVEPOINT, so a refused move (a conflict, a failing statement) is rolled back
        alone.  Each caller gets its result only after the COMMIT; if BEGIN or COMMIT fails,
        every move of the group fails with that error and none was written."""
        db = self._db
        while self._moves:
            async with db.lock:
                batch, self._moves = self._moves, []
                try:
                    db.check_open()
                    for move in batch:
                        move.now = db.now()
                    results = await db.on_thread(_append_moves, batch, self._settle_soon)
                except BaseException as e:
                    if not isinstance(e, Exception):  # cancelled: the function may still run
                        for move in batch:
                            move.abandoned = True
                        for move in (*batch, *self._moves):  # the queue: never written
                            move.future.cancel()
                        self._moves = []
                        await db.rollback(e)  # queued after it: waits for its end
                        raise
                    for move in batch:
                        _settle(move.future, self._move_error(e))
                    continue
                self._settle_batch(batch, results)  # (settled already, unless the loop
                #                                     had no room for _settle_soon's call)

    def _settle_soon(self, batch: list[_Move], results: list[int | BaseException]) -> None:
        """Called on aiosqlite's thread once ``batch`` is committed: its callers get their
        results in the event loop's next step, not one step after the flusher's (the
        flusher, woken by aiosqlite's own callback queued after this one, finds them
        settled).  One turn of the loop less between a person's press and its answer."""
        if not batch:
            return
        with contextlib.suppress(RuntimeError):  # a closed loop: the flusher settles them
            batch[0].future.get_loop().call_soon_threadsafe(self._settle_batch, batch, results)

    def _settle_batch(self, batch: list[_Move], results: list[int | BaseException]) -> None:
        """Each caller its version or error, and the feed each stored move (once: the
        second call for a batch finds the futures done)."""
        for move, result in zip(batch, results, strict=True):
            if isinstance(result, BaseException):
                _settle(move.future, self._move_error(result))
            elif not move.future.done():
                move.future.set_result(result)
                self._db.feed.publish(Change(move.moves.game_id, result, move.moves.moved()))

    def _move_error(self, error: BaseException) -> BaseException:
        """What a move's caller raises for ``error`` (one object per caller)."""
        if isinstance(error, sqlite3.Error):
            refused = failure(error, self._db.path)
            refused.__cause__ = error
            return refused
        if isinstance(error, Abandoned):
            return asyncio.CancelledError()
        return error


def _settle(future: asyncio.Future[int], error: BaseException) -> None:
    if future.done():
        return
    if isinstance(error, asyncio.CancelledError):
        future.cancel()
    else:
        future.set_exception(error)


# --------------------------------------------------------------------------- on the thread


def _append_moves(
    conn: sqlite3.Connection, batch: list[_Move],
    committed: Callable[[list[_Move], list[int | BaseException]], None],
) -> list[int | BaseException]:
    """One transaction for ``batch``: each move's version or why it was refused; once it
    is committed, ``committed(batch, results)`` is told so (on this thread)."""
    results = _append_batch(conn, batch)
    committed(batch, results)
    return results


def _append_batch(conn: sqlite3.Connection, batch: list[_Move]) -> list[int | BaseException]:
    if len(batch) == 1:
        (move,) = batch
        return [in_transaction(
            conn, lambda: move.abandoned, lambda c: _append(c, move.now, move.moves)
        )]
    results: list[int | BaseException] = []

    def body(c: sqlite3.Connection) -> None:
        for move in batch:
            if move.abandoned:  # cancelled before its turn: not written
                results.append(Abandoned())
                continue
            c.execute("SAVEPOINT move")
            try:
                results.append(_append(c, move.now, move.moves))
            except Exception as e:
                if not c.in_transaction:  # SQLite ended the whole transaction (disk, ...)
                    raise
                c.execute("ROLLBACK TO move")
                results.append(e)
            c.execute("RELEASE move")

    in_transaction(conn, lambda: all(m.abandoned for m in batch), body)
    return results


_APPEND_SQL: Final = (
    "INSERT INTO game_actions (game_id, seq, action, created) VALUES (?, ?, ?, ?)"
)
_MOVE_SQL: Final = (
    "UPDATE games SET version = ?, snapshot = ?, deadline = ?, updated = ?,"
    " human_moved = CASE WHEN ? THEN ? ELSE human_moved END"
    " WHERE game_id = ? AND version = ? AND status = 'playing'"
)
_LAST_MOVE_SQL: Final = (  # the move that ends the game: finish_game's status change too
    "UPDATE games SET version = ?, snapshot = ?, deadline = NULL, updated = ?,"
    " human_moved = CASE WHEN ? THEN ? ELSE human_moved END, status = ?, lobby_code = NULL"
    " WHERE game_id = ? AND version = ? AND status = 'playing'"
)
_SHEET_SQL: Final = (
    "INSERT INTO score_sheets (game_id, deal_no, data, created, seq) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT (game_id, deal_no) DO UPDATE SET data = excluded.data"
)
_RESULT_SQL: Final = (
    "INSERT INTO results (game_id, finished, winner_seat, totals, stopped)"
    " VALUES (?, ?, ?, ?, ?)"
)


def _append(conn: sqlite3.Connection, now: float, moves: Moves) -> int:
    """``append_actions``'s statements: each action and its version-checked game update
    (one version each), then the sheet rows and the result.  The action goes first because
    the log's trigger wants its seq to be the stored version + 1 (it refuses a stale
    version already); the update's ``version = ? AND status = 'playing'`` decides the
    rest.  Only a refused move reads the game, to raise the right conflict."""
    game_id, actions, outcome, human = moves.game_id, moves.actions, moves.outcome, moves.human
    snapshot, deadline, rows = moves.snapshot, moves.deadline, moves.sheet_rows
    last = moves.expected_version + len(actions)
    for version, action in enumerate(actions, moves.expected_version + 1):
        try:
            conn.execute(_APPEND_SQL, (game_id, version, action, now))
        except sqlite3.IntegrityError:
            _refused(conn, game_id, version - 1)
            raise
        if outcome is None or version < last:
            changed = conn.execute(
                _MOVE_SQL,
                (version, snapshot, deadline, now, int(human), now, game_id, version - 1),
            ).rowcount
        else:
            changed = conn.execute(
                _LAST_MOVE_SQL,
                (version, snapshot, now, int(human), now,
                 "stopped" if outcome.stopped else "finished", game_id, version - 1),
            ).rowcount
        if changed != 1:
            _refused(conn, game_id, version - 1)
            raise StorageFailure(
                f"game {game_id}: the move at version {version - 1} was not stored")
    version = last
    if rows:
        conn.executemany(
            _SHEET_SQL, [(game_id, deal_no, data, now, version) for deal_no, data in rows]
        )
    if outcome is not None:
        conn.execute(
            _RESULT_SQL,
            (game_id, now, outcome.winner_seat, outcome.totals, int(outcome.stopped)),
        )
    if moves.message_ids is not None:
        conn.execute(SET_MESSAGE_IDS, (moves.message_ids, game_id))
    return version


def _refused(conn: sqlite3.Connection, game_id: int, expected: int) -> None:
    """Raise why a move at ``expected`` cannot be stored, if that is the game's state."""
    row = conn.execute(
        "SELECT status, version FROM games WHERE game_id = ?", (game_id,)
    ).fetchone()
    if row is None:
        raise NotFound(f"game {game_id}")
    status, version = str(row[0]), int(row[1])
    if status != "playing":
        raise StatusConflict(game_id, status, ("playing",))
    if version != expected:
        raise VersionConflict(game_id, expected, version)
