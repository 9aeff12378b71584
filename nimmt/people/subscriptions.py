"""A person's notices by Web Push (docs/push.md): the devices they turned them on for, and which
notices each device was sent.

A subscription is what a browser's push service gives a page (its ``endpoint`` and the two keys
that encrypt what is sent to it): one row of ``people_push`` per device (an endpoint is one
device's: turning notices on again from it replaces its row, whoever held it). It is the person's
data: in their export, gone with them, moved with their devices when two players become one.

Each notice is sent once however many server processes see its moment: the process whose row of
``people_push_sent`` (subscription, notice) goes in first sends it (:meth:`SubscriptionStore.claim`),
the others' insert is refused by the primary key. The site's VAPID key is made once the same way
(:meth:`SubscriptionStore.site_key`).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from .keys import hash_secret, new_id
from .model import PeopleError
from .schema import ALIASES, KEYS, PLAYERS, PUSH, PUSH_SENT, PUSH_SITE

MOST_DEVICES = 10  # subscriptions a person keeps: an eleventh replaces their oldest
ENDPOINT_LENGTH = 2048
SENT_KEPT = timedelta(days=30)  # a sent notice's row (what keeps it from going twice) is kept this long


class SubscriptionRefused(PeopleError):
    """A subscription that is not kept (``bad_subscription``): nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__("bad_subscription", message)


@dataclass(frozen=True, slots=True)
class Subscription:
    id: str
    player_id: str
    endpoint: str
    p256dh: str  # the browser's public key (P-256, uncompressed, base64url)
    auth: str  # the browser's authentication secret (16 bytes, base64url)
    language: str | None  # the page's when it was turned on
    groups: bool  # the person's group notices too (a new table, a finished game)
    created_at: datetime
    last_sent_at: datetime | None
    player_language: str | None = None  # the language the person chose, which wins over the page's
    device_id: str | None = None  # the device key that turned it on (its sign-out ends it)

    @property
    def speaks(self) -> str:
        """The language its notices are written in."""
        return self.player_language or self.language or "en"

    def info(self) -> dict[str, Any]:
        """As the Web Push library takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _b64(value: object, size: int, what: str) -> str:
    if not isinstance(value, str) or len(value) > 200:
        raise SubscriptionRefused(f"{what} is base64url text")
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise SubscriptionRefused(f"{what} is not base64url") from None
    if len(raw) != size:
        raise SubscriptionRefused(f"{what} is {size} bytes, not {len(raw)}")
    return value.rstrip("=")


def check_endpoint(endpoint: object, *, loopback_http: bool = False) -> str:
    """A push service's address as kept: an https URL (``loopback_http``: also http to this machine,
    for tests' local push endpoint), or :class:`SubscriptionRefused`."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > ENDPOINT_LENGTH:
        raise SubscriptionRefused(f"the endpoint is a URL of at most {ENDPOINT_LENGTH} characters")
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        raise SubscriptionRefused("the endpoint is not a URL") from None
    host = (parts.hostname or "").lower()
    local = host in ("127.0.0.1", "localhost", "::1")
    if not host or parts.username or parts.password:
        raise SubscriptionRefused("the endpoint is not a push service's URL")
    if parts.scheme != "https" and not (loopback_http and parts.scheme == "http" and local):
        raise SubscriptionRefused("the endpoint is an https URL")
    if not loopback_http and (_private(host) or host == "localhost" or host.endswith((".localhost", ".local"))):
        raise SubscriptionRefused("the endpoint is a push service on the internet, not on this network")
    return endpoint


def _private(host: str) -> bool:
    """Whether ``host`` is an address of this machine or its network (nimmt never posts there for
    a stranger)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return not address.is_global


class SubscriptionStore:
    """The ``people_push`` rows and what was sent to them, on the people store's engine."""

    def __init__(self, engine: AsyncEngine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._clock = clock

    def _now(self) -> datetime:
        return _utc(self._clock())

    async def add(self, player_id: str, endpoint: str, p256dh: str, auth: str, *, language: str | None = None,
                  groups: bool = False, loopback_http: bool = False, key: str | None = None) -> Subscription:
        """Keep this device's subscription for the player (its endpoint's earlier row goes, whoever's
        it was); past :data:`MOST_DEVICES`, the player's oldest goes. ``key``: the device's player key
        (signing that device out ends its notices)."""
        endpoint = check_endpoint(endpoint, loopback_http=loopback_http)
        p256dh, auth = _b64(p256dh, 65, "the p256dh key"), _b64(auth, 16, "the auth secret")
        made = Subscription(new_id("s"), player_id, endpoint, p256dh, auth, language, bool(groups), self._now(), None)
        row: dict[str, Any] = {
            "id": made.id, "player_id": player_id, "endpoint": endpoint, "p256dh": p256dh, "auth": auth,
            "language": language, "groups": made.groups, "created_at": made.created_at, "last_sent_at": None}
        async with self._engine.begin() as connection:
            if (await connection.execute(select(PLAYERS.c.id).where(PLAYERS.c.id == player_id))).first() is None:
                raise PeopleError("unknown_player", "no such player (deleted?)")
            if key is not None:
                row["device_id"] = (await connection.execute(select(KEYS.c.id).where(
                    KEYS.c.hash == hash_secret(key), KEYS.c.player_id == player_id))).scalar()
            await connection.execute(delete(PUSH).where(PUSH.c.endpoint == endpoint))
            mine = (await connection.execute(select(PUSH.c.id).where(PUSH.c.player_id == player_id)
                                             .order_by(PUSH.c.created_at.desc(), PUSH.c.id))).scalars().all()
            if len(mine) >= MOST_DEVICES:
                await connection.execute(delete(PUSH).where(PUSH.c.id.in_(mine[MOST_DEVICES - 1:])))
            try:
                await connection.execute(insert(PUSH).values(**row))
            except IntegrityError:  # the same endpoint turned on twice at once: the other one is kept
                raise SubscriptionRefused("this device's notices were just turned on") from None
        return replace(made, device_id=row.get("device_id"))

    async def set_groups(self, player_id: str, subscription_id: str, groups: bool) -> bool:
        async with self._engine.begin() as connection:
            done = await connection.execute(update(PUSH).where(PUSH.c.id == subscription_id,
                                                               PUSH.c.player_id == player_id)
                                            .values(groups=bool(groups)))
        return bool(done.rowcount)

    async def remove(self, player_id: str, subscription_id: str) -> bool:
        """Turn one device's notices off (from any device of the player)."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(PUSH).where(PUSH.c.id == subscription_id,
                                                               PUSH.c.player_id == player_id))
        return bool(done.rowcount)

    async def remove_endpoint(self, endpoint: str) -> bool:
        """A push service said the endpoint is gone (404, 410): its row goes."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(PUSH).where(PUSH.c.endpoint == endpoint))
        return bool(done.rowcount)

    async def of_players(self, player_ids: Iterable[str], *, groups: bool = False) -> list[Subscription]:
        """The subscriptions of these players (``groups``: only those that take group notices); an id
        of a player merged into another by a code is that one's (nimmt.people.aliases)."""
        ids = sorted(set(player_ids))
        if not ids:
            return []
        merged = select(ALIASES.c.player_id).where(ALIASES.c.old_id.in_(ids))
        query = (select(PUSH, PLAYERS.c.language.label("player_language"))
                 .join(PLAYERS, PLAYERS.c.id == PUSH.c.player_id)
                 .where(or_(PUSH.c.player_id.in_(ids), PUSH.c.player_id.in_(merged)))
                 .order_by(PUSH.c.created_at, PUSH.c.id))
        if groups:
            query = query.where(PUSH.c.groups)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [Subscription(row.id, row.player_id, row.endpoint, row.p256dh, row.auth, row.language, row.groups,
                             _utc(row.created_at), None if row.last_sent_at is None else _utc(row.last_sent_at),
                             row.player_language, row.device_id) for row in rows]

    async def of_player(self, player_id: str) -> list[Subscription]:
        return await self.of_players([player_id])

    async def claim(self, subscription_id: str, notice: str) -> bool:
        """Whether this process sends ``notice`` to the subscription: True for exactly one caller,
        ever (False too when the subscription is gone)."""
        try:
            async with self._engine.begin() as connection:
                await connection.execute(insert(PUSH_SENT).values(subscription_id=subscription_id, notice=notice,
                                                                  sent_at=self._now()))
                await connection.execute(update(PUSH).where(PUSH.c.id == subscription_id)
                                         .values(last_sent_at=self._now()))
        except IntegrityError:
            return False
        return True

    async def sent(self, subscription_id: str) -> list[tuple[str, datetime]]:
        """The notices sent to one subscription (kept :data:`SENT_KEPT`), oldest first."""
        query = (select(PUSH_SENT.c.notice, PUSH_SENT.c.sent_at).where(PUSH_SENT.c.subscription_id == subscription_id)
                 .order_by(PUSH_SENT.c.sent_at, PUSH_SENT.c.notice))
        async with self._engine.connect() as connection:
            return [(row.notice, _utc(row.sent_at)) for row in (await connection.execute(query)).all()]

    async def sweep(self) -> int:
        """The sent notices' rows older than :data:`SENT_KEPT` go (their decisions are long over)."""
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(PUSH_SENT).where(PUSH_SENT.c.sent_at < self._now() - SENT_KEPT))
        return int(done.rowcount or 0)

    async def export(self, player_id: str) -> list[dict[str, Any]]:
        """A person's subscriptions as their export shows them (the endpoint and keys are theirs too)."""
        out = []
        for sub in await self.of_player(player_id):
            out.append({
                "id": sub.id, "device": sub.device_id, "endpoint": sub.endpoint,
                "keys": {"p256dh": sub.p256dh, "auth": sub.auth}, "language": sub.language, "groups": sub.groups,
                "created_at": sub.created_at.isoformat(),
                "last_sent_at": None if sub.last_sent_at is None else sub.last_sent_at.isoformat(),
                "sent": [{"notice": notice, "sent_at": at.isoformat()} for notice, at in await self.sent(sub.id)]})
        return out

    async def site_key(self, make: Callable[[], str]) -> str:
        """The site's VAPID private key (PEM): the one kept, else ``make()``'s, kept by whichever
        process stores it first (every process then signs with the same key)."""
        query = select(PUSH_SITE.c.private_key).where(PUSH_SITE.c.id == 1)
        async with self._engine.connect() as connection:
            kept = (await connection.execute(query)).scalar()
        if kept is not None:
            return str(kept)
        try:
            async with self._engine.begin() as connection:
                await connection.execute(insert(PUSH_SITE).values(id=1, private_key=make(), created_at=self._now()))
        except IntegrityError:
            pass  # another process made it first: theirs is the site's
        async with self._engine.connect() as connection:
            return str((await connection.execute(query)).scalar_one())
