"""The ``nimmt`` command loads only the module of the command it runs; its help loads none."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest
import typer.main
from typer.testing import CliRunner

from nimmt.cli.main import COMMANDS, command_modules, make_app


def commands_of(modules: list[str]) -> set[str]:
    group = typer.main.get_command(make_app(modules))
    return set(getattr(group, "commands", {}))


def test_the_table_of_commands_is_what_the_modules_add() -> None:
    adds = {module: commands_of([module]) for module in command_modules()}
    assert {command: module for module, commands in adds.items() for command in commands} == {
        name: command.module for name, command in COMMANDS.items()}


def test_the_summaries_of_the_help_are_the_commands_own() -> None:
    """``nimmt --help`` lists the commands from the table, without loading them: the same words."""
    group = typer.main.get_command(make_app())
    for name, command in COMMANDS.items():
        real = getattr(group, "commands", {})[name]
        assert command.summary == inspect.cleandoc(real.help or "").split("\n\n")[0], name


def test_app_has_every_command() -> None:
    from nimmt.cli.main import app

    assert set(getattr(typer.main.get_command(app), "commands", {})) == set(COMMANDS)


def test_a_command_loads_its_own_module_only() -> None:
    script = (
        "import sys\n"
        "from nimmt.cli.main import main\n"
        "try:\n"
        "    main(['rules', '--lang', 'en'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('nimmt.cli.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip().splitlines()[-1] == (
        "['nimmt.cli._coercion', 'nimmt.cli._help', 'nimmt.cli.main', 'nimmt.cli.rules']")


def test_help_and_an_unknown_command_still_see_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "nimmt", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert all(command in done.stdout for command in COMMANDS)
    wrong = subprocess.run([sys.executable, "-m", "nimmt", "simulat"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "simulate" in wrong.stderr  # "Did you mean 'simulate'?"


def test_help_loads_no_engine_no_server_no_typer() -> None:
    """The help of ``nimmt`` starts quickly: NumPy, Numba, the server, Typer and rich stay unloaded."""
    script = (
        "import sys\n"
        "sys.argv = ['nimmt', '--help']\n"
        "from nimmt.cli.entry import main\n"
        "main()\n"
        "import json\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    help_text, loaded = done.stdout.rsplit("\n", 2)[0], set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert all(name in help_text for name in COMMANDS)
    heavy = {"numpy", "numba", "fastapi", "starlette", "uvicorn", "sqlalchemy", "typer", "rich", "nimmt.bots",
             "nimmt.server"}
    assert not heavy & loaded


@pytest.mark.parametrize("command", [[], *([name] for name in COMMANDS)])
def test_on_off_flags_show_no_value_in_the_help(command: list[str]) -> None:
    """A flag takes no value: its help shows none (Typer 0.29 wrote ``<bool>`` after it)."""
    done = CliRunner().invoke(make_app(), [*command, "--help"], env={"COLUMNS": "160"})
    assert done.exit_code == 0, done.output
    assert "--help" in done.output and "<bool>" not in done.output
    if command == ["simulate"]:
        assert "<int>" in done.output  # an option that takes a value still says which
