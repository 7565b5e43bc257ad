"""Persistence of tables, finished matches and accounts (SQLite by default, PostgreSQL by URL)."""

from .db import (
    FencedError,
    RatedMatch,
    SavedTable,
    SeatChange,
    StorageError,
    Store,
    StoredRecord,
    StoredUser,
    StoreHealth,
    database_url,
    default_database_url,
    shown_url,
    user_key,
)

__all__ = [
    "FencedError",
    "RatedMatch",
    "SavedTable",
    "SeatChange",
    "StorageError",
    "Store",
    "StoreHealth",
    "StoredRecord",
    "StoredUser",
    "database_url",
    "default_database_url",
    "shown_url",
    "user_key",
]
