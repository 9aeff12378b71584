"""Reactions: a few quick emotes a seated person sends to the table, limited per seat.

A reaction changes nothing at the table and is not stored: the hub carries it to every
connection of the table (on any process), each page shows it on the sender's chip for a moment,
and a person can mute another on their own device. Each seat may send :data:`BURST` reactions in
a row, then one more every :data:`EVERY` seconds; more is refused with ``reaction_too_soon`` and
``retry_after`` (whole seconds). The limit is kept by the process the seat's connection is on, as
the other per-client limits are: it bounds a flood, it is not table state.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .hub import Hub, Update
from .models import React
from .tables import ActionError, Table

REACTIONS: tuple[str, ...] = ("thumbs_up", "laugh", "wow", "grimace", "bull", "clap")
BURST = 3  # reactions a seat may send at once
EVERY = 4.0  # seconds for one more
REMEMBERED = 10_000  # seats whose limit one process remembers at most


class ReactionLimit:
    """A token bucket per (table, seat): ``BURST`` at once, then one every ``EVERY`` seconds."""

    def __init__(self, burst: int = BURST, every: float = EVERY, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst, self.every, self.clock = burst, every, clock
        self._buckets: OrderedDict[tuple[str, int], tuple[float, float]] = OrderedDict()  # -> (tokens, when)

    def take(self, table_id: str, seat: int) -> float:
        """0 when the seat may react now (and it is counted), else the seconds until it may."""
        now = self.clock()
        key = (table_id, seat)
        tokens, then = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - then) / self.every)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) * self.every
        self._buckets[key] = (tokens - 1, now)
        while len(self._buckets) > REMEMBERED:
            self._buckets.popitem(last=False)
        return 0.0


def retry_after(seconds: float) -> int:
    """Whole seconds to wait, rounded up (at least 1)."""
    return max(1, math.ceil(seconds))


async def react(hub: Hub, table: Table, seat: int | None, message: React) -> None:
    """Pass the reaction of the person at ``seat`` (None: a spectator) to everyone at the table, through
    the hub, or refuse it: ``spectator``, ``unknown_reaction``, ``reaction_too_soon`` (``retry_after``)."""
    if seat is None:
        raise ActionError("spectator", "a spectator cannot react")
    if message.reaction not in REACTIONS:
        raise ActionError("unknown_reaction", f"the reactions are {', '.join(REACTIONS)}",
                          reaction=message.reaction[:32])
    wait = LIMIT.take(table.id, seat)
    if wait > 0:
        raise ActionError("reaction_too_soon", f"too many reactions: wait {retry_after(wait)} s",
                          retry_after=retry_after(wait))
    await hub.publish(Update(table.id, table.version, reaction={"seat": seat, "reaction": message.reaction}))


def reaction_message(update: Update) -> dict[str, Any] | None:
    """What the pages are sent of a reaction the hub carried (None: the update holds none)."""
    got = update.reaction
    if not got or not isinstance(got.get("seat"), int) or got.get("reaction") not in REACTIONS:
        return None
    return {"type": "reaction", "seat": got["seat"], "reaction": got["reaction"]}


LIMIT = ReactionLimit()  # this process's, shared by its connections
