"""The rules of a table: one frozen object carrying every house rule of the rule book.

Field names are the rule ids of RULES.md §5 and §6 — the stable names used in
records, settings, ``/rules NAME`` and the code. Defaults are the rule book's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator


@dataclass(frozen=True)
class Problem:
    """One reason a rule set is refused: an English sentence, a stable code and the values
    (rule ids, numbers) a translation needs (catalog keys ``refuse.<code>``)."""

    code: str
    message: str
    params: dict[str, int | str] = field(default_factory=dict)


class RulesError(ValueError):
    """A rule set that cannot be played, with a readable reason.

    ``str(e)`` is English; ``problems`` lists every reason with its code and parameters,
    ``code``/``params`` are the first one's (``bot.tg.view.render.refusal_text`` translates)."""

    def __init__(self, message: str, code: str = "rules", problems: tuple[Problem, ...] = (),
                 **params: int | str) -> None:
        super().__init__(message)
        self.problems = problems or (Problem(code, message, dict(params)),)
        self.code = self.problems[0].code
        self.params: dict[str, int | str] = self.problems[0].params


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
    """Every reason why ``r`` cannot be played (empty when it can), in English. A rule that
    needs another is written "<rule> needs …" (the settings menu resets such rules)."""
    return [p.message for p in rule_problem_list(r)]


_TWO_TALON_INERT: dict[str, tuple[str, str]] = {
    # rule: (code, the reason) for two players (two talons)
    "talon_hidden_on_100": ("inert_two_players_talon_shown",
                            "with two players the chosen talon is always shown"),
    "rospis_pays": ("inert_two_players_rospis", "with two players a concession pays 60"),
    "redeal_talon_three_jacks": ("inert_two_card_talon",
                                 "a talon of two cards cannot hold three jacks"),
}


def _inert(r: Rules) -> list[Problem]:
    """Rules that do nothing under the others' values (whatever their own value), each with
    the reason naming the rule that makes it meaningless."""
    out: list[Problem] = []
    if r.stock_mode:
        for k in type(r).model_fields:
            if k not in ("players", "two_player_mode"):
                out.append(Problem(
                    "inert_stock",
                    f"{k} needs two_player_mode = two_talons: the stock game "
                    "(two_player_mode = stock) has no bidding and no house rules; only "
                    "players and two_player_mode apply", {"rule": k}))
        return out
    if r.players == 2:
        for k, (code, why) in _TWO_TALON_INERT.items():
            out.append(Problem(code, f"{k} needs players = 3 or 4: {why}", {"rule": k}))
        if r.two_player_pass == "discard_two":
            out.append(Problem(
                "inert_pass_face_down",
                "pass_face_down needs two_player_pass = give_one with two players: cards put "
                "back (discard_two) are never shown", {"rule": "pass_face_down"}))
    if r.barrel and not r.barrel_knock_off:
        out.append(Problem(
            "inert_simultaneous_fall",
            "barrel_simultaneous_fall needs barrel_knock_off: without knock-offs every seat "
            "that climbs sits, so nobody falls for climbing together",
            {"rule": "barrel_simultaneous_fall"}))
    if r.rospis and r.rospis_limit is not None and r.rospis_limit < 3:
        out.append(Problem(
            "inert_third_rospis",
            f"rospis_third_penalty needs rospis_limit of 3 or more: with rospis_limit = "
            f"{r.rospis_limit} there is no third concession",
            {"rule": "rospis_third_penalty", "limit": r.rospis_limit}))
    if not r.barrel:
        for k in ("rospis_barrel_blocks_all", "dark_on_barrel"):
            out.append(Problem("rule_needs", f"{k} needs barrel", {"rule": k,
                                                                  "parent": "barrel"}))
    return out


def _parent_ok(r: Rules, parent: str, need: Any) -> bool:
    if parent == "talon_redeal":
        value: Any = (r.redeal_talon_below is not None or r.redeal_talon_two_nines
                      or r.redeal_talon_three_jacks)
    else:
        value = getattr(r, parent)
    return bool(value == need)


_TALON_REDEAL = "redeal_talon_below / redeal_talon_two_nines / redeal_talon_three_jacks"


def inert_rules(r: Rules) -> frozenset[str]:
    """The rules that do nothing at a table with ``r`` (a settings menu does not offer them):
    sub-rules whose parent is off, rules of another number of players, and the rules other
    rules make meaningless (§5, §6.2)."""
    out = {p.params["rule"] for p in _inert(r)}
    out |= {child for child, (parent, need) in _PARENTS.items()
            if not _parent_ok(r, parent, need)}
    if r.players != 2:
        out |= {"two_player_mode", "two_player_pass", "unused_talon_to_last_trick"}
    elif r.stock_mode:
        out |= {"two_player_pass", "unused_talon_to_last_trick"}
    if r.players != 4:
        out.add("dealer_scores_talon")
    return frozenset(str(k) for k in out)


def rule_problem_list(r: Rules) -> list[Problem]:
    """Every reason why ``r`` cannot be played, with codes (empty when it can)."""
    out: list[Problem] = []
    defaults = _DEFAULTS
    values = {name: getattr(r, name) for name in type(r).model_fields}
    for child, (parent, need) in _PARENTS.items():
        if values[child] != defaults[child] and not _parent_ok(r, parent, need):
            shown = _TALON_REDEAL if parent == "talon_redeal" else parent
            out.append(Problem("rule_needs", f"{child} needs {shown}",
                               {"rule": child, "parent": shown}))

    def multiple(rule: str, lo: int, hi: int) -> None:
        out.append(Problem("rule_multiple_range",
                           f"{rule} must be a multiple of 5 from {lo} to {hi}",
                           {"rule": rule, "lo": lo, "hi": hi}))

    def within(rule: str, lo: int, hi: int) -> None:
        out.append(Problem("rule_range", f"{rule} must be from {lo} to {hi}",
                           {"rule": rule, "lo": lo, "hi": hi}))

    if r.bid_step <= 0 or r.bid_step % 5:
        out.append(Problem("rule_positive_multiple", "bid_step must be a positive multiple of 5",
                           {"rule": "bid_step"}))
    if not 120 <= r.max_bid <= 400 or r.max_bid % 5:
        multiple("max_bid", 120, 400)
    if r.last_trick_bonus < 0 or r.last_trick_bonus > 100 or r.last_trick_bonus % 5:
        multiple("last_trick_bonus", 0, 100)
    if r.redeal_hand_below is not None and not 0 <= r.redeal_hand_below <= 60:
        within("redeal_hand_below", 0, 60)
    if r.redeal_talon_below is not None and not 0 <= r.redeal_talon_below <= 33:
        within("redeal_talon_below", 0, 33)
    if r.rospis_limit is not None and r.rospis_limit < 1:
        out.append(Problem("rule_at_least", "rospis_limit must be at least 1",
                           {"rule": "rospis_limit", "lo": 1}))
    if r.min_total_to_bid is not None and not -1000 <= r.min_total_to_bid <= 1000:
        within("min_total_to_bid", -1000, 1000)
    if not 0 <= r.penalty <= 1000:
        within("penalty", 0, 1000)
    if not 1 <= r.bolts_limit <= 10:
        within("bolts_limit", 1, 10)
    if not 1 <= r.barrel_attempts <= 10:
        within("barrel_attempts", 1, 10)
    if r.must_lead_trump and r.no_lead_foreign_trump:
        out.append(Problem(
            "rules_contradict",
            "must_lead_trump and no_lead_foreign_trump contradict each other when the trump "
            "was declared by another seat: choose one",
            {"rule": "must_lead_trump", "other": "no_lead_foreign_trump"}))
    if r.players != 2:
        for k in ("two_player_mode", "two_player_pass", "unused_talon_to_last_trick"):
            if values[k] != defaults[k]:
                out.append(Problem("rule_needs_value", f"{k} needs players = 2",
                                   {"rule": k, "parent": "players", "value": "2"}))
    if r.players != 4 and r.dealer_scores_talon != defaults["dealer_scores_talon"]:
        out.append(Problem("rule_needs_value", "dealer_scores_talon needs players = 4",
                           {"rule": "dealer_scores_talon", "parent": "players", "value": "4"}))
    named = {str(p.params.get("rule")) for p in out}
    for p in _inert(r):
        rule = str(p.params["rule"])
        if values[rule] != defaults[rule] and rule not in named:
            out.append(p)
            named.add(rule)
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
        raise RulesError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})",
                         "unknown_preset", preset=preset)
    data = PRESETS[preset].model_dump()
    for k in changes:
        if k not in data:
            raise RulesError(f"unknown rule {k!r}", "unknown_rule", rule=k)
    data.update(changes)
    return rules_from_dict(data)


def rules_from_dict(data: dict[str, Any]) -> Rules:
    """Validate rules read from a record, a setting or a message; RulesError on any problem."""
    try:
        return Rules.model_validate(data)
    except ValidationError as e:
        problems: list[Problem] = []
        for err in e.errors():
            loc = ".".join(str(x) for x in err["loc"])
            if not loc:
                continue
            text = str(err["msg"]).removeprefix("Value error, ")
            value = err.get("input")
            problems.append(Problem("rule_value", f"{loc}: {text}",
                                    {"rule": loc, "value": str(value)}))
        if not problems:  # the values are each fine; their combination is not
            problems = rule_problem_list(Rules.model_construct(**data))
        if not problems:  # pragma: no cover - the validator refused for a listed reason
            problems = [Problem("rules", str(e))]
        raise RulesError("; ".join(p.message for p in problems), problems=tuple(problems),
                         ) from None


_PRESET_WORDS: dict[str, str] = {
    "classic": "classic", "классика": "classic", "классические": "classic",
    "full": "full", "полные": "full", "полная": "full", "все": "full",
}
_TRUE = ("on", "true", "yes", "1", "да", "вкл")
_FALSE = ("off", "false", "no", "0", "нет", "выкл")
_NONE = ("none", "null", "нет", "-")


def _read_value(rule: str, text: str) -> Any:
    spec = RULE_SPECS[rule]
    w = text.strip().lower()
    if spec.kind == "bool":
        if w in _TRUE:
            return True
        if w in _FALSE:
            return False
    elif spec.kind == "int":
        if spec.nullable and w in _NONE:
            return None
        if w.lstrip("-").isdigit():
            return int(w)
    else:
        for opt in spec.options:
            if str(opt) == w:
                return opt
    raise RulesError(f"{rule}: cannot use the value {text!r}", "rule_value", rule=rule,
                     value=text)


def rules_from_args(base: Rules, args: Sequence[str]) -> Rules:
    """The rules of ``/newgame [2|3|4] [classic|full] [rule=value …]``.

    ``base`` (the chat's default rules, or the preset named) is fitted to the table: its
    rules that a changed number of players (or another argument) makes meaningless go back
    to their defaults. A rule set by an argument that cannot be used with the others (a
    rule that does nothing there, a contradiction, a bad value) is refused: RulesError
    with the reason (``code``, ``params``; every reason in ``problems``)."""
    preset: str | None = None
    players: int | None = None
    explicit: dict[str, Any] = {}
    for a in args:
        w = a.strip().lower()
        if w in ("2", "3", "4"):
            players = int(w)
        elif w in _PRESET_WORDS:
            preset = _PRESET_WORDS[w]
        elif "=" in w:
            rule, _, value = a.partition("=")
            rule = rule.strip()
            if rule not in RULE_SPECS:
                raise RulesError(f"unknown rule {rule!r}", "unknown_rule", rule=rule)
            explicit[rule] = _read_value(rule, value)
        else:
            raise RulesError(f"unknown word {a!r}: use 2, 3, 4, classic, full or rule=value",
                             "newgame_unknown_word", word=a)
    data = (PRESETS[preset] if preset else base).model_dump()
    if players is not None:
        explicit.setdefault("players", players)
    data.update(explicit)
    for _ in range(len(RULE_IDS) + 1):
        try:
            return rules_from_dict(data)
        except RulesError as e:
            mine = [p for p in e.problems if p.params.get("rule") in explicit
                    or p.code in ("rule_value", "rules")]
            inherited = {str(p.params["rule"]) for p in e.problems
                         if p.params.get("rule") in data and p.params.get("rule") not in explicit}
            if mine or not inherited:
                problems = tuple(mine) or e.problems
                raise RulesError("; ".join(p.message for p in problems),
                                 problems=problems) from None
            for rule in inherited:
                data[rule] = _DEFAULTS[rule]
    raise RulesError("the rules cannot be fitted", "rules")  # pragma: no cover


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
