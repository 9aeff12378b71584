"""``nimmt rules``: the real command, in a pipe, on a terminal, in the user's locale."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from nimmt.cli.main import app
from nimmt.cli.rules import plain
from nimmt.i18n import LANGUAGES, text

LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def environment(**values: str) -> dict[str, str]:
    """This process's environment without any locale setting, plus ``values``."""
    env = {key: value for key, value in os.environ.items() if key not in LOCALE_VARIABLES}
    env.update(values)
    return env


def nimmt(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nimmt", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environment(**env),
        timeout=60,
    )


def test_prints_the_french_page_as_plain_text_in_a_pipe() -> None:
    done = nimmt("rules", "--lang", "fr", LANG="de_DE.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout == plain(text("fr", "rules"))
    assert done.stdout.startswith("6 qui prend !")
    assert "Questions fréquentes\n--------------------" in done.stdout
    assert "**" not in done.stdout and "\n## " not in done.stdout


def test_language_comes_from_the_locale_when_not_given() -> None:
    done = nimmt("rules", LANG="pt_BR.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stdout == plain(text("pt-BR", "rules"))
    assert "fileira" in done.stdout and "você" in done.stdout


def test_unknown_language_is_a_clear_error_in_the_users_language() -> None:
    done = nimmt("rules", "--lang", "klingon", LANG="fr_FR.UTF-8")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert "klingon" in done.stderr and "Langue inconnue" in done.stderr
    assert ", ".join(LANGUAGES) in done.stderr


def test_renders_markdown_on_a_terminal() -> None:
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "nimmt", "rules", "--lang", "de"],
        stdout=terminal,
        stderr=subprocess.PIPE,
        env=environment(TERM="xterm-256color", COLUMNS="100", LANG="C.UTF-8"),
    )
    os.close(terminal)
    shown = b""
    try:
        while True:  # read while it writes, so that a full terminal buffer cannot block it
            try:
                chunk = os.read(controller, 1 << 16)
            except OSError:  # EIO: the command closed the terminal
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(controller)
        process.wait(timeout=60)
    assert process.stderr is not None
    errors = process.stderr.read()
    process.stderr.close()
    assert process.returncode == 0, errors
    output = shown.decode("utf-8")
    assert "\x1b[" in output  # styled by rich
    assert "Häufige Fragen" in output and "Hornochsen" in output
    assert "## " not in output and "**" not in output


def test_a_narrow_output_encoding_does_not_crash() -> None:
    done = nimmt("rules", "--lang", "fr", PYTHONIOENCODING="ascii")
    assert done.returncode == 0, done.stderr
    assert "t?tes de b?uf" in done.stdout


@pytest.mark.parametrize(
    ("typed", "language"), [("pt", "pt-PT"), ("PT_br", "pt-BR"), ("pt-pt", "pt-PT"), ("ES", "es"), ("en", "en")]
)
def test_language_spellings(typed: str, language: str) -> None:
    result = CliRunner().invoke(app, ["rules", "--lang", typed])
    assert result.exit_code == 0, result.output
    assert result.output == plain(text(language, "rules"))
