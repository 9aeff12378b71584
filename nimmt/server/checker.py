"""Records uploaded to ``/api/replay``, checked and cut into turns outside the event loop.

Checking a record replays it through the rules core: a 2 MB record (some 1,600 rounds) took 20 to
60 s of CPU, during which, on the event loop, every table and ``/healthz`` waited. Here it runs in
a worker process of its own (spawned when first needed, at a lower priority, ending with the
server), within a budget:

- at most :data:`CHECK_SECONDS` of the worker's time: past it the worker is stopped (a new one is
  started for the next upload) and the upload is refused with ``413 too_large``;
- an answer of at most :data:`ANSWER_BYTES` (the turns of a long game weigh ten times the record),
  encoded in the worker, so that the event loop only passes bytes on;
- at most :data:`WAITING` uploads checked or waiting at once in the process, past which one is
  refused at once with ``503 busy`` (and ``Retry-After``); each address may also post only so many
  a minute (``--limit-replays``, :mod:`nimmt.server.limits`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nimmt.core.errors import NimmtError

if TYPE_CHECKING:
    from nimmt.records import GameRecord

CHECK_SECONDS = 10.0
ANSWER_BYTES = 16 * 1024 * 1024
WAITING = 4
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


class RecordChecker:
    """The worker, its budget and its queue (see the module)."""

    def __init__(self, seconds: float = CHECK_SECONDS, most: int = ANSWER_BYTES, waiting: int = WAITING) -> None:
        self.seconds = seconds
        self.most = most
        self.waiting = waiting
        self._busy = 0
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._turn = asyncio.Lock()  # one record at a time in the one worker

    async def turns(self, body: bytes) -> bytes:
        """The record's turns as JSON bytes, or :class:`CheckRefused`."""
        code, answer = await self.run(check, body, self.most)
        if code == "ok":
            assert isinstance(answer, bytes)
            return answer
        raise CheckRefused(413 if code == "too_large" else 422, code, str(answer))

    async def run(self, function: Callable[..., tuple[str, Any]], *args: Any) -> tuple[str, Any]:
        """``function(*args)`` in the worker, within the budget: its ``(code, answer)``; a record past
        the time budget is ``413 too_large``, a full queue ``503 busy`` (:class:`CheckRefused`)."""
        if self._busy >= self.waiting:
            raise CheckRefused(503, "busy", "records are being checked: try again in a few seconds", retry_after=5)
        self._busy += 1
        try:
            async with self._turn:
                executor = self._pool()
                future = asyncio.get_running_loop().run_in_executor(executor, function, *args)
                try:
                    return await asyncio.wait_for(future, self.seconds)
                except (TimeoutError, concurrent.futures.BrokenExecutor):
                    await asyncio.to_thread(self._stop)
                    raise CheckRefused(413, "too_large", f"this record takes more than {self.seconds:g} s to check: "
                                       "check it with nimmt replay", seconds=self.seconds) from None
        finally:
            self._busy -= 1

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._executor is None:
            # spawn: a fresh interpreter, never a fork of a process with threads and open sockets
            self._executor = concurrent.futures.ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_start,
                initargs=(os.getpid(),))
        return self._executor

    def _stop(self) -> None:
        """Stop the worker (stuck past its budget, or the server stops); the next upload starts one."""
        executor, self._executor = self._executor, None
        if executor is not None:
            stop_executor(executor)

    async def close(self) -> None:
        await asyncio.to_thread(self._stop)


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
