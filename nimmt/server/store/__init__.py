"""Where tables live between restarts: the :class:`Store` interface the rest of the server uses,
its SQLAlchemy implementation, one store per database, and the :class:`Database` itself.

A table is an append-only journal of accepted entries (table id, sequence number, entry JSON),
and beside it each game's ``nimmt/1`` record (see :mod:`.base`). ``SqlStore(database)`` makes the
store of the database's dialect: :class:`SqliteStore` (:mod:`.sqlite`, the default) or
:class:`PostgresStore` (:mod:`.postgres`). :mod:`.database` owns the database: its engines, its
dialect, and every connection's settings; the lobby's tables and the people part are handed the
same :class:`Database`. The schema is made and changed by the Alembic migrations in
:mod:`nimmt.server.migrations`, applied when the store starts.
"""

from .base import SCHEMA, GameRow, SqlStore, Store, StoreClosed, StoreConflict
from .claims import Claim, ReviewClaims
from .database import Database, async_url, sqlite_pragmas
from .postgres import PostgresStore
from .sqlite import SqliteStore

__all__ = ["SCHEMA", "Claim", "Database", "GameRow", "PostgresStore", "ReviewClaims", "SqlStore", "SqliteStore",
           "Store", "StoreClosed", "StoreConflict", "async_url", "sqlite_pragmas"]
