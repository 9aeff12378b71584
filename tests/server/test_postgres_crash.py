"""``kill -9`` of PostgreSQL itself mid-game, on its safe defaults (fsync, synchronous_commit and
full_page_writes on; the other cluster tests run without them, for speed): every action a person
had acknowledged is still in the game's record after PostgreSQL's crash recovery, and the game goes
on to its end. Two processes behind nginx, one Redis (tests/server/cluster.py)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import asyncpg
import pytest

from .cluster import GAME, Cluster, cards_asked, check_record, over, play, seat_two_people
from .helpers import run


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with Cluster(2, safe_postgres=True) as running:
        yield running
        print(running.logs())  # shown with a failing test's report


def _settings(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    host = parse_qs(parts.query)["host"][0]

    async def read() -> dict[str, str]:
        connection = await asyncpg.connect(user="nimmt", database="nimmt", host=host)
        try:
            return {name: await connection.fetchval(f"SHOW {name}")
                    for name in ("fsync", "synchronous_commit", "full_page_writes")}
        finally:
            await connection.close()

    return run(read())


def test_kill_9_of_postgresql_loses_no_acknowledged_action(cluster: Cluster) -> None:
    """Twice: an action acknowledged, PostgreSQL killed at once, started again (crash recovery);
    then both nimmt processes are killed and started again, so that the table is rebuilt from
    what PostgreSQL kept, not from a process's memory: the acknowledged card is still there."""
    assert _settings(cluster.postgres_url) == {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on"}
    rng = random.Random(21)
    table_id, ana, bruno = seat_two_people(cluster)
    people = [ana, bruno]
    deadline = time.monotonic() + 2 * GAME
    for turn in (2, 6):
        play(rng, people, cards_asked(turn), deadline, cluster)
        state = ana.sync()
        message = ana.decision(rng, state)
        assert message is not None
        acked = ana.act(message, state)
        assert acked["type"] == "ack"
        cluster.kill_postgres()  # at once: the commit is all that holds the action
        try:
            during = bruno.sync()
            move = bruno.decision(rng, during)
            if move is not None:  # refused while it is down, never hanging
                answer = bruno.act(move, during)
                assert answer["type"] == "error" and answer["code"] == "server_error", answer
        finally:
            cluster.start_postgres()  # crash recovery from the write-ahead log
        for node in cluster.nodes:  # nothing left in any process's memory
            node.kill()
        for node in cluster.nodes:
            node.start()
        rebuilt = ana.connect()
        bruno.connect()
        assert rebuilt["version"] >= acked["version"], (rebuilt["version"], acked)
        seen = rebuilt["view"]
        revealed = {(shown["player"], shown["card"]) for shown in seen["revealed"]}  # the turn waits for a row
        assert (seen["my_card"] == message["card"] or (seen["player"], message["card"]) in revealed
                or seen["turn"] > state["view"]["turn"]), f"the acknowledged card {message['card']} is gone: {seen}"
    final = play(rng, people, over, deadline, cluster)
    log = (cluster.services / "pg" / "server.log").read_text(errors="replace")
    assert log.count("database system was interrupted") + log.count("not properly shut down") >= 2, \
        "PostgreSQL did not recover from a crash"
    check_record(cluster, table_id, people, final)
