"""Tournament figures to trust (issue 31, item 4): only complete deal sets count, the budget in force
is written even when it is the default, and a summary read again from a save file shows the games'
own time, not the time of reading them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.tournament import (
    DEFAULT_TIME_BUDGET,
    SaveFile,
    Seat,
    budget_in_force,
    complete_sets,
    schedule,
    settings_of,
    summarize,
    summary_of,
    tournament,
)
from nimmt.tournament.play import play_match

BOTS = "heuristic,random,random,random"
ENV: dict[str, str | None] = {"FORCE_COLOR": None, "TTY_COMPATIBLE": None, "TTY_INTERACTIVE": None}


def run(*args: str) -> Any:
    return CliRunner(env=ENV).invoke(app, ["tournament", "--bots", BOTS, "--seed", "7", "--lang", "en", *args])


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_deal_set_not_played_in_every_rotation_is_left_out_and_named() -> None:
    bots = BOTS.split(",")
    results = [play_match(spec) for spec in schedule(bots, 3, seed=5)]
    whole = summarize(bots, results[:8])  # deal sets 0 and 1, every rotation
    part = summarize(bots, results[:10])  # and two games of deal set 2
    assert (part.games, part.deal_sets, part.incomplete) == (8, 2, ((2, 2),))
    assert [s.penalty_per_round for s in part.entries] == [s.penalty_per_round for s in whole.entries]
    assert part.lead == whole.lead and part.by_bot == whole.by_bot
    data = part.to_json()
    assert data["incomplete"] == [{"deal_set": 2, "games": 2}] and data["games_left_out"] == 2
    kept, left = complete_sets(results[1:])  # deal set 0 lacks its first rotation
    assert {r.deal_set for r in kept} == {1, 2} and left == ((0, 3),)


def test_a_field_summary_counts_complete_deal_sets_too() -> None:
    field = ["field:lowest", "field:gap", "field:safe"]
    summary = tournament(["heuristic"], games=6, seed=3, field=field, players=3)
    assert summary.deal_sets == 2 and not summary.incomplete
    again = summary_of(["heuristic"], [], field)
    assert again.games == 0 and again.field == tuple(field)


def test_a_stopped_run_read_again_counts_its_complete_deal_sets_and_says_which_are_not(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    assert run("--games", "8", "--save", str(save)).exit_code == 0
    text = save.read_text().splitlines(keepends=True)
    save.write_text("".join(text[:-2]))  # stopped two games before the end of deal set 1
    result = run("--games", "4", "--json", "--save", str(save))  # nothing to play: deal set 0 is there
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["games"], data["deal_sets"]) == (4, 1)
    assert data["incomplete"] == [{"deal_set": 1, "games": 2}] and data["games_left_out"] == 2
    table = run("--games", "4", "--save", str(save))
    assert "left out of the figures: 2 games of 1 deal sets not played in every rotation" in table.stdout
    assert "1 (2)" in table.stdout


def test_the_budget_in_force_is_written_even_when_it_is_the_default(tmp_path: Path) -> None:
    assert DEFAULT_TIME_BUDGET == 1.0
    assert budget_in_force(["expert", "random"], None) == DEFAULT_TIME_BUDGET
    assert budget_in_force(["expert", "random"], 0.2) == 0.2
    assert budget_in_force(["heuristic", "random"], None) is None  # nobody searches on a clock
    own = Seat(name="expert-fast", bot="expert", options=(("time_budget", 0.2),), named=True)
    assert budget_in_force([own, "random"], None) is None  # its own budget is in its key
    assert settings_of(["expert", "random"], seed=1).time_budget == DEFAULT_TIME_BUDGET
    assert settings_of(["heuristic"], seed=1, field=["expert", "field:gap"], players=3).time_budget == 1.0
    # The header of a new save file says 1.0; a file saved before, with null for the default, still opens.
    path = tmp_path / "games.jsonl"
    settings = settings_of(["expert", "random"], seed=1)
    with SaveFile.open(path, settings):
        pass
    assert lines(path)[0]["time_budget"] == DEFAULT_TIME_BUDGET
    old = lines(path)[0] | {"time_budget": None}
    path.write_text(json.dumps(old) + "\n")
    with SaveFile.open(path, settings) as save:
        assert save.done == {}
    # Bots that do not search: the JSON says null, as before.
    data = json.loads(run("--games", "4", "--json").stdout)
    assert data["time_budget"] is None


def test_a_summary_read_again_shows_the_games_time_not_the_readings(tmp_path: Path) -> None:
    save = tmp_path / "games.jsonl"
    first = run("--games", "4", "--json", "--save", str(save))
    assert first.exit_code == 0, first.output
    played = json.loads(first.stdout)
    games = lines(save)[1:]
    assert all(g["seconds"] > 0 for g in games)
    assert abs(played["seconds"] - sum(g["seconds"] for g in games)) < 1e-9
    again = json.loads(run("--games", "4", "--json", "--save", str(save)).stdout)
    assert again["seconds"] == played["seconds"] and again["untimed_games"] == 0
    assert again["run_seconds"] >= 0
    # A file saved before the games' time was kept: those games are counted as untimed.
    header, *rest = lines(save)
    save.write_text("".join(json.dumps(line) + "\n" for line in [header, *({k: v for k, v in g.items()
                                                                          if k != "seconds"} for g in rest)]))
    old = run("--games", "4", "--save", str(save))
    assert old.exit_code == 0, old.output
    assert "4 games were saved without their time" in old.stdout
    assert "4 games over 1 duplicate deal sets, seed 7, 0.0 s" in old.stdout
