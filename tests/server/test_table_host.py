"""One writer per table (issue 27, items 1 and 2): every change is a command submitted to the table's
host, which stores before it publishes and then tells its listeners once, with what it stored; the
tables' parts hold a narrow port, never the service, and never a table's lock."""

from __future__ import annotations

import ast
import asyncio
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
from nimmt.server.tables import ActionError, TableChanged, TableService, host
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


class Published(LocalHub):
    """A hub that notes the version of each piece of news it publishes."""

    def __init__(self) -> None:
        super().__init__()
        self.versions: list[int] = []

    async def publish(self, update: Update) -> None:
        self.versions.append(update.version)
        await super().publish(update)


def test_the_keepers_keep_a_change_before_its_news_goes_out(tmp_path: Path) -> None:
    hub = Published()
    kept: list[tuple[int, bool, list[int]]] = []  # each change's version, whether it stored, the news out then

    async def keeper(change: TableChanged) -> None:
        await asyncio.sleep(0.01)  # a write to the database
        kept.append((change.version, bool(change.stored), list(hub.versions)))

    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        service = TableService(store, hub, bot_delay=0, rng=random.Random(3), keepers=[keeper])
        try:
            table, _token = await service.create(CreateTable(name="Ana", seats=2, options=TableOptions(rounds=1)))
            await service.join(table, "Bruno")
            await service.arrive(table, 0)
            await service.act(table, 0, models.Start(type="start"))
        finally:
            await service.close()
            await store.close()

    run(scenario())
    assert [(version, stored) for version, stored, _out in kept] == [(1, True), (2, True), (2, False), (4, True)]
    for version, stored, out in kept:  # no news of what a change stored was out before it was kept
        assert not stored or all(published < version for published in out), (version, out)
    assert hub.versions == [2, 2, 3, 4]  # joined; arrived; started and dealt


def test_a_slow_keeper_holds_the_news_a_bounded_time_and_a_failing_one_is_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "KEEP_SECONDS", 0.05)
    hub = Published()
    release = asyncio.Event()
    finished: list[int] = []

    async def slow(change: TableChanged) -> None:
        await release.wait()
        finished.append(change.version)

    async def failing(change: TableChanged) -> None:
        raise RuntimeError("this keeper is broken")

    async def scenario() -> None:
        store = SqlStore.sqlite(tmp_path / "nimmt.sqlite3")
        await store.start()
        service = TableService(store, hub, bot_delay=0, rng=random.Random(3))
        service.subscribe(slow, keeper=True)
        service.subscribe(failing, keeper=True)
        try:
            table, _token = await service.create(CreateTable(name="Ana", seats=2))
            await service.join(table, "Bruno")  # returns although the slow keeper is still writing
            assert hub.versions == [2] and finished == []  # its news went out meanwhile
            assert service.ground.keeping  # and the slow writes go on in the background
            release.set()
        finally:
            await service.close()  # waits for the writes under way
            await store.close()
        assert finished == [1, 2] and not service.ground.keeping

    with caplog.at_level(logging.WARNING, logger="nimmt.server"):
        run(scenario())
    messages = [record.getMessage() for record in caplog.records]
    assert sum("a keeper of table" in message for message in messages) == 2  # the failing one, each change
    assert sum("still writing" in message for message in messages) == 2
