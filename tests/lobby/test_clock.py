"""The clock of a timed table on the real app: each decision has its seconds. At zero nothing is
chosen for a person who is here: every page is told (``clock_left`` 0), and another person at the
table may hand the seat to a bot, which keeps it until its person takes it back; their state then
says what the bot played. A person who has left has their seat handed by the clock itself, and gets
it back at their next decision once here. Nothing is decided for anyone before their clock runs out."""

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
from nimmt.server.tables.clock import ABSENT_FLOOR, CLOCK_BOT
from tests.server.conftest import TEST_LIMITS
from tests.server.helpers import Person, create_table, join, legal_cards, legal_rows

CLOCK = CLOCK_MIN  # 5 s: the shortest clock a table may have


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=30,
                               limits=TEST_LIMITS)) as client:
        yield client


def seat(state: dict[str, Any], index: int) -> dict[str, Any]:
    found: dict[str, Any] = state["table"]["seats"][index]
    return found


def low_card_first(state: dict[str, Any]) -> dict[str, Any]:
    """The lowest card, or the first row: the way to a row choice soonest."""
    if rows := legal_rows(state):
        return {"type": "choose_row", "row": rows[0], "version": state["version"]}
    return {"type": "play", "card": min(legal_cards(state)), "version": state["version"]}


def test_at_zero_nothing_is_chosen_for_a_present_person_until_another_hands_the_seat_over(
        timed: TestClient) -> None:
    table = create_table(timed, seats=2, clock=CLOCK, rounds=1)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a, \
            timed.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        state = ana.state_where(lambda m: bool(legal_cards(m)))
        assert state["table"]["options"]["clock"] == CLOCK
        assert 0 < seat(state, 0)["clock_left"] <= CLOCK and 0 < seat(state, 1)["clock_left"] <= CLOCK
        assert state["bot_played"] is None
        began = time.monotonic()
        ana.send({"type": "play", "card": max(legal_cards(state)), "version": state["version"]})
        # Before zero, Bruno is here: his seat cannot be handed over.
        refused = ana.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})
        assert refused["code"] == "player_present", refused
        # At zero every page is told (clock_left 0), and nothing is played for him: the table waits.
        out = ana.state_where(lambda m: seat(m, 1)["clock_left"] == 0, limit=10_000)
        assert time.monotonic() - began >= CLOCK - 1.0
        time.sleep(1.5)
        waiting = bruno.sync()
        assert waiting["view"]["turn"] == 0 and not seat(waiting, 1)["replaced"] and legal_cards(waiting)
        assert seat(out, 1)["bot"] is None and seat(waiting, 1)["clock_left"] == 0
        # He may not hand his own seat away; Ana may, at once (no grace: his time is up).
        assert bruno.send({"type": "seat_to_bot", "seat": 1, "bot": "random"})["code"] == "player_present"
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "heuristic"})["type"] == "ack"
        moved = bruno.state_where(lambda m: bool(m["bot_played"] and m["bot_played"]["moves"]), limit=10_000)
        assert seat(moved, 1)["replaced"] and moved["legal"] == []
        card = moved["bot_played"]["moves"][0]["card"]
        assert moved["bot_played"]["moves"] == [{"round": 1, "turn": 0, "card": card}]
        assert card not in moved["view"]["hand"]
        # The bot keeps his seat at his next decision, though he is here: it is his when he takes it back.
        rng = random.Random(5)
        while len(bruno.sync()["bot_played"]["moves"]) < 2 or bruno.state["view"]["turn"] < 2:
            if ana.act_randomly(rng) is None:
                time.sleep(0.05)  # the bot's turn: a tight loop would meet the server's message limit
        later = bruno.state
        assert seat(later, 1)["replaced"] and later["bot_played"]["moves"][1]["card"] not in later["view"]["hand"]
        assert bruno.send({"type": "seat_back"})["type"] == "ack"
        back = bruno.state_where(lambda m: not seat(m, 1)["replaced"])
        assert back["bot_played"]["moves"][:2] == later["bot_played"]["moves"][:2]  # still there to read
        while not legal_cards(bruno.sync()):
            if ana.act_randomly(rng) is None:
                time.sleep(0.05)
        mine = bruno.state
        assert seat(mine, 1)["bot"] is None and seat(mine, 1)["clock_left"] > CLOCK - 2
        assert ana.state_where(lambda m: m["bot_played"] is None)  # nobody played for Ana
        assert bruno.send(low_card_first(mine))["type"] == "ack"
    entries = [entry_from_json(e) for e in timed.portal.call(  # type: ignore[union-attr]
        timed.app.state.service.store.journal, table["table_id"]) or []]  # type: ignore[attr-defined]
    handed = [e for e in entries if isinstance(e, SeatToBot)]
    assert handed == [SeatToBot(1, "heuristic", keep=True)]


def test_a_row_choice_is_never_made_for_a_present_person(timed: TestClient) -> None:
    """Bruno plays his lowest cards until one is below every row; his clock runs out at the row choice
    and the table waits for him, whatever time passes, until Ana hands his seat over."""
    table = create_table(timed, seats=2, clock=10, rounds=3)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a, \
            timed.websocket_connect(f"/ws/{table['table_id']}") as b:
        ana, bruno = Person(a, table["token"]), Person(b, bruno_seat["token"])
        assert ana.send({"type": "start"})["type"] == "ack"
        while True:  # Ana plays her highest cards, Bruno his lowest: his row choice comes soon
            mine = bruno.sync()
            assert mine["table"]["status"] == "playing", "no row choice came"
            if legal_rows(mine):
                break
            if legal_cards(mine):
                assert bruno.send(low_card_first(mine))["type"] == "ack"
            hers = ana.sync()
            if legal_rows(hers):
                ana.send(low_card_first(hers))
            elif legal_cards(hers):
                ana.send({"type": "play", "card": max(legal_cards(hers)), "version": hers["version"]})
        rows = bruno.state_where(lambda m: bool(legal_rows(m)))
        out = ana.state_where(lambda m: seat(m, 1)["clock_left"] == 0, limit=10_000)
        assert out["view"]["phase"] == "choose_row"
        time.sleep(2)
        still = bruno.sync()
        assert still["version"] == rows["version"] and legal_rows(still) and not seat(still, 1)["replaced"]
        assert ana.send({"type": "seat_to_bot", "seat": 1, "bot": "heuristic"})["type"] == "ack"
        chosen = bruno.state_where(lambda m: bool(m["bot_played"] and m["bot_played"]["moves"]), limit=10_000)
        move = chosen["bot_played"]["moves"][0]
        assert set(move) == {"round", "turn", "row", "bullheads"} and 0 <= move["row"] <= 3


def test_the_clock_hands_the_seat_of_a_person_who_left_after_theirs_ran_out(timed: TestClient) -> None:
    table = create_table(timed, seats=2, clock=CLOCK, rounds=1)
    bruno_seat = join(timed, table["table_id"], "Bruno")
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a:
        ana = Person(a, table["token"])
        with timed.websocket_connect(f"/ws/{table['table_id']}") as b:
            bruno = Person(b, bruno_seat["token"])
            assert ana.send({"type": "start"})["type"] == "ack"
            state = ana.state_where(lambda m: bool(legal_cards(m)))
            ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})
            bruno.state_where(lambda m: seat(m, 1)["clock_left"] == 0, limit=10_000)
            assert not seat(bruno.sync(), 1)["replaced"]
        # He closes his page with his time run out: once he has been gone a few seconds, the clock's
        # bot plays for him (a reload costs nothing).
        left = time.monotonic()
        replaced = ana.state_where(lambda m: seat(m, 1)["replaced"], limit=10_000)
        assert time.monotonic() - left >= ABSENT_FLOOR - 1.0
        assert seat(replaced, 1)["bot"] == CLOCK_BOT
        ana.state_where(lambda m: bool(m["view"]["has_chosen"][1]) or m["view"]["turn"] == 1, limit=10_000)


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
            state = ana.state_where(lambda m: bool(m["legal"]))
            assert seat(state, 1)["replaced"] and seat(state, 1)["clock_left"] is None
            ana.act_randomly(rng, state)
        assert seat(ana.sync(), 1)["replaced"]
        with timed.websocket_connect(f"/ws/{table['table_id']}") as b:
            bruno = Person(b, bruno_seat["token"])
            # Ana plays on (her own clock would only wait for her): his next decision is his again.
            while seat(bruno.sync(), 1)["replaced"] or not bruno.state["legal"]:
                if ana.act_randomly(rng) is None:
                    time.sleep(0.05)  # the bot's turn: a tight loop would meet the server's message limit
            back = bruno.state
            assert seat(back, 1)["bot"] is None
            # His page says what the bot played for him meanwhile: a card in each turn he was away (three
            # at least; the fourth may have been his own again).
            assert len(back["bot_played"]["moves"]) >= 3 and all("card" in move or "row" in move
                                                                  for move in back["bot_played"]["moves"])


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
    kept = SeatToBot(1, "random", keep=True)
    assert entry_to_json(kept) == {"kind": "seat_to_bot", "seat": 1, "bot": "random", "keep": True}
    assert entry_from_json(entry_to_json(kept)) == kept
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
        first.portal.call(first.app.state.listing.settled)  # type: ignore[attr-defined]
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


def test_alone_against_bots_the_game_waits_for_the_person(timed: TestClient) -> None:
    """Nobody else can hand the seat over: the clock is only shown, and the table waits for her."""
    table = timed.post("/api/tables", json={"name": "Ana", "seats": 3, "bots": ["random", "random"], "start": True,
                                            "options": {"clock": CLOCK, "rounds": 1}}).json()
    with timed.websocket_connect(f"/ws/{table['table_id']}") as a:
        ana = Person(a, table["token"])
        out = ana.state_where(lambda m: bool(legal_cards(m)) and seat(m, 0)["clock_left"] == 0, limit=10_000)
        time.sleep(1.5)
        still = ana.sync()
        assert still["version"] == out["version"] and legal_cards(still) and seat(still, 0)["bot"] is None
        assert ana.send(low_card_first(still))["type"] == "ack"
