"""Nobody stuck: an absent person's seat goes to a bot when anyone at the table asks, once the person
has been away the grace; the host's buttons pass to the next present person; a replaced person who
comes back gets the seat back at their next decision."""

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

from .conftest import TEST_LIMITS
from .helpers import Person, create_table, join, legal_cards, legal_rows

GRACE = 1.0


def _client(path: Path, **options: Any) -> TestClient:
    return TestClient(create_app(path / "nimmt.sqlite3",
                                 **{"bot_delay": 0, "away_grace": GRACE, "limits": TEST_LIMITS, **options}))


@pytest.fixture
def graced(tmp_path: Path) -> Iterator[TestClient]:
    with _client(tmp_path) as client:
        yield client


def seat(state: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["seats"][index]
    return found


def test_anyone_hands_an_absent_seat_to_a_bot_after_the_grace(graced: TestClient) -> None:
    table = create_table(graced, seats=3, rounds=1)
    table_id = table["table_id"]
    bruno_seat, cleo_seat = join(graced, table_id, "Bruno"), join(graced, table_id, "Cleo")
    with graced.websocket_connect(f"/ws/{table_id}") as a, graced.websocket_connect(f"/ws/{table_id}") as b, \
            graced.websocket_connect(f"/ws/{table_id}") as w:
        ana, bruno, watcher = Person(a, table["token"]), Person(b, bruno_seat["token"]), Person(w, None)
        assert ana.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})["code"] == "not_started"
        with graced.websocket_connect(f"/ws/{table_id}") as c:
            cleo = Person(c, cleo_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            state = cleo.sync()
            assert state["table"]["away_grace"] == GRACE
            assert [seat(state, i)["away_seconds"] for i in range(3)] == [None, None, None]
            assert [seat(state, i)["replaced"] for i in range(3)] == [False, False, False]
            # Present people are never replaced, whoever asks.
            assert bruno.send({"type": "seat_to_bot", "seat": 0, "bot": "random"})["code"] == "player_present"
            assert cleo.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["code"] == "player_present"
        left = time.monotonic()
        # Cleo left: everyone learns she is away, and the seat is not handed over before the grace.
        away = bruno.until(lambda m: m["type"] == "state" and seat(m, 2)["away_seconds"] is not None)
        assert seat(away, 2)["present"] is False and seat(away, 2)["away_seconds"] < GRACE
        refused = bruno.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})
        assert refused["code"] == "not_away_long" and refused["params"]["seconds_left"] == 1
        assert refused["params"]["seat"] == 2 and refused["ref"] == "r1"
        assert watcher.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})["code"] == "spectator"
        # The server itself tells every page when the grace has run out: nobody has to ask.
        for person in (ana, bruno, watcher):
            done = person.until(lambda m: m["type"] == "state" and (seat(m, 2)["away_seconds"] or 0) >= GRACE)
            assert seat(done, 2)["bot"] is None
        assert time.monotonic() - left >= GRACE * 0.9
        # Bruno, who did not create the table, hands Cleo's seat to a bot.
        assert bruno.send({"type": "seat_to_bot", "seat": 2, "bot": "nobody"})["code"] == "unknown_bot"
        assert bruno.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})["type"] == "ack"
        state = ana.until(lambda m: m["type"] == "state" and seat(m, 2)["bot"] == "random")
        assert seat(state, 2)["replaced"] is True and seat(state, 2)["present"] is True
        assert seat(state, 2)["away_seconds"] >= GRACE  # the person is still away: the bot plays for her
        assert ana.send({"type": "seat_to_bot", "seat": 2, "bot": "random"})["code"] == "already_bot"
        for bad in (5, -1):
            assert ana.send({"type": "seat_to_bot", "seat": bad, "bot": "random"})["code"] == "no_such_seat"
        assert ana.send({"type": "seat_to_bot", "seat": "2", "bot": "random"})["code"] == "bad_message"
        # The bot plays Cleo's cards: the turn goes on without her.
        rng = random.Random(3)
        turn = ana.sync()["view"]["turn"]
        ana.act_randomly(rng)
        bruno.act_randomly(rng)
        deadline = time.monotonic() + 30
        while ana.sync()["view"]["turn"] == turn and ana.state["view"]["phase"] == "choose_cards":
            assert time.monotonic() < deadline, "the bot never played Cleo's card"
            time.sleep(0.05)  # within the message limit however long the bot takes


def test_the_host_passes_to_the_next_present_person_and_back(graced: TestClient) -> None:
    table = create_table(graced, seats=3, bots=["random"], rounds=1)
    table_id = table["table_id"]
    bruno_seat = join(graced, table_id, "Bruno")
    rng = random.Random(8)
    with graced.websocket_connect(f"/ws/{table_id}") as b, graced.websocket_connect(f"/ws/{table_id}") as w:
        watcher = Person(w, None)
        with graced.websocket_connect(f"/ws/{table_id}") as a:
            ana = Person(a, table["token"])
            bruno = Person(b, bruno_seat["token"])
            assert ana.state["table"]["host"] == 0 and ana.state["table"]["creator"] is True
            assert bruno.state["table"]["host"] == 0 and bruno.state["table"]["creator"] is False
            assert watcher.sync()["table"]["host"] == 0 and watcher.state["table"]["creator"] is False
            assert bruno.send({"type": "start"})["code"] == "not_creator"
        # Ana left: the host's buttons are Bruno's now (never the bot's).
        state = bruno.until(lambda m: m["type"] == "state" and m["table"]["host"] == 1)
        assert state["table"]["creator"] is True and state["table"]["status"] == "lobby"
        assert graced.get(f"/api/tables/{table_id}").json()["host"] == 1
        assert bruno.send({"type": "start"})["type"] == "ack"
        # Ana is back: the buttons are hers again.
        with graced.websocket_connect(f"/ws/{table_id}") as a:
            ana = Person(a, table["token"])
            assert ana.state["table"]["host"] == 0 and ana.state["table"]["creator"] is True
            back = bruno.until(lambda m: m["type"] == "state" and m["table"]["host"] == 0)
            assert back["table"]["creator"] is False
            deadline = time.monotonic() + 120
            while ana.sync()["table"]["status"] != "over":
                assert time.monotonic() < deadline, "the game did not end"
                ana.act_randomly(rng)
                bruno.act_randomly(rng)
            assert bruno.send({"type": "rematch"})["code"] == "not_creator"
        # Ana left again after the game: Bruno starts the rematch.
        bruno.until(lambda m: m["type"] == "state" and m["table"]["host"] == 1)
        assert bruno.send({"type": "rematch"})["type"] == "ack"
        assert bruno.sync()["table"]["game"] == 2
    # Nobody is here: nobody is host.
    assert graced.get(f"/api/tables/{table_id}").json()["host"] is None


def test_a_replaced_player_gets_the_seat_back_at_their_next_decision(client: TestClient) -> None:
    """With no grace (the ``client`` fixture): Bruno leaves, Ana hands his seat to a bot at once; the bot
    plays it until Bruno is back and the table awaits his seat again; from then on, Bruno plays."""
    table = create_table(client, seats=3, bots=["random"], rounds=1)
    table_id = table["table_id"]
    bruno_seat = join(client, table_id, "Bruno")
    rng = random.Random(11)
    with client.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, table["token"])
        with client.websocket_connect(f"/ws/{table_id}") as b:
            Person(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
        ana.until(lambda m: m["type"] == "state" and not seat(m, 1)["present"])
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["type"] == "ack"
        # The bot plays Bruno's card of this turn; the table then waits for Ana alone.
        deadline = time.monotonic() + 30
        while ana.sync()["view"]["waiting_for"] != [0]:
            assert time.monotonic() < deadline, "the bots never chose"
            time.sleep(0.05)  # within the message limit however long the bot takes
        turn = ana.state["view"]["turn"]
        with client.websocket_connect(f"/ws/{table_id}") as b:
            bruno = Person(b, bruno_seat["token"])
            # Back, but his seat's card of this turn is chosen: no decision of his is awaited yet.
            assert seat(bruno.state, 1)["replaced"] is True and seat(bruno.state, 1)["away_seconds"] is None
            assert bruno.state["legal"] == []
            refused = bruno.send({"type": "play", "card": bruno.state["view"]["hand"][0],
                                  "version": bruno.state["version"]})
            assert refused["code"] == "seat_is_bot"
            assert bruno.send({"type": "seat_to_bot", "seat": 0, "bot": "random"})["code"] == "seat_is_bot"
            # Ana plays: at Bruno's next decision, his seat is his again, before the bot acts.
            ana.act_randomly(rng)
            mine = bruno.until(lambda m: m["type"] == "state" and seat(m, 1)["bot"] is None)
            assert seat(mine, 1)["replaced"] is False and seat(mine, 1)["present"] is True
            state = bruno.sync()
            assert legal_cards(state) or legal_rows(state), "Bruno's decision is not shown"
            assert 1 in state["view"]["waiting_for"] and state["view"]["turn"] >= turn
            # The bot does not play for him any more: the table waits for Bruno.
            time.sleep(0.3)
            assert 1 in bruno.sync()["view"]["waiting_for"]
            assert bruno.act_randomly(rng) == {"type": "ack", "version": bruno.state["version"] + 1, "ref": "r1"}
            deadline = time.monotonic() + 120
            while ana.sync()["table"]["status"] != "over":
                assert time.monotonic() < deadline, "the game did not end"
                ana.act_randomly(rng)
                bruno.act_randomly(rng)
            assert seat(ana.state, 1)["bot"] is None


def test_a_replaced_player_takes_back_the_decision_pending_when_they_arrive(tmp_path: Path) -> None:
    """A slow bot (5 s before it acts): Bruno comes back while the bot is yet to play his card; the seat is
    his at once, and his page shows the decision."""
    with _client(tmp_path, bot_delay=5.0, away_grace=0.0) as client:
        table = create_table(client, seats=2, rounds=1)
        table_id = table["table_id"]
        bruno_seat = join(client, table_id, "Bruno")
        with client.websocket_connect(f"/ws/{table_id}") as a:
            ana = Person(a, table["token"])
            with client.websocket_connect(f"/ws/{table_id}") as b:
                Person(b, bruno_seat["token"])
                assert ana.send({"type": "start"})["type"] == "ack"
            ana.until(lambda m: m["type"] == "state" and not seat(m, 1)["present"])
            assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["type"] == "ack"
            assert seat(ana.sync(), 1)["replaced"] is True
            with client.websocket_connect(f"/ws/{table_id}") as b:
                bruno = Person(b, bruno_seat["token"])
                state = bruno.sync()
                assert seat(state, 1)["bot"] is None and seat(state, 1)["replaced"] is False
                assert len(legal_cards(state)) == 10 and state["view"]["turn"] == 0
                assert ana.until(lambda m: m["type"] == "state" and seat(m, 1)["bot"] is None)
                card = legal_cards(state)[0]
                assert bruno.send({"type": "play", "card": card, "version": state["version"]})["type"] == "ack"
                assert bruno.sync()["view"]["my_card"] == card


def test_a_replaced_player_back_after_the_game_gets_the_seat_and_may_host_the_rematch(client: TestClient) -> None:
    """Ana is replaced and away until the game is over; Bruno leaves too. When Ana comes back, her
    seat is hers again (no decision of the game is left for the bot), and she hosts the rematch."""
    table = create_table(client, seats=3, bots=["random"], rounds=1)
    table_id = table["table_id"]
    bruno_seat = join(client, table_id, "Bruno")
    rng = random.Random(5)
    with client.websocket_connect(f"/ws/{table_id}") as b:
        bruno = Person(b, bruno_seat["token"])
        with client.websocket_connect(f"/ws/{table_id}") as a:
            assert Person(a, table["token"]).send({"type": "start"})["type"] == "ack"
        bruno.until(lambda m: m["type"] == "state" and not seat(m, 0)["present"])
        assert bruno.send({"type": "seat_to_bot", "seat": 0, "bot": "random"})["type"] == "ack"
        deadline = time.monotonic() + 120
        while bruno.sync()["table"]["status"] != "over":
            assert time.monotonic() < deadline, "the game did not end"
            if bruno.act_randomly(rng) is None:
                time.sleep(0.05)  # the bots' turn: look again shortly (within the message limits)
        assert seat(bruno.state, 0)["bot"] == "random" and bruno.state["table"]["host"] == 1
    with client.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, table["token"])
        back = ana.state_where(lambda m: seat(m, 0)["bot"] is None)
        assert back["table"]["host"] == 0 and back["table"]["creator"] is True
        assert ana.send({"type": "rematch"})["type"] == "ack"
        state = ana.until(lambda m: m["type"] == "state" and m["table"]["status"] == "playing")
        assert seat(state, 0)["bot"] is None and state["table"]["game"] == 2
