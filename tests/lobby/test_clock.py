"""The clock of a timed table on the real app: each decision has its seconds; at zero a bot plays
that decision for the person (here or not), and the seat is theirs again at their next decision
when they are here; an away person's seat stays with the bot until they come back. Nothing is
decided for anyone before their clock runs out."""

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
from nimmt.server.journal import Played, SeatToBot, entry_from_json, entry_to_json
from nimmt.server.models import CLOCK_MIN
from nimmt.server.tables.clock import CLOCK_BOT
from tests.server.conftest import TEST_LIMITS
from tests.server.helpers import Person, create_table, join, legal_cards

CLOCK = CLOCK_MIN  # 5 s: the shortest clock a table may have


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=30,
                               limits=TEST_LIMITS)) as client:
        yield client


def seat(state: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["seats"][index]
    return found


def test_a_slow_persons_decision_goes_to_a_bot_at_zero_and_the_seat_comes_back_after_it(timed: TestClient) -> None:
    table = create_table(timed, seats=2, clock=CLOCK, rounds=1)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a, \
            timed.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        state = ana.state_where(lambda m: bool(legal_cards(m)))
        assert state["table"]["options"]["clock"] == CLOCK
        assert 0 < seat(state, 0)["clock_left"] <= CLOCK and 0 < seat(state, 1)["clock_left"] <= CLOCK
        began = time.monotonic()
        ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})
        # Ana has chosen: no clock for her; Bruno's runs on. Before zero nothing is chosen for him.
        state = ana.sync()
        assert seat(state, 0)["clock_left"] is None and seat(state, 1)["clock_left"] is not None
        assert state["view"]["turn"] == 0 and not seat(state, 1)["replaced"]
        # At zero, a bot plays his card although he is here; the turn moves on.
        moved = bruno.state_where(lambda m: m["view"] is not None and m["view"]["turn"] == 1, limit=10_000)
        assert time.monotonic() - began >= CLOCK - 1.0
        # His next decision is his again, with a fresh clock, and he plays it himself.
        mine = bruno.state_where(lambda m: bool(legal_cards(m)) and not seat(m, 1)["replaced"])
        assert seat(mine, 1)["bot"] is None and seat(mine, 1)["clock_left"] > CLOCK - 2
        assert moved["view"]["turn"] == 1
        assert bruno.send({"type": "play", "card": legal_cards(mine)[0], "version": mine["version"]})["type"] == "ack"
    entries = timed.get(f"/api/tables/{table['table_id']}").json()  # the table is still there
    assert entries["status"] == "playing"


def test_an_away_persons_seat_stays_with_the_bot_until_they_come_back(timed: TestClient) -> None:
    table = create_table(timed, seats=2, clock=CLOCK, rounds=1)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a:
        ana = Person(a, table["token"])
        with timed.websocket_connect(f"/ws/{table['table_id']}") as b:
            Person(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
        rng = random.Random(3)
        # Bruno has gone. Ana plays; each of Bruno's decisions waits for his clock once, then the bot
        # keeps his seat: the turns after go at Ana's pace.
        state = ana.state_where(lambda m: bool(legal_cards(m)))
        ana.act_randomly(rng, state)
        replaced = ana.state_where(lambda m: seat(m, 1)["replaced"], limit=10_000)
        assert seat(replaced, 1)["bot"] == CLOCK_BOT and seat(replaced, 1)["clock_left"] is None
        # The bot keeps his seat: no clock runs for him any more, turn after turn.
        for _ in range(3):
            state = ana.state_where(lambda m: bool(legal_cards(m)))
            assert seat(state, 1)["replaced"] and seat(state, 1)["clock_left"] is None
            ana.act_randomly(rng, state)
        assert seat(ana.sync(), 1)["replaced"]
        with timed.websocket_connect(f"/ws/{table['table_id']}") as b:
            bruno = Person(b, bruno_seat["token"])
            back = bruno.state_where(lambda m: not seat(m, 1)["replaced"] and bool(legal_cards(m)), limit=10_000)
            assert seat(back, 1)["bot"] is None


def test_no_clock_no_hand_over(timed: TestClient) -> None:
    table = create_table(timed, seats=2, rounds=1)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a, \
            timed.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        ana.send({"type": "start"})
        state = bruno.state_where(lambda m: bool(legal_cards(m)))
        assert seat(state, 1)["clock_left"] is None
        time.sleep(CLOCK + 1)
        assert not seat(bruno.sync(), 1)["replaced"] and legal_cards(bruno.sync())


def test_entries_carry_their_time_and_the_clocks_mark_but_compare_as_before() -> None:
    played = Played(1, 55, at=1_700_000_000.5)
    assert entry_to_json(played) == {"kind": "play", "seat": 1, "card": 55, "at": 1_700_000_000.5}
    assert entry_from_json(entry_to_json(played)) == played == Played(1, 55)
    assert entry_from_json(entry_to_json(played)).at == 1_700_000_000.5
    handed = SeatToBot(1, CLOCK_BOT, clock=True)
    assert entry_to_json(handed) == {"kind": "seat_to_bot", "seat": 1, "bot": CLOCK_BOT, "clock": True}
    assert entry_from_json(entry_to_json(handed)) == handed
    assert entry_from_json({"kind": "seat_to_bot", "seat": 1, "bot": "random"}) == SeatToBot(1, "random")


def test_after_a_restart_a_running_clock_is_found_without_anybody_opening_the_table(tmp_path: Path) -> None:
    db = tmp_path / "nimmt.sqlite3"
    with TestClient(create_app(db, bot_delay=0, away_grace=30, limits=TEST_LIMITS)) as first:
        table = create_table(first, seats=2, clock=CLOCK, rounds=1)
        bruno_seat = join(first, table["table_id"], "Bruno")
        with first.websocket_connect(f"/ws/{table['table_id']}") as a, \
                first.websocket_connect(f"/ws/{table['table_id']}") as b:
            ana = Person(a, table["token"])
            Person(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            ana.state_where(lambda m: bool(legal_cards(m)))
        assert first.portal is not None
        first.portal.call(first.app.state.service.listing.settled)  # type: ignore[attr-defined]
    # The server restarts; nobody opens the table. Its clock is found by the scan at start-up, and at
    # zero the decisions go to the clock's bot all the same.
    with TestClient(create_app(db, bot_delay=0, away_grace=30, limits=TEST_LIMITS)) as second:
        service = second.app.state.service  # type: ignore[attr-defined]
        store = service.store
        assert second.portal is not None
        deadline = time.monotonic() + 60
        while True:
            entries = [entry_from_json(e) for e in second.portal.call(store.journal, table["table_id"]) or []]
            handed = [e for e in entries if isinstance(e, SeatToBot) and e.clock]
            if len(handed) == 2:
                break
            assert time.monotonic() < deadline, "the clock never ran out after the restart"
            time.sleep(0.1)
        assert {e.seat for e in handed} == {0, 1} and all(e.bot == CLOCK_BOT for e in handed)
