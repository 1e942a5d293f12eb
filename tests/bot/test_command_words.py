"""The commands' arguments in the reader's language (issue 47, point 8): ``/pace быстрый``,
``/lang українська``, ``/newgame 3 полные`` and rules by their names, each language's words
accepted in every chat and the old Latin ids still; and a refused rule set names the rules
by their names, never by their ids."""

from __future__ import annotations

import re

import pytest

from bot.engine.rules import (
    RULE_IDS,
    Problem,
    Rules,
    RulesError,
    make_rules,
    rules_from_args,
)
from bot.i18n import CATALOGS, LANGS, placeholders, t
from bot.rule_words import lang_word, newgame_args, pace_word
from bot.tg.model import PACES
from bot.tg.view.render import refusal_text

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def test_the_pace_words_of_every_language() -> None:
    for pace in PACES:
        assert pace_word(pace) == pace  # the old ids still work
        for lang in LANGS:
            assert pace_word(t(lang, f"pace.{pace}")) == pace, (lang, pace)
            assert pace_word(t(lang, f"pace.{pace}").upper()) == pace
    assert pace_word("неспешный") == pace_word("неквапливий") == "unhurried"
    assert pace_word("  Без   спешки ") == "unhurried"
    assert pace_word("швидкий") == "quick" and pace_word("звичайний") == "normal"
    for word in ("", "быстрее", "very quick", "2"):
        assert pace_word(word) is None, word


@pytest.mark.parametrize("lang", LANGS)
def test_the_pace_texts_name_the_words_the_command_takes(lang: str) -> None:
    """The help, the current pace and the refusal of an unknown one offer the words of the
    reader's language, and those are the words /pace takes."""
    for key in ("help", "pace.current", "pace.unknown"):
        text = t(lang, key, word="x", quick=20, pace="x")
        for pace in PACES:
            assert t(lang, f"pace.{pace}") in text, (lang, key, pace)


def test_the_language_words() -> None:
    for code in LANGS:
        assert lang_word(code) == code
        assert lang_word(CATALOGS[code]["lang.name"]) == code  # its name in itself
    assert lang_word("Українська") == lang_word("украинский") == "uk"
    assert lang_word("русский") == lang_word("російська") == "ru"
    assert lang_word("English") == lang_word("английский") == "en"
    for word in ("de", "", "français", "ukr"):
        assert lang_word(word) is None, word


@pytest.mark.parametrize("lang", LANGS)
def test_every_lang_argument_a_text_offers_is_taken(lang: str) -> None:
    offered = [m.group(1).rstrip(".,)") for text in CATALOGS[lang].values()
               for m in re.finditer(r"/lang ([^\s,.)]+)", text)]
    assert len(offered) >= 6, offered
    assert all(lang_word(word) is not None for word in offered), offered
    assert {lang_word(word) for word in offered} == set(LANGS)


def test_newgame_words_in_every_language() -> None:
    base = make_rules("classic")

    def read(*args: str) -> Rules:
        return rules_from_args(base, newgame_args(list(args)))

    assert read("3", "полные") == read("повні", "3") == read("full") == make_rules("full")
    assert read("4", "полная") == make_rules("full", players=4)
    assert read("класика", "2") == read("классика", "2") == make_rules("classic", players=2)
    assert read("полные", "правила", "3") == read("Повні", "Правила") == make_rules("full")
    assert read("бочка=выкл") == read("barrel=off") == read("бочка=вимк") \
        == make_rules("classic", barrel=False)
    assert read("роспись=нет") == make_rules("classic", rospis=False)
    assert read("rospis_pays=По_60") == read("плата_за_роспись=по_60") \
        == make_rules("classic", rospis_pays="sixty")
    assert read("two_player_mode=с_добором,_без_торгов", "2") \
        == make_rules("classic", players=2, two_player_mode="stock")
    with pytest.raises(RulesError) as e:
        read("3", "быстро")
    assert e.value.code == "newgame_unknown_word" and e.value.params["word"] == "быстро"
    with pytest.raises(RulesError) as e:
        read("бочка=может_быть")
    assert e.value.code == "rule_value" and e.value.params["rule"] == "barrel"
    assert "barrel" not in refusal_text("ru", e.value)
    assert "«Бочка»" in refusal_text("ru", e.value)


def test_words_it_does_not_know_go_to_the_engine_unchanged() -> None:
    assert newgame_args(["x=y", "3", "правила"]) == ["x=y", "3", "правила"]
    assert newgame_args(["полные", "правила", "правила"]) == ["full", "правила"]


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_a_refused_rule_set_names_rules_by_their_names(lang: str) -> None:
    """Every refusal that names a rule, for every rule: no id, no Latin word."""
    keys = [k[len("refuse."):] for k, v in CATALOGS[lang].items()
            if k.startswith("refuse.") and re.search(r"\{(rule|parent|other)\}", v)]
    assert len(keys) >= 10
    for code in keys:
        for rid in RULE_IDS:
            params: dict[str, int | str] = {
                name: 7 for name in placeholders(CATALOGS[lang][f"refuse.{code}"])}
            params.update(rule=rid, parent="barrel", other=rid)
            text = refusal_text(lang, RulesError("x", problems=(Problem(code, "x", params),)))
            assert not _LATIN_WORD.findall(text), (code, rid, text)
    several = "redeal_talon_below / redeal_talon_two_nines / redeal_talon_three_jacks"
    text = refusal_text(lang, RulesError("x", problems=(Problem(
        "rule_needs", "x", {"rule": "redeal_talon_only_on_100", "parent": several}),)))
    assert not _LATIN_WORD.findall(text) and text.count(" / ") == 2, text
