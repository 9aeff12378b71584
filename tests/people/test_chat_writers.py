"""Who wrote in a group's chat (a member who left too), in the order of their first message: their
names are told apart from the members' (nimmt/server/routes/groups.py, member_marks)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from nimmt.people.store import SqlPeopleStore
from nimmt.server.routes.groups import member_marks
from tests.people.test_store import Clock, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def test_writers_in_the_order_of_their_first_message(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        bo, _ = await people.new_player("Bo")
        other, _ = await people.new_player("ANA")
        group = await people.new_group(ana.id, "Duo")
        for player in (bo, other):
            await people.join(group.invite, player.id)
        assert await people.chat.writers(group.id) == []
        for player in (other, ana, other, bo):
            clock.now += timedelta(seconds=3)
            await people.chat.post(group.id, player.id, "salut")
        assert await people.chat.writers(group.id) == [(other.id, "ANA"), (ana.id, "Ana"), (bo.id, "Bo")]
        await people.leave(group.id, other.id)
        members = await people.members(group.id)
        # The members first (in the order they joined), then the one who left: Ana 1, ANA 2.
        assert member_marks(members, await people.chat.writers(group.id)) == {ana.id: 1, other.id: 2}
        assert member_marks(members) == {}

    with_people(url, scenario)
