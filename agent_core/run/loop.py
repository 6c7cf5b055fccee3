"""The agent loop: model turn → tool calls → context block, until an answer or the step limit.

:func:`run_agent` yields typed events (:mod:`agent_core.run.events`) and saves the run record after
every step, so a crash or a Stop leaves a readable record. A caller cancels by setting the
``cancel`` event, or by closing the generator (what Streamlit does on Stop).
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from typing import Any, Literal, assert_never, cast

from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, short, unsupported
from agent_core.context import ContextBlock, ToolOutput, select_blocks, trim_history
from agent_core.errors import ProviderError, RunCancelled
from agent_core.masking import mask, mask_text, masked_traceback
from agent_core.otel import auto as otel_auto
from agent_core.providers import answer_check_for
from agent_core.providers.base import ModelRequest, ModelResponse, Provider, Usage
from agent_core.records.files import (
    SCHEMA_VERSION,
    RecordEncoder,
    RecordWriteError,
    new_run_id,
    record_path,
    save_record,
    utc_now,
)
from agent_core.records.run_record import BlockItem, Constraint, Message, RunError, RunRecord, Status, Step
from agent_core.run.approval import ApprovalGate, Approver, dispatch_call
from agent_core.run.dispatcher import MAX_TOOL_NAME_CHARS, CallStopped, Dispatcher
from agent_core.run.events import (
    AnswerSentBack,
    ModelCallFinished,
    ModelCallStarted,
    ModelLoading,
    RunEvent,
    RunFinished,
    RunStarted,
    StepFinished,
    ToolCallFinished,
    ToolCallStarted,
    choice_of,
)
from agent_core.run.model_calls import call_model
from agent_core.run.outcomes import FinalAnswer, NextStep, StepOutcome, StopRun
from agent_core.run.pricing import Price, estimate_cost, load_prices
from agent_core.settings import Settings
from agent_core.tools.instructions import build_instructions
from agent_core.tools.registry import ToolRegistry, tool_definitions

log = logging.getLogger("agent_core.run.loop")

MAX_GOAL_CHARS = 20_000
MAX_TOOL_CALLS_PER_TURN = 32
MAX_ANSWER_CHECKS = 2
"""Corrective turns the answer check may send in one run (``ANSWER_CHECK=retry``)."""


def validate_goal(goal: str) -> str:
    """The goal, stripped; ValueError with a plain message when it cannot be run."""
    goal = (goal or "").strip()
    if not goal:
        raise ValueError("The goal is empty: write what the agent should do.")
    if len(goal) > MAX_GOAL_CHARS:
        raise ValueError(f"The goal is too long ({len(goal):,} characters; the limit is {MAX_GOAL_CHARS:,}).")
    return goal


def _cost(provider: Provider, model: str, usage: Usage, prices: Mapping[str, Price]) -> float | None:
    return estimate_cost(model, usage, provider=provider.id, prices=prices)


class _Run:
    """State of one run: what every step needs, and the record, which it owns and writes."""

    def __init__(
        self,
        goal: str,
        provider: Provider,
        registry: ToolRegistry,
        settings: Settings,
        run_id: str,
        scripted: bool,
        extra: Mapping[str, Any] | None = None,
        *,
        instructions: str = "",
        cancel: threading.Event | None = None,
        sleep: Callable[[float], Any] | None = None,
        rng: random.Random | None = None,
        approver: Approver | None = None,
    ) -> None:
        self.settings = settings
        self.provider = provider
        self.registry = registry
        self.instructions = instructions
        self.cancel = cancel or threading.Event()
        self.rng = rng
        self.dispatcher = Dispatcher(
            registry, settings, sleep=sleep or (lambda s: self.cancel.wait(s)), rng=rng, cancel=self.cancel
        )
        self.gate = ApprovalGate(settings, approver)
        # The price table (defaults + the optional prices file) is read once per run, not on
        # every save (reading it costs more than the rest of a step's bookkeeping).
        self.prices = load_prices(settings.data_dir)
        self.encoder = RecordEncoder()
        """Per-step saves re-encode only what is new; the final save encodes everything."""
        self.t0 = time.perf_counter()
        self.usage = Usage()
        self.blocks: list[ContextBlock] = []
        self.history: list[Message] = [
            {"role": "system", "content": instructions},
            {"role": "user", "content": mask_text(goal)},
        ]
        self.path = record_path(settings.runs_dir, run_id)
        self.team: Any = None
        """The team store's writer (:mod:`agent_core.pgstore.sink`) when ``AGENT_STORE_URL`` is set."""
        if settings.store_url:
            from agent_core.pgstore.sink import writer_for

            self.team = writer_for(settings.store_url, settings.data_dir)
        self.answer_check = answer_check_for(settings, provider.id)
        self.checks_sent = 0
        """Corrective turns sent so far; the step after one is recorded with ``kind: answer_check``."""
        self.next_step_kind: Literal["answer_check"] | None = None
        self.record: RunRecord = {
            "schema_version": SCHEMA_VERSION,
            "run_id": run_id,
            "goal": mask_text(goal),
            "provider": provider.id,
            "provider_label": provider.label,
            "model": provider.model,
            "scripted": scripted,
            "status": "running",
            "settings": {
                "max_steps": settings.max_steps,
                "max_context_blocks": settings.max_context_blocks,
                "max_tool_output_chars": settings.max_tool_output_chars,
                "tools": registry.names(),
                "retry_delays": list(settings.retry_delays),
                "tool_timeout": settings.tool_timeout,
                "request_timeout": settings.request_timeout,
                "answer_check": self.answer_check,
            },
            "started_at": utc_now(),
            "updated_at": None,
            "finished_at": None,
            "duration_ms": None,
            "answer": None,
            "error": None,
            "usage": self.usage.as_dict(),
            "cost_usd": _cost(provider, provider.model, self.usage, self.prices),
            "steps": [],
            "context_blocks": [],
            "tool_calls": [],
            "history": [],
            "history_dropped": 0,
            "provider_meta": {},
            "owner": {"pid": os.getpid(), "host": os.uname().nodename},
        }
        definitions = tool_definitions(registry)
        if definitions:
            self.record["tool_definitions"] = definitions
        if extra:
            # Optional top-level fields set by the caller (eval_id, arena_id, replay_of, user …);
            # they never replace the engine's own fields.
            # (a cast: the caller's keys are OPTIONAL_EXTRA_FIELDS, checked by the record's schema in the tests)
            fields = cast(dict[str, Any], self.record)
            fields.update({k: mask(v) for k, v in extra.items() if k not in fields})

    def set_status(self, status: Status) -> None:
        """``waiting_for_approval`` while a call waits for a person (saved: History sees it), then ``running``."""
        self.record["status"] = status
        self.save()

    def elapsed_ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 3)

    def save(self, *, final: bool = False) -> None:
        kept = trim_history(self.history, self.settings.history_max_messages)
        self.record["history"] = kept
        self.record["history_dropped"] = len(self.history) - len(kept)
        self.record["usage"] = self.usage.as_dict()
        self.record["cost_usd"] = _cost(self.provider, self.record["model"], self.usage, self.prices)
        self.record["updated_at"] = utc_now()
        try:
            meta = self.provider.meta()
            if meta is not None:
                self.record["provider_meta"] = mask(meta)
        except Exception as exc:  # provider metadata is a nicety, never a failure
            log.debug("provider meta() failed\n%s", masked_traceback(exc))
        save_record(self.record, self.settings.runs_dir, encoder=self.encoder, final=final)
        if self.team is not None:  # after the folder, which keeps every step whatever the database does
            self.team.save(self.record)

    def finish(self, status: Status, *, answer: str | None = None, error: RunError | None = None) -> RunFinished:
        self.record["status"] = status
        self.record["answer"] = mask_text(answer) if answer is not None else None
        self.record["error"] = mask(error) if error else None
        self.record["finished_at"] = utc_now()
        self.record["duration_ms"] = self.elapsed_ms()
        if self.record["answer"] is not None and self.answer_check != "off":
            self.record["grounding"] = check_answer(
                self.record["answer"], self.record["goal"], self.record["tool_calls"]
            )
        try:
            self.save(final=True)
        except RecordWriteError as exc:
            # The run result is still reported; the message says the record could not be kept.
            self.record["error"] = {"type": "RecordWriteError", "message": str(exc.strerror or exc)}
            if status != "error":
                self.record["status"] = status = "error"
        else:
            otel_auto.run_finished(self.path)  # AGENT_OTEL_EXPORT=auto: sent later, from another thread
        return RunFinished(
            run_id=self.record["run_id"],
            status=self.record["status"],
            answer=self.record["answer"],
            error=self.record["error"],
            steps=len(self.record["steps"]),
            duration_ms=self.record["duration_ms"],
            path=str(self.path),
            grounding=self.record.get("grounding"),
        )


def run_agent(
    goal: str,
    *,
    provider: Provider,
    registry: ToolRegistry,
    settings: Settings,
    cancel: threading.Event | None = None,
    run_id: str | None = None,
    instructions: str | None = None,
    scripted: bool = False,
    sleep: Callable[[float], Any] | None = None,
    rng: random.Random | None = None,
    record_extra: Mapping[str, Any] | None = None,
    approver: Approver | None = None,
) -> Iterator[RunEvent]:
    """Run one goal to the end, yielding events; the last event is :class:`RunFinished`.

    Each call starts from clean state. ``cancel`` stops the run at once, also in the middle of a
    model call, a tool call or a retry wait (the call is left to its worker thread); the record is
    then saved as ``cancelled`` with its finished steps, and a tool call cut short is kept in the
    log marked ``cancelled``. ``record_extra`` adds optional top-level fields to the record
    (``eval_id``, ``arena_id``, ``replay_of``, ``user`` …; masked, never replacing the engine's).
    ``approver`` answers calls whose tool's policy asks (:mod:`agent_core.run.approval`); None
    rejects them at once, since no one could answer.
    """
    goal = validate_goal(goal)
    if instructions is None:  # made from the enabled tools; the transcript keeps what was sent
        instructions = build_instructions(registry)
    run = _Run(
        goal,
        provider,
        registry,
        settings,
        run_id or new_run_id(),
        scripted,
        record_extra,
        instructions=instructions,
        cancel=cancel,
        sleep=sleep,
        rng=rng,
        approver=approver,
    )
    cancel = run.cancel
    rid = run.record["run_id"]
    try:
        run.save()
    except RecordWriteError as exc:
        yield RunFinished(run_id=rid, status="error", error={"type": "RecordWriteError", "message": str(exc.strerror)})
        return
    yield RunStarted(
        run_id=rid, goal=run.record["goal"], provider=provider.id, model=provider.model, path=str(run.path)
    )
    log.info("run %s started: provider=%s model=%s", rid, provider.id, provider.model)
    try:
        provider.use_run(instructions, list(registry))  # a provider may prepare for them (local)
        for progress in provider.prepare():
            yield ModelLoading(
                run_id=rid, stage=progress.stage, done=progress.done, total=progress.total, message=progress.message
            )
            if cancel.is_set():
                raise RunCancelled()
        for step in range(1, settings.max_steps + 1):
            if cancel.is_set():
                raise RunCancelled()
            outcome = yield from _step(run, step)
            match outcome:
                case FinalAnswer(text=answer):
                    # The one place a run gets its answer.
                    run.history.append({"role": "assistant", "content": answer, "final": True})
                    yield run.finish("completed", answer=answer)
                    return
                case StopRun(status=status, error=error):
                    yield run.finish(status, error=error)
                    return
                case NextStep():
                    pass
                case _:
                    assert_never(outcome)
        plural = "s" if settings.max_steps != 1 else ""
        message = (
            f"Stopped after reaching the step limit ({settings.max_steps} step{plural}) without a final answer. "
            "Raise the step limit or make the goal simpler."
        )
        run.history.append({"role": "assistant", "content": message, "final": False})
        yield run.finish("max_steps", error={"type": "MaxStepsReached", "message": message})
    except RunCancelled:
        yield run.finish("cancelled", error=_CANCELLED)
    except (GeneratorExit, KeyboardInterrupt):  # Stop in the UI (generator closed), Ctrl-C in the CLI
        run.finish("cancelled", error=_CANCELLED)
        raise
    except RecordWriteError as exc:
        yield run.finish("error", error={"type": "RecordWriteError", "message": str(exc.strerror or exc)})
    except Exception as exc:  # an engine bug: keep the record, say what happened
        log.error("run %s failed\n%s", rid, masked_traceback(exc))
        yield run.finish(
            "error", error={"type": type(exc).__name__, "message": mask_text(str(exc)) or type(exc).__name__}
        )


_CANCELLED: RunError = {"type": "Cancelled", "message": "The run was stopped by the user."}


def _step(run: _Run, step: int) -> Generator[RunEvent, None, StepOutcome]:
    """One model turn and the tool calls it asks for; the step is in the record when it returns."""
    rid = run.record["run_id"]
    provider, settings, cancel = run.provider, run.settings, run.cancel
    step_t0 = time.perf_counter()
    sent, trimmed = select_blocks(run.blocks, settings.max_context_blocks)
    sent_ids = [b.index for b in sent]
    yield ModelCallStarted(run_id=rid, step=step, blocks_sent=sent_ids, blocks_trimmed=trimmed)
    request = ModelRequest(
        # The masked goal (as recorded): a key pasted into a goal is not sent on to the model API.
        instructions=run.instructions,
        goal=run.record["goal"],
        blocks=sent,
        tools=list(run.registry),
        step=step,
        timeout=settings.request_timeout,
        cancel=cancel,
        max_steps=settings.max_steps,
    )
    step_entry: Step = {
        "index": step,
        "started_at": utc_now(),
        "duration_ms": None,
        "model_duration_ms": None,
        "model_attempts": [],
        "usage": Usage().as_dict(),
        "blocks_sent": sent_ids,
        "blocks_trimmed": trimmed,
        "tool_call_ids": [],
        "text": "",
        "stop_reason": None,
    }
    if run.next_step_kind:  # the model's turn after the answer check's corrective message
        step_entry["kind"], run.next_step_kind = run.next_step_kind, None
    model_t0 = time.perf_counter()
    try:
        response = yield from call_model(
            provider, request, step_entry["model_attempts"], run_id=rid, settings=settings, cancel=cancel, rng=run.rng
        )
    except ProviderError as exc:
        step_entry["model_duration_ms"] = round((time.perf_counter() - model_t0) * 1000, 3)
        step_entry["duration_ms"] = round((time.perf_counter() - step_t0) * 1000, 3)
        run.record["steps"].append(step_entry)
        yield ModelCallFinished(
            run_id=rid,
            step=step,
            duration_ms=step_entry["model_duration_ms"],
            attempts=len(step_entry["model_attempts"]),
            ok=False,
            error=mask_text(exc.message),
        )
        return StopRun(status="error", error={"type": exc.error_type, "message": mask_text(exc.message)})
    model_ms = round((time.perf_counter() - model_t0) * 1000, 3)
    run.usage = run.usage + response.usage
    text = mask_text(response.text or "")
    # Masked: a line choice quotes the results as the model read them.
    constraint: Constraint = mask(response.constraint) if response.constraint else {"kind": "none"}
    step_entry["model_duration_ms"] = model_ms
    step_entry["usage"] = response.usage.as_dict()
    step_entry["text"] = text
    step_entry["stop_reason"] = response.stop_reason
    step_entry["constraint"] = constraint
    if response.model:
        run.record["model"] = response.model
    yield ModelCallFinished(
        run_id=rid,
        step=step,
        duration_ms=model_ms,
        attempts=len(step_entry["model_attempts"]),
        usage=response.usage,
        text=text,
        tool_calls=len(response.tool_calls),
        choices=[
            choice_of(
                {
                    "tool": c.name[:MAX_TOOL_NAME_CHARS],
                    "arguments": mask(c.arguments),
                    "origin": c.origin,
                    "harness_rule": c.harness_rule if c.origin == "harness" else None,
                }
            )
            for c in response.tool_calls
        ],
        constraint=constraint,
    )
    if not response.tool_calls:
        answer = text.strip() or "(The model returned an empty answer.)"
        # ANSWER_CHECK=retry may give the answer back to the model with a corrective turn.
        sent_back = _send_answer_back(run, step_entry, answer, response, provider.id)
        step_entry["duration_ms"] = round((time.perf_counter() - step_t0) * 1000, 3)
        run.record["steps"].append(step_entry)
        if sent_back is not None:
            yield sent_back
            yield _step_finished(run, step_entry, response.usage)
            return NextStep()
        yield _step_finished(run, step_entry, response.usage)
        return FinalAnswer(answer)
    block = ContextBlock(
        index=len(run.blocks),
        step=step,
        provider=provider.id,
        text=text,
        tool_calls=list(response.tool_calls),
        raw=response.raw,
    )
    run.history.append(
        {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {"call_id": c.call_id, "tool": c.name, "arguments": mask(c.arguments)} for c in response.tool_calls
            ],
        }
    )
    try:
        for position, call in enumerate(response.tool_calls):
            if cancel.is_set():
                raise RunCancelled()
            yield ToolCallStarted(
                run_id=rid,
                step=step,
                call_id=call.call_id,
                tool=call.name[:MAX_TOOL_NAME_CHARS],
                arguments=mask(call.arguments),
            )
            if position < MAX_TOOL_CALLS_PER_TURN:
                try:  # through its approval: its tool's policy may ask a person first
                    entry = yield from dispatch_call(
                        run.dispatcher, run.gate, call, step=step, run_id=rid, cancel=cancel, set_status=run.set_status
                    )
                except CallStopped as stopped:  # kept in the log; its block is not whole, so not sent on
                    run.record["tool_calls"].append(stopped.entry)
                    step_entry["tool_call_ids"].append(stopped.entry["call_id"])
                    raise
            else:
                entry = run.dispatcher.refuse(
                    call,
                    step=step,
                    message=f"Too many tool calls in one turn (the limit is {MAX_TOOL_CALLS_PER_TURN}); "
                    "this call was not run. Ask for fewer calls at a time.",
                )
            run.record["tool_calls"].append(entry)
            step_entry["tool_call_ids"].append(entry["call_id"])
            block.outputs.append(
                ToolOutput(call_id=call.call_id, name=call.name, output=entry["output"], is_error=not entry["success"])
            )
            run.history.append(
                {
                    "role": "tool",
                    "content": entry["output"],
                    "tool_call_id": entry["call_id"],
                    "tool": entry["tool"],
                    "ok": entry["success"],
                }
            )
            yield ToolCallFinished(run_id=rid, step=step, call=entry)
    finally:
        # Keep what ran, even when cancelled between calls; the block goes in only when whole.
        if len(block.outputs) == len(block.tool_calls):
            _keep_block(run, block)
        # A person's wait for an approval is kept apart: the step's time is the agent's.
        ids = set(step_entry["tool_call_ids"])
        waited = sum(
            c["approval"]["wait_ms"] for c in run.record["tool_calls"] if c["call_id"] in ids and "approval" in c
        )
        step_entry["duration_ms"] = round(max(0.0, (time.perf_counter() - step_t0) * 1000 - waited), 3)
        if waited:
            step_entry["approval_wait_ms"] = round(waited, 3)
        run.record["steps"].append(step_entry)
    yield _step_finished(run, step_entry, response.usage)
    return NextStep()


def _send_answer_back(
    run: _Run, step_entry: Step, answer: str, response: ModelResponse, provider_id: str
) -> AnswerSentBack | None:
    """``ANSWER_CHECK=retry``: when the answer states figures that neither the goal nor any
    successful tool result supports, keep it out of the record's answer and give it back to the
    model with one corrective turn (at most :data:`MAX_ANSWER_CHECKS` per run, never on the last
    allowed step). The turn is an ordinary context block whose ``feedback`` the provider sends as
    a user message; the next step is marked ``kind: answer_check``. None when the answer stands."""
    step = step_entry["index"]
    if run.answer_check != "retry" or run.checks_sent >= MAX_ANSWER_CHECKS or step >= run.settings.max_steps:
        return None
    missing = unsupported(check_answer(answer, run.record["goal"], run.record["tool_calls"]))
    if not missing:
        return None
    message = correction({"claims": missing})
    run.checks_sent += 1
    run.next_step_kind = "answer_check"
    block = ContextBlock(
        index=len(run.blocks), step=step, provider=provider_id, text=answer, raw=response.raw, feedback=message
    )
    _keep_block(run, block)
    run.history.append({"role": "assistant", "content": answer, "final": False})
    run.history.append({"role": "user", "content": message, "kind": "answer_check"})
    texts = [short(c) for c in missing]
    step_entry["answer_check"] = {"unsupported": texts, "message": message}
    log.info("run %s step %s: answer sent back by the answer check (%s)", run.record["run_id"], step, ", ".join(texts))
    return AnswerSentBack(run_id=run.record["run_id"], step=step, unsupported=texts, message=message, answer=answer)


def _keep_block(run: _Run, block: ContextBlock) -> None:
    """A whole block goes into the model's context for later steps and into the record."""
    run.blocks.append(block)
    run.record["context_blocks"].append(
        {
            "index": block.index,
            "step": block.step,
            "items": _record_items(block),
            "chars": block.chars(),
            "raw": mask(block.raw),
        }
    )


def _record_items(block: ContextBlock) -> list[BlockItem]:
    """The block's items for the record, masked. Text and tool outputs were masked when they were
    made (``text`` above, ``output`` by the dispatcher); only tool-call arguments and reasoning
    still come straight from the model."""
    return [item if item["kind"] in ("text", "tool_output") else mask(item) for item in block.items()]


def _step_finished(run: _Run, step_entry: Step, usage: Usage) -> StepFinished:
    run.save()
    return StepFinished(
        run_id=run.record["run_id"],
        step=step_entry["index"],
        duration_ms=step_entry["duration_ms"],
        usage=usage,
        total_usage=run.usage,
        cost_usd=run.record["cost_usd"],
    )


def run_to_end(goal: str, **kwargs: Any) -> dict[str, Any]:
    """Run ``goal`` and return the final record (as saved). Same arguments as :func:`run_agent`."""
    finished: RunFinished | None = None
    for event in run_agent(goal, **kwargs):
        if isinstance(event, RunFinished):
            finished = event
    assert finished is not None
    from agent_core.records.files import load_record

    try:
        return load_record(finished.path)
    except Exception:
        # The record could not be written (read-only disk …): report what we know.
        return {
            "run_id": finished.run_id,
            "status": finished.status,
            "answer": finished.answer,
            "error": finished.error,
            "steps": [],
            "tool_calls": [],
        }
