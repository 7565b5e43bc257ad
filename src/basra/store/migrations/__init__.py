"""Alembic migrations of the store's schema (run by :meth:`basra.store.Store.open`)."""
