"""Golden records: valid games whose scores are known (regenerate: python -m tests.records.make_golden)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.records import GameRecord, Recorder, load, loads, parse, replay, score
from tests.records import make_golden

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "records" / "golden"
NAMES = sorted(p.name.removesuffix(".json") for p in GOLDEN.glob("*.json") if not p.name.endswith(".expected.json"))


def raw(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    return data


def expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
    return data


def reference_score(data: dict[str, Any]) -> dict[str, Any]:
    """Score a record straight from its JSON, without nimmt.core: a second, independent reading."""

    def heads(card: int) -> int:
        return 7 if card == 55 else 5 if card % 11 == 0 else 3 if card % 10 == 0 else 2 if card % 5 == 0 else 1

    rules = data.get("rules") or {}
    n = len(data["players"])
    totals = [0] * n
    rounds = []
    finished = False
    for round_data in data["rounds"]:
        assert not finished
        rows = [[c] for c in round_data["rows"]]
        penalty = [0] * n
        for turn in round_data["turns"]:
            for card, player in sorted((c, p) for p, c in enumerate(turn["cards"])):
                below = [r for r in range(4) if rows[r][-1] < card]
                if not below:
                    r = turn["rows_taken"][str(player)]
                    penalty[player] += sum(heads(c) for c in rows[r])
                    rows[r] = [card]
                    continue
                r = max(below, key=lambda r: rows[r][-1])
                if len(rows[r]) == 5:
                    penalty[player] += sum(heads(c) for c in rows[r])
                    rows[r] = [card]
                else:
                    rows[r].append(card)
        rounds.append(penalty)
        if len(round_data["turns"]) == 10:
            totals = [t + p for t, p in zip(totals, penalty, strict=True)]
            if rules.get("rounds") is not None:
                finished = len(rounds) == rules["rounds"]
            else:
                end_above = rules.get("end_above")
                finished = max(totals) > (66 if end_above is None else end_above)
    low = min(totals)
    winners = [p for p, t in enumerate(totals) if t == low] if finished else []
    return {"totals": totals, "rounds": rounds, "finished": finished, "winners": winners}


def without_extras(data: dict[str, Any]) -> dict[str, Any]:
    def keep(item: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
        return {k: v for k, v in item.items() if k in keys}

    return {
        **keep(data, ("format", "players")),
        "rules": keep(data["rules"], ("edition", "end_above", "rounds")),
        "rounds": [
            {**keep(r, ("rows", "hands")), "turns": [keep(t, ("cards", "rows_taken")) for t in r["turns"]]}
            for r in data["rounds"]
        ],
    }


def test_there_are_golden_records() -> None:
    assert len(NAMES) >= 9
    for name in NAMES:
        assert (GOLDEN / f"{name}.expected.json").exists(), name


@pytest.mark.parametrize("name", NAMES)
def test_golden_scores(name: str) -> None:
    record = load(GOLDEN / f"{name}.json")
    assert score(record).to_json() == expected(name)


@pytest.mark.parametrize("name", NAMES)
def test_golden_scores_agree_with_an_independent_reading(name: str) -> None:
    assert reference_score(raw(name)) == expected(name)


@pytest.mark.parametrize("name", NAMES)
def test_golden_records_round_trip(name: str) -> None:
    data = raw(name)
    record = parse(data)
    # Every key is kept, the unknown ones included, and nothing is added.
    assert json.loads(record.dumps()) == data
    assert loads(record.dumps()) == record
    # A recorder fed the record's actions writes the same record (without the extra keys).
    recorder = Recorder(GameRecord(players=record.players, rules=record.rules))
    for action in record.actions():
        recorder.add(action)
    assert recorder.record.to_json() == without_extras(data)
    assert recorder.state == replay(record).state


def test_hand_computed_exactly_66() -> None:
    # See make_golden.HAND_EXACT_66: 22 per round for player 0, nothing for player 1.
    result = score(load(GOLDEN / "hand_exactly_66.json"))
    assert result.rounds == ((22, 0),) * 4
    assert result.totals == (88, 0)
    assert result.finished
    assert result.winners == (1,)
    three_rounds = parse({**raw("hand_exactly_66"), "rounds": raw("hand_exactly_66")["rounds"][:3]})
    after_three = score(three_rounds)
    assert after_three.totals == (66, 0)
    assert not after_three.finished  # exactly 66: the game goes on
    assert after_three.winners == ()


def test_hand_computed_one_round() -> None:
    # See make_golden.HAND_ONE_ROUND: Ana takes 20 (3) and 5-9 (6); Bruno 40-44 (11) and 10 (3).
    record = load(GOLDEN / "hand_one_round.json")
    result = replay(record)
    assert result.rounds == ((9, 14),)
    assert result.totals == (9, 14)
    assert result.finished and result.winners == (0,)
    assert result.state.rows == ((1,), (2,), (30, 31, 32, 33, 34), (45, 46, 47, 48, 49))
    assert result.state.taken == ((20, 5, 6, 7, 8, 9), (40, 41, 42, 43, 44, 10))
    assert record.rules.rounds == 1
    # The extra keys at every level are kept and ignored.
    assert dict(record.extra) == {"played_on": "2026-11-29"}
    assert dict(record.rules_extra) == {"countdown": True}
    assert dict(record.rounds[0].extra) == {"dealer": 1}
    assert dict(record.rounds[0].turns[0].extra) == {"seconds": 12}
    assert dict(record.rounds[0].turns[9].extra) == {"note": {"nested": [1, 2, 3]}}


def test_the_golden_set_covers_what_it_must() -> None:
    games = {name: raw(name) for name in NAMES}
    scores = {name: expected(name) for name in NAMES}
    sizes = {len(g["players"]) for g in games.values()}
    assert {2, 10} <= sizes
    ten = games["ten_players"]
    assert all(len(set(r["rows"]) | {c for h in r["hands"] for c in h}) == 104 for r in ten["rounds"])
    assert scores["ten_players"]["finished"] and scores["two_players"]["finished"]
    # A game in progress with a partial last round, and one between rounds.
    assert 0 < len(games["four_players_in_progress"]["rounds"][-1]["turns"]) < 10
    assert not scores["four_players_in_progress"]["finished"]
    assert len(games["six_players_between_rounds"]["rounds"][-1]["turns"]) == 10
    assert not scores["six_players_between_rounds"]["finished"]
    # Row choices for low cards.
    assert sum(1 for g in games.values() for r in g["rounds"] for t in r["turns"] if t["rows_taken"]) > 20
    # Table options.
    assert games["five_players_end_above_30"]["rules"]["end_above"] == 30
    assert max(scores["five_players_end_above_30"]["totals"]) > 30
    assert games["three_players_two_rounds"]["rules"]["rounds"] == 2
    assert len(scores["three_players_two_rounds"]["rounds"]) == 2
    # A total exactly at the threshold after a round, and the game went on.
    history = scores["two_players_exactly_66"]["rounds"]
    totals = [0, 0]
    seen_66 = False
    for penalties in history[:-1]:
        totals = [t + p for t, p in zip(totals, penalties, strict=True)]
        seen_66 = seen_66 or 66 in totals
        assert max(totals) <= 66
    assert seen_66


def test_the_generator_still_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(make_golden, "GOLDEN", tmp_path / "golden")
    monkeypatch.setattr(make_golden, "BROKEN", tmp_path / "broken")
    make_golden.main()
    made = sorted(p.name for p in (tmp_path / "golden").iterdir())
    assert made == sorted(p.name for p in GOLDEN.iterdir())
    for name in ("hand_exactly_66", "hand_one_round"):
        assert (tmp_path / "golden" / f"{name}.json").read_text() == (GOLDEN / f"{name}.json").read_text()


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), st.integers(0, 2**32 - 1), st.sampled_from([Rules(), Rules(end_above=20), Rules(rounds=2)]))
def test_random_bot_games_agree_with_the_independent_reading(players: int, seed: int, rules: Rules) -> None:
    bots = [make_bot("random", random.Random(seed + p)) for p in range(players)]
    record = play_game(bots, random.Random(seed), rules)
    data = json.loads(record.dumps())
    assert reference_score(data) == score(record).to_json()
    # And a game cut anywhere (a game in progress) too.
    cut = random.Random(seed).randrange(len(data["rounds"]))
    data["rounds"] = data["rounds"][: cut + 1]
    data["rounds"][-1]["turns"] = data["rounds"][-1]["turns"][: seed % 11]
    assert reference_score(data) == score(parse(data)).to_json()
