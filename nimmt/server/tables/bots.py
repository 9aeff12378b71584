"""The bots at the tables: woken when a table waits for them (a listener of the tables), thinking
outside the table's lock, their answers submitted to its host.

Each round of decisions: :class:`~.commands.AskBots` (the host, under its lock, only long enough
to see which bots are waited for and what each sees); then the bots think at once, outside the lock
(in the worker processes of :mod:`nimmt.server.botpool`, or at once for a quick bot), while people
act on; then, no sooner than ``bot_delay`` after the round began (so people can follow), each answer
is submitted in seat order (:class:`~.commands.BotAnswer`); the host stores it if the decision it
answers is still the one asked. An answer to a decision that has gone (the seat was given back, a
new game) is dropped, and the bot is asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from nimmt.core import Phase

from ..botpool import BotPool, PoolClosed, Thought
from ..hub import LEASE_SECONDS, Hub
from .changes import TableChanged
from .commands import Ask, AskBots, BotAnswer, CatchUp, Port
from .errors import ActionError
from .table import Table

logger = logging.getLogger("nimmt.server")


class Bots:
    """Runs the bots of one process's tables (one task per table at most), thinking in ``pool``."""

    def __init__(self, tables: Port, hub: Hub, pool: BotPool, delay: float) -> None:
        self.tables = tables
        self.hub = hub
        self.pool = pool
        self.delay = delay  # seconds at least between a round of decisions and the bots' answers
        self.running: dict[str, asyncio.Task[None]] = {}  # table -> its bots' task
        self.retries: dict[str, asyncio.Task[None]] = {}  # tables whose bots another process runs

    def heard(self, change: TableChanged) -> None:
        """A listener of the tables: after every change, the bots the table now waits for."""
        self.wake(change.table)

    def wake(self, table: Table) -> None:
        """Start the table's bots if it waits for a bot (or a deal) and none are running."""
        if self.tables.closed or not (table.waiting_bots() or table.needs_deal()):
            return
        task = self.running.get(table.id)
        if task is None or task.done():
            task = self.running[table.id] = asyncio.create_task(self._run(table))
            task.add_done_callback(lambda done: self.running.pop(table.id, None)
                                   if self.running.get(table.id) is done else None)

    def busy_with(self, table_id: str) -> bool:
        """Whether the table's bots are at work (it stays in memory meanwhile)."""
        task = self.running.get(table_id)
        return task is not None and not task.done()

    def tasks(self) -> list[asyncio.Task[None]]:
        """The tasks still running: each table's bots, and the looks again at others' tables."""
        return [task for task in self.running.values() if not task.done()] + list(self.retries.values())

    def _later(self, table: Table) -> None:
        """Another process holds the table's lease: look again in a while, in case it has died."""
        tables = self.tables
        if tables.closed or table.id in self.retries:
            return

        async def later() -> None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tables.stopping.wait(), LEASE_SECONDS / 3)
            if tables.closed or not tables.holds(table):
                return
            try:
                await tables.submit(table, CatchUp())
            except Exception as error:  # the store is away: the next news or request tries again
                logger.warning("catching up table %s failed: %s", table.id, error)
            self.wake(table)

        retry = self.retries[table.id] = asyncio.create_task(later())
        retry.add_done_callback(lambda _done: self.retries.pop(table.id, None))

    async def _run(self, table: Table) -> None:
        """Let the bots the table waits for act, until it waits for none (see the module's text)."""
        delay = self.delay
        while not self.tables.closed:
            began = time.monotonic()
            try:
                if not await self.hub.lease(table.id):  # another process runs this table's bots
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
                if not await self._until_stopped(thought) or self.tables.closed:
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
        stop = asyncio.ensure_future(self.tables.stopping.wait())
        try:
            await asyncio.wait([task, stop], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if not task.done():
            task.cancel()
            return False
        return not self.tables.closed

    async def _asked(self, table: Table) -> list[Ask]:
        """The bots the table waits for now, each with its view (the host, under its lock, briefly)."""
        if not self.tables.holds(table):
            return []  # the table left memory: its bots stop
        return list((await self.tables.submit(table, AskBots())).asks)

    async def _commit(self, table: Table, ask: Ask, thought: Thought) -> bool:
        """Submit a bot's answer (the host stores it if its decision is still the one asked); False when
        the table waits for a row choice next (which comes after a pause)."""
        if self.tables.closed or table.recorder is None or not self.tables.holds(table):
            return False
        if not (await self.tables.submit(table, BotAnswer(ask, thought))).stored:
            return True  # the table moved on meanwhile: this answer is dropped, the bot is asked again
        return table.recorder is not None and table.recorder.state.phase is not Phase.CHOOSE_ROW
