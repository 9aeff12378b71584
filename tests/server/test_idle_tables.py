"""Idle tables leave memory and come back from the store on demand (issue 9, item 1)."""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.botpool import BotPool
from nimmt.server.render import state_message
from nimmt.server.tables import TableService

from .helpers import Person, create_table, join, legal_cards, legal_rows


@pytest.fixture
def idle_client(tmp_path: Path) -> Iterator[TestClient]:
    # Idle after a minute: the tests sweep by hand, as if that minute had passed (evict_idle(later=)).
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, idle_after=60,
                               bot_workers=1)) as test_client:
        yield test_client


def _service(client: TestClient) -> TableService:
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    return service


def _evict(client: TestClient) -> list[str]:
    """Sweep as if the idle time had passed."""
    portal = client.portal
    assert portal is not None
    gone: list[str] = portal.call(_service(client).evict_idle, 61.0)
    return gone


def _bots_done(client: TestClient, table_id: str) -> None:
    """Wait (bounded) until the table's bots have nothing left to do."""
    service = _service(client)
    the_table = service.tables[table_id]
    portal = client.portal
    assert portal is not None
    # Bounded, but generous: the pool's first decision waits for its worker to start and compile
    # the rollouts (tens of seconds on a loaded machine).
    for _ in range(2400):
        if not the_table.waiting_bots() and not portal.call(service.bots.busy_with, table_id):
            return
        time.sleep(0.05)
    raise AssertionError("the bots never finished")


def _play_turn(people: list[Person], turn: int) -> dict[str, Any]:
    """Each person plays their highest card (and chooses row 0 when asked) until turn ``turn`` is done."""
    for _ in range(100):
        for person in people:
            state = person.sync()
            if state["view"]["turn"] >= turn:
                return state
            if legal_rows(state):
                person.send({"type": "choose_row", "row": 0, "version": state["version"]})
            elif legal_cards(state):
                person.send({"type": "play", "card": legal_cards(state)[-1], "version": state["version"]})
    raise AssertionError(f"turn {turn} never ended")


def _in_memory(client: TestClient, table_id: str) -> bool:
    return table_id in _service(client).tables


def test_an_idle_table_leaves_memory_and_comes_back_whole(idle_client: TestClient) -> None:
    table = create_table(idle_client, seats=3, bots=["random"])
    table_id = table["table_id"]
    bruno_seat = join(idle_client, table_id, "Bruno")
    with idle_client.websocket_connect(f"/ws/{table_id}") as a, idle_client.websocket_connect(f"/ws/{table_id}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        ana.send({"type": "start"})
        _play_turn([ana, bruno], 1)
        assert _evict(idle_client) == []  # people are connected
    # Nobody connected, and the bot waits for the people: the table leaves memory.
    _bots_done(idle_client, table_id)
    before = state_message(_service(idle_client).tables[table_id], 0)
    assert table_id in _evict(idle_client)
    assert not _in_memory(idle_client, table_id)
    assert idle_client.get("/metrics").text.count("nimmt_tables 0.0") == 1
    # Asked for again: rebuilt from the store, exactly as it was.
    info = idle_client.get(f"/api/tables/{table_id}").json()
    assert info["version"] == before["version"] and info["status"] == "playing"
    assert _in_memory(idle_client, table_id)
    with idle_client.websocket_connect(f"/ws/{table_id}") as a, idle_client.websocket_connect(f"/ws/{table_id}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        state = ana.sync()
        assert state["view"] == before["view"] and state["version"] == before["version"]
        assert state["reveal"] == before["reveal"] and state["scores"] == before["scores"]
        assert _play_turn([ana, bruno], 2)["view"]["turn"] == 2


def test_a_spectator_keeps_a_table_in_memory(idle_client: TestClient) -> None:
    table = create_table(idle_client, seats=2)
    table_id = table["table_id"]
    with idle_client.websocket_connect(f"/ws/{table_id}") as w:
        Person(w, None)
        assert _evict(idle_client) == []
        assert _in_memory(idle_client, table_id)
    assert _evict(idle_client) == [table_id]


def test_a_table_whose_bots_are_playing_stays(idle_client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A table of bots and a person who left stays while its bots think, and leaves once they wait."""
    go_on = threading.Event()
    real = BotPool.run

    async def held(pool: BotPool, key: str, function: Callable[..., Any], *args: Any) -> Any:
        assert await asyncio.to_thread(go_on.wait, 60)
        return await real(pool, key, function, *args)

    monkeypatch.setattr(BotPool, "run", held)
    response = idle_client.post("/api/tables", json={"name": "Ana", "seats": 3, "bots": ["montecarlo", "random"],
                                                     "start": True})
    table_id = response.json()["table_id"]
    with idle_client.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, response.json()["token"])
        state = ana.sync()
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"
    # Ana left; the montecarlo bot still thinks (held): the table stays.
    assert _evict(idle_client) == []
    go_on.set()
    the_table = _service(idle_client).tables[table_id]
    _bots_done(idle_client, table_id)  # the bots finish the turn, then wait for Ana
    assert the_table.version > state["version"] + 1  # both bots played
    assert _evict(idle_client) == [table_id]
    assert idle_client.get(f"/api/tables/{table_id}").json()["version"] == the_table.version


def test_absence_goes_on_counting_across_eviction(idle_client: TestClient) -> None:
    """A person away before the table left memory is still away as long when it comes back."""
    table = create_table(idle_client, seats=2)
    table_id = table["table_id"]
    before = idle_client.get(f"/api/tables/{table_id}").json()["seats"][0]["away_seconds"]
    assert before is not None
    assert _evict(idle_client) == [table_id]
    time.sleep(0.3)
    after = idle_client.get(f"/api/tables/{table_id}").json()["seats"][0]["away_seconds"]
    # Both are rounded to tenths (each up to half a tenth off): compared as whole tenths, since in
    # floats 0.1 + 0.2 > 0.3. Counted afresh after the eviction, ``after`` would be about 0.
    assert round(after * 10) - round(before * 10) >= 2


def test_tables_leave_memory_on_their_own(tmp_path: Path) -> None:
    """The sweep runs by itself (every quarter of the idle time)."""
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, idle_after=0.05)) as client:
        table_id = create_table(client, seats=2)["table_id"]
        for _ in range(400):
            if not _in_memory(client, table_id):
                break
            time.sleep(0.025)
        assert not _in_memory(client, table_id)
        assert client.get(f"/api/tables/{table_id}").status_code == 200
