"""The import direction: which part of the code may import which (docs/where-things-go.md).

Read from the source with ``ast`` (every import, those inside functions too), so a wrong import
fails here even when it sits in a branch no other test runs:

- ``agent_core`` never imports streamlit, ``ui`` or ``pages``; ``ui`` never imports ``pages``;
- inside ``agent_core`` a package imports only its own modules and those of lower layers
  (``LAYERS``, lowest first); packages of one layer do not import each other;
- no two modules import each other, directly or round a longer circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYERS: list[set[str]] = [
    {"errors"},  # the foundation: the error types,
    {"masking", "store_url"},  # secret masking, the store URL,
    {"settings"},  # and the settings
    {"text"},  # language, number words, contact shapes
    {"records"},  # the record's type, its files, the index and the tables read from them
    {"context"},  # the loop's messages to a provider: context blocks (recorded as the record says)
    {"tools"},  # registry, schemas, built-in tools, the workspace
    {"checks"},  # the answer check (it uses the calculator's arithmetic)
    {"providers"},  # the models
    {"pgstore", "otel"},  # where finished runs also go: the team store, tracing backends
    {"scale"},  # where runs run: executors (threads, Ray) and shared rate limits
    {"run"},  # the loop and what one run needs while it runs
    {"analysis"},  # what is made from saved runs
    {"evals"},  # goal sets run and scored
    {"cli"},  # the command line
    {"__main__"},
]
"""Each top-level name under ``agent_core`` (a package or a root module) and its layer."""

ALLOWED_UPWARD = {
    ("agent_core.providers.local.preload", "agent_core.providers.local"),
}
"""Known exceptions, each with its reason; the test fails when one is no longer needed."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources() -> dict[str, Path]:
    files = [*ROOT.glob("agent_core/**/*.py"), *ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py")]
    files += [ROOT / "app.py", ROOT / "serve.py"]
    return {_module_name(p): p for p in files}


def _imports(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules (or outside packages) that ``name`` imports, anywhere in its file."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
    return found


def _graph() -> dict[str, set[str]]:
    sources = _sources()
    return {name: _imports(name, path, set(sources)) for name, path in sources.items()}


def _layer(module: str) -> int:
    top = module.split(".")[1]
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module}: agent_core.{top} has no layer in LAYERS; add it where it belongs")


def test_the_engine_never_imports_the_dashboard() -> None:
    wrong = []
    for module, imported in _graph().items():
        for target in imported:
            top = target.split(".")[0]
            if module.startswith("agent_core") and top in {"streamlit", "ui", "pages"}:
                wrong.append(f"{module} imports {target}")
            if module.startswith("ui") and top == "pages":
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(sorted(wrong))


def test_every_engine_package_has_a_layer_and_says_what_lives_there() -> None:
    for path in (ROOT / "agent_core").iterdir():
        if path.name.startswith((".", "_")) and path.name != "__main__.py":
            continue
        if path.is_dir() and (path / "__init__.py").exists():
            _layer(f"agent_core.{path.name}")
            doc = ast.get_docstring(ast.parse((path / "__init__.py").read_text(encoding="utf-8")))
            assert doc and "import" in doc, (
                f"agent_core/{path.name}/__init__.py: say what lives here and who may import it"
            )
        elif path.suffix == ".py":
            _layer(f"agent_core.{path.stem}")


def test_engine_packages_import_only_their_own_layer_or_lower() -> None:
    wrong, used = [], set()
    for module, imported in _graph().items():
        if not module.startswith("agent_core."):
            continue
        for target in imported:
            if not target.startswith("agent_core.") or target.split(".")[1] == module.split(".")[1]:
                continue
            if _layer(target) < _layer(module):
                continue
            if (module, target) in ALLOWED_UPWARD:
                used.add((module, target))
                continue
            how = "an upper layer" if _layer(target) > _layer(module) else "a package of its own layer"
            wrong.append(f"{module} imports {target} ({how})")
    assert not wrong, "\n".join(sorted(wrong))
    stale = {pair for pair in ALLOWED_UPWARD if pair[1].split(".")[1] != pair[0].split(".")[1]} - used
    assert not stale, f"no longer needed, remove from ALLOWED_UPWARD: {sorted(stale)}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in graph:
                continue
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in order:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    graph = _graph()
    for module, target in ALLOWED_UPWARD:
        graph[module] = graph[module] - {target}
    assert _cycles(graph) == []
