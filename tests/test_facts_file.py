"""What a business knows lives in its workspace: editing facts.md changes the seed goal's total."""

from __future__ import annotations

from pathlib import Path

from agent_core.providers.offline import OfflineProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry

SEED = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."


def test_editing_the_facts_file_changes_the_seed_total(settings: Settings) -> None:
    before = run_to_end(SEED, provider=OfflineProvider(), registry=build_default_registry(settings), settings=settings)
    assert "168" in before["answer"]
    facts = Path(settings.workspace_dir) / "facts.md"
    facts.write_text(facts.read_text(encoding="utf-8").replace("$24", "$30"), encoding="utf-8")
    after = run_to_end(SEED, provider=OfflineProvider(), registry=build_default_registry(settings), settings=settings)
    assert "210" in after["answer"] and "168" not in after["answer"]
    assert after["grounding"]["status"] == "grounded"


def test_the_facts_file_is_listed_but_not_searched(settings: Settings) -> None:
    """lookup reads facts.md; search_documents does not rank its "Also:" lines of other words."""
    from agent_core.tools.documents.workspace import Workspace

    root = Path(settings.workspace_dir)
    (root / "facts.md").write_text("## zebra\nAlso: zebra stripes\nZebra crossings are painted.\n", encoding="utf-8")
    workspace = Workspace(root)
    assert "facts.md" in workspace.names()
    assert all(hit.file != "facts.md" for hit in workspace.search("zebra crossings", 5))
