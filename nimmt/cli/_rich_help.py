"""Typer's help, without loading the parts of rich that it imports but never uses for nimmt's help.

Typer's ``rich_utils`` imports rich's ``Markdown`` (with markdown-it and its plugins) and
``Traceback`` (with pygments) when it loads: a sixth of a command's ``--help``. nimmt's help is
never Markdown (the default ``rich`` markup) and its errors never pretty tracebacks
(``pretty_exceptions_enable=False``). :func:`load` imports ``rich_utils`` with each of the two
standing for the real class, which loads when something first uses it; ``rich.markdown`` and
``rich.traceback`` themselves stay unloaded, so any later import of them gets the real ones.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

LATER = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


class Later(type):
    """The class of a stand-in: a class of another module, loaded when first called or asked for
    an attribute."""

    module: str

    def real(cls) -> Any:
        return getattr(importlib.import_module(cls.module), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls.real(), name)


def stand_in(module: str, name: str) -> types.ModuleType:
    """A module that holds only a stand-in for ``module.name``."""
    standing = types.ModuleType(module)
    setattr(standing, name, Later(name, (), {"module": module}))
    return standing


def load() -> None:
    """Import ``typer.rich_utils`` (which writes the help) with stand-ins for Markdown and Traceback."""
    if "typer.rich_utils" in sys.modules or any(module in sys.modules for module in LATER):
        return
    standing = {module: stand_in(module, name) for module, name in LATER.items()}
    sys.modules.update(standing)
    try:
        importlib.import_module("typer.rich_utils")
    finally:
        for module, stand in standing.items():
            if sys.modules.get(module) is stand:
                del sys.modules[module]
