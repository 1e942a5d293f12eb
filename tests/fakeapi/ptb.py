"""Connecting a real python-telegram-bot Application to the fake Bot API server.

connect(builder, server) -> builder
    sets token, base_url and base_file_url of an ApplicationBuilder to the server's
polling(app, *, poll_timeout=1, allowed_updates=None, drop_pending_updates=False)
    async context manager: app.initialize(), app.updater.start_polling(poll_interval=0,
    timeout=poll_timeout), app.start(); on exit updater.stop(), app.stop(), app.shutdown()
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypeVar

from telegram.ext import Application, ApplicationBuilder

from tests.fakeapi.server import FakeTelegramServer

__all__ = ["connect", "polling"]

AnyApplication = Application[Any, Any, Any, Any, Any, Any]
BuilderT = TypeVar("BuilderT", bound="ApplicationBuilder[Any, Any, Any, Any, Any, Any]")
AppT = TypeVar("AppT", bound=AnyApplication)


def connect(builder: BuilderT, server: FakeTelegramServer) -> BuilderT:
    """Point ``builder`` at ``server``: ``connect(ApplicationBuilder(), server).build()``."""
    builder.token(server.token)
    builder.base_url(server.base_url)
    builder.base_file_url(server.base_file_url)
    return builder


@contextlib.asynccontextmanager
async def polling(
    app: AppT,
    *,
    poll_timeout: int = 1,
    allowed_updates: Sequence[str] | None = None,
    drop_pending_updates: bool = False,
) -> AsyncIterator[AppT]:
    """Run ``app`` with fast long polling for the duration of the block, then shut it down
    cleanly (no pending tasks left behind)."""
    if app.updater is None:
        raise ValueError("the application has no updater")
    await app.initialize()
    try:
        await app.updater.start_polling(
            poll_interval=0.0,
            timeout=poll_timeout,
            allowed_updates=allowed_updates,
            drop_pending_updates=drop_pending_updates,
        )
        await app.start()
        yield app
    finally:
        if app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
        await app.shutdown()
