"""The docs stay true: the CLI reference is the parser's own help, and the README stays one
screen whose links all lead somewhere. (``mkdocs build --strict`` in scripts/run-tests.sh checks
the links and anchors inside docs/.)"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_cli_reference_is_generated_from_the_parser() -> None:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert committed == module.reference(), "docs/cli.md is stale: run `python scripts/cli_reference.py > docs/cli.md`"


def test_the_readme_is_one_screen_and_its_links_lead_somewhere() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 60, "the README is for people: one screen; details go to docs/"
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"README links to {target}, which is not there"
    for command in ("./scripts/run-app.sh", "./scripts/run-tests.sh"):
        assert command in text and (ROOT / command).exists()
