"""One open WebSocket at a table: a hello, then the person's messages in and their own updates out.

After the hello (a token finds the person's seat; without one they watch; a token of no seat is
refused) the connection reads messages and writes updates side by side. In: each message is
parsed into the typed union of client messages and matched; an action goes, still typed, to the
table's host as an :class:`~nimmt.server.tables.commands.Act` command
(:meth:`TableService.submit <nimmt.server.tables.TableService.submit>`) and is answered with an
``ack`` or a refusal; a question to the coach is answered on its own (the person plays on meanwhile); a reaction
goes to the table through the hub (:mod:`.reactions`); a ping is answered once the updates already
published are sent. Out: for each piece of the hub's news, the table catches up if need be and the
person gets their own state, rendered here (:mod:`.render`), whole or as a patch of the last one
(:mod:`.patch`). Arriving and leaving are told to the service's presence. The route
``/ws/{table_id}`` (:mod:`nimmt.server.routes.socket`) opens a :class:`Connection` for each socket;
the messages are described in ``docs/protocol.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from .hub import Hub
from .limits import RATE_LIMITED_CLOSE
from .metrics import Metrics
from .models import MAX_MESSAGE_BYTES, AnyClientMessage, AskAdvice, Hello, Ping, React, TableAction, client_message
from .patch import state_patch
from .reactions import react, reaction_message
from .render import state_message
from .tables import ActionError, Table, TableService
from .tables.commands import Act

HELLO_TIMEOUT = 30.0
PONG_WAIT = 5.0  # longest a pong waits for the updates published before it
logger = logging.getLogger("nimmt.server")


class Connection:
    """One open WebSocket: a hello, then actions in and the person's own updates out."""

    def __init__(self, websocket: WebSocket, service: TableService, hub: Hub, table: Table) -> None:
        self.websocket = websocket
        self.service = service
        self.hub = hub
        self.table = table
        self.seat: int | None = None
        self.send_lock = asyncio.Lock()
        self.questions: set[asyncio.Task[None]] = set()  # the coach's answers still being worked out
        self.subscription: Any = None
        self.client = "unknown"  # the client's address, for its limits and the log
        self.message_wait: Callable[[str], float] = lambda _client: 0.0  # its message limit: seconds to wait
        self.closed = False  # the client left (or was sent away): nothing more is sent
        self.metrics: Metrics | None = None
        self.last_state: dict[str, Any] | None = None  # the state this client holds now
        self.patches = False  # the client asked for patches after its first whole state

    async def send(self, message: dict[str, Any]) -> None:
        """Send a message; WebSocketDisconnect when the client has gone, however it went."""
        async with self.send_lock:
            if self.closed:
                raise WebSocketDisconnect(code=1006)
            try:
                await self.websocket.send_text(_json(message))
            except WebSocketDisconnect:
                self.closed = True
                logger.info("table %s: %s left while a message was being sent to it", self.table.id, self.client)
                raise

    async def close(self, code: int) -> None:
        async with self.send_lock:
            if not self.closed:
                self.closed = True
                with contextlib.suppress(WebSocketDisconnect):
                    await self.websocket.close(code=code)

    async def receive(self) -> str | None:
        """The next text message, or None when the connection has closed."""
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            wait = self.message_wait(self.client)
            if wait > 0:
                seconds = max(1, math.ceil(wait))
                logger.warning("table %s: %s sends too many messages: sent away", self.table.id, self.client)
                await self.send(ActionError("rate_limited", f"too many messages: try again in {seconds} s",
                                            retry_after=seconds).to_message())
                await self.close(RATE_LIMITED_CLOSE)
                return None
            if message.get("text") is not None:
                return str(message["text"])
            await self.send(ActionError("bad_message", "messages are JSON text, not binary").to_message())

    async def run(self) -> None:
        with contextlib.suppress(WebSocketDisconnect):
            hello = await self._hello()
            if hello is None:
                return
            self.patches = hello.patches
            async with self.hub.subscribe(self.table.id) as subscription:
                self.subscription = subscription
                await self.service.arrive(self.table, self.seat)
                try:
                    await self._send_state()
                    writer = asyncio.create_task(self._write(subscription))
                    try:
                        await self._read()
                    finally:
                        writer.cancel()
                        # Wait for the writer to stop without swallowing a cancellation of our own.
                        await asyncio.wait([writer])
                finally:
                    await self.service.leave(self.table, self.seat)

    async def _hello(self) -> Hello | None:
        while True:
            try:
                raw = await asyncio.wait_for(self.receive(), HELLO_TIMEOUT)
            except TimeoutError:
                await self.close(4408)
                return None
            if raw is None:
                return None
            parsed = await self._parse(raw)
            if parsed is None:
                continue
            if not isinstance(parsed, Hello):
                await self.send(ActionError("hello_first", "say hello first: {\"type\": \"hello\", \"token\": ...}")
                                .to_message(getattr(parsed, "ref", None)))
                continue
            if parsed.token:
                seat = self.table.seat_of(parsed.token)
                if seat is None and self.service.shared:  # joined through another process just now?
                    await self.service.catch_up(self.table)
                    seat = self.table.seat_of(parsed.token)
                if seat is None:
                    await self.send(ActionError("bad_token", "this token belongs to no seat of this table")
                                    .to_message(parsed.ref))
                    continue
                self.seat = seat
            return parsed

    async def _parse(self, raw: str) -> AnyClientMessage | None:
        if len(raw.encode("utf-8")) > MAX_MESSAGE_BYTES:
            await self.send(ActionError("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes",
                                        limit=MAX_MESSAGE_BYTES).to_message())
            return None
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, RecursionError):
            await self.send(ActionError("bad_json", "the message is not valid JSON").to_message())
            return None
        if "\\" in raw and not _unicode(data):  # only an escape (\ud800) can hold a lone surrogate
            await self.send(ActionError("bad_message", "the message has text that is not valid Unicode "
                                        "(a lone surrogate)").to_message())
            return None
        try:
            return client_message.validate_python(data, strict=True)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in item['loc'] if not isinstance(p, int)) or 'message'}: {item['msg']}"
                for item in error.errors()[:3]
            )
            ref = data.get("ref") if isinstance(data, dict) and isinstance(data.get("ref"), str) else None
            await self.send(ActionError("bad_message", f"the message is not understood: {problems}")
                            .to_message(ref[:64] if ref else None))
            return None

    async def _read(self) -> None:
        while True:
            raw = await self.receive()
            if raw is None:
                return
            message = await self._parse(raw)
            match message:
                case None:
                    continue
                case Ping(ref=ref):
                    # The protocol promises the pong after every update already published: let the
                    # writer send them first (bounded, in case the connection is failing).
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.subscription.drained(), PONG_WAIT)
                    await self.send({"type": "pong"} if ref is None else {"type": "pong", "ref": ref})
                case Hello(ref=ref):
                    await self.send(ActionError("already_greeted", "hello comes once per connection").to_message(ref))
                case React():
                    await self._react(message)
                case AskAdvice():
                    # Answered on its own, so the person can go on playing while the coach works.
                    question = asyncio.create_task(self._advise(message))
                    self.questions.add(question)
                    question.add_done_callback(self.questions.discard)
                case _:  # the rest of the union, the table's actions: a command to the table's host
                    await self._act(message)

    async def _act(self, message: TableAction) -> None:
        began = time.perf_counter()
        try:
            version = (await self.service.submit(self.table, Act(self.seat, message))).version
        except ActionError as error:
            await self.send(error.to_message(message.ref))
            self._measure(message.type, error.code, began)
            return
        except Exception:  # the store failed: nothing was applied; say so and stay open
            logger.exception("action on table %s failed", self.table.id)
            await self.send(ActionError("server_error", "the server could not store this action: "
                                        "nothing was changed, try again").to_message(message.ref))
            self._measure(message.type, "server_error", began)
            return
        ack: dict[str, Any] = {"type": "ack", "version": version}
        if message.ref is not None:
            ack["ref"] = message.ref
        await self.send(ack)
        self._measure(message.type, "ok", began)

    def _measure(self, kind: str, outcome: str, began: float) -> None:
        if self.metrics is not None:
            self.metrics.action(kind, outcome, time.perf_counter() - began)

    async def _react(self, message: React) -> None:
        """A reaction, passed to everyone at the table through the hub (see :mod:`.reactions`)."""
        try:
            await react(self.hub, self.table, self.seat, message)
        except ActionError as error:
            await self.send(error.to_message(message.ref))
            return
        except Exception:  # the hub is away: nothing was passed on
            logger.exception("a reaction on table %s was not passed on", self.table.id)
            await self.send(ActionError("server_error", "the reaction could not be passed on: try again")
                            .to_message(message.ref))
            return
        ack: dict[str, Any] = {"type": "ack", "version": self.table.version}
        if message.ref is not None:
            ack["ref"] = message.ref
        await self.send(ack)

    async def _advise(self, message: AskAdvice) -> None:
        """The coach's answer, to this connection only (never published, never stored)."""
        try:
            answer = await self.service.advise(self.table, self.seat)
        except ActionError as error:
            answer = error.to_message(message.ref)
        except Exception:
            logger.exception("the coach failed on table %s", self.table.id)
            answer = ActionError("advice_failed", "the coach could not work out its advice: try again") \
                .to_message(message.ref)
        else:
            if message.ref is not None:
                answer["ref"] = message.ref
        with contextlib.suppress(Exception):  # the person may have left meanwhile
            await self.send(answer)

    async def _write(self, subscription: Any) -> None:
        """For each piece of news of the table: catch up if need be, then send this person's own state."""
        while True:
            update = await subscription.get()
            try:
                await self.service.follow(self.table, update)
                await self._send_state()
                if (reaction := reaction_message(update)) is not None:
                    await self.send(reaction)
            except WebSocketDisconnect:
                return  # the client left: the reader hears it and ends the connection
            except Exception as error:  # the store is away: the next news tries again
                logger.warning("table %s: could not catch up: %s: %s", self.table.id, type(error).__name__, error)
            finally:
                subscription.done()

    async def _send_state(self) -> None:
        """The person's own state, rendered here from this process's copy of the table; nothing when it
        is what they were sent last. A client that asked for patches gets what changed since then
        (the whole state first, and whenever a patch cannot say the change)."""
        message = state_message(self.table, self.seat)
        last = self.last_state
        if last is None:
            await self.send(message)
        elif self.patches:
            patch = state_patch(last, message)
            if patch is None:
                await self.send(message)
            elif not patch:
                return
            else:
                await self.send({"type": "patch", "version": message["version"], "patch": patch})
        elif message == last:
            return
        else:
            await self.send(message)
        self.last_state = message


def _json(message: dict[str, Any]) -> str:
    """A message as compact JSON text, as ``send_json`` wrote it, several times quicker: every
    message to every connection goes through here."""
    return orjson.dumps(message, option=orjson.OPT_NON_STR_KEYS).decode()


def _unicode(data: Any) -> bool:
    """Whether every text in a decoded JSON value is valid Unicode (no lone surrogate)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
