"""End-to-end in headless Chromium: pick two runs in History, press Compare, see the divergence
banner (screenshots of the Compare page at 1400 and 800 px go to /tmp/compare-shots)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser_kit import (
    ROOT,
    assert_clean_log,
    browser_page,
    chromium,
    fresh_data_dir,
    needs_chromium,
    streamlit_app,
    wait_idle,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = [pytest.mark.browser, needs_chromium]
SHOTS = Path("/tmp/compare-shots")
_CONTENT_HEIGHT = """() => Math.max(1000, ...Array.from(document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], [data-testid="stMainBlockContainer"]'
)).map(e => e.scrollHeight))"""


def _runs(data_dir: Path) -> list[str]:
    from agent_core.providers import make_provider
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.run.loop import run_to_end
    from agent_core.settings import Settings
    from agent_core.tools.builtins import build_default_registry

    config = Settings(data_dir=data_dir, retry_delays=(0.0,))
    first = run_to_end(
        "What is (24*7)+100?",
        provider=make_provider("offline", settings=config),
        registry=build_default_registry(config),
        settings=config,
    )
    turns = [
        {"tool_calls": [{"name": "lookup", "arguments": {"topic": "shipping"}}]},
        {"text": "Shipping takes 3 days."},
    ]
    second = run_to_end(
        "How long does shipping take?",
        provider=ScriptedProvider(turns),
        registry=build_default_registry(config),
        settings=config,
    )
    return [first["run_id"], second["run_id"]]


def _shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(400)
        height = min(int(page.evaluate(_CONTENT_HEIGHT)) + 40, 8000)
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(800)
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))


def test_select_two_runs_in_history_and_compare(tmp_path: Path) -> None:
    data_dir = fresh_data_dir(tmp_path / "agent_data")
    ids = _runs(data_dir)
    with streamlit_app(data_dir) as app, chromium() as browser, browser_page(browser) as page:
        page.goto(app.url + "/history")
        page.get_by_text("Compare runs").first.wait_for(timeout=45_000)
        wait_idle(page)
        picker = page.locator("[data-testid='stMultiSelect']").filter(has_text="Compare runs")
        for goal in ("What is (24*7)+100?", "How long does shipping take?"):
            picker.locator("input").click()
            picker.locator("input").press_sequentially(goal[:12])  # typed: the list holds that run only
            page.get_by_role("option").filter(has_text=goal).first.click()
            wait_idle(page)
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Compare", exact=True).click()
        banner = page.get_by_text("First divergence").first
        banner.wait_for(timeout=30_000)
        wait_idle(page)
        assert "/compare" in page.url and ids[0] in page.url and ids[1] in page.url
        text = page.locator("[data-testid='stAlert']").first.inner_text()
        assert "run B called lookup instead of calculator" in text, text
        _shoot(page, "compare")
    assert_clean_log(app.log)
