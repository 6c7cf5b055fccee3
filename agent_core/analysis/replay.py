"""Replay a saved run on another provider/model, with its tools answered from the saved tool log.

The loop and the dispatcher are the ordinary ones: what changes is the tool registry. Each tool's
function is wrapped by :class:`RecordedTools`, which answers from the source run's log instead of
running the tool:

- tool mode ``recorded``: every call is answered from the log (a call with no match there gets an
  ERROR output and ``source: missing``); ``live``: the real tools run; ``hybrid``: recorded where a
  call matches (same tool, same canonical arguments), live otherwise.
- matching ``fifo``: the next recorded call of the same tool, whatever its arguments (in ``hybrid``
  the arguments must match); ``strict``: the same tool with the same arguments — an unexpected
  call, or a recorded call never made, fails the replay (status ``error``, type ``ReplayMismatch``).
- a recorded call that failed and was retried answers each attempt as it went (the same errors,
  then the same success or fallback), so retries and fallbacks show with no network.
- ``from_step=K`` keeps the source's model turns before step K verbatim (and their tools
  recorded) and lets the new model continue from there: a fork. Provider ``source`` keeps all of
  them (a re-run of the recorded turns).

The new record has ``replay_of``, ``tool_mode`` and, per tool call, ``source``.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agent_core.analysis.trajectory import as_mapping
from agent_core.context import ToolCallRequest, canonical_arguments
from agent_core.errors import ProviderError, TransientToolError
from agent_core.providers.base import (
    LoadProgress,
    ModelRequest,
    ModelResponse,
    Provider,
    Usage,
)
from agent_core.records.files import load_record, save_record, utc_now
from agent_core.run.approval import Approver
from agent_core.run.dispatcher import TRUNCATED_MARKER, ToolTimeout
from agent_core.run.events import Event, RunFinished, ToolCallFinished, ToolCallStarted
from agent_core.settings import Settings
from agent_core.tools.registry import Tool, ToolRegistry, recorded_stand_in

TOOL_MODES = ("recorded", "live", "hybrid")
MATCH_MODES = ("fifo", "strict")
SOURCE_PROVIDER = "source"
"""Provider id meaning "the source run's own model turns, verbatim"."""
_FALLBACK_PREFIX = "[fallback: "


class ReplayMismatch(Exception):
    """Strict matching failed: an unexpected call (raised inside the tool, so the model sees it)."""


def _error_class(name: str, base: type[Exception]) -> type[Exception]:
    """An exception class called like the recorded one, so the replayed error reads the same."""
    name = name if name.isidentifier() else base.__name__
    return type(name, (base,), {})


def _outcome(attempt: Mapping[str, Any], value: str) -> Callable[[], str]:
    """A callable that reproduces one recorded attempt: return ``value`` or raise the error."""
    if attempt.get("success"):
        return lambda: value
    text = str(attempt.get("error") or "the recorded call failed")
    kind, _, message = text.partition(": ")
    if not message:
        kind, message = "", text
    category = attempt.get("error_category")
    base: type[Exception] = (
        TransientToolError if category == "transient" else ToolTimeout if category == "timeout" else RuntimeError
    )
    error = _error_class(kind, base)

    def fail() -> str:
        raise error(message)

    return fail


def _untruncated(output: str, truncated: bool) -> str:
    return output[: -len(TRUNCATED_MARKER)] if truncated and output.endswith(TRUNCATED_MARKER) else output


@dataclass
class _Recorded:
    """One executed call of the source log, ready to be answered again."""

    index: int
    tool: str
    key: str
    """Canonical arguments (as the tool validated them)."""
    entry: Mapping[str, Any]
    used: bool = False


@dataclass
class RecordedTools:
    """Wraps a registry so each tool answers from ``source``'s tool log (see the module doc)."""

    source: Mapping[str, Any]
    registry: ToolRegistry
    mode: str = "recorded"
    match: str = "fifo"
    from_step: int | None = None
    """Steps before it are answered as recorded, whatever the mode."""
    live_executions: int = 0
    """Real tool functions run (a live or hybrid call; each attempt counts)."""
    violations: list[str] = field(default_factory=list)
    step: int = 0
    """The step being run (set by :meth:`Replay.events` from the loop's events)."""

    def __post_init__(self) -> None:
        if self.mode not in TOOL_MODES:
            raise ValueError(f"tool mode must be one of {', '.join(TOOL_MODES)} (got {self.mode!r})")
        if self.match not in MATCH_MODES:
            raise ValueError(f"matching must be one of {', '.join(MATCH_MODES)} (got {self.match!r})")
        self._lock = threading.Lock()
        self._pending: dict[str, list[Callable[[], str]]] = {}
        self._sources: list[str] = []
        self._calls: list[_Recorded] = []
        for n, entry in enumerate(self.source.get("tool_calls") or []):
            if not isinstance(entry, dict) or not entry.get("attempts") or entry.get("cancelled"):
                continue  # refused (validation, duplicate) or cut short: nothing was answered
            tool = self.registry.get(str(entry.get("tool")))
            self._calls.append(_Recorded(n, str(entry.get("tool")), self._key(tool, entry.get("arguments")), entry))

    @staticmethod
    def _key(tool: Tool | None, arguments: Any) -> str:
        if tool is not None and isinstance(arguments, dict):
            try:
                return canonical_arguments(tool.validate(arguments))
            except Exception:  # recorded arguments the tool no longer accepts: compare as given
                pass
        return canonical_arguments(arguments)

    def wrapped(self) -> ToolRegistry:
        """The registry whose tools answer through this object."""
        return ToolRegistry([replace(tool, func=self._func(tool)) for tool in self.registry])

    def take_source(self) -> str | None:
        """The source of the call that just finished (None when no tool function was reached)."""
        with self._lock:
            return self._sources.pop(0) if self._sources else None

    def unused(self) -> list[str]:
        """Recorded calls no replayed call consumed."""
        return [f"{c.tool}({c.key})" for c in self._calls if not c.used]

    def _recorded_mode(self) -> bool:
        return self.mode == "recorded" or (self.from_step is not None and self.step < self.from_step)

    def _find(self, name: str, key: str) -> _Recorded | None:
        loose = self.match == "fifo" and self._recorded_mode()
        return next((c for c in self._calls if not c.used and c.tool == name and (loose or c.key == key)), None)

    def _plan(self, call: _Recorded) -> list[Callable[[], str]]:
        """The attempts of a recorded call, then (queued for the fallback tool) its fallback's."""
        entry = call.entry
        output = _untruncated(str(entry.get("output") or ""), bool(entry.get("truncated")))
        fallback = entry.get("fallback") if isinstance(entry.get("fallback"), dict) else None
        primary = [a for a in entry.get("attempts") or [] if isinstance(a, dict)]
        steps = [_outcome(a, output) for a in primary]
        if fallback and fallback.get("tool"):
            fb_value = output.split("\n", 1)[1] if output.startswith(_FALLBACK_PREFIX) and "\n" in output else output
            fb_attempts = [a for a in fallback.get("attempts") or [] if isinstance(a, dict)]
            self._pending[str(fallback["tool"])] = [_outcome(a, fb_value) for a in fb_attempts]
        return steps

    def _func(self, tool: Tool) -> Callable[..., Any]:
        real = tool.func

        def answer(**kwargs: Any) -> Any:
            with self._lock:
                queued = self._pending.get(tool.name)
                if queued:
                    attempt = queued.pop(0)
                else:
                    key = canonical_arguments(kwargs)
                    found = None if self.mode == "live" and not self._recorded_mode() else self._find(tool.name, key)
                    if found is not None:
                        found.used = True
                        self._sources.append("recorded")
                        plan = self._plan(found)
                        attempt = plan.pop(0)
                        self._pending[tool.name] = plan
                    elif self._recorded_mode() or (self.match == "strict" and self.mode != "live"):
                        where = f"{tool.name}({key})"
                        if self.match == "strict":
                            self.violations.append(f"unexpected call {where}")
                        if self._recorded_mode():
                            self._sources.append("missing")
                            attempt = _outcome(
                                {
                                    "error": f"ReplayMissing: no recorded result for {where} in run "
                                    f"{self.source.get('run_id')} (tools are replayed from the recording)"
                                },
                                "",
                            )
                        else:
                            attempt = None
                    else:
                        attempt = None
                    if attempt is None:
                        self._sources.append("live")
                        self.live_executions += 1
            if attempt is None:
                return real(**kwargs)
            return attempt()

        return answer


class ForkProvider(Provider):
    """The source's model turns before ``from_step`` (verbatim), then ``provider`` (None: only the
    recorded turns — a call past them is an error)."""

    def __init__(self, source: Mapping[str, Any], provider: Provider | None, from_step: int | None) -> None:
        self._provider = provider
        self.id = provider.id if provider is not None else str(source.get("provider") or "scripted")
        self.model = provider.model if provider is not None else str(source.get("model") or "")
        self.label = (
            provider.label if provider is not None else "replay of the recorded model turns — no model is asked"
        )
        self.instant = provider.instant if provider is not None else True
        self.from_step = from_step
        same_provider = provider is None or provider.id == source.get("provider")
        self._turns: dict[int, ModelResponse] = {}
        blocks = {b.get("step"): b for b in source.get("context_blocks") or [] if isinstance(b, dict)}
        for step in source.get("steps") or []:
            if not isinstance(step, dict) or not isinstance(step.get("index"), int):
                continue
            block = blocks.get(step["index"])
            calls = []
            if block is not None:
                calls = [
                    ToolCallRequest(
                        call_id=str(i.get("call_id")),
                        name=str(i.get("tool")),
                        arguments=copy.deepcopy(i.get("arguments")),
                    )
                    for i in block.get("items") or []
                    if isinstance(i, dict) and i.get("kind") == "tool_call"
                ]
            elif step.get("tool_call_ids"):
                continue  # a step whose block was not kept (stopped mid-step): not replayable
            usage = as_mapping(step.get("usage"))
            text = str(step.get("text") or "") if calls else str(step.get("text") or source.get("answer") or "")
            self._turns[step["index"]] = ModelResponse(
                text=text,
                tool_calls=calls,
                usage=Usage(
                    int(usage.get("input_tokens") or 0),
                    int(usage.get("output_tokens") or 0),
                    int(usage.get("total_tokens") or 0),
                ),
                raw=copy.deepcopy(block.get("raw") or []) if block is not None and same_provider else [],
                stop_reason=step.get("stop_reason"),
            )

    def _recorded(self, step: int) -> bool:
        return self._provider is None or (self.from_step is not None and step < self.from_step)

    def prepare(self) -> Iterator[LoadProgress]:
        return iter(()) if self._provider is None else self._provider.prepare()

    def complete(self, request: ModelRequest) -> ModelResponse:
        if self._recorded(request.step):
            turn = self._turns.get(request.step)
            if turn is None:
                raise ProviderError(
                    f"the source run has no model turn for step {request.step}",
                    provider=self.id,
                    error_type="ReplayMissing",
                )
            return copy.deepcopy(turn)
        assert self._provider is not None
        return self._provider.complete(request)


@dataclass
class Replay:
    """A replay ready to start (from :func:`prepare_replay`)."""

    source: dict[str, Any]
    prepared: Any
    """The :class:`agent_core.run.prepare.PreparedRun`."""
    tools: RecordedTools
    wait: bool
    record: dict[str, Any] | None = None

    def events(self, cancel: threading.Event | None = None, *, run_id: str | None = None) -> Iterator[Event]:
        """The loop's events; tool calls get their ``source``; a strict mismatch fails the run.
        ``run_id``: the run's id when it is fixed (an eval's cell)."""
        sleep = None if self.wait else (lambda s: cancel.is_set() if cancel is not None else None)
        for event in self.prepared.events(cancel, run_id=run_id, sleep=sleep):
            if isinstance(event, ToolCallStarted):
                self.tools.step = event.step
            elif isinstance(event, ToolCallFinished):
                source = self.tools.take_source()
                if source is None:  # refused before any tool ran (validation, duplicate)
                    source = "live" if self.tools.mode == "live" else "recorded"
                event.call["source"] = source  # type: ignore[typeddict-item]  # one of the three
            elif isinstance(event, RunFinished):
                event = self._finish(event)
            yield event

    def _finish(self, event: RunFinished) -> RunFinished:
        try:
            record = load_record(event.path)
        except Exception:
            return event
        problems = list(self.tools.violations)
        if self.tools.match == "strict" and event.status == "completed":
            problems += [f"recorded call never made: {u}" for u in self.tools.unused()]
        if problems:
            message = "Strict replay failed: " + "; ".join(problems[:10]) + ("" if len(problems) <= 10 else " …")
            record["status"] = "error"
            record["error"] = {"type": "ReplayMismatch", "message": message}
            record["updated_at"] = utc_now()  # a changed snapshot: a store keeps the newest one
            save_record(record, self.prepared.settings.runs_dir)
            event = replace(event, status="error", error=record["error"])
        self.record = record
        return event

    def run_to_end(self, cancel: threading.Event | None = None) -> dict[str, Any]:
        for _ in self.events(cancel):
            pass
        assert self.record is not None, "the replay's record could not be read"
        return self.record


def source_settings(source: Mapping[str, Any]) -> dict[str, Any]:
    """The limits the source ran with (so retries and trimming happen the same way)."""
    saved = as_mapping(source.get("settings"))
    out: dict[str, Any] = {}
    for name in ("max_steps", "max_context_blocks", "max_tool_output_chars", "tool_timeout"):
        if isinstance(saved.get(name), (int, float)) and not isinstance(saved.get(name), bool):
            out[name] = saved[name]
    if saved.get("answer_check") in ("off", "flag", "retry"):
        out["answer_check"] = saved["answer_check"]
    if isinstance(saved.get("retry_delays"), list):
        out["retry_delays"] = tuple(float(d) for d in saved["retry_delays"])
    return out


def prepare_replay(
    source: dict[str, Any],
    provider_id: str,
    *,
    model: str | None = None,
    base_url: str | None = None,
    tool_mode: str = "recorded",
    match: str = "fifo",
    from_step: int | None = None,
    settings: Settings | None = None,
    provider: Provider | None = None,
    approver: Approver | None = None,
) -> Replay:
    """Build a replay of ``source`` on ``provider_id`` (``source`` = its own model turns).

    ValueError for bad options; :class:`agent_core.errors.ProviderUnavailable` for a provider that
    cannot be used here.
    """
    from agent_core import providers
    from agent_core.run.prepare import prepare_run, run_settings
    from agent_core.tools.builtins import build_default_registry

    if tool_mode not in TOOL_MODES:
        raise ValueError(f"--tools must be one of {', '.join(TOOL_MODES)} (got {tool_mode!r})")
    if match not in MATCH_MODES:
        raise ValueError(f"--match must be one of {', '.join(MATCH_MODES)} (got {match!r})")
    steps = len(source.get("steps") or [])
    if from_step is not None and not 1 <= from_step <= steps + 1:
        raise ValueError(f"--from-step must be between 1 and {steps + 1} for this run (it has {steps} steps)")
    config = run_settings(settings, source_settings(source))
    base = build_default_registry(config, external=tool_mode != "recorded")
    saved = (source.get("settings") or {}).get("tools")
    if isinstance(saved, list):
        base = base.subset(t for t in saved if isinstance(t, str) and t in base)
    for definition in source.get("tool_definitions") or []:
        # An MCP or declared tool the source had: rebuilt from the record, so a replay with
        # recorded results needs no live server (a live call to it says it is not loaded).
        stand_in = recorded_stand_in(definition) if isinstance(definition, dict) else None
        if stand_in is not None and stand_in.name not in base:
            base.add(stand_in)
    tools = RecordedTools(source, base, tool_mode, match, from_step)
    new_provider: Provider | None = provider
    if provider_id != SOURCE_PROVIDER and new_provider is None:
        new_provider = providers.make_provider(
            provider_id, settings=config, model=(model or "").strip() or None, base_url=(base_url or "").strip() or None
        )
    if provider_id == SOURCE_PROVIDER:
        new_provider = None
    fork = ForkProvider(source, new_provider, from_step if new_provider is not None else None)
    wrapped: Provider = fork if (new_provider is None or from_step is not None) else new_provider
    prepared = prepare_run(
        str(source.get("goal") or ""),
        settings=config,
        provider=wrapped,
        registry=tools.wrapped(),
        scripted=new_provider is None and bool(source.get("scripted")),
        record_extra={"replay_of": source.get("run_id"), "tool_mode": tool_mode},
        approver=approver,  # calls whose tool's policy asks: a fixed answer (None: rejected), never a wait
    )
    return Replay(source=dict(source), prepared=prepared, tools=tools, wait=tool_mode != "recorded")
