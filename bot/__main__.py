"""``python -m bot``: run the bot; sub-commands replay, play, bench, arena and migrate-db."""

from __future__ import annotations

import sys

USAGE = """usage: python -m bot [COMMAND]

  (no command)                 run the Telegram bot (long polling, or a webhook server when
                               WEBHOOK_URL is set; settings from the environment)
  replay FILE [--json]         print the score sheet of a game record
  play [--seed N] [--save F]   play a game in the terminal against two computer players
  bench engine [...]           engine speed: random deals and legal-move steps per second
  bench bot [--games N]        the bot's overhead against the fake Bot API server, and a
                               bare PTB bot's (the floor) [--profile FILE] [--no-floor]
                               [--http aiohttp|httpx] [--database-url URL]
  bench hints [--games N]      time of a hint and of a deal's analysis (median, p95)
  bench pictures [--deals N]   milliseconds to draw the score-sheet and race pictures
  bench storage [--games N]    moves stored per second by N games at once, append latency
                               [--moves N] [--compare] [--database-url URL]
  bench restart [--games N]    start-up to the first answer with N live games [--eager]
  arena --a L --b L [...]      computer players against each other on duplicate deals
                               (L: random, normal, hard, or L@GIT-REF: as in that commit)
                               [--sprt MU0,MU1] [--every N] [--games N]
  migrate-db --from SQLITE_PATH --to postgresql://...
                               copy the SQLite database into an empty PostgreSQL one
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
    if cmd == "bench" and rest[:1] == ["engine"]:
        from bot.cli.bench import bench_engine

        return bench_engine(rest[1:])
    if cmd == "bench" and rest[:1] == ["hints"]:
        from bot.ai.bench_hints import main as bench_hints

        return bench_hints(rest[1:])
    if cmd == "bench" and rest[:1] == ["bot"]:
        from bot.run import bench_bot

        return bench_bot(rest[1:])
    if cmd == "bench" and rest[:1] == ["pictures"]:
        from bot.pictures.bench import bench_pictures

        return bench_pictures(rest[1:])
    if cmd == "bench" and rest[:1] == ["storage"]:
        from bot.tg.bench_storage import bench_storage

        return bench_storage(rest[1:])
    if cmd == "migrate-db":
        from bot.cli.migrate_db import migrate_db_main

        return migrate_db_main(rest)
    if cmd == "bench" and rest[:1] == ["restart"]:
        from bot.tg.bench_restart import bench_restart

        return bench_restart(rest[1:])
    if cmd == "arena":
        from bot.ai.arena import main as arena_main

        return arena_main(rest)
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
