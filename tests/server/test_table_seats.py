"""Issue 18's table: a face-down card taken back before the reveal, bots seated in the lobby (and Start
filling the free seats), the rematch asked for by anyone and seen by everyone, bots named in the table's
language."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from starlette.testclient import TestClient

from nimmt.core import Phase
from nimmt.server.journal import (
    Created,
    Dealt,
    Entry,
    Joined,
    Played,
    Started,
    TakenBack,
    entry_from_json,
    entry_to_json,
)
from nimmt.server.tables import Table
from nimmt.server.tables.errors import ActionError

from .helpers import Person, create_table, join, legal_cards

HANDS = (tuple(range(11, 21)), tuple(range(31, 41)), tuple(range(51, 61)))


def _folded(entries: list[Entry]) -> Table:
    """The table its entries make, through their stored JSON form (as a restart reads them back)."""
    stored = [entry_to_json(entry) for entry in entries]
    return Table.replay("t", stored)


def test_a_card_taken_back_is_a_journal_entry_and_never_reaches_the_record() -> None:
    entries: list[Entry] = [
        Created(3, {2: "random"}, {}, "pt-BR", "Ana", "h0"), Joined(1, "Bruno", "h1"), Started(),
        Dealt((1, 2, 3, 4), HANDS), Played(0, 15), TakenBack(0), Played(2, 55),
    ]
    table = _folded(entries)
    assert entry_from_json(entry_to_json(TakenBack(0))) == TakenBack(0)
    state = table.recorder.state if table.recorder else None
    assert state is not None and state.phase is Phase.CHOOSE_CARDS
    assert state.chosen == (None, None, 55) and state.waiting_for == (0, 1)  # Ana chooses again
    assert table.seats[2].name == "Robô 3"
    table = _folded([*entries, Played(0, 12), Played(1, 33)])
    assert table.recorder is not None
    turn = table.recorder.record.rounds[0].turns[0]
    assert turn.cards == (12, 33, 55)  # only the card that was revealed
    with pytest.raises(ActionError) as refused:  # the turn is revealed: nothing face down to take back
        table.prepare(TakenBack(0))
    assert refused.value.code == "already_revealed"


@contextmanager
def _ana_and_bruno(client: TestClient, seats: int) -> Iterator[tuple[Person, Person]]:
    """Ana's table of ``seats`` seats (one round), Bruno joined, both connected."""
    table = create_table(client, seats=seats, rounds=1)
    bruno_seat = join(client, table["table_id"], "Bruno")
    with client.websocket_connect(f"/ws/{table['table_id']}") as a, \
            client.websocket_connect(f"/ws/{table['table_id']}") as b:
        yield Person(a, table["token"]), Person(b, bruno_seat["token"])


def test_taking_back_over_the_socket_hides_the_card_and_is_refused_after_the_reveal(client: TestClient) -> None:
    with _ana_and_bruno(client, 2) as (ana, bruno):
        assert ana.send({"type": "take_back"})["code"] == "not_started"
        ana.send({"type": "start"})
        state = ana.state_where(lambda m: bool(legal_cards(m)))
        first, second = legal_cards(state)[:2]
        assert ana.send({"type": "play", "card": first, "version": state["version"]})["type"] == "ack"
        seen = bruno.state_where(lambda m: m["view"] is not None and m["view"]["has_chosen"][0])
        assert ana.send({"type": "take_back"})["type"] == "ack"
        seen = bruno.state_where(lambda m: m["view"] is not None and not m["view"]["has_chosen"][0])
        assert seen["events"] == []  # others learn only that Ana chooses again, never her card
        mine = ana.state_where(lambda m: m["view"]["my_card"] is None and bool(legal_cards(m)))
        assert first in legal_cards(mine)
        assert ana.send({"type": "take_back"})["code"] == "already_revealed"  # nothing face down now
        assert ana.send({"type": "play", "card": second, "version": mine["version"]})["type"] == "ack"
        theirs = bruno.state_where(lambda m: bool(legal_cards(m)) and m["view"]["has_chosen"][0])
        answer = bruno.send({"type": "play", "card": legal_cards(theirs)[0], "version": theirs["version"]})
        assert answer["type"] == "ack"
        revealed = ana.state_where(lambda m: m["reveal"] is not None)
        assert [card for card, seat in revealed["reveal"]["cards"] if seat == 0] == [second]
        answer = ana.send({"type": "take_back"})
        assert answer["code"] == "already_revealed" and answer["message"]


def test_the_host_seats_and_removes_bots_in_the_lobby_and_start_fills_the_rest(client: TestClient) -> None:
    with _ana_and_bruno(client, 4) as (ana, bruno):
        assert bruno.send({"type": "add_bot", "bot": "expert"})["code"] == "not_creator"
        assert ana.send({"type": "add_bot", "bot": "nobody"})["code"] == "unknown_bot"
        assert ana.send({"type": "add_bot", "bot": "expert"})["type"] == "ack"
        seats = bruno.state_where(lambda m: m["table"]["seats"][2]["taken"])["table"]["seats"]
        assert seats[2]["bot"] == "expert" and seats[2]["name"] == "Bot 3" and not seats[3]["taken"]
        assert ana.send({"type": "remove_bot", "seat": 1})["code"] == "no_such_seat"  # Bruno is a person
        assert ana.send({"type": "remove_bot", "seat": 2})["type"] == "ack"
        assert not bruno.state_where(lambda m: not m["table"]["seats"][2]["taken"])["table"]["seats"][2]["bot"]
        assert ana.send({"type": "start"})["code"] == "seats_not_filled"
        assert ana.send({"type": "start", "fill": "nobody"})["code"] == "unknown_bot"
        assert ana.send({"type": "start", "fill": "heuristic"})["type"] == "ack"
        state = bruno.state_where(lambda m: m["table"]["status"] == "playing")
        assert [s["bot"] for s in state["table"]["seats"]] == [None, None, "heuristic", "heuristic"]
        assert [s["name"] for s in state["table"]["seats"]][2:] == ["Bot 3", "Bot 4"]
        assert ana.send({"type": "add_bot", "bot": "expert"})["code"] == "already_started"
        assert ana.send({"type": "remove_bot", "seat": 2})["code"] == "already_started"


def test_anyone_asks_for_the_rematch_and_everyone_sees_it(client: TestClient) -> None:
    with _ana_and_bruno(client, 2) as (ana, bruno):
        assert bruno.send({"type": "ask_rematch"})["code"] == "not_over"
        ana.send({"type": "start"})
        while (state := bruno.sync())["table"]["status"] != "over":
            for person in (ana, bruno):
                now = person.sync()
                if legal_cards(now):
                    person.send({"type": "play", "card": legal_cards(now)[0], "version": now["version"]})
                elif now["legal"]:
                    person.send({"type": "choose_row", "row": 0, "version": now["version"]})
        assert state["table"]["rematch_asked"] == []
        assert bruno.send({"type": "ask_rematch"})["type"] == "ack"
        assert bruno.send({"type": "ask_rematch"})["code"] == "already_asked"
        assert ana.state_where(lambda m: m["table"]["rematch_asked"] == [1])
        assert ana.send({"type": "ask_rematch"})["type"] == "ack"
        assert ana.send({"type": "rematch"})["type"] == "ack"
        state = bruno.state_where(lambda m: m["table"]["game"] == 2)
        assert state["table"]["rematch_asked"] == []
