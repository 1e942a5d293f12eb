"""python-telegram-bot's request layer on aiohttp: ``AiohttpRequest``, a drop-in
``telegram.request.BaseRequest`` beside PTB's own ``HTTPXRequest``.

Why: under load a third of the bot's CPU went into httpx/httpcore/anyio (docs/performance.md);
aiohttp's client does the same HTTP/1.1 work with far less Python per request.

The contract is ``HTTPXRequest``'s (python-telegram-bot 22):

* one ``aiohttp.ClientSession`` per instance, its ``TCPConnector`` limited to
  ``connection_pool_size`` connections and keeping them alive between requests; it is made by
  ``initialize()`` (or lazily by the first request, inside the running event loop), closed by
  ``shutdown()``; a request after ``shutdown()`` raises ``RuntimeError`` until
  ``initialize()`` opens a new session, as with ``HTTPXRequest``;
* parameters go out as one ``application/json`` body, ``RequestData.parameters`` encoded
  once (the Bot API takes JSON as it takes forms; ``HTTPXRequest`` sends a form of the
  JSON-encoded values, whose percent-encoding of every byte of a Cyrillic text cost ten
  times the JSON's CPU: 0.22 ms against 0.02 ms for a hand's edit), or — when the request
  uploads files (``RequestData.multipart_data``: ``(filename, content, mimetype)`` tuples) —
  exactly as ``HTTPXRequest`` sends them, as ``multipart/form-data`` with the JSON-encoded
  parameters (``RequestData.json_parameters``) first and the files after, file names
  encoded as httpx encodes them (UTF-8, ``"`` as ``%22``);
* timeouts: an argument equal to ``BaseRequest.DEFAULT_NONE`` takes the instance's default
  (``write_timeout`` takes ``media_write_timeout`` when files are uploaded); ``None`` means no
  limit.  ``pool_timeout`` bounds the wait for a free connection slot (all
  ``connection_pool_size`` in use; a request that waited too long is *not* sent, as with httpx:
  aiohttp's own pool wait cannot be bounded apart from connecting, so a semaphore of the pool's
  size does it); the rest map onto aiohttp's timeouts: ``connect_timeout`` bounds getting a
  connection (``connect``, ``sock_connect``), ``read_timeout`` each wait for response data
  (``sock_read``, started once the request is written).  aiohttp has no write timeout: a
  request with a body is bounded as a whole by connect + write + read (``total``; none if any
  of them is None), so a stalled upload ends too;
* errors: any timeout raises ``telegram.error.TimedOut``, any other client or connection
  error ``telegram.error.NetworkError`` (``BaseRequest.post`` turns the status codes of
  answers into ``BadRequest``, ``Forbidden``, ``RetryAfter``, ...).

Only HTTP/1.1; no proxy from the environment (httpx reads ``HTTPS_PROXY``/``ALL_PROXY``):
pass ``proxy`` to use one.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import aiohttp
from telegram._utils.defaultvalue import DefaultValue
from telegram._utils.types import ODVInput
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData

log = logging.getLogger(__name__)

_JSON = {"Content-Type": "application/json"}
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

# httpx's form-parameter encoding (``httpx._multipart._format_form_param``): '"' and control
# characters percent-encoded; aiohttp (quote_fields=False) then escapes backslashes as httpx
# does, and leaves the rest (UTF-8) as it is.
_FORM_PARAM_SPECIALS = re.compile('["\x00-\x1a\x1c-\x1f]')


def _form_param(value: str) -> str:
    return _FORM_PARAM_SPECIALS.sub(lambda m: f"%{ord(m.group()):02X}", value)


def _sum(*values: float | None) -> float | None:
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


class AiohttpRequest(BaseRequest):
    """``BaseRequest`` on one ``aiohttp.ClientSession`` with a pool of kept-alive connections.

    Args (as ``HTTPXRequest``'s, same defaults):
        connection_pool_size: the most connections open at once (``TCPConnector(limit=...)``).
        read_timeout, write_timeout, connect_timeout, pool_timeout, media_write_timeout:
            the defaults used when a request does not pass its own (seconds; None: no limit).
        keepalive_timeout: seconds an idle connection is kept for the next request.
        proxy: an HTTP proxy URL for every request (None: direct).
    """

    __slots__ = ("_connect_timeout", "_keepalive_timeout", "_media_write_timeout",
                 "_pool_size", "_pool_timeout", "_proxy", "_read_timeout", "_session",
                 "_slots", "_timeouts", "_write_timeout")

    def __init__(
        self,
        connection_pool_size: int = 256,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
        keepalive_timeout: float = 30.0,
        proxy: str | None = None,
    ) -> None:
        if connection_pool_size < 1:
            raise ValueError("connection_pool_size must be at least 1")
        self._pool_size = connection_pool_size
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._connect_timeout = connect_timeout
        self._pool_timeout = pool_timeout
        self._media_write_timeout = media_write_timeout
        self._keepalive_timeout = keepalive_timeout
        self._proxy = proxy
        self._session: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(connection_pool_size)  # made anew with each session
        # ClientTimeout by (read, write, connect, has a body): a handful of combinations
        self._timeouts: dict[tuple[float | None, ...], aiohttp.ClientTimeout] = {}

    @property
    def read_timeout(self) -> float | None:
        """See ``BaseRequest.read_timeout``: the default read timeout (seconds)."""
        return self._read_timeout

    @property
    def connection_pool_size(self) -> int:
        return self._pool_size

    def _build_session(self) -> aiohttp.ClientSession:
        self._slots = asyncio.Semaphore(self._pool_size)  # bound to this session's loop
        connector = aiohttp.TCPConnector(
            limit=self._pool_size,
            limit_per_host=0,  # the pool size is the only limit, as with httpx
            keepalive_timeout=self._keepalive_timeout,
        )
        return aiohttp.ClientSession(
            connector=connector,
            headers={"User-Agent": self.USER_AGENT},
            cookie_jar=aiohttp.DummyCookieJar(),  # the Bot API sets no cookies
            timeout=aiohttp.ClientTimeout(),  # every request passes its own
            raise_for_status=False,
        )

    async def initialize(self) -> None:
        """See ``BaseRequest.initialize``: opens the session (again after a shutdown)."""
        if self._session is None or self._session.closed:
            self._session = self._build_session()

    async def shutdown(self) -> None:
        """See ``BaseRequest.shutdown``: closes the session and its connections."""
        if self._session is None or self._session.closed:
            log.debug("This AiohttpRequest is already shut down. Returning.")
            return
        await self._session.close()

    def _timeout(self, read: float | None, write: float | None, connect: float | None,
                 body: bool) -> aiohttp.ClientTimeout:
        key = (read, write, connect, body)
        timeout = self._timeouts.get(key)
        if timeout is None:
            timeout = aiohttp.ClientTimeout(
                total=_sum(connect, write, read) if body else None,
                connect=connect,
                sock_connect=connect,
                sock_read=read,
            )
            if len(self._timeouts) < 64:
                self._timeouts[key] = timeout
        return timeout

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        write_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        connect_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
        pool_timeout: ODVInput[float] = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """See ``BaseRequest.do_request``: the status code and the body of the answer."""
        session = self._session
        if session is None:
            session = self._session = self._build_session()
        elif session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")

        files = request_data.multipart_data if request_data else None

        if isinstance(read_timeout, DefaultValue):
            read_timeout = self._read_timeout
        if isinstance(connect_timeout, DefaultValue):
            connect_timeout = self._connect_timeout
        if isinstance(pool_timeout, DefaultValue):
            pool_timeout = self._pool_timeout
        if isinstance(write_timeout, DefaultValue):
            write_timeout = self._write_timeout if not files else self._media_write_timeout

        data: Any = None
        headers: dict[str, str] | None = None
        if files:
            assert request_data is not None
            form = aiohttp.FormData(quote_fields=False)
            for name, value in request_data.json_parameters.items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, content_type=mimetype,
                               filename=_form_param(filename))
            data = form
        elif request_data is not None and (params := request_data.parameters):
            data = _dumps(params).encode()
            headers = _JSON
        timeout = self._timeout(read_timeout, write_timeout, connect_timeout, data is not None)
        slots = self._slots
        if slots.locked():
            try:
                async with asyncio.timeout(pool_timeout):
                    await slots.acquire()
            except TimeoutError as err:
                raise TimedOut(
                    "Pool timeout: All connections in the connection pool are occupied. "
                    "Request was *not* sent to Telegram. Consider adjusting the connection "
                    "pool size or the pool timeout."
                ) from err
        else:
            await slots.acquire()  # at once
        try:
            async with session.request(method, url, data=data, headers=headers,
                                       timeout=timeout, proxy=self._proxy) as res:
                return res.status, await res.read()
        except TimeoutError as err:  # aiohttp's timeouts are asyncio.TimeoutError
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{err.__class__.__name__}: {err}") from err
        finally:
            slots.release()
