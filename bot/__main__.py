"""``python -m bot``: run the bot; sub-commands replay, play, bench, arena, migrate-db and
backup."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

USAGE = """usage: python -m bot [COMMAND]

  (no command)                 run the Telegram bot (long polling, or a webhook server when
                               WEBHOOK_URL is set; settings from the environment)
  replay FILE [--json]         print the score sheet of a game record
  play [--seed N] [--save F]   play a game in the terminal against two computer players
  bench COMMAND [...]          a benchmark (bench/, from a source checkout only):
  bench engine [...]           engine speed: random deals and legal-move steps per second
  bench bot [--games N]        the bot's overhead against the fake Bot API server, and a
                               bare PTB bot's (the floor) [--profile FILE] [--no-floor]
                               [--http aiohttp|httpx] [--database-url URL] [--metrics]
  bench hints [--games N]      time of a hint and of a deal's analysis (median, p95)
  bench solver                 nodes and CPU time of the open-card solver on fixed positions
  bench inference [--deals N]  how much the inference's factors tell the real deal apart
  bench passing [...]          how often hard's pass reaches the bid on the real deal
  bench texts                  the catalogs' start-up cost and the cost of one message
  bench pictures [--deals N]   milliseconds to draw the score-sheet and race pictures
  bench storage [--games N]    moves stored per second by N games at once, append latency
                               [--moves N] [--compare] [--database-url URL]
  bench feed [--games N]       a stored move to another process's change feed (p50, p95)
                               [--moves N] [--database-url URL] (PostgreSQL; else SQLite)
  bench restart [--games N]    start-up to the first answer with N live games [--eager]
  arena --a L --b L [...]      computer players against each other on duplicate deals
                               (L: random, normal, hard, or L@GIT-REF: as in that commit)
                               [--sprt MU0,MU1] [--every N] [--games N] (bench/arena/,
                               from a source checkout only)
  migrate-db --from SQLITE_PATH --to postgresql://...
                               copy the SQLite database into an empty PostgreSQL one
  backup FILE [--from SQLITE_PATH]
                               a checked copy of the (running) bot's SQLite database
  health                       exit 0 if the running bot's GET /healthz answers 200
                               (METRICS_PORT; the Docker HEALTHCHECK)
"""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        from bot.run import main as run_bot

        return run_bot()
    cmd, rest = args[0], args[1:]
    if cmd in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if cmd == "replay":
        from bot.cli.replay import replay_main

        return replay_main(rest)
    if cmd == "play":
        from bot.cli.play import play_main

        return play_main(rest)
    if cmd == "bench":
        return _bench(rest)
    if cmd == "migrate-db":
        from bot.cli.migrate_db import migrate_db_main

        return migrate_db_main(rest)
    if cmd == "health":
        from bot.cli.health import health_main

        return health_main(rest)
    if cmd == "backup":
        from bot.cli.backup import backup_main

        return backup_main(rest)
    if cmd == "arena":
        return _arena(rest)
    print(USAGE, file=sys.stderr)
    return 2


def _bench(argv: list[str], root: Path | None = None) -> int:
    """``bench ...``: the benchmarks live in the checkout's ``bench/`` package, next to
    ``bot/`` in ``root`` (not in the product: an installed package has no ``bench``)."""
    return _from_checkout("bench", "the benchmarks need", "bench", argv, root)


def _arena(argv: list[str], root: Path | None = None) -> int:
    """``arena ...``: the arena measures the computer players from the checkout's
    ``bench/arena`` package (not in the product, as the benchmarks)."""
    return _from_checkout("bench.arena", "the arena needs", "arena", argv, root)


def _from_checkout(module: str, who: str, cmd: str, argv: list[str],
                   root: Path | None) -> int:
    """``module``'s ``main(argv)``, from the checkout's ``bench/`` next to ``bot/`` in
    ``root``; without it (an installed package), one line on stderr and 2."""
    if root is None:
        root = Path(__file__).resolve().parent.parent
    if not (root / "bench" / "__init__.py").is_file():
        print(f"{who} a source checkout: run python -m bot {cmd} from the project's "
              f"repository (there is no bench/ in {root})", file=sys.stderr)
        return 2
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))  # bench/ and tests/fakeapi, wherever this runs from
    run = cast(Callable[[list[str]], int], importlib.import_module(module).main)
    return run(argv)


if __name__ == "__main__":
    sys.exit(main())
