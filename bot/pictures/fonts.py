"""The one font of the pictures: DejaVu Sans as bundled with matplotlib.

Never a system font: the files come from ``matplotlib.get_data_path()``, so a picture
looks the same on every machine.  DejaVu Sans has Cyrillic, the card suits and the mark
symbols used here (a test checks every character with fontTools).
"""

from __future__ import annotations

import os
import threading
from functools import cache
from typing import Final

import matplotlib
from PIL import ImageFont

_DIR: Final = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
REGULAR: Final = os.path.join(_DIR, "DejaVuSans.ttf")
BOLD: Final = os.path.join(_DIR, "DejaVuSans-Bold.ttf")

_local = threading.local()


def pil_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """A Pillow font of this thread (FreeType faces are not shared between threads)."""
    fonts: dict[tuple[int, bool], ImageFont.FreeTypeFont] | None = getattr(
        _local, "fonts", None)
    if fonts is None:
        fonts = _local.fonts = {}
    key = (size, bold)
    font = fonts.get(key)
    if font is None:
        font = fonts[key] = ImageFont.truetype(BOLD if bold else REGULAR, size)
    return font


@cache
def _codepoints(path: str) -> frozenset[int]:
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]  # no py.typed

    with TTFont(path, lazy=True) as f:
        cmap = f.getBestCmap()
    return frozenset(cmap)


def missing_glyphs(text: str, bold: bool = False) -> set[str]:
    """Characters of ``text`` (spaces aside) that the font file has no glyph for."""
    have = _codepoints(BOLD if bold else REGULAR)
    return {ch for ch in text if not ch.isspace() and ord(ch) not in have}
