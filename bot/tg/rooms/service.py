"""The games of all chats: load → check → apply → store → render → schedule.

One ``Session`` per active game (lobby or playing) lives in memory; the record in storage
(rules, seed, seats and the action log) is the truth, and a restart rebuilds every session by
replaying it.  One lock per chat, so one game's actions run one at a time while other chats
never wait.  An accepted action is stored (``append_action``, one transaction) before
anybody is answered; then the messages are re-rendered from views and handed to the outbox,
the computer seats are driven and the turn timer is armed.

``GameService`` is built from rooms, each a module that reads alone:

| module | room |
|---|---|
| ``session.py`` | the plain pieces: ``UserRef``, ``ChatRef``, ``Where``, ``Answer``, ``Session`` |
| ``core.py`` | registry, locks, languages, admins, replies, supervised background tasks |
| ``table.py`` | a press → engine → storage → outbox, computer seats, turn timers (start here) |
| ``lobby.py`` | lobbies, seats, rules menu, solo games, the start |
| ``membership.py`` | blocked and returning people, the bot removed or added, migrations |
| ``restore.py`` | start-up restore (or broken), shutdown, expiry of idle games |
| ``ratings_room.py`` | players' records and ratings: a finished game counted once, /stats, /top |
| ``commands.py`` | /start, /newgame, /score, /rules, /leave, /stop, … |
| ``media.py`` | pictures of a game (the 🖼 button, the end of a game), /export, record files |
"""

from __future__ import annotations

from bot.engine.rules import rules_from_args
from bot.tg.rooms.lobby import fit_rules
from bot.tg.rooms.media import MediaRoom
from bot.tg.rooms.session import (
    Answer,
    ChatKind,
    ChatRef,
    Reply,
    Session,
    UserRef,
    Where,
    clean_name,
    hand_key,
    lobby_key,
    table_key,
)

__all__ = [
    "Answer",
    "ChatKind",
    "ChatRef",
    "GameService",
    "Reply",
    "Session",
    "UserRef",
    "Where",
    "clean_name",
    "fit_rules",
    "hand_key",
    "lobby_key",
    "rules_from_args",
    "table_key",
]


class GameService(MediaRoom):
    """Every game of every chat (see the rooms above)."""
