"""The rooms of the Telegram layer (bot/tg/rooms) are objects that talk only downwards.

The import-linter contract "Rooms call only the rooms below them" (pyproject.toml) orders
the room modules; this test reads that order and checks the code against it:

* no room class inherits from another room;
* a room is handed (``__init__``) only rooms of a lower layer;
* a room uses another room only by calling one of its public methods — no attribute of
  another room is read or written, no private method called;
* nothing in a room module touches a private attribute of anything but ``self``; neither
  do the handlers and the application that call the rooms (``bot/tg/io``).
"""

from __future__ import annotations

import ast
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROOMS = ROOT / "bot" / "tg" / "rooms"
CONTRACT = "Rooms call only the rooms below them"


def layers() -> dict[str, int]:
    """Room module name -> its layer (0 is the top) from the import-linter contract."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["name"].startswith(CONTRACT):
            assert contract["containers"] == ["bot.tg.rooms"]
            return {name.strip(): i for i, layer in enumerate(contract["layers"])
                    for name in layer.replace(":", "|").split("|")}
    raise AssertionError(f"no import-linter contract {CONTRACT!r}")


@dataclass
class Room:
    name: str
    module: str
    layer: int
    node: ast.ClassDef
    methods: set[str] = field(default_factory=set)


def rooms(sources: dict[str, str]) -> dict[str, Room]:
    """Every class named ``*Room`` in the room modules."""
    order = layers()
    found: dict[str, Room] = {}
    for module, text in sources.items():
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef) and node.name.endswith("Room"):
                assert module in order, f"{module}.py is not in the layers of {CONTRACT!r}"
                found[node.name] = Room(node.name, module, order[module], node, {
                    f.name for f in node.body
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))})
    return found


def _name(annotation: ast.expr | None) -> str | None:
    if isinstance(annotation, ast.Name):
        return annotation.id
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value
    return None


def neighbours(room: Room, known: dict[str, Room]) -> dict[str, Room]:
    """``self.<attribute>`` -> the room it holds, from ``__init__``'s annotated parameters."""
    init = next((f for f in room.node.body
                 if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return {}
    params = {a.arg: known[n] for a in init.args.args + init.args.kwonlyargs
              if (n := _name(a.annotation)) in known}
    held: dict[str, Room] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) \
                and node.value.id in params:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    held[target.attr] = params[node.value.id]
    return held


def problems(sources: dict[str, str]) -> list[str]:
    """What breaks the rules above, one line each (empty: none)."""
    known = rooms(sources)
    out: list[str] = []
    for room in known.values():
        where = f"{room.module}.py: {room.name}"
        for base in room.node.bases:
            if _name(base) in known:
                out.append(f"{where} inherits from the room {_name(base)}")
        held = neighbours(room, known)
        for attr, other in held.items():
            if other.layer <= room.layer:
                out.append(f"{where} is handed {other.name} (self.{attr}), "
                           f"which is not below it")
        calls = {id(n.func) for n in ast.walk(room.node) if isinstance(n, ast.Call)}
        for node in ast.walk(room.node):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                    and isinstance(node.value.value, ast.Name)
                    and node.value.value.id == "self" and node.value.attr in held):
                continue
            other = held[node.value.attr]
            what = f"self.{node.value.attr}.{node.attr}"
            if id(node) not in calls:
                out.append(f"{where}:{node.lineno} reaches into {other.name}: {what}")
            elif node.attr.startswith("_") or node.attr not in other.methods:
                out.append(f"{where}:{node.lineno} calls {what}, not a public method of "
                           f"{other.name}")
    for module, text in sources.items():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") \
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in ("self", "cls")):
                out.append(f"{module}.py:{node.lineno} touches a private attribute: "
                           f"{ast.unparse(node)}")
    return out


def room_sources() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(ROOMS.glob("*.py"))
            if p.stem != "__init__"}


def test_the_rooms_talk_only_downwards_through_public_methods() -> None:
    sources = room_sources()
    found = rooms(sources)
    assert {"TableRoom", "LobbyRoom", "MembershipRoom", "RestoreRoom", "RatingsRoom",
            "HintsRoom", "MediaRoom", "CommandsRoom", "ButtonsRoom"} <= set(found)
    assert problems(sources) == []


def test_the_handlers_use_only_what_the_rooms_make_public() -> None:
    io = ROOT / "bot" / "tg" / "io"
    sources = {f"io/{name}": (io / f"{name}.py").read_text(encoding="utf-8")
               for name in ("handlers", "app")}
    assert problems(sources) == []
    poked = sources["io/handlers"].replace(".commands.newgame(", ".commands._newgame(", 1)
    assert poked != sources["io/handlers"]
    assert any("touches a private attribute" in p for p in problems({"io/handlers": poked}))


def test_the_check_finds_each_kind_of_violation() -> None:
    """The check itself: each rule broken once in a copy of the real rooms is reported."""
    sources = room_sources()
    table, lobby = sources["table"], sources["lobby"]
    upward = table.replace("    def __init__(self, kit: Kit, hooks: TableHooks) -> None:\n",
                           "    def __init__(self, kit: Kit, hooks: TableHooks, "
                           "lobby: LobbyRoom) -> None:\n        self.lobby = lobby\n", 1)
    upward += "\n\ndef _x(self: TableRoom) -> None:\n    pass\n"
    assert upward != table
    assert any("TableRoom is handed LobbyRoom" in p
               for p in problems({**sources, "table": upward}))
    inherits = lobby.replace("class LobbyRoom:", "class LobbyRoom(TableRoom):", 1)
    assert any("LobbyRoom inherits from the room TableRoom" in p
               for p in problems({**sources, "lobby": inherits}))
    private = lobby.replace("self.table.refresh(s)", "self.table._commit(s)", 1)
    assert private != lobby
    assert any("calls self.table._commit" in p for p in problems({**sources, "lobby": private}))
    reach = lobby.replace("self.table.refresh(s)", "self.table.hooks.reload(s)", 1)
    assert any("reaches into TableRoom: self.table.hooks" in p
               for p in problems({**sources, "lobby": reach}))
    poke = lobby.replace("self.table.refresh(s)", "s._secret = 1", 1)
    assert any("touches a private attribute: s._secret" in p
               for p in problems({**sources, "lobby": poke}))
