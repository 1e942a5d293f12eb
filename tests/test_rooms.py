"""The rooms of the Telegram layer (bot/tg/rooms) are objects that talk only downwards.

The import-linter contract "Rooms call only the rooms below them" (pyproject.toml) orders
the room modules; this test reads that order and checks the code against it:

* no room class inherits from another room;
* a room is handed (``__init__``) only rooms of a lower layer;
* a room uses another room only by calling one of its public methods — no attribute of
  another room is read or written, no private method called;
* nothing in a room module touches a private attribute of anything but ``self``; neither
  do the handlers and the application that call the rooms (``bot/tg/io``);
* a table's fields (``OWNED``: its record, version, status, seats and rules, typed
  settings and message ids, …) are assigned — or changed in place, a seat's record
  included — only by their owner, ``owner.py`` (``table_fields_assigned_elsewhere``);
* no room and not the owner assigns a callback or an attribute of another object
  (``self.outbox.on_forbidden = …``, ``kit.tasks.on_died = …``) or subscribes a listener:
  the composition root, ``service.py``, is the only place that wires them
  (``wiring_outside_the_root``).
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
    table, lobby, keepers = sources["table"], sources["lobby"], sources["keepers"]
    upward = table.replace(
        "    def __init__(self, kit: Kit, owner: TableOwner, hooks: TableHooks) -> None:\n",
        "    def __init__(self, kit: Kit, owner: TableOwner, hooks: TableHooks, "
        "lobby: LobbyRoom) -> None:\n        self.lobby = lobby\n", 1)
    upward += "\n\ndef _x(self: TableRoom) -> None:\n    pass\n"
    assert upward != table
    assert any("TableRoom is handed LobbyRoom" in p
               for p in problems({**sources, "table": upward}))
    inherits = lobby.replace("class LobbyRoom:", "class LobbyRoom(TableRoom):", 1)
    assert any("LobbyRoom inherits from the room TableRoom" in p
               for p in problems({**sources, "lobby": inherits}))
    private = keepers.replace("self.table.info(s, ", "self.table._info(s, ", 1)
    assert private != keepers
    assert any("calls self.table._info" in p
               for p in problems({**sources, "keepers": private}))
    reach = keepers.replace("self.table.info(s, ", "self.table.hooks.info(s, ", 1)
    assert any("reaches into TableRoom: self.table.hooks" in p
               for p in problems({**sources, "keepers": reach}))
    poke = keepers.replace("        s.keepers_menu = page\n", "        s._secret = 1\n", 1)
    assert any("touches a private attribute: s._secret" in p
               for p in problems({**sources, "keepers": poke}))


# ---------------------------------------------------------------- the table's owner

OWNER = "owner"  # the module whose code alone assigns a table's fields
ROOT_MODULE = "service"  # the composition root: the only module that wires
OWNED = frozenset({"state", "store_version", "status", "lobby_rev", "note", "level",
                   "settings", "messages", "seats", "rules"})
"""The fields of a table (``Session``) that only its owner assigns."""
SEAT_FIELDS = frozenset({"kind", "user_id", "name", "level", "auto", "why"})
"""The fields of a seat's record (``SeatInfo``, in ``Session.seats``): only the owner
changes them, also through a name bound to the record (``who = s.seats[i]``, ``for place
in s.seats``)."""
MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear",
                      "setdefault", "update", "add", "discard", "__setitem__",
                      "__delitem__"})


def _chain(node: ast.expr) -> tuple[ast.expr, list[str]]:
    """The root of ``a.b[c].d`` (``a``) and the attribute names on the way (b, d)."""
    names: list[str] = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.value
    return node, names[::-1]


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        out: list[ast.expr] = []
        for t in node.targets:
            out.extend(t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
        return out
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    return []


def _is_seats(node: ast.expr, *, walked: bool = False) -> bool:
    """``s.seats`` (a table's list of seats); ``walked``: also ``enumerate(s.seats)`` and
    the like, whose items are the seats' records."""
    if walked and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("enumerate", "reversed", "list", "sorted", "tuple") \
            and node.args:
        node = node.args[0]
    return isinstance(node, ast.Attribute) and node.attr == "seats"


def _seat_names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names bound to a table's list of seats (``seats = s.seats``) and to one of its
    seat records (``who = s.seats[i]``, ``for place in s.seats``, ``for i, x in
    enumerate(s.seats)``)."""
    lists: set[str] = set()
    records: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if not isinstance(t, ast.Name):
                    continue
                if _is_seats(node.value):
                    lists.add(t.id)
                elif isinstance(node.value, ast.Subscript) and _is_seats(node.value.value):
                    records.add(t.id)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) \
                and _is_seats(node.iter, walked=True):
            target = node.target
            if isinstance(target, ast.Tuple) and target.elts:
                target = target.elts[-1]
            if isinstance(target, ast.Name):
                records.add(target.id)
    return lists, records


def table_fields_assigned_elsewhere(sources: dict[str, str]) -> list[str]:
    """Assignments (``=``, ``+=``, ``del``, and in-place changes such as ``.pop``) of a
    table's ``OWNED`` fields, or of anything inside them (a seat's record included, also
    through a name bound to it), outside the owner's module."""
    out: list[str] = []
    for module, text in sources.items():
        if module == OWNER:
            continue
        tree = ast.parse(text)
        lists, records = _seat_names(tree)
        for node in ast.walk(tree):
            changed: list[ast.expr] = [t for t in _targets(node)
                       if isinstance(t, (ast.Attribute, ast.Subscript))]
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in MUTATORS:
                changed.append(node.func.value)
            for target in changed:
                root, names = _chain(target)
                if isinstance(root, ast.Name) and root.id in ("self", "cls") \
                        and names[:1] and names[0] not in OWNED:
                    continue  # (an object's own attribute, not a table's)
                hit: set[str] = set(OWNED.intersection(names))
                if isinstance(root, ast.Name) and (
                        root.id in lists
                        or (root.id in records and SEAT_FIELDS.intersection(names[:1]))):
                    hit = {"seats"}  # (through a name bound to the seats or to a seat)
                if hit:
                    out.append(f"{module}.py:{target.lineno} assigns the table's "
                               f"{sorted(hit)[0]} (only its owner may): "
                               f"{ast.unparse(target)}")
    return out


def wiring_outside_the_root(sources: dict[str, str]) -> list[str]:
    """Callbacks or attributes of another object assigned (``self.outbox.on_x = …``,
    ``kit.tasks.on_died = …``: anything but ``self.<attribute>`` and a local's field), or
    listeners subscribed, outside the composition root."""
    out: list[str] = []
    for module, text in sources.items():
        if module == ROOT_MODULE:
            continue
        tree = ast.parse(text)
        params = {a.arg for f in ast.walk(tree)
                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for a in f.args.args + f.args.kwonlyargs
                  if _name(a.annotation) in ("Kit", "Outbox", "Tasks", "Registry", "Bus",
                                             "TableHooks", "TableOwner")
                  or _name(a.annotation) in {r for r in KNOWN_ROOMS}}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "subscribe":
                out.append(f"{module}.py:{node.lineno} subscribes a listener: "
                           f"{ast.unparse(node.func)}")
            for target in _targets(node):
                if not isinstance(target, ast.Attribute):
                    continue
                root, names = _chain(target)
                if not isinstance(root, ast.Name):
                    continue
                if (root.id == "self" and len(names) >= 2) or root.id in params:
                    out.append(f"{module}.py:{target.lineno} wires another object's "
                               f"attribute: {ast.unparse(target)}")
    return out


KNOWN_ROOMS = ("TableRoom", "LobbyRoom", "MembershipRoom", "RestoreRoom", "RatingsRoom",
               "HintsRoom", "MediaRoom", "CommandsRoom", "ButtonsRoom", "KeepersRoom",
               "InlineRoom")


def test_a_tables_fields_are_assigned_only_by_its_owner() -> None:
    assert (ROOMS / f"{OWNER}.py").exists()
    assert table_fields_assigned_elsewhere(room_sources()) == []


def test_only_the_composition_root_wires_listeners_and_callbacks() -> None:
    sources = room_sources()
    assert ROOT_MODULE in sources and "subscribe(" in sources[ROOT_MODULE]
    assert wiring_outside_the_root(sources) == []


def test_the_owner_check_catches_each_kind_of_violation() -> None:
    """The two checks above, fed bad code: each violation is reported (and the same code
    in the owner's module, or a room's own attribute, is not)."""
    bad = {
        's.status = "finished"': "assigns the table's status",
        "s.store_version += 1": "assigns the table's store_version",
        "s.settings = Settings(pace='quick')": "assigns the table's settings",
        "s.messages.hands[0] = shown": "assigns the table's messages",
        "del s.messages.hands[0]": "assigns the table's messages",
        "s.messages.pings.pop(1, None)": "assigns the table's messages",
        "s.seats, s.note = [], ''": "assigns the table's note",
        "other.state = None": "assigns the table's state",
        "s.seats[0] = shown": "assigns the table's seats",
        "s.seats.append(shown)": "assigns the table's seats",
        "del s.seats[1:]": "assigns the table's seats",
        "s.seats[2].auto = True": "assigns the table's seats",
        "s.rules = shown": "assigns the table's rules",
        "who = s.seats[0]\n    who.why = 'away'": "assigns the table's seats",
        "for place in s.seats:\n        place.level = 'strong'": "assigns the table's seats",
        "for i, x in enumerate(s.seats):\n        x.auto = False": "assigns the table's seats",
        "seats = s.seats\n    seats.pop()": "assigns the table's seats",
    }
    for line, want in bad.items():
        source = f"def f(self, s, other, shown):\n    {line}\n"
        found = table_fields_assigned_elsewhere({"lobby": source})
        assert any(want in p for p in found), (line, found)
        assert table_fields_assigned_elsewhere({OWNER: source}) == []
    fine = "def f(self, s):\n    self.asked = set()\n    s.keepers_menu = ''\n    x = s.status\n"
    assert table_fields_assigned_elsewhere({"keepers": fine}) == []
    # a room's own list of seats (a new table's, before it exists) and reading a seat
    built = ("def f(self, s, game):\n    seats = seats_from_json(game.seats)\n"
             "    seats[0] = SeatInfo('human', 1, 'A', '')\n    seats.append(seats[0])\n"
             "    who = s.seats[0]\n    name = who.name\n    s.kind = 'supergroup'\n")
    assert table_fields_assigned_elsewhere({"lobby": built}) == []
    # the real rooms, with one table field assigned by a room
    sources = room_sources()
    poked = sources["keepers"].replace("s.keepers_menu = page", "s.status = page", 1)
    assert poked != sources["keepers"]
    assert any("keepers.py" in p and "status" in p
               for p in table_fields_assigned_elsewhere({**sources, "keepers": poked}))
    # … and the real lobby, sitting a person down itself again
    lobby = sources["lobby"]
    sits = lobby.replace('self.owner.seat(s, SeatInfo("human", user.id, user.name, ""))',
                         's.seats.append(SeatInfo("human", user.id, user.name, ""))', 1)
    assert sits != lobby
    assert any("lobby.py" in p and "seats" in p
               for p in table_fields_assigned_elsewhere({**sources, "lobby": sits}))


def test_the_wiring_check_catches_each_kind_of_violation() -> None:
    bad = {
        "self.outbox.on_forbidden = self.user_blocked": "wires another object's attribute",
        "self.kit.tasks.on_died = self.resume": "wires another object's attribute",
        "kit.registry.rebuild = self.rebuild": "wires another object's attribute",
        "table.hooks = None": "wires another object's attribute",
        "bus.subscribe(MovesStored, self.moved)": "subscribes a listener",
    }
    for line, want in bad.items():
        source = (f"class XRoom:\n    def __init__(self, kit: Kit, table: TableRoom, bus: Bus"
                  f") -> None:\n        {line}\n")
        found = wiring_outside_the_root({"membership": source})
        assert any(want in p for p in found), (line, found)
        assert wiring_outside_the_root({ROOT_MODULE: source}) == []
    fine = ("class XRoom:\n    def __init__(self, kit: Kit) -> None:\n"
            "        self.outbox = kit.outbox\n        self.asked = set()\n")
    assert wiring_outside_the_root({"membership": fine}) == []
    sources = room_sources()
    poked = sources["table"].replace("        self.hooks = hooks\n",
                                     "        self.hooks = hooks\n"
                                     "        kit.tasks.on_died = self.resume\n", 1)
    assert poked != sources["table"]
    assert any("table.py" in p and "kit.tasks.on_died" in p
               for p in wiring_outside_the_root({**sources, "table": poked}))
