"""Three languages at one table: a Ukrainian group (switched with ``/lang українська``) where a
Ukrainian, a Russian and an English player sit.  The table speaks the group's language,
each hand, private message and popup its owner's, and no message, button or popup has a
word of another language: every word of a text is a word of its language's catalog (or a
person's name, the group's title, a command, a card).  A person with ``language_code`` uk
gets Ukrainian in private, ``/rules NAME`` and the pictures included."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from bot.engine.cards import RANKS
from bot.engine.state import GameState
from bot.i18n import CATALOGS, LANGS, PLURALS, t
from tests.bot.helpers import (
    click_data,
    idle,
    lobby_setting,
    open_table,
    play,
    running,
    service,
    session,
    smart,
    start_private,
    txt,
)
from tests.bot.test_texts import ALLOWED_LATIN, SELF_NAMES
from tests.fakeapi import FakeMessage, FakeTelegramServer

GROUP = -800300
TITLE = "Друзі"
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*|[А-Яа-яЁёІіЇїЄєҐґʼ]+")
_NOISE = re.compile(r"/[a-z_]+(@\w+)?|t\.me/\S+|https?://\S+|<[^<>]*>")


def _vocabulary(lang: str) -> frozenset[str]:
    words: set[str] = set()
    for key, text in CATALOGS[lang].items():
        for form in PLURALS[lang].get(key, (text,)):
            words |= {w.lower() for w in _WORD.findall(_PLACEHOLDER.sub(" ", form))}
    return frozenset(words)


VOCABULARY: dict[str, frozenset[str]] = {lang: _vocabulary(lang) for lang in LANGS}
# "UTC": the time zone a time of day falls back to where a client does not show Telegram's
# date_time entity in local time (``view.common.clock_time``), a symbol put into the text
ALLOWED = {w.lower() for w in ALLOWED_LATIN | set(RANKS) | {"UTC"}} | {
    w.lower() for name in SELF_NAMES for w in _WORD.findall(name)}


def foreign_words(lang: str, text: str, names: tuple[str, ...]) -> set[str]:
    """The words of ``text`` that are not words of ``lang``'s catalog (a name, or its start
    as a narrow column shows it, aside)."""
    clean = _NOISE.sub(" ", text)
    for name in names:
        clean = clean.replace(name, " ")
    cut = {name.lower()[:k] for name in names for k in range(1, len(name))}
    words = {w.lower() for w in _WORD.findall(clean)}
    return {w for w in words if w not in VOCABULARY[lang] and w not in ALLOWED | cut}


def test_the_word_check_catches_another_language() -> None:
    assert foreign_words("uk", "Ваш хід: пас · Ставка 120", ()) == set()
    assert foreign_words("uk", "Ваш ход: пас", ()) == {"ход"}
    assert foreign_words("ru", "Ваш хід", ()) == {"хід"}
    assert foreign_words("en", "Your move · Ваш ход", ()) == {"ваш", "ход"}
    assert foreign_words("uk", "Оксана: пас, /rules бочка, A♠️ 10♥️", ("Оксана",)) == set()


def _texts_by_chat(server: FakeTelegramServer, since: int) -> dict[int, list[str]]:
    """Every text the bot sent or edited into each chat from request ``since`` on, the
    buttons' texts included, and every popup, filed under the person who pressed."""
    out: dict[int, list[str]] = {}
    for r in server.requests[since:]:
        if r.chat_id is None or r.method == "answerCallbackQuery":
            continue  # (a popup is seen by the person who pressed: below)
        texts = [str(r.params[k]) for k in ("text", "caption") if r.params.get(k)]
        markup = r.params.get("reply_markup")
        if isinstance(markup, dict):
            for row in markup.get("inline_keyboard", []):
                texts.extend(str(b.get("text", "")) for b in row)
        out.setdefault(r.chat_id, []).extend(texts)
    for q in server.callback_queries.values():
        if q.answer is not None and q.answer.text:
            out.setdefault(q.user_id, []).append(q.answer.text)
    return out


async def test_a_ukrainian_a_russian_and_an_english_player_at_a_ukrainian_table(
        server: FakeTelegramServer, db: Path) -> None:
    oksana = server.add_user(8301, "Оксана", language_code="uk")
    anna = server.add_user(8302, "Анна")  # language_code ru
    john = server.add_user(8303, "John", language_code="en-GB")
    server.add_group(GROUP, TITLE, members=[anna, john], admins=[oksana])
    names = ("Оксана", "Анна", "John", TITLE)
    async with running(server, db, turn_timeout=1.0) as app:
        await start_private(server, oksana, anna, john)
        # the group first hears Anna (Russian); its admin switches it to Ukrainian
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/help")
        said = await server.wait_bot_message(GROUP, after=before)
        assert "запись партии" in (said.text or "")
        await server.send_text(oksana, GROUP, "/lang українська")
        said = await server.wait_bot_message(GROUP, after=said)
        assert (said.text or "") == t("uk", "lang.set")
        since = len(server.requests)
        gid, _ = await open_table(server, app, GROUP, oksana, [anna, john])
        s = session(app, gid)
        assert s is not None
        people = {s.seat_of(u.id): u for u in (oksana, anna, john)}
        await play(server, app, gid, people, policy=smart, max_moves=60, timeout=20)
        # the pictures of the group's game: drawn (and captioned) in the group's language
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(anna, GROUP, "/score")
        sheet = await server.wait_bot_message(
            GROUP, after=before, predicate=lambda m: any(
                ":pc:" in (b.callback_data or "") for b in m.all_buttons))
        answer = await server.click(anna, sheet, contains="🖼")
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: len(server.photos(GROUP)) == 2, 30, what="two photos")
        assert [m.caption for m in server.photos(GROUP)] == [
            t("uk", "pictures.caption_sheet"), t("uk", "pictures.caption_race")]
        for person, chat in ((oksana, GROUP), (anna, anna.id), (john, john.id),
                             (oksana, oksana.id)):
            for cmd in ("/score", "/rules", "/rules розпис", "/help"):
                await server.send_text(person, chat, cmd)
        await server.send_text(oksana, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await server.send_text(oksana, oksana.id, "/rules бочка")
        await server.wait_for(lambda: any(
            "Бочка" in (m.text or "") and "сідає на бочку" in (m.text or "")
            for m in server.chat(oksana).bot_messages()), 10)
        await idle(app)
        by_chat = _texts_by_chat(server, since)
        langs = {GROUP: "uk", oksana.id: "uk", anna.id: "ru", john.id: "en"}
        for chat, lang in langs.items():
            texts = by_chat.get(chat, [])
            assert len(texts) > 20, (chat, len(texts))
            bad = {w for text in texts for w in foreign_words(lang, text, names)}
            assert not bad, (lang, chat, sorted(bad))
        # the table is Ukrainian, each hand its owner's language
        group_text = "\n".join(by_chat[GROUP])
        assert "<b>Кін 1</b> · здає" in group_text and "Торгівля: " in group_text
        assert any(t("uk", "hand.cards", cards="").rstrip() in x for x in by_chat[oksana.id])
        assert any(t("ru", "hand.cards", cards="").rstrip() in x for x in by_chat[anna.id])
        assert any(t("en", "hand.cards", cards="").rstrip() in x for x in by_chat[john.id])
        assert any(x.startswith("<b>Розпис</b>\n") for x in by_chat[GROUP])  # /rules розпис
    server.assert_clean()


async def test_a_ukrainian_in_private_gets_ukrainian_everywhere(
        server: FakeTelegramServer, db: Path) -> None:
    """A solo game of a person whose Telegram speaks Ukrainian: the setup, the plural
    "3 гравці", the hand, /score with its pictures, /rules NAME, /help, all Ukrainian."""
    oksana = server.add_user(8311, "Оксана", language_code="uk")
    async with running(server, db) as app:
        await start_private(server, oksana)
        hello = server.chat(oksana).last_bot_message()
        assert hello is not None and "Привіт, Оксана" in (hello.text or "")
        before = server.chat(oksana).last_bot_message()
        await server.send_text(oksana, oksana, "/newgame")
        setup = await server.wait_bot_message(oksana, after=before)
        assert "✅ 3 гравці" in [b.text for b in setup.all_buttons]
        answer = await server.click(oksana, setup, contains="▶️")
        assert answer is not None and answer.text is None
        gid = await server.wait_for(lambda: service(app).by_chat.get(oksana.id))
        while True:
            s = session(app, gid)
            assert s is not None and s.state is not None
            if s.state.history:
                break
            await play(server, app, gid, {0: oksana}, max_moves=3, timeout=20)
        assert any(t("uk", "solo.started", n=3, level="", rules="").split(",")[0] in x
                   for x in _texts_by_chat(server, 0)[oksana.id])
        before = server.chat(oksana).last_bot_message()
        await server.send_text(oksana, oksana, "/score")
        sheet = await server.wait_bot_message(
            oksana, after=before, predicate=lambda m: any(
                ":pc:" in (b.callback_data or "") for b in m.all_buttons))
        answer = await server.click(oksana, sheet, contains="🖼")
        assert answer is not None and answer.text is None
        await server.wait_for(lambda: len(server.photos(oksana)) == 2, 30, what="two photos")
        assert server.photos(oksana)[0].caption == t("uk", "pictures.caption_sheet")
        def rules() -> list[str]:
            return [x for x in _texts_by_chat(server, 0).get(oksana.id, [])
                    if x.startswith("<b>Марʼяж із першого ходу</b>\n")]

        for k, cmd in enumerate(("/rules марʼяж з першого ходу", "/rules мар'яж з першого ходу")):
            await server.send_text(oksana, oksana, cmd)
            await server.wait_for(lambda: len(rules()) > k, 10, what="the rule")  # noqa: B023
        assert rules()[0].startswith("<b>Марʼяж із першого ходу</b>")
        await server.send_text(oksana, oksana, "/help")
        await server.wait_for(lambda: any("/newgame — нова партія" in x for x in
                                          _texts_by_chat(server, 0).get(oksana.id, [])), 10)
        await server.send_text(oksana, oksana, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(oksana.id) is None)
        await idle(app)
        texts = _texts_by_chat(server, 0)[oksana.id]
        assert len(texts) > 20
        names = ("Оксана", *t("uk", "computer.names").split(","))
        bad = {w for text in texts for w in foreign_words("uk", text, names)}
        assert not bad, sorted(bad)
    server.assert_clean()


async def test_the_pace_the_pings_and_the_keepers_speak_each_persons_language(
        server: FakeTelegramServer, db: Path) -> None:
    """Issue 19's texts in all three languages: a Ukrainian group sets an unhurried pace in
    the lobby, a Russian player is pinged twice in private, the Ukrainian keeper hands her
    seat to the computer and back through ⚙️, and an English latecomer asks for the
    computer's seat and gets it.  Every message, button and popup is in its reader's
    language: the group's (uk), or each person's own."""
    oksana = server.add_user(8311, "Оксана", language_code="uk")
    anna = server.add_user(8312, "Анна")  # language_code ru
    john = server.add_user(8313, "John", language_code="en")
    server.add_group(GROUP, TITLE, members=[anna, john], admins=[oksana])
    names: tuple[str, ...] = ("Оксана", "Анна", "John", TITLE)

    def buttons(msg: FakeMessage | None) -> list[str]:
        return [b.callback_data or "" for b in msg.all_buttons] if msg is not None else []

    def showing(gid: int, part: str) -> FakeMessage | None:
        """The table if it shows a button whose data has ``part``."""
        m = table_of(gid)
        return m if m is not None and part in " ".join(buttons(m)) else None

    def table_of(gid: int) -> FakeMessage | None:
        """The table (its ⚙️ beside `Мої карти`), not the keepers' menu below it."""
        return next((m for m in reversed(server.chat(GROUP).bot_messages())
                     if any(d.startswith(f"g{gid}:") and ":km:m" in d for d in buttons(m))
                     and any(":h:" in d for d in buttons(m))), None)

    async with running(server, db, seed=31, turn_timeout=600, unhurried_ping_after=0.3,
                       unhurried_ping_again=0.8, ping_quiet=0.0) as app:
        await start_private(server, oksana, anna, john)
        await server.send_text(oksana, GROUP, "/lang uk")
        await server.wait_bot_message(GROUP, predicate=lambda m: txt(m) == t("uk", "lang.set"))
        since = len(server.requests)
        gid, lobby = await open_table(server, app, GROUP, oksana, [anna], args="3",
                                      computers=1, start=False)
        await lobby_setting(server, oksana, lobby, ":tp:unhurried")
        before = server.chat(GROUP).last_bot_message()
        await server.send_text(john, GROUP, "/pace")  # anyone may ask, in the group's words
        await server.wait_bot_message(GROUP, after=before)
        assert await click_data(server, oksana, lobby, ":st:") is None
        s = session(app, gid)
        assert s is not None and s.state is not None and s.pace == "unhurried"
        comp = next(i for i, x in enumerate(s.seats) if x.computer)
        # a computer's name is chosen once, in the table's language, and is its name for
        # everybody (as a person's is): Anna's Russian hand calls it what the table does
        names = (*names, s.seats[comp].name)
        # Anna's turn comes and she waits: two pings in Russian, one out at a time
        aseat, oseat = s.seat_of(anna.id), s.seat_of(oksana.id)
        while (st := s.state) is not None and st.to_act != aseat:
            if st.to_act == oseat:
                await play(server, app, gid, {oseat: oksana}, max_moves=1)
            else:  # the computer's move
                def moved(st: GameState = st) -> bool:
                    return s.state is not st

                await server.wait_for(moved, 10, what="a move")

        def anna_pings() -> list[FakeMessage]:
            return [m for m in server.sent_by_bot(anna)
                    if (m.first_text or m.text or "").startswith(("🔔", "⏰"))]

        await server.wait_for(lambda: len(anna_pings()) == 2 or None, 10, what="two pings")
        # Oksana hands Anna's seat to the computer and gives it back (⚙️)
        def menu_with(part: str) -> FakeMessage | None:
            return next((m for m in reversed(server.chat(GROUP).bot_messages())
                         if not m.deleted and part in " ".join(buttons(m))), None)

        async def in_menu(part: str) -> FakeMessage:
            """The keepers' menu (a message below the table) showing the button ``part``:
            ⚙️ pressed on the table."""
            for _ in range(5):
                table = await server.wait_for(lambda: table_of(gid), what="the table")
                await click_data(server, oksana, table, ":km:m", wait=False)
                with contextlib.suppress(TimeoutError):
                    return await server.wait_for(lambda: menu_with(part), 2.0)
            raise AssertionError(f"no {part} in the keepers' menu")

        menu = await in_menu(f":ka:{aseat}")
        assert t("uk", "keepers.menu") in txt(menu)
        assert await click_data(server, oksana, menu, f":ka:{aseat}", wait=False) is None
        await server.wait_for(lambda: s.seats[aseat].auto)
        menu = await in_menu(f":kb:{aseat}")
        assert await click_data(server, oksana, menu, f":kb:{aseat}", wait=False) is None
        await server.wait_for(lambda: not s.seats[aseat].auto)
        # John asks for the computer's seat (🪑, under the table once the menu is closed)
        table = await server.wait_for(lambda: table_of(gid), what="the table")
        if not any(":ts:" in d for d in buttons(table)):
            await server.click(oksana, table, predicate=lambda b: (b.callback_data or "")
                               .endswith(":km:"))
        table = await server.wait_for(lambda: showing(gid, ":ts:"), what="🪑 under the table")
        before = server.chat(GROUP).last_bot_message()
        answer = await server.click(john, table, predicate=lambda b: ":ts:" in (
            b.callback_data or ""))
        assert answer is not None and answer.text, answer  # "request sent", in English
        request = await server.wait_bot_message(
            GROUP, after=before, predicate=lambda m: any(":ty:" in d for d in buttons(m)))
        assert await click_data(server, oksana, request, ":ty:") is None
        await server.wait_for(lambda: s.seats[comp].user_id == john.id, what="John seated")
        await server.wait_bot_message(john, predicate=lambda m: t(
            "en", "hand.cards", cards="").rstrip() in txt(m))
        await server.send_text(oksana, GROUP, "/stop")
        await server.wait_for(lambda: service(app).session_of_chat(GROUP) is None)
        await idle(app)
        by_chat = _texts_by_chat(server, since)
        langs = {GROUP: "uk", oksana.id: "uk", anna.id: "ru", john.id: "en"}
        for chat, lang in langs.items():
            texts = by_chat.get(chat, [])
            assert texts, chat
            bad = {w for text in texts for w in foreign_words(lang, text, names)}
            assert not bad, (lang, chat, sorted(bad))
        group_text = "\n".join(by_chat[GROUP])
        assert t("uk", "keepers.menu") in group_text
        assert any(x.startswith(("🔔", "⏰")) for x in by_chat[anna.id])
    server.assert_clean()
