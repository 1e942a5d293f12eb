"""A player at the terminal game (``python -m bot play``) for the tests: reads the screen as a
person does (the last "Ваш ход: …" line) and types a move the way people type cards — as
shown (``9♠``), in Latin letters (``9s``), in words (``9 пик``, ``дама бубон``, ``queen of
hearts``), short (``9п``) or by the card's number — in turn, so that every way is used."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.i18n import t

_RANK_WORDS = {
    "ru": {"9": "9", "10": "10", "J": "в", "Q": "дама", "K": "к", "A": "туз"},
    "uk": {"9": "9", "10": "10", "J": "валет", "Q": "д", "K": "король", "A": "т"},
    "en": {"9": "nine", "10": "ten", "J": "jack", "Q": "queen", "K": "king", "A": "ace"},
}
_SUIT_WORDS = {
    "ru": {"♠": "пик", "♣": "треф", "♦": "бубен", "♥": "черви"},
    "uk": {"♠": "пік", "♣": "хрести", "♦": "бубон", "♥": "чирви"},
    "en": {"♠": "of spades", "♣": "of clubs", "♦": "of diamonds", "♥": "of hearts"},
}
_SUIT_SHORT = {"♠": "п", "♣": "т", "♦": "б", "♥": "ч"}
_RANK_SHORT = {"9": "9", "10": "10", "J": "в", "Q": "д", "K": "к", "A": "т"}
_SUIT_LATIN = {"♠": "s", "♣": "c", "♦": "d", "♥": "h"}
FORMS = ("shown", "latin", "words", "short", "number")
_CARD = re.compile(r"\[(\d+)\](\d+|[JQKA])([♠♣♦♥])")


def typed(lang: str, number: str, rank: str, suit: str, form: str) -> str:
    """A card as a person may type it."""
    if form == "latin":
        return rank + _SUIT_LATIN[suit]
    if form == "words":
        return f"{_RANK_WORDS[lang][rank]} {_SUIT_WORDS[lang][suit]}"
    if form == "short" and lang != "en":
        return _RANK_SHORT[rank] + _SUIT_SHORT[suit]  # "дп", "тч", "10б"
    if form == "number":
        return number
    return rank + suit


@dataclass
class Player:
    """Chooses a move from the screen: the first card offered (in the next form), a bid
    once a deal (the lowest), then passes; "без" never (the declaring lead)."""

    lang: str
    typed_forms: list[str] = field(default_factory=list)
    moves: int = 0
    bid_in_deal: int = -1

    @property
    def prompt_line(self) -> str:
        return t(self.lang, "term_your_move", options="")

    def move(self, screen: str) -> str | None:
        """The move for the last "Your move" line of ``screen`` (None: no such line)."""
        lines = [x for x in screen.splitlines() if x.startswith(self.prompt_line)]
        if not lines:
            return None
        options = lines[-1][len(self.prompt_line):]
        deal = len(re.findall(r"── \S+ \d+ ·", screen))
        items = options.split(" · ")
        self.moves += 1
        card = _CARD.match(items[0])
        if card:
            form = FORMS[len(self.typed_forms) % len(FORMS)]
            self.typed_forms.append(form)
            return typed(self.lang, card.group(1), card.group(2), card.group(3), form)
        pass_word = t(self.lang, "term_act_pass")
        if items[0] == pass_word and len(items) > 1 and self.bid_in_deal != deal:
            self.bid_in_deal = deal
            return items[1].split("…")[0]
        return items[0].split("…")[0]
