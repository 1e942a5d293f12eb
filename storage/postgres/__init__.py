"""The PostgreSQL backend (asyncpg): ``PostgresStorage`` (``backend.py``) composed of one
object per concern (``connection``, ``games``, ``people``, ``stats``, ``coord``,
``migrations``; the schema in ``schema.py``).  ``docs/storage.md``.
"""

from storage.postgres.backend import PostgresStorage
from storage.postgres.connection import failure as _failure
from storage.postgres.connection import redact

__all__ = ["PostgresStorage", "_failure", "redact"]
