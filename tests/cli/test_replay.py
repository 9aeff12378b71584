"""``nimmt replay`` against an independent referee, on valid, unfinished and broken records."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game
from nimmt.records import score

from .referee import judge


def nimmt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], capture_output=True, text=True, timeout=120)


def _games(rng: random.Random) -> list[dict[str, Any]]:
    games = []
    for players in range(2, 11):
        for rules in (Rules(), Rules(end_above=20), Rules(rounds=1), Rules(end_above=0)):
            bots = [make_bot("random", random.Random(rng.random())) for _ in range(players)]
            games.append(play_game(bots, random.Random(rng.random()), rules).to_json())
    return games


def _mutations(game: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Unfinished games (cut short) and broken ones (one thing changed)."""
    out = []
    cut = copy.deepcopy(game)
    last = cut["rounds"][-1]
    last["turns"] = last["turns"][: rng.randrange(10)]
    out.append(cut)
    cut = copy.deepcopy(game)
    cut["rounds"] = cut["rounds"][: rng.randrange(len(cut["rounds"]) + 1)]
    out.append(cut)
    for _ in range(6):
        broken = copy.deepcopy(game)
        rnd = rng.choice(broken["rounds"])
        kind = rng.randrange(7)
        if kind == 0 and rnd["turns"]:
            turn = rng.choice(rnd["turns"])
            turn["cards"][rng.randrange(len(turn["cards"]))] = rng.randint(0, 105)
        elif kind == 1 and rnd["turns"]:
            turn = rng.choice(rnd["turns"])
            turn["rows_taken"][str(rng.randrange(len(turn["cards"])))] = rng.randrange(4)
        elif kind == 2:
            rnd["rows"][rng.randrange(4)] = rng.randint(1, 104)
        elif kind == 3 and rnd["turns"]:
            turn = rng.choice(rnd["turns"])
            if turn["rows_taken"]:
                key = rng.choice(sorted(turn["rows_taken"]))
                turn["rows_taken"][key] = (turn["rows_taken"][key] + 1) % 4
        elif kind == 4:
            rnd["turns"] = rnd["turns"][:9]
        elif kind == 5:
            broken["rules"]["end_above"] = rng.choice([66, 10, 200, -1, "66"])
        else:
            broken["players"] = broken["players"][:-1]
        out.append(broken)
    return out


def test_replay_agrees_with_an_independent_referee(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    records = []
    for game in _games(rng):
        records.append(game)
        records.extend(_mutations(game, rng))
    paths = []
    for index, data in enumerate(records):
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data))
        paths.append(str(path))
    result = nimmt("replay", "--json", *paths)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == len(records)
    errors = 0
    for data, line, file in zip(records, lines, paths, strict=True):
        assert line["file"] == file
        expected = judge(data)
        if "error" in expected:
            errors += 1
            assert set(line) == {"file", "error"}, (file, line)
            assert line["error"]
        else:
            assert {k: line[k] for k in ("totals", "rounds", "finished", "winners")} == expected, file
    assert 0 < errors < len(records)
    assert result.returncode == 2


def test_valid_files_exit_zero_and_tell_the_game(tmp_path: Path) -> None:
    bots = [make_bot("random", random.Random(i)) for i in range(3)]
    game = play_game(bots, random.Random(1), names=["Ana", "Bruno", "Carla"])
    path = tmp_path / "game.json"
    game.save(path)
    result = nimmt("replay", "--lang", "en", str(path))
    assert result.returncode == 0, result.stderr
    assert "Round 1: the rows start with" in result.stdout
    scored = score(game)
    totals = scored.totals
    above = [p for p in range(3) if totals[p] > 66]
    winner = min(range(3), key=lambda p: totals[p])
    names = ["Ana", "Bruno", "Carla"]
    if len(above) == 1:
        assert f"{names[above[0]]} has {totals[above[0]]}, above 66: the game is over." in result.stdout
    else:
        assert "are above 66: the game is over." in result.stdout
    assert f"Winner: {names[winner]}, with {totals[winner]} bullheads." in result.stdout
    # every round but the last says why the game goes on
    assert result.stdout.count(": the game goes on.") == len(scored.rounds) - 1
    running = [sum(r[winner] for r in scored.rounds[: n + 1]) for n in range(len(scored.rounds))]
    assert f"  {names[winner]}: " + " → ".join(map(str, running)) in result.stdout
    as_json = nimmt("replay", "--json", str(path))
    assert as_json.returncode == 0
    line = json.loads(as_json.stdout)
    assert line["finished"] is True
    assert line["ending"] == {"over": True, "reason": "above", "players": sorted(above, key=lambda p: -totals[p]),
                              "end_above": 66, "rounds": None, "rounds_played": len(scored.rounds)}


def test_garbage_never_gives_a_traceback(tmp_path: Path) -> None:
    inputs = {
        "empty.json": b"",
        "truncated.json": b'{"format": "nimmt/1", "players": [',
        "binary.json": bytes(range(256)),
        "list.json": b"[]",
        "deep.json": b"[" * 100000 + b"]" * 100000,
        "nan.json": b'{"format": "nimmt/1", "players": ["a", "b"], "rounds": [{"rows": [NaN, 1, 2, 3]}]}',
        "huge.json": b'{"format": "nimmt/1", "players": ["a", "b"], "rounds": [{"rows": [1e400, 1, 2, 3]}]}',
        "types.json": b'{"format": "nimmt/1", "players": ["a", "b"], "rounds": [{"rows": "1234", "hands": {}}]}',
    }
    paths = []
    for name, content in inputs.items():
        (tmp_path / name).write_bytes(content)
        paths.append(str(tmp_path / name))
    paths.append(str(tmp_path / "missing.json"))
    result = nimmt("replay", "--json", *paths)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["file"] for line in lines] == paths
    assert all(set(line) == {"file", "error"} for line in lines)
    plain = nimmt("replay", *paths)
    assert plain.returncode == 2 and "Traceback" not in plain.stderr


def test_error_names_round_turn_and_player(tmp_path: Path) -> None:
    bots = [make_bot("random", random.Random(i)) for i in range(2)]
    game = play_game(bots, random.Random(3), names=["Ana", "Bruno"])
    data = game.to_json()
    data["rounds"][0]["turns"][4]["cards"][1] = data["rounds"][0]["turns"][0]["cards"][1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    line = json.loads(nimmt("replay", "--json", str(path)).stdout)
    assert line["error"].startswith("round 1, turn 5, player 1 (Bruno): card")


def _folder_of_records(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A folder with two valid games (one in a subfolder), a broken one and files that are not records."""
    folder = tmp_path / "games"
    (folder / "later").mkdir(parents=True)
    names = ["Ana Maria", "Bruno"]
    for index, path in enumerate([folder / "b.json", folder / "later" / "a.json"]):
        play_game([make_bot("random", random.Random(index)), make_bot("random", random.Random(9))],
                  random.Random(index), names=names).save(path)
    (folder / "a_broken.json").write_text('{"format": "nimmt/1", "players": ["Ana"], "rounds": []}')
    (folder / "notes.txt").write_text("not a record")
    (folder / ".hidden.json").write_text("{}")
    return folder, [folder / "a_broken.json", folder / "b.json", folder / "later" / "a.json"]


def test_a_folder_stands_for_its_records_sorted_and_with_subfolders(tmp_path: Path) -> None:
    folder, files = _folder_of_records(tmp_path)
    as_json = nimmt("replay", "--json", str(folder))
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [line["file"] for line in lines] == [str(path) for path in files]
    assert "error" in lines[0] and all(line["finished"] for line in lines[1:])
    assert as_json.returncode == 2
    told = nimmt("replay", "--lang", "en", str(folder))
    assert told.returncode == 2
    assert told.stdout.splitlines()[-1] == "3 files checked: 2 valid, 1 not valid."
    assert f"{files[0]}: not a valid record: a game has 2 to 10 players, not 1" in told.stdout


def test_a_folder_of_valid_records_exits_zero(tmp_path: Path) -> None:
    folder, files = _folder_of_records(tmp_path)
    files[0].unlink()
    told = nimmt("replay", "--lang", "pt-BR", str(folder))
    assert told.returncode == 0, told.stdout
    assert told.stdout.splitlines()[-1] == "2 arquivos verificados: 2 válidos, 0 inválidos."


def test_a_folder_without_records_is_not_valid(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing here")
    told = nimmt("replay", "--lang", "de", str(tmp_path))
    assert told.returncode == 2
    assert f"{tmp_path}: keine Partiedateien (*.json) in diesem Ordner" in told.stdout
