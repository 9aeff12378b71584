"""The review of each finished game (``docs/review.md``): made in the bot pool's workers, one player's
turn at a time (never on the event loop, never holding a worker long), then kept in the table's
journal as a ``review`` entry after the game's end, so that any process serves it from the store.

A game is reviewed once: when this process sees it end (the service's settle hook), or when its review
is asked for and none is stored nor being made here (a game that ended before a restart, or on another
process that stopped meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from nimmt.records import from_mapping
from nimmt.review import DEFAULT_SAMPLES, DEFAULT_SEED, Review, merge, moments, review, to_store

from ..botpool import BotPool, BotTimeout, PoolClosed
from ..journal import Entry, Reviewed
from .table import Table

if TYPE_CHECKING:
    from .service import TableService

logger = logging.getLogger("nimmt.server")

Where = tuple[int, int, int, str]  # a decision: round, turn (from 1), player, "card" or "row"
REVIEW_SAMPLES = DEFAULT_SAMPLES  # samples per option and decision: the terminal's review, the same numbers
REVIEWS_AT_ONCE = 1  # games reviewed at the same time by this process: the bots' decisions come first
# Seconds after a game's end before its review starts: the last screen and a rematch come first (and
# a server stopped right after a game never starts its workers for it). Asked for, it starts at once.
REVIEW_AFTER = 5.0


def review_part(record: dict[str, Any], player: int, wanted: list[Where], samples: int, seed: int) -> Review:
    """Some decisions of one player (in a worker process): ``wanted`` as :func:`nimmt.review.review`'s ``only``."""
    return review(from_mapping(record), samples=samples, seed=seed, players=[player], only=set(wanted))


PART_COST = 100  # a job's rollouts: options times cards left, summed (100: a first turn's card)


def parts_of(record: dict[str, Any]) -> list[tuple[int, list[Where]]]:
    """The jobs of a game's review: consecutive decisions of one player in one round, a first turn's
    worth of rollouts each (a fifth of a second of a worker or so: far within the pool's time limit
    however busy the machine, and few enough jobs that replaying the game up to each costs little)."""
    parts: list[tuple[int, list[Where]]] = []
    open_part: dict[tuple[int, int], tuple[list[Where], list[int]]] = {}  # (player, round) -> decisions, cost
    for moment, _ in moments(from_mapping(record)):
        state = moment.state
        where = (state.round, state.turn + 1, moment.player, moment.kind)
        cards = len(state.hands[moment.player])
        cost = cards * cards if moment.kind == "card" else 4 * cards
        wanted, spent = open_part.get((moment.player, state.round), (None, [0]))
        if wanted is None or spent[0] + cost > PART_COST:
            wanted, spent = [], [0]
            open_part[(moment.player, state.round)] = (wanted, spent)
            parts.append((moment.player, wanted))
        wanted.append(where)
        spent[0] += cost
    return parts


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
