"""Delivery of table updates to the people watching a table: one small interface.

The table's owner publishes one :class:`Update` per change, already cut into what each seat may
see and what the public may see; a subscriber (one open connection) takes the part meant for it.
Subscribers never need the table itself, so updates can travel between server processes without
touching the game logic. :class:`LocalHub` delivers inside one process (the default);
:class:`RedisHub` also carries every update through Redis pub/sub to the other processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

QUEUE_LIMIT = 256  # a connection this far behind is dropped; it reconnects and gets the state anew
SUBSCRIBE_TIMEOUT = 10.0  # seconds Redis may take to confirm a subscription

log = logging.getLogger(__name__)


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

    def to_json(self) -> str:
        return json.dumps({"table_id": self.table_id, "version": self.version,
                           "seats": {str(seat): message for seat, message in self.seats.items()},
                           "public": self.public}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Update:
        data = json.loads(text)
        return cls(data["table_id"], data["version"], {int(seat): message for seat, message in data["seats"].items()},
                   data["public"])


class Subscription(Protocol):
    async def get(self) -> Update: ...

    def done(self) -> None:
        """The update last taken with :meth:`get` has been sent."""

    async def drained(self) -> None:
        """Wait until every update published before this call has been sent (for ``pong``)."""


class Hub(Protocol):
    async def start(self) -> None:
        """Connect (if the hub has anything to connect to); called once before the first use."""

    async def close(self) -> None: ...

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

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def publish(self, update: Update) -> None:
        self.deliver(update)

    def deliver(self, update: Update) -> None:
        """Hand the update to this process's subscribers to its table."""
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


class RedisHub:
    """Delivery between processes through Redis pub/sub, one channel per table (``nimmt:table:ID``).

    An update is handed at once to this process's own subscribers (so a pong still waits for
    exactly what was published before its ping) and published on the table's channel as JSON
    for the subscribers of every other process; a process skips its own messages when they come
    back. A process listens on a table's channel while one of its connections watches the table,
    and :meth:`subscribe` returns only once Redis has confirmed it, so nothing published after
    that is missed. If Redis is unreachable, a publish is logged and the other processes catch up
    with the next update (each one holds whole views); a subscription is still served this
    process's own updates, and the listener reconnects and subscribes again by itself.
    """

    def __init__(self, url: str, *, prefix: str = "nimmt:table:") -> None:
        self.url = url  # redis://host:port/0, rediss://..., unix:///path/redis.sock?db=0
        self.prefix = prefix
        self.origin = uuid.uuid4().hex  # this hub's mark on what it publishes
        self._local = LocalHub()
        self._client: Redis | None = None
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._listening: dict[str, int] = {}  # channel -> this process's subscribers
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._pending: set[str] = set()  # channels to subscribe to once Redis answers again
        self._lock = asyncio.Lock()

    @property
    def shown_url(self) -> str:
        """The URL without its password, for logs and messages."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        login = f"{parts.username or ''}:***@{parts.netloc.rpartition('@')[2]}"
        return urlunsplit(parts._replace(netloc=login))

    async def start(self) -> None:
        """Connect, and fail at once (with Redis's error) if Redis does not answer."""
        if self._client is not None:
            return
        from redis.asyncio import Redis

        client = Redis.from_url(self.url, health_check_interval=30)
        try:
            await client.ping()
            pubsub = client.pubsub()
            await pubsub.connect()  # type: ignore[no-untyped-call]
        except BaseException:
            await client.aclose()
            raise
        self._client, self._pubsub = client, pubsub
        self._reader = asyncio.create_task(self._read(pubsub), name="nimmt-redis-hub")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.wait([self._reader])
            self._reader = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        for waiter in self._confirmed.values():
            waiter.cancel()
        self._confirmed.clear()
        self._listening.clear()
        self._pending.clear()

    def channel(self, table_id: str) -> str:
        return f"{self.prefix}{table_id}"

    async def publish(self, update: Update) -> None:
        await self._local.publish(update)
        await self.start()
        assert self._client is not None
        from redis.exceptions import RedisError

        payload = f"{self.origin} {update.to_json()}"  # who published it, then the update
        try:
            await self._client.publish(self.channel(update.table_id), payload)
        except (RedisError, OSError) as error:
            log.warning("could not publish version %s of table %s to Redis: %s", update.version, update.table_id,
                        error)

    @asynccontextmanager
    async def subscribe(self, table_id: str) -> AsyncIterator[_Queue]:
        await self.start()
        channel = self.channel(table_id)
        # Queue first, then listen: whatever Redis delivers once listening is in the queue.
        async with self._local.subscribe(table_id) as subscriber:
            await self._listen(channel)
            try:
                yield subscriber
            finally:
                await self._unlisten(channel)

    def subscribers(self, table_id: str) -> int:
        """This process's subscribers to the table."""
        return self._local.subscribers(table_id)

    async def _listen(self, channel: str) -> None:
        assert self._pubsub is not None
        async with self._lock:
            count = self._listening.get(channel, 0)
            self._listening[channel] = count + 1
            if count:
                return
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._confirmed[channel] = waiter
            from redis.exceptions import RedisError

            try:
                await self._pubsub.subscribe(channel)
                await asyncio.wait_for(asyncio.shield(waiter), SUBSCRIBE_TIMEOUT)
            except (RedisError, OSError, TimeoutError) as error:
                # Redis is away: this process's own updates still come; the listener subscribes later.
                log.warning("could not subscribe to %s on Redis (%s); trying again when it answers", channel, error)
                self._pending.add(channel)
            except BaseException:
                self._listening[channel] -= 1
                if not self._listening[channel]:
                    del self._listening[channel]
                    self._confirmed.pop(channel, None)
                    with contextlib.suppress(Exception):
                        await self._pubsub.unsubscribe(channel)
                raise

    async def _unlisten(self, channel: str) -> None:
        async with self._lock:
            count = self._listening.get(channel, 0) - 1
            if count > 0:
                self._listening[channel] = count
                return
            if self._listening.pop(channel, None) is None:
                return  # the hub was closed meanwhile: nothing to undo
            self._confirmed.pop(channel, None)
            self._pending.discard(channel)
            if self._pubsub is not None:
                from redis.exceptions import RedisError

                try:
                    await self._pubsub.unsubscribe(channel)
                except (RedisError, OSError) as error:  # it is dropped with the connection anyway
                    log.warning("could not unsubscribe from %s: %s", channel, error)

    async def _read(self, pubsub: PubSub) -> None:
        from redis.exceptions import RedisError

        failing = False
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=False, timeout=1.0)
            except (RedisError, OSError) as error:
                if not failing:
                    log.warning("lost the connection to Redis (%s); trying again", error)
                failing = True
                await asyncio.sleep(0.5)
                continue
            if failing:
                log.warning("connected to Redis again")
                failing = False
            if message is not None:
                self._handle(message)
            if self._pending:
                await self._subscribe_pending(pubsub)

    async def _subscribe_pending(self, pubsub: PubSub) -> None:
        from redis.exceptions import RedisError

        async with self._lock:
            channels = sorted(self._pending & set(self._listening))
            self._pending.clear()
            if not channels:
                return
            try:
                await pubsub.subscribe(*channels)
            except (RedisError, OSError):
                self._pending.update(channels)

    def _handle(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        if message["type"] == "subscribe":
            waiter = self._confirmed.get(channel)
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
        elif message["type"] == "message":
            data = message["data"]
            origin, _, text = (data.decode() if isinstance(data, bytes) else str(data)).partition(" ")
            if origin == self.origin:
                return  # delivered here already, when it was published
            try:
                update = Update.from_json(text)
            except (ValueError, KeyError, TypeError) as error:
                log.warning("ignored a message on %s that is not a nimmt update: %s", channel, error)
                return
            self._local.deliver(update)
