"""A real ``nimmt serve`` process on a free loopback port, for the restart and browser tests."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx

from nimmt.cli.serve import ready_url


class LiveServer:
    def __init__(self, db: Path | str, *, bot_delay: float = 0.0, seed: int | None = None, away_grace: float = 0.0,
                 args: Sequence[str] = ()) -> None:
        self.db = db  # a SQLite file, or a database URL (postgresql+asyncpg://...)
        self.args = tuple(args)  # more options of nimmt serve (its limits, say)
        self.bot_delay = bot_delay
        self.away_grace = away_grace  # tests: no wait before an absent seat may go to a bot, unless asked
        self.seed = seed
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.output: list[str] = []  # what the server printed after it started

    def start(self) -> LiveServer:
        if self.process is not None and self.process.poll() is None:
            return self  # already running: never start a second one
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "nimmt", "serve", "--port", "0", "--db", str(self.db),
             "--bot-delay", str(self.bot_delay), "--away-grace", str(self.away_grace),
             *(["--seed", str(self.seed)] if self.seed is not None else []), *self.args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + 90  # a loaded machine may take long to import and bind
        self.url = ready_url(self.process.stdout, deadline)
        if not self.url:
            self.stop()
            raise AssertionError("nimmt serve did not say where it listens")
        # Keep reading what the server prints, so a full pipe can never stall it.
        threading.Thread(target=self._drain, args=(self.process.stdout,), daemon=True).start()
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/bots", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError("nimmt serve did not answer")

    def _drain(self, stream: IO[str]) -> None:
        with contextlib.suppress(ValueError, OSError):
            for line in stream:
                self.output.append(line)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def kill(self) -> None:
        """Stop the process at once, as a crash or a pulled plug would."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
