"""The SQLite backend (aiosqlite), the default: ``Storage`` (``backend.py``) composed of
one object per concern (``connection``, ``writer``, ``games``, ``people``, ``stats``,
``coord``, ``migrations``; the schema in ``schema.py``).  ``docs/storage.md``.
"""

from storage.base import Rater, RatingPair
from storage.record import RECORD_FORMAT
from storage.sqlite.backend import Storage
from storage.sqlite.connection import MEMORY
from storage.sqlite.connection import failure as _failure

__all__ = ["MEMORY", "RECORD_FORMAT", "Rater", "RatingPair", "Storage", "_failure"]
