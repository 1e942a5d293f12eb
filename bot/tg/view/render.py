"""Messages and keyboards as pure functions of engine views: no Telegram, no I/O.

Every game message is built from ``view(state, seat)`` (a private hand message) or
``public_view(state)`` (the group table), never from the full state, so a hand, a received
card or a hidden talon cannot reach another chat.  Texts are HTML (names escaped) and come
from the catalog (``bot.i18n``); a ``Rendered`` value is the text and the inline keyboard as
plain data, compared to skip identical edits.

The functions live by concern (this module gathers them, so ``from bot.tg.view import render
as R`` reads every one): ``common.py`` (cards, names, buttons, limits), ``rules.py`` (the
words of the rules, /rules, refusals), ``menus.py`` (the lobby and the solo setup),
``table.py`` (the table message), ``hands.py`` (a hand message and its buttons),
``sheet.py`` (deal summaries, the score sheet, the end of a game).
"""

from __future__ import annotations

from bot.tg.view.common import (
    LEVELS as LEVELS,
)
from bot.tg.view.common import (
    MAX_POPUP as MAX_POPUP,
)
from bot.tg.view.common import (
    MAX_TEXT as MAX_TEXT,
)
from bot.tg.view.common import (
    NAME_LIMIT as NAME_LIMIT,
)
from bot.tg.view.common import (
    RANK_NAMES as RANK_NAMES,
)
from bot.tg.view.common import (
    SECTIONS as SECTIONS,
)
from bot.tg.view.common import (
    SUIT_EMOJI as SUIT_EMOJI,
)
from bot.tg.view.common import (
    Button as Button,
)
from bot.tg.view.common import (
    Keyboard as Keyboard,
)
from bot.tg.view.common import (
    Rendered as Rendered,
)
from bot.tg.view.common import (
    SeatLabel as SeatLabel,
)
from bot.tg.view.common import (
    card_button as card_button,
)
from bot.tg.view.common import (
    card_text as card_text,
)
from bot.tg.view.common import (
    cards_text as cards_text,
)
from bot.tg.view.common import (
    clock_time as clock_time,
)
from bot.tg.view.common import (
    fit as fit,
)
from bot.tg.view.common import (
    hand_text as hand_text,
)
from bot.tg.view.common import (
    pace_name as pace_name,
)
from bot.tg.view.common import (
    popup as popup,
)
from bot.tg.view.common import (
    seat_labels as seat_labels,
)
from bot.tg.view.common import (
    seat_name as seat_name,
)
from bot.tg.view.common import (
    split_text as split_text,
)
from bot.tg.view.common import (
    unique_names as unique_names,
)
from bot.tg.view.common import (
    waited_text as waited_text,
)
from bot.tg.view.hands import (
    hand_popup as hand_popup,
)
from bot.tg.view.hands import (
    render_hand as render_hand,
)
from bot.tg.view.hands import (
    totals_popup as totals_popup,
)
from bot.tg.view.menus import (
    LobbyInfo as LobbyInfo,
)
from bot.tg.view.menus import (
    menu_page as menu_page,
)
from bot.tg.view.menus import (
    render_lobby as render_lobby,
)
from bot.tg.view.menus import (
    render_settings as render_settings,
)
from bot.tg.view.menus import (
    render_solo_setup as render_solo_setup,
)
from bot.tg.view.menus import (
    render_solo_started as render_solo_started,
)
from bot.tg.view.rules import (
    find_rule as find_rule,
)
from bot.tg.view.rules import (
    level_name as level_name,
)
from bot.tg.view.rules import (
    preset_name as preset_name,
)
from bot.tg.view.rules import (
    refusal_text as refusal_text,
)
from bot.tg.view.rules import (
    render_rule as render_rule,
)
from bot.tg.view.rules import (
    render_rules as render_rules,
)
from bot.tg.view.rules import (
    rule_name as rule_name,
)
from bot.tg.view.rules import (
    rule_value as rule_value,
)
from bot.tg.view.rules import (
    rules_brief as rules_brief,
)
from bot.tg.view.sheet import (
    SHEET_LABEL_LIMIT as SHEET_LABEL_LIMIT,
)
from bot.tg.view.sheet import (
    SHEET_NAME_LIMIT as SHEET_NAME_LIMIT,
)
from bot.tg.view.sheet import (
    deal_summary as deal_summary,
)
from bot.tg.view.sheet import (
    end_keyboard as end_keyboard,
)
from bot.tg.view.sheet import (
    note_line as note_line,
)
from bot.tg.view.sheet import (
    pictures_keyboard as pictures_keyboard,
)
from bot.tg.view.sheet import (
    render_deal_end as render_deal_end,
)
from bot.tg.view.sheet import (
    render_game_end as render_game_end,
)
from bot.tg.view.sheet import (
    render_left as render_left,
)
from bot.tg.view.sheet import (
    render_score as render_score,
)
from bot.tg.view.sheet import (
    render_stopped as render_stopped,
)
from bot.tg.view.sheet import (
    row_notes as row_notes,
)
from bot.tg.view.sheet import (
    written_points as written_points,
)
from bot.tg.view.table import (
    TableInfo as TableInfo,
)
from bot.tg.view.table import (
    redeal_line as redeal_line,
)
from bot.tg.view.table import (
    render_table as render_table,
)
