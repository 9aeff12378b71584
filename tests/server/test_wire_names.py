"""The names on the wire come from explicit registries, held here against docs/protocol.md."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

from nimmt.core import CardsRevealed, Event, RowTaken
from nimmt.scoresheet import ScoreSheet, ScoreSheetError
from nimmt.server.routes.scoresheet import SHEET_CODES, sheet_code
from nimmt.server.tables.events import EVENT_TYPES, event_json

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "docs" / "protocol.md"
LOCALES = ROOT / "nimmt" / "i18n" / "locales"


def test_every_core_event_has_the_wire_name_the_protocol_lists() -> None:
    assert set(EVENT_TYPES) == set(typing.get_args(Event))  # a new event must be named here
    text = " ".join(PROTOCOL.read_text(encoding="utf-8").split())
    listed = re.search(r"rules core's events of the latest change \(([^)]*)\)", text)
    assert listed is not None, "docs/protocol.md no longer lists the events"
    assert re.findall(r"`([a-z_]+)`", listed.group(1)) == list(EVENT_TYPES.values())


def test_an_event_on_the_wire_is_its_name_then_its_fields() -> None:
    assert event_json(CardsRevealed((5, 104))) == {"type": "cards_revealed", "cards": [5, 104]}
    assert event_json(RowTaken(1, 2, (3, 4), 2, True)) == {
        "type": "row_taken", "player": 1, "row": 2, "cards": [3, 4], "bullheads": 2, "chosen": True}


def test_score_sheet_codes_come_from_the_error_key_not_its_words() -> None:
    # A player named like another error's words: the key decides, not the message.
    sheet = ScoreSheet(("same name", "whole deck holds"))
    try:
        sheet.add_round([200, 0])
    except ScoreSheetError as error:
        assert sheet_code(error) == "sheet_penalty"
    else:
        raise AssertionError("a penalty of 200 was taken")
    web = json.loads((LOCALES / "en" / "web.json").read_text(encoding="utf-8"))
    assert all(f"error_{code}" in web for code in [*SHEET_CODES.values(), "sheet_error"])  # the page says each
    assert sheet_code(ScoreSheetError("anything", "not_a_known_key")) == "sheet_error"
