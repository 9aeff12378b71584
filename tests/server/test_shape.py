"""The server stays readable: no module over 700 lines, no function over 100 lines."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "nimmt" / "server"


def test_no_module_over_700_lines_and_no_function_over_100() -> None:
    too_long: list[str] = []
    for path in sorted(SERVER.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > 700:
            too_long.append(f"{path.relative_to(SERVER)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > 100:
                    too_long.append(f"{path.relative_to(SERVER)}: {node.name}() {length} lines")
    assert not too_long, too_long
