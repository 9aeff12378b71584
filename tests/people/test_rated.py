"""The ratings kept in the store (nimmt.people.rated) equal the fold over all the games, exactly,
after every game: in order (updated, not folded again), out of order, after a deleted player, in
a group and overall, with a second store racing; on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest

from nimmt.people.model import FinishedGame, Player, SeatResult
from nimmt.people.rated import EVERYONE, fold
from nimmt.people.store import SqlPeopleStore

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
    return FinishedGame(f"m{number:03d}", "sheet", T0 + timedelta(minutes=minutes), 66,
                        tuple(SeatResult(n, *seat, totals[n]) for n, seat in enumerate(seats)),
                        (tuple(totals),), group_id=group)


async def check(people: SqlPeopleStore, group: str) -> None:
    """Each scope's kept ratings are exactly the fold over the store's games."""
    everyone = await people.rated.ratings(EVERYONE, load=people.all_games)
    assert everyone == {k: v for k, v in fold(await people.all_games()).items() if not k.startswith("former:")}
    in_group = await people.rated.ratings(group, load=lambda: people.group_games(group))
    assert in_group == {k: v for k, v in fold(await people.group_games(group)).items()
                        if not k.startswith("former:")}


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
        assert people.rated.recomputed == folds + 2
        # A deleted player's seats become "a former player": everybody's ratings are folded again.
        await people.delete_player(players.pop(1).id)
        await check(people, group.id)
        assert people.rated.recomputed == folds + 4
        # Two stores (two processes) keep games at once: whichever update loses, readers get the fold.
        other = SqlPeopleStore(people.url)
        try:
            await asyncio.gather(*(store.record_game(a_game(rng, 100 + n, players, group=group.id, minutes=500 + n))
                                   for n, store in enumerate([people, other] * 3)))
            await check(people, group.id)
            await check(other, group.id)
        finally:
            await other.close()

    with_people(url, scenario)
