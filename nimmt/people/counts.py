"""What one key or one address may make, counted in the store (``people_counts``), so that every
server process sharing the database counts the same, and no two requests both slip under a limit.

Each :class:`Quota` counts one kind of thing (``players``, ``groups``, ``invites``, ``joins``,
``links``, ``challenges``, ``sheets``, ``chat``) by a player or by an address, in a window that
starts with the first one counted and lasts ``seconds``; at most ``most`` in it. A count is one
statement, atomic on SQLite and PostgreSQL alike::

    INSERT INTO people_counts (what, who, ends, n) VALUES (...)
    ON CONFLICT (what, who) DO UPDATE SET n = CASE WHEN ends <= now THEN 1 ELSE n + 1 END, ...
    WHERE people_counts.ends <= now OR people_counts.n < most
    RETURNING n

It counts one more, or returns no row when the limit is reached (PostgreSQL locks the row for the
conflict, SQLite has one writer at a time: there is no check-then-insert race). The counts of one
request (by the player and by the address) go in one transaction: a refusal by either counts
nothing. On SQLite that transaction runs whole in a thread of its own, on the plain driver: its
write lock is held for the microseconds of the statements, never across turns of a busy event
loop, where it would keep the tables' writer waiting (a chat flood did, before). A refusal is
remembered by the process until its window ends: a flood's next tries are refused from memory,
without the store.

The defaults (:data:`DEFAULT_QUOTAS`, docs/deploy/README.md, "Limits") leave room for a family or
a class behind one address, and none for a script: 2,000 groups from one key stop at the tenth.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import case, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from nimmt.core import NimmtError

from .database import Database
from .model import PeopleError
from .schema import COUNTS

Thing = Literal["players", "groups", "invites", "joins", "links", "challenges", "sheets", "chat"]
By = Literal["player", "address"]
MINUTE, HOUR, DAY = 60, 3600, 86_400
REFUSALS_KEPT = 10_000  # refusals a process remembers at most (the oldest is forgotten first)


class QuotaError(NimmtError, ValueError):
    """A quota that cannot be: a negative count, or a window under a second."""


@dataclass(frozen=True, slots=True)
class Quota:
    """At most ``most`` of ``thing`` by one ``by`` (a player, an address) within ``seconds``; 0: no limit."""

    thing: Thing
    by: By
    most: int
    seconds: int

    def __post_init__(self) -> None:
        if self.most < 0 or self.seconds < 1:
            raise QuotaError(f"a quota counts 0 (no limit) or more within 1 s or more, not {self}")

    @property
    def what(self) -> str:
        return f"{self.thing}/{self.by}/{self.seconds}"


DEFAULT_QUOTAS: tuple[Quota, ...] = (
    Quota("players", "address", 60, HOUR),  # a class's computers behind one school's address
    Quota("groups", "player", 10, HOUR),
    Quota("groups", "player", 30, DAY),
    Quota("groups", "address", 30, HOUR),
    Quota("invites", "player", 20, HOUR),  # a host's new invite codes
    Quota("joins", "player", 30, HOUR),  # groups joined (an invite used)
    Quota("links", "player", 10, HOUR),  # device-link codes
    Quota("links", "address", 30, HOUR),
    Quota("challenges", "player", 20, HOUR),  # passkey ceremonies begun (adding one)
    Quota("challenges", "address", 60, HOUR),  # ... and signing in, by anyone at the address
    Quota("sheets", "player", 30, DAY),  # real-deck games saved
    Quota("sheets", "address", 60, DAY),
    Quota("chat", "player", 5, 10),  # as the chat always allowed: 5 in 10 s
    Quota("chat", "player", 300, HOUR),
    Quota("chat", "address", 10, 10),  # a family typing at once; never a script's flood
    Quota("chat", "address", 600, HOUR),
)


class Limited(PeopleError):
    """A quota is reached: ``rate_limited`` (``chat_too_soon`` for the chat), with ``params``
    ``thing``, ``by``, ``most``, ``seconds`` and ``retry_after`` (whole seconds)."""

    def __init__(self, quota: Quota, retry_after: int) -> None:
        code = "chat_too_soon" if quota.thing == "chat" else "rate_limited"
        per = "this person" if quota.by == "player" else "this address"
        super().__init__(code, f"{per} made {quota.most} {quota.thing} within {quota.seconds} s: "
                         f"try again in {retry_after} s")
        self.quota = quota
        self.params: dict[str, Any] = {"thing": quota.thing, "by": quota.by, "most": quota.most,
                                       "seconds": quota.seconds, "retry_after": retry_after}


class _Refused(NimmtError):
    def __init__(self, quota: Quota, who: str, wait: int) -> None:
        self.quota, self.who, self.wait = quota, who, wait


class CountStore:
    """The ``people_counts`` rows, on the people store's database and clock."""

    def __init__(self, database: Database, clock: Callable[[], datetime],
                 quotas: Sequence[Quota] = DEFAULT_QUOTAS) -> None:
        self.database = database
        self._engine = database.engine
        self._clock = clock
        self.quotas: tuple[Quota, ...] = tuple(quotas)
        # SQLite: the plain driver, in one thread of its own (see the module).
        self._thread = database.plain_thread("nimmt-counts") if database.dialect == "sqlite" else None
        # What the store refused, until when (this process's memory: a flood's next tries are refused
        # without the store; the store's count stays the truth, and it cannot fall before then).
        self._refused: OrderedDict[tuple[str, str], tuple[float, Quota]] = OrderedDict()

    def of(self, thing: Thing) -> list[Quota]:
        return [quota for quota in self.quotas if quota.thing == thing and quota.most > 0]

    async def take(self, thing: Thing, *, player: str | None = None, address: str | None = None) -> None:
        """Count one ``thing`` by ``player`` and from ``address`` (each when given), in one transaction;
        :class:`Limited` (and nothing counted) when any of their quotas is reached."""
        wanted = self._wanted(thing, player, address)
        if not wanted:
            return
        now = self._clock().timestamp()
        for quota, who in wanted:
            known = self._refused.get((quota.what, who))
            if known is not None and known[0] > now and known[1] == quota:
                raise Limited(quota, max(1, math.ceil(known[0] - now)))
        if self._thread is not None:
            refused = await self._thread.run(self._take_sync, wanted, now)
        else:
            try:
                async with self._engine.begin() as connection:
                    for quota, who in wanted:
                        if (await connection.execute(self._count(quota, who, now))).first() is None:
                            raise _Refused(quota, who, await self._wait(connection, quota, who, now))
                refused = None
            except _Refused as error:
                refused = error
        if refused is not None:
            self._refused[refused.quota.what, refused.who] = (now + refused.wait, refused.quota)
            while len(self._refused) > REFUSALS_KEPT:
                self._refused.popitem(last=False)
            raise Limited(refused.quota, refused.wait)

    def _take_sync(self, wanted: list[tuple[Quota, str]], now: float) -> _Refused | None:
        assert self._thread is not None
        try:
            with self._thread.engine.begin() as connection:  # its first statement, a write, takes the lock
                for quota, who in wanted:
                    if connection.execute(self._count(quota, who, now)).first() is None:
                        ends = connection.execute(self._ends(quota, who)).scalar_one()
                        raise _Refused(quota, who, max(1, math.ceil(ends - now)))
        except _Refused as refused:
            return refused
        return None

    def _count(self, quota: Quota, who: str, now: float) -> Any:
        upsert = self.database.insert(COUNTS).values(what=quota.what, who=who, ends=now + quota.seconds, n=1)
        over = COUNTS.c.ends <= now  # the window is over: this one starts the next
        return upsert.on_conflict_do_update(
            index_elements=[COUNTS.c.what, COUNTS.c.who],
            set_={"n": case((over, 1), else_=COUNTS.c.n + 1), "ends": case((over, upsert.excluded.ends),
                                                                            else_=COUNTS.c.ends)},
            where=or_(over, COUNTS.c.n < quota.most)).returning(COUNTS.c.n)

    @staticmethod
    def _ends(quota: Quota, who: str) -> Any:
        return select(COUNTS.c.ends).where(COUNTS.c.what == quota.what, COUNTS.c.who == who)

    async def _wait(self, connection: AsyncConnection, quota: Quota, who: str, now: float) -> int:
        ends = (await connection.execute(self._ends(quota, who))).scalar_one()
        return max(1, math.ceil(float(ends) - now))

    def _wanted(self, thing: Thing, player: str | None, address: str | None) -> list[tuple[Quota, str]]:
        whom = {"player": player, "address": address}
        return [(quota, who[:80]) for quota in self.of(thing) if (who := whom[quota.by])]

    async def sweep(self) -> int:
        """Forget the counts whose window is over (they count nothing): how many rows went."""
        now = self._clock().timestamp()
        async with self._engine.begin() as connection:
            done = await connection.execute(delete(COUNTS).where(COUNTS.c.ends <= now))
        return int(done.rowcount or 0)

    async def close(self) -> None:
        if self._thread is not None:  # its connections closed in the thread that made them
            await self._thread.close()


def quotas_with(changes: Iterable[Quota], base: Sequence[Quota] = DEFAULT_QUOTAS) -> tuple[Quota, ...]:
    """``base`` with each of ``changes`` in place of the quota of the same thing, by and window (or added)."""
    changed = {quota.what: quota for quota in changes}
    kept = [changed.pop(quota.what, quota) for quota in base]
    return (*kept, *changed.values())
