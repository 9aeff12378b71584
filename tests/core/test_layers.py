"""No import against the layer table (README, "Layout"): each layer imports only from the layers
above it, lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import nimmt

ROOT = Path(nimmt.__file__).parent

# Lower numbers sit higher in the table. nimmt.i18n (texts) imports no other part of nimmt, and is
# read by the adapters: it sits just below the rules core, with nimmt.names (cleaning and drawing
# players' names).
LAYERS: dict[str, int] = {
    "nimmt.core": 0,
    "nimmt.i18n": 1,
    "nimmt.names": 1,
    "nimmt.records": 2,
    "nimmt.scoresheet": 2,
    "nimmt.batch": 3,
    "nimmt.people": 3,
    "nimmt.bots": 4,
    "nimmt.coach": 4,
    "nimmt.match": 5,
    "nimmt.protocol": 5,
    "nimmt.envs": 5,
    "nimmt.tournament": 5,
    "nimmt.cli": 5,
    "nimmt.server": 5,
    "nimmt.web": 5,
}


def layer(module: str) -> int | None:
    for prefix, number in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return number
    return None


def imports(path: Path, module: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.append(f"{base}.{node.module}" if node.module else base)
            elif node.module:
                found.append(node.module)
    return [name for name in found if name.startswith("nimmt")]


def test_no_layer_imports_from_a_layer_below_it() -> None:
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(relative.parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        own = layer(module)
        if own is None:
            continue
        for name in imports(path, module):
            other = layer(name)
            if other is not None and other > own:
                wrong.append(f"{module} imports {name}")
    assert not wrong, "\n".join(wrong)
