"""The project's benchmarks and the floor (``python -m bot bench ...`` or ``python -m bench
...`` from a source checkout; ``docs/performance.md``).

They sit outside the product packages (``bot``, ``storage``: an import-linter contract
keeps the product from importing them) and are not part of the wheel; some need the
checkout's ``tests/fakeapi``.  Each command's module has its own ``--help``.  The tools
that measure the computer players (the arena, players of another commit, tuning) are here
too, in ``bench/arena`` (``python -m bot arena ...``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["COMMANDS", "main"]

COMMANDS: dict[str, str] = {
    "engine": "random deals and legal-move steps per second of the rules engine",
    "bot": "the bot's overhead against the fake Bot API server, and its floor's",
    "hints": "time of a hint and of a deal's analysis",
    "pictures": "milliseconds to draw the score-sheet and race pictures",
    "storage": "moves stored per second by many games at once",
    "feed": "from a stored move to another process's change feed (PostgreSQL LISTEN/NOTIFY)",
    "restart": "start-up to the first answer with many live games",
    "texts": "what the gettext catalogs cost at start-up and per message",
    "solver": "nodes and CPU time of the open-card solver on fixed positions",
    "worlds": "worlds hard solves per card decision in its thinking time",
    "inference": "how much the inference's factors tell the real deal from sampled ones",
    "passing": "how often hard's pass reaches the bid on the real deal, against the fitted pair",
    "faults": "games through a Bot API failing and answering late, then going on",
    "web": "what open Mini App pages cost: CPU per move, stored-to-page time, memory",
}


def _command(name: str) -> Callable[[list[str]], int]:
    # Imported on demand: each benchmark loads only what it measures.
    if name == "engine":
        from bench.engine import bench_engine

        return bench_engine
    if name == "bot":
        from bench.bot import main as bench_bot

        return bench_bot
    if name == "web":
        from bench.web import main as bench_web

        return bench_web
    if name == "hints":
        from bench.hints import main as bench_hints

        return bench_hints
    if name == "pictures":
        from bench.pictures import bench_pictures

        return bench_pictures
    if name == "storage":
        from bench.storage import bench_storage

        return bench_storage
    if name == "feed":
        from bench.feed import bench_feed

        return bench_feed
    if name == "solver":
        from bench.solver import main as bench_solver

        return bench_solver
    if name == "worlds":
        from bench.worlds import main as bench_worlds

        return bench_worlds
    if name == "inference":
        from bench.inference import main as bench_inference

        return bench_inference
    if name == "passing":
        from bench.passing import main as bench_passing

        return bench_passing
    if name == "faults":
        from bench.faults import main as bench_faults

        return bench_faults
    if name == "texts":
        from bench.texts import bench_texts

        return bench_texts
    from bench.restart import bench_restart

    return bench_restart


def usage() -> str:
    return "usage: python -m bot bench COMMAND [...]\n\n" + "\n".join(
        f"  {name:10} {text}" for name, text in COMMANDS.items()
    )


def main(argv: list[str]) -> int:
    """``bench COMMAND [...]``: run one benchmark; 2 for an unknown command."""
    if not argv or argv[0] not in COMMANDS:
        print(usage(), file=sys.stderr)
        return 2
    return _command(argv[0])(argv[1:])
