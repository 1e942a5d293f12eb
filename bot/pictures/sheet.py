"""The score sheet as a PNG, drawn with Pillow (fast: a 30-deal sheet in a few ms).

One row per deal: its number, the game (kind, declarer, contract, outcome), and for each
seat the change in the deal and the running total with the seat's marks as small badges;
the seats' places at the foot and a legend of every symbol under it.  Thread-safe: each
call draws on its own image with fonts of its own thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from PIL import Image, ImageDraw, ImageFont

from .data import Deal, GameSheet
from .fonts import pil_font
from .png import encode_png
from .style import BADGES, KIND, OUTCOME, SEAT_COLOURS, badge_of
from .texts import pt

MAX_ROWS: Final = 80  # longer games show their last deals

PAD: Final = 16
TITLE_H: Final = 46
NAME_H: Final = 32
SUB_H: Final = 24
ROW_H: Final = 30
FOOT_H: Final = 38
NO_W: Final = 46
GAME_W: Final = 206
DEAL_W: Final = 70
NUM_W: Final = 62
BADGE: Final = 20
BADGE_GAP: Final = 3
BADGES_W: Final = 4 * (BADGE + BADGE_GAP) + 6
SEAT_W: Final = DEAL_W + NUM_W + BADGES_W
LEGEND_ROW: Final = 28

BG: Final = "#ffffff"
STRIPE: Final = "#f4f6f9"
GRID: Final = "#d5dae1"
INK: Final = "#1d2733"
MUTED: Final = "#7a8592"
PLUS: Final = "#2e7d32"
MINUS: Final = "#c62828"
SIT_OUT: Final = "#e9ebee"
WIN_BG: Final = "#ffe9a8"

_LEGEND_MARKS: Final = ("bolt", "penalty", "barrel_on", "fall", "barrel_back", "third_fall",
                        "samosval", "winner")


@dataclass(frozen=True, slots=True)
class _Fonts:
    body: ImageFont.FreeTypeFont
    bold: ImageFont.FreeTypeFont
    small: ImageFont.FreeTypeFont
    title: ImageFont.FreeTypeFont
    badge: ImageFont.FreeTypeFont


def _fonts() -> _Fonts:
    return _Fonts(pil_font(16), pil_font(16, bold=True), pil_font(13),
                  pil_font(21, bold=True), pil_font(14, bold=True))


def _width(players: int) -> int:
    return 2 * PAD + NO_W + GAME_W + players * SEAT_W


def _legend_items(lang: str, players: int) -> list[tuple[str, str]]:
    """(kind of item, legend key): outcome symbols, badges, row colours."""
    items = [("outcome", k) for k in OUTCOME]
    items += [("badge", k) for k in _LEGEND_MARKS]
    items += [("kind", k) for k in KIND]
    if players == 4:
        items.append(("cell", "sitting_out"))
    return items


def _legend_layout(lang: str, players: int, fonts: _Fonts
                   ) -> list[tuple[int, int, str, str]]:
    """Positions (x, line, kind, key) of the legend items, flowing in the sheet's width."""
    right = _width(players) - PAD
    x, line = PAD, 0
    out = []
    for kind, key in _legend_items(lang, players):
        w = BADGE + 6 + int(fonts.small.getlength(pt(lang, f"pic.legend.{key}"))) + 18
        if x + w > right and x > PAD:
            x, line = PAD, line + 1
        out.append((x, line, kind, key))
        x += w
    return out


def sheet_size(lang: str, players: int, deals: int) -> tuple[int, int]:
    """The (width, height) in pixels of the sheet of ``deals`` deals."""
    rows = min(deals, MAX_ROWS) + (deals > MAX_ROWS) if deals else 1
    lines = 1 + max(line for _, line, _, _ in _legend_layout(lang, players, _fonts()))
    height = (PAD + TITLE_H + NAME_H + SUB_H + rows * ROW_H + FOOT_H + 10
              + lines * LEGEND_ROW + PAD)
    return _width(players), height


def _fit(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def _signed(v: int) -> str:
    return f"+{v}" if v > 0 else (f"−{-v}" if v < 0 else "0")


def _num(v: int) -> str:
    return f"−{-v}" if v < 0 else str(v)


class _Painter:
    def __init__(self, draw: ImageDraw.ImageDraw, fonts: _Fonts) -> None:
        self.d = draw
        self.f = fonts

    def badge(self, x: int, cy: int, symbol: str, colour: str) -> None:
        top = cy - BADGE // 2
        self.d.rounded_rectangle((x, top, x + BADGE, top + BADGE), radius=5, fill=colour)
        self.d.text((x + BADGE / 2, cy), symbol, font=self.f.badge, fill="#ffffff",
                    anchor="mm")

    def game_cell(self, lang: str, x: int, cy: int, deal: Deal, names: Sequence[str]) -> None:
        d, f = self.d, self.f
        if deal.kind in KIND:
            sym, colour, _ = KIND[deal.kind]
            d.text((x + 6, cy), sym, font=f.bold, fill=colour, anchor="lm")
        left = x + 26
        if deal.outcome == "redeal" or not 0 <= deal.declarer < len(names):
            text = pt(lang, "pic.redeal") if deal.outcome == "redeal" else pt(lang, "pic.no_game")
            d.text((left, cy), text, font=f.body, fill=MUTED, anchor="lm")
            return
        right = x + GAME_W - 10
        if deal.outcome in OUTCOME:
            sym, colour = OUTCOME[deal.outcome]
            d.text((right, cy), sym, font=f.bold, fill=colour, anchor="rm")
            right -= 22
        contract = str(deal.contract)
        d.text((right, cy), contract, font=f.bold, fill=INK, anchor="rm")
        right -= int(f.bold.getlength(contract)) + 8
        seat_colour = SEAT_COLOURS[deal.declarer % len(SEAT_COLOURS)]
        name = _fit(names[deal.declarer], f.body, right - left)
        d.text((left, cy), name, font=f.body, fill=seat_colour, anchor="lm")


def render_sheet_png(lang: str, names: Sequence[str], rows: Sequence[Mapping[str, Any]]
                     ) -> bytes:
    """The score sheet of a game (``sheet_row`` dicts, in order) as PNG bytes."""
    sheet = GameSheet.of(names, rows)
    n = sheet.players
    fonts = _fonts()
    width, height = sheet_size(lang, n, len(sheet.deals))
    img = Image.new("RGB", (width, height), BG)
    d = ImageDraw.Draw(img)
    p = _Painter(d, fonts)
    seat_x = [PAD + NO_W + GAME_W + i * SEAT_W for i in range(n)]

    # title
    y = PAD
    d.text((PAD, y + TITLE_H // 2 - 4), pt(lang, "pic.sheet_title"), font=fonts.title,
           fill=INK, anchor="lm")
    d.text((width - PAD, y + TITLE_H // 2 - 4), pt(lang, "pic.deals", n=len(sheet.deals)),
           font=fonts.small, fill=MUTED, anchor="rm")
    y += TITLE_H

    # header: names over their columns, then "deal | total"
    for i, x in enumerate(seat_x):
        colour = SEAT_COLOURS[i]
        d.rectangle((x + 4, y + NAME_H - 5, x + SEAT_W - 4, y + NAME_H - 2), fill=colour)
        d.text((x + SEAT_W / 2, y + NAME_H / 2 - 3), _fit(names[i], fonts.bold, SEAT_W - 12),
               font=fonts.bold, fill=INK, anchor="mm")
    y += NAME_H
    sub_cy = y + SUB_H // 2
    d.text((PAD + NO_W - 10, sub_cy), pt(lang, "pic.deal_no"), font=fonts.small, fill=MUTED,
           anchor="rm")
    d.text((PAD + NO_W + 26, sub_cy), pt(lang, "pic.game"), font=fonts.small, fill=MUTED,
           anchor="lm")
    for x in seat_x:
        d.text((x + DEAL_W - 8, sub_cy), pt(lang, "pic.deal"), font=fonts.small, fill=MUTED,
               anchor="rm")
        d.text((x + DEAL_W + NUM_W, sub_cy), pt(lang, "pic.total"), font=fonts.small,
               fill=MUTED, anchor="rm")
    y += SUB_H
    d.line((PAD, y, width - PAD, y), fill=INK, width=2)
    body_top = y

    deals = sheet.deals
    skipped = max(0, len(deals) - MAX_ROWS)
    if not deals:
        d.text((PAD + 8, y + ROW_H // 2), pt(lang, "pic.empty"), font=fonts.body, fill=MUTED,
               anchor="lm")
        y += ROW_H
    if skipped:
        d.text((PAD + 8, y + ROW_H // 2), pt(lang, "pic.skipped", k=skipped), font=fonts.small,
               fill=MUTED, anchor="lm")
        y += ROW_H
    for k, deal in enumerate(deals[skipped:]):
        cy = y + ROW_H // 2
        bg = KIND[deal.kind][2] if deal.kind in KIND else (STRIPE if k % 2 else BG)
        d.rectangle((PAD, y, width - PAD - 1, y + ROW_H - 1), fill=bg)
        d.text((PAD + NO_W - 10, cy), str(deal.n), font=fonts.body, fill=MUTED, anchor="rm")
        p.game_cell(lang, PAD + NO_W, cy, deal, sheet.names)
        for i, x in enumerate(seat_x):
            marks = deal.marks[i]
            if "sitting_out" in marks:
                d.rectangle((x + 2, y + 2, x + DEAL_W - 2, y + ROW_H - 3), fill=SIT_OUT)
            if "winner" in marks:
                d.rectangle((x + DEAL_W, y + 2, x + SEAT_W - 2, y + ROW_H - 3), fill=WIN_BG)
            v = deal.scores[i]
            if deal.outcome != "redeal":
                d.text((x + DEAL_W - 8, cy), _signed(v), font=fonts.body,
                       fill=PLUS if v > 0 else (MINUS if v < 0 else MUTED), anchor="rm")
            d.text((x + DEAL_W + NUM_W, cy), _num(deal.totals[i]), font=fonts.bold,
                   fill=MINUS if deal.totals[i] < 0 else INK, anchor="rm")
            bx = x + DEAL_W + NUM_W + 6
            for m in marks:
                b = badge_of(m)
                if b is None or bx + BADGE > x + SEAT_W:
                    continue
                p.badge(bx, cy, *b)
                bx += BADGE + BADGE_GAP
        y += ROW_H
    for x in seat_x:
        d.line((x, body_top - SUB_H, x, y), fill=GRID, width=1)
    d.line((PAD, y, width - PAD, y), fill=INK, width=2)

    # foot: places and final totals
    cy = y + FOOT_H // 2
    d.text((PAD + NO_W + 26, cy), pt(lang, "pic.place"), font=fonts.bold, fill=INK,
           anchor="lm")
    if deals:
        medal = {1: "#f9c74f", 2: "#cfd8dc", 3: "#e0a87c"}
        for i, (x, place) in enumerate(zip(seat_x, sheet.places(), strict=True)):
            r = 12
            cx = x + DEAL_W - 8 - r
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=medal.get(place, "#eceff1"))
            d.text((cx, cy), str(place), font=fonts.bold, fill=INK, anchor="mm")
            d.text((x + DEAL_W + NUM_W, cy), _num(sheet.totals[i]), font=fonts.bold,
                   fill=INK, anchor="rm")
    y += FOOT_H + 10

    # legend
    for x, line, kind, key in _legend_layout(lang, n, fonts):
        ly = y + line * LEGEND_ROW + LEGEND_ROW // 2
        if kind == "badge":
            p.badge(x, ly, *BADGES[key])
        elif kind == "outcome":
            sym, colour = OUTCOME[key]
            d.text((x + BADGE / 2, ly), sym, font=fonts.bold, fill=colour, anchor="mm")
        elif kind == "kind":
            sym, colour, bg = KIND[key]
            d.rectangle((x, ly - BADGE // 2, x + BADGE, ly + BADGE // 2), fill=bg,
                        outline=GRID)
            d.text((x + BADGE / 2, ly), sym, font=fonts.bold, fill=colour, anchor="mm")
        else:
            d.rectangle((x, ly - BADGE // 2, x + BADGE, ly + BADGE // 2), fill=SIT_OUT,
                        outline=GRID)
        d.text((x + BADGE + 6, ly), pt(lang, f"pic.legend.{key}"), font=fonts.small,
               fill=INK, anchor="lm")

    return encode_png(img)
