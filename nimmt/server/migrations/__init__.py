"""The store's schema, changed only through Alembic migrations (``versions/``), on SQLite and
PostgreSQL alike.

:func:`upgrade` brings a database to the newest revision; :class:`~nimmt.server.store.SqlStore`
calls it when it starts, so ``nimmt serve`` always runs on the schema it expects. A database made
before migrations existed (the same three tables, no ``alembic_version``) is recognised and marked
as revision ``0001`` first, so its tables and games stay as they are.

A new migration is a file in ``versions/`` (copy the newest one: ``revision``, ``down_revision``,
``upgrade()``), written with ``op`` calls that both databases accept; on SQLite, changes to an
existing table go through ``op.batch_alter_table``. The store's model in ``store/base.py`` must match
the schema at head: ``tests/server/test_store_contract.py`` compares them on both databases.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect, text

FIRST = "0001"  # the revision that creates the schema nimmt used before migrations
LEGACY_TABLES = frozenset({"tables", "journal", "games"})
_LOCK = 0x6E696D6D74  # "nimmt": one migrating process at a time on PostgreSQL


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for nimmt's migrations (no ``alembic.ini`` needed)."""
    alembic_config = Config()
    alembic_config.set_main_option("script_location", str(Path(__file__).parent))
    alembic_config.attributes["connection"] = connection
    return alembic_config


def head() -> str:
    """The newest revision."""
    revision = ScriptDirectory.from_config(config()).get_current_head()
    assert revision is not None
    return revision


def current(connection: Connection) -> str | None:
    """The revision the database is at (None: not under migrations yet)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection) -> None:
    """Bring the database behind ``connection`` to the newest revision, in the caller's transaction.

    Existing tables without a revision are today's first schema: they are stamped ``0001``, then
    upgraded like any other database. A database with only some of them is refused.
    """
    if connection.dialect.name == "postgresql":
        # Two processes starting at once: the second waits, then finds nothing left to do.
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})
    alembic_config = config(connection)
    if current(connection) is None:
        present = LEGACY_TABLES & set(inspect(connection).get_table_names())
        if present == LEGACY_TABLES:
            command.stamp(alembic_config, FIRST)
        elif present:
            raise RuntimeError(f"the database has some of nimmt's tables ({', '.join(sorted(present))}) but not "
                               "all and no alembic_version: it was not made by nimmt; give another database")
    command.upgrade(alembic_config, "head")
