"""The facade (``storage.facade.Backend``) over the roles a backend supplies: every role
method reaches the bot through it exactly once, no backend forwards anything itself, and
the storage classes stay shallow (a class and at most one project class above it)."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from typing import Any

import pytest

import storage
from storage import Backend as Store
from storage import Storage as SQLiteStorage
from storage.base import FeedStore
from storage.facade import ROLES, Backend, _Forward
from storage.feed import Fanout
from storage.postgres import PostgresStorage
from storage.postgres.feed import ChangeFeed

REQUESTS = {
    # role method -> the facade's methods that check their arguments and call it
    ("games", "create_game"): ("create_game",),
    ("games", "update_lobby"): ("update_lobby",),
    ("games", "start_game"): ("start_game",),
    ("games", "finish_game"): ("finish_game",),
    ("games", "end_game"): ("expire_game", "mark_broken"),
    ("moves", "append"): ("append_actions",),
}
WRAPPERS = {"append_action": "append_actions"}  # facade methods over another of its own


def _methods(protocol: type) -> list[str]:
    return [name for name, value in vars(protocol).items()
            if inspect.iscoroutinefunction(value) and not name.startswith("_")]


def test_every_role_method_is_on_the_facade_once() -> None:
    reached: dict[str, tuple[str, str]] = {}
    for role, protocol in ROLES.items():
        if role == "feed":  # (used on the role itself: the next test)
            continue
        for name in _methods(protocol):
            facade_names = REQUESTS.get((role, name), (name,))
            for facade_name in facade_names:
                assert facade_name not in reached, (facade_name, reached.get(facade_name))
                reached[facade_name] = (role, name)
                attr = vars(Backend)[facade_name]
                if (role, name) in REQUESTS:  # a method of its own, checking the arguments
                    assert inspect.iscoroutinefunction(attr), facade_name
                    assert f"self.{role}.{name}(" in inspect.getsource(attr), facade_name
                else:
                    assert isinstance(attr, _Forward), facade_name
                    assert (attr.role, attr.name) == (role, name)
    for wrapper, inner in WRAPPERS.items():
        assert wrapper not in reached and inner in reached
        assert f"self.{inner}(" in inspect.getsource(vars(Backend)[wrapper])
    forwards = {n for n, v in vars(Backend).items() if isinstance(v, _Forward)}
    assert forwards <= set(reached)
    public = {n for n in vars(Backend) if not n.startswith("_")}
    assert public == {*reached, *WRAPPERS, "close"}  # nothing else, nothing forgotten
    assert len(reached) + len(WRAPPERS) == 52


@pytest.mark.parametrize("backend_class", [SQLiteStorage, PostgresStorage])
def test_a_backend_forwards_nothing_itself(backend_class: type[Backend]) -> None:
    """A backend class adds only how to open it and its extras: no method of the facade is
    written again on it."""
    assert backend_class.__bases__ == (Backend,)
    public = {n for n in vars(Backend) if not n.startswith("_")}
    assert not public & set(vars(backend_class)) - {"open"}


async def test_a_forwarded_method_is_the_roles_own(store: Store) -> None:
    assert store.get_game == store.games.get_game
    assert store.take_lease == store.coord.take_lease
    assert store.chat_top == store.stats.chat_top
    assert store.upsert_chat == store.people.upsert_chat
    await store.upsert_chat(-7, "group")
    assert (await store.get_chat(-7) or pytest.fail()).kind == "group"


async def test_the_facade_checks_a_request_before_the_backend_sees_it(store: Store) -> None:
    seen: list[Any] = []

    async def append(moves: Any) -> int:
        seen.append(moves)
        return 0

    store.moves.append = append  # type: ignore[method-assign]
    with pytest.raises(ValueError):
        await store.append_action(1, 0, "not json", "{}", deadline=None)
    with pytest.raises(ValueError):
        await store.append_actions(1, 0, [], "{}", deadline=None)
    with pytest.raises(ValueError):
        await store.append_action(1, 0, "{}", "{}", deadline=float("nan"))
    assert seen == []
    sheet = [(1, json.dumps({"a": 1})), (2, "{}"), (1, json.dumps({"a": 2}))]
    await store.append_action(1, 0, "{}", "{}", deadline=None, sheet_rows=sheet, human=True)
    (moves,) = seen
    assert moves.actions == ("{}",) and moves.human is True
    assert moves.sheet_rows == ((1, json.dumps({"a": 2})), (2, "{}"))  # the last data wins


def _storage_classes() -> list[type]:
    classes: list[type] = []
    for info in pkgutil.walk_packages(storage.__path__, "storage."):
        module = importlib.import_module(info.name)
        classes += [c for _, c in inspect.getmembers(module, inspect.isclass)
                    if c.__module__ == info.name]
    return classes


def test_no_storage_class_is_deeper_than_two() -> None:
    """(The exceptions of ``storage.errors`` are a taxonomy to catch by, not counted.)"""
    classes = [c for c in _storage_classes() if not issubclass(c, BaseException)]
    assert SQLiteStorage in classes and Backend in classes and PostgresStorage in classes
    for cls in classes:
        above = [c for c in cls.__mro__[1:] if c.__module__.split(".")[0] == "storage"]
        assert len(above) <= 1, (cls, above)


async def test_the_feed_is_a_role_with_nothing_on_the_facade(store: Store) -> None:
    """``store.feed.subscribe(listener)``, ``store.feed.hear(listener)``,
    ``store.feed.tell(note)``: the feed is used on the role itself (what it tells is no
    game's data: listeners and notes), so the facade has no method for it."""
    assert ROLES["feed"] is FeedStore
    assert _methods(FeedStore) == ["tell"]
    assert not {"subscribe", "hear", "tell", "note_bytes"} & set(vars(Backend))
    expected = ChangeFeed if isinstance(store, PostgresStorage) else Fanout
    assert type(store.feed) is expected
