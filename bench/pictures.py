"""Benchmark of the pictures: ``python bench/pictures.py [--deals 30] [--runs 15]``.

Prints the median milliseconds per picture (score sheet, race chart) of a made-up game;
the code is ``bot.pictures.bench`` (also meant for ``python -m bot bench pictures``).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bot.pictures.bench import bench_pictures

if __name__ == "__main__":
    sys.exit(bench_pictures())
