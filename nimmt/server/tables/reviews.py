"""The review of each finished game (``docs/review.md``): made in the bot pool's workers, one player's
turn at a time (never on the event loop, never holding a worker long), then kept in the table's
journal as a ``review`` entry after the game's end, so that any process serves it from the store.

A game is reviewed once: when this process sees it end (the service's settle hook), or when its review
is asked for and none is stored nor being made here (a game that ended before a restart, or on another
process that stopped meanwhile). On a first run the review waits for the bots' compiled kernels (as an
uploaded record's does: the route answers ``503 preparing`` meanwhile), never compiling inside a job.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from nimmt.records import from_mapping
from nimmt.review import DEFAULT_SAMPLES, DEFAULT_SEED, merge, to_store

from ..botpool import BotPool, BotTimeout, PoolClosed
from ..journal import Entry, Reviewed
from ..review_jobs import parts_of, review_part
from .table import Table

if TYPE_CHECKING:
    from .service import TableService

logger = logging.getLogger("nimmt.server")

REVIEW_SAMPLES = DEFAULT_SAMPLES  # samples per option and decision: the terminal's review, the same numbers
REVIEWS_AT_ONCE = 1  # games reviewed at the same time by this process: the bots' decisions come first
# Seconds after a game's end before its review starts: the last screen and a rematch come first (and
# a server stopped right after a game never starts its workers for it). Asked for, it starts at once.
REVIEW_AFTER = 5.0


class Reviews:
    """Makes the reviews of one process's finished games, in its bot pool's workers."""

    def __init__(self, service: TableService, pool: BotPool, samples: int = REVIEW_SAMPLES) -> None:
        self.service = service
        self.pool = pool
        self.samples = samples
        self.working: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.storing: set[tuple[str, int]] = set()
        self._slots = asyncio.Semaphore(REVIEWS_AT_ONCE)

    def want(self, table: Table, game: int | None = None, *, asked: bool = False) -> bool:
        """Start the review of ``game`` (default: the table's game, once over) unless it is stored or
        being made here (``asked``: somebody waits for it, no pause first); whether one is being made now."""
        game = table.game if game is None else game
        if game not in table.finished_games or game in table.reviews or self.service.closed:
            return False
        key = (table.id, game)
        if key not in self.working:
            record = table.recorder.record.to_json() if game == table.game and table.recorder is not None else None
            pause = 0.0 if asked else REVIEW_AFTER
            self.working[key] = asyncio.create_task(self._make(table.id, game, record, pause), name=f"review {key}")
        return True

    async def _make(self, table_id: str, game: int, record: dict[str, Any] | None, pause: float) -> None:
        key = (table_id, game)
        try:
            await asyncio.sleep(pause)
            await self.pool.until_prepared()  # a first run: the kernels compile first, as for an upload
            async with self._slots:
                if record is None:
                    row = await self.service.store.game(table_id, game)
                    if row is None or not row.finished:
                        return
                    record = row.record
                parts = [await self.pool.run(f"review:{table_id}", review_part, record, player, wanted,
                                             self.samples, DEFAULT_SEED)
                         for player, wanted in parts_of(record)]
                data = to_store(merge(from_mapping(record), parts))
            await self._keep(table_id, game, data)
        except (BotTimeout, PoolClosed) as error:
            logger.warning("the review of game %d of table %s was not made: %s", game, table_id, type(error).__name__)
        except Exception:
            logger.exception("the review of game %d of table %s failed", game, table_id)
        finally:
            self.working.pop(key, None)

    async def _keep(self, table_id: str, game: int, data: dict[str, Any]) -> None:
        if self.service.closed:
            return
        table = await self.service.get(table_id)
        if table is None:
            return
        self.storing.add((table_id, game))

        def entry() -> Entry | None:
            return None if game in table.reviews else Reviewed(game, data)

        try:
            async with table.lock:
                await self.service.store_entry(table, entry)
        finally:
            self.storing.discard((table_id, game))

    async def stop(self) -> None:
        """Drop the reviews being made (none is half stored: one that is being stored ends first)."""
        tasks = list(self.working.values())
        for key, task in list(self.working.items()):
            if key not in self.storing:
                task.cancel()
        if tasks:
            await asyncio.wait(tasks)
