"""End-to-end: a made-up figure is flagged on screen, live and in History (headless Chromium).

Runs the "A made-up number is flagged" demo scenario (get_weather says 19 °C, the scripted model
answers 20 °C) in the real app and checks the warning under the answer. Screenshots at 1400 and
800 px go to /tmp/agent-workbench-shots/ (or ``$SCREENSHOT_DIR``).
"""

from __future__ import annotations

import os
import re
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

SHOTS = Path(os.environ.get("SCREENSHOT_DIR", "/tmp/agent-workbench-shots"))
WARNING = "20 °C appears in no tool result: the model may have made it up"

pytestmark = [pytest.mark.browser, needs_chromium]


def shoot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1400, 800):
        page.set_viewport_size({"width": width, "height": 1000})
        page.wait_for_timeout(500)
        height = min(
            int(
                page.evaluate(
                    "() => Math.max(1000, ...Array.from(document.querySelectorAll('[data-testid=\"stMain\"]'))"
                    ".map(e => e.scrollHeight))"
                )
            )
            + 40,
            8000,
        )
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(600)
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_flagged_answer_shows_the_warning(tmp_path: Path) -> None:
    env = {"RETRY_DELAYS": "0,0", "SEARCH_WEB_FAILURE_RATE": "0"}
    with streamlit_app(fresh_data_dir(tmp_path / "agent_data"), env) as app, chromium() as browser:
        with browser_page(browser) as page:
            page.goto(app.url + "/")
            page.get_by_text("Run an agent").first.wait_for(timeout=60_000)
            wait_idle(page)
            page.get_by_role("tab", name="Demo scenarios (scripted)").click()
            box = page.get_by_role("combobox", name="Scenario")
            box.click()
            page.get_by_role("option", name=re.compile("A made-up number is flagged")).click()
            wait_idle(page)
            page.locator(".st-key-run_demo_start button").click()
            page.get_by_text("Outcome:").first.wait_for()
            wait_idle(page)
            alert = page.get_by_test_id("stAlert").filter(has_text=WARNING)
            alert.first.wait_for()
            assert "Answer check" in alert.first.inner_text()
            shoot(page, "grounding-01-run")

            page.get_by_role("link", name=re.compile("Open this run in History")).click()
            page.get_by_text("Run detail").first.wait_for()
            wait_idle(page)
            assert page.get_by_test_id("stAlert").filter(has_text=WARNING).count() >= 1
            shoot(page, "grounding-02-history-detail")

            page.goto(app.url + "/history")
            page.get_by_role("heading", name=re.compile("History")).first.wait_for()
            wait_idle(page)
            shoot(page, "grounding-03-history")
        assert_clean_log(app.log)


def test_a_wrong_comparison_is_sent_back_on_screen(tmp_path: Path) -> None:
    """The "A comparison the wrong way round is sent back" scenario: the model says London is warmer
    than Tokyo with 15 °C and 25 °C in the results; the step says why the answer went back, and the
    final answer has it the right way round."""
    with streamlit_app(fresh_data_dir(tmp_path / "agent_data"), {"RETRY_DELAYS": "0,0"}) as app, chromium() as browser:
        with browser_page(browser) as page:
            page.goto(app.url + "/")
            page.get_by_text("Run an agent").first.wait_for(timeout=60_000)
            wait_idle(page)
            page.get_by_role("tab", name="Demo scenarios (scripted)").click()
            page.get_by_role("combobox", name="Scenario").click()
            page.get_by_role("option", name=re.compile("A comparison the wrong way round is sent back")).click()
            wait_idle(page)
            page.locator(".st-key-run_demo_start button").click()
            page.get_by_text("Outcome:").first.wait_for()
            wait_idle(page)
            page.get_by_text(re.compile("answer sent back by the answer check")).first.wait_for()
            sent_back = page.get_by_test_id("stAlert").filter(
                has_text="the figures say Tokyo (25) is above London (15)"
            )
            sent_back.first.wait_for()
            assert "not backed by the tool results" in sent_back.first.inner_text()
            page.get_by_text("Tokyo is warmer than London today: 25 °C").first.wait_for()
            assert page.get_by_test_id("stAlert").filter(has_text="every number appears in a tool result").count() >= 1
            shoot(page, "grounding-04-wrong-comparison")
        assert_clean_log(app.log)
