"""The review of each game (``docs/review.md``): made in the bot pool's workers while the game is
played, turn by turn (never on the event loop, never holding a worker long, after every bot's move:
the pool's jobs of low priority), so that when the last card falls only the last turn is left; then
kept in the table's journal as a ``review`` entry after the game's end, so that any process serves it
from the store.

As the game goes on (:meth:`Reviews.heard`, a listener of the tables), this process reviews the
decisions of each turn completed, each player's model of the others carried from step to step
(:func:`nimmt.review.review_steps`: the same figures as a review made after the game). At the end the
rest is reviewed at once, at normal priority, and the review stored. A game this process did not
follow from its start (it ended before a restart, or on another process that stopped meanwhile) is
reviewed when it ends here or when its review is asked for, a few decisions of one player per job.
On a first run the review waits for the bots' compiled kernels (as an uploaded record's does: the
route answers ``503 preparing`` meanwhile), never compiling inside a job.

In a cluster (several processes on one database) each game is reviewed by one process: the one that
holds the game's lease in the store (:mod:`nimmt.server.store.claims`). The first process to write an
entry of the game's first turns takes it and follows the game; the others leave it alone. At the end,
a process that wrote the last entry but does not hold the lease says so in the lease's row, and its
holder finishes the review (from the stored record when its copy of the table has not seen the end);
the lease is renewed while its holder works, and a lease that lapses (its process died) is taken by
the process that waits for the review, which then makes it after the game as before.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from collections import OrderedDict
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from nimmt.records import from_mapping
from nimmt.review import DEFAULT_SAMPLES, DEFAULT_SEED, Decision, finish, merge, to_store

from ..botpool import BotPool, BotTimeout, PoolClosed
from ..hub import Update
from ..review_jobs import PART_COST, parts_of, review_part, review_step
from ..store import ReviewClaims, SqlStore, Store
from .changes import TableChanged
from .commands import CatchUp, Port, ReviewDone
from .table import Table

logger = logging.getLogger("nimmt.server")

REVIEW_SAMPLES = DEFAULT_SAMPLES  # samples per option and decision: the terminal's review, the same numbers
REVIEWS_AT_ONCE = 1  # games reviewed at the same time by this process: the bots' decisions come first
# Seconds after a game's end before its review starts: the last screen and a rematch come first (and
# a server stopped right after a game never starts its workers for it). Asked for, it starts at once.
REVIEW_AFTER = 5.0
FOLLOWED_MOST = 2000  # games followed at once by this process (about 75 kB each at the end of a game of
# four: the one played least lately is dropped past it, and reviewed after its end as before)
# NIMMT_REVIEW_AS_PLAYED=0: review each game after its end only (as before issue 29; for side by side runs)
AS_PLAYED_VARIABLE = "NIMMT_REVIEW_AS_PLAYED"
SECONDS_A_DECISION = 0.05  # a first guess of a worker's seconds a decision, before any is measured
STEP_SECONDS = 0.5  # a step during the game ends after this much wall clock (a bot's move waits at most that)
# A review job's time limit: a worker at its low priority on a busy machine is slow, not stuck (the bots'
# 14 s stopped every worker, the steps made so far were lost and the review started again, over and over).
JOB_LIMIT = 300.0
CLAIM_RENEW = 5.0  # seconds between two renewals of this process's leases (and looks for games ended elsewhere)
CLAIM_WAIT = 1.0  # seconds before a process waiting for another's review looks again (doubled each time)
CLAIM_SECONDS_MOST = 15.0  # ... up to this
FORGET_EVERY = 600.0  # seconds between two deletions of the leases of reviews stored a day ago


@dataclass
class Followed:
    """A game reviewed as it is played: the decisions made so far, and where the review stands."""

    done: int = 0  # decisions of the record reviewed
    ended: int = 0  # decisions in its complete turns, when last looked
    models: bytes | None = None  # each player's model of the others (pickled), after ``done``
    decisions: list[Decision] = field(default_factory=list)
    task: asyncio.Task[None] | None = None  # the step under way
    again: bool = False  # the game went on while a step was under way
    turns: tuple[int, int] = (0, 0)  # the record's rounds and its last round's turns, when last looked
    urgent: bool = False  # the game is over: the steps left go at normal priority
    players: int = 4
    claimed: bool = False  # this process holds the game's lease in the store (or there is none to hold)

    @property
    def left(self) -> int:
        """The decisions left to review, the last turn's included (not yet in ``ended`` while it is played)."""
        return max(0, self.ended - self.done) + (0 if self.urgent and self.ended == self.done else self.players)


class Reviews:
    """Makes the reviews of one process's finished games, in its bot pool's workers."""

    def __init__(self, tables: Port, store: Store, pool: BotPool, samples: int = REVIEW_SAMPLES) -> None:
        self.tables = tables
        self.store = store
        self.pool = pool
        self.samples = samples
        self.working: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.storing: set[tuple[str, int]] = set()
        self.followed: dict[tuple[str, int], Followed] = {}
        self.as_played = os.environ.get(AS_PLAYED_VARIABLE, "1") != "0"
        self.seconds_a_decision = SECONDS_A_DECISION  # a worker's wall seconds a decision, lately
        self._slots = asyncio.Semaphore(REVIEWS_AT_ONCE)
        # One review a game over the processes on one database: the leases in the store (none without one)
        self.claims = ReviewClaims(store.database) if isinstance(store, SqlStore) else None
        self.holder = secrets.token_hex(16)  # this process's mark on its leases
        self.held: set[tuple[str, int]] = set()  # the leases this process holds
        self.elsewhere: OrderedDict[tuple[str, int], None] = OrderedDict()  # games another process follows
        self._keeper: asyncio.Task[None] | None = None  # renews the leases held
        self._chores: set[asyncio.Task[None]] = set()  # leases let go of in the background

    # -- as the game is played -----------------------------------------------------------------
    def heard(self, change: TableChanged) -> None:
        """A listener of the tables: the turns completed so far are reviewed as the game is played; once
        it is over, its review is made."""
        self.advance(change.table)
        if change.table.status == "over":
            self.want(change.table)

    def advance(self, table: Table) -> None:
        """The table wrote an entry: review the turns completed since the last step, in the background
        (a step at a time per game; one under way goes on with them when done)."""
        if not self.as_played or table.status != "playing" or table.recorder is None or self.tables.closed \
                or self.samples < 2:
            return
        key = (table.id, table.game)
        followed = self.followed.get(key)
        if followed is None:
            if table.recorder.state.round > 1 or table.recorder.state.turn > 1:
                return  # a game under way when this process came to it: reviewed at its end, as before
            if key in self.elsewhere:
                return  # another process follows it
            for other in [k for k in self.followed if k[0] == table.id]:  # the table's earlier game
                self._drop(other)
            while len(self.followed) >= FOLLOWED_MOST:
                self._drop(next(iter(self.followed)))
            followed = self.followed[key] = Followed(players=len(table.recorder.record.players))
        else:  # the games played most lately last: the ones left off are dropped first
            self.followed[key] = self.followed.pop(key)
        record = table.recorder.record
        turns = (len(record.rounds), len(record.rounds[-1].turns) if record.rounds else 0)
        if turns == followed.turns:  # no turn completed since: nothing to review yet
            return
        followed.turns = turns
        if followed.task is not None:
            followed.again = True
            return
        followed.task = asyncio.create_task(self._follow(table, key, followed), name=f"review as played {key}")

    def moved(self, table: Table) -> None:
        """Another process wrote the table (this one took it in): a game followed here goes on, or, over,
        its review is finished here (the process that wrote the end leaves it to this one)."""
        if (table.id, table.game) not in self.followed:
            return
        if table.status == "over":
            self.want(table)
        else:
            self.advance(table)

    def _drop(self, key: tuple[str, int]) -> None:
        followed = self.followed.pop(key, None)
        if followed is not None and followed.task is not None:
            followed.task.cancel()
        if followed is not None and followed.claimed and key in self.held and key not in self.working:
            self._let_go([key])  # another process reviews it after its end (one being finished here goes on)

    # -- one review a game over the processes: the leases in the store ------------------------------
    async def _claim(self, key: tuple[str, int], *, ended: bool = False) -> str:
        """Take the game's lease (or keep it): ``"ours"``, ``"elsewhere"`` (another process holds it) or
        ``"done"`` (its review is stored). Without a store's leases, or when the store fails, ``"ours"``:
        a review made twice rather than none."""
        if self.claims is None:
            return "ours"
        try:
            claim = await self.claims.take(key, self.holder, ended=ended)
        except Exception as error:
            logger.warning("the review lease of game %d of table %s could not be taken (%s): reviewed here",
                           key[1], key[0], type(error).__name__)
            return "ours"
        if claim.done:
            return "done"
        if not claim.ours(self.holder):
            return "elsewhere"
        self.held.add(key)
        if self._keeper is None or self._keeper.done():
            self._keeper = asyncio.create_task(self._keep_leases(), name="review leases")
        return "ours"

    def _elsewhere(self, key: tuple[str, int]) -> None:
        self.elsewhere[key] = None
        self.elsewhere.move_to_end(key)
        while len(self.elsewhere) > FOLLOWED_MOST:
            self.elsewhere.popitem(last=False)

    async def _finished(self, key: tuple[str, int]) -> None:
        """The game's review is stored: its lease is never taken again."""
        self.held.discard(key)
        if self.claims is not None:
            try:
                await self.claims.done(key)
            except Exception as error:  # it lapses instead: the review is in the journal, a process finds it
                logger.warning("the review lease of game %d of table %s was not marked done (%s)", key[1], key[0],
                               type(error).__name__)

    def _let_go(self, keys: list[tuple[str, int]] | None) -> None:
        if keys is None:
            self.held.clear()
        else:
            self.held.difference_update(keys)
        if self.claims is None:
            return
        task = asyncio.create_task(self._release(keys), name="review leases let go")
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _release(self, keys: list[tuple[str, int]] | None) -> None:
        assert self.claims is not None
        try:
            await self.claims.release(self.holder, keys)
        except Exception as error:  # they lapse instead
            logger.warning("review leases were not let go (%s)", type(error).__name__)

    async def _keep_leases(self) -> None:
        """While this process holds leases: renew them, and finish the reviews of the games followed here
        that another process saw end (this one may not have: it reads the record from the store)."""
        assert self.claims is not None
        forgot = time.monotonic()
        while self.held and not self.tables.closed:
            await asyncio.sleep(CLAIM_RENEW)
            try:
                ended = await self.claims.renew(self.holder)
                if time.monotonic() - forgot > FORGET_EVERY:
                    forgot = time.monotonic()
                    await self.claims.forget()
            except Exception as error:
                logger.warning("the review leases were not renewed (%s)", type(error).__name__)
                continue
            for key in ended:
                if key in self.followed and key not in self.working and not self.tables.closed:
                    try:
                        row = await self.store.game(*key)
                    except Exception as error:  # looked for again at the next renewal
                        logger.warning("game %d of table %s was not read (%s)", key[1], key[0], type(error).__name__)
                        continue
                    if row is not None and row.finished and key not in self.working:
                        self.working[key] = asyncio.create_task(self._make(key[0], key[1], row.record, 0.0),
                                                                name=f"review {key}")

    async def _wait_elsewhere(self, key: tuple[str, int]) -> bool:
        """The game is over: whether this process makes its review. Another process that holds its lease
        is told so in the lease's row and makes it; if that lease lapses (its process died), this one
        takes it. False: the review is stored (by another process)."""
        wait = CLAIM_WAIT
        while True:
            got = await self._claim(key, ended=True)
            if got != "elsewhere":
                return got == "ours"
            await asyncio.sleep(wait)
            wait = min(2 * wait, CLAIM_SECONDS_MOST)

    async def _follow(self, table: Table, key: tuple[str, int], followed: Followed) -> None:
        try:
            if not followed.claimed:
                if await self._claim(key) != "ours":  # another process follows it (or has reviewed it)
                    if self.followed.get(key) is followed:
                        del self.followed[key]
                    self._elsewhere(key)
                    return
                followed.claimed = True
            while not self.tables.closed and self.pool.prepared() and table.recorder is not None \
                    and table.game == key[1] and self.followed.get(key) is followed:
                followed.again = False
                if not await self._step(table.recorder.record.to_json(), key, followed, low=not followed.urgent) \
                        and not followed.again:
                    break
        except (BotTimeout, PoolClosed) as error:
            logger.info("the review of game %d of table %s as played stopped: %s", key[1], key[0],
                        type(error).__name__)
        except Exception:
            logger.exception("the review of game %d of table %s as played failed", key[1], key[0])
            self.followed.pop(key, None)
        finally:
            followed.task = None

    async def _step(self, record: dict[str, Any], key: tuple[str, int], followed: Followed, *, low: bool) -> bool:
        """One step of ``followed`` on ``record``; whether decisions of complete turns are left. A step whose
        worker was stopped for another job's sake (a bot or an upload past its time limit) is made once
        more on the new workers: nothing of the review so far is lost (it is kept here, not there)."""
        arguments = (record, followed.done, followed.models, self.samples, DEFAULT_SEED, PART_COST, STEP_SECONDS)
        try:
            found, done, models, ended, spent = await self.pool.run(f"review:{key[0]}", review_step, *arguments,
                                                                    low=low, limit=JOB_LIMIT)
        except BrokenProcessPool:
            found, done, models, ended, spent = await self.pool.run(f"review:{key[0]}", review_step, *arguments,
                                                                    low=low, limit=JOB_LIMIT)
        if found:
            self.seconds_a_decision = 0.8 * self.seconds_a_decision + 0.2 * spent / len(found)
        followed.decisions += found
        followed.done, followed.models, followed.ended = done, models, ended
        return done < ended

    def seconds_left(self, table: Table, game: int) -> float:
        """About how many seconds until the review of ``game`` (over, not yet stored) is ready here: its
        decisions left, and those of the other games over whose rest is being made (they take turns for
        the workers: each as many as this one's at most), times a worker's recent seconds a decision (its
        wall clock: slower on a busy machine), shared by the workers."""
        followed = self.followed.get((table.id, game))
        players = len(table.recorder.record.players) if table.recorder is not None else 4
        # not followed here: a whole game (about 35 decisions a player); followed: the rest, and the last turn
        left = 35 * players if followed is None else followed.left
        ahead = sum(min(left, other.left) for other in self.followed.values() if other.urgent and other is not followed)
        return (left + ahead) * self.seconds_a_decision / max(1, self.pool.workers) + 0.5

    def want(self, table: Table, game: int | None = None, *, asked: bool = False) -> bool:
        """Start the review of ``game`` (default: the table's game, once over) unless it is stored or
        being made here (``asked``: somebody waits for it, no pause first); whether one is being made now."""
        game = table.game if game is None else game
        if game not in table.finished_games or game in table.reviews or self.tables.closed:
            return False
        key = (table.id, game)
        if key not in self.working:
            record = table.recorder.record.to_json() if game == table.game and table.recorder is not None else None
            pause = 0.0 if asked or key in self.followed else REVIEW_AFTER
            self.working[key] = asyncio.create_task(self._make(table.id, game, record, pause), name=f"review {key}")
        return True

    async def _make(self, table_id: str, game: int, record: dict[str, Any] | None, pause: float) -> None:
        key = (table_id, game)
        try:
            followed = self.followed.get(key)
            if followed is not None and record is not None:  # followed as played: only the rest is left
                followed.urgent = True  # a step under way ends first; no more at low priority
                if followed.task is not None:
                    await asyncio.wait([followed.task])
                if self.followed.get(key) is followed and self.pool.prepared():
                    before = followed.done
                    while await self._step(record, key, followed, low=False):
                        pass
                    logger.info("review of game %d of table %s: %d decisions made as it was played, %d after it",
                                game, table_id, before, followed.done - before)
                    data = to_store(finish(from_mapping(record), followed.decisions, samples=self.samples,
                                           seed=DEFAULT_SEED))
                    kept = await self._keep(table_id, game, data)
                    self.followed.pop(key, None)
                    if kept:
                        await self._finished(key)
                    return
                self.followed.pop(key, None)
            if not await self._wait_elsewhere(key):
                return  # another process made it
            await asyncio.sleep(pause)
            await self.pool.until_prepared()  # a first run: the kernels compile first, as for an upload
            async with self._slots:
                if record is None:
                    row = await self.store.game(table_id, game)
                    if row is None or not row.finished:
                        return
                    record = row.record
                parts = [await self.pool.run(f"review:{table_id}", review_part, record, player, wanted,
                                             self.samples, DEFAULT_SEED, limit=JOB_LIMIT)
                         for player, wanted in parts_of(record)]
                data = to_store(merge(from_mapping(record), parts))
            if await self._keep(table_id, game, data):
                await self._finished(key)
        except (BotTimeout, PoolClosed) as error:
            logger.warning("the review of game %d of table %s was not made: %s", game, table_id, type(error).__name__)
            self._drop(key)
        except Exception:
            logger.exception("the review of game %d of table %s failed", game, table_id)
            self._drop(key)
        finally:
            self.working.pop(key, None)
            if key in self.held and key not in self.followed:  # not made here after all: another process may
                self._let_go([key])

    async def _keep(self, table_id: str, game: int, data: dict[str, Any]) -> bool:
        """Store the review in the table's journal; whether it is stored (by this process or another)."""
        if self.tables.closed:
            return False
        table = await self.tables.get(table_id)
        if table is None:
            return False
        if game not in table.finished_games:  # another process wrote the end, and this copy has not seen it
            await self.tables.submit(table, CatchUp(Update(table_id, table.version, recheck=True)))
        self.storing.add((table_id, game))
        try:
            await self.tables.submit(table, ReviewDone(game, data))
        finally:
            self.storing.discard((table_id, game))
        return game in table.reviews

    async def stop(self) -> None:
        """Drop the reviews being made (none is half stored: one that is being stored ends first), and let
        go of their leases: another process makes them."""
        following = [f.task for f in self.followed.values() if f.task is not None]
        for key in list(self.followed):
            self._drop(key)
        if following:
            await asyncio.wait(following)
        tasks = list(self.working.values())
        for key, task in list(self.working.items()):
            if key not in self.storing:
                task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.wait([self._keeper])
        if self.held:
            self._let_go(None)
        if self._chores:
            await asyncio.wait(list(self._chores), timeout=5.0)
