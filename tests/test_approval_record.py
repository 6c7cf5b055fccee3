"""A run's approvals wherever the run is shown: History's tool-call table, the HTML export,
OpenTelemetry (out and back in), Compare's trajectory, and Tool stats, whose durations leave the
wait for a person out."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from agent_core.analysis.export_html import export_html
from agent_core.analysis.trajectory import trajectory
from agent_core.otel.conventions import ALL_KEYS
from agent_core.otel.export import record_to_trace
from agent_core.otel.importer import trace_to_record
from agent_core.records import stats
from agent_core.records.queries import tool_stats_tables
from agent_core.records.store import RunStore
from agent_core.run.approval import Answer, ApprovalDesk
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from tests import approval_kit as kit
from tests.record_schema import assert_valid_record

WAIT_S = 0.4


@pytest.fixture
def record(settings: Settings) -> dict[str, Any]:
    """Ticket 7: edited to 8 after a wait; ticket 9: rejected with a reason."""
    tickets, desk = kit.Tickets(), ApprovalDesk()

    def person() -> None:
        first = kit.wait_for_pending(desk, call_id="call_7")
        time.sleep(WAIT_S)
        assert desk.answer(first.call_id, Answer("edit", arguments={"ticket_id": 8}, by="a person"))
        second = kit.wait_for_pending(desk, call_id="call_9")
        assert desk.answer(second.call_id, Answer("reject", reason="keep 9 open", by="a person"))

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    done = run_to_end(
        "Delete 7 and 9", provider=kit.provider(7, 9), registry=kit.registry(tickets), settings=settings, approver=desk
    )
    helper.join(5)
    assert tickets.ran == [{"ticket_id": 8}]
    assert_valid_record(done)
    return done


def test_history_table_has_the_approval_and_its_wait(record: dict[str, Any]) -> None:
    table = stats.tool_calls_frame(record)
    assert list(table["approval"]) == ["edited by a person", "rejected by a person — keep 9 open"]
    assert table["approval_wait_ms"][0] >= WAIT_S * 1000 > table["duration_ms"][0]
    plain = stats.tool_calls_frame({"tool_calls": [{"tool": "calculator", "success": True}]})
    assert "approval" not in plain.columns  # a run with no approvals keeps its table as it was


def test_the_step_times_the_agent_and_keeps_the_wait_apart(record: dict[str, Any]) -> None:
    """A person's wait is not the agent's time: the step's duration leaves it out and keeps it
    beside it (``approval_wait_ms``); the run's wall-clock duration still holds it."""
    asked = max((s for s in record["steps"] if "approval_wait_ms" in s), key=lambda s: s["approval_wait_ms"])
    assert asked["approval_wait_ms"] >= WAIT_S * 1000 > asked["duration_ms"]
    assert record["duration_ms"] >= WAIT_S * 1000
    assert all("approval_wait_ms" not in s for s in record["steps"] if not s["tool_call_ids"])  # the answer's step


def test_tool_stats_time_the_tool_not_the_wait(record: dict[str, Any], settings: Settings) -> None:
    store = RunStore(settings.runs_dir)
    store.refresh()
    tables = tool_stats_tables(store.tool_calls())
    assert tables is not None
    row = tables["tool"].set_index("tool").loc[kit.TOOL]
    # The edited call ran (timed without the wait); the rejected one never reached the tool.
    assert row["calls"] == 1 and row["success_rate"] == 1.0 and row["p95_ms"] < WAIT_S * 1000


def test_the_html_export_shows_who_decided(record: dict[str, Any]) -> None:
    page = export_html(record)
    assert "approval: edited" in page and "approval: rejected" in page
    assert "Approval: edited by a person, after" in page and "The model asked for: {&quot;ticket_id&quot;: 7}" in page
    assert "keep 9 open" in page


@pytest.mark.parametrize("content", [False, True])
def test_otel_carries_the_approval_and_brings_it_back(record: dict[str, Any], content: bool) -> None:
    trace = record_to_trace(record, content=content)
    tools = [s for s in trace.spans if s.name == f"execute_tool {kit.TOOL}"]
    assert [s.attributes["agent_workbench.approval.decision"] for s in tools] == ["edited", "rejected"]
    assert tools[0].attributes["agent_workbench.approval.wait_ms"] >= WAIT_S * 1000
    assert ("agent_workbench.approval.reason" in tools[1].attributes) is content  # a person's words: content
    keys = {k for s in trace.spans for k in s.attributes}
    assert keys <= ALL_KEYS
    spans = [
        {"name": s.name, "span_id": s.span_id.hex(), "parent_id": s.parent_id.hex() if s.parent_id else None,
         "start": s.start_ns, "end": s.end_ns, "attributes": s.attributes, "error": s.status == "ERROR",
         "status_message": s.status_message, "kind": s.kind, "trace_id": trace.trace_id.hex(), "links": []}
        for s in trace.spans
    ]  # fmt: skip
    back = trace_to_record(spans)
    approvals = [c["approval"] for c in back["tool_calls"]]
    assert [a["decision"] for a in approvals] == ["edited", "rejected"]
    assert approvals[0]["by"] == "a person" and approvals[0]["wait_ms"] >= WAIT_S * 1000
    if content:
        assert approvals[0]["original_arguments"] == {"ticket_id": 7} and approvals[1]["reason"] == "keep 9 open"
    assert_valid_record(back)


def test_compare_names_the_decision(record: dict[str, Any]) -> None:
    calls = [e for e in trajectory(record).events if e.kind == "tool_call"]
    assert [e.label() for e in calls] == [
        f'{kit.TOOL}({{"ticket_id":8}}) [edited]',
        f'{kit.TOOL}({{"ticket_id":9}}) [rejected]',
    ]
    assert calls[1].as_dict()["approval"] == "rejected"
