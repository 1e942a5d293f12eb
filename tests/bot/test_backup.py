"""``python -m bot backup FILE`` (issue 22): a copy of the running bot's SQLite database,
made while the games go on, restored into a bot that resumes every game."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.__main__ import main
from bot.cli.backup import BackupError, backup
from storage import SCHEMA_VERSION
from tests.bot.helpers import idle, play, running, service, start_private
from tests.fakeapi import FakeTelegramServer


async def test_backup_during_play_and_restore(server: FakeTelegramServer, db: Path,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    anna, boris = server.add_user(2401, "Анна"), server.add_user(2402, "Boris")
    copy = tmp_path / "backup" / "copy.sqlite3"
    copy.parent.mkdir()
    async with running(server, db) as app:
        await start_private(server, anna, boris)
        games = {}
        for person in (anna, boris):
            await server.send_text(person, person, "/newgame 2")
            games[person.id] = await server.wait_for(
                lambda: service(app).by_chat.get(person.id))  # noqa: B023 (awaited here)
        await play(server, app, games[anna.id], {0: anna}, max_moves=4, timeout=20)
        # the copy is made while Anna and Boris keep playing (the bot writes meanwhile)
        code, pressed = await asyncio.gather(
            asyncio.to_thread(main, ["backup", str(copy), "--from", str(db)]),
            play(server, app, games[boris.id], {0: boris}, max_moves=6, timeout=20))
        assert code == 0 and pressed == 6
        await play(server, app, games[anna.id], {0: anna}, max_moves=2, timeout=20)
        await idle(app)
    out = capsys.readouterr().out
    assert f"to {copy}: 2 games (2 in progress)" in out and "integrity ok" in out
    with sqlite3.connect(copy) as c:
        assert c.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert c.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        assert c.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    assert not (copy.parent / "copy.sqlite3.part").exists()
    # an existing file is never overwritten
    assert main(["backup", str(copy), "--from", str(db)]) == 1
    assert "exists" in capsys.readouterr().err
    # restore: the copy becomes a new bot's database; every game resumes and finishes
    restored = tmp_path / "restored.sqlite3"
    restored.write_bytes(copy.read_bytes())
    async with running(server, restored) as app:
        await idle(app)
        for person in (anna, boris):
            gid = games[person.id]
            await server.send_text(person, person, "/table")
            await server.wait_for(lambda: gid in service(app).sessions,  # noqa: B023
                                  10, what="the game rebuilt")
            s = service(app).sessions[gid]
            assert s.status == "playing"
            await play(server, app, gid, {0: person}, timeout=30)
            game = await service(app).storage.get_game(gid)
            assert game is not None and game.status == "finished"
        await idle(app)


def test_backup_refuses_what_it_cannot_check(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="no database"):
        backup(tmp_path / "missing.sqlite3", tmp_path / "b.sqlite3")
    old = tmp_path / "old.sqlite3"
    with sqlite3.connect(old) as c:
        c.execute("PRAGMA user_version = 1")
    with pytest.raises(BackupError, match="schema version 1"):
        backup(old, tmp_path / "b.sqlite3")
    assert not (tmp_path / "b.sqlite3").exists()


def test_backup_of_postgres_points_to_pg_dump(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:p@h/db")
    assert main(["backup", "x.sqlite3"]) == 2
    assert "pg_dump" in capsys.readouterr().err
