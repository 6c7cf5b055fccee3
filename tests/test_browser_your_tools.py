"""Your tools in a real browser: add an MCP server on the Tools page, see its health card, leave a
tool out, run a goal that calls the server's tool (openai-chat against the local fake model
server), and see the call with its source, server and badges. Screenshots at 1400 and 800 px."""

from __future__ import annotations

import json
from pathlib import Path

import browser_kit as kit
import pytest
from fake_llm_server import FakeLLMServer, chat_body

from agent_core.records.files import load_record
from tests.mcp_kit import http_fixture

pytestmark = [pytest.mark.browser, kit.needs_chromium]

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"


def test_add_a_server_pick_its_tools_run_and_see_the_calls(tmp_path: Path) -> None:
    data_dir = kit.fresh_data_dir(tmp_path / "agent_data")
    SHOTS.mkdir(parents=True, exist_ok=True)
    with (
        http_fixture() as mcp_url,
        FakeLLMServer() as llm,
        kit.streamlit_app(data_dir, {"RETRY_DELAYS": "0", "OPENAI_COMPAT_BASE_URL": llm.url("/v1")}) as app,
        kit.chromium() as browser,
        kit.browser_page(browser) as page,
    ):
        page.set_viewport_size({"width": 1400, "height": 1000})
        page.goto(app.url + "/tools")
        page.get_by_role("heading", name="Your MCP servers").wait_for(timeout=45_000)
        kit.wait_idle(page)
        # Leave each box before the next, as a person does: the blur redraws the form, and on a busy
        # machine a fill or a click sent in the same instant could fall between the two drawings (a
        # full run once lost the name this way: "Server name ''").
        name_box = page.get_by_label("Name", exact=True).first
        name_box.fill("shop")
        name_box.press("Tab")
        kit.wait_idle(page)
        url_box = page.get_by_label("URL", exact=True)
        url_box.fill(mcp_url)
        url_box.press("Tab")
        kit.wait_idle(page)
        page.get_by_role("button", name="Add and test").click()
        card = page.locator(".st-key-tools_card_shop")
        try:
            card.get_by_text("Connected: 5 tools.").wait_for(timeout=30_000)
        except Exception:
            raise AssertionError(page.locator("body").inner_text()[-2500:]) from None
        kit.wait_idle(page)
        text = card.inner_text()
        assert "protocol 2026" in text and "tokens of definitions" in text
        assert "only reads" in text and "may change or delete" in text and "reaches the internet" in text
        saved = json.loads((data_dir / "mcp.json").read_text())
        assert saved["mcpServers"]["shop"] == {"url": mcp_url}

        card.get_by_text("shop__delete_order").click()  # leave the destructive tool out of runs
        kit.wait_idle(page)
        assert json.loads((data_dir / "mcp.json").read_text())["mcpServers"]["shop"]["disabledTools"] == [
            "delete_order"
        ]
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(SHOTS / "your-tools-card-1400.png"))
        page.set_viewport_size({"width": 800, "height": 1000})
        kit.wait_idle(page)
        card.scroll_into_view_if_needed()
        card.screenshot(path=str(SHOTS / "your-tools-card-800.png"))
        page.set_viewport_size({"width": 1400, "height": 1000})

        llm.push(chat_body(text=None, calls=[("call_1", "shop__stock_level", json.dumps({"sku": "A-100"}))]))
        llm.push(chat_body(text="There are 17 units of A-100 in stock."))
        page.goto(app.url + "/")
        page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
        kit.wait_idle(page)
        kit.choose_provider(page, "openai-chat")
        tools_box = page.locator(".st-key-run_tools")
        assert "shop__stock_level (MCP: shop)" in tools_box.inner_text()
        assert "shop__delete_order" not in tools_box.inner_text()
        kit.start_run(page, "How many A-100 are in stock?")
        page.get_by_text("Outcome:").first.wait_for(timeout=60_000)
        kit.wait_idle(page)
        page.evaluate(  # open the step statuses (the call is inside one)
            """() => document.querySelectorAll("[data-testid='stExpander'] summary").forEach((s) => {
                if (s.getAttribute("aria-expanded") !== "true") s.click(); })"""
        )
        page.wait_for_timeout(400)
        body = page.locator("body").inner_text()
        assert "shop__stock_level" in body and "17 units" in body
        assert "From MCP server shop · hints: only reads" in body
        for width in (1400, 800):
            page.set_viewport_size({"width": width, "height": 1000})
            kit.wait_idle(page)
            page.get_by_text("From MCP server shop").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"your-tools-run-{width}.png"))

        [record_path] = (data_dir / "runs").glob("*.json")
        record = load_record(record_path)
        call = record["tool_calls"][0]
        assert call["tool_source"] == "mcp" and call["server"] == "shop" and call["success"]
        assert call["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
        tool_defs = json.dumps(llm.bodies[0]["tools"])
        assert "shop__stock_level" in tool_defs and "shop__delete_order" not in tool_defs
    kit.assert_clean_log(app.log)
