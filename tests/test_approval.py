"""Approval of tool calls in the engine: policies, approve / edit / reject / always, Stop while
waiting, and no waiting where no one can answer (scripted provider, a destructive fixture tool)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from agent_core.run.approval import Answer, ApprovalDesk, FixedApprover
from agent_core.run.events import ApprovalAnswered, ApprovalRequested, RunFinished
from agent_core.run.loop import run_agent, run_to_end
from agent_core.settings import Settings
from agent_core.tools.approvals import approvals_path, default_policy, load_policies, save_policy
from agent_core.tools.builtins import build_default_registry
from tests import approval_kit as kit
from tests.record_schema import assert_valid_record


def _run(settings: Settings, tickets: kit.Tickets, *ids: int, approver: Any = None, cancel: Any = None) -> Any:
    provider = kit.provider(*ids)
    record = run_to_end(
        "Delete the tickets", provider=provider, registry=kit.registry(tickets), settings=settings,
        approver=approver, cancel=cancel,
    )  # fmt: skip
    return record, provider


def _answer_when_asked(desk: ApprovalDesk, answer: Answer, *, delay: float = 0.0) -> threading.Thread:
    def body() -> None:
        pending = kit.wait_for_pending(desk)
        time.sleep(delay)
        assert desk.answer(pending.call_id, answer)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread


def test_default_policies_and_the_saved_file(settings: Settings) -> None:
    tickets = kit.Tickets()
    reg = kit.registry(tickets)
    builtins = build_default_registry(settings)
    assert default_policy(builtins.get("calculator")) == "auto"  # type: ignore[arg-type]
    assert default_policy(reg.get(kit.TOOL)) == "ask"  # type: ignore[arg-type]
    assert default_policy(reg.get("tickets__list_tickets")) == "auto"  # type: ignore[arg-type]
    silent = kit.registry(tickets).get(kit.TOOL)
    assert silent is not None
    import dataclasses

    assert default_policy(dataclasses.replace(silent, annotations=None)) == "ask"  # says nothing: asks
    assert load_policies(settings) == {}
    save_policy(settings, kit.TOOL, "blocked")
    assert json.loads(approvals_path(settings).read_text()) == {"tools": {kit.TOOL: "blocked"}}
    save_policy(settings, kit.TOOL, None)
    assert load_policies(settings) == {}
    with pytest.raises(ValueError, match="unknown policy"):
        save_policy(settings, kit.TOOL, "sometimes")  # type: ignore[arg-type]


def test_approve_runs_it_once_and_the_wait_is_kept_apart(settings: Settings) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    helper = _answer_when_asked(desk, Answer("approve", by="a person, on the Run page"), delay=0.3)
    record, provider = _run(settings, tickets, 7, approver=desk)
    helper.join(5)
    assert tickets.ran == [{"ticket_id": 7}]
    assert record["status"] == "completed"
    call = record["tool_calls"][0]
    approval = call["approval"]
    assert approval["policy"] == "ask" and approval["decision"] == "approved"
    assert approval["by"] == "a person, on the Run page"
    assert approval["original_arguments"] == approval["arguments"] == {"ticket_id": 7}
    assert approval["wait_ms"] >= 300 and call["duration_ms"] < 300  # the wait is not the tool's time
    assert call["output"] == "ticket 7 deleted"
    assert_valid_record(record)
    provider.assert_complete()


def test_the_status_says_waiting_while_it_waits(settings: Settings) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    events: list[Any] = []
    gen = run_agent(
        "Delete ticket 7", provider=kit.provider(7), registry=kit.registry(tickets), settings=settings, approver=desk
    )
    for event in gen:
        events.append(event)
        if isinstance(event, ApprovalRequested):
            break
    path = settings.runs_dir / f"{events[0].run_id}.json"
    assert json.loads(path.read_text())["status"] == "waiting_for_approval"
    assert event.request["tool"] == kit.TOOL and event.request["badges"] == [
        "may change or delete",
        "reaches the internet",
    ]
    assert event.request["parameters"] == kit.SCHEMA and event.request["server"] == "tickets"
    helper = _answer_when_asked(desk, Answer("approve"))
    rest = list(gen)
    helper.join(5)
    assert isinstance(rest[0], ApprovalAnswered) and rest[0].decision == "approved"
    assert isinstance(rest[-1], RunFinished) and rest[-1].status == "completed"


def test_edit_runs_the_edited_arguments_and_tells_the_model(settings: Settings) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    refused: list[str] = []

    def body() -> None:
        pending = kit.wait_for_pending(desk)
        with pytest.raises(ValueError) as bad:  # the schema's own message; the call keeps waiting
            desk.answer(pending.call_id, Answer("edit", arguments={"ticket_id": "seven"}))
        refused.append(str(bad.value))
        assert desk.pending is not None
        assert desk.answer(pending.call_id, Answer("edit", arguments={"ticket_id": 8, "note": "dup"}))

    helper = threading.Thread(target=body, daemon=True)
    helper.start()
    record, provider = _run(settings, tickets, 7, approver=desk)
    helper.join(5)
    assert refused == [f"Invalid arguments for {kit.TOOL}: ticket_id: expected integer, got string"]
    assert tickets.ran == [{"ticket_id": 8, "note": "dup"}]
    call = record["tool_calls"][0]
    assert call["approval"]["decision"] == "edited"
    assert call["approval"]["original_arguments"] == {"ticket_id": 7}
    assert call["arguments"] == call["approval"]["arguments"] == {"ticket_id": 8, "note": "dup"}
    told = provider.requests[1].blocks[-1].outputs[0].output
    assert told.startswith(
        '[A person edited the arguments before this call ran; it ran with {"note": "dup", "ticket_id": 8}]'
    )
    assert told.endswith("ticket 8 deleted")
    assert_valid_record(record)


def test_reject_runs_nothing_and_the_reason_reaches_the_model(settings: Settings) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    helper = _answer_when_asked(desk, Answer("reject", reason="ticket 7 is still open", by="a person"))
    record, provider = _run(settings, tickets, 7, approver=desk)
    helper.join(5)
    assert tickets.ran == []
    call = record["tool_calls"][0]
    assert not call["success"] and call["error_category"] is None
    assert call["approval"]["decision"] == "rejected" and call["approval"]["reason"] == "ticket 7 is still open"
    assert call["approval"]["arguments"] is None
    sent = provider.requests[1].blocks[-1].outputs[0]
    assert sent.is_error and "ticket 7 is still open" in sent.output and "was not run" in sent.output
    assert record["status"] == "completed"
    assert_valid_record(record)


@pytest.mark.parametrize("scope", ["run", "saved"])
def test_always_allow_means_the_next_call_is_not_asked(settings: Settings, scope: str) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    helper = _answer_when_asked(desk, Answer("approve", by="a person", always=scope))  # type: ignore[arg-type]
    provider = kit.provider(7, 8)
    asked = []
    for event in run_agent(
        "Delete both", provider=provider, registry=kit.registry(tickets), settings=settings, approver=desk
    ):
        if isinstance(event, ApprovalRequested):
            asked.append(event.call_id)
    helper.join(5)
    assert asked == ["call_7"]
    assert tickets.ran == [{"ticket_id": 7}, {"ticket_id": 8}]
    saved = load_policies(settings)
    assert saved == ({kit.TOOL: "auto"} if scope == "saved" else {})
    if scope == "run":
        record = json.loads(next(settings.runs_dir.glob("*.json")).read_text())
        assert record["tool_calls"][1]["approval"]["by"] == "always allowed (this run)"
    else:  # a new run does not ask either: the saved policy is auto
        again = kit.Tickets()
        record, _ = _run(settings, again, 9, approver=FixedApprover("none"))
        assert again.ran == [{"ticket_id": 9}] and "approval" not in record["tool_calls"][0]


def test_stop_while_waiting_cancels_with_no_execution(settings: Settings) -> None:
    tickets, desk, cancel = kit.Tickets(), ApprovalDesk(), threading.Event()

    def stop() -> None:
        kit.wait_for_pending(desk)
        cancel.set()

    helper = threading.Thread(target=stop, daemon=True)
    helper.start()
    record, _ = _run(settings, tickets, 7, approver=desk, cancel=cancel)
    helper.join(5)
    assert record["status"] == "cancelled" and tickets.ran == []
    call = record["tool_calls"][0]
    assert call["cancelled"] and call["approval"]["decision"] == "stopped"
    assert desk.pending is None and not desk.answer(call["call_id"], Answer("approve"))  # too late
    assert_valid_record(record)


def test_no_approver_rejects_at_once_and_says_so(settings: Settings) -> None:
    tickets = kit.Tickets()
    started = time.perf_counter()
    record, provider = _run(settings, tickets, 7)
    assert time.perf_counter() - started < 2 and tickets.ran == []
    approval = record["tool_calls"][0]["approval"]
    assert approval["decision"] == "rejected" and approval["by"] == "a fixed policy (no one to ask)"
    assert "no one could approve it here" in provider.requests[1].blocks[-1].outputs[0].output


def test_approve_all_runs_without_asking_and_blocked_never_runs(settings: Settings) -> None:
    tickets = kit.Tickets()
    record, _ = _run(settings, tickets, 7, approver=FixedApprover("all", by="run --approve all"))
    assert tickets.ran == [{"ticket_id": 7}] and record["tool_calls"][0]["approval"]["by"] == "run --approve all"
    save_policy(settings, kit.TOOL, "blocked")
    blocked = kit.Tickets()
    record, provider = _run(settings, blocked, 7, approver=FixedApprover("all"))
    assert blocked.ran == []
    call = record["tool_calls"][0]
    assert call["approval"]["policy"] == "blocked" and call["approval"]["decision"] == "rejected"
    assert "is blocked here" in provider.requests[1].blocks[-1].outputs[0].output


def test_an_invalid_call_is_refused_without_asking(settings: Settings) -> None:
    tickets, desk = kit.Tickets(), ApprovalDesk()
    provider = kit.ScriptedProvider(
        [{"tool_calls": [{"name": kit.TOOL, "arguments": {"ticket_id": "x"}}]}, {"text": "Sorry."}]
    )
    record = run_to_end("x", provider=provider, registry=kit.registry(tickets), settings=settings, approver=desk)
    assert record["tool_calls"][0]["error_category"] == "validation" and "approval" not in record["tool_calls"][0]
