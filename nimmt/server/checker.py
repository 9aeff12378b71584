"""Records uploaded to ``/api/replay``, checked and cut into turns outside the event loop.

Checking a record replays it through the rules core: a 2 MB record (some 1,600 rounds) took 20 to
60 s of CPU, during which, on the event loop, every table and ``/healthz`` waited. Here it runs in
a worker process (spawned when first needed, at a lower priority, ending with the server), within
a budget, and its time is shared fairly:

- at most :data:`CHECK_SECONDS` of the worker's time: past it the worker is stopped (a new one is
  started for the next upload) and the upload is refused with ``413 too_large``;
- an answer of at most :data:`ANSWER_BYTES` (the turns of a long game weigh ten times the record),
  encoded in the worker, so that the event loop only passes bytes on;
- two lanes, each with a worker of its own: records of at most :data:`SMALL_BYTES` (every game
  people play; checked in milliseconds) and bigger ones, so that a small record never waits
  behind a big one;
- in each lane the addresses take turns (the one served longest ago goes next), each address with
  at most :data:`PER_ADDRESS` records checked or waiting there (its next one: ``503 busy`` with
  ``Retry-After``), and at most :data:`WAITING` in the lane from everyone: one address's big
  uploads never make another's wait for more than the one being checked, nor fail. Each address
  may also post only so many a minute (``--limit-replays``, :mod:`nimmt.server.limits`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nimmt.core.errors import NimmtError

if TYPE_CHECKING:
    from nimmt.records import GameRecord

CHECK_SECONDS = 10.0
ANSWER_BYTES = 16 * 1024 * 1024
SMALL_BYTES = 128 * 1024  # a record this size or less goes in the small lane (a long game is some 40 KB)
PER_ADDRESS = 2  # records of one address checked or waiting in one lane
WAITING = 16  # records checked or waiting in one lane, from every address
NICENESS = 10


class CheckRefused(NimmtError):
    """An upload this server will not check: ``status``, ``code`` and the English ``str()``."""

    def __init__(self, status: int, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.params = params


def _worker_start(server: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICENESS)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_server, args=(server,), daemon=True).start()


def _exit_with_server(server: int) -> None:
    """Never an orphan: the worker ends within a second of its server (kill -9 included)."""
    import time

    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


def check(body: bytes, most: int) -> tuple[str, bytes | str]:
    """In the worker: ``("ok", the turns as JSON)`` or ``(code, why)``; never raises for a bad record."""
    from nimmt.records import RecordError, loads

    try:
        record = loads(body)
    except RecordError as error:
        return "bad_record", str(error)
    return turns_of(record, most)


def turns_of(record: GameRecord, most: int) -> tuple[str, bytes | str]:
    """In the worker: a record read, replayed (checked) and cut into turns, as :func:`check` answers."""
    import orjson

    from nimmt.records import RecordError

    from .replay import frames

    try:
        turns = frames(record)
    except RecordError as error:
        return "bad_record", str(error)
    try:
        answer = orjson.dumps(turns)
    except TypeError:  # a name spelled with a lone surrogate, a number past 64 bits: no answer holds it
        return "bad_record", "the record holds text that is not valid Unicode or a number past 64 bits"
    if len(answer) > most:
        return "too_large", f"this record's turns would take more than {most} bytes: check it with nimmt replay"
    return "ok", answer


class _Lane:
    """One worker and its queue, shared between addresses in turns (see the module)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.held: dict[str, int] = {}  # records checked or waiting, per address (only those above 0)
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._served: dict[str, int] = {}  # when each address last had a turn (a count)
        self._turns = 0
        self._busy = False
        self.executor: concurrent.futures.ProcessPoolExecutor | None = None

    def room(self, who: str, per_address: int, waiting: int) -> bool:
        return self.held.get(who, 0) < per_address and sum(self.held.values()) < waiting

    async def turn(self, who: str) -> None:
        """Wait for this address's turn at the worker."""
        if not self._busy:
            self._busy = True
            self._had_turn(who)
            return
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(who, deque()).append(ready)
        try:
            await ready
        except asyncio.CancelledError:
            if ready.done() and not ready.cancelled():
                self.done()  # the turn came as the caller left: the next one takes it
            else:
                queue = self._waiting.get(who)
                if queue is not None and ready in queue:
                    queue.remove(ready)
                    if not queue:
                        del self._waiting[who]
            raise

    def done(self) -> None:
        """The record at the worker is done: the waiting address served longest ago goes next."""
        while self._waiting:
            who = min(self._waiting, key=lambda address: self._served.get(address, -1))
            queue = self._waiting[who]
            ready = queue.popleft()
            if not queue:
                del self._waiting[who]
            if not ready.done():
                self._had_turn(who)
                ready.set_result(None)
                return
        self._busy = False

    def _had_turn(self, who: str) -> None:
        self._turns += 1
        self._served[who] = self._turns

    def enter(self, who: str) -> None:
        self.held[who] = self.held.get(who, 0) + 1

    def leave(self, who: str) -> None:
        count = self.held.get(who, 0) - 1
        if count > 0:
            self.held[who] = count
        else:
            self.held.pop(who, None)
            if who not in self._waiting:
                self._served.pop(who, None)  # nothing of it left: memory stays bounded

    def pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self.executor is None:
            # spawn: a fresh interpreter, never a fork of a process with threads and open sockets
            self.executor = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start,
                initargs=(os.getpid(),))
        return self.executor

    def stop(self) -> None:
        """Stop the worker (stuck past its budget, or the server stops); the next record starts one."""
        executor, self.executor = self.executor, None
        if executor is not None:
            stop_executor(executor)


class RecordChecker:
    """The two lanes, their workers, budget and queues (see the module)."""

    def __init__(self, seconds: float = CHECK_SECONDS, most: int = ANSWER_BYTES, waiting: int = WAITING,
                 per_address: int = PER_ADDRESS, small: int = SMALL_BYTES) -> None:
        self.seconds = seconds
        self.most = most
        self.waiting = waiting
        self.per_address = per_address
        self.small = small
        self.lanes = (_Lane("small"), _Lane("large"))

    async def turns(self, body: bytes, who: str = "") -> bytes:
        """The record's turns as JSON bytes, or :class:`CheckRefused`; ``who``: the address it came from."""
        code, answer = await self.checked(check, body, self.most, who=who, size=len(body))
        if code == "ok":
            assert isinstance(answer, bytes)
            return answer
        raise CheckRefused(413 if code == "too_large" else 422, code, str(answer))

    async def run(self, function: Callable[..., tuple[str, Any]], *args: Any) -> tuple[str, Any]:
        """``function(*args)`` in the small lane's worker, by nobody in particular (:meth:`checked`)."""
        return await self.checked(function, *args)

    async def checked(self, function: Callable[..., tuple[str, Any]], *args: Any, who: str = "",
                      size: int = 0) -> tuple[str, Any]:
        """``function(*args)`` for ``who`` (an address) in the lane of a record of ``size`` bytes, in
        its turn and within the budget: its ``(code, answer)``; a record past the time budget is
        ``413 too_large``, no room for the address or in the lane ``503 busy`` (:class:`CheckRefused`)."""
        lane = self.lanes[0] if size <= self.small else self.lanes[1]
        if not lane.room(who, self.per_address, self.waiting):
            raise CheckRefused(503, "busy", "records are being checked: try again in a few seconds", retry_after=5)
        lane.enter(who)
        try:
            await lane.turn(who)
            try:
                future = asyncio.get_running_loop().run_in_executor(lane.pool(), function, *args)
                try:
                    return await asyncio.wait_for(future, self.seconds)
                except (TimeoutError, concurrent.futures.BrokenExecutor):
                    await asyncio.to_thread(lane.stop)
                    raise CheckRefused(413, "too_large", f"this record takes more than {self.seconds:g} s to check: "
                                       "check it with nimmt replay", seconds=self.seconds) from None
            finally:
                lane.done()
        finally:
            lane.leave(who)

    async def close(self) -> None:
        for lane in self.lanes:
            await asyncio.to_thread(lane.stop)


def stop_executor(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a process pool's workers at once, even one stuck in a job (shutdown alone would wait for
    it): asked to end, then killed if still there 5 s later. The bots' pool stops its workers with it too."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
