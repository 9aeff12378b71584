"""A player merged into another by a one-time code stays an alias of it (nimmt/people/aliases.py):
the ids a person answers to, a merge of a merge resolved in one look-up, the rows of the tables where
they sit moved over (once, where both sat), in their export, and gone with them. SQLite and PostgreSQL."""

from __future__ import annotations

import base64
from datetime import datetime, timedelta

import pytest
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import create_async_engine

from nimmt.people.store import SqlPeopleStore
from nimmt.server.seated import SEATED_TABLES
from nimmt.server.store import SCHEMA
from tests.people.test_store import T0, Clock, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


TABLES = SCHEMA.tables["tables"]


def test_a_merge_of_a_merge_answers_as_the_last_player_and_goes_with_them(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        engine = create_async_engine(url)

        async def seated(table_id: str, player_id: str, seat: int) -> None:
            async with engine.begin() as connection:
                if (await connection.execute(select(TABLES.c.id).where(TABLES.c.id == table_id))).first() is None:
                    await connection.execute(insert(TABLES).values(id=table_id, created_seq=0))
                await connection.execute(insert(SEATED_TABLES).values(
                    player_id=player_id, table_id=table_id, seat=seat, status="playing", turn_based=True,
                    changed_at=T0))

        async def rows() -> set[tuple[str, str, int]]:
            async with engine.connect() as connection:
                found = await connection.execute(select(SEATED_TABLES.c.player_id, SEATED_TABLES.c.table_id,
                                                        SEATED_TABLES.c.seat))
                return {(row.player_id, row.table_id, row.seat) for row in found.all()}

        try:
            phone, _ = await people.new_player("Ana")
            tablet, _ = await people.new_player("Ana")
            desk, _ = await people.new_player("Ana")
            bruno, _ = await people.new_player("Bruno")
            await seated("t-phone", phone.id, 0)
            await seated("t-both", phone.id, 1)
            await seated("t-both", tablet.id, 0)
            await seated("t-both", bruno.id, 2)
            await seated("t-tablet", tablet.id, 1)
            assert await people.aliases.answers_to(tablet.id) == [tablet.id]

            clock.now += timedelta(minutes=1)
            code, _ = await people.new_link_code(tablet.id)
            await people.merge_by_code(code, phone.id)  # the phone's player becomes part of the tablet's
            assert await people.aliases.answers_to(tablet.id) == [tablet.id, phone.id]
            assert await people.aliases.resolve([phone.id, tablet.id, "p-unknown"]) == {phone.id: tablet.id}
            # Where both sat, the tablet's row stays; the phone's other rows are the tablet's now.
            assert await rows() == {(tablet.id, "t-phone", 0), (tablet.id, "t-both", 0), (bruno.id, "t-both", 2),
                                    (tablet.id, "t-tablet", 1)}

            clock.now += timedelta(minutes=1)
            code, _ = await people.new_link_code(desk.id)
            await people.merge_by_code(code, tablet.id)  # and the tablet's becomes part of the desk's
            assert await people.aliases.answers_to(desk.id) == [desk.id, phone.id, tablet.id]
            assert await people.aliases.resolve([phone.id, tablet.id, bruno.id]) == {phone.id: desk.id,
                                                                                     tablet.id: desk.id}
            assert {row for row in await rows() if row[0] == desk.id} == {
                (desk.id, "t-phone", 0), (desk.id, "t-both", 0), (desk.id, "t-tablet", 1)}
            # A turn notice for a seat still named by the phone's player goes to the desk's devices.
            keys = base64.urlsafe_b64encode(b"\x04" + bytes(64)).decode(), base64.urlsafe_b64encode(bytes(16)).decode()
            turned_on = await people.push.add(desk.id, "https://push.example.com/desk", *keys)
            assert [found.id for found in await people.push.of_players([phone.id])] == [turned_on.id]
            exported = await people.export(desk.id)
            assert exported["merged_players"] == [
                {"id": phone.id, "merged_at": datetime.isoformat(T0 + timedelta(minutes=1))},
                {"id": tablet.id, "merged_at": datetime.isoformat(T0 + timedelta(minutes=2))}]
            assert (await people.export(bruno.id))["merged_players"] == []

            assert await people.delete_player(desk.id)
            assert await people.aliases.resolve([phone.id, tablet.id]) == {}
            assert await people.aliases.answers_to(desk.id) == [desk.id]
            assert await rows() == {(bruno.id, "t-both", 2)}
        finally:
            await engine.dispose()

    with_people(url, scenario)
