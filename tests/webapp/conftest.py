from tests.bot.conftest import db, server

__all__ = ["db", "server"]
