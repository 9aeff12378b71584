"""Fair records at real tables (issue 26, item 5; docs/people.md, Fair records): a person who leaves
before the end is rated as its last place (others play on, or they were alone with bots and the
game is abandoned); a game that bots finished, or that stopped, after every one of several people
left is rated for nobody; My games and the league say which."""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.tables import TableService

from .helpers import Person, legal_cards, legal_rows

KEY = "X-Player-Key"


@pytest.fixture
def fair_client(tmp_path: Path) -> Iterator[TestClient]:
    # Idle after a minute (the tests sweep by hand, as if it had passed); the absent rule's floor is 5 s.
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, idle_after=60,
                               bot_workers=1)) as test_client:
        yield test_client


def _service(client: TestClient) -> TableService:
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    return service


def player(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    answer = client.post("/api/players", json={"name": name}).json()
    return answer["player"]["id"], {KEY: answer["key"]}


def games_of(client: TestClient, key: dict[str, str], count: int = 1, seconds: float = 60) -> list[dict[str, Any]]:
    """My games once ``count`` are there (kept after the table's last write, or as it leaves memory)."""
    deadline = time.monotonic() + seconds
    while True:
        games: list[dict[str, Any]] = client.get("/api/me/games", headers=key).json()["games"]
        if len(games) >= count or time.monotonic() > deadline:
            return games
        time.sleep(0.05)


def play_once(person: Person) -> None:
    """The person plays one card (or chooses a row) if the table awaits them."""
    state = person.sync()
    if legal_rows(state):
        person.send({"type": "choose_row", "row": 0, "version": state["version"]})
    elif legal_cards(state):
        person.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})


def evict(client: TestClient) -> list[str]:
    portal = client.portal
    assert portal is not None
    deadline = time.monotonic() + 60
    while True:  # once the bots have played what they could
        gone: list[str] = portal.call(_service(client).evict_idle, 61.0)
        if gone or time.monotonic() > deadline:
            return gone
        time.sleep(0.1)


def standing(client: TestClient, key: dict[str, str]) -> dict[str, Any]:
    overall: dict[str, Any] = client.get("/api/me/standing", headers=key).json()["standings"][0]
    return overall


def test_alone_with_bots_a_person_who_walks_away_is_rated_last(fair_client: TestClient) -> None:
    client = fair_client
    ana, key = player(client, "Ana")
    table = client.post("/api/tables", headers=key, json={"name": "Ana", "seats": 3, "bots": ["random", "random"],
                                                          "options": {"rounds": 1}}).json()
    with client.websocket_connect(f"/ws/{table['table_id']}") as socket:
        person = Person(socket, table["token"])
        assert person.send({"type": "start"})["type"] == "ack"
        play_once(person)
    # Ana closed the page mid-game: nobody is left to play it, and it leaves memory as abandoned.
    assert table["table_id"] in evict(client)
    [game] = games_of(client, key)
    assert (game["ending"], game["rated"], game["left"], game["place"], game["win"]) == ("abandoned", True, True,
                                                                                      3, 0.0)
    overall = standing(client, key)
    assert overall["rated_games"] == 1 and overall["rating"] < 1000 and overall["left"] == 1
    assert overall["games"] == 1 and overall["wins"] == 0 and overall["bullheads_per_round"] is None
    assert ana


def test_a_table_of_people_that_all_leave_is_rated_for_nobody(fair_client: TestClient) -> None:
    client = fair_client
    _, ana_key = player(client, "Ana")
    _, bruno_key = player(client, "Bruno")
    group = client.post("/api/groups", json={"name": "Friday"}, headers=ana_key).json()
    client.post("/api/invites", json={"invite": group["invite_url"].rsplit("/", 1)[1]}, headers=bruno_key)
    table = client.post("/api/tables", headers=ana_key, json={
        "name": "Ana", "seats": 3, "bots": ["random"], "options": {"rounds": 1}, "group": group["id"]}).json()
    joined = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Bruno"}, headers=bruno_key).json()
    with client.websocket_connect(f"/ws/{table['table_id']}") as first, \
            client.websocket_connect(f"/ws/{table['table_id']}") as second:
        people = [Person(first, table["token"]), Person(second, joined["token"])]
        assert people[0].send({"type": "start"})["type"] == "ack"
    # The evening ended for both: the game stops, and counts for nobody.
    assert table["table_id"] in evict(client)
    for key in (ana_key, bruno_key):
        [game] = games_of(client, key)
        assert (game["ending"], game["rated"], game["left"]) == ("abandoned", False, True)
        assert standing(client, key)["rated_games"] == 0
    league = client.get(f"/api/groups/{group['id']}/league").json()
    assert league["games"] == 1 and league["unrated"] == 1
    assert {row["name"]: (row["games"], row["wins"], row["rating"]) for row in league["rows"]} == {
        "Ana": (0, 0.0, None), "Bruno": (0, 0.0, None)}


def test_who_leaves_while_others_play_on_is_rated_last_and_bots_finishing_alone_rate_nobody(
        fair_client: TestClient) -> None:
    client = fair_client
    rng = random.Random(5)
    _, ana_key = player(client, "Ana")
    _, bruno_key = player(client, "Bruno")
    options = {"rounds": 1, "absent": "bot", "absent_bot": "random"}
    # Bruno leaves after the start; Ana plays to the end (a bot plays Bruno's seat after 5 s).
    table = client.post("/api/tables", headers=ana_key, json={"name": "Ana", "seats": 3, "bots": ["random"],
                                                              "options": options}).json()
    joined = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Bruno"}, headers=bruno_key).json()
    with client.websocket_connect(f"/ws/{table['table_id']}") as first:
        ana = Person(first, table["token"])
        with client.websocket_connect(f"/ws/{table['table_id']}") as second:
            Person(second, joined["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
        deadline = time.monotonic() + 120
        while ana.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game never ended"
            if not ana.act_randomly(rng):
                time.sleep(0.05)
    [mine] = games_of(client, ana_key)
    [his] = games_of(client, bruno_key)
    assert (mine["ending"], mine["rated"], mine["left"]) == ("played", True, False)
    assert (his["ending"], his["rated"], his["left"], his["place"], his["win"]) == ("played", True, True, 3, 0.0)
    assert [seat["left"] for seat in mine["seats"]] == [False, True, False]
    assert standing(client, bruno_key)["rated_games"] == 1 and standing(client, bruno_key)["left"] == 1
    # Both leave a second table at once: bots finish it, and it is rated for nobody.
    before = (standing(client, ana_key)["rating"], standing(client, bruno_key)["rating"])
    table = client.post("/api/tables", headers=ana_key, json={"name": "Ana", "seats": 3, "bots": ["random"],
                                                              "options": options}).json()
    joined = client.post(f"/api/tables/{table['table_id']}/join", json={"name": "Bruno"}, headers=bruno_key).json()
    with client.websocket_connect(f"/ws/{table['table_id']}") as first, \
            client.websocket_connect(f"/ws/{table['table_id']}") as second:
        Person(second, joined["token"])
        assert Person(first, table["token"]).send({"type": "start"})["type"] == "ack"
    for key in (ana_key, bruno_key):
        latest = games_of(client, key, count=2, seconds=120)[0]
        assert (latest["ending"], latest["rated"], latest["left"], latest["win"]) == ("bots", False, True, 0.0)
    assert (standing(client, ana_key)["rating"], standing(client, bruno_key)["rating"]) == before
