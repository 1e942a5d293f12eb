"""Results: a deal's summary, the score sheet of /score, the end of a game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from bot.engine.state import Trick
from bot.i18n import esc, has, t
from bot.tg.view import callbacks as cb
from bot.tg.view.common import (
    MAX_TEXT,
    Button,
    Keyboard,
    Rendered,
    SeatLabel,
    fit,
    num,
    seat_name,
    signed,
    unique_names,
)
from bot.tg.view.table import (
    done_trick_line,
    redeal_line,
)

# --------------------------------------------------------------------------- results


_NOTE_SHOWN: Final = frozenset({
    "bolt", "bolt_penalty", "barrel_on", "barrel_back", "knocked_off", "barrel_tries_out",
    "barrel_failed", "third_fall_zero", "fall", "samosval", "sitter_nothing", "golden_reset",
    "golden_again", "four_nines_bonus", "talon_score", "rospis_penalty", "frozen",
    "all_tricks_120", "barrel_try", "golden_double", "dark_double", "tie_one_more",
})


def note_line(lang: str, code: str, seat: int, value: int, seats: Sequence[SeatLabel]) -> str:
    """One score-sheet note in words ("Анна: болт, второй за игру")."""
    if code.startswith("redeal_"):
        return redeal_line(lang, code, seat, seats)
    key = f"note.{code}"
    if not has(key):
        return code
    return t(lang, key, name=seat_name(seats, seat) if seat >= 0 else "", value=num(value),
             abs=abs(value))


# notes whose value is what the deal itself wrote for a seat (before bolts' fines, the
# barrel, falls and the 555 dump change the totals); "sitter_nothing" and "frozen" take
# their value back out
_WRITTEN: Final = frozenset({"contract_made", "contract_failed", "defender_points", "conceded",
                             "rospis_paid", "rospis_penalty", "stock_points",
                             "four_nines_bonus", "talon_score"})


def written_points(row: dict[str, Any]) -> list[int]:
    """What the deal wrote for each seat by its own play, before the effects that follow
    (a bolt's fine, the barrel, a fall, the 555 dump): a failed 180 is −180 even when the
    dump then brings the total from −555 to 0 (a net +375)."""
    out = [0] * len(row["scores"])
    for code, seat, value in row["notes"]:
        if not 0 <= seat < len(out):
            continue
        if code in _WRITTEN:
            out[seat] += value
        elif code in ("sitter_nothing", "frozen"):
            out[seat] -= value
    return out


def row_notes(row: dict[str, Any]) -> list[tuple[str, int, int]]:
    """The deal's notes as (code, seat, value), the 555 dump with the total it hit
    (555 or −555)."""
    out = []
    for code, seat, value in row["notes"]:
        if code == "samosval" and 0 <= seat < len(row["totals"]):
            before = row["totals"][seat] - row["scores"][seat]
            value = -555 if before < 0 else 555
        out.append((str(code), int(seat), int(value)))
    return out


def deal_summary(lang: str, row: dict[str, Any], seats: Sequence[SeatLabel]) -> list[str]:
    """The lines a finished deal leaves on the table: who played what and what that wrote,
    then each later effect in words (bolts, barrel, falls, the 555 dump), then the totals."""
    n, decl = row["n"], row["declarer"]
    outcome = row["outcome"]
    scores = written_points(row)
    name = seat_name(seats, decl) if decl >= 0 else ""
    lines: list[str] = []
    if outcome == "redeal":
        code, seat = row["notes"][0][0], row["notes"][0][1]
        lines.append(t(lang, "summary.head", n=n) + " " + redeal_line(lang, code, seat, seats))
    elif outcome == "conceded":
        lines.append(t(lang, "summary.conceded", n=n, name=name, bid=row["bid"],
                       score=signed(scores[decl])))
    elif outcome in ("made", "failed"):
        lines.append(t(lang, f"summary.{outcome}", n=n, name=name, contract=row["contract"],
                       points=row["points"][decl], score=signed(scores[decl])))
    else:
        lines.append(t(lang, "summary.head", n=n))
    others = [f"{seat_name(seats, i)} {signed(s)}" for i, s in enumerate(scores)
              if i != decl and outcome != "redeal"]
    if others:
        lines.append(" · ".join(others))
    for code, seat, value in row_notes(row):
        if code in _NOTE_SHOWN and code != "winner":
            lines.append("• " + note_line(lang, code, seat, value, seats))
    lines.append(t(lang, "summary.totals", totals=_totals(row["totals"], seats)))
    if row.get("winner", -1) >= 0:
        lines.append(t(lang, "summary.winner", name=seat_name(seats, row["winner"]),
                       total=num(row["totals"][row["winner"]])))
    return lines


def _totals(totals: Sequence[int], seats: Sequence[SeatLabel]) -> str:
    return " · ".join(f"{seat_name(seats, i)} {num(x)}" for i, x in enumerate(totals))


def render_deal_end(lang: str, row: dict[str, Any], seats: Sequence[SeatLabel],
                    *, stopped: bool = False, game_id: int = 0, last: Trick | None = None,
                    me: int = -1) -> Rendered:
    """What a table or hand message of a finished deal turns into: the deal's last trick
    first (``last``: its cards and who took it, as the table showed each trick before;
    ``me``: the seat whose hand it is), then the summary; with ``game_id``, a deal that
    was played out gets a 🔍 button (its open-card analysis)."""
    lines = [done_trick_line(lang, "summary.last_trick", last, seats, me)] if last else []
    lines += deal_summary(lang, row, seats)
    if row.get("winner", -1) >= 0:
        lines.append(t(lang, "summary.game_over"))
    if stopped:
        lines.append(t(lang, "game.stopped"))
    rows: Keyboard = ()
    if game_id and row.get("outcome") in ("made", "failed") and row.get("declarer", -1) >= 0:
        rows = ((Button(t(lang, "btn.analyse"),
                        cb.encode(game_id, 0, cb.ANALYSE, str(row["n"]))),),)
    return Rendered(fit("\n".join(lines)), rows)


def render_stopped(lang: str, totals: Sequence[int], seats: Sequence[SeatLabel]) -> Rendered:
    return Rendered(fit(t(lang, "game.stopped") + "\n" +
                        t(lang, "summary.totals", totals=_totals(totals, seats))))


def render_left(lang: str) -> Rendered:
    return Rendered(t(lang, "hand.left"))


# --------------------------------------------------------------------------- /score


# The sheet is monospace: only ASCII marks (emoji and symbols from fallback fonts are wider
# than a column); the legend under the sheet names the marks it uses.
_MARKS: Final = {"bolt": "|", "penalty": "!", "barrel_on": "^", "barrel_back": "<",
                 "fall": "_", "knocked_off": "_", "third_fall": "_", "samosval": "~",
                 "winner": "*"}
_MARK_NAMES: Final = {"|": "bolt", "!": "penalty", "^": "barrel_on", "<": "barrel_back",
                      "_": "fall", "~": "samosval", "*": "winner", "+": "made", "-": "failed",
                      "$": "golden", "#": "dark"}
SHEET_NAME_LIMIT: Final = 6  # a seat's name on the sheet: its column, the dealer, the game
SHEET_LABEL_LIMIT: Final = SHEET_NAME_LIMIT  # (the dealer and the declarer: the same names)


def _cell_parts(row: dict[str, Any], i: int) -> tuple[str, str]:
    """A seat's cell of a row: its total (ASCII minus: one column each) and its marks."""
    return (str(row["totals"][i]),
            "".join(_MARKS.get(m, "") for m in row["marks"][i]))


def render_score(lang: str, rows: Sequence[dict[str, Any]], seats: Sequence[SeatLabel],
                 *, title: str = "") -> str:
    """The score sheet as a monospace table with marks, and the last deal in words.

    Under a title (the sheet of the game now, unless ``title`` says another), a row a deal:
    the deal's number, the dealer and the game by their names as the columns show them,
    then each seat's total with its marks after it: the numbers of a column end in one
    place whatever marks follow them."""
    if not rows:
        return (title + "\n" if title else "") + t(lang, "score.empty")
    title = title or t(lang, "score.title")
    full = [s.name for s in seats]
    names = unique_names(full, SHEET_NAME_LIMIT)
    labels = names
    games = [_game_cell(lang, row, labels) for row in rows]
    deal_word, dealer = t(lang, "score.deal"), t(lang, "score.dealer")
    gw = max(len(g) for g in [*games, t(lang, "score.game")])
    kw = max(3, len(deal_word))
    dw = max([len(dealer), *(len(x) for x in labels)])
    parts = [[_cell_parts(row, i) for i in range(len(names))] for row in rows]
    nums = [max(len(c[i][0]) for c in parts) for i in range(len(names))]
    mks = [max(len(c[i][1]) for c in parts) for i in range(len(names))]
    widths = [max(len(nm), n + m) for nm, n, m in zip(names, nums, mks, strict=True)]
    head = f"{deal_word:>{kw}} {dealer:<{dw}} {t(lang, 'score.game'):<{gw}}"
    head += "".join(f" {nm:>{w}}" for nm, w in zip(names, widths, strict=True))

    body = []
    used: set[str] = set()
    for row, game, cell in zip(rows, games, parts, strict=True):
        who = labels[row["dealer"]] if 0 <= row["dealer"] < len(labels) else "?"
        line = f"{row['n']:>{kw}} {who:<{dw}} {game:<{gw}}"
        line += "".join(f" {f'{x:>{n}}{mk:<{m}}':>{w}}" for (x, mk), n, m, w
                        in zip(cell, nums, mks, widths, strict=True))
        body.append(line)
        used.update(_MARKS[m] for marks in row["marks"] for m in marks if m in _MARKS)
        used.update({"made": "+", "failed": "-"}.get(row["outcome"], ""),
                    {"golden": "$", "dark": "#"}.get(str(row.get("kind")), ""))
    last = rows[-1]
    words = [note_line(lang, c, s, v, seats) for c, s, v in row_notes(last)
             if c in _NOTE_SHOWN or c.startswith("redeal_") or c == "winner"]
    marks = [f"{esc(m)} {t(lang, f'mark.{name}')}" for m, name in _MARK_NAMES.items()
             if m in used]  # ("<" is HTML: escaped)
    who_is = [f"{esc(lb)} — {esc(nm)}" for lb, nm in zip(labels, full, strict=True)
              if lb != " ".join(nm.split())]
    legend_parts = []
    if marks:
        legend_parts.append(t(lang, "score.legend", marks=" · ".join(marks)))
    if who_is:
        legend_parts.append(t(lang, "score.labels", labels=", ".join(who_is)))

    def build(skip: int) -> str:
        parts = [title]
        table_lines = [head]
        if skip:
            table_lines.append(t(lang, "score.skipped", k=skip))
        table_lines += body[skip:]
        parts.append("<pre>" + esc("\n".join(table_lines)) + "</pre>")
        parts.extend(legend_parts)
        if words:
            parts.append(t(lang, "score.last", n=last["n"]) + "\n" + "\n".join(
                "• " + w for w in words))
        return "\n".join(parts)

    skip = 0
    text = build(0)
    while len(text) > MAX_TEXT and skip < len(body) - 1:
        skip += max(1, (len(text) - MAX_TEXT) // 40)
        skip = min(skip, len(body) - 1)
        text = build(skip)
    return fit(text)


def _game_cell(lang: str, row: dict[str, Any], labels: Sequence[str]) -> str:
    """The game of a row: the declarer (its name as wide as the widest, so that the
    contracts stand in one column), the contract and what came of it; or a redeal."""
    decl, outcome = row["declarer"], row["outcome"]
    lw = max((len(x) for x in labels), default=1)
    who = labels[decl] if 0 <= decl < len(labels) else "?"
    if outcome == "redeal":
        game = t(lang, "score.redeal")
    elif outcome == "conceded":
        game = f"{who:<{lw}} {row['bid']:>3} {t(lang, 'score.conceded')}"
    elif outcome == "made":
        game = f"{who:<{lw}} {row['contract']:>3} +"
    elif outcome == "failed":
        game = f"{who:<{lw}} {row['contract']:>3} -"
    else:
        game = "·"
    if row.get("kind") == "golden":
        game += " $"
    elif row.get("kind") == "dark":
        game += " #"
    return game


def render_game_end(lang: str, game_id: int, rows: Sequence[dict[str, Any]],
                    seats: Sequence[SeatLabel], winner: int) -> str:
    """The final score sheet posted when a game ends."""
    del game_id, winner  # the sheet's last deal names the winner
    return render_score(lang, rows, seats, title=t(lang, "end.title"))


def end_keyboard(lang: str, game_id: int) -> Keyboard:
    """"Rematch" (the same seats and rules, the next dealer) and "New table"."""
    return ((Button(t(lang, "end.rematch"), cb.encode(game_id, 0, cb.REMATCH)),
             Button(t(lang, "end.new_table"), cb.encode(game_id, 0, cb.NEW_TABLE))),)


def pictures_keyboard(lang: str, game_id: int) -> Keyboard:
    """The "🖼" button under a score sheet: the sheet and the race to 1000 as pictures."""
    return ((Button(t(lang, "pictures.button"), cb.encode(game_id, 0, cb.PICTURES)),),)
