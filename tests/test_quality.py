"""The project's static checks run with the tests: ruff, mypy --strict and the import contracts
(the engine stays pure: no asyncio, telegram or sqlite; storage imports nothing from bot)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_ruff_clean() -> None:
    res = run(str(BIN / "ruff"), "check", "bot", "storage", "bench", "tests")
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_strict_clean() -> None:
    res = run(sys.executable, "-m", "mypy")
    assert res.returncode == 0, res.stdout + res.stderr


def test_import_contracts_kept() -> None:
    res = run(str(BIN / "lint-imports"), "--no-cache")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "broken" not in res.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize("forbidden", ["asyncio", "telegram", "sqlite3", "aiosqlite", "storage"])
def test_engine_imports_no_io(forbidden: str) -> None:
    """Belt and braces beside import-linter: no engine module names an I/O package."""
    for path in (ROOT / "bot" / "engine").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                words = stripped.replace(",", " ").split()
                assert forbidden not in words and not any(
                    w.startswith(forbidden + ".") for w in words
                ), f"{path.name}: {stripped}"
