"""``python -m bot backup FILE [--from SQLITE_PATH]``: a consistent copy of a running bot's
SQLite database, made with SQLite's online backup API, then checked.

The copy is taken in one step of ``sqlite3.Connection.backup`` (the source in WAL mode: a
read transaction sees one committed state while the bot keeps writing beside it, since in
WAL mode readers never block writers); it is written to ``FILE.part`` as a single file
(``journal_mode=DELETE``), checked with ``PRAGMA integrity_check`` and its schema version
(``PRAGMA user_version``, which must be the bot's), and only then renamed to FILE.  An
existing FILE is never overwritten.  The source defaults to DATABASE_PATH (or
thousand.sqlite3).  Restoring: docs/deploy.md, "Backups".  PostgreSQL (DATABASE_URL): use
``pg_dump``.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

from storage.sqlite.schema import SCHEMA_VERSION


class BackupError(Exception):
    """The copy could not be made or did not pass its checks (one line)."""


def backup(source: str | Path, target: str | Path, *, busy_timeout: float = 30.0) -> dict[
        str, int | float]:
    """Copy ``source`` to ``target`` (which must not exist); returns the figures printed."""
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    if target.exists():
        raise BackupError(f"{target} exists: not overwritten")
    part = target.with_name(target.name + ".part")
    part.unlink(missing_ok=True)
    started = time.perf_counter()
    src = sqlite3.connect(source, timeout=busy_timeout)  # read only (WAL: -shm is written)
    try:
        version = int(src.execute("PRAGMA user_version").fetchone()[0])
        if version != SCHEMA_VERSION:
            raise BackupError(f"{source} has schema version {version}, this bot "
                              f"{SCHEMA_VERSION}: back up with the bot's own version")
        dst = sqlite3.connect(part)
        try:
            src.backup(dst)  # pages=-1: all in one step, one consistent state
            dst.execute("PRAGMA journal_mode=DELETE")
            checked = dst.execute("PRAGMA integrity_check").fetchall()
            copied = int(dst.execute("PRAGMA user_version").fetchone()[0])
            games = int(dst.execute("SELECT count(*) FROM games").fetchone()[0])
            playing = int(dst.execute(
                "SELECT count(*) FROM games WHERE status IN ('lobby', 'playing')"
            ).fetchone()[0])
        finally:
            dst.close()
    except sqlite3.Error as e:
        part.unlink(missing_ok=True)
        raise BackupError(f"{source}: {e}") from None
    finally:
        src.close()
    if checked != [("ok",)] or copied != SCHEMA_VERSION:
        part.unlink(missing_ok=True)
        problem = "; ".join(str(r[0]) for r in checked[:3])
        raise BackupError(f"the copy failed its check: integrity {problem!r}, "
                          f"schema version {copied}")
    os.replace(part, target)
    return {"games": games, "in_progress": playing, "schema_version": copied,
            "bytes": target.stat().st_size, "seconds": time.perf_counter() - started}


def backup_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bot backup",
                                description="Back up the running bot's SQLite database.")
    p.add_argument("file", help="the backup to write (must not exist)")
    p.add_argument("--from", dest="source", metavar="SQLITE_PATH",
                   default=os.environ.get("DATABASE_PATH") or "thousand.sqlite3",
                   help="the bot's database (default: DATABASE_PATH or thousand.sqlite3)")
    args = p.parse_args(argv)
    if os.environ.get("DATABASE_URL", "").strip():
        print("thousand-bot backup: DATABASE_URL is set (PostgreSQL): back it up with "
              "pg_dump (docs/deploy.md, \"Backups\")", file=sys.stderr)
        return 2
    try:
        figures = backup(args.source, args.file)
    except BackupError as e:
        print(f"thousand-bot backup: {e}", file=sys.stderr)
        return 1
    print(f"backed up {args.source} to {args.file}: {figures['games']} games "
          f"({figures['in_progress']} in progress), {figures['bytes']} bytes, schema version "
          f"{figures['schema_version']}, integrity ok, in {figures['seconds']:.2f} s")
    return 0
