"""The layers of core/ARCHITECTURE.md, held to by every import in the core.

The table of layers is read from ARCHITECTURE.md itself, so the picture in words
and the rule checked here cannot drift apart. Every import is read (function-level
ones too): a module may import its own layer and the layers above it in the table,
never a later one, never the top-level ``sitemapkit`` package (the public API),
and never another module's private (``_name``) names; modules import one another
without circles. The adapters import only the public API.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "core"
PLUGINS = ROOT / "plugins"

# One row of the table: | 0 | `protocol` | ... |
_LAYER_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([a-z_]+)`\s*\|", re.M)


def layers() -> dict[str, int]:
    """Each layer's package and its rank, as ARCHITECTURE.md's table gives them."""
    return {name: int(rank) for rank, name in _LAYER_ROW.findall((CORE / "ARCHITECTURE.md").read_text())}


def module_name(path: Path, root: Path, package: str) -> str:
    parts = [package, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def core_sources() -> dict[str, str]:
    return {module_name(path, CORE, "sitemapkit"): path.read_text() for path in sorted(CORE.rglob("*.py"))}


def imports(module: str, source: str, packages: set[str]) -> Iterator[tuple[str, str | None, str | None, int]]:
    """Every import of ``source`` (module ``module``) as ``(imported module, name
    or None, the name it is bound to, line)``, relative imports resolved. ``from a
    import b`` gives ``("a", "b", ...)``, and ``("a.b", None, ...)`` too, since
    ``b`` may be a module."""
    package = module if module in packages else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, None, alias.asname, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                bound = alias.asname or alias.name
                yield target, alias.name, bound, node.lineno
                yield f"{target}.{alias.name}", None, bound, node.lineno


def layer_of(module: str, ranks: Mapping[str, int]) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "sitemapkit" and parts[1] in ranks else None


def problems(sources: Mapping[str, str], ranks: Mapping[str, int]) -> list[str]:
    """What breaks the rules in ``sources`` (module name -> text); empty when nothing."""
    packages = {name for name in sources if any(other.startswith(name + ".") for other in sources)}
    found = []
    graph: dict[str, set[str]] = {name: set() for name in sources}
    for module, source in sources.items():
        own = layer_of(module, ranks)
        # Names this module binds to core modules (``from ..publish import publication``).
        module_names = set()
        for target, name, bound, line in imports(module, source, packages):
            if target not in sources:
                continue
            where = f"{module} line {line}"
            if name is None and bound is not None:
                module_names.add(bound)
            if target == "sitemapkit" and name is not None and f"sitemapkit.{name}" not in sources:
                if module != "sitemapkit":
                    found.append(f"{where}: imports the public API (sitemapkit) from inside the core")
                continue
            if target == module or (target in packages and name is not None):
                continue  # a package's own name: the module it names is checked
            graph[module].add(target)
            theirs = layer_of(target, ranks)
            if own is not None and theirs is not None and ranks[theirs] > ranks[own]:
                found.append(f"{where}: the {own} layer imports {target}, of the later {theirs} layer")
            if name is not None and name.startswith("_") and not name.startswith("__"):
                found.append(f"{where}: imports {target}'s private name {name}")
        for node in ast.walk(ast.parse(source)):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in module_names
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                found.append(f"{module} line {node.lineno}: uses {node.value.id}'s private name {node.attr}")
    found += [f"import circle: {' -> '.join(cycle)}" for cycle in circles(graph)]
    return found


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``, one path each (Tarjan's components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            # A package imports its modules' names on first use: not a circle.
            if node.startswith(target + "."):
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component) + [sorted(component)[0]])

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return result


@pytest.fixture(scope="module")
def ranks() -> dict[str, int]:
    found = layers()
    assert found, "core/ARCHITECTURE.md has no table of layers"
    return found


def test_every_core_module_is_in_a_layer(ranks: dict[str, int]) -> None:
    packages = {path.name for path in CORE.iterdir() if (path / "__init__.py").exists()}
    assert packages == set(ranks), "the sub-packages of core/ and the table of ARCHITECTURE.md differ"
    loose = sorted(path.name for path in CORE.glob("*.py") if path.name not in ("__init__.py", "__main__.py"))
    assert not loose, f"modules outside every layer: {loose}"


def test_the_core_keeps_to_its_layers(ranks: dict[str, int]) -> None:
    assert problems(core_sources(), ranks) == []


def test_the_adapters_import_only_the_public_api() -> None:
    for path in sorted(PLUGINS.glob("*.py")):
        for target, _, _, line in imports(module_name(path, PLUGINS, "sitemapkit.plugins"), path.read_text(), set()):
            if target.startswith("sitemapkit.") and not target.startswith("sitemapkit.plugins"):
                # `from sitemapkit import X` also yields "sitemapkit.X": a name of the API.
                assert target.count(".") == 1 and target.split(".")[1] in _public_names(), (
                    f"{path.name} line {line} imports {target}, which is not the public API"
                )


def _public_names() -> set[str]:
    tree = ast.parse((CORE / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        # A lower layer importing a later one.
        (
            {"sitemapkit.protocol.urls": "from ..engine.pages import build_site\n", "sitemapkit.engine.pages": ""},
            "the protocol layer imports sitemapkit.engine.pages",
        ),
        # Inside a function too.
        (
            {"sitemapkit.site.folder": "def f():\n    from ..audit import check\n", "sitemapkit.audit.check": ""},
            "the site layer imports sitemapkit.audit.check",
        ),
        # Another module's private name.
        (
            {"sitemapkit.engine.pages": "from ..protocol.encoder import _Hidden\n", "sitemapkit.protocol.encoder": ""},
            "private name _Hidden",
        ),
        (
            {
                "sitemapkit.engine.pages": "from ..publish import publication as publish\npublish._deflate(b'')\n",
                "sitemapkit.publish.publication": "",
            },
            "uses publish's private name _deflate",
        ),
        # A circle inside one layer.
        (
            {
                "sitemapkit.protocol.urls": "from .model import Page\n",
                "sitemapkit.protocol.model": "def f():\n    from .urls import x\n",
            },
            "import circle",
        ),
        # The public API from inside.
        (
            {"sitemapkit": "", "sitemapkit.engine.pages": "def f():\n    from .. import build_site\n"},
            "imports the public API",
        ),
    ],
)
def test_the_check_finds_each_kind_of_problem(sources: dict[str, str], expected: str) -> None:
    ranks = {"protocol": 0, "site": 1, "engine": 4, "audit": 5}
    assert any(expected in problem for problem in problems(sources, ranks)), problems(sources, ranks)


def test_architecture_names_every_module() -> None:
    """ARCHITECTURE.md says where each module lives and why: a new module is
    named there, or this fails."""
    text = (CORE / "ARCHITECTURE.md").read_text()
    unnamed = [
        path.relative_to(CORE).as_posix()
        for path in sorted(CORE.glob("*/*.py"))
        if path.name != "__init__.py" and f"`{path.relative_to(CORE).as_posix()}`" not in text
    ]
    assert unnamed == []
