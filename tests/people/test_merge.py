"""A device that already holds a player is linked by a one-time code (docs/people.md, A second
device): the code is only looked at until the person agrees, then that player becomes part of the
code's player — devices, passkeys, groups, hosted groups, chat messages and finished games — and
nobody counts twice in a game where both sat. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest

from nimmt.people.model import PeopleError
from nimmt.people.rated import EVERYONE, result_of
from nimmt.people.ratings import rate
from nimmt.people.store import LINK_TTL, SqlPeopleStore
from tests.people.test_store import T0, Clock, game, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def test_a_phone_with_a_player_is_merged_into_the_codes_player(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, desk_key = await people.new_player("Ana")
        phone, phone_key = await people.new_player("Ana phone")
        bruno, _ = await people.new_player("Bruno")
        friday = await people.new_group(ana.id, "Les vendredis")
        clock.now += timedelta(minutes=1)
        await people.join(friday.invite, phone.id)
        await people.join(friday.invite, bruno.id)
        phones = await people.new_group(phone.id, "Le club")  # hosted by the phone's player alone
        await people.chat.post(friday.id, phone.id, "bonsoir")
        # The phone played alone against a bot, and once at the desk's table (two seats, one person).
        await people.record_game(game("g1", T0, [(phone.id, "Ana", None), (None, "Heuristic", "heuristic")],
                                      [[5, 12]], table="t1"))
        await people.record_game(game("g2", T0 + timedelta(hours=1), [(ana.id, "Ana", None), (phone.id, "Ana 2", None),
                                                                      (bruno.id, "Bruno", None)],
                                      [[3, 9, 14]], table="t2", group=friday.id))
        before = await people.rated.ratings(EVERYONE)
        assert phone.id in before

        code, _ = await people.new_link_code(ana.id)
        # Looked at, not used: the phone is told whose code it is first.
        assert (await people.link_code_player(code)) == ana
        assert (await people.link_code_player(code.lower())) == ana
        with pytest.raises(PeopleError) as same:
            await people.merge_by_code(code, ana.id)
        assert same.value.code == "link_same"

        merged = await people.merge_by_code(code, phone.id)
        assert merged == ana
        assert await people.player(phone.id) is None
        assert await people.player_for_key(phone_key) == ana  # the phone keeps its key: it is Ana's now
        assert await people.player_for_key(desk_key) == ana
        assert len(await people.devices(ana.id)) == 2
        members = await people.members(friday.id)
        assert [member.player_id for member in members] == [ana.id, bruno.id]  # once, from her first join
        assert members[0].joined_at == T0
        assert (await people.group(phones.id)).host_id == ana.id  # type: ignore[union-attr]
        assert [message.text for message in await people.chat.of_player(ana.id)] == ["bonsoir"]
        games = {found.id: found for found in await people.games_of(ana.id)}
        assert set(games) == {"g1", "g2"}
        # Where both sat, the phone's seat is a guest's now, under its name at the table.
        assert [(seat.player_id, seat.name) for seat in games["g2"].seats] == [
            (ana.id, "Ana"), (None, "Ana 2"), (bruno.id, "Bruno")]
        # The kept ratings are those of every game, folded again.
        everyone = await people.rated.ratings(EVERYONE)
        assert everyone == {person: rating for person, rating in rate(
            [result_of(found) for found in await people.all_games()]).items() if not person.startswith("former:")}
        assert phone.id not in everyone and everyone[ana.id].games == 2
        # The code is spent: another device is told so.
        with pytest.raises(PeopleError) as used:
            await people.link_code_player(code)
        assert used.value.code == "code_used"

    with_people(url, scenario)


def test_a_stale_or_unknown_code_merges_nothing(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        phone, phone_key = await people.new_player("Bo")
        code, _ = await people.new_link_code(ana.id)
        clock.now += LINK_TTL + timedelta(seconds=1)
        for tried, refusal in ((code, "code_expired"), ("ABCDEFGHJK", "code_unknown"), ("x" * 41, "code_unknown")):
            with pytest.raises(PeopleError) as refused:
                await people.merge_by_code(tried, phone.id)
            assert refused.value.code == refusal
        assert await people.player_for_key(phone_key) == phone

    with_people(url, scenario)
