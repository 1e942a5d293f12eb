"""The race to 1000 as a PNG chart, drawn with matplotlib's object-oriented API.

Each seat's total after every deal (deal 0 is the start at 0), the barrel line at 880 and
the goal at 1000, golden and dark deals shaded, and markers where a seat climbed the
barrel, fell off it, was fined, hit the 555 dump or won.  Only ``Figure`` and the Agg
canvas are used (no pyplot and its global state), so a worker thread may draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from PIL import Image

from .data import GameSheet
from .fonts import BOLD, REGULAR
from .png import encode_png
from .style import KIND, SEAT_COLOURS
from .texts import pt

WIDTH_IN: Final = 12.0
HEIGHT_IN: Final = 6.75
DPI: Final = 100
RACE_SIZE: Final = (int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI))  # (width, height) pixels
BARREL: Final = 880
GOAL: Final = 1000

INK: Final = "#1d2733"

# a seat's mark -> the event drawn; events are markers in the seat's colour, a dark edge
_EVENTS: Final[dict[str, str]] = {
    "barrel_on": "barrel_on", "fall": "fall", "knocked_off": "fall", "third_fall": "fall",
    "penalty": "penalty", "samosval": "samosval", "winner": "winner",
}
_MARKERS: Final[dict[str, tuple[str, float]]] = {  # event -> (marker, area)
    "barrel_on": ("s", 60), "fall": ("v", 100), "penalty": ("D", 45),
    "samosval": ("X", 120), "winner": ("*", 340),
}
_EVENT_LEGEND: Final = ("barrel_on", "fall", "penalty", "samosval", "winner")


def _num(v: int) -> str:
    return f"−{-v}" if v < 0 else str(v)


def _short(name: str, limit: int = 18) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _fp(size: float, bold: bool = False) -> FontProperties:
    return FontProperties(fname=BOLD if bold else REGULAR, size=size)


def _legend(fig: Figure, items: list[tuple[dict[str, Any], str]], font: FontProperties
            ) -> None:
    """A legend right of the axes, placed by hand (matplotlib's legend costs 60 ms)."""
    x0, y = 0.775, 0.88
    for props, label in items:
        xs = [x0 + 0.0125] if props.get("ls") == "" else [x0, x0 + 0.0125, x0 + 0.025]
        line = Line2D(xs, [y] * len(xs), transform=fig.transFigure, **props)
        if len(xs) > 1:
            line.set_markevery([1])
        fig.add_artist(line)
        fig.text(x0 + 0.035, y, label, va="center", ha="left", fontproperties=font,
                 color=INK)
        y -= 0.052


def render_race_png(lang: str, names: Sequence[str], rows: Sequence[Mapping[str, Any]]
                    ) -> bytes:
    """The race to 1000 of a game (``sheet_row`` dicts, in order) as PNG bytes of
    ``RACE_SIZE`` pixels."""
    sheet = GameSheet.of(names, rows)
    deals = sheet.deals
    n = sheet.players
    fig = Figure(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.07, 0.1, 0.68, 0.8))
    body, small, bold = _fp(11), _fp(10), _fp(15, bold=True)

    xs = [0, *[k + 1 for k in range(len(deals))]]
    last_x = max(1, len(deals))
    lows = [0, *[t for d in deals for t in d.totals]]
    highs = [GOAL, *[t for d in deals for t in d.totals]]
    y_lo = min(lows) - 60
    y_hi = max(highs) + 60

    for k, d in enumerate(deals):
        if d.kind in KIND:
            ax.axvspan(k + 0.5, k + 1.5, color=KIND[d.kind][2], zorder=0, lw=0)
    ax.axhline(BARREL, color="#8d5524", lw=1.6, ls=(0, (6, 4)), zorder=1)
    ax.axhline(GOAL, color="#e0a100", lw=2.2, zorder=1)
    ax.axhline(0, color="#9aa3ad", lw=1.0, zorder=1)
    ax.text(0.15, BARREL + 8, pt(lang, "pic.barrel_line"), va="bottom", ha="left",
            color="#8d5524", fontproperties=body)
    ax.text(0.15, GOAL + 8, pt(lang, "pic.goal_line"), va="bottom", ha="left",
            color="#b07d00", fontproperties=_fp(11, bold=True))

    legend: list[tuple[dict[str, Any], str]] = []  # (Line2D properties, label)
    for i in range(n):
        ys = [0, *[d.totals[i] for d in deals]]
        colour = SEAT_COLOURS[i]
        ax.plot(xs, ys, color=colour, lw=2.4, marker="o", ms=3.5, zorder=3,
                solid_joinstyle="round")
        legend.append(({"color": colour, "lw": 2.4, "marker": "o", "ms": 3.5},
                       f"{_short(names[i])} · {_num(sheet.totals[i])}"))
        points: dict[str, list[tuple[int, int]]] = {}
        for k, d in enumerate(deals):
            for m in d.marks[i]:
                if m in _EVENTS:
                    points.setdefault(_EVENTS[m], []).append((k + 1, d.totals[i]))
        for key, pts in points.items():
            marker, size = _MARKERS[key]
            ax.plot([x for x, _ in pts], [y for _, y in pts], ls="", marker=marker,
                    ms=size ** 0.5, color=colour, markeredgecolor=INK, markeredgewidth=1.1,
                    zorder=4)
    for key in _EVENT_LEGEND:
        marker, size = _MARKERS[key]
        legend.append(({"ls": "", "marker": marker, "ms": size ** 0.5 * 0.9,
                        "color": "#cfd5dc", "markeredgecolor": INK, "markeredgewidth": 1.1},
                       pt(lang, f"pic.race.{key}")))
    for kind, (_, _, bg) in KIND.items():
        legend.append(({"ls": "", "marker": "s", "ms": 13, "color": bg,
                        "markeredgecolor": "#c5ccd6"}, pt(lang, f"pic.legend.{kind}")))
    _legend(fig, legend, body)

    ax.set_xlim(0, last_x + 0.6)
    ax.set_ylim(y_lo, y_hi)
    step = 1 if last_x <= 12 else (5 if last_x <= 60 else 10 * (1 + last_x // 120))
    xt = list(range(0, last_x + 1, step))
    ax.set_xticks(xt, [str(x) for x in xt], fontproperties=small)
    y0 = -(-y_lo // 200) * 200
    yt = list(range(int(y0), int(y_hi) + 1, 200))
    ax.set_yticks(yt, [_num(y) for y in yt], fontproperties=small)
    ax.grid(True, color="#e6e9ee", lw=0.8, zorder=0)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_xlabel(pt(lang, "pic.axis_deal"), fontproperties=body, color="#4a5561")
    ax.set_ylabel(pt(lang, "pic.axis_points"), fontproperties=body, color="#4a5561")
    ax.set_title(pt(lang, "pic.race_title"), fontproperties=bold, loc="left", pad=12)

    canvas.draw()  # type: ignore[no-untyped-call]  # untyped in matplotlib's stubs
    return encode_png(Image.frombuffer("RGBA", canvas.get_width_height(),
                                       canvas.buffer_rgba()),  # type: ignore[no-untyped-call]
                      palette=True)
