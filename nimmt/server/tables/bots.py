"""The bots at the tables: woken when a table waits for them, thinking outside the table's lock,
and their answers committed under it.

Each round of decisions: under the table's lock, only long enough to see which bots are waited for
and what each sees; then the bots think at once, outside the lock (in the worker processes of
:mod:`nimmt.server.botpool`, or at once for a quick bot), while people act on; then, no sooner than
``bot_delay`` after the round began (so people can follow), each answer is committed in seat order
under the lock, if the decision it answers is still the one asked. An answer to a decision that has
gone (the seat was given back, a new game) is dropped, and the bot is asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nimmt.core import Phase, PlayCard, View, view

from ..botpool import BotPool, PoolClosed, SeatBot, Thought
from ..hub import LEASE_SECONDS
from ..journal import Entry, Played, RowChosen
from ..store import StoreConflict
from .errors import ActionError
from .state import Decision
from .table import Table

if TYPE_CHECKING:
    from .service import TableService

logger = logging.getLogger("nimmt.server")


@dataclass(frozen=True, slots=True)
class Ask:
    """One decision asked of a bot: its seat, the game and decision it answers, the bot, its view."""

    seat: int
    game: int
    decision: Decision | None
    seat_bot: SeatBot
    seen: View


class Bots:
    """Runs the bots of one process's tables (one task per table at most), thinking in ``pool``."""

    def __init__(self, service: TableService, pool: BotPool, delay: float) -> None:
        self.service = service
        self.pool = pool
        self.delay = delay  # seconds at least between a round of decisions and the bots' answers
        self.retries: dict[str, asyncio.Task[None]] = {}  # tables whose bots another process runs

    def wake(self, table: Table) -> None:
        """Start the table's bots if it waits for a bot (or a deal) and none are running."""
        self.service.clocks.arm(table)  # after every change: the clock of the decisions now awaited
        if self.service.closed or not (table.waiting_bots() or table.needs_deal()):
            return
        if table.bot_task is None or table.bot_task.done():
            table.bot_task = asyncio.create_task(self._run(table))

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks still running: each table's bots, and the looks again at others' tables."""
        running = [t.bot_task for t in self.service.tables.values() if t.bot_task is not None and not t.bot_task.done()]
        return running + list(self.retries.values())

    def _later(self, table: Table) -> None:
        """Another process holds the table's lease: look again in a while, in case it has died."""
        service = self.service
        if service.closed or table.id in self.retries:
            return

        async def later() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(service.stopping.wait(), LEASE_SECONDS / 3)
            if service.closed or service.tables.get(table.id) is not table:
                return
            try:
                await service.catch_up(table)
            except Exception as error:  # the store is away: the next news or request tries again
                logger.warning("catching up table %s failed: %s", table.id, error)
            self.wake(table)

        retry = self.retries[table.id] = asyncio.create_task(later())
        retry.add_done_callback(lambda _done: self.retries.pop(table.id, None))

    async def _run(self, table: Table) -> None:
        """Let the bots the table waits for act, until it waits for none (see the module's text)."""
        delay = self.delay
        while not self.service.closed:
            began = time.monotonic()
            try:
                if not await self.service.hub.lease(table.id):  # another process runs this table's bots
                    self._later(table)
                    return
                asks = await self._asked(table)
                if not asks or not await self._answer(table, asks, began, delay):
                    return
                delay = self.delay
            except PoolClosed:
                return
            except ActionError as error:  # the store failed (logged in a line): the bots try again shortly
                logger.warning("a bot's action on table %s was not stored: %s", table.id, error.message)
                delay = max(self.delay, 1.0)
            except Exception:  # something unforeseen: nothing was applied; the bots try again shortly
                logger.exception("a bot's action on table %s failed", table.id)
                delay = max(self.delay, 1.0)

    async def _answer(self, table: Table, asks: list[Ask], began: float, delay: float) -> bool:
        """The bots think at once; their answers are committed in seat order, no sooner than ``delay``
        after ``began``. False when the server stops meanwhile (nothing more is stored)."""
        thoughts = [asyncio.ensure_future(self.pool.decide(table.id, ask.seat_bot, ask.seen)) for ask in asks]
        try:
            if not await self._until_stopped(asyncio.sleep(max(0.0, began + delay - time.monotonic()))):
                return False
            for ask, thought in zip(asks, thoughts, strict=True):
                if not await self._until_stopped(thought) or self.service.closed:
                    return False
                if not await self._commit(table, ask, thought.result()):
                    break  # a row choice comes next, after a pause
            return True
        finally:
            for thought in thoughts:
                thought.cancel()
            await asyncio.gather(*thoughts, return_exceptions=True)

    async def _until_stopped(self, waiting: Any) -> bool:
        """Wait for ``waiting`` (a coroutine or a future); False if the server stops first."""
        task = asyncio.ensure_future(waiting)
        stop = asyncio.ensure_future(self.service.stopping.wait())
        try:
            await asyncio.wait([task, stop], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not task.done():
            task.cancel()
            return False
        return not self.service.closed

    async def _asked(self, table: Table) -> list[Ask]:
        """The bots the table waits for now, each with its view (under the lock, briefly)."""
        async with table.lock:
            await self.service.settle(table)
            if self.service.closed or table.recorder is None:
                return []
            asks = []
            for seat in table.waiting_bots():
                name = table.seats[seat].bot or ""
                seat_bot = table.bots.get(seat)
                if seat_bot is None or seat_bot.name != name:
                    seat_bot = table.bots[seat] = SeatBot(name, self.service.rng.random())
                asks.append(Ask(seat, table.game, table.decisions.get(seat), seat_bot,
                                view(table.recorder.state, seat)))
            return asks

    async def _commit(self, table: Table, ask: Ask, thought: Thought) -> bool:
        """Store a bot's answer if its decision is still the one asked; False when the table waits for a
        row choice next (which comes after a pause)."""
        async with table.lock:
            if self.service.closed or table.recorder is None:
                return False
            if (table.game != ask.game or table.seats[ask.seat].bot != ask.seat_bot.name
                    or table.bots.get(ask.seat) is not ask.seat_bot or ask.seat not in table.waiting_bots()
                    or table.decisions.get(ask.seat) != ask.decision):
                return True  # the table moved on meanwhile: this answer is dropped, the bot is asked again
            if thought.state is not None:
                ask.seat_bot.state = thought.state
            if isinstance(thought.action, PlayCard):
                entry: Entry = Played(ask.seat, thought.action.card)
            else:
                entry = RowChosen(ask.seat, thought.action.row)
            try:
                await self.service.commit(table, entry)
            except StoreConflict:  # another process moved the table on: see where it is, ask again
                await self.service.catch_up_locked(table)
                return True
            await self.service.settle(table)
            table.last_active = time.monotonic()
            return table.recorder.state.phase is not Phase.CHOOSE_ROW
