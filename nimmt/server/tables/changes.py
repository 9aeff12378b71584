"""The one event a table emits: :class:`TableChanged`, heard by whatever subscribed to the tables.

The lobby's and the clocks' rows, quick start, and the app's other listeners (the people keeper,
notices) subscribe with :meth:`TableService.subscribe <nimmt.server.tables.TableService.subscribe>`;
none of them writes the table: they read ``change.table`` and submit a command when they must act.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..journal import Entry
from .table import Table


@dataclass(frozen=True, slots=True)
class TableChanged:
    """A table of this process changed: an entry was stored here, or a seat was taken, or somebody came or left.

    ``table``: the table as it is now (read it, never write it: a change is a command submitted to its
    host); ``version``: its version when this was said; ``stored``: the journal entries stored by this
    process since the table last said it changed, oldest first (none when only who is here changed).
    """

    table: Table
    version: int
    stored: tuple[Entry, ...] = ()


# A listener hears every change of every table of this process, in order, and must not raise. One that
# returns an awaitable is awaited before the change's command returns (keep it short: anything slow is
# a task of its own).
TableListener = Callable[[TableChanged], Awaitable[None] | None]
