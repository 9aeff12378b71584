"""Helpers for the server tests: a table created over HTTP and people at it over WebSockets."""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.testclient import TestClient, WebSocketTestSession

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own: the test worker may already run an event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def legal_cards(state: dict[str, Any]) -> list[int]:
    """The cards this person may play now, as the state's ``legal`` says (the bot protocol's answers)."""
    return [action["card"] for action in state["legal"] if "card" in action]


def legal_rows(state: dict[str, Any]) -> list[int]:
    """The rows this person may take now, as the state's ``legal`` says."""
    return [action["row"] for action in state["legal"] if "row" in action]


def create_table(
    client: TestClient, *, seats: int = 3, bots: list[str] | None = None, name: str = "Ana", **options: Any
) -> dict[str, Any]:
    response = client.post(
        "/api/tables", json={"name": name, "seats": seats, "bots": bots or [], "options": options}
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


def join(client: TestClient, table_id: str, name: str) -> dict[str, Any]:
    response = client.post(f"/api/tables/{table_id}/join", json={"name": name})
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()
    return data


class Person:
    """One open connection: keeps the latest state it was sent."""

    def __init__(self, socket: WebSocketTestSession, token: str | None) -> None:
        self.socket = socket
        self.state: dict[str, Any] = {}
        socket.send_json({"type": "hello", "token": token})
        self.state = self.until(lambda m: m["type"] == "state")

    def until(self, predicate: Callable[[dict[str, Any]], bool], limit: int = 2000) -> dict[str, Any]:
        for _ in range(limit):
            message: dict[str, Any] = self.socket.receive_json()
            if message["type"] == "state":
                self.state = message
            if predicate(message):
                return message
        raise AssertionError("the expected message never came")

    def state_where(self, predicate: Callable[[dict[str, Any]], bool], limit: int = 2000) -> dict[str, Any]:
        """The latest state if it is already as wanted, else the first later one that is (a state is
        sent only when it differs from the last one sent)."""
        if self.state and predicate(self.state):
            return self.state
        return self.until(lambda m: m["type"] == "state" and predicate(m), limit)

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send, and return the answer to it (an ack or an error)."""
        self.socket.send_json({**message, "ref": "r1"} if message["type"] != "ping" else message)
        return self.until(lambda m: m["type"] in ("ack", "error", "pong"))

    def send_raw(self, text: str) -> dict[str, Any]:
        self.socket.send_text(text)
        return self.until(lambda m: m["type"] in ("ack", "error", "pong"))

    def latest(self) -> dict[str, Any]:
        """Wait until the latest state reflects every ack this person received."""
        return self.state

    def sync(self) -> dict[str, Any]:
        """A fresh state: ping, then drain until the pong (updates come in order before it)."""
        self.socket.send_json({"type": "ping"})
        self.until(lambda m: m["type"] == "pong")
        return self.state

    def act_randomly(self, rng: random.Random, state: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Play a legal card or choose a legal row, if the table waits for this person: on ``state``
        (a view the caller has looked at) or else on a fresh one."""
        state = state if state is not None else self.sync()
        if rows := legal_rows(state):
            return self.send({"type": "choose_row", "row": rng.choice(rows), "version": state["version"]})
        if cards := legal_cards(state):
            return self.send({"type": "play", "card": rng.choice(cards), "version": state["version"]})
        return None


def new_children(before: set[multiprocessing.process.BaseProcess]) -> list[multiprocessing.process.BaseProcess]:
    """This process's children that were not there ``before``: an earlier test of the same xdist worker
    may still be ending its own (CI saw one), and only this test's pool is asked about."""
    return [child for child in multiprocessing.active_children() if child not in before]
