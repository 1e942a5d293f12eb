"""What a person types in the terminal game, read: a card as it is shown (``9♠``, ``10♦``),
in Latin letters (``9s``, ``ah``, ``10d``), in words of any of the languages (``9 пик``,
``туз червей``, ``дама бубон``, ``queen of hearts``) or short (``9п``, ``тч``), a card's
number, a bid's value, ``пас``, ``роспись``...

Plain data and pure functions; ``bot.cli.play`` says what the words mean at a table."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from bot.engine import cards as C
from bot.engine.state import (
    BID,
    CONCEDE,
    CONTRACT,
    DARK,
    DECLARE,
    DISCARD,
    GIVE,
    KEEP,
    LIGHT,
    PASS,
    PLAY,
    REDEAL,
    TALON,
    Action,
)

_RANKS: Final[dict[str, int]] = {
    "9": C.NINE, "девять": C.NINE, "девятка": C.NINE, "девʼять": C.NINE, "девʼятка": C.NINE,
    "nine": C.NINE,
    "10": C.TEN, "t": C.TEN, "десять": C.TEN, "десятка": C.TEN, "ten": C.TEN,
    "j": C.JACK, "в": C.JACK, "валет": C.JACK, "jack": C.JACK,
    "q": C.QUEEN, "д": C.QUEEN, "дама": C.QUEEN, "queen": C.QUEEN,
    "k": C.KING, "к": C.KING, "король": C.KING, "king": C.KING,
    "a": C.ACE, "т": C.ACE, "туз": C.ACE, "ace": C.ACE,
}
_SUITS: Final[dict[str, int]] = {
    **{w: C.SPADES for w in ("♠", "♤", "s", "п", "пики", "пик", "пика", "піки", "пік", "піка",
                             "spades", "spade")},
    **{w: C.CLUBS for w in ("♣", "♧", "c", "т", "трефы", "треф", "трефа", "трефи", "крести",
                            "кресты", "крестей", "к", "хрести", "хрест", "х", "clubs", "club")},
    **{w: C.DIAMONDS for w in ("♦", "♢", "d", "б", "бубны", "бубен", "бубна", "буби", "бубни",
                               "бубон", "diamonds", "diamond")},
    **{w: C.HEARTS for w in ("♥", "♡", "h", "ч", "черви", "червы", "червей", "чирва", "чирви",
                             "hearts", "heart")},
}
# a card played without declaring its marriage: "K♥ без", "5 без марьяжа", "K♥ plain"
_PLAIN: Final = re.compile(r"\s*(?:без(?:\s+\S+)?|plain|without(?:\s+\S+)*|-)$")
_WORDS: Final[dict[str, str]] = {
    **{w: PASS for w in ("пас", "п", "pass", "p")},
    **{w: REDEAL for w in ("пересдача", "пересдать", "перездача", "перездати", "redeal")},
    **{w: CONCEDE for w in ("роспись", "расписать", "розпис", "розписати", "concede")},
    **{w: DARK for w in ("втемную", "темная", "втемну", "темна", "dark")},
    **{w: LIGHT for w in ("смотреть", "смотреть карты", "дивитися", "дивитися карти", "look")},
    **{w: KEEP for w in ("играть", "играть эти карты", "грати", "грати ці карти", "keep")},
    **{w: TALON for w in ("прикуп", "взять прикуп", "взяти прикуп", "talon", "take")},
}
_CONTRACT_WORDS: Final = ("играю", "граю", "play")
_VALUE_KINDS: Final = (BID, CONTRACT, TALON)
CARD_KINDS: Final = (DECLARE, PLAY, GIVE, DISCARD)


def normal(text: str) -> str:
    """Lower case, single spaces, no emoji variation selector, ʼ for any apostrophe."""
    text = text.replace("\ufe0f", "").replace("'", "ʼ").replace("’", "ʼ").lower()
    return " ".join(text.split())


def read_card(text: str) -> C.Card | None:
    """The card ``text`` names, or None: ``9♠``, ``9s``, ``9 пик``, ``9п``, ``туз червей``,
    ``T♠`` (T is the ten, as in ``bot.engine.cards``; Cyrillic Т is the ace)."""
    words = [w for w in normal(text).split() if w != "of"]
    if len(words) == 2 and words[0] in _RANKS and words[1] in _SUITS:
        return C.card(_RANKS[words[0]], _SUITS[words[1]])
    if len(words) != 1:
        return None
    w = words[0]
    for cut in range(1, len(w)):
        rank, suit = w[:cut], w[cut:]
        if rank in _RANKS and suit in _SUITS:
            return C.card(_RANKS[rank], _SUITS[suit])
    return None


def read_move(text: str, legal: Sequence[Action], numbers: Mapping[int, C.Card]
              ) -> Action | C.Card | None:
    """The legal action ``text`` names; a card (``Card``) it names that no legal action
    plays (for the caller to say why); None when it names nothing.

    ``numbers`` are the hand's card numbers.  A card whose marriage may be declared is
    declared unless ``без`` (``plain``, ``-``) follows it."""
    t = normal(text)
    if not t:
        return None
    plain = False
    m = _PLAIN.search(t)
    if m and m.start() > 0:
        plain, t = True, t[:m.start()].strip()
    card: C.Card | None = None
    if t.isdigit() and int(t) in numbers:
        card = numbers[int(t)]
    elif t.isdigit():
        found = [a for a in legal if a.kind in _VALUE_KINDS and a.value == int(t)]
        return found[0] if len(found) == 1 else None
    else:
        card = read_card(t)
    if card is not None:
        kinds = (PLAY,) if plain else CARD_KINDS  # DECLARE first: the declaring lead
        for kind in kinds:
            for a in legal:
                if a.kind == kind and a.card == card:
                    return a
        return card
    if plain:
        return None
    head, _, rest = t.partition(" ")
    if head in _CONTRACT_WORDS and rest.isdigit():
        values = [a for a in legal if a.kind == CONTRACT and a.value == int(rest)]
        return values[0] if values else None
    word_kind = _WORDS.get(t)
    if word_kind is None and head in _WORDS and rest.isdigit():  # "прикуп 2"
        values = [a for a in legal if a.kind == _WORDS[head] and a.value == int(rest)]
        return values[0] if values else None
    named = [a for a in legal if a.kind == word_kind]
    return named[0] if len(named) == 1 else None
