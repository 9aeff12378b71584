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
        """Wait until every update published before this call has been sent (for ``pong``)."""


class Hub(Protocol):
    async def publish(self, update: Update) -> None: ...

    def subscribe(self, table_id: str) -> Any:
        """An async context manager giving a :class:`Subscription` to the table's updates."""
        ...


class _Queue:
    """One subscriber's updates, with counts of what was published to it and what it has sent, so
    that a pong can wait for exactly the updates published before its ping (not later ones)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Update] = asyncio.Queue(QUEUE_LIMIT)
        self.published = 0
        self.sent = 0  # sent or dropped
        self._waiters: list[tuple[int, asyncio.Future[None]]] = []

    def put(self, update: Update) -> None:
        self.published += 1
        try:
            self.queue.put_nowait(update)
        except asyncio.QueueFull:
            # Too slow to keep up: drop the oldest; the newest update holds the whole state.
            self.queue.get_nowait()
            self.done()
            self.queue.put_nowait(update)

    async def get(self) -> Update:
        return await self.queue.get()

    def done(self) -> None:
        self.sent += 1
        ready = [(mark, waiter) for mark, waiter in self._waiters if mark <= self.sent]
        for entry in ready:
            self._waiters.remove(entry)
            if not entry[1].done():
                entry[1].set_result(None)

    async def drained(self) -> None:
        mark = self.published
        if self.sent >= mark:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((mark, waiter))
        try:
            await waiter
        finally:
            if (mark, waiter) in self._waiters:
                self._waiters.remove((mark, waiter))


class LocalHub:
    """In-process delivery: each subscriber has a bounded queue."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[_Queue]] = defaultdict(set)

    async def publish(self, update: Update) -> None:
        for subscriber in list(self._subscribers.get(update.table_id, ())):
            subscriber.put(update)

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
