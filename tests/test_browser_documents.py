"""End-to-end in headless Chromium: a person adds their documents in the browser and asks about them.

Uploads a 20-page PDF and a CSV on the Workspace page (Playwright ``set_input_files``, several at
once), sees them listed beside the marked samples, then asks on the Run page — on ``offline``
and, where the local model is installed, on ``local`` — and finds the answer's badge citing the
file and page. Screenshots at 1400 and 800 px go to /tmp/agent-workbench-shots/ (or
``$SCREENSHOT_DIR``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from browser_kit import (
    ROOT,
    assert_clean_log,
    browser_page,
    choose_provider,
    chromium,
    fresh_data_dir,
    needs_chromium,
    start_run,
    streamlit_app,
    wait_idle,
)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.document_goals import report_pdf  # noqa: E402
from tests.test_browser_grounding import shoot  # noqa: E402

pytestmark = [pytest.mark.browser, needs_chromium]

CSV = "sku,name,stock\nA1,Watering can,4\nA2,Trowel,25\nA3,Seed tray,0\n"


def _upload(page, app, files: list[Path]) -> None:  # type: ignore[no-untyped-def]
    page.goto(app.url + "/workspace")
    page.get_by_role("heading", name=re.compile("Your documents")).first.wait_for(timeout=60_000)
    wait_idle(page)
    page.locator("[data-testid='stMain'] input[type='file']").first.set_input_files([str(f) for f in files])
    page.get_by_text(re.compile(r"Added harbour_bakery_report\.pdf \(")).first.wait_for(timeout=60_000)
    page.get_by_text(re.compile(r"Added stock\.csv")).first.wait_for()
    wait_idle(page)


def _ask(page, app, provider: str, goal: str, timeout_ms: int) -> str:  # type: ignore[no-untyped-def]
    page.goto(app.url + "/")
    page.get_by_text("Run an agent").first.wait_for(timeout=60_000)
    wait_idle(page)
    choose_provider(page, provider)
    start_run(page, goal)
    page.get_by_text("Outcome:").first.wait_for(timeout=timeout_ms)
    wait_idle(page)
    return page.locator("[data-testid='stMain']").inner_text()


def test_upload_then_ask_offline_cites_the_page(tmp_path: Path) -> None:
    pdf = tmp_path / "harbour_bakery_report.pdf"
    pdf.write_bytes(report_pdf())
    csv = tmp_path / "stock.csv"
    csv.write_text(CSV, encoding="utf-8")
    with streamlit_app(fresh_data_dir(tmp_path / "agent_data"), {"RETRY_DELAYS": "0,0"}) as app, chromium() as browser:
        with browser_page(browser) as page:
            _upload(page, app, [pdf, csv])
            main = page.locator("[data-testid='stMain']").inner_text()
            assert "Documents (8)" in main and "Remove the 6 sample documents" in main
            shoot(page, "documents-01-workspace")
            # The same file again adds nothing, and says so.
            page.locator("[data-testid='stMain'] input[type='file']").first.set_input_files([str(pdf)])
            page.get_by_text(re.compile("already there with the same content")).first.wait_for()
            wait_idle(page)

            text = _ask(page, app, "offline", "Search the documents for the price of a sourdough loaf", 60_000)
            assert "harbour_bakery_report.pdf › p. 12" in text
            badge = page.get_by_role("button", name=re.compile(r"\$6\.50 — harbour_bakery_report\.pdf, p\. 12"))
            badge.first.wait_for()
            sidebar = page.get_by_test_id("stSidebar").inner_text()
            assert "harbour_bakery_report.pdf" in sidebar and "stock.csv" in sidebar
            badge.first.click()  # opens the tool call that read the page
            page.get_by_text(re.compile("read by this tool call")).first.wait_for()
            shoot(page, "documents-02-run-offline")
        assert_clean_log(app.log)


@pytest.mark.local_model
def test_upload_then_ask_local_cites_the_page(tmp_path: Path) -> None:
    from agent_core.providers import local

    if local.availability() is not None:
        pytest.skip(f"the local model is not installed: {local.availability()}")
    pdf = tmp_path / "harbour_bakery_report.pdf"
    pdf.write_bytes(report_pdf())
    csv = tmp_path / "stock.csv"
    csv.write_text(CSV, encoding="utf-8")
    with (
        streamlit_app(fresh_data_dir(tmp_path / "agent_data"), {"RETRY_DELAYS": "0.25,0.5"}) as app,
        chromium() as browser,
    ):
        with browser_page(browser) as page:
            _upload(page, app, [pdf, csv])
            # Only the person's own documents: the sample shop's unit price would be another "price".
            page.locator(".st-key-ws_remove_samples button").first.click()
            page.get_by_text(re.compile("Removed the sample documents")).first.wait_for()
            wait_idle(page)
            _ask(page, app, "local", "How much does a sourdough loaf cost at Harbour Bakery?", 300_000)
            page.get_by_role("button", name=re.compile(r"harbour_bakery_report\.pdf, p\. 12")).first.wait_for()
            shoot(page, "documents-03-run-local")
        assert_clean_log(app.log)
