"""The Workspace page and the Run page's "Your documents" (AppTest): the documents listed with
their kind, pages or sections and the samples marked; preview, remove, remove the samples; the
team-store note; and the answer check's badge citing a document page."""

from __future__ import annotations

import pytest

from agent_core.settings import Settings
from agent_core.tools.documents.workspace import Workspace
from tests.document_kit import make_pdf
from tests.test_documents import REPORT
from tests.test_pages import app, data_dir  # noqa: F401 - the fixture

WORKSPACE = "pages/workspace.py"


def texts(at: object, kind: str) -> list[str]:
    return [str(e.value).replace("\\", "") for e in getattr(at, kind)]


def test_the_workspace_page_lists_marks_previews_and_removes(data_dir) -> None:  # noqa: F811
    Workspace.for_settings(Settings.from_env(dotenv=False)).add("annual_report.pdf", make_pdf(REPORT))
    at = app(WORKSPACE)
    table = at.dataframe[0].value
    row = table[table["name"] == "annual_report.pdf"].iloc[0]
    assert (row["kind"], row["extent"], row["sample"]) == ("PDF", "3 pages", "")
    assert table[table["name"] == "refund_policy.md"].iloc[0]["sample"] == "sample"
    at.selectbox(key="ws_pick").set_value("annual_report.pdf").run()
    assert "[annual_report.pdf, p. 2]" in at.code[0].value
    at.button(key="ws_remove").click().run()
    assert not at.exception
    assert any("Removed annual_report.pdf." in t for t in texts(at, "success"))
    assert "annual_report.pdf" not in list(at.dataframe[0].value["name"])
    at.button(key="ws_remove_samples").click().run()
    assert any("Removed the sample documents" in t for t in texts(at, "success"))
    assert not at.dataframe or at.dataframe[0].value.empty
    assert "No documents yet" in " ".join(texts(at, "caption"))


def test_the_run_page_sidebar_lists_your_documents(data_dir, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("AGENT_STORE_URL", "postgresql://u:p@127.0.0.1:9/db")
    at = app()
    side = " ".join(str(m.value) for m in at.sidebar.markdown)
    assert "refund\\_policy" in side and "*sample*" in side
    assert "Documents stay on this machine" in " ".join(str(c.value) for c in at.sidebar.caption)


def test_the_badge_cites_the_document_page(data_dir) -> None:  # noqa: F811
    Workspace.for_settings(Settings.from_env(dotenv=False)).add("annual_report.pdf", make_pdf(REPORT))
    at = app()
    at.text_area(key="run_goal").set_value("Search the documents for revenue growth")
    at.selectbox(key="run_provider").set_value("offline")
    at.button(key="run_start").click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    labels = [str(p.proto.popover.label).replace("\\", "") for p in at.get("popover")]
    assert "📄 12% — annual_report.pdf, p. 2" in labels, labels
