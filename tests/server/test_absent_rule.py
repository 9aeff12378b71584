"""The absent rule, a table option chosen at creation: "bot" hands an absent person's seat to the
table's bot once the grace has run out, with nobody asking (the person gets it back at their next
decision); "ask" (the default, and every table stored before the option) waits for someone to."""

from __future__ import annotations

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


@pytest.fixture
def graced(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=GRACE, limits=TEST_LIMITS)
    with TestClient(app) as client:
        yield client


def _seat(state: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["seats"][index]
    return found


def test_the_bot_rule_hands_an_absent_seat_over_by_itself(graced: TestClient) -> None:
    table = create_table(graced, seats=3, rounds=1, absent="bot", absent_bot="beginner")
    table_id = table["table_id"]
    bruno, cleo = join(graced, table_id, "Bruno"), join(graced, table_id, "Cleo")
    with graced.websocket_connect(f"/ws/{table_id}") as a, graced.websocket_connect(f"/ws/{table_id}") as b:
        ana, bob = Person(a, table["token"]), Person(b, bruno["token"])
        with graced.websocket_connect(f"/ws/{table_id}") as c:
            Person(c, cleo["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            state = ana.sync()
            assert state["table"]["options"]["absent"] == "bot"
            assert state["table"]["options"]["absent_bot"] == "beginner"
        left = time.monotonic()
        # Cleo left: before the grace her seat waits for her; then the table's bot plays it, unasked.
        away = ana.until(lambda m: m["type"] == "state" and _seat(m, 2)["away_seconds"] is not None)
        assert _seat(away, 2)["bot"] is None
        handed = ana.until(lambda m: m["type"] == "state" and _seat(m, 2)["bot"] == "beginner", limit=5000)
        assert time.monotonic() - left >= GRACE * 0.9
        assert _seat(handed, 2)["replaced"] is True
        # The game goes on without anyone waiting for Cleo: the bot plays for her; Cleo comes back, and
        # her seat is hers again at her next decision (the bot has chosen this turn's card already).
        with graced.websocket_connect(f"/ws/{table_id}") as c:
            cleo_again = Person(c, cleo["token"])
            for _step in range(12):
                for person in (ana, bob):
                    state = person.sync()
                    if legal_rows(state):
                        person.send({"type": "choose_row", "row": legal_rows(state)[0], "version": state["version"]})
                    elif legal_cards(state):
                        person.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})
                if _seat(cleo_again.sync(), 2)["bot"] is None:
                    break
            back = cleo_again.sync()
            assert _seat(back, 2)["bot"] is None and _seat(back, 2)["replaced"] is False
            assert legal_cards(back) or back["view"]["my_card"] is None


def test_the_ask_rule_waits_for_someone_to_ask(graced: TestClient) -> None:
    table = create_table(graced, seats=2, rounds=1)  # no option: "ask", today's way
    table_id = table["table_id"]
    bruno = join(graced, table_id, "Bruno")
    with graced.websocket_connect(f"/ws/{table_id}") as a:
        ana = Person(a, table["token"])
        with graced.websocket_connect(f"/ws/{table_id}") as b:
            Person(b, bruno["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            assert ana.sync()["table"]["options"]["absent"] == "ask"
        done = ana.until(lambda m: m["type"] == "state" and (_seat(m, 1)["away_seconds"] or 0) >= GRACE)
        time.sleep(GRACE / 2)
        assert _seat(ana.sync(), 1)["bot"] is None and _seat(done, 1)["bot"] is None
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["type"] == "ack"


def test_an_unknown_bot_for_the_absent_rule_is_refused(graced: TestClient) -> None:
    answer = graced.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"absent": "bot",
                                                                                    "absent_bot": "nobody"}})
    assert answer.status_code == 409 and answer.json()["code"] == "unknown_bot"
    answer = graced.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"absent": "maybe"}})
    assert answer.status_code in (400, 422)
