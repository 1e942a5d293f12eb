"""The words of the rules: names and values, the brief line, /rules, the refusal texts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot import rule_words as W
from bot.engine.rules import (
    CLASSIC,
    PRESETS,
    RULE_IDS,
    Rules,
    RulesError,
    preset_of,
)
from bot.engine.state import (
    IllegalAction,
)
from bot.i18n import esc, has, t
from bot.tg.view.common import (
    LEVELS,
    SUIT_EMOJI,
    SeatLabel,
    card_text,
    fit,
    num,
    seat_name,
    split_text,
)

# --------------------------------------------------------------------------- rules words


def rule_name(lang: str, rule_id: str) -> str:
    return W.rule_name(lang, rule_id)


def rule_value(lang: str, rule_id: str, value: Any) -> str:
    if isinstance(value, bool):
        return t(lang, "value.on" if value else "value.off")
    if value is None:
        return t(lang, "value.none")
    choice = W.choice_name(lang, rule_id, value)
    if choice is not None:
        return choice
    return num(int(value)) if isinstance(value, int) else str(value)


def preset_name(lang: str, preset: str) -> str:
    return t(lang, f"preset.{preset}")


def level_name(lang: str, level: str) -> str:
    return t(lang, f"level.{level}" if level in LEVELS else "level.hard")


def rules_brief(lang: str, rules: Rules, *, limit: int = 6) -> str:
    """``классика`` or ``классика (изменено: золотой кон, …)``, the table size left out."""
    preset = preset_of(rules)
    changed = [k for k in rules.diff(PRESETS[preset]) if k != "players"]
    name = preset_name(lang, preset)
    if not changed:
        return name
    names = [esc(rule_name(lang, k)) for k in changed[:limit]]
    if len(changed) > limit:
        names.append(t(lang, "and_more", n=len(changed) - limit))
    return t(lang, "rules.changed", preset=name, changes=", ".join(names))


def find_rule(word: str) -> str | None:
    """The rule id a player means by ``word`` (an id, a name or an alias)."""
    return W.find_rule(word)


# --------------------------------------------------------------------------- /rules


def render_rules(lang: str, rules: Rules) -> list[str]:
    """The short rules, then this table's house rules; split into messages ≤ 4096."""
    lines = [t(lang, "rules.summary"), "", t(lang, "rules.table_head",
                                             preset=preset_name(lang, preset_of(rules)))]
    diff = rules.diff(CLASSIC)
    if not diff:
        lines.append(t(lang, "rules.table_classic"))
    for rid, value in diff.items():
        lines.append(f"• {esc(rule_name(lang, rid))}: {esc(rule_value(lang, rid, value))}")
    lines.append("")
    lines.append(t(lang, "rules.more"))
    return split_text("\n".join(lines))


def render_rule(lang: str, rule_id: str, rules: Rules) -> str:
    name, text = W.rule_name(lang, rule_id), W.rule_text(lang, rule_id) or ""
    value = rule_value(lang, rule_id, getattr(rules, rule_id))
    default = rule_value(lang, rule_id, getattr(CLASSIC, rule_id))
    return fit(t(lang, "rule.one", name=esc(name), text=esc(text), value=esc(value),
                 default=esc(default)))


# --------------------------------------------------------------------------- refusals


def _refusal_param(lang: str, key: str, value: int | str, seats: Sequence[SeatLabel]) -> str:
    if key == "card" and isinstance(value, int):
        return card_text(value)
    if key == "suit" and isinstance(value, int):
        return SUIT_EMOJI[value] if 0 <= value < 4 else "?"
    if key in ("seat", "to_act") and isinstance(value, int):
        if 0 <= value < len(seats):
            return seat_name(seats, value)
        return t(lang, "refuse.seat", n=value + 1)
    if key == "phase":
        return t(lang, f"refuse.phase.{value}") if has(f"refuse.phase.{value}") else "?"
    if key == "kind":
        return t(lang, f"refuse.kind.{value}") if has(f"refuse.kind.{value}") else "?"
    if key in ("rule", "parent", "other") and isinstance(value, str):
        # a rule by its name, never its id ("redeal_talon_below / …": each of them)
        ids = value.split(" / ")
        if all(i in RULE_IDS for i in ids):
            return " / ".join(t(lang, "rule.quoted", name=esc(W.rule_name(lang, i)))
                              for i in ids)
    return esc(value)


def refusal_text(lang: str, error: IllegalAction | RulesError,
                 seats: Sequence[SeatLabel] = ()) -> str:
    """A refused move or rule set, said in ``lang`` (catalog keys ``refuse.<code>``), from the
    error's code and parameters, never from its English message. Seats are named from
    ``seats`` when given. The text is HTML-escaped (a name, a typed word)."""
    if isinstance(error, RulesError):
        items = [(p.code, p.params) for p in error.problems]
    else:
        items = [(error.code, error.params)]
    out = []
    for code, params in items:
        key = f"refuse.{code}" if has(f"refuse.{code}") else "refuse.rules"
        kw = {k: _refusal_param(lang, k, v, seats) for k, v in params.items()}
        out.append(t(lang, key, **kw) if kw else t(lang, key))
    return " ".join(out)
