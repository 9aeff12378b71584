"""Regenerate the record files under tests/data/records/ (golden and broken ones).

    .venv/bin/python -m tests.records.make_golden

Golden games are played by the project's own random bots from fixed seeds; their expected scores
are written next to them (``<name>.expected.json``). Two small games are built by hand instead and
their expected scores are the hand-computed numbers below, not the engine's output. Broken records
are mutations of a golden one; ``broken/index.json`` says which error each must give and where.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.records import parse, score

DATA = Path(__file__).resolve().parent.parent / "data" / "records"
GOLDEN = DATA / "golden"
BROKEN = DATA / "broken"

# name -> (players, rules, seed); the seed of each game is written into the record as an extra key.
GAMES: dict[str, tuple[int, Rules, int]] = {
    "two_players": (2, Rules(), 1),
    "ten_players": (10, Rules(), 2),
    "five_players_end_above_30": (5, Rules(end_above=30), 3),
    "three_players_two_rounds": (3, Rules(rounds=2), 4),
    "four_players_in_progress": (4, Rules(), 5),  # cut in round 3, turn 6
    "six_players_between_rounds": (6, Rules(), 6),  # cut after round 1
}
CUTS = {"four_players_in_progress": (3, 6), "six_players_between_rounds": (1, 10)}


def bot_game(players: int, rules: Rules, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    bots = [make_bot("random", random.Random(seed * 100 + p)) for p in range(players)]
    record = play_game(bots, rng, rules, names=[f"Bot {p + 1}" for p in range(players)])
    data = record.to_json()
    data["seed"] = seed
    return data


def cut(data: dict[str, Any], rounds: int, turns: int) -> dict[str, Any]:
    data = copy.deepcopy(data)
    data["rounds"] = data["rounds"][:rounds]
    data["rounds"][-1]["turns"] = data["rounds"][-1]["turns"][:turns]
    return data


def exactly_66() -> dict[str, Any]:
    """A two-player bot game in which a total is exactly 66 after a round, and the game goes on."""
    for seed in range(1000, 3000):
        data = bot_game(2, Rules(), seed)
        history = score(parse(data)).rounds
        totals = [0, 0]
        for penalties in history[:-1]:
            totals = [t + p for t, p in zip(totals, penalties, strict=True)]
            if 66 in totals:
                return data
    raise AssertionError("no seed gives a total of exactly 66")


# -- games built by hand -------------------------------------------------------------------------

# Rows 101-104. Player 0 plays 10, 9, ..., 1: each card is below every row and player 0 takes
# row 0. Player 1 plays 12, 13, 14, 16, 17, 18, 19, 21, 23, 24, all landing on row 0 after it.
# Turn 1 takes (101) = 1; turn t > 1 takes player 0's and player 1's cards of turn t - 1:
# 10..2 hold 3+1+1+1+2+1+1+1+1 = 12 and 12..23 hold 9, so each round costs player 0 22.
# Four rounds: 22, 44, 66 (exactly 66: play on), 88 (above 66: over). Player 1 wins with 0.
HAND_EXACT_66 = {
    "format": "nimmt/1",
    "rules": {"edition": "classic", "end_above": 66, "rounds": None},
    "players": ["Ana", "Bruno"],
    "rounds": [
        {
            "rows": [101, 102, 103, 104],
            "hands": [[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [12, 13, 14, 16, 17, 18, 19, 21, 23, 24]],
            "turns": [
                {"cards": [c0, c1], "rows_taken": {"0": 0}}
                for c0, c1 in zip(range(10, 0, -1), (12, 13, 14, 16, 17, 18, 19, 21, 23, 24), strict=True)
            ],
        }
    ] * 4,
}
HAND_EXACT_66_SCORE = {"totals": [88, 0], "rounds": [[22, 0]] * 4, "finished": True, "winners": [1]}

# One round (rules: rounds=1), two players, rows 10, 20, 30, 40; the extra keys must be ignored.
#  turn 1: Ana 5, Bruno 41. 5 is below every row: Ana takes row 1 (20: 3). 41 after 40.
#  turns 2-4: Ana 6, 7, 8 after 5; Bruno 42, 43, 44 after 41: row 3 is 40 41 42 43 44.
#  turn 5: Ana 9 (row 1: 5 6 7 8 9); Bruno 45 is the sixth card of row 3: he takes
#          40 41 42 43 44 = 3 + 1 + 1 + 1 + 5 = 11, and 45 starts row 3.
#  turn 6: Ana 2 is below every row (ends 10, 9, 30, 45): she takes row 1, 5 6 7 8 9 =
#          2 + 1 + 1 + 1 + 1 = 6. Bruno 46 after 45.
#  turn 7: Ana 31 after 30, Bruno 47 after 46.
#  turn 8: Bruno 1 is below every row (ends 10, 2, 31, 47): he takes row 0 (10: 3). Ana 32 after 31.
#  turns 9-10: Ana 33, 34 after 32 (row 2 holds five cards), Bruno 48, 49 after 47 (five too).
# Ana 3 + 6 = 9, Bruno 11 + 3 = 14: the game is over after its one round and Ana wins.
HAND_ONE_ROUND = {
    "format": "nimmt/1",
    "rules": {"edition": "classic", "end_above": 66, "rounds": 1, "countdown": True},
    "players": ["Ana", "Bruno"],
    "played_on": "2026-11-29",
    "rounds": [
        {
            "rows": [10, 20, 30, 40],
            "hands": [[2, 5, 6, 7, 8, 9, 31, 32, 33, 34], [1, 41, 42, 43, 44, 45, 46, 47, 48, 49]],
            "dealer": 1,
            "turns": [
                {"cards": [5, 41], "rows_taken": {"0": 1}, "seconds": 12},
                {"cards": [6, 42], "rows_taken": {}},
                {"cards": [7, 43], "rows_taken": {}},
                {"cards": [8, 44], "rows_taken": {}},
                {"cards": [9, 45], "rows_taken": {}},
                {"cards": [2, 46], "rows_taken": {"0": 1}},
                {"cards": [31, 47], "rows_taken": {}},
                {"cards": [32, 1], "rows_taken": {"1": 0}},
                {"cards": [33, 48], "rows_taken": {}},
                {"cards": [34, 49], "rows_taken": {}, "note": {"nested": [1, 2, 3]}},
            ],
        }
    ],
}
HAND_ONE_ROUND_SCORE = {"totals": [9, 14], "rounds": [[9, 14]], "finished": True, "winners": [0]}


# -- broken records ------------------------------------------------------------------------------


def first_row_taken(data: dict[str, Any]) -> tuple[int, int, int]:
    """(round, turn, player), counted from 0, of the first row chosen for a low card."""
    for r, round_data in enumerate(data["rounds"]):
        for t, turn in enumerate(round_data["turns"]):
            if turn["rows_taken"]:
                return r, t, int(min(turn["rows_taken"]))
    raise AssertionError("no row was taken in this game")


def first_fitting_card(data: dict[str, Any]) -> tuple[int, int, int]:
    """(round, turn, player) of a card that fit on a row (no row chosen), counted from 0."""
    for t, turn in enumerate(data["rounds"][0]["turns"]):
        for p in range(len(data["players"])):
            if str(p) not in turn["rows_taken"]:
                return 0, t, p
    raise AssertionError("every card was below every row")


def where(data: dict[str, Any], r: int | None = None, t: int | None = None, p: int | None = None) -> dict[str, Any]:
    """What the RecordError must say: its attributes (1-based round and turn) and its message start."""
    parts = []
    if r is not None:
        parts.append(f"round {r + 1}")
    if t is not None:
        parts.append(f"turn {t + 1}")
    if p is not None:
        parts.append(f"player {p} ({data['players'][p]})")
    return {
        "round": None if r is None else r + 1,
        "turn": None if t is None else t + 1,
        "player": p,
        "starts": ", ".join(parts) + ": " if parts else "",
    }


def write_broken(base: dict[str, Any]) -> None:
    """Each broken file is ``base`` with one thing wrong; index.json says what must be reported."""
    cases: dict[str, tuple[str | bytes | dict[str, Any], dict[str, Any], str]] = {}

    def mutated(name: str, reason: str, at: dict[str, Any], change: Any) -> None:
        data = copy.deepcopy(base)
        change(data)
        cases[name] = (data, at, reason)

    def setter(path: tuple[Any, ...], value: Any) -> Any:
        def change(data: Any) -> None:
            for key in path[:-1]:
                data = data[key]
            data[path[-1]] = value
        return change

    def deleter(path: tuple[Any, ...]) -> Any:
        def change(data: Any) -> None:
            for key in path[:-1]:
                data = data[key]
            del data[path[-1]]
        return change

    top = where(base)
    text = json.dumps(base)
    cases["malformed_json.json"] = (text[: len(text) // 2], top, "not valid JSON")
    cases["trailing_comma.json"] = ('{"format": "nimmt/1", "players": ["a", "b"],}', top, "not valid JSON")
    cases["not_utf8.json"] = (b'{"format": "nimmt/1", "players": ["\xff\xfe"]}', top, "not UTF-8")
    cases["empty.json"] = ("", top, "not valid JSON")
    cases["a_list.json"] = ("[1, 2, 3]", top, "must be a JSON object")
    cases["huge_integer.json"] = (text.replace('"rows": [', '"rows": [' + "9" * 5000 + ", ", 1), top,
                                  "not valid JSON")
    r, t, p = first_row_taken(base)
    fr, ft, fp = first_fitting_card(base)
    card = base["rounds"][0]["turns"][2]["cards"][1]
    mutated("card_as_string.json", "must be a card number", where(base, 0, 2, 1),
            setter(("rounds", 0, "turns", 2, "cards", 1), str(card)))
    mutated("card_as_float.json", "must be a card number", where(base, 0, 2, 1),
            setter(("rounds", 0, "turns", 2, "cards", 1), float(card)))
    mutated("card_as_boolean.json", "must be a card number", where(base, 0, None, None),
            setter(("rounds", 0, "rows", 2), True))
    mutated("hand_card_as_float.json", "must be a card number", where(base, 1, None, 2),
            setter(("rounds", 1, "hands", 2, 4), float(base["rounds"][1]["hands"][2][4])))
    mutated("card_out_of_range.json", "cards run from 1 to 104", where(base, 1, 4, 0),
            setter(("rounds", 1, "turns", 4, "cards", 0), 105))
    mutated("row_card_zero.json", "cards run from 1 to 104", where(base, 0),
            setter(("rounds", 0, "rows", 0), 0))
    mutated("row_taken_as_string.json", "must be a number from 0 to 3", where(base, r, t, p),
            setter(("rounds", r, "turns", t, "rows_taken", str(p)), "1"))
    mutated("row_out_of_range.json", "row 4 does not exist", where(base, r, t, p),
            setter(("rounds", r, "turns", t, "rows_taken", str(p)), 4))
    mutated("row_negative.json", "row -1 does not exist", where(base, r, t, p),
            setter(("rounds", r, "turns", t, "rows_taken", str(p)), -1))
    mutated("rows_taken_unknown_player.json", "players are 0 to 2", where(base, r, t),
            setter(("rounds", r, "turns", t, "rows_taken", "3"), 0))
    mutated("rows_taken_bad_key.json", "is not a player index", where(base, r, t),
            setter(("rounds", r, "turns", t, "rows_taken", "one"), 0))
    mutated("rows_taken_not_object.json", "must be an object", where(base, r, t),
            setter(("rounds", r, "turns", t, "rows_taken"), [[p, 0]]))
    mutated("missing_format.json", "no 'format'", top, deleter(("format",)))
    mutated("missing_players.json", "no 'players'", top, deleter(("players",)))
    mutated("missing_rounds.json", "no 'rounds'", top, deleter(("rounds",)))
    mutated("missing_rows.json", "no 'rows'", where(base, 1), deleter(("rounds", 1, "rows")))
    mutated("missing_hands.json", "no 'hands'", where(base, 0), deleter(("rounds", 0, "hands")))
    mutated("missing_cards.json", "no 'cards'", where(base, 0, 6), deleter(("rounds", 0, "turns", 6, "cards")))
    nameless = {**where(base, None, None, 1), "starts": "player 1: "}  # the name itself is wrong
    mutated("player_name_number.json", "must be a string", nameless,
            setter(("players", 1), 7))
    mutated("unknown_format.json", "unknown format", top, setter(("format",), "nimmt/2"))
    mutated("professional.json", "professional edition is not automated", top,
            setter(("rules", "edition"), "professional"))
    mutated("unknown_edition.json", "unknown edition", top, setter(("rules", "edition"), "deluxe"))
    mutated("end_above_float.json", "end_above", top, setter(("rules", "end_above"), 66.5))
    mutated("rounds_zero.json", "rounds must be", top, setter(("rules", "rounds"), 0))
    mutated("one_player.json", "2 to 10 players, not 1", top, setter(("players",), ["Solo"]))
    mutated("eleven_players.json", "2 to 10 players, not 11", top,
            setter(("players",), [f"P{i}" for i in range(11)]))
    mutated("hand_of_nine.json", "must hold 10 cards, not 9", where(base, 0, None, 1),
            lambda d: d["rounds"][0]["hands"][1].pop())
    mutated("two_hands.json", "must hold 3 hands", where(base, 1), lambda d: d["rounds"][1]["hands"].pop())
    mutated("two_cards_in_turn.json", "one card per player (3), not 2", where(base, 0, 3),
            lambda d: d["rounds"][0]["turns"][3]["cards"].pop())
    dup = base["rounds"][0]["hands"][0][0]
    mutated("duplicate_card_in_deal.json", f"card {dup} is dealt twice", where(base, 0),
            setter(("rounds", 0, "hands", 2, 9), dup))
    other = base["rounds"][0]["hands"][2][0]  # player 2's card, played by player 1 in turn 1
    mutated("card_not_in_hand.json", f"does not hold card {other}", where(base, 0, 0, 1),
            setter(("rounds", 0, "turns", 0, "cards", 1), other))
    again = base["rounds"][1]["turns"][0]["cards"][0]  # played again by player 0 in turn 2
    mutated("card_played_twice.json", f"does not hold card {again}", where(base, 1, 1, 0),
            setter(("rounds", 1, "turns", 1, "cards", 0), again))
    mutated("missing_rows_taken.json", "does not say which row", where(base, r, t, p),
            deleter(("rounds", r, "turns", t, "rows_taken", str(p))))
    mutated("rows_taken_for_a_card_that_fit.json", "was not below every row", where(base, fr, ft, fp),
            setter(("rounds", fr, "turns", ft, "rows_taken", str(fp)), 0))
    mutated("short_round.json", "only the last round", where(base, 0),
            lambda d: d["rounds"][0]["turns"].pop())
    mutated("eleven_turns.json", "this one lists 11", where(base, 1),
            lambda d: d["rounds"][1]["turns"].append(copy.deepcopy(d["rounds"][1]["turns"][0])))
    mutated("round_after_the_end.json", "the game ended after round 2", where(base, 2),
            lambda d: d["rounds"].append(copy.deepcopy(d["rounds"][0])))
    index: dict[str, Any] = {}
    for name, (content, at, reason) in cases.items():
        path = BROKEN / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            write(path, content, indent=None)
        index[name] = {**at, "reason": reason}
    write(BROKEN / "index.json", index)


def write(path: Path, data: Any, indent: int | None = 1) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=indent) + "\n", encoding="utf-8")


def main() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    BROKEN.mkdir(parents=True, exist_ok=True)
    games: dict[str, dict[str, Any]] = {}
    for name, (players, rules, seed) in GAMES.items():
        data = bot_game(players, rules, seed)
        if name in CUTS:
            data = cut(data, *CUTS[name])
        games[name] = data
    games["two_players_exactly_66"] = exactly_66()
    for name, data in games.items():
        write(GOLDEN / f"{name}.json", data)
        write(GOLDEN / f"{name}.expected.json", score(parse(data)).to_json())
    write(GOLDEN / "hand_exactly_66.json", HAND_EXACT_66)
    write(GOLDEN / "hand_exactly_66.expected.json", HAND_EXACT_66_SCORE)
    write(GOLDEN / "hand_one_round.json", HAND_ONE_ROUND)
    write(GOLDEN / "hand_one_round.expected.json", HAND_ONE_ROUND_SCORE)
    write_broken(games["three_players_two_rounds"])


if __name__ == "__main__":
    main()
