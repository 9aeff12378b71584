"""A group's standings from the store: its members (those without a game too), the names to show,
ratings from its games alone; guests, bots and former players have no row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from nimmt.people.model import FinishedGame, SeatResult
from nimmt.people.rated import EVERYONE, result_of
from nimmt.people.ratings import rate
from nimmt.people.standings import group_standings, overall_ratings
from nimmt.people.store import SqlPeopleStore
from nimmt.server.store import SqlStore
from tests.server.helpers import run

T0 = datetime(2026, 11, 27, 20, tzinfo=UTC)


def test_a_groups_standings(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'nimmt.sqlite3'}"

    async def main() -> None:
        tables = SqlStore(url)  # migrates the database; its Database is handed to the people store
        await tables.start()
        people = SqlPeopleStore(tables.database)
        try:
            ana, _ = await people.new_player("Ana")
            bruno, _ = await people.new_player("Bruno")
            carla, _ = await people.new_player("Carla")
            group = await people.new_group(ana.id, "Friday")
            for player in (bruno, carla):
                await people.join(group.invite, player.id)
            played = [
                FinishedGame("m1", "sheet", T0, 66, (SeatResult(0, ana.id, "Ana", None, 40),
                                                     SeatResult(1, bruno.id, "Bruno", None, 70),
                                                     SeatResult(2, None, "Guest", None, 20)),
                             ((10, 30, 10), (30, 40, 10)), group_id=group.id),
                FinishedGame("m2", "table", T0 + timedelta(days=7), 66,
                             (SeatResult(0, bruno.id, "Bruno B.", None, 5), SeatResult(1, None, "Bot 2", "expert", 70)),
                             ((5, 70),), "t1", 1, group.id),
                FinishedGame("m3", "sheet", T0, 66, (SeatResult(0, ana.id, "Ana", None, 1),
                                                     SeatResult(1, carla.id, "Carla", None, 90)), ((1, 90),)),
            ]
            for game in played:
                assert await people.record_game(game)
            await people.rename(bruno.id, "Bruno")
            standings = await group_standings(people, group.id)
            assert standings.games == 2  # m3 was played outside the group
            assert [(row.person, row.games, row.wins) for row in standings.rows] == [
                (bruno.id, 2, 1.0), (ana.id, 1, 0.0), (carla.id, 0, 0.0)]  # the guest won m1 but has no row
            assert standings.names[bruno.id] == "Bruno" and standings.names[carla.id] == "Carla"
            # The guest's seat (met once, an id of its own) is rated in its game but not kept.
            folded = rate(result_of(game) for game in played[:2])
            assert standings.ratings == {person: rating for person, rating in folded.items()
                                         if not person.startswith("former:")}
            # Overall: only the games played at nimmt's tables (m2), never score sheets; the public
            # list holds those who show their profile.
            assert set(await people.rated.ratings(EVERYONE)) == {bruno.id}
            rated, count = await overall_ratings(people)
            assert count == 1 and rated == {}
            await people.set_public(bruno.id, True)
            rated, count = await overall_ratings(people)
            assert count == 1 and set(rated) == {bruno.id}
        finally:
            await people.close()
            await tables.close()

    run(main())
