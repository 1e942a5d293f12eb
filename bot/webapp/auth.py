"""Who is asking: Telegram's init data checked as Telegram documents it, then a session
token of our own.

Init data (``Telegram.WebApp.initData``) is a query string signed by Telegram with a key
only the bot knows: ``secret = HMAC_SHA256(key="WebAppData", msg=bot_token)``; the
data-check string is every field but ``hash`` as ``key=value``, sorted by key, joined by
``\\n``; ``hash`` is ``hex(HMAC_SHA256(key=secret, msg=data_check_string))``
(core.telegram.org/bots/webapps, "Validating data received via the Mini App").  The
person is taken only from its signed ``user`` field.

Init data is not refreshed while a page stays open, so it is exchanged once (at most
``INIT_MAX_AGE`` old) for a session token: ``<user id>.<lang>.<expiry>.<mac>``, the MAC an
HMAC-SHA256 under a key derived from the bot token (never the token itself).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl, urlencode

INIT_MAX_AGE: Final = 3600.0  # seconds: older init data is refused
INIT_MAX_BYTES: Final = 8192  # Telegram's is about 1 KB; anything far longer is refused
SESSION_TTL: Final = 4 * 3600.0  # seconds a session token is good for
CLOCK_SKEW: Final = 60.0  # init data "from the future" by at most this much
_TOKEN_RE: Final = re.compile(r"([1-9]\d{0,15})\.([a-z]{2})\.(\d{1,12})\.([0-9a-f]{64})")


class AuthError(Exception):
    """Init data or a session token refused; ``code`` names why (``webapp.err.<code>``)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True, slots=True)
class WebUser:
    """The person, from the signed ``user`` field of the init data."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None


@dataclass(frozen=True, slots=True)
class InitData:
    user: WebUser
    auth_date: int
    start_param: str | None


def _secret(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def sign_init_data(fields: dict[str, str], token: str) -> str:
    """``fields`` signed as Telegram signs init data (the tests' stand-in for Telegram)."""
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    digest = hmac.new(_secret(token), check.encode(), hashlib.sha256).hexdigest()
    return urlencode({**fields, "hash": digest})


def check_init_data(raw: str, token: str, now: float,
                    max_age: float = INIT_MAX_AGE) -> InitData:
    """The checked init data, or ``AuthError``: ``malformed``, ``forged``, ``expired``,
    ``no_user``."""
    if not raw or len(raw.encode()) > INIT_MAX_BYTES:
        raise AuthError("malformed")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("malformed") from None
    fields: dict[str, str] = {}
    for k, v in pairs:
        if k in fields:  # a field twice: which one did Telegram sign?
            raise AuthError("malformed")
        fields[k] = v
    given = fields.pop("hash", "")
    if not re.fullmatch(r"[0-9a-f]{64}", given):
        raise AuthError("forged")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    expected = hmac.new(_secret(token), check.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, given):
        raise AuthError("forged")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise AuthError("malformed") from None
    if auth_date > now + CLOCK_SKEW or now - auth_date > max_age:
        raise AuthError("expired")
    user = _user(fields.get("user"))
    start = fields.get("start_param")
    return InitData(user, auth_date, start)


def _user(raw: str | None) -> WebUser:
    if not raw:
        raise AuthError("no_user")
    try:
        data = json.loads(raw)
    except ValueError:
        raise AuthError("no_user") from None
    if not isinstance(data, dict):
        raise AuthError("no_user")
    uid = data.get("id")
    if not isinstance(uid, int) or isinstance(uid, bool) or not 0 < uid < 10**16:
        raise AuthError("no_user")
    name = data.get("first_name")
    username = data.get("username")
    code = data.get("language_code")
    return WebUser(uid, name if isinstance(name, str) else "",
                   username if isinstance(username, str) else None,
                   code if isinstance(code, str) else None)


@dataclass(frozen=True, slots=True)
class SessionKey:
    """Makes and reads our session tokens (a key derived from the bot token)."""

    key: bytes

    @staticmethod
    def for_token(token: str) -> SessionKey:
        return SessionKey(hmac.new(b"thousand-webapp-session", token.encode(),
                                   hashlib.sha256).digest())

    def _mac(self, body: str) -> str:
        return hmac.new(self.key, body.encode(), hashlib.sha256).hexdigest()

    def make(self, user_id: int, lang: str, now: float, ttl: float = SESSION_TTL) -> str:
        body = f"{user_id}.{lang}.{int(now + ttl)}"
        return f"{body}.{self._mac(body)}"

    def read(self, token: str | None, now: float) -> tuple[int, str]:
        """(user id, language) of a good token; ``AuthError`` ``session`` otherwise."""
        if not token or len(token) > 128:
            raise AuthError("session")
        m = _TOKEN_RE.fullmatch(token)
        if m is None:
            raise AuthError("session")
        body = token.rsplit(".", 1)[0]
        if not hmac.compare_digest(self._mac(body), m.group(4)):
            raise AuthError("session")
        if int(m.group(3)) < now:
            raise AuthError("session")
        return int(m.group(1)), m.group(2)


_LINK_RE: Final = re.compile(r"g([1-9][0-9]{0,17})_([A-Za-z0-9_-]{22})")


@dataclass(frozen=True, slots=True)
class TableLinks:
    """The link that opens a table's page from its group (``startapp``), and reading it back.

    The start parameter is ``g<game id>_<mac>``: the MAC is HMAC-SHA256 of the game id under
    a key derived from the bot token (128 bits, base64url).  Nobody without the token can
    make one for another game, every process of the bot reads it without storing anything,
    and it survives restarts; it names that table only.  (A code stored with the game would
    need a column and a look-up per opening, for nothing more.)  Telegram allows
    ``A-Za-z0-9_-`` up to 512 characters: ours is at most 42.
    """

    key: bytes
    bot_username: str
    short_name: str = ""  # WEBAPP_SHORT_NAME: the app registered with /newapp ("": main)

    @staticmethod
    def for_token(token: str, bot_username: str, short_name: str = "") -> TableLinks:
        key = hmac.new(b"thousand-webapp-table", token.encode(), hashlib.sha256).digest()
        return TableLinks(key, bot_username, short_name)

    def _mac(self, game_id: int) -> str:
        digest = hmac.new(self.key, str(game_id).encode(), hashlib.sha256).digest()[:16]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def param(self, game_id: int) -> str:
        return f"g{game_id}_{self._mac(game_id)}"

    def link(self, game_id: int) -> str:
        """``https://t.me/<bot>/<app>?startapp=<param>`` (the main Mini App without a name)."""
        app = f"/{self.short_name}" if self.short_name else ""
        return f"https://t.me/{self.bot_username}{app}?startapp={self.param(game_id)}"

    def game_of(self, param: str | None) -> int | None:
        """The game a start parameter names (None: none, or not one of ours)."""
        if not param or len(param) > 64:
            return None
        m = _LINK_RE.fullmatch(param)
        if m is None:
            return None
        game_id = int(m.group(1))
        if not hmac.compare_digest(self._mac(game_id), m.group(2)):
            return None
        return game_id
