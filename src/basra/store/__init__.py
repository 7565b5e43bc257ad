"""Persistence of tables, finished matches and accounts (SQLite by default, PostgreSQL by URL)."""

from .db import (
    SavedTable,
    StorageError,
    Store,
    StoredRecord,
    StoredUser,
    StoreHealth,
    database_url,
    default_database_url,
    shown_url,
)

__all__ = [
    "SavedTable",
    "StorageError",
    "Store",
    "StoreHealth",
    "StoredRecord",
    "StoredUser",
    "database_url",
    "default_database_url",
    "shown_url",
]
