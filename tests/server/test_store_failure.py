"""When storing fails, nothing is applied and nothing is acknowledged; the next try works."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from nimmt.server.hub import LocalHub
from nimmt.server.models import CreateTable, Play, Start, TableOptions
from nimmt.server.store import GameRow, SqlStore
from nimmt.server.table import TableService
from tests.server.helpers import run


class FlakyStore(SqlStore):
    fail = False

    async def append(self, table_id: str, seq: int, entry: dict[str, Any], game: GameRow | None = None) -> None:
        if self.fail:
            raise OSError("disk full")
        await super().append(table_id, seq, entry, game)


async def _scenario(path: Path) -> None:
    store = FlakyStore.sqlite(path)
    await store.start()
    service = TableService(store, LocalHub(), bot_delay=0, rng=random.Random(1))
    try:
        table, _ = await service.create(CreateTable(name="Ana", seats=2, options=TableOptions(rounds=1)))
        await service.join(table, "Bruno")
        await service.act(table, 0, Start(type="start"))
        assert table.recorder is not None
        before = (table.version, table.recorder.state, table.recorder.record)
        card = table.recorder.state.hands[0][0]
        store.fail = True
        with pytest.raises(OSError):
            await service.act(table, 0, Play(type="play", card=card, version=table.version))
        assert (table.version, table.recorder.state, table.recorder.record) == before
        store.fail = False
        await service.act(table, 0, Play(type="play", card=card, version=table.version))
        assert table.recorder.state.chosen[0] == card and table.version == before[0] + 1
        # What is stored matches what the table holds: a fresh service rebuilds the same table.
        again = TableService(store, LocalHub(), bot_delay=0)
        rebuilt = await again.get(table.id)
        assert rebuilt is not None and rebuilt.recorder is not None
        assert rebuilt.recorder.state == table.recorder.state and rebuilt.version == table.version
        await again.close()
    finally:
        await service.close()
        await store.close()


def test_a_failed_store_applies_nothing(tmp_path: Path) -> None:
    run(_scenario(tmp_path / "nimmt.sqlite3"))
