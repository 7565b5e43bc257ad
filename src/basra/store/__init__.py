"""Persistence of tables and finished matches (SQLite by default, PostgreSQL by URL)."""

from .db import (
    SavedTable,
    StorageError,
    Store,
    StoredRecord,
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
    "database_url",
    "default_database_url",
    "shown_url",
]
