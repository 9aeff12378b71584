"""A person's games in progress (issue 30, item 2): ``GET /api/me/tables`` lists the tables where
they hold a seat and whose game is not over, whose move it is at each and the time left on its
clock, those awaiting their move first; nobody else's, and nothing once the game is over."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update
from starlette.testclient import TestClient

from nimmt.server.app import create_app
from nimmt.server.routes.playing import PlayingOut, order
from nimmt.server.seated import SEATED_TABLES, SeatedRow
from nimmt.server.store import SqlStore

from .conftest import TEST_LIMITS
from .helpers import Person, legal_cards
from .test_people_api import new_player, refused

DAY = 86400


def eventually(ask: Callable[[], list[Any]], check: Callable[[list[Any]], bool]) -> list[Any]:
    """The answer once it satisfies ``check``: the rows are written in the background after each change."""
    deadline = time.monotonic() + 20
    while True:
        answer = ask()
        if check(answer) or time.monotonic() > deadline:
            return answer
        time.sleep(0.05)


def test_the_list_shows_each_game_in_progress_and_whose_move_it_is(client: TestClient) -> None:
    _ana, ana = new_player(client, "Ana")
    _bruno, bruno = new_player(client, "Bruno")
    _cleo, cleo = new_player(client, "Cleo")

    def tables(key: dict[str, str]) -> list[dict[str, Any]]:
        answer = client.get("/api/me/tables", headers=key)
        assert answer.status_code == 200, answer.text
        listed: list[dict[str, Any]] = answer.json()["tables"]
        return listed

    # A turn-based table with Bruno, a quick game against bots, and a table waiting for players.
    slow = client.post("/api/tables", json={"name": "Ana", "seats": 2, "options": {"clock": DAY}},
                       headers=ana).json()
    bruno_seat = client.post(f"/api/tables/{slow['table_id']}/join", json={"name": "Bruno"}, headers=bruno).json()
    quick = client.post("/api/tables", json={"name": "Ana", "seats": 3, "bots": ["random", "random"], "start": True},
                        headers=ana).json()
    waiting = client.post("/api/tables", json={"name": "Ana", "seats": 4, "bots": ["random"]}, headers=ana).json()
    with client.websocket_connect(f"/ws/{slow['table_id']}") as a, \
            client.websocket_connect(f"/ws/{slow['table_id']}") as b:
        ana_there, bruno_there = Person(a, slow["token"]), Person(b, bruno_seat["token"])
        assert ana_there.send({"type": "start"})["type"] == "ack"
        state = ana_there.state_where(lambda m: bool(legal_cards(m)))
        bruno_there.state_where(lambda m: bool(legal_cards(m)))
        listed = eventually(lambda: tables(ana), lambda got: len(got) == 3
                            and {t["table_id"]: t["status"] for t in got}[slow["table_id"]] == "playing")
        assert {t["table_id"] for t in listed} == {slow["table_id"], quick["table_id"], waiting["table_id"]}
        by_id = {t["table_id"]: t for t in listed}
        turn = by_id[slow["table_id"]]
        assert turn["your_move"] and turn["asked"] == "card" and turn["waiting_for"] == ["Bruno"]
        assert turn["clock"] == DAY and DAY - 120 < turn["clock_left"] <= DAY
        assert turn["url"] == f"/t/{slow['table_id']}" and turn["seat"] == 0 and turn["others"] == ["Bruno"]
        assert turn["round"] == 1 and turn["bullheads"] == 0
        assert by_id[quick["table_id"]]["your_move"] and by_id[quick["table_id"]]["clock_left"] is None
        lobby = by_id[waiting["table_id"]]
        assert lobby["status"] == "lobby" and not lobby["your_move"] and (lobby["seats"], lobby["taken"]) == (4, 2)
        # The tables awaiting Ana come first, the one with the least time left first of all.
        assert [t["table_id"] for t in listed][-1] == waiting["table_id"]
        assert listed[0]["table_id"] == slow["table_id"]

        # Ana plays her card: now the table awaits Bruno, and her clock is no longer shown as hers.
        card = legal_cards(state)[0]
        assert ana_there.send({"type": "play", "card": card, "version": state["version"]})["type"] == "ack"
        after = {t["table_id"]: t for t in tables(ana)}[slow["table_id"]]
        assert not after["your_move"] and after["asked"] is None and after["waiting_for"] == ["Bruno"]
        assert after["clock_left"] is not None and after["clock_left"] > DAY - 120
        assert next(t["table_id"] for t in tables(ana)) == quick["table_id"]
        mine = eventually(lambda: tables(bruno), lambda got: len(got) == 1)
        assert [(t["table_id"], t["your_move"], t["seat"], t["waiting_for"]) for t in mine] == [
            (slow["table_id"], True, 1, [])]

    # A table this process does not hold is read from its journal, and not loaded by the reading.
    service = client.app.state.service  # type: ignore[attr-defined]
    service.hosts.pop(waiting["table_id"])
    assert waiting["table_id"] in {t["table_id"] for t in tables(ana)}
    assert waiting["table_id"] not in service.tables
    # Nobody else sees them; no key is refused.
    assert tables(cleo) == []
    refused(client.get("/api/me/tables"), 401, "no_key")


def test_a_game_over_leaves_the_list_and_a_deleted_person_leaves_no_row(client: TestClient, tmp_path: Path) -> None:
    _ana, ana = new_player(client, "Ana")
    quick = client.post("/api/tables", json={"name": "Ana", "seats": 2, "bots": ["random"], "start": True,
                                             "options": {"rounds": 1}}, headers=ana).json()

    def tables() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = client.get("/api/me/tables", headers=ana).json()["tables"]
        return listed

    assert [t["table_id"] for t in tables()] == [quick["table_id"]]  # its row was kept before the answer
    with client.websocket_connect(f"/ws/{quick['table_id']}") as socket:
        ana_there = Person(socket, quick["token"])
        while True:
            state = ana_there.state_where(lambda m: bool(legal_cards(m)) or m["table"]["status"] == "over"
                                          or bool(m["view"].get("must_choose_row")))
            if state["table"]["status"] == "over":
                break
            if state["view"].get("must_choose_row"):
                ana_there.send({"type": "choose_row", "row": 0, "version": state["version"]})
            else:
                ana_there.send({"type": "play", "card": legal_cards(state)[0], "version": state["version"]})
    assert tables() == []  # its rows went before the last screen's news went out
    with sqlite3.connect(tmp_path / "nimmt.sqlite3") as database:  # a game over keeps no row
        assert database.execute("SELECT status FROM seated_tables").fetchall() == []
    assert client.get("/api/me/export", headers=ana).json()["seated_tables"] == []
    finished = client.get("/api/me/games", headers=ana).json()["games"]  # My games reads the games kept
    assert [game["replay_url"].rsplit("/replay/", 1)[1] for game in finished] == [f"{quick['table_id']}/1"]
    # A rematch: the table is listed again (its rows written anew); a deleted person's rows go with them.
    with client.websocket_connect(f"/ws/{quick['table_id']}") as socket:
        ana_there = Person(socket, quick["token"])
        ana_there.sync()
        assert ana_there.send({"type": "rematch"})["type"] == "ack"
    assert [t["table_id"] for t in tables()] == [quick["table_id"]]
    assert client.delete("/api/me", headers=ana).status_code == 204
    with sqlite3.connect(tmp_path / "nimmt.sqlite3") as database:  # the person's rows go with them
        assert database.execute("SELECT count(*) FROM seated_tables").fetchall() == [(0,)]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_sweep_removes_rows_no_list_shows_a_batch_at_a_time(tmp_path: Path, kind: str,
                                                                  request: pytest.FixtureRequest) -> None:
    """Rows of a game over written before they went at its end, and tables not turn-based quiet for a
    week, go (at most a batch a sweep); a turn-based table's row stays, however old. On SQLite and on a
    real PostgreSQL (its row-value IN and its time zones)."""
    if kind == "sqlite":
        app = create_app(tmp_path / "nimmt.sqlite3", bot_delay=0, away_grace=0, limits=TEST_LIMITS)
    else:
        app = create_app(store=SqlStore(request.getfixturevalue("postgres_url")), bot_delay=0, away_grace=0,
                         limits=TEST_LIMITS)
    with TestClient(app) as client:
        _ana, ana = new_player(client, "Ana")
        made = [client.post("/api/tables", json={"name": "Ana", "seats": 2}, headers=ana).json()["table_id"]
                for _ in range(4)]
        seated = client.app.state.seated  # type: ignore[attr-defined]
        columns = SEATED_TABLES.c
        old = datetime.now(UTC) - timedelta(days=8)

        async def age() -> None:  # through the app's own engine: the same SQL on both databases
            async with seated._engine.begin() as connection:
                for table_id, status, clocked, changed in zip(made, ("over", "playing", "playing", "lobby"),
                                                              (False, False, True, False), (None, old, old, None),
                                                              strict=True):
                    values: dict[str, object] = {"status": status, "turn_based": clocked}
                    if changed is not None:
                        values["changed_at"] = changed
                    await connection.execute(update(SEATED_TABLES).where(columns.table_id == table_id).values(values))

        async def rows() -> set[str]:
            async with seated._engine.connect() as connection:
                return {row.table_id for row in await connection.execute(select(columns.table_id))}

        portal = client.portal
        assert portal is not None
        portal.call(age)
        assert portal.call(rows) == set(made)
        assert portal.call(seated.sweep, 1) == 1  # bounded: one a sweep here
        assert portal.call(seated.sweep) == 1
        assert portal.call(seated.sweep) == 0
        assert portal.call(rows) == {made[2], made[3]}  # the turn-based one, however quiet; the recent one


def test_the_order_puts_the_moves_awaited_first_and_the_least_time_left_first() -> None:
    now = datetime(2026, 12, 6, tzinfo=UTC)

    def item(name: str, mine: bool, left: float | None, ago: int) -> tuple[PlayingOut, SeatedRow]:
        out = PlayingOut(table_id=name, url=f"/t/{name}", seat=0, status="playing", your_move=mine,
                         asked="card" if mine else None, waiting_for=[], clock=DAY if left is not None else None,
                         clock_left=left, bot_plays=False, others=[], group=None, round=1, bullheads=0, seats=2,
                         taken=2)
        return out, SeatedRow(name, 0, "playing", left is not None, now - timedelta(minutes=ago))

    shown = [item("theirs-old", False, 10.0, 50), item("mine-late", True, 80000.0, 1), item("mine-live", True, None, 2),
             item("theirs-new", False, None, 3), item("mine-soon", True, 600.0, 40)]
    assert [out.table_id for out in order(shown)] == ["mine-soon", "mine-late", "mine-live", "theirs-new",
                                                      "theirs-old"]
