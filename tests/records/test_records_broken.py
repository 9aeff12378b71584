"""Broken records: only RecordError, saying where and why; random mutations never crash the reader."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nimmt.core import ChooseRow, Deal, PlayCard, Rules
from nimmt.records import (
    GameRecord,
    Recorder,
    RecordError,
    RoundRecord,
    TurnRecord,
    check,
    from_mapping,
    load,
    loads,
    parse,
    replay,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "records"
BROKEN = DATA / "broken"
INDEX: dict[str, dict[str, Any]] = json.loads((BROKEN / "index.json").read_text(encoding="utf-8"))


def read_and_replay(path: Path) -> None:
    replay(load(path))


def test_every_broken_file_is_listed() -> None:
    files = {p.name for p in BROKEN.iterdir()} - {"index.json"}
    assert files == set(INDEX)
    assert len(files) >= 40


@pytest.mark.parametrize("name", sorted(INDEX))
def test_broken_records(name: str) -> None:
    want = INDEX[name]
    with pytest.raises(RecordError) as caught:
        read_and_replay(BROKEN / name)
    error = caught.value
    message = str(error)
    assert message.startswith(want["starts"]), message
    assert want["reason"] in message, message
    assert (error.round, error.turn, error.player) == (want["round"], want["turn"], want["player"]), message
    assert "Traceback" not in message
    assert len(message) < 300


def test_file_problems(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="no such file"):
        load(tmp_path / "missing.json")
    with pytest.raises(RecordError, match="folder"):
        load(tmp_path)
    with pytest.raises(RecordError, match="no such file"):
        check(tmp_path / "missing.json")


def test_save_and_load(tmp_path: Path) -> None:
    record = load(DATA / "golden" / "hand_one_round.json")
    target = tmp_path / "game.json"
    record.save(target)
    assert load(target) == record
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


@pytest.mark.parametrize(
    "text",
    ["nul", "{", "1e999", "NaN", '"nimmt/1"', "[]", "null", "\ufeff{}", '{"format": "nimmt/1"}' * 2,
     "[" * 100_000, '{"format": ' + "1" * 5000 + "}"],
)
def test_odd_texts(text: str) -> None:
    with pytest.raises(RecordError):
        loads(text)
    with pytest.raises(RecordError):
        loads(text.encode("utf-8"))


def test_a_record_larger_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("nimmt.records.MAX_RECORD_BYTES", 100)
    with pytest.raises(RecordError, match="larger than"):
        loads(" " * 101 + "{}")


def test_values_that_are_not_json_are_refused_by_from_mapping() -> None:
    data = json.loads((DATA / "golden" / "hand_one_round.json").read_text())
    data["rounds"][0]["turns"][0]["cards"][0] = object()
    with pytest.raises(RecordError, match=r"round 1, turn 1, player 0 .*must be a card number"):
        from_mapping(data)
    data["rounds"][0]["turns"][0]["cards"][0] = [5] * 10_000
    with pytest.raises(RecordError) as caught:
        from_mapping(data)
    assert len(str(caught.value)) < 200


# -- records built in code, which parse() never saw ------------------------------------------------


HANDS = ((2, 5, 6, 7, 8, 9, 31, 32, 33, 34), (1, 41, 42, 43, 44, 45, 46, 47, 48, 49))


def coded(*turns: TurnRecord) -> GameRecord:
    return GameRecord(players=("Ana", "Bruno"), rounds=(RoundRecord((10, 20, 30, 40), HANDS, turns),))


@pytest.mark.parametrize(
    ("record", "words"),
    [
        (coded(TurnRecord((5, 41), ((0, 7),))), "round 1, turn 1, player 0 (Ana): row 7 cannot be taken"),
        (coded(TurnRecord((5, 41), ((0, "1"),))), "round 1, turn 1, player 0 (Ana): row '1' cannot be taken"),
        (coded(TurnRecord((5,), ((0, 1),))), "round 1, turn 1: the turn lists 1 cards for 2 players"),
        (coded(TurnRecord((5, 41, 6), ((0, 1),))), "round 1, turn 1: the turn lists 3 cards"),
        (coded(TurnRecord((5, 41), ((0, 1), (5, 1)))), "round 1, turn 1: 'rows_taken' names player 5"),
        (coded(TurnRecord((31, 41), ((1, 1),))), "round 1, turn 1, player 1 (Bruno): 'rows_taken' holds a row"),
        (GameRecord(players=("Ana", "Bruno"), rounds=(RoundRecord((10, 20, 30), HANDS),)),
         "round 1: the deal is wrong"),
    ],
)
def test_records_built_in_code(record: GameRecord, words: str) -> None:
    with pytest.raises(RecordError) as caught:
        replay(record)
    assert str(caught.value).startswith(words), str(caught.value)


def test_a_recorder_refuses_a_broken_record() -> None:
    with pytest.raises(RecordError):
        Recorder(coded(TurnRecord((6, 41), ((1, 1),))))


def test_the_recorder_writes_what_the_core_accepted() -> None:
    recorder = Recorder(GameRecord(players=("Ana", "Bruno"), rules=Rules(rounds=1)))
    recorder.add(Deal((10, 20, 30, 40), HANDS))
    recorder.add(PlayCard(1, 41))
    with pytest.raises(Exception, match="does not hold card 3"):
        recorder.add(PlayCard(0, 3))
    recorder.add(PlayCard(0, 5))
    assert recorder.record.rounds[0].turns == ()  # the turn waits for Ana's row
    recorder.add(ChooseRow(0, 1))
    assert recorder.record.rounds[0].turns == (TurnRecord((5, 41), ((0, 1),)),)
    assert replay(recorder.record).state == recorder.state


# -- random mutations ------------------------------------------------------------------------------

BASES = [
    json.loads((DATA / "golden" / f"{name}.json").read_text())
    for name in ("three_players_two_rounds", "hand_one_round", "four_players_in_progress", "two_players")
]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 110) | st.floats(allow_nan=True) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += paths(item, (*prefix, index))
    return found


def mutate(data: Any, draw: Any) -> Any:
    """One JSON-level change at a random place: replace, delete, duplicate, nudge, retype, add a key."""
    places = paths(data)[1:]
    path = draw(st.sampled_from(places))
    parent = data
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    value = parent[key]
    kind = draw(st.sampled_from(["replace", "delete", "duplicate", "nudge", "retype", "add key", "swap"]))
    if kind == "replace":
        parent[key] = draw(JSON_VALUES)
    elif kind == "delete":
        del parent[key]
    elif kind == "duplicate" and isinstance(parent, list):
        parent.insert(key, copy.deepcopy(value))
    elif kind == "nudge" and isinstance(value, int) and not isinstance(value, bool):
        parent[key] = value + draw(st.sampled_from([-100, -5, -1, 1, 2, 11, 1000]))
    elif kind == "retype":
        parent[key] = draw(st.sampled_from([str(value), [value], {"v": value}, None, True, 1.5]))
    elif kind == "add key" and isinstance(value, dict):
        value[draw(st.sampled_from(["0", "1", "9", "-1", "x", "rows", "cards", "rows_taken"]))] = draw(JSON_VALUES)
    elif kind == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = draw(st.integers(0, len(parent) - 1))
        parent[key], parent[other] = parent[other], parent[key]
    return data


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_records_give_only_record_errors(data: st.DataObject) -> None:
    record = copy.deepcopy(data.draw(st.sampled_from(BASES)))
    for _ in range(data.draw(st.integers(1, 3))):
        record = mutate(record, data.draw)
    text = json.dumps(record)
    try:
        replay(loads(text))
    except RecordError as error:
        assert str(error)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(BASES), st.data())
def test_mangled_texts_give_only_record_errors(base: dict[str, Any], data: st.DataObject) -> None:
    text = json.dumps(base).encode()
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 8)))
    text = text[:start] + data.draw(st.binary(max_size=4)) + text[end:]
    try:
        replay(loads(text))
    except RecordError as error:
        assert str(error)


def test_a_mutation_can_still_be_valid() -> None:
    # Guard against a mutation test that only ever sees errors: swapping two players' names
    # or adding an unknown key keeps a record valid.
    base = copy.deepcopy(BASES[0])
    base["players"].reverse()
    base["rounds"][0]["comment"] = "fine"
    assert replay(parse(base)).finished


@pytest.mark.parametrize("key", ["9" * 5000, "01", "-1", " 1", "1.0", "١", "2"])
def test_rows_taken_keys_that_are_not_seats(key: str) -> None:
    data = copy.deepcopy(BASES[1])  # hand_one_round: two players
    data["rounds"][0]["turns"][0]["rows_taken"] = {key: 1}
    with pytest.raises(RecordError) as caught:
        replay(loads(json.dumps(data)))
    message = str(caught.value)
    assert message.startswith("round 1, turn 1"), message
    assert len(message) < 200


def test_a_path_with_a_nul_character() -> None:
    with pytest.raises(RecordError, match="cannot be read"):
        load("game\0.json")


def test_a_lone_surrogate_in_a_name_survives_save_and_load(tmp_path: Path) -> None:
    data = copy.deepcopy(BASES[1])
    text = json.dumps(data).replace('"Ana"', '"Ana \\ud800"')
    record = loads(text)
    assert record.players[0] == "Ana \ud800"
    record.save(tmp_path / "game.json")
    assert load(tmp_path / "game.json") == record
