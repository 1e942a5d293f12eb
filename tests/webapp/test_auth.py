"""Init data checked as Telegram documents it, and our own session tokens."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.webapp.auth import (
    INIT_MAX_AGE,
    INIT_MAX_BYTES,
    AuthError,
    SessionKey,
    check_init_data,
    sign_init_data,
)

TOKEN = "123456:" + "A" * 35
OTHER = "654321:" + "B" * 35
NOW = 1_800_000_000.0
USER = json.dumps({"id": 1001, "first_name": "Анна", "language_code": "ru"},
                  ensure_ascii=False, separators=(",", ":"))


def fields(**changes: str) -> dict[str, str]:
    base = {"query_id": "AAH", "user": USER, "auth_date": str(int(NOW) - 10),
            "signature": "x" * 20}
    base.update(changes)
    return base


def test_telegram_documented_signature_is_accepted() -> None:
    # the signature computed here independently, straight from Telegram's description
    f = fields()
    check = "\n".join(f"{k}={v}" for k, v in sorted(f.items()))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()
    raw = urlencode({**f, "hash": digest})
    got = check_init_data(raw, TOKEN, NOW)
    assert got.user.id == 1001 and got.user.first_name == "Анна"
    assert got.user.language_code == "ru" and got.start_param is None
    assert raw == sign_init_data(f, TOKEN)


def _code(raw: str, token: str = TOKEN, now: float = NOW) -> str:
    with pytest.raises(AuthError) as e:
        check_init_data(raw, token, now)
    return e.value.code


def test_a_changed_field_is_forged() -> None:
    raw = sign_init_data(fields(), TOKEN)
    other = json.dumps({"id": 1002, "first_name": "Анна"})
    pairs = [(k, other if k == "user" else v) for k, v in parse_qsl(raw)]
    assert _code(urlencode(pairs)) == "forged"
    assert _code(raw.replace("hash=", "hash=0")) == "forged"
    assert _code(urlencode([(k, v) for k, v in parse_qsl(raw) if k != "hash"])) == "forged"


def test_signed_for_another_bot_is_forged() -> None:
    assert _code(sign_init_data(fields(), OTHER)) == "forged"


def test_old_or_future_init_data_is_expired() -> None:
    old = sign_init_data(fields(auth_date=str(int(NOW - INIT_MAX_AGE - 1))), TOKEN)
    assert _code(old) == "expired"
    assert check_init_data(sign_init_data(fields(auth_date=str(int(NOW - INIT_MAX_AGE + 5))),
                                          TOKEN), TOKEN, NOW).user.id == 1001
    assert _code(sign_init_data(fields(auth_date=str(int(NOW + 3600))), TOKEN)) == "expired"
    assert _code(sign_init_data(fields(auth_date="soon"), TOKEN)) == "malformed"


def test_missing_or_bad_user_is_refused() -> None:
    f = fields()
    del f["user"]
    assert _code(sign_init_data(f, TOKEN)) == "no_user"
    for bad in ("[]", "{}", '{"id": "1001"}', '{"id": true}', "not json", '{"id": -5}'):
        assert _code(sign_init_data(fields(user=bad), TOKEN)) == "no_user", bad


def test_oversized_empty_or_garbled_is_malformed() -> None:
    big = sign_init_data(fields(query_id="Q" * INIT_MAX_BYTES), TOKEN)
    assert _code(big) == "malformed"
    assert _code("") == "malformed"
    assert _code("a=1&a=2&hash=" + "0" * 64) == "malformed"
    assert _code("%%%") == "malformed"


def test_session_tokens() -> None:
    keys = SessionKey.for_token(TOKEN)
    token = keys.make(1001, "uk", NOW, ttl=600)
    assert keys.read(token, NOW + 599) == (1001, "uk")
    assert TOKEN.split(":")[1] not in token
    for bad in (token[:-1] + ("0" if token[-1] != "0" else "1"),  # forged mac
                token.replace("1001", "1002", 1),  # another person
                SessionKey.for_token(OTHER).make(1001, "uk", NOW),  # another bot
                "", "x" * 500, None):
        with pytest.raises(AuthError):
            keys.read(bad, NOW)
    with pytest.raises(AuthError):  # expired
        keys.read(token, NOW + 601)


def test_a_tables_link_names_that_table_only() -> None:
    from bot.webapp.auth import TableLinks

    links = TableLinks.for_token(TOKEN, "thousand_bot", "table")
    param = links.param(42)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,512}", param) and len(param) <= 42
    assert links.link(42) == f"https://t.me/thousand_bot/table?startapp={param}"
    assert TableLinks.for_token(TOKEN, "thousand_bot").link(42) == \
        f"https://t.me/thousand_bot?startapp={param}"
    assert links.game_of(param) == 42
    assert links.param(43) != param and links.game_of(links.param(43)) == 43
    # another game's number with this MAC, another bot's key, garbage: nothing
    assert links.game_of(param.replace("g42_", "g43_")) is None
    assert TableLinks.for_token(OTHER, "thousand_bot").game_of(param) is None
    for bad in (None, "", "g42", "42", "g42_" + "A" * 22, param + "x", "g0_" + param[4:],
                "g42_" + param[4:-1] + "/", "x" * 600):
        assert links.game_of(bad) is None, bad
