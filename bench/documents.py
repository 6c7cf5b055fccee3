"""Your documents: how fast a document becomes searchable, and how often search finds the right place.

1. Timing: a 20-page PDF and a 10-page DOCX (``tests/document_goals.py``) added to an empty
   workspace, each searchable when ``Workspace.add`` returns (parse in a child process + index);
   also through the CLI (a fresh ``python -m agent_core workspace add`` process, as a person runs
   it), and a search over the index from a new process.
2. Retrieval: the goal set of ``tests/document_goals.py`` (English and Korean questions over a
   PDF, a DOCX and a Markdown file): top-1 and top-3 (the right page or section).

Prints a table and one JSON line (``BENCH_DOCUMENTS {...}``).

    python bench/documents.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.tools.documents.workspace import Workspace  # noqa: E402
from tests.document_goals import GOALS, handbook_docx, rank, report_pdf, write_documents  # noqa: E402


def timing(repeats: int = 3) -> dict[str, float]:
    """Seconds from add to searchable, median of ``repeats``, in process and through the CLI."""
    figures: dict[str, list[float]] = {"pdf_add_s": [], "docx_add_s": [], "pdf_cli_s": [], "docx_cli_s": []}
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp:
            ws = Workspace(Path(tmp) / "ws", Path(tmp) / "index.sqlite")
            for kind, name, data, query in (
                ("pdf", "report.pdf", report_pdf(), "sourdough loaf price"),
                ("docx", "handbook.docx", handbook_docx(), "parental leave weeks"),
            ):
                start = time.perf_counter()
                ws.add(name, data)
                assert ws.search(query, 3), f"{name} not searchable"
                figures[f"{kind}_add_s"].append(time.perf_counter() - start)
            data_dir = Path(tmp) / "data"
            env = {**os.environ, "AGENT_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT)}
            for kind, name, data in (("pdf", "report.pdf", report_pdf()), ("docx", "handbook.docx", handbook_docx())):
                source = Path(tmp) / name
                source.write_bytes(data)
                start = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "agent_core", "workspace", "add", str(source)],
                    env=env,
                    check=True,
                    capture_output=True,
                )
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "agent_core",
                        "workspace",
                        "search",
                        "sourdough" if kind == "pdf" else "parental leave",
                        "--json",
                    ],
                    env=env,
                    check=True,
                    capture_output=True,
                )
                figures[f"{kind}_cli_s"].append(time.perf_counter() - start)
    return {k: round(statistics.median(v), 2) for k, v in figures.items()}


def retrieval() -> dict[str, object]:
    """Top-1 and top-3 over the goal set, and the misses."""
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "ws", Path(tmp) / "index.sqlite")
        for path in write_documents(Path(tmp) / "src"):
            ws.add(path.name, path.read_bytes())
        ranks = [(goal, rank([h.as_json() for h in ws.search(goal.question, 3)], goal)) for goal in GOALS]
    misses = [f"{g.question} → wanted {g.file} {g.where}" for g, r in ranks if r is None]
    return {
        "goals": len(GOALS),
        "top1": sum(r == 1 for _, r in ranks),
        "top3": sum(r is not None for _, r in ranks),
        "misses": misses,
    }


def main() -> None:
    times = timing()
    found = retrieval()
    print(f"{'20-page PDF: add → searchable (in process)':<48} {times['pdf_add_s']:>6.2f} s")
    print(f"{'10-page DOCX: add → searchable (in process)':<48} {times['docx_add_s']:>6.2f} s")
    print(f"{'20-page PDF: CLI add + CLI search (2 processes)':<48} {times['pdf_cli_s']:>6.2f} s")
    print(f"{'10-page DOCX: CLI add + CLI search (2 processes)':<48} {times['docx_cli_s']:>6.2f} s")
    print(f"retrieval: top-1 {found['top1']}/{found['goals']}, top-3 {found['top3']}/{found['goals']}")
    for miss in found["misses"]:  # type: ignore[attr-defined]
        print(f"  missed: {miss}")
    print("BENCH_DOCUMENTS " + json.dumps({**times, **found}, ensure_ascii=False))


if __name__ == "__main__":
    main()
