"""Commands that start at once: what a command loads, held where it is exact (``sys.modules`` after
the command ran in a fresh process), not timed. ``benchmarks/bench_start.py`` measures the times.

NumPy (with its threads) costs about five times Python's own start to load, pydantic and the
adapters Typer builds with it one to two, rich's Markdown and Traceback one: none is needed by these.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.cli.main import COMMANDS

NEVER = ("numpy", "numba", "pydantic", "pydantic_core", "sqlalchemy", "fastapi", "starlette", "uvicorn",
         "markdown_it", "pygments", "rich.markdown", "rich.traceback")


def loaded_by(*words: str) -> tuple[set[str], str]:
    """The modules loaded once ``nimmt WORDS`` has run in a new process, and what it wrote."""
    script = (
        "import json, sys\n"
        f"sys.argv = ['nimmt', *{list(words)!r}]\n"
        "from nimmt.cli.entry import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as end:\n"
        "    assert end.code in (0, None), end.code\n"
        "print('\\n' + json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    output, _, modules = done.stdout.rstrip("\n").rpartition("\n")
    return set(json.loads(modules)), output


def heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if name.split(".")[0] in NEVER or name in NEVER)


def test_simulate_one_game_of_the_default_bots_loads_no_numpy_no_pydantic_no_rich() -> None:
    modules, output = loaded_by("simulate", "--games", "1", "--seed", "1", "--json")
    assert json.loads(output)["games"] == 1
    assert heavy(modules) == [] and "rich" not in modules


@pytest.mark.parametrize("words", [["rules", "--lang", "en"], ["--version"], ["simulate", "--games", "100", "--json"]])
def test_a_command_that_needs_none_of_them_loads_none(words: list[str]) -> None:
    modules, output = loaded_by(*words)
    assert output
    assert heavy(modules) == []


def test_replay_of_a_record_loads_none(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "nimmt", "simulate", "--games", "1", "--bots", "heuristic", "--seed", "2",
                    "--json", "--records", str(tmp_path)], capture_output=True, timeout=120, check=True)
    (record,) = tmp_path.iterdir()
    modules, output = loaded_by("replay", str(record), "--json")
    assert json.loads(output)
    assert heavy(modules) == []


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_help_of_a_command_loads_none(command: str) -> None:
    """Every command's ``--help``: Typer and rich write it, with nothing of the command's work."""
    modules, output = loaded_by(command, "--help")
    assert "--help" in output
    assert heavy(modules) == []


def test_the_help_stand_ins_are_the_real_classes_when_used() -> None:
    """Typer's help loads with stand-ins for rich's Markdown and Traceback; using one loads the real
    class (and a later import of its module is the real module)."""
    script = (
        "import sys\n"
        "from nimmt.cli import _rich_help\n"
        "_rich_help.load()\n"
        "import typer.rich_utils as r\n"
        "assert 'rich.markdown' not in sys.modules and 'rich.traceback' not in sys.modules\n"
        "from rich.markdown import Markdown\n"
        "assert isinstance(r.Markdown('*x*'), Markdown)\n"
        "from rich.traceback import Traceback\n"
        "try:\n"
        "    1 / 0\n"
        "except ZeroDivisionError as error:\n"
        "    shown = r.Traceback.from_exception(type(error), error, error.__traceback__)\n"
        "assert isinstance(shown, Traceback)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
