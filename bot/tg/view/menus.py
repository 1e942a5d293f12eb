"""The lobby, its rules menu and the solo setup message."""

from __future__ import annotations

from dataclasses import dataclass

from bot import rule_words as W
from bot.engine.rules import (
    PRESETS,
    RULE_IDS,
    RULE_SPECS,
    Rules,
    inert_rules,
    preset_of,
)
from bot.i18n import esc, t
from bot.tg.view import callbacks as cb
from bot.tg.view import keepers as K
from bot.tg.view.common import (
    LEVELS,
    SECTIONS,
    Button,
    Rendered,
    SeatLabel,
    button_rows,
    fit,
    pace_name,
    seat_name,
)
from bot.tg.view.rules import (
    level_name,
    preset_name,
    rule_name,
    rule_value,
    rules_brief,
)

# --------------------------------------------------------------------------- lobby


@dataclass(frozen=True, slots=True)
class LobbyInfo:
    game_id: int
    rev: int
    rules: Rules
    seats: tuple[SeatLabel, ...]  # seated, in seat order
    level: str
    note: str = ""  # an escaped line ("Борис — за столом") or ""
    page: str = ""  # "" the lobby, "m" sections, "s<k>" a section, "r<i>" a rule
    forced: bool = True  # a person's only legal action is played at once
    hints: bool = False  # 💡 on the hand messages (a table setting, off by default)
    pace: str = "normal"  # quick, normal or unhurried (a table setting)
    webapp: str = ""  # the Mini App's URL (WEBAPP_URL): a 🃏 button in the solo setup
    link: str = ""  # a group's lobby: the link that opens the table as a page (startapp)


def render_lobby(lang: str, info: LobbyInfo) -> Rendered:
    """The lobby: who sits where, and the choices people make every time (sit, computers,
    the table's size, start); the rest is one press away (``render_options``, "⚙️ Ещё…").
    The computers' level is shown only while a computer is seated."""
    if info.page == "o":
        return render_options(lang, info)
    if info.page and info.page != "k":
        return render_settings(lang, info)
    r = info.rules
    computers = any(s.computer for s in info.seats)
    lines = [t(lang, "lobby.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    if computers:
        lines.append(t(lang, "lobby.computer_level", level=level_name(lang, info.level)))
    for i in range(r.players):
        who = seat_name(info.seats, i) if i < len(info.seats) else t(lang, "lobby.free")
        lines.append(f"{i + 1}. {who}")
    if info.note:
        lines.append(f"<i>{info.note}</i>")
    full = len(info.seats) >= r.players
    g, v = info.game_id, info.rev
    if info.page == "k":  # the keepers' page: remove a person (keepers.py)
        return K.lobby_remove_page(lang, g, v, info.seats, lines)
    lines.append(t(lang, "lobby.hint_full" if full else "lobby.hint"))
    rows: list[tuple[Button, ...]] = [
        (Button(t(lang, "btn.join"), cb.encode(g, v, cb.JOIN)),
         Button(t(lang, "btn.leave"), cb.encode(g, v, cb.LEAVE))),
    ]
    ai_row = [Button(t(lang, "btn.add_computer"), cb.encode(g, v, cb.ADD_AI))]
    if computers:
        ai_row.append(Button(t(lang, "btn.drop_computer"), cb.encode(g, v, cb.DROP_AI)))
    rows.append(tuple(ai_row))
    if computers:
        nxt_level = LEVELS[(LEVELS.index(info.level) + 1) % len(LEVELS)] \
            if info.level in LEVELS else "hard"
        rows.append((Button(t(lang, "btn.level", level=level_name(lang, info.level)),
                            cb.encode(g, v, cb.LEVEL, nxt_level)),))
    nxt_players = {2: 3, 3: 4, 4: 2}[r.players]
    # each button says what it changes and its value now ("Игроков: 3"): two a row fit
    rows.append((
        Button(t(lang, "btn.players", n=r.players), cb.encode(g, v, cb.PLAYERS, str(nxt_players))),
        Button(t(lang, "btn.more"), _menu(g, v, "o")),
    ))
    rows.append((Button(t(lang, "btn.start"), cb.encode(g, v, cb.START)),
                 Button(t(lang, "btn.cancel"), cb.encode(g, v, cb.CANCEL))))
    if info.link:  # the table as a page: sit down there, or watch (bot/webapp/)
        rows.append((Button(t(lang, "btn.webapp_table"), url=info.link),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def render_options(lang: str, info: LobbyInfo) -> Rendered:
    """The lobby's "⚙️ Ещё…" page: the rules (a preset, or each rule), the table's
    settings (the only move played at once, hints, the pace) and the keepers' "remove a
    person"; back to the lobby."""
    r = info.rules
    g, v = info.game_id, info.rev
    preset = preset_of(r)
    presets = list(PRESETS)
    nxt_preset = presets[(presets.index(preset) + 1) % len(presets)]
    paces = ("quick", "normal", "unhurried")
    nxt_pace = paces[(paces.index(info.pace) + 1) % 3] if info.pace in paces else "normal"
    lines = [t(lang, "lobby.more_title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    rows: list[tuple[Button, ...]] = [
        (Button(t(lang, "btn.preset", preset=preset_name(lang, preset)),
                cb.encode(g, v, cb.PRESET, nxt_preset)),
         Button(t(lang, "btn.settings"), _menu(g, v, "m"))),
        (Button(t(lang, "btn.forced_on" if info.forced else "btn.forced_off"),
                cb.encode(g, v, cb.FORCED, "0" if info.forced else "1")),
         Button(t(lang, "btn.hints_on" if info.hints else "btn.hints_off"),
                cb.encode(g, v, cb.HINTS, "0" if info.hints else "1"))),
        (Button(t(lang, "btn.pace", pace=pace_name(lang, info.pace)),
                cb.encode(g, v, cb.PACE, nxt_pace)),),
    ]
    if any(not x.computer for x in info.seats):  # the keepers' "remove a person" (keepers.py)
        rows.append((K.lobby_button(lang, g, v),))
    rows.append((Button(t(lang, "btn.done"), _menu(g, v, "")),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def render_settings(lang: str, info: LobbyInfo) -> Rendered:
    """The rule settings menu shown in place of the lobby (pages "", sections, one rule)."""
    g, v, r = info.game_id, info.rev, info.rules
    page = info.page
    lines = [t(lang, "settings.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    rows: list[tuple[Button, ...]] = []
    if page.startswith("s"):
        k = int(page[1:])
        section = SECTIONS[k] if 0 <= k < len(SECTIONS) else SECTIONS[0]
        lines.append(f"<b>{t(lang, f'section.{section}')}</b>")
        inert = inert_rules(r)  # options that do nothing at this table are not offered
        for rid in RULE_IDS:
            spec = RULE_SPECS[rid]
            if spec.section != section or rid in inert:
                continue
            idx = RULE_IDS.index(rid)
            value = getattr(r, rid)
            if spec.kind == "bool":
                mark = "✅" if value else "⬜"
                rows.append((Button(f"{mark} {rule_name(lang, rid)}",
                                    cb.encode(g, v, cb.SET, f"{idx}.{0 if value else 1}")),))
            else:
                rows.append((Button(f"{rule_name(lang, rid)}: {rule_value(lang, rid, value)}",
                                    cb.encode(g, v, cb.MENU, f"r{idx}")),))
        rows.append((Button(t(lang, "btn.sections"), _menu(g, v, "m")),))
    elif page.startswith("r"):
        idx = int(page[1:])
        rid = RULE_IDS[idx] if 0 <= idx < len(RULE_IDS) else RULE_IDS[0]
        spec = RULE_SPECS[rid]
        text = W.rule_text(lang, rid)
        lines.append(f"<b>{esc(rule_name(lang, rid))}</b>")
        if text is not None:
            lines.append(esc(text))
        lines.append(t(lang, "settings.now", value=esc(rule_value(lang, rid, getattr(r, rid)))))
        opts = [Button(("✅ " if getattr(r, rid) == opt else "") + rule_value(lang, rid, opt),
                       cb.encode(g, v, cb.SET, f"{idx}.{j}"))
                for j, opt in enumerate(spec.options)]
        rows.extend(button_rows(opts, 3))
        rows.append((Button(t(lang, "btn.back"), _menu(g, v, f"s{SECTIONS.index(spec.section)}")),))
    else:  # the list of sections
        lines.append(t(lang, "settings.pick"))
        secs = [Button(t(lang, f"section.{s}"), _menu(g, v, f"s{k}"))
                for k, s in enumerate(SECTIONS)]
        rows.extend(button_rows(secs, 2))
        rows.append((Button(t(lang, "btn.reset_rules"), cb.encode(g, v, cb.PRESET, preset_of(r))),
                     Button(t(lang, "btn.done"), _menu(g, v, "")),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def _menu(g: int, v: int, page: str) -> str:
    """Menu navigation: ``page`` "" (lobby), "o" (⚙️ Ещё…), "m" (sections), "s<k>",
    "r<i>"."""
    return cb.encode(g, v, cb.MENU, page)


def menu_page(arg: str) -> str | None:
    """The page a MENU callback asks for, None if there is no such page."""
    if arg.startswith("s") and int(arg[1:]) >= len(SECTIONS):
        return None
    if arg.startswith("r") and int(arg[1:]) >= len(RULE_IDS):
        return None
    return arg


# ====================================================================== solo setup, game end


def render_solo_setup(lang: str, info: LobbyInfo) -> Rendered:
    """``/newgame`` in a private chat, one question a message: first the table's size
    ("Play" starts at once with what is marked), then (page "q") the computers' level,
    whose press starts the game."""
    r = info.rules
    g, v = info.game_id, info.rev
    lines = [t(lang, "lobby.title"), t(lang, "lobby.rules", rules=rules_brief(lang, r))]
    if info.page == "q":
        lines.append(t(lang, "solo.pick_level"))
        levels = [Button(("✅ " if lv == info.level else "") + level_name(lang, lv),
                         cb.encode(g, v, cb.LEVEL, lv)) for lv in LEVELS]
        rows: list[tuple[Button, ...]] = [*button_rows(levels, 3),
                                          (Button(t(lang, "btn.back"), _menu(g, v, "")),)]
        return Rendered(fit("\n".join(lines)), tuple(rows))
    lines.append(t(lang, "solo.pick_size"))
    sizes = tuple(Button(("✅ " if n == r.players else "") + t(lang, "solo.players", n=n),
                         cb.encode(g, v, cb.PLAYERS, str(n))) for n in (2, 3, 4))
    presets = list(PRESETS)
    nxt = presets[(presets.index(preset_of(r)) + 1) % len(presets)]
    rows = [
        sizes,
        (Button(t(lang, "solo.play"), cb.encode(g, v, cb.START)),),
        (Button(t(lang, "btn.preset", preset=preset_name(lang, preset_of(r))),
                cb.encode(g, v, cb.PRESET, nxt)),
         Button(t(lang, "btn.settings"), _menu(g, v, "m"))),
        (Button(t(lang, "btn.cancel"), cb.encode(g, v, cb.CANCEL)),),
    ]
    if info.webapp:  # the page waits for "Play" and then shows the table (bot/webapp/)
        rows.append((Button(t(lang, "btn.webapp"), web_app=f"{info.webapp}?game={g}"),))
    return Rendered(fit("\n".join(lines)), tuple(rows))


def render_solo_started(lang: str, info: LobbyInfo) -> Rendered:
    """What the solo setup message keeps once the game started (no buttons)."""
    return Rendered(fit(t(lang, "solo.started", level=level_name(lang, info.level),
                          n=info.rules.players, rules=rules_brief(lang, info.rules))))
