"""Issue 16 in a real browser: the exported page offline and under attack; the app's summary,
download, import and coverage (headless Debian Chromium, see tests/browser_kit.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from browser_kit import ROOT, chromium, counting_listener, needs_chromium

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.analysis.export_html import export_html  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from tests.explain_fixtures import Tools, answer, call  # noqa: E402
from tests.test_export_html import injection_record  # noqa: E402

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, needs_chromium]
SHOTS = Path("/tmp/explain-shots")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _tour(settings: Settings) -> dict[str, Any]:
    turns = [
        call("web_search", {"query": "cats"}),
        call("web_search", {"query": "cats"}),
        call("add", {"a": "x", "b": 1}),
        call("add", {"a": 2, "b": 3}),
        answer("Cats and 5."),
    ]
    return run_to_end(
        "Find cats, then add 2 and 3.",
        provider=ScriptedProvider(turns),
        registry=Tools(flaky_failures=5).registry,
        settings=settings.replace(max_context_blocks=2),
    )


def test_exported_page_offline_and_inert(browser: Browser, settings: Settings, tmp_path: Path) -> None:
    record = _tour(settings)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page_file = tmp_path / "run.html"
    page_file.write_text(export_html(record), encoding="utf-8")
    # 1. Networking blocked: the page draws every step, and Play walks through them.
    context = browser.new_context(viewport={"width": 1400, "height": 900}, offline=True)
    requests: list[str] = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(page_file.as_uri())
    shot = SHOTS / "export-1400.png"
    page.screenshot(path=str(shot), full_page=True)
    height = page.evaluate("document.documentElement.scrollHeight")
    for step in record["steps"]:
        box = page.locator(f"#step-{step['index']}")
        assert box.is_visible() and box.inner_text().startswith(f"Step {step['index']}")
        bounds = box.bounding_box()
        assert bounds is not None and bounds["y"] + bounds["height"] <= height  # inside the full-page shot
    page.click("#play")
    page.wait_for_function("() => document.querySelector('section.step.playing') !== null", timeout=5000)
    assert page.locator("#play-note").inner_text().startswith("Step 1 of")
    page.set_viewport_size({"width": 800, "height": 900})
    page.screenshot(path=str(SHOTS / "export-800.png"), full_page=True)
    assert requests == [page_file.as_uri()] and not errors, (requests, errors)
    context.close()
    # 2. A record full of HTML/JS payloads aimed at a live listener: nothing reaches it.
    with counting_listener() as (port, hits):
        bad_file = tmp_path / "bad.html"
        bad_file.write_text(export_html(injection_record(record, port)), encoding="utf-8")
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(bad_file.as_uri())
        page.click("#play")
        page.wait_for_timeout(1500)
        page.screenshot(path=str(SHOTS / "export-injection.png"), full_page=True)
        assert f"127.0.0.1:{port}/script" in page.locator("main").inner_text()  # shown as text
        context.close()
        assert hits == [] and dialogs == []


def _shoot(page: Any, name: str) -> None:
    """Whole-page screenshots at 1400 and 800 px (Streamlit scrolls inside its main container)."""
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(500)
        height = page.evaluate(
            '() => Math.max(1000, ...Array.from(document.querySelectorAll(\'[data-testid="stMain"], '
            '[data-testid="stAppViewContainer"]\')).map(e => e.scrollHeight))'
        )
        page.set_viewport_size({"width": width, "height": min(int(height) + 40, 9000)})
        page.wait_for_timeout(800)
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_app_summary_download_import_coverage(browser: Browser, tmp_path: Path) -> None:
    from browser_kit import assert_clean_log, browser_page, fresh_data_dir, streamlit_app, wait_idle

    SHOTS.mkdir(parents=True, exist_ok=True)
    data = fresh_data_dir(tmp_path / "agent_data")
    settings = Settings(data_dir=data, retry_delays=(0.0, 0.0, 0.0), tool_timeout=5.0)
    failed = run_to_end(
        "Add two and three.",
        provider=ScriptedProvider([call("add", {"a": 2})] * 2),
        registry=Tools().registry.subset(["add", "web_search", "cached_search"]),
        settings=settings.replace(max_steps=2),
    )
    elsewhere = Settings(data_dir=fresh_data_dir(tmp_path / "elsewhere"), retry_delays=(0.0,))
    foreign = _tour(elsewhere)
    foreign_page = tmp_path / "foreign.html"
    foreign_page.write_text(export_html(foreign), encoding="utf-8")
    with streamlit_app(data) as app, browser_page(browser) as page:
        # Summary in History's run detail, each sentence with its step.
        page.goto(f"{app.url}/history?run={failed['run_id']}")
        page.get_by_text("In plain words").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.get_by_text("the model filled in the form of the add tool wrongly").first.is_visible()
        assert page.get_by_text("Why it did not finish:").first.is_visible()
        assert page.get_by_text("Pick another model.").first.is_visible()
        page.get_by_role("button", name="Step 1").first.click()
        popover = page.locator("[data-testid='stPopoverBody']")
        popover.get_by_text("Arguments (what the model asked for)").first.wait_for()
        assert popover.get_by_text("Step 1", exact=False).first.is_visible()
        page.keyboard.press("Escape")
        _shoot(page, "history-summary")
        # Download as a web page.
        page.get_by_role("tab", name="Downloads").click()
        with page.expect_download() as download:
            page.get_by_role("button", name="Download as a web page").click()
        saved = tmp_path / "downloaded.html"
        download.value.save_as(saved)
        text = saved.read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and failed["run_id"] in text
        # Import a run from elsewhere: it opens, marked as imported.
        page.get_by_text("Import a run").first.click()
        page.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(foreign_page))
        page.get_by_text("Imported run").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert page.get_by_text("Imported from an exported web page").first.is_visible()
        assert (data / "runs" / f"{foreign['run_id']}.json").is_file()
        _shoot(page, "history-imported")
        # Coverage on Tool stats.
        page.goto(f"{app.url}/tool_stats")
        page.get_by_text("Never chosen in these runs").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.get_by_text("Which model fills in which form wrongly").first.is_visible()
        _shoot(page, "tool-stats-coverage")
        assert_clean_log(app.log)
