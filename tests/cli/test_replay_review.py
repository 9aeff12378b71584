"""``nimmt replay --review``: the review of each game in the terminal and in JSON, in every language."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.bots import make_bot
from nimmt.core import Rules
from nimmt.match import play_game


def nimmt(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nimmt", *args], capture_output=True, text=True, timeout=600,
                          env=None if env is None else {**os.environ, **env})


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bots = [make_bot(name, random.Random(i)) for i, name in enumerate(("random", "heuristic", "random"))]
    path = tmp_path_factory.mktemp("review") / "game.json"
    play_game(bots, random.Random(8), Rules(rounds=1), names=("Ana", "Bruno", "Carla")).save(path)
    return path


def test_json_gives_each_player_an_accuracy_and_each_decision_its_options(record: Path) -> None:
    done = nimmt("replay", "--review", "--json", "--samples", "32", str(record))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    review = result["review"]
    assert result["finished"] and review["samples"] == 32 and review["seed"] == 0
    assert [p["name"] for p in review["players"]] == ["Ana", "Bruno", "Carla"]
    assert all(0 <= p["accuracy"] <= 100 for p in review["players"])
    assert len([d for d in review["decisions"] if d["kind"] == "card"]) == 30
    for decision in review["decisions"]:
        options = decision["options"]
        assert [o["option"] for o in options if o["chosen"]] == [decision["chosen"]]
        assert min(o["loss"] for o in options) == 0 and all(o["loss"] >= 0 for o in options)
        assert all({"expected", "loss", "chosen", "stderr"} <= set(o) for o in options)
        if decision["kind"] == "card":
            assert sorted(o["option"] for o in options) == sorted(decision["hand"])
    # the random players lose more per decision than the heuristic one, even on one round
    ana, bruno, carla = review["players"]
    assert bruno["accuracy"] > min(ana["accuracy"], carla["accuracy"])
    again = nimmt("replay", "--review", "--json", "--samples", "32", str(record))
    assert json.loads(again.stdout) == result  # seeded: the same numbers


@pytest.mark.parametrize("language", ["pt-BR", "fr", "de"])
def test_the_terminal_review_speaks_every_language(record: Path, language: str) -> None:
    done = nimmt("replay", "--review", "--samples", "16", "--lang", language, str(record))
    assert done.returncode == 0, done.stderr
    from nimmt.i18n import translator

    _ = translator(language, "review")
    head = _("header", samples=16, seed=0)
    assert head in done.stdout
    for name in ("Ana", "Bruno", "Carla"):
        assert _("player", name=name, accuracy="", decisions="", loss="", inaccuracies="", mistakes="",
                 blunders="").split(":")[0] in done.stdout
    assert _("mark_blunder") in done.stdout or _("mark_mistake") in done.stdout  # two random players
    assert _("slow") not in done.stderr  # compiled here


def test_a_review_without_compiled_rollouts_says_it_will_be_slow(record: Path) -> None:
    from nimmt.i18n import translator

    done = nimmt("replay", "--review", "--samples", "2", "--lang", "fr", str(record), env={"NUMBA_DISABLE_JIT": "1"})
    assert done.returncode == 0, done.stderr
    assert translator("fr", "review")("slow") in done.stderr
    assert translator("fr", "review")("header", samples=2, seed=0) in done.stdout


def test_bad_input_is_refused_clearly(record: Path, tmp_path: Path) -> None:
    done = nimmt("replay", "--review", "--samples", "1", str(record))
    assert done.returncode == 2 and "--samples" in done.stderr
    broken = tmp_path / "broken.json"
    data = json.loads(record.read_text())
    turn = data["rounds"][0]["turns"][3]
    turn["cards"][0] = data["rounds"][0]["turns"][0]["cards"][0]  # a card Ana has already played
    broken.write_text(json.dumps(data))
    done = nimmt("replay", "--review", "--json", str(broken), str(record))
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout
    bad, good = map(json.loads, done.stdout.splitlines())
    assert "round 1, turn 4" in bad["error"] and "review" not in bad
    assert good["review"]["players"]


def test_replay_without_review_does_not_load_the_review(record: Path) -> None:
    code = (
        "import sys\n"
        "from nimmt.cli.main import main\n"
        f"try:\n    main(['replay', {str(record)!r}])\nexcept SystemExit:\n    pass\n"
        "print('nimmt.review' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False"
