"""One writer per table (issue 27, items 1 and 2): every change is a command submitted to the table's
host, which stores before it publishes and then tells its listeners once, with what it stored; the
tables' parts hold a narrow port, never the service, and never a table's lock."""

from __future__ import annotations

import ast
import logging
import random
from pathlib import Path

import pytest

import nimmt.server.tables
from nimmt.server import models
from nimmt.server.hub import LocalHub, Update
from nimmt.server.journal import Created, Dealt, Joined, Played, Started
from nimmt.server.models import CreateTable, TableOptions
from nimmt.server.store import SqlStore
from nimmt.server.tables import ActionError, TableChanged, TableService
from nimmt.server.tables.commands import Act, Announce
from tests.server.helpers import run

TABLES = Path(nimmt.server.tables.__file__).parent


class Recording(LocalHub):
    """A hub that notes, with each publish, what the store held then."""

    def __init__(self, store: SqlStore) -> None:
        super().__init__()
        self.store = store
        self.stored_when_published: list[tuple[int, int]] = []

    async def publish(self, update: Update) -> None:
        if update.entry is not None:
            held = await self.store.journal(update.table_id)
            self.stored_when_published.append((update.version, len(held or [])))
        await super().publish(update)


def test_each_command_is_heard_once_with_what_it_stored_and_each_entry_is_stored_before_it_is_published(
        tmp_path: Path) -> None:
    heard: list[TableChanged] = []

    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        hub = Recording(store)
        service = TableService(store, hub, bot_delay=0, rng=random.Random(3), listeners=[heard.append])
        try:
            table, _token = await service.create(CreateTable(name="Ana", seats=2, options=TableOptions(rounds=1)))
            await service.join(table, "Bruno")
            await service.arrive(table, 0)
            await service.act(table, 0, models.Start(type="start"))
            state = table.recorder
            assert state is not None
            card = state.state.hands[0][0]
            await service.act(table, 0, models.Play(type="play", card=card, version=table.version))
            with pytest.raises(ActionError):  # refused: nothing stored, nothing heard
                await service.act(table, 0, models.Play(type="play", card=card, version=table.version))
            await service.leave(table, 0)
        finally:
            await service.close()
            await store.close()
        kinds = [[type(entry) for entry in change.stored] for change in heard]
        assert kinds == [[Created], [Joined], [], [Started, Dealt], [Played], []]
        assert [change.version for change in heard] == [1, 2, 2, 4, 5, 5]  # a table's version: its entries
        # every entry was in the store before its news went out
        assert hub.stored_when_published and all(held >= version for version, held in hub.stored_when_published)

    run(scenario())


def test_a_listener_that_fails_is_logged_and_the_others_still_hear(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    heard: list[int] = []

    def broken(change: TableChanged) -> None:
        raise RuntimeError("this listener is broken")

    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        service = TableService(store, LocalHub(), bot_delay=0, rng=random.Random(3), listeners=[broken])
        service.subscribe(lambda change: heard.append(change.version))
        try:
            table, _token = await service.create(CreateTable(name="Ana", seats=2))
            await service.submit(table, Announce())
            with pytest.raises(ActionError) as refused:
                await service.submit(table, Act(None, models.Start(type="start")))
            assert refused.value.code == "spectator"
        finally:
            await service.close()
            await store.close()

    with caplog.at_level(logging.ERROR, logger="nimmt.server"):
        run(scenario())
    assert heard == [1, 1]
    assert sum("a listener of table" in record.getMessage() for record in caplog.records) == 2


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


@pytest.mark.parametrize("part", ["bots", "clock", "presence", "memory", "reviews", "coach"])
def test_a_part_of_the_tables_holds_no_service_and_takes_no_lock(part: str) -> None:
    path = TABLES / f"{part}.py"
    assert ".service" not in _imports(path), f"{part}.py imports the service: it should hold a Port"
    text = path.read_text(encoding="utf-8")
    assert "self.service" not in text and ".lock" not in text


def test_only_the_host_stores_a_table_s_entries() -> None:
    server = TABLES.parent
    writers = {path.relative_to(server).as_posix() for path in server.rglob("*.py")
               if "store.append(" in path.read_text(encoding="utf-8")}
    # the host; the service stores a table's first entry (before the table, and so its host, exists)
    assert writers == {"tables/host.py", "tables/service.py"}
