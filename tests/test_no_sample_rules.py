"""No sample-specific rule outside the offline demo, and the local provider in readable pieces.

The offline demo may keep its rules about the sample shop (providers/offline/verdicts.py and its
plans): it is labelled a rule-based demo. Nothing else may use them, tests included (a test that
imports them would hold the local provider or the answer check to the sample's rules again), and
the local provider names no built-in tool: it reads names, descriptions and schemas.
"""

from __future__ import annotations

import ast
from pathlib import Path

from agent_core.tools.builtins import BUILTIN_TOOL_NAMES

REPO = Path(__file__).resolve().parents[1]
LOCAL = REPO / "agent_core" / "providers" / "local"
OFFLINE_RULES = "agent_core.providers.offline.verdicts"
MAX_LINES = 600


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, as dotted names (``from a import b`` gives ``a`` and ``a.b``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def uses_offline_rules(path: Path) -> bool:
    return any(m == OFFLINE_RULES or m.startswith(OFFLINE_RULES + ".") for m in imported_modules(path))


def test_the_reader_sees_every_way_of_importing_the_rules(tmp_path: Path) -> None:
    for line in (
        "from agent_core.providers.offline import verdicts",
        "from agent_core.providers.offline.verdicts import expected",
        "import agent_core.providers.offline.verdicts as v",
        "def f():\n    from agent_core.providers.offline import verdicts",
    ):
        (tmp_path / "t.py").write_text(line + "\n", encoding="utf-8")
        assert uses_offline_rules(tmp_path / "t.py"), line
    (tmp_path / "t.py").write_text("from agent_core.analysis.arena import verdicts\n", encoding="utf-8")
    assert not uses_offline_rules(tmp_path / "t.py")


def test_no_test_imports_the_offline_demos_rules_but_its_own() -> None:
    allowed = {"test_verdicts.py", "test_offline_provider.py"}
    users = sorted(p.name for p in (REPO / "tests").rglob("*.py") if uses_offline_rules(p))
    assert set(users) <= allowed, users


def test_only_the_offline_demo_uses_its_rules() -> None:
    offline = REPO / "agent_core" / "providers" / "offline"
    users = sorted(str(p.relative_to(REPO)) for p in (REPO / "agent_core").rglob("*.py") if uses_offline_rules(p))
    assert users and all(Path(REPO / u).is_relative_to(offline) for u in users), users


def test_the_removed_planner_stays_removed() -> None:
    for gone in ("plan.py", "evidence.py", "conversions.py"):
        assert not (LOCAL / gone).exists(), gone
    assert not (REPO / "agent_core" / "verdicts.py").exists()


def test_the_local_provider_names_no_built_in_tool() -> None:
    for path in sorted(LOCAL.glob("*.py")):
        code = path.read_text(encoding="utf-8")
        for name in BUILTIN_TOOL_NAMES:
            assert f'"{name}"' not in code and f"'{name}'" not in code, (path.name, name)


def test_no_file_of_the_local_provider_is_over_600_lines() -> None:
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in LOCAL.rglob("*.py")}
    assert len(sizes) >= 10
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}
