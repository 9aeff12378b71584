"""Option values coerced without pydantic (``nimmt.cli._coercion``) give Typer's own answers: the
same value of the same type, or the same message, for every option of every command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.core
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st
from typer._click import Context
from typer._click.exceptions import BadParameter

from nimmt.cli import _coercion
from nimmt.cli.main import make_app


def options() -> Iterator[tuple[str, Any, Context]]:
    group: Any = typer.main.get_command(make_app())
    for name, command in sorted(group.commands.items()):
        ctx = Context(command)
        for param in command.params:
            yield f"{name} {param.name}", param, ctx


OPTIONS = list(options())


def answer(coerce: Any, value: Any, param: Any, ctx: Context) -> tuple[str, Any]:
    try:
        got = coerce(value, param=param, ctx=ctx)
    except BadParameter as error:
        return "refused", error.message
    return type(got).__name__, repr(got)  # repr: nan is nan


def both(value: Any) -> None:
    for name, param, ctx in OPTIONS:
        descriptor = param.type_descriptor
        typer_own = _coercion._typer_runtime_param(descriptor).coerce
        ours = _coercion.runtime_param(descriptor).coerce
        values = [value] if not (param.multiple or param.nargs == -1) else [(value,), (value, "x"), ()]
        for one in values:
            if param.type_descriptor.annotation is bool and not isinstance(one, bool):
                continue  # Typer's flags give bools; a string never reaches a bool option
            assert answer(ours, one, param, ctx) == answer(typer_own, one, param, ctx), (name, one)


def test_typer_coerces_through_nimmt_on_the_pinned_release() -> None:
    assert typer.__version__ == _coercion.TYPER
    assert getattr(typer.core, "build_runtime_param") is _coercion.runtime_param  # noqa: B009
    assert _coercion.install()  # installing again changes nothing


NUMBERS = st.from_regex(r"\A[ \t]?[+-]?[0-9_]{0,20}(\.[0-9]{0,17})?([eE][+-]?[0-9]{1,3})?[ \t\n]?\Z")
TEXTS = st.text(alphabet=" \t\n+-._eEx0123456789abcinf/\u0663\uff11", max_size=24)


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(NUMBERS, TEXTS))
def test_every_written_value_is_coerced_as_typer_does(value: str) -> None:
    both(value)


@pytest.mark.parametrize("value", [
    "0", "1", "-1", "2", "256", "257", "65535", "65536", "0.05", "0.049", "10", "10.0", "3600", "3600.5",
    " 7 ", "+3", "-0", "1_000", "1e3", "3.", ".5", "inf", "nan", "", "9" * 19, "9" * 5000, "games", "a/b.json",
    True, False, 0, 66, 2.5, -1, None, float("nan"), float("inf"), Path("x"),
])
def test_the_usual_values_and_defaults_are_coerced_as_typer_does(value: Any) -> None:
    both(value)
