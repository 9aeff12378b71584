"""Stop the server process in the middle of a turn, start it again: the game goes on from exactly
where it was, with nothing lost (every acknowledged action was stored before the acknowledgement)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from nimmt.records import loads, score

from .helpers import legal_cards, legal_rows
from .live import LiveServer


class Seat:
    def __init__(self, server: LiveServer, table_id: str, token: str) -> None:
        self.socket: ClientConnection = connect(f"{server.ws_url}/ws/{table_id}", open_timeout=30, legacy=True)
        self.socket.send(json.dumps({"type": "hello", "token": token}))
        self.state: dict[str, Any] = self.until("state")

    def until(self, kind: str) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=30))  # generous: a loaded machine
            if message["type"] == "state":
                self.state = message
            if message["type"] == kind or (kind == "answer" and message["type"] in ("ack", "error")):
                return message

    def sync(self) -> dict[str, Any]:
        self.socket.send(json.dumps({"type": "ping"}))
        self.until("pong")
        return self.state

    def act(self, rng: random.Random, state: dict[str, Any] | None = None) -> bool:
        """Play or choose a row on ``state`` (a view already looked at), or else on a fresh one; False
        when nothing was asked of this seat."""
        state = state if state is not None else self.sync()
        if legal_rows(state):
            message = {"type": "choose_row", "row": rng.choice(legal_rows(state)), "version": state["version"]}
        elif legal_cards(state):
            message = {"type": "play", "card": rng.choice(legal_cards(state)), "version": state["version"]}
        else:
            return False
        self.socket.send(json.dumps(message))
        assert self.until("answer")["type"] == "ack"
        return True


def play_on(rng: random.Random, *seats: Seat) -> None:
    """Each seat does what the table asks of it, if anything. When nothing is asked (the bots'
    turn), wait a moment: a client looking again in a tight loop meets the server's message limit."""
    if not any([seat.act(rng) for seat in seats]):
        time.sleep(0.05)


def _public(state: dict[str, Any]) -> dict[str, Any]:
    return {key: state[key] for key in ("version", "view", "legal", "scores")}


def test_a_restart_loses_nothing(tmp_path: Path) -> None:
    db = tmp_path / "nimmt.sqlite3"
    rng = random.Random(7)
    with LiveServer(db) as server:
        created = httpx.post(f"{server.url}/api/tables", json={
            "name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}}).json()
        table_id = created["table_id"]
        joined = httpx.post(f"{server.url}/api/tables/{table_id}/join", json={"name": "Bruno"}).json()
        ana, bruno = Seat(server, table_id, created["token"]), Seat(server, table_id, joined["token"])
        ana.socket.send(json.dumps({"type": "start"}))
        ana.until("ack")
        # Play on until a turn from the fourth on where neither person has chosen yet. Each person
        # acts only in the turn just looked at: the bot may end a turn at any moment, and a card
        # played in a turn nobody looked at would skip the very moment the loop waits for.
        deadline = time.monotonic() + 120
        seen: list[tuple[str, int, list[bool]]] = []
        while True:
            assert time.monotonic() < deadline, "the game never reached the turn to interrupt"
            state = ana.sync()
            view = state["view"]
            seen.append((view["phase"], view["turn"], view["has_chosen"]))
            assert view["phase"] != "over", f"the game ended before it could be interrupted: {seen}"
            if view["phase"] == "choose_cards" and view["turn"] >= 3 and not any(view["has_chosen"][:2]):
                break
            acted = ana.act(rng, state)
            other = bruno.sync()
            if other["view"]["turn"] == view["turn"]:
                acted = bruno.act(rng, other) or acted
            if not acted:  # the bot's turn (its worker may still be starting): no tight loop of pings
                time.sleep(0.05)
        # Mid-turn: Ana chooses; once the bot has chosen too, the table waits for Bruno only.
        ana.act(rng)
        while ana.sync()["view"]["waiting_for"] != [1]:
            assert time.monotonic() < deadline, "the bot never chose"
            time.sleep(0.1)  # within the message limit (20 a second) however long the bot takes
        before_ana, before_bruno = ana.sync(), bruno.sync()
        assert before_ana["view"]["my_card"] is not None and before_ana["view"]["waiting_for"] == [1]
        server.kill()

    with LiveServer(db) as server:
        ana, bruno = Seat(server, table_id, created["token"]), Seat(server, table_id, joined["token"])
        assert _public(ana.state) == _public(before_ana)
        assert _public(bruno.state) == _public(before_bruno)
        chosen_before_restart = before_ana["view"]["my_card"]
        turn = before_ana["view"]["turn"]
        deadline = time.monotonic() + 120
        while ana.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end after the restart"
            play_on(rng, bruno, ana)
        final = ana.state
        record = loads(httpx.get(f"{server.url}/api/tables/{table_id}/games/1/record").content)
        assert record.rounds[0].turns[turn].cards[0] == chosen_before_restart
        result = score(record)
        assert result.finished and list(result.totals) == final["view"]["totals"]
        assert len(record.rounds) == 1 and len(record.rounds[0].turns) == 10
