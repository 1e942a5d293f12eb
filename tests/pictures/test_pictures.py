"""The score sheet and race chart PNGs: they decode, have the expected size, are not blank,
use only the bundled DejaVu font and draw from a worker thread.

The 30-deal pictures are written to docs/pictures/ (committed as documentation) when they
change.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import matplotlib
import pytest
from PIL import Image

from bot.i18n import CATALOGS
from bot.pictures import RACE_SIZE, GameSheet, render_race_png, render_sheet_png, sheet_size
from bot.pictures import sheet as S
from bot.pictures.data import KNOWN_MARKS, Deal
from bot.pictures.fonts import BOLD, REGULAR, missing_glyphs
from bot.pictures.sample import sample_rows
from bot.pictures.sheet import MAX_ROWS
from bot.pictures.style import ALL_SYMBOLS, badge_of
from bot.pictures.texts import TEXTS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "pictures"
NAMES = {
    "ru": ["Анна", "Борис", "Вера", "Глеб"],
    "en": ["Alice", "Bob", "Carol", "Dave"],
    "uk": ["Ґанна", "Ївга", "Євген", "Марʼяна"],
}


def _decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def _colours(img: Image.Image) -> int:
    colours = img.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None
    return len(colours)


# ------------------------------------------------------------------ the font


def test_font_is_matplotlibs_dejavu() -> None:
    data = os.path.realpath(matplotlib.get_data_path())
    for path in (REGULAR, BOLD):
        assert os.path.realpath(path).startswith(data)
        assert os.path.basename(path).startswith("DejaVuSans")
        assert os.path.isfile(path)


def test_font_has_every_glyph_drawn() -> None:
    texts = "".join(v for catalog in TEXTS.values() for v in catalog.values())
    names = "".join("".join(v) for v in NAMES.values())
    # every letter any catalog uses (a rule name, a computer's name, …), the whole Russian
    # and Ukrainian alphabets (a person's name) and the apostrophe of марʼяж (U+02BC)
    letters = "".join({ch for catalog in CATALOGS.values() for v in catalog.values()
                       for ch in v if ch.isalpha()})
    wanted = (texts + names + letters + ALL_SYMBOLS + "♠♥♦♣"
              + "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ" + "ҐЄІЇ" + "ʼ’'")
    wanted += wanted.lower()
    assert {"і", "ї", "є", "ʼ"} <= set(texts + letters)
    for bold in (False, True):
        assert missing_glyphs(wanted, bold=bold) == set()
    assert missing_glyphs("🛢") == {"🛢"}  # the check itself works


def test_texts_have_the_same_keys() -> None:
    assert set(TEXTS["ru"]) == set(TEXTS["en"]) == set(TEXTS["uk"])
    assert all(k.startswith("pic.") for k in TEXTS["ru"])


# ------------------------------------------------------------------ sizes and content


@pytest.mark.parametrize("deals", [1, 10, 30])
@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_sheet_png(lang: str, deals: int) -> None:
    rows = sample_rows(deals, 3, seed=7)
    img = _decode(render_sheet_png(lang, NAMES[lang][:3], rows))
    assert img.format == "PNG"
    assert img.size == sheet_size(lang, 3, deals)
    w, h = img.size
    assert 700 <= w <= 1300 and h >= 200 + deals * 25
    assert _colours(img) > 20  # text, stripes, seat colours, badges


@pytest.mark.parametrize("deals", [1, 10, 30])
@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_race_png(lang: str, deals: int) -> None:
    rows = sample_rows(deals, 3, seed=7)
    img = _decode(render_race_png(lang, NAMES[lang][:3], rows))
    assert img.size == RACE_SIZE
    assert _colours(img) > 20
    rgb = img.convert("RGB")
    present = {rgb.getpixel((x, y)) for x in range(0, RACE_SIZE[0], 3)
               for y in range(0, RACE_SIZE[1], 3)}
    assert len(present) > 10  # lines and markers, not one flat colour


@pytest.mark.parametrize("players", [2, 4])
def test_two_and_four_players(players: int) -> None:
    rows = sample_rows(30, players, seed=3)
    names = NAMES["en"][:players]
    sheet = _decode(render_sheet_png("en", names, rows))
    assert sheet.size == sheet_size("en", players, 30)
    assert _decode(render_race_png("en", names, rows)).size == RACE_SIZE
    with pytest.raises(ValueError):
        render_sheet_png("en", names[:1], [])


def _every_mark_rows() -> list[dict[str, Any]]:
    """Four deals of a 4-seat game whose cells hold every mark the engine writes."""
    def row(n: int, kind: str, decl: int, outcome: str, totals: list[int],
            marks: list[list[str]], winner: int = -1) -> dict[str, Any]:
        return {"n": n, "dealer": (n - 1) % 4, "kind": kind, "declarer": decl, "bid": 120,
                "contract": 140, "outcome": outcome, "points": [0] * 4,
                "scores": [10, -20, 0, 5], "totals": totals, "marks": marks, "notes": [],
                "winner": winner}
    return [
        row(1, "golden", 1, "made", [100, 240, 0, -60],
            [["sitting_out"], ["made"], ["bolt"], ["bolt", "penalty"]]),
        row(2, "dark", 2, "failed", [880, 760, -40, 0],
            [["barrel_on"], ["barrel_back"], ["sitting_out", "failed"], ["samosval"]]),
        row(3, "normal", 3, "conceded", [880, 880, 60, -555],
            [["try1", "knocked_off"], ["barrel_on"], ["bolt"], ["sitting_out", "conceded"]]),
        row(4, "normal", -1, "redeal", [880, 880, 60, -555], [[], [], [], ["sitting_out"]]),
        row(5, "normal", 1, "failed", [0, 760, 60, 0],
            [["sitting_out", "try2", "try3", "fall", "third_fall"], ["try1", "fall"], [],
             ["samosval"]]),
        row(6, "normal", 1, "made", [0, 1020, 60, 0],
            [[], ["made", "winner"], ["sitting_out"], []], winner=1),
    ]


def test_every_mark_has_a_symbol() -> None:
    drawn_elsewhere = {"made", "failed", "conceded", "sitting_out"}
    for mark in KNOWN_MARKS - drawn_elsewhere:
        assert badge_of(mark) is not None, mark
    for k in (1, 2, 3):
        assert badge_of(f"try{k}") == (str(k), badge_of("try1")[1])  # type: ignore[index]
    used = {m for r in _every_mark_rows() for ms in r["marks"] for m in ms}
    assert {m for m in used if not m.startswith("try")} == KNOWN_MARKS


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_sheet_with_every_mark(lang: str) -> None:
    rows = _every_mark_rows()
    png = render_sheet_png(lang, NAMES[lang], rows)
    img = _decode(png)
    assert img.size == sheet_size(lang, 4, len(rows))
    top = S.PAD + S.TITLE_H + S.NAME_H + S.SUB_H
    body = img.convert("RGB").crop((0, top, img.size[0], top + len(rows) * S.ROW_H))
    colours = {c for _, c in body.getcolors(maxcolors=1 << 20) or []}
    for badge in ("#607d8b", "#e53935", "#8d5524", "#b71c1c", "#8e24aa", "#f9a825"):
        want = tuple(int(badge[i:i + 2], 16) for i in (1, 3, 5))
        assert want in colours, badge  # the cells' badges: bolt, fine, barrel, fall, dump, winner
    assert _decode(render_race_png(lang, NAMES[lang], rows)).size == RACE_SIZE
    assert GameSheet.of(NAMES[lang], rows).places() == [3, 1, 2, 3]


def test_empty_and_long_games() -> None:
    assert _decode(render_sheet_png("ru", NAMES["ru"][:3], [])).size == sheet_size("ru", 3, 0)
    assert _decode(render_race_png("ru", NAMES["ru"][:3], [])).size == RACE_SIZE
    rows = sample_rows(MAX_ROWS + 15, 3, seed=2)
    img = _decode(render_sheet_png("en", NAMES["en"][:3], rows))
    assert img.size == sheet_size("en", 3, MAX_ROWS + 15)
    assert img.size[1] < sheet_size("en", 3, MAX_ROWS + 15 + 50)[1] + 1
    assert _decode(render_race_png("en", NAMES["en"][:3], rows)).size == RACE_SIZE


def test_long_names_and_bad_rows() -> None:
    names = ["Очень-очень длинное имя игрока", "B" * 60, "<b>&amp;</b>"]
    rows = sample_rows(5, 3, seed=1)
    _decode(render_sheet_png("ru", names, rows))
    _decode(render_race_png("ru", names, rows))
    bad = [dict(rows[0], totals=[1, 2])]
    with pytest.raises(ValueError):
        render_sheet_png("ru", names, bad)
    with pytest.raises(KeyError):
        Deal.from_row({"n": 1}, 3)


# ------------------------------------------------------------------ threads, purity


def test_worker_threads_draw_the_same_pictures() -> None:
    rows = sample_rows(30, 3, seed=7)
    names = NAMES["ru"][:3]
    want = (render_sheet_png("ru", names, rows), render_race_png("ru", names, rows))

    def both(_: int) -> tuple[bytes, bytes]:
        return render_sheet_png("ru", names, rows), render_race_png("ru", names, rows)

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(both, range(4)))
    assert all(g == want for g in got)


def test_no_pyplot_no_display_no_telegram() -> None:
    code = (
        "import sys\n"
        "from bot.pictures import render_race_png, render_sheet_png\n"
        "from bot.pictures.sample import sample_rows\n"
        "import bot.ratings, bot.stats\n"
        "rows = sample_rows(3, 3)\n"
        "render_sheet_png('en', ['a', 'b', 'c'], rows)\n"
        "render_race_png('en', ['a', 'b', 'c'], rows)\n"
        "import matplotlib\n"
        "assert matplotlib.get_backend().lower() == 'agg', matplotlib.get_backend()\n"
        "bad = {'matplotlib.pyplot', 'telegram', 'asyncio', 'aiosqlite'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True, timeout=120)


# ------------------------------------------------------------------ the docs' pictures


def _write_if_changed(path: Path, data: bytes) -> None:
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_docs_pictures(lang: str) -> None:
    """The 30-deal sheet and race of a made-up 3-player game, saved for the docs."""
    rows = sample_rows(30, 3, seed=7)
    names = NAMES[lang][:3]
    sheet = render_sheet_png(lang, names, rows)
    race = render_race_png(lang, names, rows)
    _decode(sheet)
    _decode(race)
    _write_if_changed(DOCS / f"sheet-30-{lang}.png", sheet)
    _write_if_changed(DOCS / f"race-30-{lang}.png", race)


def test_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.pictures import bench_pictures

    assert bench_pictures(["--deals", "3", "--runs", "1", "--lang", "en"]) in (0, 1)
    out = capsys.readouterr().out
    assert "score sheet" in out and "race chart" in out and "ms/picture" in out
