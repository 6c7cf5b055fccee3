"""The approval card on the Run page (AppTest): a new session (a reload, a second tab) finds the
run that waits and shows its card; approve, edit (an invalid edit refused with the schema's
message), reject and Stop answer it from there. The Tools page sets a tool's policy."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from agent_core.records.files import load_record
from agent_core.run.prepare import prepare_run
from agent_core.settings import Settings
from agent_core.tools.approvals import load_policies
from tests import approval_kit as kit

ROOT = Path(__file__).resolve().parent.parent
FIELD = "run_approval_call_7_arg_ticket_id"


@pytest.fixture
def data_dir(app_data_dir: Path) -> Path:
    return app_data_dir


def _start(prepared: object) -> None:
    from ui import live

    live.start(prepared)


@pytest.fixture
def waiting(data_dir: Path) -> Iterator[tuple[Any, kit.Tickets]]:
    """A run started in one session whose first call waits for approval; stopped at the end."""
    tickets = kit.Tickets()
    config = Settings.from_env(dotenv=False)
    prepared = prepare_run("Delete ticket 7", settings=config, provider=kit.provider(7), registry=kit.registry(tickets))
    first = AppTest.from_function(_start, args=(prepared,)).run()
    run = first.session_state["run_bg"]
    kit.wait_for_pending(run.approvals)
    yield run, tickets
    run.stop()
    run.done.wait(5)


def _page() -> AppTest:
    """The Run page in a new session (as after a reload, or in a second tab)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.run()
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _texts(at: AppTest) -> str:
    """The page's text with Markdown escapes undone."""
    text = "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [e.value for e in at.error])
    return re.sub(r"\\(.)", r"\1", text)


def _press(at: AppTest, label: str) -> AppTest:
    (button,) = [b for b in at.button if b.label == label]
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _record(run: Any) -> dict[str, Any]:
    assert run.done.wait(10)
    return load_record(run.events[0].path)


def test_a_new_session_shows_the_waiting_card_and_approve_resumes(waiting: tuple[Any, kit.Tickets]) -> None:
    run, tickets = waiting
    at = _page()
    text = _texts(at)
    assert "Waiting for your approval" in text
    assert f"The agent wants to run **{kit.TOOL}** from the MCP server **tickets**" in text
    assert "may change or delete" in text and "Approval wait" in _texts(at) + str([m.label for m in at.metric])
    assert at.number_input(key=FIELD).value == 7  # the argument, in a field made from the schema
    assert {b.label for b in at.button} >= {"Approve", "Edit & approve", "Reject", "Always allow", "Stop"}
    assert tickets.ran == []
    _press(at, "Approve")
    record = _record(run)
    assert tickets.ran == [{"ticket_id": 7}] and record["status"] == "completed"
    assert record["tool_calls"][0]["approval"]["by"] == "a person, on the Run page"
    assert "Answered" in _texts(at)  # the page followed the run to its end


def test_an_invalid_edit_is_refused_then_an_edit_runs(waiting: tuple[Any, kit.Tickets]) -> None:
    run, tickets = waiting
    at = _page()
    labels = at.text_input(key="run_approval_call_7_arg_labels")  # an array: edited as JSON
    labels.set_value('"urgent"')
    _press(at, "Edit & approve")
    assert f"Not run: Invalid arguments for {kit.TOOL}: labels: expected array, got string" in _texts(at)
    assert run.waiting and tickets.ran == []  # still waiting, nothing ran
    at.text_input(key="run_approval_call_7_arg_labels").set_value('["urgent"]')
    at.number_input(key=FIELD).set_value(8)
    _press(at, "Edit & approve")
    record = _record(run)
    assert tickets.ran == [{"ticket_id": 8, "labels": ["urgent"]}]
    assert record["tool_calls"][0]["approval"]["decision"] == "edited"
    assert "✋ Edited, then approved by a person, on the Run page after" in _texts(at)
    diffs = [d.value.to_dict("records") for d in at.dataframe if "ran with" in d.value.columns]
    assert diffs and diffs[0] == [
        {"argument": "ticket_id", "the model asked": "7", "ran with": "8"},
        {"argument": "labels", "the model asked": "—", "ran with": '["urgent"]'},
    ]


def test_reject_from_the_card_sends_the_reason(waiting: tuple[Any, kit.Tickets]) -> None:
    run, tickets = waiting
    at = _page()
    (reason,) = [t for t in at.text_input if t.label == "Reason, if you reject"]
    reason.set_value("ticket 7 is still open")
    _press(at, "Reject")
    record = _record(run)
    assert tickets.ran == [] and record["tool_calls"][0]["approval"]["reason"] == "ticket 7 is still open"
    assert "ticket 7 is still open" in record["tool_calls"][0]["output"]


def test_stop_while_waiting_cancels_with_no_execution(waiting: tuple[Any, kit.Tickets]) -> None:
    run, tickets = waiting
    at = _page()
    _press(at, "Stop")
    record = _record(run)
    assert record["status"] == "cancelled" and tickets.ran == []
    assert record["tool_calls"][0]["approval"]["decision"] == "stopped"


def test_an_answer_from_another_tab_comes_too_late_here(waiting: tuple[Any, kit.Tickets]) -> None:
    run, tickets = waiting
    first, second = _page(), _page()
    _press(second, "Approve")
    assert run.done.wait(10)
    _press(first, "Reject")  # the card was still on screen in the first tab
    assert tickets.ran == [{"ticket_id": 7}]
    assert load_record(run.events[0].path)["tool_calls"][0]["approval"]["decision"] == "approved"


def test_the_tools_page_sets_and_shows_a_policy(data_dir: Path) -> None:
    config = Settings.from_env(dotenv=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=30)
    at.run()
    at.switch_page("pages/tools.py").run()
    assert not at.exception, [e.value for e in at.exception]
    box = at.selectbox(key="tools_policy_calculator")
    assert box.value == "auto" and "runs without asking" in at.expander[0].label + str(box.options)
    box.set_value("blocked").run()
    assert load_policies(config) == {"calculator": "blocked"}
    assert json.loads((data_dir / "approvals.json").read_text()) == {"tools": {"calculator": "blocked"}}
    at.selectbox(key="tools_policy_calculator").set_value("auto").run()  # back to its default: not kept
    assert load_policies(config) == {}
    time.sleep(0)


def test_always_allow_saved_skips_the_next_card_and_the_tools_page_takes_it_back(data_dir: Path) -> None:
    tickets = kit.Tickets()
    config = Settings.from_env(dotenv=False)
    prepared = prepare_run(
        "Delete tickets 7 and 8", settings=config, provider=kit.provider(7, 8), registry=kit.registry(tickets)
    )
    first = AppTest.from_function(_start, args=(prepared,)).run()
    run = first.session_state["run_bg"]
    try:
        kit.wait_for_pending(run.approvals)
        at = _page()
        at.radio(key="run_approval_call_7_scope").set_value("saved")
        _press(at, "Always allow")
        record = _record(run)
        assert tickets.ran == [{"ticket_id": 7}, {"ticket_id": 8}]  # the second call was not asked
        assert [c["approval"]["by"] for c in record["tool_calls"]] == [
            "a person, on the Run page",
            "always allowed (saved in this run)",
        ]
        assert load_policies(config) == {kit.TOOL: "auto"}  # saved: the next run does not ask either
    finally:
        run.stop()
        run.done.wait(5)
    from agent_core.tools.approvals import save_policy

    save_policy(config, kit.TOOL, None)  # revoked (the Tools page's menu does this: see the test above)
    assert load_policies(config) == {}
