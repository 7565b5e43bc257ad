"""Alembic's entry point: migrate the connection the store hands over.

The store runs migrations itself when it opens (``basra.store.db.migrate``); there is no
``alembic.ini``. To write a new migration, add a file to ``versions/`` by hand, with the
previous revision as its ``down_revision``.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
