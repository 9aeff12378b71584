"""The lobby for strangers over HTTP and WebSocket on the real app: public tables listed while
somebody is at them, quick match, reactions, and what a public table never shows."""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.limits import Limits
from nimmt.server.quickstart import start_left
from nimmt.server.reactions import BURST, REACTIONS
from nimmt.server.tables import Table
from tests.server.helpers import Person, create_table, join


def listed(client: TestClient, language: str | None = None) -> list[dict[str, Any]]:
    """The lobby's list, once the rows of what happened so far are written (in the background)."""
    assert client.portal is not None
    client.portal.call(client.app.state.listing.settled)  # type: ignore[attr-defined]
    response = client.get("/api/lobby", params={"language": language} if language else None)
    assert response.status_code == 200, response.text
    tables: list[dict[str, Any]] = response.json()
    return tables


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> None:
    """The server hears a socket close on its own time: look again until ``check()`` holds."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "it never came to hold"
        time.sleep(0.05)


def quick(client: TestClient, name: str, language: str = "en") -> dict[str, Any]:
    response = client.post("/api/lobby/quick", json={"name": name, "language": language})
    assert response.status_code == 201, response.text
    seat: dict[str, Any] = response.json()
    return seat


def test_a_public_table_is_listed_while_somebody_is_at_it_until_it_fills(client: TestClient) -> None:
    private = create_table(client, seats=2)
    table = create_table(client, seats=3, public=True, clock=20)
    table_id = table["table_id"]
    assert listed(client) == []  # nobody has opened the table yet
    with client.websocket_connect(f"/ws/{table_id}") as socket, \
            client.websocket_connect(f"/ws/{private['table_id']}") as other:
        Person(socket, table["token"])
        Person(other, private["token"])
        [row] = listed(client)
        assert row["table_id"] == table_id and (row["language"], row["clock"], row["seats"], row["taken"],
                                                 row["free"]) == ("en", 20, 3, 1, 2)
        assert listed(client, "en") == [row] and listed(client, "fr") == []
        join(client, table_id, "Bruno")
        assert [(t["taken"], t["free"]) for t in listed(client)] == [(2, 1)]
        join(client, table_id, "Cleo")
        assert listed(client) == []  # full


def test_the_last_person_leaving_takes_the_table_off_the_list_and_coming_back_puts_it_on(client: TestClient) -> None:
    table = create_table(client, seats=2, public=True)
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        Person(socket, table["token"])
        assert len(listed(client)) == 1
    eventually(lambda: listed(client) == [])
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        Person(socket, table["token"]).sync()
        assert [t["table_id"] for t in listed(client)] == [table["table_id"]]


def test_a_turn_based_table_stays_listed_without_anybody(client: TestClient) -> None:
    table = create_table(client, seats=2, public=True, clock=86400)
    assert [(t["table_id"], t["clock"]) for t in listed(client)] == [(table["table_id"], 86400)]


def test_quick_match_puts_two_strangers_at_one_table_and_a_third_language_at_another(client: TestClient) -> None:
    ana = quick(client, "Ana")
    with client.websocket_connect(f"/ws/{ana['table_id']}") as socket:
        Person(socket, ana["token"])
        bruno = quick(client, "Bruno")
        assert (bruno["table_id"], bruno["seat"]) == (ana["table_id"], 1)
        info = client.get(f"/api/tables/{ana['table_id']}").json()
        assert info["options"]["public"] is True and info["options"]["clock"] == 60 and len(info["seats"]) == 4
        assert info["options"]["start_after"] == 60  # then it starts by itself, bots in the free seats
        assert 0 < info["start_left"] <= 60  # the pages count down to it
        assert [s["name"] for s in info["seats"]] == ["Ana", "Bruno", None, None]
        cleo = quick(client, "Cleo", "fr")  # nobody waits in French: a table of her own
        assert cleo["table_id"] != ana["table_id"] and cleo["seat"] == 0
        assert client.get(f"/api/tables/{cleo['table_id']}").json()["language"] == "fr"


def test_a_table_with_start_after_starts_by_itself_with_bots_in_the_free_seats(client: TestClient) -> None:
    table = create_table(client, seats=3, public=True, clock=60, start_after=5)
    bruno = join(client, table["table_id"], "Bruno")
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        ana = Person(socket, table["token"])
        assert ana.state["table"]["status"] == "lobby"
        left = ana.state["table"]["start_left"]
        assert 0 < left <= 5
        # Any process says the same: the moment is the journal's, not this process's memory.
        service = client.app.state.service  # type: ignore[attr-defined]
        assert client.portal is not None
        fresh = client.portal.call(_rebuilt, service, table["table_id"])
        assert fresh.created_at is not None and fresh.created_at == service.tables[table["table_id"]].created_at
        again = start_left(fresh)
        assert again is not None and 0 <= again <= left
        started = ana.state_where(lambda m: m["table"]["status"] == "playing", limit=10_000)
        assert started["table"]["start_left"] is None
        seats = started["table"]["seats"]
        assert [(s["name"], s["bot"]) for s in seats[:2]] == [("Ana", None), ("Bruno", None)]
        assert seats[2]["bot"] == "heuristic" and bruno["seat"] == 1
    # started: off the lobby's list (its row is written after the start's deal, which pages may see first)
    eventually(lambda: listed(client) == [])


def test_a_table_that_starts_by_itself_says_when_it_waits_for_a_player(client: TestClient) -> None:
    """Nobody seated here: the table will not start, whatever its time, and its state says so (a
    spectator's page shows it instead of a countdown stuck at 0)."""
    table = create_table(client, seats=3, public=True, clock=60, start_after=600)
    with client.websocket_connect(f"/ws/{table['table_id']}") as watching:
        spectator = Person(watching, None)
        assert spectator.state["table"]["start_waits"] == "player"
        assert client.get(f"/api/tables/{table['table_id']}").json()["start_waits"] == "player"
        with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
            ana = Person(socket, table["token"])
            assert ana.state["table"]["start_waits"] is None
            spectator.state_where(lambda m: m["table"]["start_waits"] is None)
        spectator.state_where(lambda m: m["table"]["start_waits"] == "player")  # Ana left: it waits again
    private = create_table(client, seats=3)
    assert client.get(f"/api/tables/{private['table_id']}").json()["start_waits"] is None  # no start of its own


async def _rebuilt(service: Any, table_id: str) -> Table:
    """The table as a process that never held it rebuilds it from the store."""
    return Table.replay(table_id, await service.store.journal(table_id))


def test_quick_match_never_joins_a_table_by_invitation(client: TestClient) -> None:
    private = create_table(client, seats=4)
    with client.websocket_connect(f"/ws/{private['table_id']}") as socket:
        Person(socket, private["token"])
        assert quick(client, "Bruno")["table_id"] != private["table_id"]


def test_bad_lobby_requests_get_a_clear_code(client: TestClient) -> None:
    for body in ({"name": "Ana", "language": "xx"}, {"name": "", "language": "en"}, {"language": "en"},
                 {"name": "Ana", "language": "en", "seats": 9}, {"name": "A\x07na", "language": "en"}):
        response = client.post("/api/lobby/quick", json=body)
        assert response.status_code == 422 and response.json()["code"] == "bad_request", body
    response = client.get("/api/lobby", params={"language": "klingon"})
    assert response.status_code == 422 and response.json()["code"] == "bad_request"
    for options in ({"clock": 4}, {"clock": 8 * 86400}, {"clock": "20"}, {"public": "yes"}):
        response = client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": options})
        assert response.status_code == 422 and response.json()["code"] == "bad_request", options
    assert listed(client) == []  # nothing was made


def test_the_lobby_is_in_the_openapi_description(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "get" in paths["/api/lobby"] and "post" in paths["/api/lobby/quick"]
    schema = client.get("/openapi.json").json()["components"]["schemas"]["TableOptions"]["properties"]
    assert {"public", "clock"} <= set(schema)


def test_a_reaction_reaches_everyone_at_the_table_and_is_limited_per_seat(client: TestClient) -> None:
    table = create_table(client, seats=2)
    bruno_seat = join(client, table["table_id"], "Bruno")
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b, \
            client.websocket_connect(f"/ws/{table['table_id']}") as w:
        ana, bruno, watcher = Person(a, table["token"]), Person(b, bruno_seat["token"]), Person(w, None)
        assert ana.send({"type": "react", "reaction": "laugh"})["type"] == "ack"
        for person in (bruno, watcher, ana):
            assert person.until(lambda m: m["type"] == "reaction") == {"type": "reaction", "seat": 0,
                                                                         "reaction": "laugh"}
        for _ in range(BURST - 1):
            assert ana.send({"type": "react", "reaction": "clap"})["type"] == "ack"
        refused = ana.send({"type": "react", "reaction": "clap"})
        assert refused["code"] == "reaction_too_soon" and refused["params"]["retry_after"] >= 1
        assert bruno.send({"type": "react", "reaction": REACTIONS[0]})["type"] == "ack"  # his own limit
        assert watcher.send({"type": "react", "reaction": "laugh"})["code"] == "spectator"
        assert bruno.send({"type": "react", "reaction": "dance"})["code"] == "unknown_reaction"
        assert bruno.send({"type": "react", "reaction": "x" * 33})["code"] == "bad_message"
        assert bruno.send({"type": "react"})["code"] == "bad_message"
        # Nothing of it is stored: the table's version did not move.
        assert bruno.sync()["version"] == ana.sync()["version"] == 2  # made, joined


def test_a_public_table_shows_names_only(client: TestClient) -> None:
    table = create_table(client, seats=2, public=True)
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        state = Person(socket, table["token"]).state
    text = json.dumps(state)
    assert "Ana" in text
    for word in ("group", "player_id", "history_of", "rating", "games_of"):
        assert word not in text
    assert json.dumps(listed(client)).find("Ana") == -1


def test_quick_match_counts_against_the_tables_an_address_may_open(tmp_path: Path) -> None:
    app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, limits=Limits(tables_per_minute=2))
    with TestClient(app) as client:
        assert [client.post("/api/lobby/quick", json={"name": "Ana", "language": "en"}).status_code
                for _ in range(2)] == [201, 201]
        refused = client.post("/api/lobby/quick", json={"name": "Ana", "language": "en"})
        assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
