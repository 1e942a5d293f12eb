"""The port an aiohttp server bound: the ops server's and the Mini App's (both may be asked
for port 0 in tests, and then listen on a free one)."""

from __future__ import annotations

from aiohttp import web


def bound_port(runner: web.AppRunner, asked: int) -> int:
    """The port an aiohttp server of ``runner`` bound (``asked``, or a free one for 0)."""
    for site in runner.sites:
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            return int(server.sockets[0].getsockname()[1])
    return asked
