"""``python -m bot bench storage``: it runs, stores every move, and reports its figures."""

from __future__ import annotations

import re

import pytest

import storage
from bench.storage import play_script
from bot.__main__ import main


def test_a_script_is_what_the_bot_stores() -> None:
    script = play_script(7, 60)
    assert len(script.moves) == 60
    assert all('"by"' in m.action and '"version"' in m.snapshot for m in script.moves)
    assert any(m.sheet_rows for m in script.moves)  # a deal ended within 60 moves
    assert {m.human for m in script.moves} == {True, False}


def test_bench_storage_runs_both_paths(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "storage", "--games", "4", "--moves", "80", "--compare"]) == 0
    out = capsys.readouterr().out
    assert out.count("80 moves in") == 3
    per_move = re.findall(r"per move: ([\d.]+) statements .*?, ([\d.]+) thread hops", out)
    assert len(per_move) == 3
    (now_statements, now_hops), alone, (old_statements, old_hops) = per_move
    assert alone == (now_statements, now_hops)
    assert float(now_hops) == 1.0 < float(old_hops)
    assert float(now_statements) < float(old_statements)
    assert "an unchanged upsert_user: 0 statements, 0 thread hops" in out


def test_a_database_url_needs_open_storage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delattr(storage, "open_storage", raising=False)
    assert main(["bench", "storage", "--games", "1", "--moves", "1",
                 "--database-url", "postgresql://127.0.0.1:1/x"]) == 2
    assert "storage.open_storage" in capsys.readouterr().err
