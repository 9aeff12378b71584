"""The journal's hot statements on PostgreSQL (asyncpg's own pool) after the server ended its
sessions while the event loop was busy (a restart, sessions cut): the server's FATAL and close wait
unread in the sockets, and asyncpg's pool would hand out a connection it has not seen close (the
statement failed: "connection was closed in the middle of operation", or, the FATAL read and the
close not yet, "cannot switch to state 12", as test_people_read_only did under load in CI). The
store takes a connection the server has not ended, and the read is answered."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy.engine import make_url

from nimmt.server.store import SqlStore

from .helpers import run
from .services import Services, _admin


@pytest.mark.parametrize("turns", [0, 1, 2])  # turns of the loop before the read: its close unread, then its FATAL read
def test_a_read_after_the_server_ended_the_pool_s_sessions_is_answered(services: Services, postgres_url: str,
                                                                       turns: int) -> None:
    database = make_url(postgres_url).database

    def cut() -> None:  # from another thread: this loop is busy meanwhile (it waits here)
        run(_admin(services.postgres_url, f"SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                                          f"WHERE datname = '{database}' AND pid <> pg_backend_pid()"))

    async def scenario() -> None:
        store = SqlStore(postgres_url)
        await store.start()
        try:
            await store.append("t", 0, {"kind": "note", "n": 0})
            for seq in range(1, 4):
                await asyncio.gather(*(store.journal(f"t{i}") for i in range(6)))  # several connections
                cutting = threading.Thread(target=cut)
                cutting.start()
                cutting.join()  # the loop is held: what the server said waits in the sockets
                for _turn in range(turns):
                    await asyncio.sleep(0)
                assert await store.journal("nobody's table") is None  # a read
                await store.append("t", seq, {"kind": "note", "n": seq})  # an entry alone: the hot INSERT
            entries = await store.journal("t")
            assert [entry["n"] for entry in entries or []] == [0, 1, 2, 3]
        finally:
            await store.close()

    run(scenario())
