"""Where bots and the coach think: worker processes, outside the event loop and every table's lock.

A strong bot (``expert``, ``montecarlo``) is CPU-bound Python: run in a thread of the server, it
would hold the GIL and slow every table's event loop. Here it runs in a
:class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` processes (default: the cores but
one, at least one). A decision is sent as the bot's name, its seed, its state after its last
decision (the pickled bot, ``None`` before its first) and the seat's :class:`~nimmt.core.View`
(a frozen value); the worker sends back the action and the bot's new state. The same bot with the
same seed and views makes the same decisions wherever it runs, so a seeded server still plays
repeatable games.

Bots that decide in microseconds (:data:`QUICK_BOTS`) decide in the event loop itself: sending
them to a worker would cost more than their thought, and they never wait behind a strong bot.

Workers run at a lower priority (niceness :data:`WORKER_NICENESS`): when the cores are busy,
the event loop (people's actions) comes first.

Fairness: decisions wait for a worker in turns, one key (a table) after another, so a table of
nine ``expert`` bots does not keep a person's lone bot waiting behind all nine. Jobs run with
``low=True`` (a game's review made as it is played) wait in a line of their own, in turns between
their keys too, and get a worker only when no other job waits for one: a bot's move always comes
first (it waits at most for the low job under way, a fraction of a second).

A decision has a bounded budget: a bot with a ``time_budget`` (the ``expert``) is held to at most
``budget`` seconds, and a worker that has not answered ``2 * budget + START_SECONDS`` seconds
after it was given the decision is stopped (every worker is restarted) and the decision is made
by the ``heuristic`` bot instead, so a table never hangs on a bot.

Nobody waits for a compile. The ``expert`` and the coach run compiled kernels (:mod:`nimmt.prepare`):
normally in Numba's cache already (``make setup`` prepares them), and then each worker loads them
when it starts. On a machine's first run they are not: one low-priority process compiles them
(``python -m nimmt.prepare``, minutes of CPU, kept for every later run; never stopped for being
slow, so the work is never lost), and until it is done the expert's move and the coach's answer
come at once from the quicker policy, marked quick (:attr:`Thought.quick`; :meth:`BotPool.ask`'s
``quick`` function): the heuristic's move, the coach's pure-Python estimate. Workers that are slow
to start are waited for at most :data:`START_SECONDS`; then the quick policy answers too. Each of
these is one line in the log, never a traceback.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from nimmt.bots import Bot, make_bot
from nimmt.bots.heuristic import HeuristicBot
from nimmt.core import ChooseRow, PlayCard, View
from nimmt.core.errors import NimmtError
from nimmt.prepare import COMPILED_BOTS, is_prepared

from .checker import stop_executor

logger = logging.getLogger("nimmt.server")

QUICK_BOTS = frozenset({"random", "beginner", "heuristic"})  # well under a millisecond a decision
READY_SECONDS = 180.0  # longest a job without a quick answer waits for new workers to start
START_SECONDS = 10.0  # room for a new worker to start and load the compiled kernels
WORKER_NICENESS = 10  # workers yield the cores to the server's event loop when both want them
T = TypeVar("T")


def default_workers() -> int:
    """The cores but one (the event loop's), at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


@dataclass
class SeatBot:
    """What a table keeps of the bot of one seat between its decisions."""

    name: str
    seed: float
    bot: Bot | None = None  # a quick bot, which lives in this process
    state: bytes | None = None  # a bot that thinks in a worker: pickled after its last decision


@dataclass(frozen=True, slots=True)
class Thought:
    """A bot's decision: the action, the bot's state after it, and how long it thought."""

    action: PlayCard | ChooseRow
    state: bytes | None
    seconds: float
    fallback: bool = False  # the bot did not answer in time: the heuristic decided
    quick: bool = False  # the bot could not think yet (kernels or workers not ready): the heuristic decided at once


class BotTimeout(NimmtError):
    """A worker did not answer in time (it was stopped)."""


class PoolClosed(Exception):
    """The server is stopping: no more decisions."""


def _worker_start(server: int) -> None:
    """In each worker: a lower priority (a person's action comes first when the cores are busy),
    Ctrl+C is the server's to handle, and the compiled kernels are loaded once if they are prepared
    (never compiled here: a worker is ready in seconds)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(server,), daemon=True).start()
    with contextlib.suppress(Exception):  # not loaded now, they load on first use
        if is_prepared():
            from nimmt.prepare import prepare

            prepare()


def _exit_with_parent(parent: int) -> None:
    """A worker whose server died (kill -9: nobody closed the pool) ends within a second, never an orphan.
    (The server's pid is given, not read here: the server may have died while this worker started.)"""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _nothing() -> None:
    """A job that starts a worker."""


def think(name: str, seed: float, state: bytes | None, seen: View, budget: float) -> tuple[Any, bytes, float]:
    """One decision of a bot (run in a worker): its action, its new state, the seconds it took."""
    start = time.perf_counter()
    bot: Bot = pickle.loads(state) if state is not None else make_bot(name, random.Random(seed))
    own = getattr(bot, "time_budget", None)
    if isinstance(own, int | float) and own > budget:
        bot.time_budget = budget  # type: ignore[attr-defined]  # the expert's budget, capped
    action = bot.act(seen)
    return action, pickle.dumps(bot), time.perf_counter() - start


def _warm_quick_bots() -> None:
    """Load what the quick bots decide with (the batch engine and the heuristic's kernels, compiled
    ones once prepared: about a second), in a thread when the server starts, not in the event loop
    at a table's first bot move."""
    from nimmt.core import Deal, apply, new_game, view

    hands = (tuple(range(11, 21)), tuple(range(21, 31)))
    with contextlib.suppress(Exception):
        HeuristicBot(random.Random(0)).act(view(apply(new_game(2), Deal((1, 2, 3, 4), hands)).state, 0))


def fallback_action(seat_bot: SeatBot, seen: View) -> PlayCard | ChooseRow:
    """The heuristic's decision, for a bot that did not answer in time (seeded by the decision)."""
    rng = random.Random(f"{seat_bot.seed}:{seen.round}:{seen.turn}:{seen.resolved}")
    return HeuristicBot(rng).act(seen)


class BotPool:
    """The worker processes, started when the first strong bot or coach question needs them."""

    def __init__(
        self,
        workers: int | None = None,
        *,
        budget: float = 2.0,
        observe: Callable[[str, float], None] | None = None,
    ) -> None:
        self.workers = max(1, workers if workers is not None else default_workers())
        self.budget = budget
        self.observe = observe or (lambda _name, _seconds: None)  # bot name, seconds it thought
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._free = self.workers  # workers not given a job by this pool
        self._queues: dict[str, deque[asyncio.Future[None]]] = {}  # key -> its jobs waiting, in turn order
        self._low: dict[str, deque[asyncio.Future[None]]] = {}  # the same for the jobs of low priority
        self._closed = False
        self._starting: list[concurrent.futures.Future[None]] = []
        self._started_at = 0.0
        self._said_slow = False  # the log said that the workers are slow to start (once per start)
        self._prepared = False  # the compiled kernels are in the cache (looked at on first need)
        self._warming = False  # the quick bots' kernels are being loaded, or were
        self._preparing: asyncio.Task[None] | None = None  # the process that compiles them, while it runs
        self._preparer: asyncio.subprocess.Process | None = None

    @property
    def timeout(self) -> float:
        return 2 * self.budget + START_SECONDS

    # -- taking turns for a worker -------------------------------------------------------------
    async def _acquire(self, key: str, low: bool = False) -> None:
        if self._closed:
            raise PoolClosed
        if self._free > 0 and not self._queues and not (low and self._low):
            self._free -= 1
            return
        lines = self._low if low else self._queues
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        lines.setdefault(key, deque()).append(waiter)
        try:
            await waiter
        except BaseException:  # cancelled, or the pool closed
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._release()  # the worker was ours already: pass it on
            else:
                queue = lines.get(key)
                if queue is not None and waiter in queue:
                    queue.remove(waiter)
                    if not queue:
                        del lines[key]
            raise

    @property
    def waiting(self) -> tuple[int, int]:
        """Jobs waiting for a worker: (of normal priority, of low priority)."""
        return sum(map(len, self._queues.values())), sum(map(len, self._low.values()))

    def _release(self) -> None:
        """Give the worker to the next key in turn (each key goes to the end of the line once served):
        the normal line first, then the low one."""
        for lines in (self._queues, self._low):
            while lines:
                key = next(iter(lines))
                queue = lines.pop(key)
                waiter = queue.popleft()
                if queue:
                    lines[key] = queue
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self._free += 1

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a fresh interpreter, never a fork of a process with threads and open sockets
            self._executor = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start,
                initargs=(os.getpid(),))
            # Start them all now, while this decision waits; the first jobs wait until they are ready.
            self._starting = [self._executor.submit(_nothing) for _ in range(self.workers)]
            self._started_at = time.monotonic()
            self._said_slow = False
        return self._executor

    def start(self) -> None:
        """Get ready now, in the background (the server's start): the workers start, and on a first run the
        kernels are compiled, so that the first decision finds everything ready."""
        if not self._closed:
            self._pool()
            self.prepared()

    @property
    def ready(self) -> bool:
        """Whether every worker has started."""
        return self._executor is not None and all(future.done() for future in self._starting)

    # -- the compiled kernels ------------------------------------------------------------------
    def prepared(self) -> bool:
        """Whether the compiled kernels are ready; if not, they are being prepared, in one process of low
        priority started here (the first time it is asked, and again if it failed)."""
        if self._prepared:
            return True
        if not self._warming:
            self._warming = True
            threading.Thread(target=_warm_quick_bots, daemon=True, name="nimmt-warm-bots").start()
        if is_prepared():
            self._prepared = True
            return True
        if self._preparing is None and not self._closed:
            logger.warning("the bots' compiled kernels are not prepared (a first run): they are compiled in the "
                           "background; the expert and the coach answer quick until then")
            self._preparing = asyncio.get_running_loop().create_task(self._prepare())
        return False

    async def until_prepared(self, every: float = 1.0) -> None:
        """Wait until the compiled kernels are prepared (:meth:`prepared` starts the compile): for jobs
        that run them and have no quick answer (reviews), which must never compile inside a job (a
        cold compile takes minutes: past the pool's time limit). :class:`PoolClosed` if the pool closes."""
        while not self.prepared():
            if self._closed:
                raise PoolClosed
            await asyncio.sleep(every)

    async def _prepare(self) -> None:
        start = time.monotonic()
        code: int | None = None
        err = b""
        try:
            self._preparer = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "nimmt.prepare", "--nice", str(WORKER_NICENESS), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _out, err = await self._preparer.communicate()
            code = self._preparer.returncode
        except OSError as error:
            err = str(error).encode()
        finally:  # cancelled too (the server stops): the compile stops, what it kept so far stays kept
            if self._preparer is not None and self._preparer.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self._preparer.kill()
                # Reaped here, in the loop: a transport left to the collector after the loop closed
                # broke the interpreter's shutdown (the test session ended in a SystemError).
                await self._preparer.wait()
            self._preparer = None
            self._preparing = None
        if code == 0:
            self._prepared = True
            logger.info("the bots' compiled kernels are prepared (%.0f s)", time.monotonic() - start)
        elif not self._closed:  # tried again on the next need
            last = err.decode(errors="replace").strip().splitlines()[-1:] or [f"exit status {code}"]
            logger.warning("preparing the bots' compiled kernels failed: %s", last[0])

    # -- the workers -----------------------------------------------------------------------------
    async def _get_ready(self, compiled: bool) -> bool:
        """Whether a job can go to a worker now: for a job that runs compiled kernels (``compiled``), only
        once they are prepared; and once the workers have started, waited for at most
        :data:`START_SECONDS`. A worker that died while starting stops them all (the next need starts
        new ones). Every "no" is the caller's cue to answer quick."""
        if self._closed:
            raise PoolClosed
        executor = self._pool()  # started in any case: they load the kernels once prepared
        if compiled and not self.prepared():
            return False
        until = self._started_at + START_SECONDS
        while not self.ready:
            if time.monotonic() >= until:
                if not self._said_slow:
                    self._said_slow = True
                    logger.warning("the bot workers are slow to start (over %.0f s): quick answers until they are "
                                   "ready", START_SECONDS)
                return False
            await asyncio.sleep(0.05)
        failed = [f for f in self._starting if not f.cancelled() and f.exception() is not None]
        if failed:
            logger.warning("a bot worker stopped while starting (%s): the workers are started again",
                           type(failed[0].exception()).__name__)
            if self._executor is executor:
                await asyncio.to_thread(self._stop_workers)
            return False
        return True

    async def _ready(self, executor: concurrent.futures.ProcessPoolExecutor) -> None:
        """Wait (at most :data:`READY_SECONDS`) until the workers have started: a job's time limit counts
        from then. :class:`BotTimeout` after that (the workers go on starting)."""
        waited = time.monotonic()
        while not self.ready:
            if self._executor is not executor:
                raise BrokenProcessPool("the workers were stopped while starting")
            if time.monotonic() - waited > READY_SECONDS:
                logger.warning("the bot workers did not start in %.0f s: a job is given up", READY_SECONDS)
                raise BotTimeout
            await asyncio.sleep(0.05)
        if any(not f.cancelled() and f.exception() is not None for f in self._starting):
            raise BrokenProcessPool("a worker stopped while starting")

    def _stop_workers(self) -> None:
        """Stop every worker at once (a worker is stuck, or the server stops); the next job starts new ones."""
        executor, self._executor = self._executor, None
        if executor is not None:
            stop_executor(executor)

    async def run(self, key: str, function: Callable[..., T], *args: Any, low: bool = False,
                  limit: float | None = None) -> T:
        """``function(*args)`` in a worker, when ``key``'s turn comes (``low``: after every job of normal
        priority). :class:`BotTimeout` if the worker does not answer within ``limit`` seconds (default
        :attr:`timeout`; every worker is then restarted)."""
        limit = self.timeout if limit is None else limit
        await self._acquire(key, low)
        try:
            executor = self._pool()
            await self._ready(executor)
            future = asyncio.get_running_loop().run_in_executor(executor, function, *args)
            try:
                return await asyncio.wait_for(future, limit)
            except TimeoutError:
                logger.warning("a worker did not answer in %.0f s (%s): the workers are restarted",
                               limit, getattr(function, "__name__", "job"))
                if self._executor is executor:
                    await asyncio.to_thread(self._stop_workers)
                raise BotTimeout from None
            except BrokenProcessPool:
                logger.warning("a worker stopped unexpectedly: the workers are restarted")
                if self._executor is executor:
                    await asyncio.to_thread(self._stop_workers)
                raise
        finally:
            self._release()

    async def ask(self, key: str, function: Callable[..., T], quick: Callable[..., T], *args: Any) -> tuple[T, bool]:
        """``function(*args)`` (which runs the compiled kernels: the coach) in a worker, as :meth:`run`; while
        the kernels or the workers are not ready, ``quick(*args)`` in a thread of this process instead, at
        once. The answer, and whether it is the quick one."""
        if not await self._get_ready(compiled=True):
            return await asyncio.to_thread(quick, *args), True
        return await self.run(key, function, *args), False

    # -- bots ----------------------------------------------------------------------------------
    async def decide(self, key: str, seat_bot: SeatBot, seen: View) -> Thought:
        """The bot's decision on ``seen`` (which awaits it). The caller stores ``state`` in ``seat_bot`` if
        it uses the action; a quick bot lives in ``seat_bot.bot`` and decides here at once, and so does the
        heuristic for a strong bot that cannot think yet (``quick``: see the module)."""
        start = time.perf_counter()
        if seat_bot.name in QUICK_BOTS:
            if seat_bot.bot is None or seat_bot.bot.name != seat_bot.name:
                seat_bot.bot = make_bot(seat_bot.name, random.Random(seat_bot.seed))
            action = seat_bot.bot.act(seen)
            seconds = time.perf_counter() - start
            self.observe(seat_bot.name, seconds)
            return Thought(action, None, seconds)
        if not await self._get_ready(compiled=seat_bot.name in COMPILED_BOTS):
            return self._instead(seat_bot, seen, start, quick=True)
        try:
            try:
                action, state, seconds = await self.run(key, think, seat_bot.name, seat_bot.seed, seat_bot.state,
                                                        seen, self.budget)
            except BrokenProcessPool:  # its worker was stopped for another's sake: once more, on new workers
                action, state, seconds = await self.run(key, think, seat_bot.name, seat_bot.seed, seat_bot.state,
                                                        seen, self.budget)
        except (BotTimeout, BrokenProcessPool):
            if self._closed:
                raise PoolClosed from None
            logger.warning("bot %s on %s did not answer: the heuristic decides for it", seat_bot.name, key)
            return self._instead(seat_bot, seen, start)
        self.observe(seat_bot.name, seconds)
        return Thought(action, state, seconds)

    def _instead(self, seat_bot: SeatBot, seen: View, start: float, *, quick: bool = False) -> Thought:
        """The heuristic's decision for a strong bot that cannot think now (its state is kept as it was)."""
        action = fallback_action(seat_bot, seen)
        seconds = time.perf_counter() - start
        self.observe(seat_bot.name, seconds)
        return Thought(action, seat_bot.state, seconds, fallback=True, quick=quick)

    async def close(self) -> None:
        """Stop the workers (what they were thinking is dropped: nothing of it was stored) and a compile
        under way (what it compiled so far is kept in the cache)."""
        self._closed = True
        for lines in (self._queues, self._low):
            for queue in lines.values():
                for waiter in queue:
                    if not waiter.done():
                        waiter.set_exception(PoolClosed())
            lines.clear()
        preparing = self._preparing
        if preparing is not None:
            preparing.cancel()
            await asyncio.gather(preparing, return_exceptions=True)
        await asyncio.to_thread(self._stop_workers)
