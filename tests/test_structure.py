"""The shape of the code: short class chains and no import circle in the product.

* No class of the project inherits from a project class that itself inherits from another
  project class (a chain of at most two of the project's classes; the library's classes
  below them do not count): behaviour is added by composition (``bot/tg/io/observe.py``
  wraps python-telegram-bot's request and update processor instead of subclassing them).
  Exceptions are left out: their classes are what ``except`` picks by (``storage/errors.py``:
  ``StorageBusy`` is a ``StorageUnavailable`` is a ``StorageFailure``), not shared code.
* The product (``bot``, ``storage``) has no import circle between its modules.

Each checker is also run on a small tree made to break it, so that a checker that cannot
fail is noticed.
"""

from __future__ import annotations

import ast
import builtins
import graphlib
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "storage", "bench")
PRODUCT = ("bot", "storage")
MAX_DEPTH = 2
BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException))


# ------------------------------------------------------------------ class chains


@dataclass
class _Module:
    name: str
    is_package: bool
    classes: dict[str, list[ast.expr]] = field(default_factory=dict)  # name -> bases
    names: dict[str, str] = field(default_factory=dict)  # local name -> dotted target


def _absolute(module: _Module, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    parts = module.name.split(".")
    base = parts if module.is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def _read(root: Path, packages: tuple[str, ...]) -> dict[str, _Module]:
    modules: dict[str, _Module] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            is_package = rel.name == "__init__"
            parts = rel.parts[:-1] if is_package else rel.parts
            module = _Module(".".join(parts), is_package)
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):  # classes and imports inside functions count too
                if isinstance(node, ast.ClassDef):
                    module.classes[node.name] = list(node.bases)
                    module.names[node.name] = f"{module.name}.{node.name}"
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.asname:
                            module.names[alias.asname] = alias.name
                        else:
                            top = alias.name.split(".")[0]
                            module.names[top] = top
                elif isinstance(node, ast.ImportFrom):
                    source = _absolute(module, node.level, node.module)
                    for alias in node.names:
                        module.names[alias.asname or alias.name] = f"{source}.{alias.name}"
            modules[module.name] = module
    return modules


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        left = _dotted(expr.value)
        return None if left is None else f"{left}.{expr.attr}"
    if isinstance(expr, ast.Subscript):  # Generic[T], Application[Any, ...]
        return _dotted(expr.value)
    return None


def _resolve(modules: dict[str, _Module], dotted: str, seen: frozenset[str] = frozenset()
             ) -> str | None:
    """The project class ``dotted`` (``pkg.mod.Class``) names, following re-exports; None
    for anything that is not a class of the project."""
    if dotted in seen:
        return None
    module_name, _, name = dotted.rpartition(".")
    module = modules.get(module_name)
    if module is None:
        return None
    if name in module.classes:
        return dotted
    if dotted in modules:  # a module, not a class
        return None
    target = module.names.get(name)
    return None if target is None else _resolve(modules, target, seen | {dotted})


def _bases(modules: dict[str, _Module], module: _Module, name: str) -> list[str]:
    found = []
    for expr in module.classes[name]:
        dotted = _dotted(expr)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        if head == name and not rest:
            continue  # class X(X) cannot name itself; a same-named import is a library's
        target = module.names.get(head)
        if target is None:
            continue  # a builtin
        full = f"{target}.{rest}" if rest else target
        resolved = _resolve(modules, full)
        if resolved is not None:
            found.append(resolved)
    return found


def class_chains(root: Path, packages: tuple[str, ...], *, exceptions: bool = False
                 ) -> dict[str, list[str]]:
    """Each project class with the longest chain of project classes it heads (itself
    first, then its project base, that base's project base, ...); exception classes only
    with ``exceptions``."""
    modules = _read(root, packages)
    bases = {f"{m.name}.{c}": _bases(modules, m, c) for m in modules.values() for c in m.classes}
    builtin_base = {f"{m.name}.{c}" for m in modules.values() for c, exprs in m.classes.items()
                    if any(isinstance(e, ast.Name) and e.id in BUILTIN_EXCEPTIONS
                           and e.id not in m.names for e in exprs)}

    def is_exception(cls: str, path: tuple[str, ...] = ()) -> bool:
        return cls in builtin_base or any(
            is_exception(b, (*path, cls)) for b in bases.get(cls, []) if b not in path)

    if not exceptions:
        bases = {cls: found for cls, found in bases.items() if not is_exception(cls)}
    chains: dict[str, list[str]] = {}

    def chain(cls: str, path: tuple[str, ...]) -> list[str]:
        if cls in chains:
            return chains[cls]
        longest: list[str] = []
        for base in bases.get(cls, []):
            if base not in path:
                below = chain(base, (*path, cls))
                if len(below) > len(longest):
                    longest = below
        chains[cls] = [cls, *longest]
        return chains[cls]

    for cls in bases:
        chain(cls, ())
    return chains


def too_deep(root: Path, packages: tuple[str, ...]) -> list[str]:
    return sorted(" -> ".join(c) for c in class_chains(root, packages).values()
                  if len(c) > MAX_DEPTH)


def test_no_project_class_chain_longer_than_two() -> None:
    chains = class_chains(ROOT, PACKAGES)
    assert len(chains) > 100  # the checker sees the project's classes
    assert too_deep(ROOT, PACKAGES) == []


def test_the_chain_checker_catches_a_chain_of_three(tmp_path: Path) -> None:
    """Through an aliased module, a re-export in ``__init__`` and a generic subscript, as
    ``bot/tg/io/app.py`` once had ``MeasuredRequest(_Measured, ObservedRequest)``."""
    pkg = tmp_path / "p"
    (pkg / "io").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "io" / "__init__.py").write_text("from .base import Observed\n")
    (pkg / "io" / "base.py").write_text(textwrap.dedent("""
        from typing import Generic, TypeVar
        from telegram.request import HTTPXRequest
        T = TypeVar("T")
        class Observed(HTTPXRequest, Generic[T]):
            pass
    """))
    (pkg / "app.py").write_text(textwrap.dedent("""
        import p.io as io
        from .io import Observed
        class Measured(io.Observed[int]):
            pass
        class Fine(Observed):
            pass
        def build():
            class Deeper(Measured):
                pass
            return Deeper
    """))
    (pkg / "errors.py").write_text(textwrap.dedent("""
        class Failure(Exception):
            pass
        class Unavailable(Failure):
            pass
        class Busy(Unavailable, LookupError):
            pass
    """))
    assert too_deep(tmp_path, ("p",)) == [
        "p.app.Deeper -> p.app.Measured -> p.io.base.Observed",
    ]
    assert "p.errors.Busy" not in class_chains(tmp_path, ("p",))
    assert class_chains(tmp_path, ("p",), exceptions=True)["p.errors.Busy"] == [
        "p.errors.Busy", "p.errors.Unavailable", "p.errors.Failure"]
    assert class_chains(tmp_path, ("p",))["p.app.Fine"] == ["p.app.Fine", "p.io.base.Observed"]


# ------------------------------------------------------------------ import circles


def import_circle(graph: grimp.ImportGraph, packages: tuple[str, ...]) -> list[str]:
    """One circle of imports between modules of ``packages`` (empty: there is none)."""
    inside = {m for m in graph.modules if m.split(".")[0] in packages}
    sorter = graphlib.TopologicalSorter(
        {m: graph.find_modules_directly_imported_by(m) & inside for m in inside})
    try:
        sorter.prepare()
    except graphlib.CycleError as e:
        return list(e.args[1])
    return []


def test_the_product_has_no_import_circle() -> None:
    graph = grimp.build_graph(*PRODUCT)
    assert "bot.ai.bidding" in graph.modules and "storage.base" in graph.modules
    assert import_circle(graph, PRODUCT) == []


def test_the_circle_finder_finds_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "circ"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from circ import b\n")
    (pkg / "b.py").write_text("def f():\n    from circ.c import x\n    return x\n")
    (pkg / "c.py").write_text("from . import a\nx = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    circle = import_circle(grimp.build_graph("circ", cache_dir=None), ("circ",))
    assert set(circle) == {"circ.a", "circ.b", "circ.c"}
