"""Persistence of tables, finished matches and accounts (SQLite by default, PostgreSQL by URL).

One writer (:mod:`.writer`: queue, group commit, retry, fencing, health) and one module per
capability: :mod:`.tables`, :mod:`.records`, :mod:`.ratings`, :mod:`.accounts`,
:mod:`.analysis`, reached as ``store.tables``, ``store.records`` and so on.
"""

from .accounts import StoredUser
from .analysis import PUZZLE_START_RATING, puzzle_rating_after
from .db import Store, database_url, default_database_url, shown_url
from .ratings import RatedMatch, SeatChange, user_key
from .records import RecordQuery, StoredRecord
from .tables import SavedTable
from .writer import FencedError, StorageError, StoreHealth

__all__ = [
    "PUZZLE_START_RATING",
    "FencedError",
    "RatedMatch",
    "RecordQuery",
    "SavedTable",
    "SeatChange",
    "StorageError",
    "Store",
    "StoreHealth",
    "StoredRecord",
    "StoredUser",
    "database_url",
    "default_database_url",
    "puzzle_rating_after",
    "shown_url",
    "user_key",
]
