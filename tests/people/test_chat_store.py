"""A group's chat in the store, on SQLite and PostgreSQL (real servers): members only, in order with a
cursor, bad text refused with nothing kept, a person's burst limit, export and delete. Time is moved."""

from __future__ import annotations

from datetime import timedelta

import pytest

from nimmt.people.chat import BURST, LENGTH, PAGE, WINDOW, ChatRefused
from nimmt.people.model import PeopleError
from nimmt.people.store import SqlPeopleStore

from .test_store import Clock, with_people


@pytest.fixture
def url(database_url: str) -> str:
    return database_url


def test_members_chat_in_order_and_read_after_a_cursor(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        bruno, _ = await people.new_player("محمد")
        carol, _ = await people.new_player("Carol")
        group = await people.new_group(ana.id, "Friday")
        other = await people.new_group(carol.id, "Sunday")
        await people.join(group.invite, bruno.id)
        first = await people.chat.post(group.id, ana.id, "  Hello\u00a0 all  ")
        assert (first.text, first.name, first.sent_at) == ("Hello all", "Ana", clock.now)  # spaces made plain
        clock.now += timedelta(seconds=1)
        second = await people.chat.post(group.id, bruno.id, "سلام 👋")
        await people.chat.post(other.id, carol.id, "not for Friday")
        messages, more = await people.chat.messages(group.id)
        assert [(m.name, m.text) for m in messages] == [("Ana", "Hello all"), ("محمد", "سلام 👋")] and not more
        assert first.id < second.id
        after, _ = await people.chat.messages(group.id, first.id)
        assert [m.id for m in after] == [second.id]
        assert await people.chat.messages(group.id, second.id) == ([], False)
        for stranger, where, code in [(carol.id, group.id, "not_member"), (ana.id, "g_nothing", "unknown_group")]:
            with pytest.raises(PeopleError) as refused:
                await people.chat.post(where, stranger, "hi")
            assert refused.value.code == code
        # A long conversation comes in pages: the last PAGE at first, then from a cursor on.
        for n in range(PAGE + 3):
            clock.now += WINDOW  # never too fast
            await people.chat.post(group.id, ana.id, f"m{n}")
        last, more = await people.chat.messages(group.id)
        assert len(last) == PAGE and last[-1].text == f"m{PAGE + 2}" and not more
        page, more = await people.chat.messages(group.id, second.id)
        assert len(page) == PAGE and page[0].text == "m0" and more
        rest, more = await people.chat.messages(group.id, page[-1].id)
        assert [m.text for m in rest] == [f"m{n}" for n in range(PAGE, PAGE + 3)] and not more

    with_people(url, scenario)


def test_bad_text_and_a_burst_are_refused_and_nothing_is_kept(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        group = await people.new_group(ana.id, "Friday")
        for text, code in [("", "chat_empty"), (" \u3000 ", "chat_empty"), ("a\nb", "chat_control"),
                           ("a\x00", "chat_control"), ("a\u202eb", "chat_direction"),
                           ("x" + "\u0301" * 5, "chat_marks"), ("x" * (LENGTH + 1), "chat_long"),
                           ("a\ud800", "chat_control")]:
            with pytest.raises(ChatRefused) as refused:
                await people.chat.post(group.id, ana.id, text)
            assert refused.value.code == code, text
        assert (await people.chat.post(group.id, ana.id, "é" * LENGTH)).text == "é" * LENGTH  # exactly the most
        for n in range(1, BURST):
            clock.now += timedelta(seconds=1)
            await people.chat.post(group.id, ana.id, f"{n}")
        with pytest.raises(ChatRefused) as refused:
            await people.chat.post(group.id, ana.id, "one too many")
        assert refused.value.code == "chat_too_soon"
        # The first of the burst was sent BURST - 1 seconds ago: it leaves the window in the rest.
        assert refused.value.params["retry_after"] == WINDOW.seconds - (BURST - 1)
        messages, _ = await people.chat.messages(group.id)
        assert len(messages) == BURST and "one too many" not in [m.text for m in messages]
        clock.now += timedelta(seconds=refused.value.params["retry_after"])  # type: ignore[arg-type]
        assert (await people.chat.post(group.id, ana.id, "now")).text == "now"

    with_people(url, scenario)


def test_export_holds_their_messages_and_delete_removes_them(url: str) -> None:
    async def scenario(people: SqlPeopleStore, clock: Clock) -> None:
        ana, _ = await people.new_player("Ana")
        bruno, _ = await people.new_player("Bruno")
        group = await people.new_group(ana.id, "Friday")
        await people.join(group.invite, bruno.id)
        await people.chat.post(group.id, bruno.id, "his words")
        last = await people.chat.post(group.id, ana.id, "my words")
        exported = await people.export(ana.id)
        assert exported["messages"] == [{"group": group.id, "text": "my words", "sent_at": clock.now.isoformat()}]
        assert await people.delete_player(ana.id)
        messages, _ = await people.chat.messages(group.id)
        assert [(m.player_id, m.text) for m in messages] == [(bruno.id, "his words")]  # hers are gone
        # A page whose cursor is her deleted message still gets the next one: an id is never given twice.
        after = await people.chat.post(group.id, bruno.id, "still here")
        assert after.id > last.id and (await people.chat.messages(group.id, last.id))[0] == [after]

    with_people(url, scenario)
