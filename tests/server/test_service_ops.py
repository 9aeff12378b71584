"""Running it as a service (issue 9, items 1 and 5): exact refusal codes over a real WebSocket,
``/healthz``, Prometheus ``/metrics``, and the log as JSON lines."""

from __future__ import annotations

import collections
import json
import time
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from .helpers import Person, create_table, legal_cards, legal_rows
from .helpers import run as in_a_thread
from .live import LiveServer


class Player:
    """A person at a real ``nimmt serve`` over a real WebSocket."""

    def __init__(self, socket: ClientConnection, token: str) -> None:
        self.socket = socket
        self.state: dict[str, Any] = {}
        self.socket.send(json.dumps({"type": "hello", "token": token}))
        self.until(lambda m: m["type"] == "state")

    def until(self, predicate: Any, limit: int = 2000) -> dict[str, Any]:
        for _ in range(limit):
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=30))
            if message["type"] == "state":
                self.state = message
            if predicate(message):
                return message
        raise AssertionError("the expected message never came")

    def sync(self) -> dict[str, Any]:
        self.socket.send(json.dumps({"type": "ping"}))
        self.until(lambda m: m["type"] == "pong")
        return self.state

    def send(self, message: dict[str, Any]) -> dict[str, Any]:
        self.socket.send(json.dumps(message))
        return self.until(lambda m: m["type"] in ("ack", "error"))


def test_twenty_identical_plays_at_once_get_one_ack_and_nineteen_already_chosen(tmp_path: Path) -> None:
    """Ana sends the same play twenty times at once while the table waits for Bruno's row choice (his
    card was below every row): one is taken, the others are `already_chosen` (the protocol's code for
    a decision made already; it was `not_your_turn`); once the turn has moved on, `stale`."""
    with LiveServer(tmp_path / "nimmt.sqlite3", seed=5, args=["--limit-messages", "0"]) as server:
        table = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2, "bots": []}).json()
        bruno_seat = httpx.post(f"{server.url}/api/tables/{table['table_id']}/join", json={"name": "Bruno"}).json()
        with connect(f"{server.ws_url}/ws/{table['table_id']}") as a, \
                connect(f"{server.ws_url}/ws/{table['table_id']}") as b:
            ana, bruno = Player(a, table["token"]), Player(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            for _ in range(30):  # turns, until Bruno holds a card below every row
                state = bruno.sync()
                ends = [row[-1] for row in state["view"]["rows"]]
                lowest = legal_cards(state)[0]
                if lowest < min(ends):
                    break
                for person in (bruno, ana):
                    mine = person.sync()
                    assert person.send({"type": "play", "card": legal_cards(mine)[-1],
                                        "version": mine["version"]})["type"] == "ack"
                for person in (ana, bruno):  # a row choice this turn: row 0
                    mine = person.sync()
                    if legal_rows(mine):
                        person.send({"type": "choose_row", "row": 0, "version": mine["version"]})
            else:
                raise AssertionError("seed 5 never gave Bruno a card below every row: pick another")
            assert bruno.send({"type": "play", "card": lowest, "version": state["version"]})["type"] == "ack"
            mine = ana.sync()
            play = {"type": "play", "card": legal_cards(mine)[-1], "version": mine["version"]}
            for index in range(20):
                a.send(json.dumps({**play, "ref": str(index)}))
            answers = [ana.until(lambda m: m["type"] in ("ack", "error")) for _ in range(20)]
            codes = collections.Counter(m.get("code", m["type"]) for m in answers)
            assert codes == {"ack": 1, "already_chosen": 19}
            assert ana.sync()["view"]["waiting_for"] == [1]  # Bruno's row choice
            # Bruno chooses; the same play again is stale: the turn has moved on.
            waiting = bruno.sync()
            assert bruno.send({"type": "choose_row", "row": 0, "version": waiting["version"]})["type"] == "ack"
            assert ana.send({**play, "ref": "late"})["code"] == "stale"
            # The same for a row choice made twice.
            assert bruno.send({"type": "choose_row", "row": 0, "version": waiting["version"]})["code"] == "stale"


def test_healthz_says_whether_the_store_answers(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200 and answer.json()["status"] == "ok" and answer.json()["store"] == "up"
    store = client.app.state.service.store  # type: ignore[attr-defined]

    async def down(*_args: Any, **_kwargs: Any) -> None:
        raise OSError("the database is gone")

    monkeypatch.setattr(store, "journal", down)
    answer = client.get("/healthz")
    assert answer.status_code == 503 and answer.json() == {"status": "unavailable", "store": "down", "failed": "read",
                                                           "error": "OSError: the database is gone",
                                                           "version": answer.json()["version"]}


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"no metric {name} in:\n{text}")


def test_metrics_count_actions_connections_tables_and_time(client: TestClient) -> None:
    before = client.get("/metrics")
    assert before.status_code == 200 and before.headers["content-type"].startswith("text/plain")
    assert _metric(before.text, "nimmt_connections") == 0
    table = create_table(client, seats=2, bots=["random"])
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as w:
        ana = Person(a, table["token"])
        Person(w, None)
        ana.send({"type": "start"})
        state = ana.sync()
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": 999})["code"] == "bad_version"
        text = client.get("/metrics").text
        assert _metric(text, "nimmt_connections") == 2
    assert _metric(text, "nimmt_tables") == 1
    assert _metric(text, 'nimmt_actions_total{kind="play",outcome="ok"}') == 1
    assert _metric(text, 'nimmt_actions_total{kind="play",outcome="bad_version"}') == 1
    assert _metric(text, 'nimmt_actions_total{kind="start",outcome="ok"}') == 1
    assert _metric(text, 'nimmt_action_seconds_count{kind="play"}') == 2
    assert _metric(text, 'nimmt_bot_decision_seconds_count{bot="random"}') >= 1
    assert _metric(client.get("/metrics").text, "nimmt_connections") == 0


def test_log_json_writes_one_json_line_per_record(tmp_path: Path) -> None:
    """``--log-json``: every line the server logs is one JSON object, a refusal too (one line)."""
    with LiveServer(tmp_path / "nimmt.sqlite3", args=["--log-json", "--limit-tables", "1"]) as server:
        first = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2})
        second = httpx.post(f"{server.url}/api/tables", json={"name": "Ana", "seats": 2})
        assert first.status_code == 201 and second.status_code == 429
        with connect(f"{server.ws_url}/ws/{first.json()['table_id']}") as socket:
            socket.send("not json")
            assert json.loads(socket.recv(timeout=30))["code"] == "bad_json"
        for _ in range(200):  # the refusal's line, once the server has written it
            if any("refused POST /api/tables" in line for line in server.output):
                break
            time.sleep(0.05)
    lines = [line for line in server.output if line.strip() and not line.startswith(("games are kept", "other "))]
    records = [json.loads(line) for line in lines]  # every line is JSON
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    refusals = [r for r in records if "refused POST /api/tables" in r["message"]]
    assert len(refusals) == 1 and refusals[0]["level"] == "warning" and "rate_limited" in refusals[0]["message"]
    assert not any("Traceback" in line for line in server.output)


def test_event_loop_lag_is_measured_when_the_loop_is_held() -> None:
    # A callback that holds the loop for 0.6 s makes the next look late by 0.35 s at least (it comes
    # less than LAG_EVERY after the last one): the lag a host sees on /metrics is what every message
    # waited on top of its own work.
    import asyncio

    from nimmt.server.metrics import LAG_EVERY, Metrics

    metrics = Metrics()

    async def run() -> None:
        watching = asyncio.create_task(metrics.watch_loop())
        await asyncio.sleep(LAG_EVERY * 2.5)  # a few looks on an idle loop
        asyncio.get_running_loop().call_soon(time.sleep, 0.6)  # held, as by a long piece of work
        await asyncio.sleep(LAG_EVERY * 2.5)
        watching.cancel()

    in_a_thread(run())  # the test worker may already run an event loop
    text = metrics.render().decode()
    looks = _metric(text, "nimmt_event_loop_lag_seconds_count")
    assert looks >= 3
    under_100ms = _metric(text, 'nimmt_event_loop_lag_seconds_bucket{le="0.1"}')
    assert looks - under_100ms >= 1  # the held-up look
    assert _metric(text, "nimmt_event_loop_lag_seconds_sum") >= 0.35


def test_metrics_show_the_event_loop_lag(client: TestClient) -> None:
    for _ in range(100):  # the server looks every LAG_EVERY seconds from its start
        if _metric(client.get("/metrics").text, "nimmt_event_loop_lag_seconds_count") >= 1:
            break
        time.sleep(0.05)
    assert _metric(client.get("/metrics").text, "nimmt_event_loop_lag_seconds_count") >= 1
