"""End-to-end: who decided, on screen (headless Chromium). A run whose first call the model chose
and whose second the workbench made, opened in History; the step says so in plain words.
Screenshots at 1400 and 800 px go to /tmp/agent-workbench-shots/ (or ``$SCREENSHOT_DIR``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from browser_kit import ROOT, assert_clean_log, browser_page, chromium, fresh_data_dir, needs_chromium, streamlit_app

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.builtins import build_default_registry  # noqa: E402
from tests.test_browser_grounding import shoot  # noqa: E402

pytestmark = [pytest.mark.browser, needs_chromium]


def test_history_shows_who_chose_each_call(tmp_path: Path) -> None:
    data = fresh_data_dir(tmp_path / "agent_data")
    settings = Settings(data_dir=data)
    provider = ScriptedProvider(
        [
            {
                "text": "I need the weather first.",
                "tool_calls": [{"name": "get_weather", "arguments": {"city": "Tokyo"}}],
            },
            {
                "tool_calls": [
                    {
                        "name": "search_documents",
                        "arguments": {"query": "refund"},
                        "origin": "harness",
                        "harness_rule": "a document search before the answer",
                    }
                ]
            },
            {"text": "Tokyo is 25 °C and cloudy; refunds are accepted within 30 days of delivery."},
        ]
    )
    record = run_to_end(
        "Weather in Tokyo, and the refund window?",
        provider=provider,
        registry=build_default_registry(settings),
        settings=settings,
    )
    with streamlit_app(data) as app, chromium() as browser:
        with browser_page(browser) as page:
            page.goto(f"{app.url}/history?run={record['run_id']}")
            page.get_by_text("Step 1 ·").first.wait_for(timeout=60_000)
            for step in ("Step 1 ·", "Step 2 ·"):  # History shows steps folded: open them as a person would
                page.get_by_text(step).first.click()
            page.get_by_text('The model chose get_weather(city="Tokyo")').first.wait_for()
            page.get_by_text("for the model — rule: a document search before the answer").first.wait_for()
            page.get_by_text("Output not constrained").first.wait_for()
            shoot(page, "origin-01-history")
        assert_clean_log(app.log)
