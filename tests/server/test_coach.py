"""The coach at a web table: advice for one's own decision only, from one's own view, changing nothing."""

from __future__ import annotations

import asyncio
import hashlib
import random
import threading
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from nimmt.coach import advise_cards, advise_rows
from nimmt.core import view
from nimmt.server.app import create_app
from nimmt.server.botpool import BotPool
from nimmt.server.store import SqlStore
from nimmt.server.tables import ADVICE_SAMPLES, Table, TableService, advice_seed

from .helpers import Person, create_table, join, legal_cards, legal_rows, run


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, seed=21)) as test_client:
        yield test_client


def _table(client: TestClient, table_id: str) -> Table:
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    assert client.portal is not None
    table = client.portal.call(service.get, table_id)
    assert table is not None
    return table


def _stored(client: TestClient, table_id: str) -> tuple[int, Any]:
    """What the store holds of a table: its journal's length and the first game's record."""
    service: TableService = client.app.state.service  # type: ignore[attr-defined]
    assert client.portal is not None
    journal = client.portal.call(service.store.journal, table_id)
    game = client.portal.call(service.store.game, table_id, 1)
    return len(journal or []), game


def _ask(person: Person, ref: str = "q") -> dict[str, Any]:
    person.socket.send_json({"type": "advice", "ref": ref})
    return person.until(lambda m: m["type"] in ("advice", "error") and m.get("ref") == ref)


def _drain(person: Person) -> list[dict[str, Any]]:
    """Every message this person receives until the answer to a ping."""
    person.socket.send_json({"type": "ping"})
    seen: list[dict[str, Any]] = []

    def keep(message: dict[str, Any]) -> bool:
        seen.append(message)
        return bool(message["type"] == "pong")

    person.until(keep)
    return seen


def _expected_cards(table: Table, seat: int) -> list[dict[str, Any]]:
    assert table.recorder is not None
    seen = view(table.recorder.state, seat)
    rng = random.Random(advice_seed(table.id, table.game, seen, "cards"))
    return [
        {"card": a.card, "row": a.row, "take_chance": a.take_chance, "turn_bullheads": a.turn_bullheads,
         "exact": a.exact, "round_bullheads": a.round_bullheads, "round_stderr": a.round_stderr,
         "net_bullheads": a.net_bullheads, "net_chance": a.net_chance}
        for a in advise_cards(seen, samples=ADVICE_SAMPLES, rng=rng)
    ]


def test_advice_is_the_coachs_numbers_for_ones_own_view_and_changes_nothing(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = create_table(client, seats=2, end_above=66)
    table_id = table["table_id"]
    bruno_seat = join(client, table_id, "Bruno")
    with client.websocket_connect(f"/ws/{table_id}") as a, client.websocket_connect(f"/ws/{table_id}") as b, \
            client.websocket_connect(f"/ws/{table_id}") as w:
        ana, bruno, watcher = Person(a, table["token"]), Person(b, bruno_seat["token"]), Person(w, None)
        assert _ask(ana)["code"] == "not_started"
        ana.send({"type": "start"})
        before = ana.sync()
        stored = _stored(client, table_id)

        # A second question while the first is worked on is refused; the first is then answered.
        # (The coach is held back until the refusal has come, so the order is certain.)
        # The coach thinks in a worker process; the question waits here before it is sent there.
        go_on = threading.Event()
        real = BotPool.run

        async def held(pool: BotPool, key: str, function: Callable[..., Any], *args: Any) -> Any:
            assert await asyncio.to_thread(go_on.wait, 30)
            return await real(pool, key, function, *args)

        monkeypatch.setattr(BotPool, "run", held)
        ana.socket.send_json({"type": "advice", "ref": "1"})
        ana.socket.send_json({"type": "advice", "ref": "2"})
        busy = ana.until(lambda m: m["type"] in ("advice", "error"))
        assert busy["ref"] == "2" and busy["code"] == "advice_busy"
        go_on.set()
        advice = ana.until(lambda m: m["type"] in ("advice", "error"))
        assert advice["ref"] == "1" and advice["type"] == "advice"
        monkeypatch.setattr(BotPool, "run", real)

        assert advice["kind"] == "cards" and advice["samples"] == ADVICE_SAMPLES
        assert advice["version"] == before["version"]
        assert [c["card"] for c in advice["cards"]] == before["view"]["hand"]
        assert advice["cards"] == _expected_cards(_table(client, table_id), 0)
        assert all(0 <= c["take_chance"] <= 1 and c["round_stderr"] >= 0 for c in advice["cards"])
        # The network's second opinion comes with them: bullheads to the end of the round, and the
        # policy's chance that each card is the best, a distribution over the hand.
        assert all(isinstance(c["net_bullheads"], float) and 0 <= c["net_chance"] <= 1 for c in advice["cards"])
        assert sum(c["net_chance"] for c in advice["cards"]) == pytest.approx(1, abs=1e-5)
        # Asked again: the same numbers (the seed is the decision's), at once.
        assert _ask(ana, "again")["cards"] == advice["cards"]

        # Bruno's token gives Bruno's advice, on Bruno's hand; a question cannot name a seat.
        bruno_advice = _ask(bruno)
        assert [c["card"] for c in bruno_advice["cards"]] == bruno.sync()["view"]["hand"]
        assert bruno_advice["cards"] == _expected_cards(_table(client, table_id), 1)
        assert bruno.send({"type": "advice", "seat": 0})["code"] == "bad_message"
        assert _ask(watcher)["code"] == "spectator"
        # Without a seat's token there is no question to ask: before hello, or with another table's token.
        elsewhere = create_table(client, seats=2, name="Zed")
        with client.websocket_connect(f"/ws/{table_id}") as stranger:
            stranger.send_json({"type": "advice", "ref": "x"})
            assert stranger.receive_json()["code"] == "hello_first"
            stranger.send_json({"type": "hello", "token": elsewhere["token"]})
            assert stranger.receive_json()["code"] == "bad_token"

        # Nothing was stored, nothing moved on, and nobody else heard the advice.
        assert _stored(client, table_id) == stored
        assert ana.sync()["version"] == before["version"] == client.get(f"/api/tables/{table_id}").json()["version"]
        assert ana.state["view"] == before["view"]
        assert not [m for m in _drain(watcher) if m["type"] == "advice"]
        assert not [m for m in _drain(bruno) if m["type"] == "advice"]

        # After her card is chosen, Ana has nothing to be advised on until the next decision.
        ana.send({"type": "play", "card": before["view"]["hand"][0], "version": before["version"]})
        assert _ask(ana)["code"] == "no_advice"

        # Play the lowest cards until someone's card is below every row: the row advice.
        chooser = None
        for _ in range(40):
            for person in (ana, bruno):
                state = person.sync()
                if legal_rows(state):
                    chooser = person
                    break
                if legal_cards(state):
                    person.send({"type": "play", "card": min(legal_cards(state)), "version": state["version"]})
            if chooser is not None:
                break
        assert chooser is not None, "nobody had to choose a row"
        other = bruno if chooser is ana else ana
        state = chooser.sync()
        seat = state["table"]["you"]
        stored = _stored(client, table_id)
        rows = _ask(chooser, "rows")
        assert rows["kind"] == "rows" and rows["card"] == state["view"]["row_choice_card"]
        the_table = _table(client, table_id)
        assert the_table.recorder is not None
        seen = view(the_table.recorder.state, seat)
        expected = advise_rows(seen, samples=ADVICE_SAMPLES,
                               rng=random.Random(advice_seed(table_id, the_table.game, seen, "rows")))
        assert rows["rows"] == [{"row": a.row, "now": a.now, "later": a.later, "later_stderr": a.later_stderr,
                                 "total": a.total, "net_total": a.net_total} for a in expected]
        assert all(isinstance(r["net_total"], float) for r in rows["rows"])
        assert [r["now"] for r in rows["rows"]] == state["view"]["row_bullheads"]
        assert _ask(other)["code"] == "no_advice"
        # The coach never chooses: the table still waits for the chooser, as it was.
        after = chooser.sync()
        assert after["version"] == state["version"] and legal_rows(after) == [0, 1, 2, 3]
        assert _stored(client, table_id) == stored
        assert chooser.send({"type": "choose_row", "row": 3, "version": after["version"]})["type"] == "ack"


def test_a_table_can_turn_the_coach_off(client: TestClient) -> None:
    table = create_table(client, seats=2, bots=["random"], rounds=1, coach=False)
    assert client.get(f"/api/tables/{table['table_id']}").json()["options"]["coach"] is False
    with client.websocket_connect(f"/ws/{table['table_id']}") as a:
        ana = Person(a, table["token"])
        ana.send({"type": "start"})
        state = ana.sync()
        assert state["table"]["options"]["coach"] is False and legal_cards(state)
        answer = _ask(ana)
        assert answer["code"] == "coach_off" and answer["message"]
        # The connection stays and the game goes on.
        assert ana.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})["type"] \
            == "ack"


def test_a_table_stored_before_the_coach_existed_loads_with_the_coach_on(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    token = "an-old-seat-token"

    async def old_table() -> None:
        store = SqlStore.sqlite(db)
        await store.start()
        await store.append("oldtable1", 0, {
            "kind": "create", "seats": 2, "bots": {"1": "random"},
            "options": {"end_above": 66, "rounds": 1, "countdown": False},  # no "coach": an older server
            "language": "en", "name": "Ana", "token_hash": hashlib.sha256(token.encode()).hexdigest(),
        })
        await store.close()

    run(old_table())
    with TestClient(create_app(db, bot_delay=0)) as client:
        assert client.get("/api/tables/oldtable1").json()["options"]["coach"] is True
        with client.websocket_connect("/ws/oldtable1") as a:
            ana = Person(a, token)
            ana.send({"type": "start"})
            assert _ask(ana)["kind"] == "cards"
