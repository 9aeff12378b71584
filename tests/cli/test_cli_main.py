"""The ``nimmt`` command loads only the module of the command it runs."""

from __future__ import annotations

import subprocess
import sys

import typer.main

from nimmt.cli.main import COMMANDS, command_modules, make_app


def commands_of(modules: list[str]) -> set[str]:
    group = typer.main.get_command(make_app(modules))
    return set(getattr(group, "commands", {}))


def test_the_table_of_commands_is_what_the_modules_add() -> None:
    adds = {module: commands_of([module]) for module in command_modules()}
    assert {command: module for module, commands in adds.items() for command in commands} == COMMANDS


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
    assert done.stdout.strip().splitlines()[-1] == "['nimmt.cli.main', 'nimmt.cli.rules']"


def test_help_and_an_unknown_command_still_see_every_command() -> None:
    done = subprocess.run([sys.executable, "-m", "nimmt", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert all(command in done.stdout for command in COMMANDS)
    wrong = subprocess.run([sys.executable, "-m", "nimmt", "simulat"], capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "simulate" in wrong.stderr  # "Did you mean 'simulate'?"
