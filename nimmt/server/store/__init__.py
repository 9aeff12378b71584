"""Where tables live between restarts: the :class:`Store` interface the rest of the server uses,
and its SQLAlchemy implementation, one store per database.

A table is an append-only journal of accepted entries (table id, sequence number, entry JSON),
and beside it each game's ``nimmt/1`` record (see :mod:`.base`). ``SqlStore(url)`` makes the store
of the URL's database: :class:`SqliteStore` (:mod:`.sqlite`, the default) or :class:`PostgresStore`
(:mod:`.postgres`). The schema is made and changed by the Alembic migrations in
:mod:`nimmt.server.migrations`, applied when the store starts.
"""

from .base import SCHEMA, GameRow, SqlStore, Store, StoreClosed, StoreConflict, async_url
from .postgres import PostgresStore
from .sqlite import SqliteStore, sqlite_pragmas

__all__ = ["SCHEMA", "GameRow", "PostgresStore", "SqlStore", "SqliteStore", "Store", "StoreClosed",
           "StoreConflict", "async_url", "sqlite_pragmas"]
