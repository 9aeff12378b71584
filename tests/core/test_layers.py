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
    "nimmt.intervals": 1,
    "nimmt.refusals": 1,  # every refusal's code (imports nothing of nimmt)
    "nimmt.records": 2,
    "nimmt.scoresheet": 2,
    "nimmt.batch": 3,
    "nimmt.people": 3,
    "nimmt.bots": 4,
    "nimmt.coach": 4,
    "nimmt.prepare": 4,
    "nimmt.match": 5,
    "nimmt.protocol": 5,
    "nimmt.envs": 5,
    "nimmt.tournament": 5,
    "nimmt.cli": 5,
    "nimmt.server": 5,
    "nimmt.web": 5,
}


def parse(path: Path) -> ast.Module:
    """The module's syntax tree. CPython 3.11 counts the depth of every tree it builds in one shared
    counter, so a thread left by an earlier test (a bot pool's, compiling) can make one parse raise a
    spurious SystemError (see python/cpython#106905): that parse is made again."""
    source = path.read_text(encoding="utf-8")
    for _ in range(3):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)


def layer(module: str) -> int | None:
    for prefix, number in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            return number
    return None


def imports(path: Path, module: str) -> list[str]:
    tree = parse(path)
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


# Names with a leading underscore are their package's own business: another package of nimmt neither
# imports them nor reaches them through what it imported (its doors are the public names).
PRIVATE_ALLOWED: set[tuple[str, str]] = set()


def package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def private(name: str) -> bool:
    return any(part.startswith("_") and not part.startswith("__") for part in name.split(".")[1:])


def private_uses(path: Path, module: str) -> list[str]:
    """The private names of other packages that ``module`` imports or reaches as ``alias._name``."""
    tree = parse(path)
    own = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    bound: dict[str, str] = {}  # a local name -> what it stands for, when it comes from nimmt
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = own.rsplit(".", node.level - 1)[0] if node.level > 1 else own
                base = f"{above}.{base}" if base else above
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{base}.{alias.name}"
                found.append(f"{base}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                bound[alias.asname or top] = alias.name if alias.asname else top
                found.append(alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound:
            found.append(f"{bound[node.value.id]}.{node.attr}")
    return sorted({
        name for name in found
        if name.startswith("nimmt.") and private(name) and package(name) != package(module)
    })


def test_no_package_uses_another_packages_private_names() -> None:
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        uses = [name for name in private_uses(path, module) if (module, name) not in PRIVATE_ALLOWED]
        wrong += [f"{module} uses {name}" for name in uses]
    assert not wrong, "\n".join(wrong)


def test_the_private_name_check_sees_every_way_in(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "from nimmt.batch import _kernels as K\nfrom nimmt.batch.rollout import _public\n"
        "import nimmt.batch._tables\nfrom nimmt.bots import expert\nfrom nimmt.core import view\n"
        "K.CardPolicy\nexpert._warm_up()\nview._cache\nfrom nimmt.envs import _own_thing\n",
        encoding="utf-8",
    )
    assert private_uses(source, "nimmt.envs.x") == [
        "nimmt.batch._kernels", "nimmt.batch._kernels.CardPolicy", "nimmt.batch._tables",
        "nimmt.batch.rollout._public", "nimmt.bots.expert._warm_up", "nimmt.core.view._cache",
    ]
