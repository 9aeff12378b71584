"""Typer's coercion of option values, without pydantic for the plain values nimmt's commands take.

Typer 0.29 turns every option's value into its type with a pydantic ``TypeAdapter``: loading
pydantic and building an adapter per option cost about a fifth of a command's start-up. Here a
value written plainly (``--games 100``, ``--bot-delay 0.5``, a name, a file, an on/off flag) is
turned into an ``int``, ``float``, ``str``, ``bool`` or ``Path`` as pydantic turns it; anything else
(a value out of range, ``1_000``, ``1e3``, ``abc``: rare, and often an error) goes to Typer's own
coercion, which gives its own value or message. So every answer is Typer's, and pydantic loads only
when a value is unusual. ``tests/cli/test_coercion.py`` holds the two to the same answers.

:func:`install` does it for the Typer release that ``pyproject.toml`` pins; with any other it
does nothing (Typer then coerces as it always does, only slower to start).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, get_args, get_origin

import typer
import typer.core
from typer import _coercion
from typer._click import Context
from typer._param_types import coerce_cli_path
from typer.models import ParameterInfo

TYPER = "0.29.1"  # the release whose coercion this reproduces (pyproject.toml pins it)

_NONE: Final = object()  # no plain value: Typer's own coercion answers
# Numbers as pydantic reads them and these read them alike: ASCII digits, a sign, spaces around.
_INT = re.compile(r"[ \t\n\r]*[+-]?[0-9]{1,18}[ \t\n\r]*")
_FLOAT = re.compile(r"[ \t\n\r]*[+-]?[0-9]{1,15}(?:\.[0-9]{1,15})?[ \t\n\r]*")
_typer_runtime_param = _coercion.build_runtime_param


def _in_range(number: float, info: ParameterInfo) -> bool:
    low, high = info.min, info.max
    return (low is None or number >= low) and (high is None or number <= high)


def plain_value(annotation: Any, info: ParameterInfo, value: Any, param: Any = None, ctx: Context | None = None
                ) -> Any:
    """``value`` as an option of type ``annotation`` takes it, or :data:`_NONE` when Typer must say."""
    if info.parser is not None or info.clamp:
        return _NONE
    if annotation is bool:
        return value if isinstance(value, bool) else _NONE
    if annotation is str:
        return value if isinstance(value, str) else _NONE
    if annotation is int or annotation is float:
        given = type(value) is int or (annotation is float and type(value) is float and math.isfinite(value))
        if not given and not (isinstance(value, str) and (_INT if annotation is int else _FLOAT).fullmatch(value)):
            return _NONE
        number: float = annotation(value)
        return number if _in_range(number, info) else _NONE
    if annotation is Path and info.path_type is None:
        if isinstance(value, str) and value and "\0" not in value:
            return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        return _NONE
    if get_origin(annotation) is list and isinstance(value, (list, tuple)):
        (item,) = get_args(annotation)
        items = [plain_value(item, info, one, param, ctx) for one in value]
        return _NONE if any(one is _NONE for one in items) else items
    return _NONE


@dataclass(frozen=True)
class PlainRuntimeParam(_coercion.RuntimeParam):
    """An option's coercion: a plain value here, any other by Typer's own (built when first needed)."""

    descriptor: _coercion.TypeDescriptor

    def _coerce_value(self, value: Any, param: Any, ctx: Context) -> Any:
        plain = plain_value(self.annotation, self.parameter_info, value, param, ctx)
        if plain is not _NONE:
            return plain
        return _typer_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)


def runtime_param(descriptor: _coercion.TypeDescriptor) -> _coercion.RuntimeParam:
    """What Typer's ``build_runtime_param`` gives, without building a pydantic adapter yet."""
    if descriptor.file_annotation is not None:
        return _typer_runtime_param(descriptor)
    return PlainRuntimeParam(descriptor.parameter_info, descriptor.annotation, descriptor)


def install() -> bool:
    """Coerce plain values here from now on (True), if Typer is the release this reproduces."""
    core: Any = typer.core  # its name for the function it calls, set here: not an export of the module
    if typer.__version__ != TYPER or getattr(core, "build_runtime_param", None) not in (_typer_runtime_param,
                                                                                         runtime_param):
        return False
    core.build_runtime_param = runtime_param
    return True
