"""The state a game's row must be in for a write to change it, checked on the row read (on
PostgreSQL, locked) in the transaction that writes: both backends raise the same
``StatusConflict``/``VersionConflict``/``ActiveGameConflict`` from here."""

from __future__ import annotations

from storage.base import Ending, LobbyEdit, NewGame
from storage.errors import (
    ActiveGameConflict,
    LobbyCodeTaken,
    NotFound,
    StatusConflict,
    VersionConflict,
)
from storage.models import ACTIVE_STATUSES, Game
from storage.rows import Row

__all__ = [
    "check_active",
    "check_ending",
    "check_lobby",
    "check_new_game",
    "check_no_clash",
    "check_playing",
    "edit_state",
]


def check_new_game(new: NewGame, clashes: Row) -> None:
    """``create_game``: the chat is known, has no game in lobby/playing in the thread, and
    nobody holds the lobby code (``clashes``: the row of ``sql.NEW_GAME_CLASHES``)."""
    if clashes["chat"] is None:
        raise NotFound(f"chat {new.chat_id}")
    if clashes["active"] is not None:
        raise ActiveGameConflict(new.chat_id, int(str(clashes["active"])))
    if new.lobby_code is not None and clashes["code_holder"] is not None:
        raise LobbyCodeTaken(new.lobby_code)


def check_lobby(game: Game, edit: LobbyEdit) -> Game:
    """``update_lobby``/``start_game``: the game is in lobby at the expected revision."""
    if game.status != "lobby":
        raise StatusConflict(game.game_id, game.status, ("lobby",))
    if game.lobby_rev != edit.expected_lobby_rev:
        raise VersionConflict(game.game_id, edit.expected_lobby_rev, game.lobby_rev, "lobby_rev")
    return game


def check_playing(game: Game, expected_version: int | None) -> Game:
    """``finish_game``: the game is playing (at ``expected_version`` when given)."""
    if game.status != "playing":
        raise StatusConflict(game.game_id, game.status, ("playing",))
    return _check_version(game, expected_version)


def check_active(game: Game, expected_version: int | None) -> Game:
    """``set_deadline``: the game is in lobby or playing (at ``expected_version``)."""
    if not game.active:
        raise StatusConflict(game.game_id, game.status, ACTIVE_STATUSES)
    return _check_version(game, expected_version)


def check_ending(game: Game, ending: Ending) -> Game:
    """``expire_game``/``mark_broken``: active, at the expected version and lobby rev."""
    check_active(game, ending.expected_version)
    rev = ending.expected_lobby_rev
    if rev is not None and game.lobby_rev != rev:
        raise VersionConflict(game.game_id, rev, game.lobby_rev, "lobby_rev")
    return game


def _check_version(game: Game, expected_version: int | None) -> Game:
    if expected_version is not None and game.version != expected_version:
        raise VersionConflict(game.game_id, expected_version, game.version)
    return game


def check_no_clash(chat_id: int, clashing: Game | None) -> None:
    """``migrate_chat``: no game of ``chat_id`` in lobby/playing where the old chat has one."""
    if clashing is not None:
        raise ActiveGameConflict(chat_id, clashing.game_id)


def edit_state(row: Row | None, owner: str, digest: str, busy_since: float) -> str:
    """``begin_edit``'s answer from the message's ``sent_messages`` row (None: a slot not in
    the table): ``"busy"`` while another process's edit begun after ``busy_since`` is in
    flight, ``"shown"`` if the message shows ``digest``, else ``"go"``.  (An edit in flight
    older than that is taken as lost with its process: the message then shows ``shown``
    or that edit, unknown.)"""
    if row is None:
        return "go"
    showing, editor, showing_at = row["showing"], row["editor"], row["showing_at"]
    if showing is not None and editor is not None and str(editor) != owner \
            and showing_at is not None and float(str(showing_at)) > busy_since:
        return "busy"
    if row["shown"] is not None and str(row["shown"]) == digest:
        return "shown"
    return "go"
