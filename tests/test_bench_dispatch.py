"""``python -m bot bench ...`` and ``python -m bot arena ...`` run the checkout's ``bench/``
package, which is not part of the product: without it (an installed package) the command
says so and exits 2."""

from __future__ import annotations

import fnmatch
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import _arena, _bench, main

ROOT = Path(__file__).resolve().parent.parent


def test_without_a_checkout_it_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _bench(["storage", "--games", "1"], root=tmp_path) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("the benchmarks need a source checkout: ")


def test_an_unknown_benchmark_prints_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "nonsense"]) == 2
    err = capsys.readouterr().err
    for name in ("engine", "bot", "hints", "pictures", "storage", "restart"):
        assert f"  {name} " in err


def test_it_runs_from_any_directory(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "bot", "bench", "engine", "--deals", "5"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr
    assert "engine benchmark:" in res.stdout and "deals/s" in res.stdout


def test_the_arena_without_a_checkout_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _arena(["--a", "normal", "--b", "random", "--deals", "1"], root=tmp_path) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("the arena needs a source checkout: ")
    assert "python -m bot arena" in lines[0] and str(tmp_path) in lines[0]


def test_the_arena_runs_from_any_directory(tmp_path: Path) -> None:
    """``python -m bot arena`` plays from the checkout's ``bench/arena`` wherever it runs;
    a bad level is refused with one line and 2, as before the arena left ``bot/ai``."""
    res = subprocess.run(
        [sys.executable, "-m", "bot", "arena", "--a", "normal", "--b", "random", "--deals",
         "1", "--quiet", "--seed", "5"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 0, res.stderr
    assert "A - B:" in res.stdout and "decision time normal" in res.stdout
    res = subprocess.run(
        [sys.executable, "-m", "bot", "arena", "--a", "normal", "--b", "clever"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert res.returncode == 2 and "clever" in res.stderr


def test_the_wheel_leaves_the_benchmarks_out() -> None:
    """The packages setuptools puts in the wheel: pyproject's ``packages.find`` patterns
    matched against the checkout's packages, as ``find_packages`` matches them."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'include = ["bot*", "storage*"]' in text
    found = {
        ".".join(path.relative_to(ROOT).parts[:-1])
        for path in ROOT.glob("*/**/__init__.py")
        if not path.relative_to(ROOT).parts[0].startswith(".")
    }
    packages = [p for p in found
                if any(fnmatch.fnmatchcase(p, pattern) for pattern in ("bot*", "storage*"))]
    assert "bot" in packages and "storage.sqlite" in packages and "storage.postgres" in packages
    assert not [p for p in packages if p == "bench" or p.startswith("bench.")]
    # the tools that measure the computer players left the product with the benchmarks
    assert "bench.arena" in found and "bot.ai" in packages
    assert not [m for m in ("arena", "tune", "remote")
                if (ROOT / "bot" / "ai" / f"{m}.py").exists()]
