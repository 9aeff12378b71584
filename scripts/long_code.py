"""List the functions over 100 lines and the modules over 700 lines in nimmt/.

A check for issue 21's sign of the house's shape, not a test: run it from the repository's root,

    python scripts/long_code.py [--functions N] [--modules N] [paths...]

A function's length runs from its first decorator (or ``def``) to its last line, docstring
included, as an editor counts it; a module's length is its number of lines. The web client's
JavaScript modules (``*.js``) are held to the module limit too.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path


def function_lengths(path: Path) -> list[tuple[int, str, int]]:
    """(length, qualified name, first line) of every function in the module at *path*."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    last = child.end_lineno or child.lineno
                    found.append((last - first + 1, name, first))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["nimmt"], help="folders or files (default: nimmt)")
    parser.add_argument("--functions", type=int, default=100, help="longest function allowed (lines)")
    parser.add_argument("--modules", type=int, default=700, help="longest module allowed (lines)")
    args = parser.parse_args()
    files = sorted(
        file
        for path in map(Path, args.paths)
        for file in ([path] if path.is_file() else [*path.rglob("*.py"), *path.rglob("*.js")])
    )
    over = 0
    for file in files:
        lines = len(file.read_text(encoding="utf-8").splitlines())
        if lines > args.modules:
            print(f"module   {lines:5d} lines  {file}")
            over += 1
        for length, name, first in sorted(function_lengths(file) if file.suffix == ".py" else [], reverse=True):
            if length > args.functions:
                print(f"function {length:5d} lines  {file}:{first} {name}")
                over += 1
    print(f"{over} over the limits ({args.functions} lines a function, {args.modules} a module)"
          f" in {len(files)} files")


if __name__ == "__main__":
    main()
