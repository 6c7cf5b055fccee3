"""``python -m agent_core workspace`` and the answer check's citations, end to end: a PDF added
from the shell, an offline run that searches it, and the figure cited by file and page in the
record, its schema, and the HTML export."""

from __future__ import annotations

import json
from pathlib import Path

from agent_core.analysis.export_html import export_html
from agent_core.checks.citations import cite
from agent_core.checks.grounding import check_answer
from tests.document_kit import make_pdf
from tests.record_schema import assert_valid_record
from tests.test_cli import cli
from tests.test_documents import REPORT


def test_workspace_commands(tmp_path: Path) -> None:
    (tmp_path / "annual_report.pdf").write_bytes(make_pdf(REPORT))
    (tmp_path / "tool.exe").write_bytes(b"MZ")
    added = cli(tmp_path, "workspace", "add", "annual_report.pdf")
    assert added.returncode == 0 and "Added annual_report.pdf (3 searchable parts)." in added.stdout
    assert "Adding" not in added.stderr
    again = cli(tmp_path, "workspace", "add", "annual_report.pdf")
    assert again.returncode == 0 and "already there with the same content: nothing added" in again.stdout
    listed = [json.loads(line) for line in cli(tmp_path, "workspace", "list", "--json").stdout.splitlines()]
    report = next(r for r in listed if r["name"] == "annual_report.pdf")
    assert (report["kind"], report["pages"], report["sample"]) == ("pdf", 3, False)
    assert next(r for r in listed if r["name"] == "refund_policy.md")["sample"] is True
    hits = json.loads(cli(tmp_path, "workspace", "search", "revenue grew", "--json").stdout)
    assert hits[0]["file"] == "annual_report.pdf" and hits[0]["page"] == 2
    assert "annual_report.pdf, p. 2" in cli(tmp_path, "workspace", "search", "revenue grew").stdout
    for bad in (("add", "tool.exe"), ("add", "missing.pdf"), ("remove", "../x.md"), ("remove", "nothing.md")):
        done = cli(tmp_path, "workspace", *bad)
        assert done.returncode == 2 and done.stderr.startswith("error: "), (bad, done.stderr)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "annual_report.pdf").write_bytes(make_pdf(["Another report"]))
    clash = cli(tmp_path, "workspace", "add", "other/annual_report.pdf")
    assert clash.returncode == 2 and "--replace or --keep-both" in clash.stderr
    both = cli(tmp_path, "workspace", "add", "--keep-both", "other/annual_report.pdf")
    assert "Added annual_report (2).pdf" in both.stdout
    assert cli(tmp_path, "workspace", "remove", "annual_report (2).pdf").returncode == 0


def test_an_offline_run_cites_the_pdf_page(tmp_path: Path) -> None:
    (tmp_path / "annual_report.pdf").write_bytes(make_pdf(REPORT))
    assert cli(tmp_path, "workspace", "add", "annual_report.pdf").returncode == 0
    done = cli(tmp_path, "run", "Search the documents for revenue growth", "--provider", "offline", "--json")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert_valid_record(record)
    cited = {c["text"]: c["source"].get("cite") for c in record["grounding"]["claims"] if c["source"]}
    assert cited["12%"] == "annual_report.pdf, p. 2"
    page = export_html(record)
    call_id = record["tool_calls"][0]["call_id"]
    assert f'id="call-{call_id}"' in page
    assert f'annual_report.pdf, p. 2 (<a href="#call-{call_id}">search_documents</a>)' in page


def test_citations_follow_the_shape_of_the_output() -> None:
    hits = '[\n{"file": "r.pdf", "page": 7, "score": 3.1, "snippet": "Revenue grew 12%."},\n{"file": "p.md", "section": "Refunds", "score": 2, "snippet": "Within 30 days."}\n]'
    calls = [
        {"call_id": "c1", "tool": "search_documents", "arguments": {"query": "x"}, "success": True, "output": hits},
        {"call_id": "c2", "tool": "read_file", "arguments": {"path": "r.pdf"}, "success": True,
         "output": "[r.pdf, p. 1]\nIntro 5 items\n\n[r.pdf, p. 2]\nCost was 77 dollars"},
        {"call_id": "c3", "tool": "read_file", "arguments": {"path": "notes.md"}, "success": True, "output": "# A\nfoo 41\n## B\nbar 99"},
        {"call_id": "c4", "tool": "query_table", "arguments": {"file": "stock.csv"}, "success": True,
         "output": '{"table": "stock.csv", "where": "stock < 10", "count": 3}'},
        {"call_id": "c5", "tool": "calculator", "arguments": {"expression": "2+2"}, "success": True, "output": "4"},
    ]  # fmt: skip
    grounding = check_answer("Revenue grew 12%; 30 days; cost 77; bar 99; foo 41; 3 items; 4 in all", "q", calls)
    where = {c["text"]: c["source"].get("cite") for c in grounding["claims"]}
    assert where == {
        "12%": "r.pdf, p. 7",
        "30 days": "p.md, Refunds",
        "77": "r.pdf, p. 2",
        "99": "notes.md, B",
        "41": "notes.md, A",
        "3 items": "stock.csv",
        "4 in": None,
    }
    assert cite({"output": "7", "arguments": {"topic": "x"}}, lambda text: True) is None
