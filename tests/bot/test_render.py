"""Rendering and keyboards as plain functions of views (no Telegram)."""

from __future__ import annotations

import dataclasses
import html
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from bot.ai.explain import Analysis, Mistake
from bot.engine import cards as C
from bot.engine.game import apply, legal_actions, new_game
from bot.engine.record import last_trick
from bot.engine.rule_texts import RULE_ALIASES
from bot.engine.rules import RULE_IDS, RULE_SPECS, RulesError, make_rules
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    LIGHT,
    TALON,
    Action,
    GameState,
    IllegalAction,
    Phase,
    Trick,
)
from bot.engine.views import TableView, public_view, view
from bot.i18n import LANGS, has
from bot.i18n import t as catalog_text
from bot.tg.model import Event, sheet_row
from bot.tg.rooms.hints import action_words, analysis_text
from bot.tg.view import callbacks as cb
from bot.tg.view import render as R

SEATS = (R.SeatLabel("Анна"), R.SeatLabel("Борис <b>"), R.SeatLabel("Вера", computer=True),
         R.SeatLabel("Глеб", auto=True))


def states(players: int, preset: str = "full", seed: int = 1, steps: int = 700
           ) -> Iterator[GameState]:
    rng = random.Random(seed)
    st = new_game(make_rules(preset, players=players), seed)
    for _ in range(steps):
        if st.phase == Phase.GAME_OVER:
            return
        yield st
        st = apply(st, rng.choice(legal_actions(st)))


def texts_of(r: R.Rendered) -> str:
    return r.text + "\n" + "\n".join(b.text for row in r.keyboard for b in row)


def card_strings(c: int) -> tuple[str, str]:
    return R.card_text(c), R.card_button(c)


def known_to(v: TableView) -> set[int]:
    known = set(v.talon) | {c for _, c in v.gave} | set(v.discarded)
    for t in v.tricks:
        known |= {c for _, c in t.cards}
    known |= {c for _, c in v.trick}
    if v.received >= 0:
        known.add(v.received)
    return known


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("preset", ["classic", "full"])
def test_no_message_shows_a_card_its_reader_may_not_know(players: int, preset: str) -> None:
    info = R.TableInfo(12, SEATS[:players])
    for st in states(players, preset, seed=players):
        d = st.deal
        assert d is not None
        pv = public_view(st)
        table = texts_of(R.render_table("ru", pv, info))
        public_known = known_to(pv)
        for seat in range(players):
            v = view(st, seat)
            hand = texts_of(R.render_hand("ru", v, info))
            known = known_to(v) | set(v.hand)
            for other in range(players):
                if other == seat:
                    continue
                for c in set(d.hands[other]) - known:
                    assert not any(s in hand for s in card_strings(c)), (seat, c, hand)
            for c in set(d.hands[seat]) - public_known:
                assert not any(s in table for s in card_strings(c)), (c, table)


def reachable(lang: str, v: TableView, info: R.TableInfo
              ) -> tuple[dict[Action, int], list[R.Rendered]]:
    """Every action on the hand's buttons with the presses it takes (1: on the first page,
    2: on a page a first-page button opens), and the pages seen."""
    first = R.render_hand(lang, v, info)
    found: dict[Action, int] = {}
    pages = [first]
    todo = []
    for row in first.keyboard:
        for b in row:
            c = cb.decode(b.data)
            assert c is not None
            if c.verb == cb.PAGE:
                todo.append(c.arg)
    for page in todo:
        pages.append(R.render_hand(lang, v, info, page))
    for depth, r in enumerate(pages):
        for row in r.keyboard:
            for b in row:
                c = cb.decode(b.data)
                assert c is not None
                action = c.action()
                if action is not None and action not in found:
                    found[action] = 1 if depth == 0 else 2
    return found, pages


@pytest.mark.parametrize("players", [2, 3, 4])
def test_buttons_are_exactly_the_legal_actions(players: int) -> None:
    info = R.TableInfo(5, SEATS[:players], (Event("timeout", 0), Event("unblind", 1, 125)))
    for st in states(players, "full", seed=10 + players):
        for seat in range(players):
            v = view(st, seat)
            found, pages = reachable("en", v, info)
            for r in pages:
                assert len(r.text) <= R.MAX_TEXT
                shown = []
                for row in r.keyboard:
                    assert len(row) <= 8
                    for b in row:
                        assert b.data is not None and len(b.data.encode()) <= cb.MAX_BYTES
                        c = cb.decode(b.data)
                        assert c is not None and c.version == st.version and c.game_id == 5
                        action = c.action()
                        if action is None:  # a page of the seat's own buttons, or 💡
                            assert c.verb in (cb.PAGE, cb.HINT) and seat == st.to_act
                            continue
                        shown.append(action)
                assert len(shown) == len(set(shown))
                assert sum(len(row) for row in r.keyboard) <= 100
            if seat != st.to_act:
                # nothing but a late redeal request (four nines after the pass) out of turn
                assert set(found) == set(v.offers) and "to move" in pages[0].text
                continue
            # every legal action, and nothing else, one press away or two
            assert set(found) == set(v.legal)


def test_the_table_message_and_its_two_buttons() -> None:
    st = next(s for s in states(3, "classic", seed=4) if s.phase == Phase.PLAY and s.deal
              and s.deal.trick)
    r = R.render_table("ru", public_view(st), R.TableInfo(3, SEATS[:3]))
    assert "Взятка:" in r.text and "Ход:" in r.text and "Борис &lt;b&gt;" in r.text
    assert [[b.data for b in row] for row in r.keyboard] == [["g3:0:h:", "g3:0:s:"]]


def test_deal_summaries_and_every_note_have_words() -> None:
    codes = set()
    for players in (2, 3, 4):
        for preset in ("classic", "full"):
            last = None
            for st in states(players, preset, seed=20 + players, steps=3000):
                last = st
            assert last is not None
            for res in last.history:
                row = sheet_row(res)
                for lang in ("ru", "en"):
                    lines = R.deal_summary(lang, row, SEATS[:players])
                    assert lines and all(line for line in lines)
                codes |= {n.code for n in res.notes}
    for code in codes:
        if code.startswith("redeal_"):
            assert has(f"redeal.{code[7:]}"), code
        else:
            assert has(f"note.{code}"), code


def test_score_sheet_is_monospace_and_fits_by_dropping_early_deals() -> None:
    last = None
    for st in states(3, "full", seed=2, steps=3000):
        last = st
    assert last is not None
    rows = [sheet_row(r) for r in last.history]
    text = R.render_score("ru", rows, SEATS[:3])
    assert "<pre>" in text and "Анна" in text
    many = rows * 40
    for i, row in enumerate(many):
        many[i] = dict(row, n=i + 1)
    long = R.render_score("ru", many, SEATS[:3])
    assert len(long) <= R.MAX_TEXT and "первые коны скрыты" in long
    assert f"{len(many):>3} " in long  # the latest deal is kept


def test_lobby_and_every_settings_page() -> None:
    rules = make_rules("full")
    for lang in ("ru", "en"):
        pages = ["", "m"] + [f"s{k}" for k in range(len(R.SECTIONS))] + \
            [f"r{i}" for i in range(len(RULE_IDS))]
        for page in pages:
            info = R.LobbyInfo(9, 4, rules, SEATS[:2], "hard", "Борис — за столом", page)
            r = R.render_lobby(lang, info)
            assert len(r.text) <= R.MAX_TEXT
            for row in r.keyboard:
                for b in row:
                    c = cb.decode(b.data)
                    assert c is not None and c.game_id == 9 and c.version == 4, b
                    if c.verb == cb.MENU:
                        assert R.menu_page(c.arg) is not None
                    if c.verb == cb.SET:
                        i, j = map(int, c.arg.split("."))
                        assert j < len(RULE_SPECS[RULE_IDS[i]].options)
    lobby = R.render_lobby("ru", R.LobbyInfo(9, 4, rules, SEATS[:2], "hard"))
    assert "полные правила" in lobby.text and "3. — свободно —" in lobby.text


def test_rules_texts() -> None:
    for lang in LANGS:
        pieces = R.render_rules(lang, make_rules("full", penalty=100))
        assert all(len(p) <= R.MAX_TEXT for p in pieces)
        for rid in RULE_IDS:
            assert len(R.render_rule(lang, rid, make_rules("classic"))) <= R.MAX_TEXT
    assert R.find_rule("Бочка") == "barrel"
    assert R.find_rule("втёмную") == "dark_play"
    assert R.find_rule("bid step") == "bid_step"
    assert R.find_rule("golden_round") == "golden_round"
    assert R.find_rule("нет такого") is None
    for alias, rid in RULE_ALIASES.items():
        assert R.find_rule(alias) == rid
    for lang in LANGS:  # every rule's name, in every language, finds the rule
        for rid in RULE_IDS:
            assert R.find_rule(R.rule_name(lang, rid)) == rid, (lang, rid)
    # Ukrainian words, with any apostrophe
    assert R.find_rule("розпис") == "rospis" and R.find_rule("Гра втемну") == "dark_play"
    assert R.find_rule("мар'яж з першого ходу") == "marriage_first_lead"
    assert R.find_rule("Мар’яж із першого ходу") == "marriage_first_lead"
    assert R.find_rule("самоскид") == "samosval" and R.find_rule("на бочці") == "barrel"


def test_split_and_fit() -> None:
    text = "\n".join("строка " * 30 for _ in range(100))
    parts = R.split_text(text)
    assert all(len(p) <= R.MAX_TEXT for p in parts) and len(parts) > 1
    assert len(R.fit("x" * 5000)) <= R.MAX_TEXT
    assert len(R.popup("слово " * 100)) <= R.MAX_POPUP


# --------------------------------------------------------------------------- readable tables


def test_unique_names_are_short_distinct_and_keep_their_order() -> None:
    assert R.unique_names(["Анна", "Андрей", "Вера"], 2) == ["Ан", "А2", "Ве"]
    assert R.unique_names(["Вера", "Вера", "Вера"]) == ["Вера", "Вера 2", "Вера 3"]
    assert R.unique_names(["Компьютер 1", "Компьютер 2"], 3) == ["Ко1", "Ко2"]
    assert R.unique_names(["", "Очень длинное имя человека"], 12) == ["?", "Очень длинн…"]
    for limit in (1, 2, 3, 6, 12):
        names = ["Анна", "Анна", "Аня", "Андрей", "Компьютер 1", "Компьютер 2", " "]
        out = R.unique_names(names, limit)
        assert len(set(out)) == len(out) and all(0 < len(x) <= limit for x in out), out
    labels = R.seat_labels((R.SeatLabel("Вера"), R.SeatLabel("Вера", computer=True)))
    assert [s.name for s in labels] == ["Вера", "Вера 2"] and labels[1].computer


def _game_with(players: int, pred: object, seeds: range = range(1, 300)) -> GameState:
    for seed in seeds:
        for st in states(players, "classic", seed=seed, steps=4000):
            if pred(st):  # type: ignore[operator]
                return st
    raise AssertionError("no such state")


def test_bolts_are_words_on_the_table() -> None:
    st = _game_with(3, lambda s: s.phase == Phase.PLAY and max(s.bolts) >= 2)
    text = R.render_table("ru", public_view(st), R.TableInfo(3, SEATS[:3])).text
    assert "болт ×2" in text and "|" not in text
    assert "bolt ×2" in R.render_table("en", public_view(st), R.TableInfo(3, SEATS[:3])).text


def test_the_trick_counts_keep_the_seat_order_in_every_deal() -> None:
    seen_deals = set()
    for st in states(4, "classic", seed=5, steps=4000):
        d = st.deal
        if d is None or st.phase != Phase.PLAY or not d.tricks or d.trick:
            continue
        seen_deals.add(d.number)
        line = next(x for x in R.render_table("ru", public_view(st), R.TableInfo(
            3, SEATS)).text.split("\n") if x.startswith("Взятки:"))
        names = [R.seat_name(SEATS, i) for i in sorted(d.active)]
        positions = [line.index(n) for n in names]
        assert positions == sorted(positions), line
    assert len(seen_deals) >= 4  # every dealer's deal, the active seats rotating


def _keyboard_values(r: R.Rendered) -> list[int]:
    vals = []
    for row in r.keyboard:
        for b in row:
            c = cb.decode(b.data)
            assert c is not None
            a = c.action()
            if a is not None and a.kind in (BID, CONTRACT):
                vals.append(a.value)
    return vals


@pytest.mark.parametrize("kind", [BID, CONTRACT])
def test_every_bid_and_contract_to_the_cap_is_at_most_two_presses_away(kind: str) -> None:
    st = next(s for s in states(3, "classic", seed=3) if s.phase == Phase.BIDDING)
    v = view(st, st.to_act)
    phase = Phase.BIDDING if kind == BID else Phase.CONTRACT
    info = R.TableInfo(7, SEATS[:3])
    for step in (5, 10):
        for lo in range(100, 305, 5):
            for cap in (lo, lo + 5, lo + 40, lo + 60, 300):
                values = list(range(lo, min(cap, 300) + 1, step))
                legal = [Action(BID, value=x) if kind == BID else Action(CONTRACT, value=x)
                         for x in values]
                extra = [Action("pass")] if kind == BID else [Action("concede")]
                w = replace(v, phase=phase, legal=tuple(extra + legal), bid=lo - step,
                            declarer=v.seat if kind == CONTRACT else -1)
                found, pages = reachable("ru", w, info)
                assert set(found) == set(w.legal), (lo, cap, step)
                first = _keyboard_values(pages[0])
                assert first == sorted(first) and first[:3] == values[:3]  # the next ones
                # every round value on the first page, in the order players think of them
                assert [x for x in values if x % 10 == 0] == [x for x in first if x % 10 == 0]
                for page in pages[1:]:
                    more = _keyboard_values(page)
                    assert more == sorted(more) and not set(more) & set(first)
                    assert more, "a page with no bids"
                    back = [b for row in page.keyboard for b in row if b.text == "⬅️ Назад"]
                    assert len(back) == 1 and cb.decode(back[0].data).arg == ""  # type: ignore[union-attr]
                    assert sum(len(row) for row in page.keyboard) <= 100
                assert sum(len(row) for row in pages[0].keyboard) <= 27
    # the keyboard: 120 … 220 in bidding, with every round bid one press away
    w = replace(v, legal=(Action("pass"), *(Action(BID, value=x) for x in range(120, 225, 5))))
    page1 = R.render_hand("ru", w, info)
    labels = [b.text for row in page1.keyboard for b in row]
    assert labels[:4] == ["Пас", "120", "125", "130"]
    assert {"170", "180", "190", "200"} <= set(labels) and "Ещё: 135 … 215" in labels
    page2 = R.render_hand("ru", w, info, "m")
    assert [b.text for row in page2.keyboard for b in row] == \
        ["135", "145", "155", "165", "175", "185", "195", "205", "215", "⬅️ Назад"]
    assert page2.text.split("\n")[-1] == page1.text.split("\n")[-1]  # the same question


def test_a_marriage_is_the_button_and_the_plain_lead_a_deliberate_second_step() -> None:
    seen = 0
    info = R.TableInfo(7, SEATS[:3])
    for seed in range(1, 40):
        for st in states(3, "classic", seed=seed, steps=3000):
            if st.phase != Phase.PLAY or st.to_act < 0:
                continue
            v = view(st, st.to_act)
            declares = {a.card for a in v.legal if a.kind == "declare"}
            if not declares:
                continue
            seen += 1
            for lang in ("ru", "uk", "en"):
                found, pages = reachable(lang, v, info)
                assert set(found) == set(v.legal)
                first = pages[0]
                labels = [b.text for row in first.keyboard for b in row]
                for c in declares:  # the card is shown declaring, not plain beside it
                    assert any(x.startswith(R.card_button(c) + " 💍") for x in labels)
                    assert R.card_button(c) not in labels
                    assert found[Action("declare", card=c)] == 1
                    assert found[Action("play", card=c)] == 2
                plain = R.render_hand(lang, v, info, "l")
                shown = [b.text for row in plain.keyboard for b in row]
                assert "💍" not in " ".join(shown)
                assert sorted(shown[:-1]) == sorted(R.card_button(c) for c in declares)
            labels = [b.text for row in R.render_hand("ru", v, info).keyboard for b in row]
            assert "Без марьяжа…" in labels
            assert "без марьяжа" in R.render_hand("ru", v, info, "l").text
        if seen >= 30:
            break
    assert seen >= 30


def _points_from_tricks(v: TableView) -> list[int]:
    """A seat's points counted from what everybody saw: the cards of the tricks it won and
    the marriages it declared."""
    pts = [0] * v.n
    for tr in v.tricks:
        pts[tr.winner] += sum(C.POINTS[c] for _, c in tr.cards)
    for m in v.declared:
        pts[m.seat] += m.value
    return pts


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_running_points_are_on_the_table_and_in_every_hand(players: int) -> None:
    info = R.TableInfo(7, SEATS[:players])
    seen = 0
    for st in states(players, "classic", seed=30 + players, steps=3000):
        pv = public_view(st)
        if st.phase != Phase.PLAY or not pv.tricks:
            assert "набрано" not in R.render_table("ru", pv, info).text
            continue
        seen += 1
        pts = _points_from_tricks(pv)
        decl = pv.declarer
        table = R.render_table("ru", pv, info).text
        line = next(x for x in table.split("\n") if x.startswith("Очки:"))
        assert line.startswith(f"Очки: {R.seat_name(SEATS, decl)} — набрано {pts[decl]} из "
                               f"{pv.contract}"), line
        for s in pv.active:
            if s != decl:  # a defender's points, unless the barrel says they do not count
                assert (f"{R.seat_name(SEATS, s)} {pts[s]}" in line) == (pv.barrel[s] < 0)
        for seat in pv.active:
            hand = R.render_hand("ru", view(st, seat), info).text
            mine = next(x for x in hand.split("\n") if x.startswith("Очки:"))
            name = "вы" if seat == decl else R.seat_name(SEATS, decl)
            assert mine.startswith(f"Очки: {name} — набрано {pts[decl]} из {pv.contract}")
        en = R.render_table("en", pv, info).text
        assert f"{pts[decl]} of {pv.contract}" in en
    assert seen > 20


def test_the_running_points_leave_out_a_defender_on_the_barrel() -> None:
    st = _game_with(3, lambda s: s.phase == Phase.PLAY and s.deal is not None and s.deal.tricks
                    and any(b >= 0 for i, b in enumerate(s.barrel) if i != s.deal.declarer))
    pv = public_view(st)
    line = next(x for x in R.render_table("ru", pv, R.TableInfo(7, SEATS[:3])).text.split("\n")
                if x.startswith("Очки:"))
    for s in pv.active:
        if s != pv.declarer:
            assert (R.seat_name(SEATS, s) in line) == (pv.barrel[s] < 0), line


def test_stock_play_counts_every_seat() -> None:
    rng = random.Random(4)
    st = new_game(make_rules("classic", players=2, two_player_mode="stock"), 4)
    while not (st.phase == Phase.PLAY and st.deal is not None and len(st.deal.tricks) >= 3):
        st = apply(st, rng.choice(legal_actions(st)))
    pv = public_view(st)
    pts = _points_from_tricks(pv)
    text = R.render_table("ru", pv, R.TableInfo(7, SEATS[:2])).text
    assert f"Очки: Анна {pts[0]} · Борис &lt;b&gt; {pts[1]}" in text


def _dump_row() -> dict[str, object]:
    """Anna at −375 fails 180 (−555) and the dump brings her to 0: a net +375."""
    return {"n": 10, "dealer": 1, "kind": "normal", "declarer": 0, "bid": 180,
            "contract": 180, "outcome": "failed", "points": [13, 35, 20],
            "scores": [375, 35, 20], "totals": [0, 335, 220],
            "marks": [["failed", "samosval"], [], []],
            "notes": [["contract_failed", 0, -180], ["defender_points", 1, 35],
                      ["defender_points", 2, 20], ["samosval", 0, 0]], "winner": -1}


def test_a_failed_contract_and_the_dump_are_two_effects() -> None:
    row = _dump_row()
    assert R.written_points(row) == [-180, 35, 20]
    lines = R.deal_summary("ru", row, SEATS[:3])
    assert lines[0] == "Кон 10 — Анна: игра 180, взято 13 — недобор, −180"
    assert "+375" not in "\n".join(lines)
    assert "• Анна: ровно −555 — самосвал, счёт на ноль" in lines
    assert lines[-1].startswith("Счёт: Анна 0")
    en = R.deal_summary("en", row, SEATS[:3])
    assert en[0] == "Deal 10 — Анна: contract 180, took 13 — failed, −180"


def test_the_score_sheet_is_aligned_ascii_with_a_legend_and_unique_labels() -> None:
    seats = R.seat_labels((R.SeatLabel("Анна"), R.SeatLabel("Компьютер 1", computer=True),
                           R.SeatLabel("Компьютер 2", computer=True)))
    last = None
    for st in states(3, "full", seed=2, steps=3000):
        last = st
    assert last is not None
    rows = [sheet_row(r) for r in last.history] + [_dump_row()]
    for lang in ("ru", "en"):
        text = R.render_score(lang, rows, seats)
        pre = text[text.index("<pre>") + 5 : text.index("</pre>")]
        lines = [x for x in pre.split("\n") if not x.startswith("…")]
        # one cell a character: ASCII and Cyrillic only, so every row is as wide as the head
        assert all(ch.isascii() or "А" <= ch <= "я" or ch in "Ёё·…" for x in lines for ch in x)
        assert len({len(x) for x in lines}) == 1, pre
        head = lines[0].split()
        assert head[-2:] == ["Компь1", "Компь2"]
        dealers = {x.split()[1] for x in lines[1:]}
        assert dealers <= {"Анна", "Компь1", "Компь2"}  # the names of the columns
        legend = text[text.index("</pre>"):]
        assert ("~ самосвал" in legend) if lang == "ru" else ("~ 555 dump" in legend)
        assert "Компь1 — Компьютер 1" in legend and "Анна —" not in legend


def _sheet_rows(seed: int = 2, players: int = 3) -> list[dict[str, Any]]:
    last = None
    for st in states(players, "full", seed=seed, steps=3000):
        last = st
    assert last is not None
    return [sheet_row(r) for r in last.history]


def test_the_sheet_has_a_title_full_names_and_the_words_of_the_messages() -> None:
    rows = _sheet_rows()[:25]
    seats = (R.SeatLabel("Анна"), R.SeatLabel("Борис"), R.SeatLabel("Вера"))
    for lang, title, head in (("ru", "📋 Запись партии", ["Кон", "Сдаёт", "Игра"]),
                              ("uk", "📋 Запис партії", ["Кін", "Здає", "Гра"]),
                              ("en", "📋 Score sheet", ["Deal", "Dealer", "Game"])):
        text = R.render_score(lang, rows, seats)
        assert text.split("\n")[0] == title  # during a game too (no title given)
        pre = text[text.index("<pre>") + 5 : text.index("</pre>")].split("\n")
        assert pre[0].split()[:3] == head
        for line in pre[1:]:
            cells = line.split()
            assert cells[1] in ("Анна", "Борис", "Вера")  # the dealer by name
            if not any(w in line for w in ("пересдача", "перездача", "redeal")):
                assert cells[2] in ("Анна", "Борис", "Вера"), line  # the declarer by name
    assert R.render_score("ru", [], seats) == "Сыгранных конов пока нет."  # one line
    final = R.render_score("ru", rows, seats, title="🏁 Итог")
    assert final.startswith("🏁 Итог\n<pre>")


def test_the_sheet_numbers_stand_in_columns_whatever_the_marks() -> None:
    """A total ends in the same place in every row of its column, with or without marks
    (``20|!`` beside ``-255``)."""
    seats = (R.SeatLabel("Анна"), R.SeatLabel("Борис"), R.SeatLabel("Вера"))
    rows = _sheet_rows(seed=5)[:30]
    row = dict(rows[-1], n=len(rows) + 1, totals=[20, -255, 5],
               marks=[["bolt", "penalty"], ["bolt", "penalty", "barrel_on"], []])
    rows.append(row)
    assert any(any(m for m in r["marks"]) for r in rows[:-1])
    for lang in ("ru", "en"):
        text = R.render_score(lang, rows, seats)
        pre = text[text.index("<pre>") + 5 : text.index("</pre>")].split("\n")
        lines = [html.unescape(x) for x in pre]
        ends: dict[int, set[int]] = {}
        for line, r in zip(lines[1:], rows, strict=True):
            pos = len(line)
            for i in reversed(range(3)):  # from the right: each cell's total
                number = str(r["totals"][i])
                k = line.rfind(number, 0, pos)
                assert k >= 0, (line, number)
                ends.setdefault(i, set()).add(k + len(number))
                pos = k
        assert all(len(v) == 1 for v in ends.values()), (ends, "\n".join(lines))
        assert "20|!" in lines[-1] and "-255|!^" in lines[-1]


# --------------------------------------------------------------------------- refusals


def _engine_codes() -> dict[str, set[str]]:
    """Every refusal code the engine raises (IllegalAction, RulesError, Problem), with the
    parameter names it passes, read from the engine's source."""
    import ast
    from pathlib import Path

    import bot.engine

    codes: dict[str, set[str]] = {}
    root = Path(bot.engine.__file__).resolve().parent
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                name = node.func.id
                pos = {"IllegalAction": 1, "RulesError": 1, "Problem": 0}.get(name)
                if pos is None:
                    continue
                code = next((k.value for k in node.keywords if k.arg == "code"), None)
                if code is None and len(node.args) > pos:
                    code = node.args[pos]
                params = {k.arg for k in node.keywords if k.arg not in (None, "code", "problems")}
                if name == "Problem" and len(node.args) > 2 and isinstance(node.args[2], ast.Dict):
                    params = {k.value for k in node.args[2].keys
                              if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    codes.setdefault(code.value, set()).update(params)
                elif name == "Problem":  # a code from a table (the two-player inert rules)
                    codes.setdefault("?table", set()).add("rule")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.startswith("inert_"):
                codes.setdefault(node.value, set()).add("rule")
    codes.pop("?table", None)
    return codes


SAMPLE: dict[str, int | str] = {
    "card": 22, "suit": 3, "seat": 1, "to_act": 2, "phase": "bidding", "kind": "bid",
    "rule": "max_bid", "parent": "barrel", "other": "no_lead_foreign_trump",
    "value": "ы", "text": "ы", "word": "ы", "preset": "ы"}


def test_every_refusal_code_has_both_translations_and_russian_has_no_english() -> None:
    import re

    from bot.i18n import CATALOGS

    codes = _engine_codes()
    assert {"declare_not_on_lead", "declare_needs_trick", "must_lead_trump",
            "no_lead_foreign_trump", "unblind_only_125", "inert_stock",
            "inert_simultaneous_fall", "inert_two_card_talon", "bid_min_total"} <= set(codes)
    allowed = set(RULE_IDS) | {str(o) for spec in RULE_SPECS.values() for o in spec.options}
    for code, params in sorted(codes.items()):
        for lang in ("ru", "en"):
            assert f"refuse.{code}" in CATALOGS[lang], (lang, code)
        ru = CATALOGS["ru"][f"refuse.{code}"]
        words = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", re.sub(r"\{[a-z_]+\}", "", ru))
        assert set(words) <= allowed, (code, words)  # only rule ids and their values
        err = IllegalAction("x", code, **{p: SAMPLE.get(p, 5) for p in params})
        for lang in ("ru", "en"):
            text = R.refusal_text(lang, err, SEATS)
            assert "{" not in text and text.strip(), (code, text)
        ru_text = R.refusal_text("ru", err, (R.SeatLabel("Анна"), R.SeatLabel("Борис")))
        rest = ru_text.replace(R.card_text(22), "")
        assert set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", rest)) <= allowed, (code, ru_text)


def test_refusals_are_said_in_the_players_language() -> None:
    s = new_game(make_rules(), first_dealer=0)
    from bot.engine import cards as C
    from bot.engine.game import deal
    from bot.engine.state import Layout
    hands = ("A♥ 10♥ K♥ Q♥ J♥ 9♥ A♠", "10♣ 9♦ J♦ Q♦ K♦ 10♦ A♦", "9♠ Q♠ K♠ 10♠ 9♣ Q♣ K♣")
    lay = Layout((C.parse_cards(hands[1]), C.parse_cards(hands[0]), C.parse_cards(hands[2])),
                 C.parse_cards("A♣ J♠ J♣"))
    s = deal(s, lay)
    for step in ("2 pass", "0 pass", "1 talon 1", "1 give J♠", "1 give J♣", "1 contract 120"):
        seat, action = step.split(" ", 1)
        s = apply(s, action, int(seat))
    with pytest.raises(IllegalAction) as e:
        apply(s, "declare K♥")
    assert R.refusal_text("ru", e.value, SEATS) == (
        "Марьяж можно объявить только своим заходом после взятой взятки в этом коне.")
    assert R.refusal_text("en", e.value, SEATS) == (
        "A marriage can be declared only by the player on lead after taking a trick in this "
        "deal.")
    with pytest.raises(IllegalAction) as e:
        apply(s, "play A♠", 0)
    assert R.refusal_text("ru", e.value, SEATS) == "Сейчас ход — Борис &lt;b&gt;, а не Анна."
    with pytest.raises(RulesError) as r:
        make_rules(players=2, two_player_mode="stock", bolts_limit=4)
    assert R.refusal_text("ru", r.value) == (  # the rule by its name, never its id
        "Правило «Болты до штрафа» ничего не меняет в игре вдвоём с добором: там нет "
        "торговли и договорённостей, действуют только число игроков и вид игры вдвоём.")


def test_the_settings_menu_hides_options_that_do_nothing() -> None:
    stock = make_rules(players=2, two_player_mode="stock")
    shown: set[str] = set()
    for k in range(len(R.SECTIONS)):
        page = R.render_settings("ru", R.LobbyInfo(9, 4, stock, SEATS[:2], "hard", "", f"s{k}"))
        for row in page.keyboard:
            for b in row:
                c = cb.decode(b.data)
                if c is not None and c.verb == cb.SET:
                    shown.add(RULE_IDS[int(c.arg.split(".")[0])])
                elif c is not None and c.verb == cb.MENU and c.arg.startswith("r"):
                    shown.add(RULE_IDS[int(c.arg[1:])])
    assert shown == {"players", "two_player_mode"}
    classic = R.render_settings("ru", R.LobbyInfo(9, 4, make_rules(barrel_knock_off=False),
                                                  SEATS[:2], "hard", "", "s7"))
    assert rule_name_shown(classic, "barrel_knock_off")
    assert not rule_name_shown(classic, "barrel_simultaneous_fall")


def rule_name_shown(page: R.Rendered, rid: str) -> bool:
    idx = RULE_IDS.index(rid)
    for row in page.keyboard:
        for b in row:
            c = cb.decode(b.data)
            if c is not None and ((c.verb == cb.SET and c.arg.split(".")[0] == str(idx))
                                  or (c.verb == cb.MENU and c.arg == f"r{idx}")):
                return True
    return False


def test_a_seat_whose_time_ran_out_twice_gets_one_line() -> None:
    st = next(s for s in states(3, "classic", seed=4) if s.phase == Phase.PLAY)
    events = (Event("timeout", 1), Event("timeout", 1), Event("timeout", 0))
    text = R.render_table("ru", public_view(st), R.TableInfo(3, SEATS[:3], events)).text
    assert text.count("время вышло") == 2 and text.count("Борис &lt;b&gt;: время вышло") == 1


def test_the_sheet_legend_escapes_the_barrel_back_mark() -> None:
    """"<" (back from the barrel) in the legend is HTML-escaped: a raw one made Telegram
    refuse the final sheet ("unsupported start tag")."""
    from tests.fakeapi.formatting import parse_formatted

    row = {"n": 1, "dealer": 0, "kind": "normal", "declarer": 0, "bid": 100, "contract": 100,
           "outcome": "made", "points": [0, 0, 0], "scores": [0, 0, 0], "totals": [880, 0, 0],
           "marks": [["barrel_back"], [], []], "notes": [], "winner": -1}
    labels = tuple(R.SeatLabel(n, False) for n in ("Анна", "Борис", "Вера"))
    for lang in LANGS:
        text = R.render_score(lang, [row], labels)
        parse_formatted(text, "HTML")  # raises on a tag Telegram refuses
        assert "&lt;" in text


def test_a_quiet_lobby_keeps_the_every_time_choices_in_view() -> None:
    """Sit, computers, the table's size and start in view; the rest behind «⚙️ Ещё…»; the
    computers' level only while a computer is seated."""
    rules = make_rules("classic")
    people = (R.SeatLabel("Анна"), R.SeatLabel("Борис"))
    for lang in LANGS:
        lobby = R.render_lobby(lang, R.LobbyInfo(9, 4, rules, people, "hard"))
        verbs = [cb.decode(b.data).verb for row in lobby.keyboard for b in row]  # type: ignore[union-attr]
        assert verbs == [cb.JOIN, cb.LEAVE, cb.ADD_AI, cb.PLAYERS, cb.MENU, cb.START, cb.CANCEL]
        assert len(lobby.keyboard) == 4
        level = R.level_name(lang, "hard")
        assert level not in lobby.text and level not in str(lobby.keyboard)
        with_computer = R.render_lobby(lang, R.LobbyInfo(9, 4, rules, (*people, SEATS[2]),
                                                         "hard"))
        shown = [cb.decode(b.data).verb for row in with_computer.keyboard  # type: ignore[union-attr]
                 for b in row]
        assert cb.LEVEL in shown and cb.DROP_AI in shown
        assert level in with_computer.text and len(with_computer.keyboard) == 5
        more = R.render_lobby(lang, R.LobbyInfo(9, 4, rules, people, "hard", page="o"))
        rest = {cb.decode(b.data).verb for row in more.keyboard for b in row}  # type: ignore[union-attr]
        assert {cb.PRESET, cb.MENU, cb.FORCED, cb.HINTS, cb.PACE, cb.KMENU} <= rest
        assert cb.START not in rest and catalog_text(lang, "btn.done") in str(more.keyboard)


def test_the_solo_setup_asks_one_question_a_message() -> None:
    rules = make_rules("classic")
    me = (R.SeatLabel("Анна"),)
    for lang in LANGS:
        first = R.render_solo_setup(lang, R.LobbyInfo(9, 4, rules, me, "hard"))
        assert catalog_text(lang, "solo.pick_size") in first.text
        assert catalog_text(lang, "solo.pick_level") not in first.text
        verbs = {cb.decode(b.data).verb for row in first.keyboard for b in row}  # type: ignore[union-attr]
        assert cb.PLAYERS in verbs and cb.LEVEL not in verbs and cb.START in verbs
        second = R.render_solo_setup(lang, R.LobbyInfo(9, 4, rules, me, "hard", page="q"))
        assert catalog_text(lang, "solo.pick_level") in second.text
        assert catalog_text(lang, "solo.pick_size") not in second.text
        verbs = {cb.decode(b.data).verb for row in second.keyboard for b in row}  # type: ignore[union-attr]
        assert cb.LEVEL in verbs and cb.PLAYERS not in verbs


def test_the_pace_is_said_once_and_the_wait_relative_to_now() -> None:
    st = new_game(make_rules("classic"), 3)
    labels = tuple(R.SeatLabel(n, False) for n in ("Анна", "Борис", "Вера"))
    since = 1_800_000_000.0
    waits = {"ru": "ждём 2 ч", "uk": "чекаємо 2 год", "en": "waiting 2 h"}
    for lang in LANGS:
        pv = public_view(st)
        info = R.TableInfo(1, labels, pace="unhurried", since=since, now=since + 2 * 3600 + 59)
        out = R.render_table(lang, pv, info)
        assert out.text.count(R.pace_name(lang, "unhurried")) == 1  # once, as the game begins
        turn = out.text.splitlines()[-1]
        assert turn.endswith(" · " + waits[lang]), turn  # relative to now, no clock time
        assert "tg-time" not in out.text and "UTC" not in out.text
        # under a minute nothing is said; minutes and days are said so
        fresh = R.render_table(lang, pv, R.TableInfo(1, labels, pace="unhurried", since=since,
                                                     now=since + 30))
        assert "·" not in fresh.text.splitlines()[-1]
        assert R.waited_text(lang, 5 * 60 + 1).startswith("5 ")
        assert R.waited_text(lang, 3 * 86400).startswith("3 ")
        # a later deal does not repeat the pace; a normal table never says it
        later = R.render_table(lang, dataclasses.replace(pv, number=2), info)
        assert R.pace_name(lang, "unhurried") not in later.text
        normal = R.render_table(lang, pv, R.TableInfo(1, labels))
        assert "⏱" not in normal.text and R.pace_name(lang, "normal") not in normal.text
        quick = R.render_table(lang, pv, R.TableInfo(1, labels, pace="quick"))
        assert quick.text.count(R.pace_name(lang, "quick")) == 1


def test_hint_button_only_where_there_is_a_choice() -> None:
    """💡 sits under a hand with two moves or more and never under a single move (there is
    nothing to advise), whatever the phase."""
    info = R.TableInfo(12, SEATS[:3], hints=True)
    single = several = 0
    for st in states(3, "classic", seed=7, steps=400):
        if st.phase in (Phase.DEALING, Phase.GAME_OVER):
            continue
        v = view(st, st.to_act)
        if not v.legal:
            continue
        hint_buttons = [b for row in R.render_hand("ru", v, info).keyboard for b in row
                        if (d := cb.decode(b.data)) is not None and d.verb == cb.HINT]
        if len(v.legal) == 1:
            single += 1
            assert not hint_buttons, [str(a) for a in v.legal]
        else:
            several += 1
            assert len(hint_buttons) == 1
    assert single > 5 and several > 50


def test_hints_name_talon_decisions_with_the_buttons_words() -> None:
    for lang in LANGS:
        # one talon (three and four players): the button «Взять прикуп»
        for players in (3, 4):
            assert action_words(lang, Action(TALON, value=1), players) == catalog_text(
                lang, "btn.take_talon").lower()
        for n in (1, 2):  # two players choose one of two: «Прикуп 1», «Прикуп 2»
            assert action_words(lang, Action(TALON, value=n), 2) == catalog_text(
                lang, "btn.talon", n=n).lower()
        assert action_words(lang, Action(LIGHT), 3) in catalog_text(lang, "btn.light").lower()
        assert action_words(lang, Action(CONCEDE), 3) in catalog_text(lang, "btn.concede").lower()
    # the open-card value is the declarer's points with the best play on both sides, never
    # "at most" (a defenders' slip gives more: the summary said «взято 182» beside it)
    a = Analysis(3, 2, 185, "failed", 0, False, None, True)
    text = analysis_text("ru", a, ["Анна", "Борис", "Вера"])
    assert text == ("🔍 Кон 3, заказ 185 (Вера): с открытыми картами заказ не выполнить: при "
                    "лучшей игре обеих сторон — 0 очков. Ошибок, решивших исход, не было.")
    made = analysis_text("uk", replace(a, value=121, makeable=True), ["А", "Б", "В"])
    assert "121 очко." in made and "можна виконати" in made
    made = analysis_text("en", replace(a, value=122, makeable=True), ["A", "B", "C"])
    assert "can be made: 122 points with the best play on both sides." in made
    # a mistake changes what best play reaches from then on; a later slip of the other side
    # can change it back (a defender's 10♥ let the 130 be made, then the declarer's slip
    # failed it): the line says what holds if the other side does not slip, never that the
    # contract "can no longer be beaten" beside a summary «недобор»
    for lang in LANGS:
        for side, word in ((True, "не выполнить"), (False, "выполним")):
            wrong = replace(a, makeable=not side, mistake=Mistake(0, C.card(C.TEN, 2), 3, side))
            line = analysis_text(lang, wrong, ["Анна", "Борис", "Вера"]).split(" — ")[-1]
            unless = {"ru": "если ", "uk": "якщо ", "en": "unless "}[lang]
            assert unless in line, (lang, line)
            if lang == "ru":
                assert line.startswith("после неё заказ " + word), line




_LAST_WORDS = {"ru": ("Последняя взятка", "вы", "Кон 10 — Анна"),
               "uk": ("Остання взятка", "ви", "Кін 10 — Анна"),
               "en": ("Last trick", "you", "Deal 10 — Анна")}


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
def test_a_deal_summary_opens_with_its_last_trick_and_who_took_it(lang: str) -> None:
    word, you, head = _LAST_WORDS[lang]
    q, ten, jack = C.parse("Q♣"), C.parse("10♦"), C.parse("J♦")
    last = Trick(0, ((0, q), (1, ten), (2, jack)), 0, C.parse("Q♣") // 6)
    group = R.render_deal_end(lang, _dump_row(), SEATS[:3], last=last).text.split("\n")
    assert group[0] == (f"{word}: Анна {R.card_text(q)} · Борис &lt;b&gt; {R.card_text(ten)}"
                        f" · 🤖 Вера {R.card_text(jack)} → Анна")
    assert group[1].startswith(head)
    hand = R.render_deal_end(lang, _dump_row(), SEATS[:3], last=last, me=0).text.split("\n")
    assert hand[0] == (f"{word}: {you} {R.card_text(q)} · Борис &lt;b&gt; "
                       f"{R.card_text(ten)} · 🤖 Вера {R.card_text(jack)} → {you}")
    # no trick (a concession, a redeal): the summary alone, as before
    assert R.render_deal_end(lang, _dump_row(), SEATS[:3]).text.split("\n")[0] == group[1]


@pytest.mark.parametrize(("players", "preset"), [(2, "classic"), (2, "full"), (3, "classic"),
                                                 (3, "full"), (4, "classic")])
def test_the_last_trick_of_every_played_deal_is_the_one_played(players: int,
                                                              preset: str) -> None:
    """``last_trick`` reads the deal's record: the cards of the trick that ended it, in
    order, and its winner under the trump of that moment, as the state before the last
    card holds them; no trick for a deal without play."""
    rules = make_rules(preset, players=players)
    seen = played = 0
    prev: GameState | None = None
    for st in states(players, preset, seed=40 + players, steps=4000):
        if prev is not None and len(st.history) > len(prev.history):
            res = st.history[-1]
            got = last_trick(rules, res)
            d = prev.deal
            if res.outcome in ("made", "failed", "played"):
                assert d is not None and len(d.trick) == len(d.active) - 1
                seat = d.to_act
                (card,) = d.hands[seat]
                cards = (*d.trick, (seat, card))
                trump = d.trump
                win = cards[C.trick_winner_index([c for _, c in cards],
                                                 trump if trump >= 0 else None)][0]
                assert got == Trick(cards[0][0], cards, win, trump)
                played += 1
            else:
                assert got is None
            seen += 1
        prev = st
    assert played >= 3 and seen >= played
