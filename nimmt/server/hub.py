"""What the server processes share besides the store: news of each table, who is at it, and
which process runs its bots. One small interface, :class:`Hub`.

News (:class:`Update`) says that a table has reached a version, with the entry that took it there
as stored (so Redis, like the database, is the server's own and kept private), that its people
came or went, or passes on a quick reaction; each process applies the entry (or reads what it
missed from the store) and renders the views of its own connections: no rendered view travels
through the hub. Presence is kept per seat with an expiry, so the people of a process that died
are seen to have left. A table's lease names the one process that runs its bots and deals; it
moves when its holder dies. :class:`LocalHub` does all of it inside one process (the default);
:class:`RedisHub` through Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections import OrderedDict, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit, urlunsplit

import orjson

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

LEASE_SECONDS = 6.0  # a lease not renewed for this long moves to another process
PRESENCE_SECONDS = 15.0  # a process's people are seen as gone this long after its last heartbeat
REMEMBERED_TABLES = 10_000  # tables whose people's comings and goings one process remembers
REDIS_CONNECTIONS = 64  # connections a process opens to Redis at most (pub/sub's own beside them)
REDIS_WAIT = 5.0  # seconds a command may wait for one of them
KEPT_SECONDS = 24 * 3600  # Redis forgets a table's presence keys a day after their last change
QUEUE_LIMIT = 256  # updates waiting for one connection at most; beyond, the oldest is dropped
SUBSCRIBE_TIMEOUT = 10.0  # seconds Redis may take to confirm a subscription
HEARTBEAT_BATCH = 500  # tables whose presence marks one pipeline renews
# While Redis is away, each process reads the new entries of the tables its people watch from the
# store: every POLL_SECONDS, at most POLL_TABLES tables a time (in turn, when it watches more).
POLL_SECONDS = 1.0
POLL_TABLES = 200

log = logging.getLogger(__name__)
T = TypeVar("T")


Presence = dict[int, float | None]  # seat -> None while its person is here, else when they left (wall clock)


@dataclass(frozen=True, slots=True)
class Update:
    """News of a table: it has reached ``version``; with ``entry``, the stored entry that took it
    there (a process one entry behind applies it without reading the store); with ``presence``, who
    is at it now; with ``recheck``, news may have been missed (Redis was away): look at the store."""

    table_id: str
    version: int
    presence: Presence | None = None
    recheck: bool = False
    entry: dict[str, Any] | None = None  # the journal entry's JSON, as stored
    reaction: dict[str, Any] | None = None  # a quick emote to pass on (nimmt.server.reactions), never stored

    def to_json(self) -> bytes:
        data: dict[str, Any] = {"table_id": self.table_id, "version": self.version}
        if self.presence is not None:
            data["presence"] = {str(seat): since for seat, since in self.presence.items()}
        if self.entry is not None:
            data["entry"] = self.entry
        if self.reaction is not None:
            data["reaction"] = self.reaction
        try:
            return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)
        except orjson.JSONEncodeError:  # a lone surrogate in a name (orjson writes UTF-8 only): escaped
            return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, text: str | bytes) -> Update:
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError:  # orjson refuses an escaped lone surrogate, which json takes
            data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("an update is a JSON object")
        table_id, version, presence = data["table_id"], data["version"], data.get("presence")
        if not isinstance(table_id, str) or not isinstance(version, int) or isinstance(version, bool):
            raise ValueError("an update has a table id and a version")
        seen: Presence | None = None
        if presence is not None:
            seen = {int(seat): None if since is None else float(since) for seat, since in presence.items()}
        entry, reaction = data.get("entry"), data.get("reaction")
        return cls(table_id, version, seen, entry=entry if isinstance(entry, dict) else None,
                   reaction=reaction if isinstance(reaction, dict) else None)


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

    async def arrive(self, table_id: str, seat: int) -> Presence:
        """A connection of this process is open for the seat's person; who is at the table now."""
        ...

    async def leave(self, table_id: str, seat: int) -> Presence:
        """One such connection has closed; who is at the table now."""
        ...

    async def presence(self, table_id: str) -> Presence:
        """Who is at the table now, over every process."""
        ...

    async def lease(self, table_id: str) -> bool:
        """Take or keep the table's lease for :data:`LEASE_SECONDS`: True while this process holds it
        (it alone runs the table's bots and deals then)."""
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
            # Too slow to keep up: drop the oldest. Nothing of the table is lost (a quick reaction
            # may be): whatever news it reads, a connection sends the table as this process now holds it.
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
    """In-process delivery: each subscriber has a bounded queue; presence is counted here; this
    process holds every lease."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[_Queue]] = defaultdict(set)
        self._here: dict[str, dict[int, int]] = {}  # table -> seat -> open connections
        self._left: OrderedDict[str, dict[int, float]] = OrderedDict()  # table -> seat -> when its person left

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

    def count(self, table_id: str, seat: int, change: int) -> int:
        """Add ``change`` to this process's connections for the seat; how many it has now."""
        here = self._here.setdefault(table_id, {})
        count = here[seat] = max(0, here.get(seat, 0) + change)
        if not count:
            del here[seat]
            if not here:
                del self._here[table_id]
            self._left_at(table_id)[seat] = time.time()
        return count

    def _left_at(self, table_id: str) -> dict[int, float]:
        left = self._left.get(table_id)
        if left is None:
            left = self._left[table_id] = {}
            while len(self._left) > REMEMBERED_TABLES:
                self._left.popitem(last=False)
        else:
            self._left.move_to_end(table_id)
        return left

    def here(self) -> dict[str, list[int]]:
        """The seats this process has connections for, by table."""
        return {table_id: sorted(seats) for table_id, seats in self._here.items()}

    async def arrive(self, table_id: str, seat: int) -> Presence:
        self.count(table_id, seat, 1)
        return await self.presence(table_id)

    async def leave(self, table_id: str, seat: int) -> Presence:
        self.count(table_id, seat, -1)
        return await self.presence(table_id)

    async def presence(self, table_id: str) -> Presence:
        seen: Presence = dict(self._left.get(table_id, {}))
        seen.update({seat: None for seat in self._here.get(table_id, {})})
        return seen

    async def lease(self, table_id: str) -> bool:
        return True


def _settle(batch: list[tuple[Update, bytes, asyncio.Future[None]]]) -> None:
    for _update, _payload, sent in batch:
        if not sent.done():
            sent.set_result(None)


class RedisHub:
    """Delivery between processes through Redis pub/sub, one channel per table (``nimmt:table:ID``).

    An update is handed at once to this process's own subscribers (so a pong still waits for
    exactly what was published before its ping) and published on the table's channel as JSON
    for the subscribers of every other process; a process skips its own messages when they come
    back. A process listens on a table's channel while one of its connections watches the table,
    and :meth:`subscribe` returns only once Redis has confirmed it, so nothing published after
    that is missed. If Redis is unreachable, a publish is logged and the other processes catch up
    from the store: with the next update that reaches them (it names the table's version), and
    every :data:`POLL_SECONDS` while their own listener cannot reach Redis. A subscription is still
    served this process's own updates, and the listener reconnects and subscribes again by itself.
    """

    def __init__(self, url: str, *, prefix: str = "nimmt:table:") -> None:
        self.url = url  # redis://host:port/0, rediss://..., unix:///path/redis.sock?db=0
        self.prefix = prefix
        self.origin = uuid.uuid4().hex  # this hub's mark on what it publishes
        self._mark = f"{self.origin} ".encode()  # the first bytes of each of its messages
        self._outbox: list[tuple[Update, bytes, asyncio.Future[None]]] = []  # news waiting to be sent
        self._sender: asyncio.Task[None] | None = None
        self._local = LocalHub()
        self._client: Redis | None = None
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self._listening: dict[str, int] = {}  # channel -> this process's subscribers
        self._confirmed: dict[str, asyncio.Future[None]] = {}
        self._pending: set[str] = set()  # channels to subscribe to once Redis answers again
        self._lock = asyncio.Lock()
        self._heart: asyncio.Task[None] | None = None
        self._complained = 0.0
        self._beat_now = asyncio.Event()
        self._polled = 0.0  # when the store was last read for news (Redis away)
        self._poll_from = 0  # where the next poll starts among the tables watched here

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
        from redis.asyncio import BlockingConnectionPool, Redis

        # A command waits for a free connection rather than failing when all are busy (news, presence,
        # leases from many tables at once); the pool's default refuses beyond its size.
        pool = BlockingConnectionPool.from_url(self.url, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT,
                                               health_check_interval=30)
        client = Redis.from_pool(pool)  # the client owns the pool: closing it closes the pool
        try:
            await client.ping()
            pubsub = client.pubsub()
            await pubsub.connect()  # type: ignore[no-untyped-call]
        except BaseException:
            await client.aclose()
            raise
        self._client, self._pubsub = client, pubsub
        self._reader = asyncio.create_task(self._read(pubsub), name="nimmt-redis-hub")
        self._heart = asyncio.create_task(self._heartbeat(), name="nimmt-redis-presence")

    async def close(self) -> None:
        if self._sender is not None:  # what was published before close is sent
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(self._sender), REDIS_WAIT)
        await self._release_leases()  # another process takes the tables' bots at once
        for task in (self._reader, self._heart, self._sender):
            if task is not None:
                task.cancel()
                await asyncio.wait([task])
        self._reader = self._heart = self._sender = None
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
        """Deliver here at once; send to Redis with the news that comes meanwhile, in one pipeline, and
        return once it is sent (or the failure logged). One sender keeps this process's news in order."""
        self._local.deliver(update)
        await self.start()
        payload = self._mark + update.to_json()  # who published it, then the update
        loop = asyncio.get_running_loop()
        sent: asyncio.Future[None] = loop.create_future()
        self._outbox.append((update, payload, sent))
        if self._sender is None or self._sender.done() or self._sender.get_loop() is not loop:
            self._sender = loop.create_task(self._send(), name="nimmt-redis-publish")
        await asyncio.shield(sent)  # a caller that gives up does not take the others' news with it

    async def _send(self) -> None:
        """Send what the outbox holds, in order, a pipeline at a time (no waiting for company)."""
        from redis.exceptions import RedisError

        try:
            while self._outbox and self._client is not None:
                batch, self._outbox = self._outbox, []
                try:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for update, payload, _sent in batch:
                            pipe.publish(self.channel(update.table_id), payload)
                        await pipe.execute()
                except (RedisError, OSError) as error:
                    first = batch[0][0]
                    more = f" (and {len(batch) - 1} more updates)" if len(batch) > 1 else ""
                    log.warning("could not publish version %s of table %s to Redis%s: %s", first.version,
                                first.table_id, more, error)
                except Exception:  # a fault of ours: said, and the next batch is tried all the same
                    log.exception("publishing %s update(s) to Redis failed", len(batch))
                finally:  # whatever happened, nobody waits for this batch any longer
                    _settle(batch)
        finally:
            _settle(self._outbox)  # the hub closed meanwhile
            self._outbox = []

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

    # -- presence: a sorted set per table, each member a (process, seat) with its expiry as score ----
    def _presence_keys(self, table_id: str) -> tuple[str, str]:
        return f"{self.prefix}{table_id}:here", f"{self.prefix}{table_id}:left"

    async def arrive(self, table_id: str, seat: int) -> Presence:
        if self._local.count(table_id, seat, 1) == 1:
            here, _left = self._presence_keys(table_id)
            await self._redis("presence", self._mark_all_here, {here: [f"{self.origin}:{seat}"]})
        return await self.presence(table_id)

    async def leave(self, table_id: str, seat: int) -> Presence:
        if self._local.count(table_id, seat, -1) == 0:
            here, left = self._presence_keys(table_id)

            async def gone(client: Redis) -> None:
                async with client.pipeline(transaction=True) as pipe:
                    pipe.zrem(here, f"{self.origin}:{seat}")
                    pipe.hset(left, str(seat), repr(time.time()))
                    pipe.expire(left, KEPT_SECONDS)
                    await pipe.execute()

            await self._redis("presence", gone)
        return await self.presence(table_id)

    async def _mark_all_here(self, client: Redis, marks: dict[str, list[str]]) -> None:
        """Renew the presence marks of many tables in one pipeline (one round trip, not one a table)."""
        expiry = time.time() + PRESENCE_SECONDS
        async with client.pipeline(transaction=False) as pipe:
            for key, members in marks.items():
                pipe.zadd(key, {member: expiry for member in members})
                pipe.expire(key, KEPT_SECONDS)
            await pipe.execute()

    async def presence(self, table_id: str) -> Presence:
        here, left = self._presence_keys(table_id)

        async def read(client: Redis) -> tuple[list[tuple[bytes, float]], dict[bytes, bytes]]:
            async with client.pipeline(transaction=False) as pipe:
                pipe.zrange(here, 0, -1, withscores=True)
                pipe.hgetall(left)
                members, gone = await pipe.execute()
            return members, gone

        got = await self._redis("presence", read)
        if got is None:  # Redis is away: this process's own people, as far as it knows
            return await self._local.presence(table_id)
        members, gone = got
        now = time.time()
        seen: Presence = {}
        for key, since in gone.items():
            seen[int(key)] = float(since)
        for member, expiry in members:
            seat = int(member.decode().rpartition(":")[2])
            if expiry > now:
                seen[seat] = None
            elif seen.get(seat, 0.0) is not None:  # a process that stopped beating: gone since its last beat
                seen[seat] = max(seen.get(seat) or 0.0, expiry - PRESENCE_SECONDS)
        return seen

    async def _heartbeat(self) -> None:
        """Renew this process's presence marks before they expire (and again after Redis was away)."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._beat_now.wait(), PRESENCE_SECONDS / 3)
            self._beat_now.clear()
            marks = {self._presence_keys(table_id)[0]: [f"{self.origin}:{seat}" for seat in seats]
                     for table_id, seats in self._local.here().items()}
            tables = list(marks.items())
            for start in range(0, len(tables), HEARTBEAT_BATCH):
                await self._redis("presence", self._mark_all_here, dict(tables[start:start + HEARTBEAT_BATCH]))

    # -- leases: one key per table, holding the process's mark, with an expiry ---------------------
    async def lease(self, table_id: str) -> bool:
        taken = await self._redis("lease", self._take, f"{self.prefix}{table_id}:lease")
        # Without Redis, every process may run the bots: the store refuses all but one of their writes.
        return True if taken is None else bool(taken)

    async def _take(self, client: Redis, key: str) -> int:
        result = await client.eval(_TAKE_LEASE, 1, key, self.origin, str(int(LEASE_SECONDS * 1000)))
        return int(result)

    async def _release_leases(self) -> None:
        if self._client is None:
            return
        from redis.exceptions import RedisError

        with contextlib.suppress(RedisError, OSError):
            async for key in self._client.scan_iter(match=f"{self.prefix}*:lease", count=1000):
                await self._client.eval(_GIVE_LEASE, 1, key, self.origin)

    async def _redis(self, what: str, work: Callable[..., Awaitable[T]], *args: Any) -> T | None:
        """``work(client, *args)``, or None (logged once in a while) when Redis does not answer."""
        await self.start()
        assert self._client is not None
        from redis.exceptions import RedisError

        try:
            return await work(self._client, *args)
        except (RedisError, OSError) as error:
            now = time.monotonic()
            if now - self._complained > 5.0:
                self._complained = now
                log.warning("Redis does not answer (%s): %s", what, error)
            return None

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
                    log.warning("lost the connection to Redis (%s); trying again, and meanwhile reading the new "
                                "entries of the %d tables watched here from the store every %g s", error,
                                len(self._listening), POLL_SECONDS)
                failing = True
                self._poll_store()
                await asyncio.sleep(0.5)
                continue
            if failing:
                log.warning("connected to Redis again")
                failing = False
                self._recheck()
            if message is not None:
                self._handle(message)
            if self._pending:
                await self._subscribe_pending(pubsub)

    def _poll_store(self) -> None:
        """Without Redis, news from other processes comes from the store: the tables watched here
        look at it (at most :data:`POLL_TABLES` of them every :data:`POLL_SECONDS`, in turn)."""
        now = time.monotonic()
        if now - self._polled < POLL_SECONDS:
            return
        self._polled = now
        channels = sorted(self._listening)
        if not channels:
            return
        start = self._poll_from % len(channels)
        chosen = (channels[start:] + channels[:start])[:POLL_TABLES]
        self._poll_from = start + len(chosen)
        for channel in chosen:
            self._local.deliver(Update(channel[len(self.prefix):], 0, recheck=True))

    def _recheck(self) -> None:
        """News may have been missed while Redis was away: every table watched here looks at the store,
        and this process's presence marks are written again."""
        for channel in list(self._listening):
            self._local.deliver(Update(channel[len(self.prefix):], 0, recheck=True))
        self._beat_now.set()

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
            data = data if isinstance(data, bytes) else str(data).encode()
            if data.startswith(self._mark):
                return  # delivered here already, when it was published: not even decoded
            _origin, _, text = data.partition(b" ")
            try:
                update = Update.from_json(text)
            except (ValueError, KeyError, TypeError) as error:
                log.warning("ignored a message on %s that is not a nimmt update: %s", channel, error)
                return
            self._local.deliver(update)


# Take the lease if it is free, keep it if it is ours: 1; another process holds it: 0.
_TAKE_LEASE = """
local holder = redis.call('get', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""
# Give the lease back if it is ours.
_GIVE_LEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""
