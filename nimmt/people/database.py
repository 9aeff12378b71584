"""What the people part needs of the database it is handed: the people part opens no engine of its
own. The one owner is the server's :class:`nimmt.server.store.Database` (made once, with its engines,
dialect and connection settings, in ``nimmt/server/store/database.py``); the people part sits in a
layer above the server and knows it only by this interface, which that class fulfils.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar

from sqlalchemy import Engine, Table
from sqlalchemy.dialects.postgresql import Insert as PgInsert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.ext.asyncio import AsyncEngine

T = TypeVar("T")


class PlainThread(Protocol):
    """SQLite: a thread of its own where a write transaction runs whole on the plain driver."""

    @property
    def engine(self) -> Engine: ...

    async def run(self, work: Callable[..., T], *args: Any) -> T: ...

    async def close(self) -> None: ...


class Database(Protocol):
    """The database, as the people stores use it."""

    @property
    def url(self) -> str: ...

    @property
    def dialect(self) -> Literal["sqlite", "postgresql"]: ...

    @property
    def engine(self) -> AsyncEngine: ...

    def insert(self, table: Table) -> SqliteInsert | PgInsert:
        """An INSERT of the database's own dialect (for its ON CONFLICT forms)."""
        ...

    def plain_thread(self, name: str) -> PlainThread:
        """SQLite only: a new :class:`PlainThread` with the database's connection settings."""
        ...
