"""Delivery of table updates to the people watching a table: one small interface.

The table's owner publishes one :class:`Update` per change, already cut into what each seat may
see and what the public may see; a subscriber (one open connection) takes the part meant for it.
Subscribers never need the table itself, so a Redis-backed hub can later carry updates between
server processes without touching the game logic. :class:`LocalHub` delivers inside one process.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

QUEUE_LIMIT = 256  # a connection this far behind is dropped; it reconnects and gets the state anew


@dataclass(frozen=True, slots=True)
class Update:
    table_id: str
    version: int
    seats: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat -> that seat's message
    public: dict[str, Any] = field(default_factory=dict)  # for spectators

    def for_audience(self, seat: int | None) -> dict[str, Any]:
        if seat is not None and seat in self.seats:
            return self.seats[seat]
        return self.public


class Subscription(Protocol):
    async def get(self) -> Update: ...

    def done(self) -> None:
        """The update last taken with :meth:`get` has been sent."""

    async def drained(self) -> None:
        """Wait until every update published so far has been taken and sent (for ``pong``)."""


class Hub(Protocol):
    async def publish(self, update: Update) -> None: ...

    def subscribe(self, table_id: str) -> Any:
        """An async context manager giving a :class:`Subscription` to the table's updates."""
        ...


class _Queue:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[Update] = asyncio.Queue(QUEUE_LIMIT)

    async def get(self) -> Update:
        return await self.queue.get()

    def done(self) -> None:
        self.queue.task_done()

    async def drained(self) -> None:
        await self.queue.join()


class LocalHub:
    """In-process delivery: each subscriber has a bounded queue."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[_Queue]] = defaultdict(set)

    async def publish(self, update: Update) -> None:
        for subscriber in list(self._subscribers.get(update.table_id, ())):
            try:
                subscriber.queue.put_nowait(update)
            except asyncio.QueueFull:
                # Too slow to keep up: drop the oldest; the newest update holds the whole state.
                subscriber.queue.get_nowait()
                subscriber.queue.task_done()  # dropped, not to be waited for
                subscriber.queue.put_nowait(update)

    @asynccontextmanager
    async def subscribe(self, table_id: str) -> AsyncIterator[_Queue]:
        subscriber = _Queue()
        self._subscribers[table_id].add(subscriber)
        try:
            yield subscriber
        finally:
            self._subscribers[table_id].discard(subscriber)
            if not self._subscribers[table_id]:
                del self._subscribers[table_id]

    def subscribers(self, table_id: str) -> int:
        return len(self._subscribers.get(table_id, ()))
