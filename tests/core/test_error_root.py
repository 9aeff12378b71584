"""NimmtError is the root of every error nimmt raises on purpose (house rule of issue 10).

Every exception class nimmt defines derives from it, in every module (the web server's and the
texts' too), but for two signals of control flow inside one module (``SIGNALS``). No module
raises a bare built-in error (ValueError, RuntimeError...) for a caller to see; the web server,
the web pages and the interactive commands are held to that by their own tests (``SKIPPED``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import nimmt
from nimmt.core import NimmtError

SKIPPED = ("nimmt.server", "nimmt.web", "nimmt.cli.play", "nimmt.cli.score", "nimmt.cli.replay", "nimmt.cli.bot",
           "nimmt.cli.serve", "nimmt.i18n", "nimmt.__main__", "nimmt.cli.__main__")
# Raised and caught inside the module itself, never seen by a caller.
INTERNAL = {"nimmt/tournament/save.py"}
# Control flow inside one module (the end of a person's input; the bots' pool closing), not errors.
SIGNALS = {"nimmt.cli.play.InputEnded", "nimmt.server.botpool.PoolClosed"}
BARE = re.compile(r"raise (ValueError|TypeError|RuntimeError|KeyError|IndexError|Exception)\(")


def modules(skipped: tuple[str, ...] = SKIPPED) -> list[str]:
    names = [info.name for info in pkgutil.walk_packages(nimmt.__path__, "nimmt.")]
    return [name for name in names if not name.startswith(skipped)]


@pytest.mark.parametrize("name", modules(("nimmt.__main__", "nimmt.cli.__main__")))
def test_every_error_class_derives_from_nimmt_error(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as error:  # an optional extra that is not installed
        pytest.skip(str(error))
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ == name and issubclass(cls, BaseException) and f"{name}.{cls.__name__}" not in SIGNALS:
            assert issubclass(cls, NimmtError), f"{name}.{cls.__name__} does not derive from NimmtError"


def test_no_module_raises_a_bare_builtin_error() -> None:
    root = Path(nimmt.__file__).parent
    offenders = []
    for name in modules():
        path = root.joinpath(*name.split(".")[1:])
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        relative = f"nimmt/{path.relative_to(root).as_posix()}"
        if relative in INTERNAL or not path.exists():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if BARE.search(line):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
