"""The rules of a table: one frozen object carrying every house rule of the rule book.

Field names are the rule ids of RULES.md §5 and §6 — the stable names used in
records, settings, ``/rules NAME`` and the code. Defaults are the rule book's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator


class RulesError(ValueError):
    """A rule set that cannot be played, with a readable reason."""


class Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # 5.1 limits and bidding
    bid_step: int = 5
    bid_jumps: bool = True
    bid_needs_marriage: bool = True
    max_bid: int = 300
    talon_hidden_on_100: bool = True
    pass_face_down: bool = True
    min_total_to_bid: int | None = None
    barrel_bidding: Literal["normal", "sitter_takes_talon"] = "normal"
    # 5.2 play
    marriage_first_lead: bool = False
    ace_marriage: bool = False
    no_lead_foreign_trump: bool = False
    must_lead_trump: bool = False
    last_trick_bonus: int = 0
    # 5.3 redeal
    redeal_hand_below: int | None = 14
    redeal_four_nines: bool = True
    redeal_three_nines: Literal["any", "forehand", "off"] = "any"
    redeal_four_jacks: bool = True
    redeal_talon_below: int | None = 5
    redeal_talon_two_nines: bool = True
    redeal_talon_three_jacks: bool = True
    redeal_talon_only_on_100: bool = False
    redeal_after_pass: bool = False
    # 5.4 concession
    rospis: bool = True
    rospis_pays: Literal["half", "sixty", "half_max_60"] = "half"
    rospis_keeps_contract: bool = False
    rospis_limit: int | None = None
    rospis_third_penalty: bool = False
    rospis_barrel_blocks_all: bool = False
    # 5.5 golden round
    golden_round: bool = False
    golden_raise: bool = False
    golden_reset: bool = True
    golden_double_bolts: bool = True
    # 5.6 dark play
    dark_play: bool = False
    dark_unblind: bool = False
    dark_unblind_takes_talon: bool = False
    dark_cap_240: bool = True
    dark_on_barrel: bool = False
    dark_rospis: bool = False
    dark_double_bolts: bool = True
    # 5.7 penalties and scoring
    penalty: int = 120
    round_declarer: bool = False
    bolts_limit: int = 3
    bolts_in_a_row: bool = False
    bolt_own_game_free: bool = False
    samosval: bool = True
    samosval_negative: bool = True
    four_nines_bonus: bool = False
    # 5.8 barrel
    barrel: bool = True
    barrel_at: Literal[880, 900] = 880
    barrel_attempts: int = 3
    barrel_knock_off: bool = True
    barrel_simultaneous_fall: bool = True
    barrel_third_fall_zero: bool = True
    barrel_fail_costs_contract: bool = False
    barrel_freezes_defenders: bool = False
    win_over_1000: bool = False
    # 6 two and four players
    players: Literal[2, 3, 4] = 3
    two_player_mode: Literal["two_talons", "stock"] = "two_talons"
    two_player_pass: Literal["discard_two", "give_one"] = "discard_two"
    unused_talon_to_last_trick: bool = False
    dealer_scores_talon: bool = True

    @model_validator(mode="after")
    def _check(self) -> Rules:
        problems = rule_problems(self)
        if problems:
            raise ValueError("; ".join(problems))
        return self

    # --- derived values -------------------------------------------------
    @property
    def barrel_min_bid(self) -> int:
        """M: the least bid of a seat on the barrel (120 at 880; 125 with win_over_1000)."""
        return (1005 if self.win_over_1000 else 1000) - self.barrel_at

    @property
    def stock_mode(self) -> bool:
        return self.players == 2 and self.two_player_mode == "stock"

    def diff(self, base: Rules | None = None) -> dict[str, Any]:
        """The rules that differ from ``base`` (default: the classic rules)."""
        other = base if base is not None else CLASSIC
        mine, theirs = self.model_dump(), other.model_dump()
        return {k: v for k, v in mine.items() if theirs[k] != v}


# Sub-rules that only make sense when their parent rule is on: a non-default
# value with the parent off is refused.
_PARENTS: dict[str, tuple[str, Any]] = {
    "golden_raise": ("golden_round", True),
    "golden_reset": ("golden_round", True),
    "golden_double_bolts": ("golden_round", True),
    "dark_unblind": ("dark_play", True),
    "dark_unblind_takes_talon": ("dark_unblind", True),
    "dark_cap_240": ("dark_play", True),
    "dark_on_barrel": ("dark_play", True),
    "dark_rospis": ("dark_play", True),
    "dark_double_bolts": ("dark_play", True),
    "rospis_pays": ("rospis", True),
    "rospis_keeps_contract": ("rospis", True),
    "rospis_limit": ("rospis", True),
    "rospis_third_penalty": ("rospis", True),
    "rospis_barrel_blocks_all": ("rospis", True),
    "redeal_talon_only_on_100": ("talon_redeal", True),
    "barrel_at": ("barrel", True),
    "barrel_attempts": ("barrel", True),
    "barrel_knock_off": ("barrel", True),
    "barrel_simultaneous_fall": ("barrel", True),
    "barrel_third_fall_zero": ("barrel", True),
    "barrel_fail_costs_contract": ("barrel", True),
    "barrel_freezes_defenders": ("barrel", True),
    "barrel_bidding": ("barrel", True),
    "win_over_1000": ("barrel", True),
}


def rule_problems(r: Rules) -> list[str]:
    """Every reason why ``r`` cannot be played (empty when it can)."""
    out: list[str] = []
    defaults = _DEFAULTS
    values = {name: getattr(r, name) for name in type(r).model_fields}
    values["talon_redeal"] = (
        r.redeal_talon_below is not None or r.redeal_talon_two_nines or r.redeal_talon_three_jacks
    )
    for child, (parent, need) in _PARENTS.items():
        if child not in defaults:
            continue
        if values[child] != defaults[child] and values[parent] != need:
            out.append(f"{child} needs {parent}")
    if r.bid_step <= 0 or r.bid_step % 5:
        out.append("bid_step must be a positive multiple of 5")
    if not 120 <= r.max_bid <= 400 or r.max_bid % 5:
        out.append("max_bid must be a multiple of 5 from 120 to 400")
    if r.last_trick_bonus < 0 or r.last_trick_bonus > 100 or r.last_trick_bonus % 5:
        out.append("last_trick_bonus must be a multiple of 5 from 0 to 100")
    if r.redeal_hand_below is not None and not 0 <= r.redeal_hand_below <= 60:
        out.append("redeal_hand_below must be from 0 to 60")
    if r.redeal_talon_below is not None and not 0 <= r.redeal_talon_below <= 33:
        out.append("redeal_talon_below must be from 0 to 33")
    if r.rospis_limit is not None and r.rospis_limit < 1:
        out.append("rospis_limit must be at least 1")
    if r.min_total_to_bid is not None and not -1000 <= r.min_total_to_bid <= 1000:
        out.append("min_total_to_bid must be from -1000 to 1000")
    if not 0 <= r.penalty <= 1000:
        out.append("penalty must be from 0 to 1000")
    if not 1 <= r.bolts_limit <= 10:
        out.append("bolts_limit must be from 1 to 10")
    if not 1 <= r.barrel_attempts <= 10:
        out.append("barrel_attempts must be from 1 to 10")
    if r.must_lead_trump and r.no_lead_foreign_trump:
        out.append("must_lead_trump and no_lead_foreign_trump contradict each other "
                   "when the trump was declared by another seat: choose one")
    if r.players != 2:
        for k in ("two_player_mode", "two_player_pass", "unused_talon_to_last_trick"):
            if values[k] != defaults[k]:
                out.append(f"{k} needs players = 2")
    if r.players != 4 and r.dealer_scores_talon != defaults["dealer_scores_talon"]:
        out.append("dealer_scores_talon needs players = 4")
    if r.players == 2 and r.two_player_mode == "stock":
        for k in ("two_player_pass", "unused_talon_to_last_trick"):
            if values[k] != defaults[k]:
                out.append(f"{k} needs two_player_mode = two_talons")
    if r.stock_mode and (r.golden_round or r.dark_play):
        out.append("the stock game (two_player_mode = stock) has no bidding: "
                   "golden_round and dark_play cannot be used with it")
    return out


_DEFAULTS: dict[str, Any] = {
    name: f.default for name, f in Rules.model_fields.items()
}

CLASSIC = Rules()

FULL = Rules(
    golden_round=True,
    dark_play=True,
    dark_unblind=True,
    ace_marriage=True,
    redeal_after_pass=True,
    four_nines_bonus=True,
    rospis_limit=3,
    rospis_third_penalty=True,
)

PRESETS: dict[str, Rules] = {"classic": CLASSIC, "full": FULL}


def make_rules(preset: str = "classic", **changes: Any) -> Rules:
    """A preset with single rules changed; raises RulesError with a readable reason."""
    if preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    data = PRESETS[preset].model_dump()
    for k in changes:
        if k not in data:
            raise RulesError(f"unknown rule {k!r}")
    data.update(changes)
    return rules_from_dict(data)


def rules_from_dict(data: dict[str, Any]) -> Rules:
    """Validate rules read from a record, a setting or a message; RulesError on any problem."""
    try:
        return Rules.model_validate(data)
    except ValidationError as e:
        msgs = []
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"])
            text = str(err["msg"]).removeprefix("Value error, ")
            msgs.append(f"{loc}: {text}" if loc else text)
        raise RulesError("; ".join(msgs)) from None


def preset_of(rules: Rules) -> str:
    """The preset these rules are closest to (fewest differences)."""
    return min(PRESETS, key=lambda name: len(rules.diff(PRESETS[name])))


# --- rule descriptions for menus ---------------------------------------------

RuleKind = Literal["bool", "int", "choice"]


@dataclass(frozen=True)
class RuleSpec:
    id: str
    kind: RuleKind
    section: str
    options: tuple[Any, ...]  # the values a settings menu offers (choice and numbers)
    nullable: bool = False


_NUMBER_OPTIONS: dict[str, tuple[Any, ...]] = {
    "bid_step": (5, 10),
    "max_bid": (200, 250, 300, 350, 400),
    "min_total_to_bid": (None, 0, -100, -200, -300),
    "last_trick_bonus": (0, 10, 20),
    "redeal_hand_below": (None, 10, 13, 14, 15),
    "redeal_talon_below": (None, 5, 10),
    "rospis_limit": (None, 1, 2, 3, 5),
    "penalty": (60, 100, 120, 150, 200),
    "bolts_limit": (2, 3, 4, 5),
    "barrel_attempts": (1, 2, 3, 4, 5),
}

_SECTIONS: dict[str, str] = {}
for _sec, _ids in {
    "bidding": "bid_step bid_jumps bid_needs_marriage max_bid talon_hidden_on_100 pass_face_down "
               "min_total_to_bid barrel_bidding",
    "play": "marriage_first_lead ace_marriage no_lead_foreign_trump must_lead_trump "
            "last_trick_bonus",
    "redeal": "redeal_hand_below redeal_four_nines redeal_three_nines redeal_four_jacks "
              "redeal_talon_below redeal_talon_two_nines redeal_talon_three_jacks "
              "redeal_talon_only_on_100 redeal_after_pass",
    "rospis": "rospis rospis_pays rospis_keeps_contract rospis_limit rospis_third_penalty "
              "rospis_barrel_blocks_all",
    "golden": "golden_round golden_raise golden_reset golden_double_bolts",
    "dark": "dark_play dark_unblind dark_unblind_takes_talon dark_cap_240 dark_on_barrel "
            "dark_rospis dark_double_bolts",
    "scoring": "penalty round_declarer bolts_limit bolts_in_a_row bolt_own_game_free samosval "
               "samosval_negative four_nines_bonus",
    "barrel": "barrel barrel_at barrel_attempts barrel_knock_off barrel_simultaneous_fall "
              "barrel_third_fall_zero barrel_fail_costs_contract barrel_freezes_defenders "
              "win_over_1000",
    "table": "players two_player_mode two_player_pass unused_talon_to_last_trick "
             "dealer_scores_talon",
}.items():
    for _id in _ids.split():
        _SECTIONS[_id] = _sec


def _spec(name: str) -> RuleSpec:
    default = _DEFAULTS[name]
    ann = str(Rules.model_fields[name].annotation)
    if isinstance(default, bool):
        return RuleSpec(name, "bool", _SECTIONS[name], (False, True))
    if "Literal" in ann:
        args = Rules.model_fields[name].annotation.__args__  # type: ignore[union-attr]
        return RuleSpec(name, "choice", _SECTIONS[name], tuple(args))
    return RuleSpec(name, "int", _SECTIONS[name], _NUMBER_OPTIONS[name],
                    nullable="None" in ann)


RULE_SPECS: dict[str, RuleSpec] = {name: _spec(name) for name in Rules.model_fields}
RULE_IDS: tuple[str, ...] = tuple(Rules.model_fields)
