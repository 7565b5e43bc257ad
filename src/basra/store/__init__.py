"""Persistence of tables and finished matches (SQLite by default, PostgreSQL by URL)."""

from .db import SavedTable, Store, StoredRecord, database_url, default_database_url

__all__ = ["SavedTable", "Store", "StoredRecord", "database_url", "default_database_url"]
