"""What a key or an address may make, counted in the store on SQLite and PostgreSQL (real servers):
exactly ``most`` of 30 racing at once get through (no check-then-insert race), a refusal counts
nothing, the window starts again when it is over, and expired codes and counts are swept. Time is
moved, not waited for."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from nimmt.people.counts import DEFAULT_QUOTAS, Limited, Quota, quotas_with
from nimmt.people.schema import CODES, COUNTS
from nimmt.people.store import EXPIRED_KEPT, LINK_TTL, SqlPeopleStore

from .test_store import Clock, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def _outcomes(results: list[object]) -> tuple[int, list[BaseException]]:
    refused = [result for result in results if isinstance(result, BaseException)]
    return len(results) - len(refused), refused


def test_thirty_racing_chat_posts_from_one_person_keep_exactly_five(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        group = await people.new_group(ana.id, "Friday")
        results = await asyncio.gather(*(people.chat.post(group.id, ana.id, f"m{n}", address="10.0.0.1")
                                         for n in range(30)), return_exceptions=True)
        kept, refused = _outcomes(results)
        assert kept == 5, refused[:3]
        assert {getattr(error, "code", repr(error)) for error in refused} == {"chat_too_soon"}
        messages, _ = await people.chat.messages(group.id)
        assert len(messages) == 5  # refused ones left nothing behind
        assert refused[0].params["retry_after"] == 10  # type: ignore[attr-defined]

    with_people(url, scenario)


def test_thirty_racing_counts_let_exactly_most_through(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        results = await asyncio.gather(*(people.counts.take("groups", player="p_1", address="10.0.0.2")
                                         for _ in range(30)), return_exceptions=True)
        kept, refused = _outcomes(results)
        assert kept == 10 and all(isinstance(error, Limited) for error in refused), refused[:3]
        assert refused[0].params == {"thing": "groups", "by": "player", "most": 10,  # type: ignore[attr-defined]
                                     "seconds": 3600, "retry_after": 3600}

    with_people(url, scenario)


def test_a_refusal_counts_nothing_and_the_window_starts_again(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        people.counts.quotas = quotas_with([Quota("links", "address", 3, 60)], ())
        for _ in range(3):
            await people.counts.take("links", player="p_a", address="10.0.0.3")
        clock.now += timedelta(seconds=20)
        with pytest.raises(Limited) as refused:
            await people.counts.take("links", address="10.0.0.3")
        assert refused.value.params["retry_after"] == 40 and refused.value.code == "rate_limited"
        await people.counts.take("links", address="10.0.0.4")  # another address: its own count
        clock.now += timedelta(seconds=40)
        for _ in range(3):  # a new window: three more, no fewer (the refusal counted nothing)
            await people.counts.take("links", address="10.0.0.3")
        with pytest.raises(Limited):
            await people.counts.take("links", address="10.0.0.3")

    with_people(url, scenario)


def test_the_person_and_the_address_are_counted_together(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        people.counts.quotas = (Quota("sheets", "player", 2, 60), Quota("sheets", "address", 3, 60))
        await people.counts.take("sheets", player="p_a", address="10.0.0.5")
        await people.counts.take("sheets", player="p_a", address="10.0.0.5")
        with pytest.raises(Limited) as refused:  # the person's most; the address's count is not spent
            await people.counts.take("sheets", player="p_a", address="10.0.0.5")
        assert refused.value.params["by"] == "player"
        await people.counts.take("sheets", player="p_b", address="10.0.0.5")
        with pytest.raises(Limited) as refused:
            await people.counts.take("sheets", player="p_c", address="10.0.0.5")
        assert refused.value.params["by"] == "address"

    with_people(url, scenario)


def test_expired_codes_challenges_and_counts_are_swept(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        people.counts.quotas = (Quota("groups", "player", 10, 3600),)
        ana, _ = await people.new_player("Ana")
        await people.new_link_code(ana.id)
        await people.put_challenge("passkey_in", None, {"challenge": "x"})
        await people.counts.take("groups", player=ana.id)

        async def rows() -> tuple[int, int]:
            async with people._engine.connect() as connection:
                codes = (await connection.execute(select(func.count()).select_from(CODES))).scalar_one()
                counts = (await connection.execute(select(func.count()).select_from(COUNTS))).scalar_one()
            return codes, counts

        assert await rows() == (2, 1)
        clock.now += LINK_TTL + timedelta(seconds=1)
        assert await people.sweep() == 0  # expired, but still told apart from a wrong code for a while
        clock.now += EXPIRED_KEPT
        assert await people.sweep() == 2
        assert await rows() == (0, 1)
        clock.now += timedelta(hours=1)
        assert await people.sweep() == 1
        assert await rows() == (0, 0)

    with_people(url, scenario)


def test_the_defaults_hold_what_the_docs_say() -> None:
    described = {quota.what: quota.most for quota in DEFAULT_QUOTAS}
    assert len(described) == len(DEFAULT_QUOTAS)  # one quota per thing, by and window
    assert described["groups/player/3600"] == 10 and described["chat/address/10"] == 10
