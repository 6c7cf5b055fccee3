"""A tool call that waits for a person: approve, edit and approve, or reject it before it runs.

The loop asks :func:`dispatch_call` to run each tool call. A tool whose policy
(:mod:`agent_core.tools.approvals`) is ``auto`` runs at once; ``blocked`` never runs; ``ask``
goes to the run's :class:`Approver`, which may be

- :class:`ApprovalDesk`: a person answers from any thread (the Run page in any browser tab: the
  desk lives with the run, not with a browser session), while the run waits, Stop still works;
- :class:`FixedApprover`: a fixed answer at once (``--approve all|none``, evals, arena, replay:
  where no one could answer, nothing waits);
- anything with the same ``decide`` method (the CLI's terminal prompt).

Every call that needed an answer keeps it in the record as ``approval``; the wait is kept apart
(``wait_ms``), out of the call's ``duration_ms``, so Tool stats time the tool, not the person.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent_core.context import ToolCallRequest
from agent_core.errors import ERROR_PREFIX, RunCancelled, ToolValidationError
from agent_core.masking import mask, mask_text
from agent_core.records.files import utc_now
from agent_core.records.run_record import Approval, Status, ToolCall
from agent_core.run.dispatcher import CallStopped, Dispatcher
from agent_core.run.events import ApprovalAnswered, ApprovalRequested, RunEvent
from agent_core.settings import Settings
from agent_core.tools.approvals import POLICY_WORDS, Policy, load_policies, policy_for, save_policy
from agent_core.tools.mcp import describe_annotations
from agent_core.tools.registry import Tool

log = logging.getLogger("agent_core.run.approval")

Decision = Literal["approve", "edit", "reject"]
Scope = Literal["run", "saved"]
POLL_S = 0.05
"""How often a waiting call checks for a Stop."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for an answer: what a person needs to decide, in one place."""

    run_id: str
    step: int
    call_id: str
    tool: str
    description: str
    source: str
    """``builtin``, ``mcp`` or ``declared``."""
    server: str | None
    badges: list[str]
    """The tool's annotations in plain words ("may change or delete" …)."""
    policy: Policy
    arguments: dict[str, Any]
    """What the model asked for (secrets masked)."""
    parameters: dict[str, Any]
    """The tool's JSON Schema: the edit form is built from it."""
    asked_at: str
    check: Callable[[dict[str, Any]], str | None] = field(default=lambda _: None, repr=False, compare=False)
    """The schema's complaint about edited arguments, or None when they are valid."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (the event's payload)."""
        return {
            "run_id": self.run_id,
            "step": self.step,
            "call_id": self.call_id,
            "tool": self.tool,
            "description": self.description,
            "source": self.source,
            "server": self.server,
            "badges": list(self.badges),
            "policy": self.policy,
            "arguments": self.arguments,
            "parameters": self.parameters,
            "asked_at": self.asked_at,
        }


@dataclass(frozen=True)
class Answer:
    """A decision on one call."""

    decision: Decision
    arguments: dict[str, Any] | None = None
    """The edited arguments (``edit`` only)."""
    reason: str = ""
    """Why it was rejected: the model gets it as the tool's output."""
    by: str = "a person"
    always: Scope | None = None
    """Approve this tool from now on: for the rest of this ``run``, or ``saved`` (its policy
    becomes ``auto`` in ``approvals.json``; the Tools page sets it back)."""


class Approver(Protocol):
    """Whoever answers a run's ``ask`` calls."""

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Answer:
        """The answer to ``request``; :class:`RunCancelled` when ``cancel`` is set meanwhile."""
        ...


class FixedApprover:
    """The same answer to every call at once: ``all`` approves, ``none`` rejects (never waits)."""

    def __init__(self, mode: Literal["all", "none"] = "none", *, by: str = "a fixed policy (no one to ask)") -> None:
        if mode not in ("all", "none"):
            raise ValueError(f"unknown approval mode {mode!r}: use all or none")
        self.mode = mode
        self.by = by

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Answer:
        if self.mode == "all":
            return Answer("approve", by=self.by)
        return Answer("reject", reason="no one could approve it here", by=self.by)


class ApprovalDesk:
    """Where a run's waiting call sits until someone answers it, from any thread or browser tab."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: ApprovalRequest | None = None
        self._answer: Answer | None = None
        self._answered = threading.Event()
        self._since = 0.0

    @property
    def pending(self) -> ApprovalRequest | None:
        """The call waiting now, if any."""
        return self._pending

    def waited_s(self) -> float:
        """How long the waiting call has waited so far (0 when none waits)."""
        return time.monotonic() - self._since if self._pending is not None else 0.0

    def answer(self, call_id: str, answer: Answer) -> bool:
        """Answer the waiting call ``call_id``. False when it no longer waits (answered in another
        tab, or the run was stopped); ValueError with the schema's message for an invalid edit."""
        with self._lock:
            pending = self._pending
            if pending is None or pending.call_id != call_id or self._answered.is_set():
                return False
            if answer.decision == "edit":
                problem = pending.check(answer.arguments or {})
                if problem:
                    raise ValueError(problem)
            self._answer = answer
            self._answered.set()
            return True

    def decide(self, request: ApprovalRequest, cancel: threading.Event) -> Answer:
        with self._lock:
            self._pending, self._answer = request, None
            self._answered.clear()
            self._since = time.monotonic()
        try:
            while not self._answered.wait(POLL_S):
                if cancel.is_set():
                    raise RunCancelled()
            assert self._answer is not None
            return self._answer
        finally:
            with self._lock:
                self._pending = None


class ApprovalGate:
    """One run's approvals: the policies as the run began, the tools allowed for this run."""

    def __init__(self, settings: Settings, approver: Approver | None = None) -> None:
        self.settings = settings
        self.approver: Approver = approver if approver is not None else FixedApprover("none")
        self.saved = load_policies(settings)
        self.allowed: dict[str, Scope] = {}
        """Tools a person allowed with "Always allow" during this run, and for how long."""

    def policy(self, tool: Tool) -> Policy:
        """The tool's policy for this run (saved, else its default)."""
        return policy_for(tool, self.saved)

    def allow(self, name: str, scope: Scope) -> None:
        """For "Always allow": the rest of this run, and from now on when ``scope`` is ``saved``."""
        self.allowed[name] = scope
        if scope == "saved":
            self.saved = save_policy(self.settings, name, "auto")


def check_arguments(tool: Tool, arguments: Any) -> str | None:
    """The schema's complaint about ``arguments`` for ``tool`` (the dispatcher's own check), or None."""
    if not isinstance(arguments, dict):
        return f"Tool arguments must be a JSON object, got {type(arguments).__name__}."
    try:
        tool.validate(arguments)
    except ToolValidationError as exc:
        return str(exc)
    return None


def _record(
    policy: Policy, decision: str, original: Any, ran: Any, reason: str | None, by: str, wait_ms: float
) -> Approval:
    return {
        "policy": "blocked" if policy == "blocked" else "ask",
        "decision": decision,  # type: ignore[typeddict-item]  # (one of Approval's literals, by construction)
        "original_arguments": mask(original),
        "arguments": mask(ran),
        "reason": mask_text(reason) if reason else None,
        "by": mask_text(by)[:200],
        "wait_ms": round(max(0.0, wait_ms), 3),
    }


def dispatch_call(
    dispatcher: Dispatcher,
    gate: ApprovalGate,
    call: ToolCallRequest,
    *,
    step: int,
    run_id: str,
    cancel: threading.Event,
    set_status: Callable[[Status], None],
) -> Generator[RunEvent, None, ToolCall]:
    """Run one tool call through its approval; returns its log entry (with ``approval`` when it
    was asked or blocked). A call the dispatcher will refuse anyway (unknown tool, invalid or
    duplicate arguments) is not asked about."""
    checked = dispatcher.precheck(call)
    if checked is None:
        return dispatcher.dispatch(call, step=step)
    tool, args = checked
    scope = gate.allowed.get(tool.name)
    policy = "ask" if scope == "saved" else gate.policy(tool)  # (it asked until a person allowed it)
    if policy == "auto":
        return dispatcher.dispatch(call, step=step)
    if policy == "blocked":
        reason = f"the tool {tool.name} is blocked here (its policy: {POLICY_WORDS['blocked']}); it was not run"
        entry = dispatcher.refuse(call, step=step, message=f"{reason[0].upper()}{reason[1:]}.", category=None)
        entry["approval"] = _record(policy, "rejected", args, None, reason, "the tool's policy (blocked)", 0.0)
        return entry
    if scope is not None:
        entry = dispatcher.dispatch(call, step=step)
        by = "always allowed (this run)" if scope == "run" else "always allowed (saved in this run)"
        entry["approval"] = _record(policy, "approved", args, args, None, by, 0.0)
        return entry
    request = ApprovalRequest(
        run_id=run_id,
        step=step,
        call_id=str(call.call_id),
        tool=tool.name,
        description=tool.description,
        source=tool.source,
        server=tool.server,
        badges=describe_annotations(tool.annotations) if tool.annotations else ["no hints: may change things"],
        policy=policy,
        arguments=mask(args),
        parameters=tool.parameters,
        asked_at=utc_now(),
        check=lambda edited: check_arguments(tool, edited),
    )
    set_status("waiting_for_approval")
    yield ApprovalRequested(
        run_id=run_id, step=step, call_id=request.call_id, tool=tool.name, request=request.as_dict()
    )
    t0 = time.perf_counter()
    try:
        answer = gate.approver.decide(request, cancel)
    except RunCancelled:
        entry = dispatcher.refuse(
            call, step=step, message="the run was stopped while this call waited for approval.", category=None
        )
        entry["cancelled"] = True
        entry["output"] = ERROR_PREFIX + "the run was stopped while this call waited for approval; it did not run."
        entry["approval"] = _record(
            policy, "stopped", args, None, None, "Stop, while it waited", (time.perf_counter() - t0) * 1000
        )
        raise CallStopped(entry) from None
    wait_ms = (time.perf_counter() - t0) * 1000
    set_status("running")
    edited = answer.decision == "edit" and answer.arguments is not None and answer.arguments != args
    decision = "rejected" if answer.decision == "reject" else "edited" if edited else "approved"
    yield ApprovalAnswered(
        run_id=run_id,
        step=step,
        call_id=request.call_id,
        tool=tool.name,
        decision=decision,
        by=answer.by,
        wait_ms=wait_ms,
    )
    log.info("run %s: %s %s by %s after %.0f ms", run_id, tool.name, decision, answer.by, wait_ms)
    if answer.always and decision != "rejected":
        gate.allow(tool.name, answer.always)
    if decision == "rejected":
        reason = answer.reason.strip() or "no reason given"
        entry = dispatcher.refuse(
            call,
            step=step,
            message=f"This call of {tool.name} was rejected by {answer.by}; it was not run. Reason: {reason}",
            category=None,
        )
        entry["approval"] = _record(policy, "rejected", args, None, reason, answer.by, wait_ms)
        return entry
    ran = answer.arguments if edited else args
    entry = dispatcher.dispatch(
        ToolCallRequest(
            call_id=call.call_id, name=call.name, arguments=ran, origin=call.origin, harness_rule=call.harness_rule
        ),
        step=step,
    )
    entry["approval"] = _record(policy, decision, args, ran, None, answer.by, wait_ms)
    if edited:
        # The model is told what ran: its own arguments were not the ones used.
        shown = json.dumps(mask(ran), ensure_ascii=False, sort_keys=True)
        entry["output"] = (
            f"[A person edited the arguments before this call ran; it ran with {shown}]\n" + entry["output"]
        )
    return entry
