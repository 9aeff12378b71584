"""A table's journal: typed entries and their JSON form, and a damaged journal refused clearly."""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nimmt.server.hub import LocalHub
from nimmt.server.journal import (
    Created,
    Dealt,
    Entry,
    Joined,
    JournalError,
    Played,
    Rematched,
    Reviewed,
    RowChosen,
    SeatBack,
    SeatToBot,
    Started,
    entry_from_json,
    entry_to_json,
)
from nimmt.server.models import CreateTable, TableOptions
from nimmt.server.store import SqlStore
from nimmt.server.tables import ActionError, TableService
from tests.server.helpers import run

seats = st.integers(0, 9)
text = st.text(max_size=12)
times = st.none() | st.floats(1e9, 3e9, allow_nan=False).map(lambda t: round(t, 3))
entries: st.SearchStrategy[Entry] = st.one_of(
    st.builds(Created, st.integers(2, 10), st.dictionaries(seats, text, max_size=3),
              st.just({"rounds": 1, "end_above": 66}), text, text, text, times),
    st.builds(Joined, seats, text, text, times),
    st.just(Started()),
    st.just(Rematched()),
    st.builds(SeatToBot, seats, text),
    st.builds(SeatBack, seats),
    st.builds(Dealt, st.tuples(*[st.integers(1, 104)] * 4),
              st.lists(st.tuples(*[st.integers(1, 104)] * 10).map(tuple), min_size=2, max_size=10).map(tuple)),
    st.builds(Played, seats, st.integers(1, 104)),
    st.builds(RowChosen, seats, st.integers(0, 3)),
    st.builds(Reviewed, st.integers(1, 9), st.fixed_dictionaries(
        {"format": st.just(1), "samples": st.integers(2, 4096), "players": st.lists(seats, max_size=3)})),
)


@given(entries)
def test_every_entry_reads_back_as_written(entry: Entry) -> None:
    data = entry_to_json(entry)
    assert entry_from_json(data) == entry
    assert isinstance(data["kind"], str)


def test_the_stored_form_is_the_one_journals_already_hold() -> None:
    """Entries written before they were typed read back (no 'at' then), and are written alike."""
    old = [
        {"kind": "create", "seats": 3, "bots": {"2": "random"}, "options": {"rounds": 1}, "language": "pt-PT",
         "name": "Ana", "token_hash": "ab"},
        {"kind": "join", "seat": 1, "name": "Bruno", "token_hash": "cd"},
        {"kind": "start"},
        {"kind": "deal", "rows": [1, 2, 3, 4], "hands": [[5, 6], [7, 8], [9, 10]]},
        {"kind": "play", "seat": 0, "card": 5},
        {"kind": "row", "seat": 2, "row": 3},
        {"kind": "seat_to_bot", "seat": 1, "bot": "heuristic"},
        {"kind": "seat_back", "seat": 1},
        {"kind": "rematch"},
    ]
    typed = [entry_from_json(data) for data in old]
    assert typed[0] == Created(3, {2: "random"}, {"rounds": 1}, "pt-PT", "Ana", "ab", None)
    assert typed[3] == Dealt((1, 2, 3, 4), ((5, 6), (7, 8), (9, 10)))
    assert [entry_to_json(entry) for entry in typed] == old


@pytest.mark.parametrize(("data", "says"), [
    ([], "JSON object"),
    ({"kind": "shuffle"}, "unknown journal entry kind 'shuffle'"),
    ({"kind": "play", "seat": 0}, "has no 'card'"),
    ({"kind": "play", "seat": 0, "card": "5"}, "'card' must be a whole number"),
    ({"kind": "play", "seat": True, "card": 5}, "'seat' must be a whole number"),
    ({"kind": "deal", "rows": [1, 2, 3, 4], "hands": [[5, 6.5]]}, "'hands' must be lists of whole numbers"),
    ({"kind": "join", "seat": 1, "name": None, "token_hash": "x"}, "'name' must be text"),
    ({"kind": "create", "seats": 2, "bots": {"one": "random"}, "options": {}, "language": "en", "name": "A",
      "token_hash": "x"}, "seat of the entry's 'bots' must be a number"),
    ({"kind": "join", "seat": 1, "name": "B", "token_hash": "x", "at": "noon"}, "'at' must be a time"),
    ({"kind": "review", "game": 1, "review": []}, "'review' must be an object"),
    ({"kind": "review", "review": {}}, "has no 'game'"),
])
def test_a_damaged_entry_is_refused_saying_what_is_wrong(data: Any, says: str) -> None:
    with pytest.raises(JournalError, match=says):
        entry_from_json(data)


def test_a_table_with_a_damaged_journal_is_refused_in_one_line_and_the_others_are_served(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        ids = iter(["damaged", "sound"])
        service = TableService(store, LocalHub(), bot_delay=0, rng=random.Random(3), make_id=lambda: next(ids))
        try:
            for _ in range(2):
                await service.create(CreateTable(name="Ana", seats=2, options=TableOptions(rounds=1)))
            await store.append("damaged", 1, {"kind": "join", "seat": 1, "name": ["not", "text"], "token_hash": "x"})
            service.evict_idle(later=10_000)  # both leave memory, to be read back from the store
            with pytest.raises(ActionError) as refused:
                await service.get("damaged")
            assert refused.value.code == "server_error"
            assert (await service.get("sound")) is not None
            assert len(await store.journal("damaged") or []) == 2  # nothing was changed
        finally:
            await service.close()
            await store.close()

    with caplog.at_level(logging.INFO, logger="nimmt.server"):
        run(scenario())
    lines = [r for r in caplog.records if r.name == "nimmt.server" and r.levelno >= logging.ERROR]
    assert len(lines) == 1 and "'name' must be text" in lines[0].getMessage() and lines[0].exc_info is None


def test_a_write_that_finds_its_number_taken_catches_up_and_is_stored_after_it(tmp_path: Path) -> None:
    # Another process stored entry 1 first (here: written straight to the store). This process's join
    # finds the number taken, hears of it (the conflicts metric), reads what it missed and joins after it.
    conflicts: list[None] = []

    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        service = TableService(store, LocalHub(), bot_delay=0, rng=random.Random(3), make_id=lambda: "shared",
                               observe_conflict=lambda: conflicts.append(None))
        try:
            table, _ = await service.create(CreateTable(name="Ana", seats=3))
            await store.append("shared", 1, {"kind": "join", "seat": 1, "name": "Bo", "token_hash": "x"})
            seat, _ = await service.join(table, "Cy")
            assert seat == 2
            assert [s.name for s in table.seats] == ["Ana", "Bo", "Cy"]
            assert [e["kind"] for e in await store.journal("shared") or []] == ["create", "join", "join"]
        finally:
            await service.close()
            await store.close()

    run(scenario())
    assert len(conflicts) == 1
