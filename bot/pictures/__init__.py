"""Pictures of a game: the score sheet and the race to 1000, as PNG bytes.

Pure and Telegram-free: the input is the seat names and the score-sheet rows
(``bot.tg.model.sheet_row`` dicts, in order); the output is a PNG.  Both functions may run
in a worker thread (no pyplot, no shared drawing state).

* ``render_sheet_png(lang, names, rows)`` — the deals, results, totals and marks with a
  legend (Pillow, fast).
* ``render_race_png(lang, names, rows)`` — each seat's total per deal, the barrel line
  and 1000, falls, dumps and fines marked (matplotlib, Agg canvas).

Every text is drawn with matplotlib's bundled DejaVu Sans (``bot.pictures.fonts``).
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no display, ever; the pictures use the Agg canvas explicitly anyway

from .data import Deal, GameSheet
from .race import RACE_SIZE, render_race_png
from .sheet import render_sheet_png, sheet_size

__all__ = ["RACE_SIZE", "Deal", "GameSheet", "render_race_png", "render_sheet_png",
           "sheet_size"]
