"""Callback data of inline buttons: ``g<game>:<version>:<verb>:<arg>``, at most 64 bytes.

``version`` is the engine's state version for game actions (a stale press is refused) and
the lobby revision for lobby buttons.  ``decode`` is strict: anything that is not exactly a
code this module writes gives ``None``.

Game actions are written compactly (``arg``): ``dk`` dark, ``lt`` light, ``rd`` redeal,
``kp`` keep, ``ps`` pass, ``cs`` concede, ``b<n>`` bid, ``t<n>`` talon, ``c<n>`` contract,
``g<card>`` give, ``x<card>`` discard, ``p<card>`` play, ``m<card>`` declare (card 0..23).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

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

MAX_BYTES: Final = 64

# verbs
ACT: Final = "a"  # a game action (hand message)
HAND: Final = "h"  # table message: show my hand in a popup
SCORE: Final = "s"  # table message: the totals in a popup
JOIN: Final = "j"
LEAVE: Final = "l"
ADD_AI: Final = "c"
DROP_AI: Final = "d"
PLAYERS: Final = "n"  # arg: 2, 3 or 4
PRESET: Final = "p"  # arg: preset name
LEVEL: Final = "v"  # arg: computer level
START: Final = "st"
CANCEL: Final = "x"
MENU: Final = "m"  # arg: page ("" lobby, "o" more, "m" sections, "s<section>", "r<rule>")
SET: Final = "r"  # arg: "<rule index>.<option index>"
REMATCH: Final = "rm"  # the final sheet: the same seats and rules again
NEW_TABLE: Final = "nt"  # the final sheet: a new lobby (or solo setup)
FORCED: Final = "f"  # lobby: play a person's only legal action at once (arg "1"/"0")
HINTS: Final = "hs"  # lobby: hints allowed at this table (arg "1"/"0")
HINT: Final = "q"  # hand message: what the computer would play here, and why
ANALYSE: Final = "z"  # a deal's summary: the open-card analysis (arg: the deal's number)
PICTURES: Final = "pc"  # /score and the final sheet: the sheet and race pictures (any game)
PACE: Final = "tp"  # lobby: the table's pace (arg: quick, normal or unhurried)
# hand message: another page of the seat's own buttons ("" the first, "m" the other bids or
# contracts, "l" the plain leads of a marriage's cards); it changes no game state
PAGE: Final = "pg"

# the keepers' controls (view/keepers.py; version: the seat revision, the lobby's revision)
KMENU: Final = "km"  # table: the keepers' menu ("" closed, "m" open, "s" stop?); lobby: "k"
KAUTO: Final = "ka"  # table menu: hand a person's seat to the computer (arg: the seat)
KBACK: Final = "kb"  # table menu: give a seat back to its person (arg: the seat)
KSTOP: Final = "ks"  # table menu: stop the game (after "s" asked)
SIT: Final = "ts"  # table: a latecomer asks for a computer's seat
SIT_OK: Final = "ty"  # the request line: let the person in ("<seat>.<user id>")
SIT_NO: Final = "tn"  # the request line: refuse (arg: the user id)
KICK: Final = "kk"  # lobby: remove a person (arg: the seat)
KEEPER_VERBS: Final = frozenset({KMENU, KAUTO, KBACK, KSTOP, SIT, SIT_OK, SIT_NO, KICK})

VERBS: Final = frozenset(
    {ACT, HAND, SCORE, JOIN, LEAVE, ADD_AI, DROP_AI, PLAYERS, PRESET, LEVEL, START, CANCEL, MENU,
     SET, REMATCH, NEW_TABLE, FORCED, HINTS, HINT, ANALYSE, PICTURES, PACE, PAGE}
) | KEEPER_VERBS

_RE: Final = re.compile(r"g([1-9]\d{0,17}):(0|[1-9]\d{0,8}):([a-z]{1,2}):([a-z0-9._]{0,24})")
_ARG_RE: Final = {
    ACT: re.compile(r"(dk|lt|rd|kp|ps|cs)|([btc])(\d{1,3})|([gxpm])(\d{1,2})"),
    HAND: re.compile(r""),
    SCORE: re.compile(r""),
    JOIN: re.compile(r""),
    LEAVE: re.compile(r""),
    ADD_AI: re.compile(r""),
    DROP_AI: re.compile(r""),
    PLAYERS: re.compile(r"[234]"),
    PRESET: re.compile(r"[a-z]{1,12}"),
    LEVEL: re.compile(r"[a-z]{1,12}"),
    START: re.compile(r""),
    CANCEL: re.compile(r""),
    MENU: re.compile(r"|m|o|s\d{1,2}|r\d{1,3}"),
    SET: re.compile(r"\d{1,3}\.\d{1,2}"),
    REMATCH: re.compile(r""),
    NEW_TABLE: re.compile(r""),
    FORCED: re.compile(r"[01]"),
    HINTS: re.compile(r"[01]"),
    HINT: re.compile(r""),
    ANALYSE: re.compile(r"[1-9]\d{0,3}"),
    PICTURES: re.compile(r""),
    PACE: re.compile(r"quick|normal|unhurried"),
    PAGE: re.compile(r"|m|l"),
    KMENU: re.compile(r"|m|s|k"),
    KAUTO: re.compile(r"[0-3]"),
    KBACK: re.compile(r"[0-3]"),
    KSTOP: re.compile(r""),
    SIT: re.compile(r""),
    SIT_OK: re.compile(r"[0-3]\.[1-9]\d{0,15}"),
    SIT_NO: re.compile(r"[1-9]\d{0,15}"),
    KICK: re.compile(r"[0-3]"),
}

_PLAIN: Final = {"dk": DARK, "lt": LIGHT, "rd": REDEAL, "kp": KEEP, "ps": PASS, "cs": CONCEDE}
_PLAIN_CODE: Final = {v: k for k, v in _PLAIN.items()}
_VALUE: Final = {"b": BID, "t": TALON, "c": CONTRACT}
_VALUE_CODE: Final = {v: k for k, v in _VALUE.items()}
_CARD: Final = {"g": GIVE, "x": DISCARD, "p": PLAY, "m": DECLARE}
_CARD_CODE: Final = {v: k for k, v in _CARD.items()}


@dataclass(frozen=True, slots=True)
class Callback:
    game_id: int
    version: int
    verb: str
    arg: str

    def action(self) -> Action | None:
        """The game action of an ``ACT`` callback (None for other verbs)."""
        return decode_action(self.arg) if self.verb == ACT else None


def encode(game_id: int, version: int, verb: str, arg: str = "") -> str:
    data = f"g{game_id}:{version}:{verb}:{arg}"
    if len(data.encode()) > MAX_BYTES:  # pragma: no cover - the formats above are short
        raise ValueError(f"callback data too long: {data!r}")
    return data


def decode(data: str | None) -> Callback | None:
    """The callback written by ``encode``, or None for anything else (forged or garbled)."""
    if data is None or len(data.encode()) > MAX_BYTES:
        return None
    m = _RE.fullmatch(data)
    if m is None:
        return None
    verb, arg = m.group(3), m.group(4)
    pattern = _ARG_RE.get(verb)
    if pattern is None or pattern.fullmatch(arg) is None:
        return None
    if verb == ACT and decode_action(arg) is None:
        return None
    return Callback(int(m.group(1)), int(m.group(2)), verb, arg)


def encode_action(action: Action) -> str:
    if action.kind in _PLAIN_CODE:
        return _PLAIN_CODE[action.kind]
    if action.kind in _VALUE_CODE:
        return f"{_VALUE_CODE[action.kind]}{action.value}"
    if action.kind in _CARD_CODE:
        return f"{_CARD_CODE[action.kind]}{action.card}"
    raise ValueError(f"no code for {action}")


def decode_action(arg: str) -> Action | None:
    m = _ARG_RE[ACT].fullmatch(arg)
    if m is None:
        return None
    if m.group(1):
        return Action(_PLAIN[m.group(1)])
    if m.group(2):
        return Action(_VALUE[m.group(2)], value=int(m.group(3)))
    card = int(m.group(5))
    if not 0 <= card < 24 or (len(m.group(5)) > 1 and m.group(5)[0] == "0"):
        return None
    return Action(_CARD[m.group(4)], card=card)


def action_data(game_id: int, version: int, action: Action) -> str:
    return encode(game_id, version, ACT, encode_action(action))
