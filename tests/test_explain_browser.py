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

from agent_core.export_html import export_html  # noqa: E402
from agent_core.loop import run_to_end  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
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
    turns = [call("web_search", {"query": "cats"}), call("web_search", {"query": "cats"}),
             call("add", {"a": "x", "b": 1}), call("add", {"a": 2, "b": 3}), answer("Cats and 5.")]
    return run_to_end("Find cats, then add 2 and 3.", provider=ScriptedProvider(turns),
                      registry=Tools(flaky_failures=5).registry, settings=settings.replace(max_context_blocks=2))


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
