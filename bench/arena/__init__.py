"""Tools that measure the computer players (``bot/ai``), outside the product package.

* ``arena``: two levels on duplicate deals, and whole games (``python -m bot arena ...``
  from a source checkout, or ``python -m bench.arena ...``);
* ``remote``: a level as it is in another commit (``hard@<git-ref>``), played by a worker
  process on that commit's exported ``bot`` package;
* ``tune``: the least-squares fit of ``hard``'s hand estimate on self-play deals
  (``python -m bench.arena.tune N``).

See ``docs/computer-players.md``.
"""

from __future__ import annotations

from bench.arena.arena import main

__all__ = ["main"]
