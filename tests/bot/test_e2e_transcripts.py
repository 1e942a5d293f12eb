"""A group game (two people and a computer) and a solo game (a person and two computers) in
each of Russian, Ukrainian and English, played through a whole deal (bid, talon, passing,
contract, tricks, summary), read as a player reads them:

- every message, button and popup of the game is in the game's language;
- the declarer's running points against the contract (``набрано 52 из 160``) show on the
  group's table and in each hand while the cards are played, and they never go down;
- the deal's summary comes after its tricks and before the next deal's table, in the group
  and in each person's private chat, and no message of the deal changes after it.

``THOUSAND_TRANSCRIPTS_DOCS=docs/transcripts pytest tests/bot/test_e2e_transcripts.py``
writes the conversations kept in docs/transcripts/ (group-ru.txt, solo-ru.txt, …): each
from its start to the table of the deal after the first deal played out."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.i18n import t
from bot.tg.io.app import ThousandApplication
from tests.bot.helpers import (
    idle,
    open_table,
    play,
    running,
    service,
    session,
    smart,
    start_private,
)
from tests.bot.test_e2e_languages import _texts_by_chat, foreign_words
from tests.fakeapi import FakeTelegramServer, FakeUser
from tests.fakeapi.transcript import deal_quote, transcript

GROUP = -800900
PEOPLE = {"ru": ("Анна", "Борис"), "uk": ("Оксана", "Богдан"), "en": ("Alice", "Bob")}
TITLES = {"ru": "Друзья", "uk": "Друзі", "en": "Friends"}
_TAG = re.compile(r"<[^>]+>")
_STAMP = re.compile(r" *\d+\.\d\d  ")  # a transcript line's time: a new entry


async def _played_deal(server: FakeTelegramServer, app: ThousandApplication, gid: int,
                       people: dict[int, FakeUser]) -> tuple[int, int, int]:
    """People press until a deal is played out (not conceded nor redealt) and the next one
    dealt; its number, declarer and contract."""
    for _ in range(300):
        s = session(app, gid)
        assert s is not None and s.state is not None
        played = [d for d in s.state.history if d.outcome in ("made", "failed")]
        if played:
            await idle(app)
            return played[0].number, played[0].declarer, played[0].contract
        await play(server, app, gid, people, policy=smart, max_moves=1, timeout=20)
    raise AssertionError("no deal was played out")


async def _analyse(server: FakeTelegramServer, person: FakeUser, gid: int, deal: int,
                   lang: str) -> str:
    """The person presses 🔍 under the deal's summary in private: the analysis of that
    deal (a popup or a message), in the person's language."""
    data = f"g{gid}:0:z:{deal}"
    msg = next(m for m in reversed(server.chat(person).bot_messages())
               if any(b.callback_data == data for b in m.all_buttons))
    before = server.chat(person).last_bot_message()
    answer = await server.click(person, msg, data=data)
    assert answer is not None
    text = answer.text or ""
    head = t(lang, "summary.head", n=deal).rstrip(":")
    if head not in text:  # too long for a popup: a message (the popup says where it is)
        said = await server.wait_bot_message(person, after=before)
        text = said.text or ""
    assert head in text, text
    return text


def _messages(server: FakeTelegramServer, chat: int) -> list[str]:
    """The texts the bot sent or edited into ``chat``, in order, as plain text."""
    return [_TAG.sub("", str(r.params.get("text") or "")) for r in server.requests
            if r.chat_id == chat and r.method in ("sendMessage", "editMessageText")]


def _points_pattern(lang: str, contract: int) -> re.Pattern[str]:
    """The running points line of a deal played for ``contract``: whose and how many."""
    line = re.escape(t(lang, "table.points", name="NAME", points="999", contract=contract))
    return re.compile(line.replace("NAME", "(.+?)").replace("999", r"(\d+)"))


def _check_deal(lang: str, texts: list[str], deal: int, contract: int,
                declarer: str) -> None:
    """In one chat: the deal's table/hand shows the running points of ``declarer`` (never
    going down), then the summary; then the next deal's table; nothing of the deal after
    its summary."""
    head = _TAG.sub("", t(lang, "table.head", n=deal, dealer="")).strip()
    head_next = _TAG.sub("", t(lang, "table.head", n=deal + 1, dealer="")).strip()
    summary = t(lang, "summary.head", n=deal).rstrip(":")
    ours = [i for i, x in enumerate(texts) if x.startswith(head)]
    summaries = [i for i, x in enumerate(texts)
                 if any(line.startswith(summary + " — ") for line in x.split("\n"))]
    following = [i for i, x in enumerate(texts) if x.startswith(head_next)]
    assert ours and summaries and following, (deal, len(texts))
    # the summary opens with the deal's last trick, its last card and who took it
    last = t(lang, "summary.last_trick", cards="\0", winner="\0").split("\0")
    for i in summaries:
        first = texts[i].split("\n")[0]
        assert first.startswith(last[0]) and last[1] in first, first
    assert max(ours) < summaries[0] < following[0], "the summary is not between the deals"
    assert len(summaries) == 1 or max(summaries) < following[0]
    pattern = _points_pattern(lang, contract)
    points = [(m.group(1), int(m.group(2))) for i in ours
              if (m := pattern.search(texts[i])) is not None]
    assert points, "no running points during the deal"
    assert {who for who, _ in points} == {declarer}, points
    shown = [p for _, p in points]
    assert shown == sorted(shown), f"the running points went down: {shown}"


def _save(server: FakeTelegramServer, name: str, lang: str, deal: int, chat: str) -> None:
    """With THOUSAND_TRANSCRIPTS_DOCS=DIR: the conversation up to and with the first message
    of deal ``deal + 1`` (the table after the summary), as DIR/<name>.txt, and the deal in
    ``chat`` (``group`` or ``private``) from its table to its summary, as
    DIR/<name>-deal.txt."""
    folder = os.environ.get("THOUSAND_TRANSCRIPTS_DOCS")
    if not folder:
        return
    head_next = _TAG.sub("", t(lang, "table.head", n=deal + 1, dealer="")).strip()
    lines = transcript(server).split("\n")
    cut = next(i for i, x in enumerate(lines) if "bot → " in x and head_next in x)
    end = next((i for i in range(cut + 1, len(lines)) if _STAMP.match(lines[i])), len(lines))
    Path(folder).mkdir(parents=True, exist_ok=True)
    (Path(folder) / f"{name}.txt").write_text("\n".join(lines[:end]) + "\n", encoding="utf-8")
    head = _TAG.sub("", t(lang, "table.head", n=deal, dealer="")).strip()
    summary = t(lang, "summary.head", n=deal).rstrip(":") + " — "
    quote = deal_quote("\n".join(lines[:end]), chat, head, summary)
    (Path(folder) / f"{name}-deal.txt").write_text(quote, encoding="utf-8")


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
async def test_a_group_deal_read_as_a_player(server: FakeTelegramServer, db: Path,
                                              lang: str) -> None:
    a, b = (server.add_user(8900 + i, name, language_code=lang)
            for i, name in enumerate(PEOPLE[lang]))
    server.add_group(GROUP, TITLES[lang], members=[b], admins=[a])
    async with running(server, db, seed=7, computer_level="normal") as app:
        await start_private(server, a, b)
        since = len(server.requests)
        gid, _ = await open_table(server, app, GROUP, a, [b], args="3", computers=1)
        s = session(app, gid)
        assert s is not None
        people = {s.seat_of(u.id): u for u in (a, b)}
        deal, declarer, contract = await _played_deal(server, app, gid, people)
        await _analyse(server, a, gid, deal, lang)
        await idle(app)
        labels = [("🤖 " if x.computer else "") + x.name for x in s.seats]
        names = (*PEOPLE[lang], TITLES[lang], *(x.name for x in s.seats))
        by_chat = _texts_by_chat(server, since)
        for chat in (GROUP, a.id, b.id):
            bad = {w for text in by_chat.get(chat, []) for w in foreign_words(lang, text, names)}
            assert not bad, (chat, sorted(bad))
        _check_deal(lang, _messages(server, GROUP), deal, contract, labels[declarer])
        for seat, person in people.items():
            me = t(lang, "you") if seat == declarer else labels[declarer]
            _check_deal(lang, _messages(server, person.id), deal, contract, me)
        _save(server, f"group-{lang}", lang, deal, "group")
    server.assert_clean()


@pytest.mark.parametrize("lang", ["ru", "uk", "en"])
async def test_a_solo_deal_read_as_a_player(server: FakeTelegramServer, db: Path,
                                             lang: str) -> None:
    a = server.add_user(8910, PEOPLE[lang][0], language_code=lang)
    async with running(server, db, seed=7, computer_level="normal") as app:
        await start_private(server, a)
        since = len(server.requests)
        await server.send_text(a, a, "/newgame 3")
        gid = await server.wait_for(lambda: service(app).by_chat.get(a.id))
        s = session(app, gid)
        assert s is not None
        deal, declarer, contract = await _played_deal(server, app, gid, {0: a})
        await _analyse(server, a, gid, deal, lang)
        await idle(app)
        names = (PEOPLE[lang][0], *(x.name for x in s.seats))
        texts = _texts_by_chat(server, since)[a.id]
        bad = {w for text in texts for w in foreign_words(lang, text, names)}
        assert not bad, sorted(bad)
        labels = [("🤖 " if x.computer else "") + x.name for x in s.seats]
        me = t(lang, "you") if declarer == 0 else labels[declarer]
        _check_deal(lang, _messages(server, a.id), deal, contract, me)
        _save(server, f"solo-{lang}", lang, deal, "private")
    server.assert_clean()


def test_the_deal_check_catches_what_a_player_would() -> None:
    def table(points: int) -> str:
        return f"🃏 Кон 1 · сдаёт Вера\nОчки: вы — набрано {points} из 100 · Вера 0"

    deal_only = "Кон 1 — Анна: игра 100, взято 120 — сыграна, +100"
    summary = "Последняя взятка: Анна A♠️ · вы 9♠️ · Вера 10♠️ → Анна\n" + deal_only
    after = "🃏 Кон 2 · сдаёт Анна"
    _check_deal("ru", [table(0), table(11), summary, after], 1, 100, "вы")
    for wrong in ([table(11), after, summary],  # the summary after the next deal's table
                  [table(11), deal_only, after],  # no last trick
                  [table(11), summary, table(11), after],  # the deal changed after its summary
                  ["🃏 Кон 1 · сдаёт Вера", summary, after],  # no running points
                  [table(11), table(0), summary, after]):  # points going down
        with pytest.raises(AssertionError):
            _check_deal("ru", wrong, 1, 100, "вы")
    with pytest.raises(AssertionError):  # somebody else's points
        _check_deal("ru", [table(11), summary, after], 1, 100, "Вера")


def test_a_deal_quote_shows_what_changed_from_the_table_to_the_summary() -> None:
    text = "\n".join([
        "    0.00  bot → group -1: lobby",
        "    0.01  bot edits group -1 #2: 🃏 Кон 1 · сдаёт Анна",
        "      Анна — 0",
        "      Ход: Борис ⏳",
        "    0.02  bot → private: 🃏 Кон 1 · сдаёт Анна",
        "    0.03  Борис presses [Пас] in private #3",
        "    0.04  bot edits group -1 #2: 🃏 Кон 1 · сдаёт Анна",
        "      Анна — 0",
        "      Ход: Анна ⏳",
        "    0.05  bot edits group -1 #2: Кон 1 — Анна: роспись 100, −100",
        "    0.06  bot → group -1: 🃏 Кон 2 · сдаёт Борис",
    ])
    assert deal_quote(text, "group", "Кон 1 ·", "Кон 1 — ") == "\n".join([
        "bot edits group -1 #2: 🃏 Кон 1 · сдаёт Анна\n    Анна — 0\n    Ход: Борис ⏳",
        "Борис presses [Пас] in private #3",
        "bot edits group -1 #2: 🃏 Кон 1 · сдаёт Анна\n    …\n    Ход: Анна ⏳",
        "bot edits group -1 #2: Кон 1 — Анна: роспись 100, −100",
    ]) + "\n"
    # a summary that opens with the deal's last trick ends the quote too
    text = text.replace("#2: Кон 1 — Анна: роспись 100, −100",
                        "#2: Последняя взятка: Анна A♠️ · Борис 9♠️ → Анна\n"
                        "      Кон 1 — Анна: игра 100, взято 120 — сыграна, +100")
    assert deal_quote(text, "group", "Кон 1 ·", "Кон 1 — ").endswith(
        "bot edits group -1 #2: Последняя взятка: Анна A♠️ · Борис 9♠️ → Анна\n"
        "    Кон 1 — Анна: игра 100, взято 120 — сыграна, +100\n")
