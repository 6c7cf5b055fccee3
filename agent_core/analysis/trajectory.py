"""The normalised trajectory of a run record: what the agent did, in order, comparable across runs.

A trajectory is a list of :class:`Action` — one per tool call, then one terminal event: the
``answer`` of a completed run, or a ``stop`` (step limit, error, Stop, interrupted). Each event
carries the context the model was given before it (blocks sent and trimmed at its step), so two
runs can be compared on what they saw as well as on what they did.

A tool call's **signature** is its name and its canonical arguments (keys sorted, whitespace in
strings collapsed), so ``{"b": 1, "a": "x  y"}`` and ``{"a": "x y", "b": 1}`` are the same call.
Compare, replay and the evals' trajectory checks all use :func:`signature`, which is
:func:`agent_core.context.call_signature` (the dispatcher refuses a repeated call by it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core.context import call_signature, canonical_arguments

TOOL_CALL, ANSWER, STOP = "tool_call", "answer", "stop"


def signature(tool: str, arguments: Any, *, ignore_arguments: bool = False) -> str:
    """``tool(canonical arguments)``; only the name with ``ignore_arguments``."""
    name = str(tool or "?")
    return name if ignore_arguments else call_signature(name, arguments)


@dataclass(frozen=True)
class Context:
    """The context blocks sent and trimmed before a model turn."""

    sent: tuple[int, ...] = ()
    trimmed: tuple[int, ...] = ()

    def describe(self) -> str:
        return f"{len(self.sent)} block(s) sent, {len(self.trimmed)} trimmed"


@dataclass(frozen=True)
class Action:
    """One thing the agent did: a tool call, its final answer, or a stop."""

    kind: str
    """``tool_call`` | ``answer`` | ``stop``."""
    step: int
    """The run's loop step (model turn) that made it."""
    tool: str = ""
    arguments: str = ""
    """Canonical arguments (JSON text) of a tool call."""
    result: str = ""
    """A tool call's output (what the model got back), an answer's text, a stop's message."""
    success: bool = True
    status: str = ""
    """A stop's run status (``max_steps``, ``error``, ``cancelled``, ``interrupted`` …)."""
    reason: str = ""
    """A stop's error type (``MaxStepsReached``, ``Cancelled`` …) or a call's error category."""
    call_id: str = ""
    source: str = ""
    """A replayed call's source: ``recorded`` | ``live`` | ``missing`` (empty otherwise)."""
    context: Context = field(default_factory=Context)
    approval: str = ""
    """A call's approval decision (``approved``, ``edited``, ``rejected``, ``stopped``), when it needed one."""

    def key(self, *, ignore_arguments: bool = False) -> str:
        """What alignment matches on: the signature of a call; the kind of a terminal event."""
        if self.kind == TOOL_CALL:  # (arguments are canonical already: no second parse)
            return self.tool if ignore_arguments else f"{self.tool}({self.arguments})"
        return f"<{self.kind}>"

    def label(self) -> str:
        """Short text for a table cell."""
        if self.kind == TOOL_CALL:
            args = self.arguments if len(self.arguments) <= 80 else self.arguments[:79] + "…"
            return f"{self.tool}({args})" + (f" [{self.approval}]" if self.approval else "")
        if self.kind == ANSWER:
            return "answer: " + _short(self.result, 80)
        return f"stop: {self.status}" + (f" ({self.reason})" if self.reason else "")

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "step": self.step,
            "tool": self.tool or None,
            "arguments": self.arguments if self.kind == TOOL_CALL else None,
            "signature": self.key() if self.kind == TOOL_CALL else None,
            "result": self.result,
            "success": self.success,
            "status": self.status or None,
            "reason": self.reason or None,
            "call_id": self.call_id or None,
            "source": self.source or None,
            "approval": self.approval or None,
            "context": {"sent": list(self.context.sent), "trimmed": list(self.context.trimmed)},
        }


@dataclass(frozen=True)
class ModelTurn:
    """One model turn (a loop step) of the run."""

    step: int
    text: str
    tool_calls: int
    context: Context
    attempts: int


@dataclass(frozen=True)
class Trajectory:
    """A run as a list of events, plus its model turns."""

    run_id: str
    events: tuple[Action, ...]
    turns: tuple[ModelTurn, ...]
    status: str
    answer: str | None

    def keys(self, *, ignore_arguments: bool = False) -> list[str]:
        return [e.key(ignore_arguments=ignore_arguments) for e in self.events]

    def tool_events(self) -> list[Action]:
        return [e for e in self.events if e.kind == TOOL_CALL]


def as_mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one (records are data: any field may be odd)."""
    return value if isinstance(value, dict) else {}


def _short(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(v for v in (values or []) if isinstance(v, int))


def trajectory(record: Mapping[str, Any]) -> Trajectory:
    """The normalised trajectory of a run record (tolerant of partial and older records)."""
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    contexts = {s.get("index"): Context(_ints(s.get("blocks_sent")), _ints(s.get("blocks_trimmed"))) for s in steps}
    turns = tuple(
        ModelTurn(
            step=int(s.get("index") or 0),
            text=str(s.get("text") or ""),
            tool_calls=len(s.get("tool_call_ids") or []),
            context=contexts.get(s.get("index"), Context()),
            attempts=len(s.get("model_attempts") or []),
        )
        for s in steps
    )
    events: list[Action] = []
    for call in record.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        raw_step = call.get("step")
        step = raw_step if isinstance(raw_step, int) else 0
        events.append(
            Action(
                kind=TOOL_CALL,
                step=step,
                tool=str(call.get("tool") or "?"),
                arguments=canonical_arguments(call.get("arguments")),
                result=str(call.get("output") or ""),
                success=bool(call.get("success")),
                reason=str(call.get("error_category") or ""),
                call_id=str(call.get("call_id") or ""),
                source=str(call.get("source") or ""),
                context=contexts.get(step, Context()),
                approval=str(as_mapping(call.get("approval")).get("decision") or ""),
            )
        )
    status = str(record.get("status_shown") or record.get("status") or "")
    last_step = int(steps[-1].get("index") or 0) if steps else 0
    final_context = contexts.get(last_step, Context())
    answer = record.get("answer")
    if status == "completed":
        events.append(Action(kind=ANSWER, step=last_step, result=str(answer or ""), context=final_context))
    else:
        error = as_mapping(record.get("error"))
        events.append(
            Action(
                kind=STOP,
                step=last_step,
                status=status or "unknown",
                reason=str(error.get("type") or ""),
                result=str(error.get("message") or ""),
                success=False,
                context=final_context,
            )
        )
    return Trajectory(
        run_id=str(record.get("run_id") or ""),
        events=tuple(events),
        turns=turns,
        status=status,
        answer=answer if isinstance(answer, str) else None,
    )
