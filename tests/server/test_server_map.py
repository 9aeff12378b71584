"""The server's overview docstrings name what the code has: the routers of ``ROUTERS`` in their order,
every module of nimmt/server and of nimmt/server/tables (as tests/server/test_wire_names.py holds
the events to docs/protocol.md)."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import nimmt.server
import nimmt.server.tables
from nimmt.server.app import ROUTERS

SERVER = Path(nimmt.server.__file__).parent


def parts(folder: Path) -> set[str]:
    """The modules and packages directly in ``folder`` (not ``__init__``)."""
    return {path.stem for path in folder.glob("*.py") if path.stem != "__init__"} | {
        path.name for path in folder.iterdir() if (path / "__init__.py").is_file()}


def named(docstring: str) -> set[str]:
    """The modules a docstring names as ``:mod:`.name```."""
    return set(re.findall(r":mod:`\.(\w+)`", docstring))


def test_the_server_overview_lists_the_routers_of_the_app_in_order() -> None:
    routes = SERVER / "routes"
    by_router = {}
    for name in sorted(path.stem for path in routes.glob("*.py") if path.stem != "__init__"):
        module = importlib.import_module(f"nimmt.server.routes.{name}")
        if hasattr(module, "router"):
            by_router[id(module.router)] = name
    in_app = [by_router[id(router)] for router in ROUTERS]
    assert set(by_router.values()) == set(in_app), "a module of nimmt/server/routes has a router the app leaves out"
    text = " ".join((nimmt.server.__doc__ or "").split())
    listed = re.search(r"in the order of ``ROUTERS``: (.*?); and what they share: (.*?)\.( |$)", text)
    assert listed is not None, "nimmt/server/__init__.py no longer lists the routers"
    assert re.findall(r"``(\w+)``", listed.group(1)) == in_app
    shared = re.findall(r"``(\w+)``", listed.group(2))
    assert parts(routes) == {*in_app, *shared}, "a module of nimmt/server/routes is neither a router nor named"


def test_the_server_overview_names_every_part_of_the_server() -> None:
    mentioned = named(nimmt.server.__doc__ or "")
    assert parts(SERVER) - mentioned == set(), "nimmt/server/__init__.py does not say what these are"
    assert mentioned - parts(SERVER) == set(), "nimmt/server/__init__.py names what is no longer there"


def test_the_tables_overview_names_every_part_of_the_tables() -> None:
    folder = Path(nimmt.server.tables.__file__).parent
    mentioned = named(nimmt.server.tables.__doc__ or "")
    assert parts(folder) - mentioned == set(), "nimmt/server/tables/__init__.py does not say what these are"
    assert mentioned - parts(folder) == set(), "nimmt/server/tables/__init__.py names what is no longer there"
