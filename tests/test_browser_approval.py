"""Approval in a real browser: a run's call to a tool that may change things waits on a card in
the live step (1400 and 800 px); a second tab shows the same card and answers it; the first tab
then follows the run to its end and the call's box says who approved it."""

from __future__ import annotations

import json
from pathlib import Path

import browser_kit as kit
import pytest
from fake_llm_server import FakeLLMServer, chat_body

from agent_core.records.files import load_record
from agent_core.settings import Settings
from agent_core.tools import declared

pytestmark = [pytest.mark.browser, kit.needs_chromium]

SHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
CARD = ".st-key-run_approval_call_1"


def _declare(data_dir: Path) -> None:
    declared.save_tool(
        Settings(data_dir=data_dir),
        {
            "name": "close_ticket",
            "description": "Close a support ticket and e-mail the customer that it is done.",
            "kind": "mock",
            "result": "ticket {{ticket_id}} closed",
            "annotations": {"destructiveHint": True, "readOnlyHint": False, "openWorldHint": True},
            "parameters": {
                "type": "object",
                "properties": {
                    "ticket_id": {"type": "integer", "description": "The ticket to close"},
                    "message": {"type": "string", "description": "What the customer is told"},
                    "priority": {"type": "string", "enum": ["low", "normal", "high"]},
                },
                "required": ["ticket_id"],
            },
        },
    )


def test_the_card_waits_and_a_second_tab_answers_it(tmp_path: Path) -> None:
    data_dir = kit.fresh_data_dir(tmp_path / "agent_data")
    _declare(data_dir)
    SHOTS.mkdir(parents=True, exist_ok=True)
    args = json.dumps({"ticket_id": 7, "message": "Your refund was sent today.", "priority": "normal"})
    with (
        FakeLLMServer() as llm,
        kit.streamlit_app(data_dir, {"RETRY_DELAYS": "0", "OPENAI_COMPAT_BASE_URL": llm.url("/v1")}) as app,
        kit.chromium() as browser,
        kit.browser_page(browser) as page,
    ):
        llm.push(chat_body(text=None, calls=[("call_1", "close_ticket", args)]))
        llm.push(chat_body(text="Ticket 7 is closed and the customer was told."))
        page.goto(app.url + "/")
        page.get_by_text("Run an agent").first.wait_for(timeout=45_000)
        kit.wait_idle(page)
        kit.choose_provider(page, "openai-chat")
        assert "✋ Asks you first: close_ticket" in page.locator("body").inner_text()
        kit.start_run(page, "Close ticket 7 and tell the customer.")
        card = page.locator(CARD)
        card.wait_for(timeout=60_000)
        page.wait_for_timeout(1500)  # the card's clock has ticked
        text = card.inner_text()
        assert "Waiting for your approval" in text and "close_ticket" in text and "may change or delete" in text
        assert "Approval wait" in page.locator("body").inner_text()
        for label in ("Approve", "Edit & approve", "Reject", "Always allow"):
            assert card.get_by_role("button", name=label, exact=True).is_visible()
        assert card.locator("input[aria-label='ticket_id']").input_value() == "7"
        for width in (1400, 800):
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(800)
            card.scroll_into_view_if_needed()
            card.screenshot(path=str(SHOTS / f"approval-card-{width}.png"))
            page.screenshot(path=str(SHOTS / f"approval-page-{width}.png"))
            page.get_by_text("Live run").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"approval-top-{width}.png"))
            assert (
                page.locator(".st-key-run_stop").get_by_role("button", name="Stop").is_visible()
            )  # Stop stays while it waits
            box = card.bounding_box()
            assert box is not None and box["x"] + box["width"] <= width  # nothing runs off the side
        page.set_viewport_size({"width": 1400, "height": 1000})
        [record_path] = (data_dir / "runs").glob("*.json")
        assert load_record(record_path)["status"] == "waiting_for_approval"

        with kit.browser_page(browser) as other:  # a second tab: another session, the same card
            other.goto(app.url + "/")
            other_card = other.locator(CARD)
            other_card.wait_for(timeout=45_000)
            ticket = other_card.locator("input[aria-label='ticket_id']")
            ticket.fill("8")
            ticket.press("Tab")  # leave the box before the click, as a person does (see test_browser_your_tools)
            kit.wait_idle(other)
            other_card.get_by_role("button", name="Edit & approve", exact=True).click()
            other.get_by_text("Outcome:").first.wait_for(timeout=60_000)

        page.get_by_text("Outcome:").first.wait_for(timeout=30_000)  # the first tab goes on by itself
        kit.wait_idle(page)
        assert page.locator(CARD).count() == 0
        page.evaluate(
            """() => document.querySelectorAll("[data-testid='stExpander'] summary").forEach((s) => {
                if (s.getAttribute("aria-expanded") !== "true") s.click(); })"""
        )
        page.wait_for_timeout(400)
        body = page.locator("body").inner_text()
        assert "Edited, then approved by a person, on the Run page" in body
        for width in (1400, 800):
            page.set_viewport_size({"width": width, "height": 1000})
            kit.wait_idle(page)
            page.get_by_text("Edited, then approved").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"approval-done-{width}.png"))
        record = load_record(record_path)
        call = record["tool_calls"][0]
        assert record["status"] == "completed" and call["output"].endswith("ticket 8 closed")
        assert call["approval"]["decision"] == "edited" and call["approval"]["original_arguments"]["ticket_id"] == 7
        assert "ticket 8 closed" in json.dumps(llm.bodies[1]["messages"])  # the model got what ran

        page.goto(app.url + "/tools")  # the policy, as a badge and a menu
        page.get_by_role("heading", name="Registered tools (10)").wait_for(timeout=45_000)
        kit.wait_idle(page)
        summary = page.locator("[data-testid='stExpander'] summary", has_text="Close a support ticket")
        assert "asks first" in summary.inner_text()  # the policy's badge on the tool's line
        summary.click()
        kit.wait_idle(page)
        policy = page.locator(".st-key-tools_policy_close_ticket")
        assert policy.get_by_role("combobox").input_value() == "ask: asks you first (default)"
        for width in (1400, 800):
            page.set_viewport_size({"width": width, "height": 1000})
            kit.wait_idle(page)
            policy.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"approval-tools-{width}.png"))
    kit.assert_clean_log(app.log)
