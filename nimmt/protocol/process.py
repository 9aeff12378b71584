"""A seat played by another program that speaks JSON lines on its stdin and stdout (``nimmt-bot/1``).

nimmt writes one JSON object per line to the program and reads one line back per question. The
program may be written in any language; ``docs/protocol-bots.md`` is the full description. A program
that crashes, does not answer in time or answers anything but a legal action never yields a move:
:class:`BotFailure` is raised instead, naming the bot, its seat and what went wrong, with the last
lines the program wrote to stderr.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import selectors
import shlex
import signal
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from enum import StrEnum
from types import TracebackType
from typing import IO, Any, NamedTuple

from nimmt.bots.base import Bot
from nimmt.core import ChooseRow, NimmtError, PlayCard, View

from .encoding import VIEW_FORMAT, ProtocolError, action_from_json, view_to_json
from .reasons import REASONS, detail_text, doing_text, facts_of

PROTOCOL = "nimmt-bot/1"
DEFAULT_TIMEOUT = 5.0  # seconds for each decision, round trip included
DEFAULT_START_TIMEOUT = 10.0  # seconds to start and answer the hello (interpreters can be slow to load)
MAX_LINE_BYTES = 1 << 20  # an answer is a few bytes; a megabyte is nonsense
STDERR_LINES = 40  # kept for error messages
STDERR_SHOWN = 8
CLOSE_GRACE = 1.0  # seconds a program gets to exit after "bye" before it is killed


class FailureKind(StrEnum):
    CANNOT_START = "cannot_start"  # the command does not exist or cannot be run
    CRASHED = "crashed"  # the program exited or closed its output
    TIMEOUT = "timeout"  # no answer within the time limit
    INVALID_JSON = "invalid_json"  # a line that is not JSON
    TOO_LONG = "too_long"  # a line longer than MAX_LINE_BYTES
    BAD_ANSWER = "bad_answer"  # JSON, but not the documented shape (or extra lines)
    WRONG_KIND = "wrong_kind"  # a card when a row was asked, or the other way round
    ILLEGAL_ACTION = "illegal_action"  # a card not in the hand, a row that does not exist


class BotFailure(NimmtError):
    """An external bot failed; the game cannot go on with it. ``str()`` is a message for people.

    ``detail`` and ``doing`` are English; ``reason`` with ``facts`` and ``doing_key`` with ``doing_facts``
    say the same in keys, for a message in another language (see :mod:`nimmt.protocol.reasons`). The
    reason is None only for a detail that has no key (nimmt's own mistake, such as asking a spectator).
    """

    def __init__(
        self,
        bot: str,
        seat: int | None,
        kind: FailureKind,
        detail: str,
        *,
        doing: str,
        reason: str | None,
        facts: Mapping[str, str] | None = None,
        doing_key: str | None = None,
        doing_facts: Mapping[str, str] | None = None,
        exit_code: int | None = None,
        stderr: Sequence[str] = (),
    ) -> None:
        self.bot = bot
        self.seat = seat
        self.kind = kind
        self.detail = detail
        self.doing = doing
        self.reason = reason
        self.facts: Mapping[str, str] = dict(facts or {})
        self.doing_key = doing_key
        self.doing_facts: Mapping[str, str] = dict(doing_facts or {})
        self.exit_code = exit_code
        self.stderr = tuple(stderr)
        where = f"bot {bot!r}" + (f" at seat {seat}" if seat is not None else "")
        message = f"{where} {detail} while {doing}"
        shown = self.stderr[-STDERR_SHOWN:]
        if shown:
            message += "; its last error output:\n  " + "\n  ".join(shown)
        super().__init__(message)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the program and anything it started (it runs in its own process group)."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=2.0)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


class _Doing(NamedTuple):
    """What the program was asked to do: a key of :data:`~nimmt.protocol.reasons.DOINGS` and its facts."""

    key: str
    facts: Mapping[str, str]

    @property
    def text(self) -> str:
        return doing_text(self.key, self.facts)


def _doing(key: str, **facts: object) -> _Doing:
    return _Doing(key, facts_of(facts))


_STARTING = _doing("start")
_HELLO = _doing("hello")


def _exit_reason(code: int | None) -> tuple[str, dict[str, object]]:
    """The reason a program stopped answering, with its facts, from its exit code (None: still running)."""
    if code is None:
        return "closed_output", {}
    if code < 0:
        try:
            return "signal", {"signal": signal.Signals(-code).name}
        except ValueError:
            return "signal", {"signal": -code}
    return "exit_code", {"code": code}


class ProcessBot(Bot):
    """A bot that is another program. Start it with a command line (a list, or a string split like a shell).

    The program starts at the first decision (or at :meth:`start`) and stops at :meth:`close`; use
    ``with ProcessBot(...) as bot:`` so that it never outlives the game. It is also killed when the
    object is garbage-collected or Python exits.
    """

    name = "cmd"
    description = "Another program playing through the nimmt-bot/1 JSON-lines protocol on stdin/stdout."

    def __init__(
        self,
        command: Sequence[str] | str,
        rng: random.Random | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        label: str | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
        seat: int | None = None,
    ) -> None:
        super().__init__(rng)
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as error:  # an unclosed quote
            raise ProtocolError(f"cannot read the bot's command line {command!r}: {error}") from None
        if not argv:
            raise ProtocolError("a bot program needs a command line, and this one is empty")
        if timeout <= 0 or start_timeout <= 0:
            raise ProtocolError("time limits must be above 0 seconds")
        self.command: tuple[str, ...] = tuple(argv)
        self.label = label or shlex.join(argv)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.max_line_bytes = max_line_bytes
        self.reported_name: str | None = None  # the name the program gave in its "ready" answer
        self.answer_times: list[float] = []  # seconds per decision, for bot-check and tournaments
        self._cwd = cwd
        self._env = dict(env) if env is not None else None
        self._process: subprocess.Popen[bytes] | None = None
        self._selector: selectors.BaseSelector | None = None
        self._buffer = bytearray()
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        self._stderr_lock = threading.Lock()  # the reader thread appends while we may be copying
        self._stderr_thread: threading.Thread | None = None
        self._failure: BotFailure | None = None
        self._closed = False
        self._seat = seat  # for messages before the first decision; each view then says it

    # -- life cycle -------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def stderr_lines(self) -> tuple[str, ...]:
        """The last lines the program wrote to its stderr."""
        with self._stderr_lock:
            return tuple(self._stderr)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the program and exchange hello/ready; raise :class:`BotFailure` if it cannot."""
        if self._failure is not None:
            raise self._failure
        if self._closed:
            raise self._fail("was_closed", _STARTING)
        if self._process is not None:
            return
        try:
            process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._cwd,
                env=self._env,
                start_new_session=True,  # its own process group, so a kill reaches its children too
            )
        except OSError as error:
            raise self._fail("cannot_start", _STARTING, reason=error.strerror or str(error)) from None
        self._process = process
        weakref.finalize(self, _kill, process)
        assert process.stdout is not None and process.stderr is not None
        os.set_blocking(process.stdout.fileno(), False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(process.stdout, selectors.EVENT_READ)
        # The thread must not hold the bot itself, or a forgotten bot could never be collected and killed.
        self._stderr_thread = threading.Thread(
            target=_drain_stderr,
            args=(process.stderr, self._stderr, self._stderr_lock),
            name=f"stderr of {self.label}",
            daemon=True,
        )
        self._stderr_thread.start()
        hello = {
            "type": "hello",
            "protocol": PROTOCOL,
            "view_format": VIEW_FORMAT,
            "seed": self.rng.randrange(2**31),
            "time_limit": self.timeout,
        }
        answer = self._exchange(hello, self.start_timeout, doing=_HELLO)
        if not isinstance(answer, dict) or answer.get("type") != "ready":
            raise self._fail("bad_hello", _HELLO, answer=_short(answer))
        name = answer.get("name")
        if isinstance(name, str) and name.strip():
            self.reported_name = name.strip()[:80]

    def close(self) -> None:
        """Say bye, give the program a moment to exit, then kill it. Safe to call twice."""
        self._closed = True
        process = self._process
        if process is None:
            return
        if process.poll() is None and self._failure is None:
            with contextlib.suppress(OSError, ValueError):
                assert process.stdin is not None
                process.stdin.write(b'{"type": "bye"}\n')
                process.stdin.flush()
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=CLOSE_GRACE)
        _kill(process)
        if self._selector is not None:
            self._selector.close()
            self._selector = None
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=1.0)

    def __enter__(self) -> ProcessBot:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    # -- decisions ------------------------------------------------------------------------------
    def act(self, view: View) -> PlayCard | ChooseRow:
        if view.player is not None:
            self._seat = view.player
        doing = (
            _doing("row_for", card=view.row_choice_card) if view.must_choose_row
            else _doing("card_in", round=view.round, turn=view.turn + 1)
        )
        if self._failure is not None:
            raise self._failure
        self.start()
        data = view_to_json(view)
        message = {"type": "act", "view": data, "legal": data["legal"]}
        began = time.monotonic()
        answer = self._exchange(message, self.timeout, doing=doing)
        self.answer_times.append(time.monotonic() - began)
        try:
            return action_from_json(answer, view)
        except ProtocolError as error:
            raise self._failed(
                FailureKind(error.kind), str(error), doing, reason=error.reason, facts=error.facts
            ) from None

    def choose_card(self, view: View) -> int:
        action = self.act(view)
        if not isinstance(action, PlayCard):
            raise self._fail("row_for_card_plain", _doing("card"))
        return action.card

    def choose_row(self, view: View) -> int:
        action = self.act(view)
        if not isinstance(action, ChooseRow):
            raise self._fail("card_for_row_plain", _doing("row"))
        return action.row

    # -- the wire --------------------------------------------------------------------------------
    def _exchange(self, message: dict[str, Any], limit: float, *, doing: _Doing) -> Any:
        """Send one line, read one line back within ``limit`` seconds, parse it as JSON."""
        process = self._process
        assert process is not None and process.stdin is not None
        self._read_available(doing)
        if self._buffer:
            raise self._fail("extra_line", doing, answer=_short(bytes(self._buffer)))
        try:
            process.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            process.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            raise self._crashed(doing) from None
        line = self._read_line(time.monotonic() + limit, limit, doing)
        try:
            return json.loads(line)
        except (ValueError, RecursionError):  # not JSON, not UTF-8, a number too long, nesting too deep
            raise self._fail("invalid_json", doing, answer=_short(line)) from None

    def _read_available(self, doing: _Doing) -> None:
        """Take whatever the program has written so far without waiting."""
        assert self._selector is not None
        while self._selector.select(0):
            if not self._read_chunk(doing):
                return

    def _read_chunk(self, doing: _Doing) -> bool:
        """Read once from stdout; False at end of output (the caller decides if that is a crash)."""
        process = self._process
        assert process is not None and process.stdout is not None
        try:
            chunk = os.read(process.stdout.fileno(), 65536)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            return False
        self._buffer += chunk
        return True

    def _read_line(self, deadline: float, limit: float, doing: _Doing) -> bytes:
        assert self._selector is not None
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                if len(line) > self.max_line_bytes:
                    raise self._too_long(doing)
                return line.rstrip(b"\r")
            if len(self._buffer) > self.max_line_bytes:
                raise self._too_long(doing)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._fail("timeout", doing, seconds=f"{limit:g}")
            if self._selector.select(remaining) and not self._read_chunk(doing):
                raise self._crashed(doing)

    def _too_long(self, doing: _Doing) -> BotFailure:
        return self._fail("too_long", doing, limit=self.max_line_bytes)

    def _crashed(self, doing: _Doing) -> BotFailure:
        process = self._process
        assert process is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        code = process.poll()
        if self._stderr_thread is not None and code is not None:
            self._stderr_thread.join(timeout=1.0)  # so that the message holds its last words
        reason, facts = _exit_reason(code)
        return self._fail(reason, doing, exit_code=code, **facts)

    def _fail(self, reason: str, doing: _Doing, /, *, exit_code: int | None = None, **facts: object) -> BotFailure:
        """Stop the program for good and build the error that says why: ``reason`` with its facts."""
        text = facts_of(facts)
        kind = FailureKind(REASONS[reason].kind)
        return self._failed(kind, detail_text(reason, text), doing, reason=reason, facts=text, exit_code=exit_code)

    def _failed(
        self,
        kind: FailureKind,
        detail: str,
        doing: _Doing,
        *,
        reason: str | None,
        facts: Mapping[str, str],
        exit_code: int | None = None,
    ) -> BotFailure:
        """Stop the program for good and build the error that says why."""
        if self._process is not None:
            _kill(self._process)
            if self._stderr_thread is not None:
                self._stderr_thread.join(timeout=1.0)
        failure = BotFailure(
            self.label, self._seat, kind, detail, doing=doing.text, reason=reason, facts=facts,
            doing_key=doing.key, doing_facts=doing.facts, exit_code=exit_code, stderr=self.stderr_lines,
        )
        self._failure = failure
        return failure



def _drain_stderr(stream: IO[bytes], lines: deque[str], lock: threading.Lock) -> None:
    # Always read stderr, so that a talkative program never blocks on a full pipe.
    with contextlib.suppress(OSError, ValueError):
        for raw in iter(stream.readline, b""):
            text = raw.decode("utf-8", errors="replace").rstrip()
            with lock:
                lines.append(text if len(text) <= 300 else text[:297] + "...")


def _short(value: object, limit: int = 80) -> str:
    if isinstance(value, bytes | bytearray):
        text = repr(value.decode("utf-8", errors="replace"))
    else:
        text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
