"""The standings kept in the store (nimmt.people.rated: ratings, league figures, rating history)
equal the fold over all the games, exactly, after every game: in order (updated, not folded
again), out of order, after a deleted player (folded again in the background, off the loop), after
a confirmed score-sheet seat, in a group and overall (table games only), with a second store
racing; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from nimmt.people.model import FinishedGame, Player, SeatResult
from nimmt.people.rated import EVERYONE, fold
from nimmt.people.store import SqlPeopleStore
from nimmt.server.store import Database

from .test_store import T0, Clock, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def a_game(rng: random.Random, number: int, players: list[Player], *, group: str | None, minutes: int) -> FinishedGame:
    """A game of 2 to 4 seats: people of ``players``, a bot, a guest; each seat's total drawn."""
    chosen = rng.sample(players, rng.randint(1, min(3, len(players))))
    seats: list[tuple[str | None, str | None, str | None]] = [(p.id, p.name, None) for p in chosen]
    seats.append((None, "Bot", rng.choice(["expert", "beginner", "random"])) if rng.random() < 0.6
                 else (None, "Guest", None))
    rng.shuffle(seats)
    totals = [rng.choice([5, 20, 40, 40, 67, 80]) for _ in seats]
    sheet = group is not None and rng.random() < 0.4  # a score sheet: in its group only, seats to confirm
    left = {n for n, seat in enumerate(seats) if seat[2] is None and not sheet and rng.random() < 0.2}
    return FinishedGame(f"m{number:03d}", "sheet" if sheet else "table", T0 + timedelta(minutes=minutes), 66,
                        tuple(SeatResult(n, *seat, totals[n], n in left, not sheet or rng.random() < 0.5)
                              for n, seat in enumerate(seats)),
                        (tuple(totals),), f"t{number}" if not sheet else None, None if sheet else 1, group,
                        rated=rng.random() < 0.9)


async def check(people: SqlPeopleStore, group: str) -> None:
    """Each scope's kept standings are exactly the fold over the store's games."""
    everyone = await people.rated.standings(EVERYONE)
    assert everyone == fold(game for game in await people.all_games() if game.source == "table")
    assert await people.rated.standings(group) == fold(await people.group_games(group))


def test_kept_ratings_equal_the_fold_after_every_game(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        rng = random.Random(19)
        players = [(await people.new_player(name))[0] for name in ("Ana", "Bruno", "Carla", "Dora", "Eli")]
        group = await people.new_group(players[0].id, "Friday")
        await check(people, group.id)  # no game yet: both scopes folded once, empty
        folds = people.rated.recomputed
        for number in range(12):  # in order: each game updates the kept ratings, nothing is folded again
            await people.record_game(a_game(rng, number, players, group=group.id if number % 2 else None,
                                            minutes=10 * number))
            await check(people, group.id)
        assert people.rated.recomputed == folds
        # A game that ended earlier than the last one kept (a score sheet saved late): folded again.
        await people.record_game(a_game(rng, 50, players, group=group.id, minutes=5))
        await check(people, group.id)
        assert people.rated.recomputed == folds + 1  # the group (a score sheet) or the game's scopes
        await people.record_game(a_game(random.Random(3), 51, players, group=None, minutes=6))
        await check(people, group.id)
        # A deleted player's seats become "a former player": their scopes are folded again, started
        # at once in the background (a reader of a scope being folded waits for that fold).
        before = people.rated.recomputed
        await people.delete_player(players.pop(1).id)
        await check(people, group.id)
        assert people.rated.recomputed >= before + 2  # both scopes (a reader may meet a fold in progress)
        # A member confirms a score sheet's seat: the group is folded again, then it counts for them.
        sheets = [game for game in await people.group_games(group.id) if game.source == "sheet"
                  and any(seat.player_id and not seat.confirmed for seat in game.seats)]
        if sheets:
            seat = next(seat for seat in sheets[0].seats if seat.player_id and not seat.confirmed)
            assert seat.player_id is not None
            await people.confirm_seat(sheets[0].id, seat.player_id, mine=True)
            await check(people, group.id)
        # Two stores (two processes) keep games at once: whichever update loses, readers get the fold.
        other_database = Database(people.url)  # another process's
        other = SqlPeopleStore(other_database)
        try:
            await asyncio.gather(*(store.record_game(a_game(rng, 100 + n, players, group=group.id, minutes=500 + n))
                                   for n, store in enumerate([people, other] * 3)))
            await check(people, group.id)
            await check(other, group.id)
        finally:
            await other.close()
            await other_database.close()

    with_people(url, scenario)
