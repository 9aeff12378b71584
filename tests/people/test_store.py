"""The people store's contract on SQLite and PostgreSQL (real servers): players and their keys,
device links, groups and invites, finished games, export and delete; time is moved, not waited for."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import pytest

from nimmt.people.keys import hash_secret
from nimmt.people.model import FinishedGame, PeopleError, SeatResult
from nimmt.people.store import LINK_TTL, SqlPeopleStore
from nimmt.server.store import Database, SqlStore
from tests.server.helpers import run

T0 = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)  # a Friday evening


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def with_people(url: str, scenario: Callable[[SqlPeopleStore, Clock], Awaitable[None]]) -> None:
    async def main() -> None:
        tables = SqlStore(url)  # the server's store migrates the database, people tables included
        await tables.start()
        await tables.close()
        clock = Clock()
        database = Database(url)  # the server's one owner of the database, handed to the people store
        people = SqlPeopleStore(database, clock=clock)
        await people.start()
        try:
            await scenario(people, clock)
        finally:
            await people.close()
            await database.close()

    run(main())


def game(game_id: str, when: datetime, seats: list[tuple[str | None, str | None, str | None]],
         rounds: list[list[int]], *, table: str | None = None, group: str | None = None) -> FinishedGame:
    """seats: (player id, name, bot) per seat; the totals are the rounds' sums."""
    totals = [sum(row[seat] for row in rounds) for seat in range(len(seats))]
    return FinishedGame(game_id, "table" if table else "sheet", when, 66,
                        tuple(SeatResult(n, player, name, bot, totals[n])
                              for n, (player, name, bot) in enumerate(seats)),
                        tuple(tuple(row) for row in rounds), table, 1 if table else None, group)


def test_a_player_is_found_by_their_key_only(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, key = await people.new_player()
        assert ana.name is None and ana.created_at == T0
        assert await people.player_for_key(key) == ana
        for forged in (key[:-1] + ("A" if key[-1] != "A" else "B"), key + "x", "nk1_", "", "x" * 10_000,
                       "nk1_\x00", "nk1_\ud800", hash_secret(key)):
            assert await people.player_for_key(forged) is None, forged
        ana = await people.rename(ana.id, "  Ana ❤ ")
        assert ana.name == "Ana ❤" and (await people.player_for_key(key)) == ana
        for bad in ("", "   ", "x" * 25, "A\nB", "\u0085", "\ud800"):
            with pytest.raises(PeopleError) as refused:
                await people.rename(ana.id, bad)
            assert refused.value.code == "bad_name"
        assert (await people.player(ana.id)) == ana  # nothing changed
        with pytest.raises(PeopleError, match="no such player"):
            await people.rename("p_nobody", "Bo")
        assert (await people.set_public(ana.id, True)).public

    with_people(url, scenario)


def test_a_second_device_by_a_one_time_code(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, first_key = await people.new_player("Ana")
        code, expires = await people.new_link_code(ana.id)
        assert expires == T0 + LINK_TTL
        clock.now += timedelta(minutes=2)
        player, phone_key = await people.use_link_code(code.lower()[:4] + "-" + code[4:])  # as typed
        assert player == ana and phone_key != first_key
        assert await people.player_for_key(phone_key) == ana
        with pytest.raises(PeopleError) as again:
            await people.use_link_code(code)
        assert again.value.code == "code_used"
        late, _ = await people.new_link_code(ana.id)
        clock.now += LINK_TTL + timedelta(seconds=1)
        with pytest.raises(PeopleError) as expired:
            await people.use_link_code(late)
        assert expired.value.code == "code_expired"
        for unknown in ("ABCDEFGHJK", "", "x" * 100):
            with pytest.raises(PeopleError) as refused:
                await people.use_link_code(unknown)
            assert refused.value.code == "code_unknown"
        devices = await people.devices(ana.id)
        assert [device.how for device in devices] == ["first", "code"]
        # The phone is stolen: signing it out makes its key nobody's, the first device goes on.
        assert await people.sign_out(ana.id, devices[1].id)
        assert await people.player_for_key(phone_key) is None
        assert await people.player_for_key(first_key) == ana
        bruno, _ = await people.new_player("Bruno")
        assert not await people.sign_out(bruno.id, devices[0].id)  # not his device
        assert await people.player_for_key(first_key) == ana

    with_people(url, scenario)


def test_two_devices_racing_for_one_code_one_wins(url: str) -> None:
    """Two processes (two stores) trade the same code at once: exactly one gets a key."""

    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        other_database = Database(url)  # another process's
        other = SqlPeopleStore(other_database, clock=clock)
        try:
            ana, _ = await people.new_player("Ana")
            for _ in range(5):
                code, _ = await people.new_link_code(ana.id)
                results = await asyncio.gather(people.use_link_code(code), other.use_link_code(code),
                                               return_exceptions=True)
                won = [result for result in results if isinstance(result, tuple)]
                lost = [result for result in results if isinstance(result, PeopleError)]
                assert len(won) == 1 and len(lost) == 1, results
                assert lost[0].code == "code_used"
            assert len(await people.devices(ana.id)) == 6
        finally:
            await other.close()
            await other_database.close()

    with_people(url, scenario)


def test_challenges_are_single_use_and_of_their_kind(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        token = await people.put_challenge("passkey_add", ana.id, {"challenge": "abc"})
        with pytest.raises(PeopleError):
            await people.take_challenge("passkey_in", token)  # another ceremony's token
        assert await people.take_challenge("passkey_add", token) == (ana.id, {"challenge": "abc"})
        with pytest.raises(PeopleError) as again:
            await people.take_challenge("passkey_add", token)
        assert again.value.code == "code_used"
        token = await people.put_challenge("passkey_in", None, {"challenge": "def"})
        clock.now += timedelta(minutes=6)
        with pytest.raises(PeopleError) as late:
            await people.take_challenge("passkey_in", token)
        assert late.value.code == "code_expired"
        await people.add_passkey(ana.id, "cred-1", "pk", 0)
        with pytest.raises(PeopleError) as taken:
            await people.add_passkey(ana.id, "cred-1", "pk", 0)
        assert taken.value.code == "passkey_taken"
        await people.passkey_used("cred-1", 5)
        passkey = await people.passkey("cred-1")
        assert passkey is not None and passkey.sign_count == 5 and passkey.player_id == ana.id
        assert await people.passkey("cred-2") is None and await people.passkey("x" * 5000) is None
        # One passkey removed on its own: only its owner can, and the device keys stay.
        bruno, _ = await people.new_player("Bruno")
        await people.add_passkey(ana.id, "cred-2", "pk", 0)
        devices = await people.devices(ana.id)
        assert not await people.remove_passkey(bruno.id, "cred-1")
        assert await people.remove_passkey(ana.id, "cred-1") and not await people.remove_passkey(ana.id, "cred-1")
        assert [p.credential_id for p in await people.passkeys(ana.id)] == ["cred-2"]
        assert await people.devices(ana.id) == devices

    with_people(url, scenario)


def test_groups_invites_and_hosts(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        bruno, _ = await people.new_player("Bruno")
        carla, _ = await people.new_player("Carla")
        friday = await people.new_group(ana.id, " Friday table ")
        assert friday.name == "Friday table" and friday.host_id == ana.id and friday.invite_open
        clock.now += timedelta(minutes=1)
        assert await people.join(friday.invite.lower(), bruno.id) == friday
        assert await people.join(friday.invite, bruno.id) == friday  # twice: still one membership
        assert [member.name for member in await people.members(friday.id)] == ["Ana", "Bruno"]
        with pytest.raises(PeopleError) as not_host:
            await people.set_invite(friday.id, bruno.id, open=False)
        assert not_host.value.code == "not_host"
        closed = await people.set_invite(friday.id, ana.id, open=False)
        with pytest.raises(PeopleError) as refused:
            await people.join(friday.invite, carla.id)  # the invite reused after the host closed it
        assert refused.value.code == "invite_closed"
        renewed = await people.set_invite(friday.id, ana.id, open=True, renew=True)
        assert renewed.invite != closed.invite and renewed.invite_open
        with pytest.raises(PeopleError) as old:
            await people.join(friday.invite, carla.id)
        assert old.value.code == "invite_unknown"
        clock.now += timedelta(minutes=1)
        await people.join(renewed.invite, carla.id)
        assert [group.id for group in await people.groups_of(carla.id)] == [friday.id]
        await people.leave(friday.id, ana.id)  # the host leaves: Bruno, who came next, takes over
        group = await people.group(friday.id)
        assert group is not None and group.host_id == bruno.id
        with pytest.raises(PeopleError) as twice:
            await people.leave(friday.id, ana.id)
        assert twice.value.code == "not_member"
        with pytest.raises(PeopleError):
            await people.new_group(ana.id, "x" * 41)

    with_people(url, scenario)


def test_games_of_a_player_newest_first_across_days(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        bruno, _ = await people.new_player("Bruno")
        friday = game("g1", T0, [(ana.id, "Ana", None), (None, "Bot", "expert")], [[3, 10], [70, 2]], table="tA")
        saturday = game("g2", T0 + timedelta(days=1), [(bruno.id, "Bruno", None), (ana.id, "Ana", None)],
                        [[5, 1]], table="tB")
        assert await people.record_game(friday) and await people.record_game(saturday)
        assert not await people.record_game(game("g3", T0, friday_seats(friday), [[3, 10]], table="tA"))
        assert await people.games_of(ana.id) == [saturday, friday]
        assert await people.games_of(bruno.id) == [saturday]
        assert await people.games_of(ana.id, before=saturday.finished_at) == [friday]
        assert await people.games_of(ana.id, limit=1) == [saturday]
        assert friday.winners == (1,) and saturday.winners == (1,)
        assert friday.person_ids() == (ana.id, "bot:expert")
        with pytest.raises(PeopleError):  # a seat of nobody nimmt knows
            await people.record_game(game("g4", T0, [("p_nobody", "X", None), (ana.id, "Ana", None)], [[1, 2]]))
        for bad in (game("g5", T0, [(ana.id, "Ana", None)], [[1]]),
                    game("g6", T0, [(ana.id, "Ana", None), (None, "B", None)], [[1, 2, 3]])):
            with pytest.raises(PeopleError) as refused:
                await people.record_game(bad)
            assert refused.value.code == "bad_game"
        assert [found.id for found in await people.all_games()] == ["g2", "g1"]

    with_people(url, scenario)


def friday_seats(played: FinishedGame) -> list[tuple[str | None, str | None, str | None]]:
    return [(seat.player_id, seat.name, seat.bot) for seat in played.seats]


def test_export_holds_everything_and_no_secret(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, key = await people.new_player("Ana")
        bruno, _ = await people.new_player("Bruno")
        group = await people.new_group(ana.id, "Friday")
        await people.record_game(game("g1", T0, [(ana.id, "Ana", None), (bruno.id, "Bruno", None)], [[1, 2]],
                                      table="t1", group=group.id))
        code, _ = await people.new_link_code(ana.id)
        await people.add_passkey(ana.id, "cred-1", "pk", 0)
        exported = await people.export(ana.id)
        text = json.dumps(exported)
        assert exported["player"]["name"] == "Ana" and exported["groups"][0]["name"] == "Friday"
        assert [item["id"] for item in exported["games"]] == ["g1"] and len(exported["devices"]) == 1
        assert exported["passkeys"][0]["credential_id"] == "cred-1"
        assert key not in text and hash_secret(key) not in text and code not in text
        with pytest.raises(PeopleError):
            await people.export("p_nobody")

    with_people(url, scenario)


def test_a_deleted_player_is_a_former_player_in_the_others_games(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, key = await people.new_player("Ana")
        bruno, _ = await people.new_player("Bruno")
        group = await people.new_group(ana.id, "Friday")
        await people.join(group.invite, bruno.id)
        await people.record_game(game("g1", T0, [(ana.id, "Ana", None), (bruno.id, "Bruno", None)], [[1, 2]],
                                      table="t1", group=group.id))
        await people.new_link_code(ana.id)
        await people.add_passkey(ana.id, "cred-1", "pk", 0)
        assert await people.delete_player(ana.id)
        assert await people.player_for_key(key) is None and await people.player(ana.id) is None
        assert await people.passkey("cred-1") is None and await people.games_of(ana.id) == []
        [kept] = await people.games_of(bruno.id)
        assert kept.seats[0] == SeatResult(0, None, None, None, 1)  # no id, no name: "a former player"
        assert kept.person_ids()[0] == "former:g1:0"
        assert [member.player_id for member in await people.members(group.id)] == [bruno.id]
        after = await people.group(group.id)
        assert after is not None and after.host_id == bruno.id
        assert [played.id for played in await people.group_games(group.id)] == ["g1"]
        assert not await people.delete_player(ana.id)  # twice: nothing left to delete
        with pytest.raises(PeopleError):
            await people.join(group.invite, ana.id)  # a deleted player joins nothing

    with_people(url, scenario)
