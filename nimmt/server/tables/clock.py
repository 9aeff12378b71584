"""The clock of a timed table: each decision has ``options.clock`` seconds; nothing is chosen for a
person who is here.

A decision's clock starts when the table begins to await it: the stored time (``at``) of the entry
that made the table ask (a deal, the card or row choice before), or of the seat's return; any
process rebuilds it from the journal. When a present person's clock runs out, nothing is played
for them: every page is told (``clock_left`` 0), and the others at the table may hand the seat to
a bot (``seat_to_bot``, stored with ``keep``: the bot plays it until its person takes it back).
Only a person who has left (away :data:`ABSENT_FLOOR` seconds or more: a reload never counts) has
their seat handed by the clock itself: this process stores a ``seat_to_bot`` entry marked
``clock`` (:data:`CLOCK_BOT`), and the seat is theirs again at their next decision once they are
here, as with the absent rule. A table where nobody else can hand the seat (every other seat a
bot's) waits for its person: the clock is only shown.

Every process that holds the table arms a timer for the earliest moment something is due (a
deadline, or a person gone long enough after theirs; after each change and each arrival or
departure, see :meth:`~nimmt.server.tables.bots.Bots.wake`); when several fire, the store lets one
entry in and the others find the seat is a bot's already. A table with a clock running stays in
memory; after a restart, the scan of :mod:`nimmt.server.clocked` loads every timed table whose
game runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from nimmt.core import Phase

from ..journal import Entry, SeatToBot

if TYPE_CHECKING:
    from .service import TableService
    from .table import Table

logger = logging.getLogger("nimmt.server")
CLOCK_BOT = "heuristic"  # quick, and plays a sensible card for the person
ABSENT_FLOOR = 5.0  # seconds away before a person has left: the least the absent rule "bot" waits, too
RETRY = 2.0  # seconds before a hand-over that could not be stored is tried again


def deadlines(table: Table) -> dict[int, float]:
    """When each person's clock runs out (wall clock), for the decisions the table awaits of people."""
    clock = table.options.clock
    if not clock or table.recorder is None:
        return {}
    state = table.recorder.state
    if state.phase not in (Phase.CHOOSE_CARDS, Phase.CHOOSE_ROW):
        return {}
    loaded = time.time() - (time.monotonic() - table.loaded_at)  # a decision of unknown start: since loaded
    out = {}
    for seat in state.waiting_for:
        if table.seats[seat].bot is None and table.seats[seat].token_hash is not None:
            began = table.asked_at.get(seat)
            out[seat] = (loaded if began is None else began) + clock
    return out


def next_due(table: Table, now: float | None = None) -> float | None:
    """When the clock next has something to do (wall clock): the earliest deadline still to come, and
    for a person away at or after theirs, the moment they have been away :data:`ABSENT_FLOOR` seconds.
    A present person whose clock has run out is due nothing: the table waits for them."""
    now = time.time() if now is None else now
    due = []
    for seat, deadline in deadlines(table).items():
        if deadline > now:
            due.append(deadline)
        elif (away := table.away_seconds(seat)) is not None:
            due.append(max(deadline, now + ABSENT_FLOOR - away))
    return min(due, default=None)


def clock_left(table: Table, seat: int) -> float | None:
    """Seconds left on this seat's clock (tenths), or None: no clock, or nothing awaited of this person."""
    deadline = deadlines(table).get(seat)
    return None if deadline is None else round(max(0.0, deadline - time.time()), 1)


class Clocks:
    """One timer per timed table of this process: at a deadline, every page is told; a person gone past
    theirs has their seat handed to a bot."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.timers: dict[str, tuple[float, asyncio.Task[None]]] = {}  # table -> (deadline, timer)

    def armed(self, table_id: str) -> bool:
        return table_id in self.timers

    def arm(self, table: Table) -> None:
        """Set the table's timer to the next moment something is due (none: no timer)."""
        if self.service.closed:
            return
        due = next_due(table)
        current = self.timers.get(table.id)
        if current is not None and current[0] == due and not current[1].done():
            return
        self.disarm(table.id)
        if due is not None:
            timer = asyncio.create_task(self._run_out(table, due))
            self.timers[table.id] = (due, timer)
            timer.add_done_callback(lambda done: self._forget(table.id, done))

    def disarm(self, table_id: str) -> None:
        current = self.timers.pop(table_id, None)
        if current is not None:
            current[1].cancel()

    def tasks(self) -> list[asyncio.Task[None]]:
        return [timer for _due, timer in self.timers.values() if not timer.done()]

    def _forget(self, table_id: str, done: asyncio.Task[None]) -> None:
        current = self.timers.get(table_id)
        if current is not None and current[1] is done:
            del self.timers[table_id]

    async def _run_out(self, table: Table, due: float) -> None:
        service = self.service
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(service.stopping.wait(), max(0.0, due - time.time()))
        if service.closed or service.tables.get(table.id) is not table:
            return
        if self.timers.get(table.id, (None, None))[1] is asyncio.current_task():
            del self.timers[table.id]  # from here on, arming sets a new timer and never cancels this one mid-write
        try:
            async with table.lock:
                handed = await service.write(table, lambda: _hand_over(table))
            if not handed:  # a clock ran out for someone here: every page says so (the version is the same)
                await service.hub.publish(table.news())
        except Exception:  # the store is away: try again shortly (the clock has run out all the same)
            logger.exception("the clock's hand-over on table %s failed", table.id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(service.stopping.wait(), RETRY)
        self.arm(table)  # the next deadline (another seat, the next decision), or again after a failure


def _hand_over(table: Table) -> Entry | None:
    """The first seat whose clock has run out and whose person has left, to the clock's bot (asked
    again after another process's write: None when there is none any more). Never a present person's."""
    now = time.time()
    for seat, deadline in sorted(deadlines(table).items(), key=lambda item: item[1]):
        away = table.away_seconds(seat)
        if deadline <= now and away is not None and away >= ABSENT_FLOOR:
            return SeatToBot(seat, CLOCK_BOT, clock=True)
    return None
