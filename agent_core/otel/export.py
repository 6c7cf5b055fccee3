"""A saved run record as OpenTelemetry spans (GenAI v1.41.1 + OpenInference + our extras).

The tree, with the record's own timestamps::

    invoke_agent agent-workbench        INTERNAL  the run
      chat {model}                      CLIENT    one per step
        chat {model} attempt {n}        CLIENT    one per attempt, only when the step was retried
      execute_tool {tool}               INTERNAL  one per tool call
        {tool} attempt {n}              INTERNAL  one per attempt of the tool
      execute_tool {fallback}           INTERNAL  a fallback, linked to the call it replaced

Ids are derived from the run id and the call ids, so exporting a run twice gives the same trace
and span ids (a backend keeps one copy). Content (goal, answer, step text, tool arguments and
results, error text) is left out unless ``content=True``; then it is masked again and each value
is capped at :data:`MAX_CONTENT_CHARS`, a cut value ending in :data:`TRUNCATION_MARKER` and its key
listed in ``agent_workbench.content.truncated``.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from agent_core.context import call_signature
from agent_core.masking import mask, mask_text
from agent_core.otel.conventions import PREFIX
from agent_core.providers import provider_spec
from agent_core.records.decided import picked_line, picked_number

AGENT_NAME = "agent-workbench"
SCOPE_NAME = "agent_workbench.otel"
SCOPE_VERSION = "1"
MAX_CONTENT_CHARS = 16_000
TRUNCATION_MARKER = "…[TRUNCATED]"


W = PREFIX  # short alias for the extras' prefix


@dataclass
class SpanData:
    """One span, independent of the SDK: what the exporters and the tests work with."""

    name: str
    span_id: bytes
    parent_id: bytes | None
    kind: str  # INTERNAL | CLIENT
    start_ns: int
    end_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    status: str = "UNSET"  # UNSET | OK | ERROR
    status_message: str = ""
    links: list[bytes] = field(default_factory=list)


@dataclass
class Trace:
    trace_id: bytes
    spans: list[SpanData]


def _certainty(step: Mapping[str, Any]) -> dict[str, Any]:
    """The step's choice and the model's probability for it (the constraint's ``certainty``)."""
    certainty = _mapping(_mapping(step.get("constraint")).get("certainty"))
    if not isinstance(certainty.get("chosen"), str) or not isinstance(certainty.get("p"), (int, float)):
        return {}
    return {W + "choice.chosen": certainty["chosen"], W + "choice.probability": float(certainty["p"])}


def _line_choice(step: Mapping[str, Any]) -> dict[str, Any]:
    """The result line the model picked before answering (the constraint's ``line_choice``): its
    number, how many it chose among and its probability (the line itself is content:
    ``line_choice.line``)."""
    read = _mapping(_mapping(step.get("constraint")).get("line_choice"))
    chosen = picked_number(read)
    if chosen is None:
        return {}
    out: dict[str, Any] = {W + "line_choice.chosen": chosen, W + "line_choice.lines": len(read["lines"])}
    if isinstance(read.get("p"), (int, float)) and not isinstance(read.get("p"), bool):
        out[W + "line_choice.probability"] = float(read["p"])
    return out


def _mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one (a foreign record may hold anything)."""
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def trace_id_for(run_id: str) -> bytes:
    """The run id's 16 bytes when it is a UUID (ours are), else a hash of it."""
    try:
        value = uuid.UUID(str(run_id)).bytes
    except ValueError:
        value = b""
    if len(value) != 16 or value == bytes(16):
        value = hashlib.sha256(f"run:{run_id}".encode()).digest()[:16]
    return value


def span_id_for(run_id: str, path: str) -> bytes:
    digest = hashlib.sha256(f"{run_id}/{path}".encode("utf-8", "replace")).digest()
    return digest[:8] if digest[:8] != bytes(8) else digest[8:16]


def _ns(iso: Any) -> int | None:
    if not isinstance(iso, str) or not iso:
        return None
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000


def _ms_ns(ms: Any) -> int:
    return int(float(ms) * 1_000_000) if isinstance(ms, (int, float)) and ms == ms and ms > 0 else 0


def _int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def canonical_json(value: Any) -> str:
    """Arguments as canonical JSON text (key order ignored); raw text stays as it is."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


class _Content:
    """Adds content attributes when enabled: masked, capped, cut keys remembered."""

    def __init__(self, enabled: bool, max_chars: int) -> None:
        self.enabled = enabled
        self.max_chars = max_chars

    def put(self, attrs: dict[str, Any], key: str, value: Any) -> None:
        if not self.enabled or value is None:
            return
        text = mask_text(value) if isinstance(value, str) else canonical_json(mask(value))
        if len(text) > self.max_chars:
            text = text[: max(0, self.max_chars - len(TRUNCATION_MARKER))] + TRUNCATION_MARKER
            cut = list(attrs.get(W + "content.truncated", []))
            attrs[W + "content.truncated"] = cut + [key]
        attrs[key] = text


def _clean(attrs: Mapping[str, Any]) -> dict[str, Any]:
    """Drop None values; OTLP attributes cannot be null."""
    return {k: v for k, v in attrs.items() if v is not None}


def record_to_trace(
    record: Mapping[str, Any], *, content: bool = False, max_content_chars: int = MAX_CONTENT_CHARS
) -> Trace:
    """The spans of one saved run record (see the module docstring for the tree)."""
    run_id = str(record.get("run_id") or "")
    trace_id = trace_id_for(run_id)
    text = _Content(content, max_content_chars)
    model = str(record.get("model") or "unknown")
    provider_id = str(record.get("provider") or "unknown")
    spec = provider_spec(provider_id)  # gen_ai.provider.name: a well-known value where one exists
    provider = spec.trace_name if spec is not None else provider_id
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    calls = [c for c in record.get("tool_calls") or [] if isinstance(c, dict)]

    start = _ns(record.get("started_at")) or 0
    end = _ns(record.get("finished_at")) or _ns(record.get("updated_at"))
    if end is None:
        end = start + _ms_ns(record.get("duration_ms"))
    end = max(end, start)
    root_id = span_id_for(run_id, "run")
    spans: list[SpanData] = []

    # The run.
    usage = _mapping(record.get("usage"))
    grounding = _mapping(record.get("grounding"))
    status = str(record.get("status") or "")
    error = record.get("error") if isinstance(record.get("error"), dict) else None
    attrs = _clean(
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": AGENT_NAME,
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
            "gen_ai.conversation.id": run_id,
            "openinference.span.kind": "AGENT",
            "agent.name": AGENT_NAME,
            "session.id": run_id,
            "user.id": record.get("user") if isinstance(record.get("user"), str) else None,
            W + "provider": provider_id,
            W + "status": status,
            W + "scripted": True if record.get("scripted") else None,
            W + "usage.input_tokens": _int(usage.get("input_tokens")),
            W + "usage.output_tokens": _int(usage.get("output_tokens")),
            W + "cost_usd": float(record["cost_usd"]) if isinstance(record.get("cost_usd"), (int, float)) else None,
            W + "duration_ms": float(record["duration_ms"])
            if isinstance(record.get("duration_ms"), (int, float))
            else None,
            W + "grounding.status": grounding.get("status") if isinstance(grounding.get("status"), str) else None,
            **{
                W + key: record[key]
                for key in ("replay_of", "arena_id", "eval_id", "eval_goal_id", "tool_mode")
                if isinstance(record.get(key), str)
            },
        }
    )
    if error is not None:
        attrs["error.type"] = str(error.get("type") or "error")
        text.put(attrs, W + "error.message", error.get("message"))
    elif status == "max_steps":
        attrs["error.type"] = "max_steps"
    text.put(attrs, "input.value", record.get("goal"))
    text.put(attrs, "output.value", record.get("answer"))
    spans.append(
        SpanData(
            name=f"invoke_agent {AGENT_NAME}",
            span_id=root_id,
            parent_id=None,
            kind="INTERNAL",
            start_ns=start,
            end_ns=end,
            attributes=attrs,
            status="ERROR" if status in ("error", "max_steps") else ("OK" if status == "completed" else "UNSET"),
            status_message=status if status in ("error", "max_steps") else "",
        )
    )

    # The steps (model calls).
    for step in steps:
        index = _int(step.get("index"))
        s_start = _ns(step.get("started_at")) or start
        attempts = [a for a in step.get("model_attempts") or [] if isinstance(a, dict)]
        model_ns = _ms_ns(step.get("model_duration_ms")) or sum(
            _ms_ns(a.get("duration_ms"))
            + _ms_ns(a.get("wait_s", 0) * 1000 if isinstance(a.get("wait_s"), (int, float)) else 0)
            for a in attempts
        )
        s_end = max(s_start, s_start + model_ns)
        step_usage = _mapping(step.get("usage"))
        chat_id = span_id_for(run_id, f"step/{index}")
        failed = bool(attempts) and not attempts[-1].get("success", True)
        attrs = _clean(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "gen_ai.response.model": None if failed else model,
                "gen_ai.conversation.id": run_id,
                "gen_ai.response.finish_reasons": [str(step["stop_reason"])] if step.get("stop_reason") else None,
                "gen_ai.usage.input_tokens": _int(step_usage.get("input_tokens")),
                "gen_ai.usage.output_tokens": _int(step_usage.get("output_tokens")),
                "openinference.span.kind": "LLM",
                "llm.model_name": model,
                "llm.provider": provider,
                "llm.token_count.prompt": _int(step_usage.get("input_tokens")),
                "llm.token_count.completion": _int(step_usage.get("output_tokens")),
                "llm.token_count.total": _int(step_usage.get("total_tokens"))
                or _int(step_usage.get("input_tokens")) + _int(step_usage.get("output_tokens")),
                W + "step": index,
                W + "attempts": len(attempts),
                W + "blocks_sent": [_int(b) for b in step.get("blocks_sent") or []],
                W + "blocks_trimmed": [_int(b) for b in step.get("blocks_trimmed") or []],
                W + "duration_ms": float(step["duration_ms"])
                if isinstance(step.get("duration_ms"), (int, float))
                else None,
                **_certainty(step),
                **_line_choice(step),
            }
        )
        if failed:
            attrs["error.type"] = str(attempts[-1].get("error_type") or "error")
            text.put(attrs, W + "error.message", attempts[-1].get("message"))
        step_calls = [c for c in calls if c.get("step") == index]
        if step.get("text") or step_calls:
            out: dict[str, Any] = {"role": "assistant", "parts": []}
            if step.get("text"):
                out["parts"].append({"type": "text", "content": step.get("text")})
            for call in step_calls:
                out["parts"].append(
                    {
                        "type": "tool_call",
                        "id": call.get("call_id"),
                        "name": call.get("tool"),
                        "arguments": call.get("arguments"),
                    }
                )
            if step.get("stop_reason"):
                out["finish_reason"] = str(step.get("stop_reason"))
            text.put(attrs, "gen_ai.output.messages", [out])
        text.put(attrs, "output.value", step.get("text") or None)
        text.put(
            attrs, W + "line_choice.line", picked_line(_mapping(step.get("constraint")).get("line_choice")) or None
        )
        spans.append(
            SpanData(
                name=f"chat {model}",
                span_id=chat_id,
                parent_id=root_id,
                kind="CLIENT",
                start_ns=s_start,
                end_ns=s_end,
                attributes=attrs,
                status="ERROR" if failed else "UNSET",
                status_message=str(attempts[-1].get("error_type") or "") if failed else "",
            )
        )
        if len(attempts) > 1:
            _attempt_spans(
                spans,
                text,
                run_id,
                f"step/{index}",
                f"chat {model}",
                chat_id,
                attempts,
                s_start,
                None,
                kind="CLIENT",
                error_key="error_type",
                message_key="message",
            )

    # The tool calls.
    seen: dict[str, str] = {}
    for number, call in enumerate(calls):
        call_id = str(call.get("call_id") or f"call{number}")
        tool = str(call.get("tool") or "unknown")
        c_start = _ns(call.get("started_at")) or start
        c_end = c_start + _ms_ns(call.get("duration_ms"))
        span_id = span_id_for(run_id, f"call/{number}/{call_id}")
        signature = call_signature(tool, call.get("arguments"))
        duplicate_of = seen.get(signature) if call.get("duplicate") else None
        if (
            not call.get("duplicate")
            and call.get("success") is not None
            and not call.get("error_category") == "validation"
        ):
            seen.setdefault(signature, call_id)
        attempts = [a for a in call.get("attempts") or [] if isinstance(a, dict)]
        ok = bool(call.get("success"))
        attrs = _clean(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": tool,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "function",
                "gen_ai.conversation.id": run_id,
                "openinference.span.kind": "TOOL",
                "tool.name": tool,
                "tool.id": call_id,
                W + "step": _int(call.get("step")),
                W + "attempts": len(attempts),
                W + "error_category": call.get("error_category")
                if isinstance(call.get("error_category"), str)
                else None,
                W + "duplicate": True if call.get("duplicate") else None,
                W + "duplicate_of": duplicate_of,
                W + "truncated": True if call.get("truncated") else None,
                W + "cancelled": True if call.get("cancelled") else None,
                W + "origin": call.get("origin") if call.get("origin") in ("model", "harness") else None,
                W + "harness_rule": call.get("harness_rule") if isinstance(call.get("harness_rule"), str) else None,
                W + "duration_ms": float(call["duration_ms"])
                if isinstance(call.get("duration_ms"), (int, float))
                else None,
                "error.type": None if ok else str(call.get("error_category") or "error"),
            }
        )
        raw_approval = call.get("approval")
        approval: dict[str, Any] = raw_approval if isinstance(raw_approval, dict) else {}
        for name in ("policy", "decision", "by", "wait_ms"):  # who let it run (the wait is not in its span)
            if isinstance(approval.get(name), (str, int, float)):
                attrs[W + "approval." + name] = approval[name]
        text.put(attrs, W + "approval.reason", approval.get("reason"))
        if approval.get("decision") == "edited":
            text.put(attrs, W + "approval.original_arguments", approval.get("original_arguments"))
        text.put(attrs, "gen_ai.tool.call.arguments", call.get("arguments"))
        text.put(attrs, "input.value", call.get("arguments"))
        if content:
            attrs["input.mime_type"] = "text/plain" if isinstance(call.get("arguments"), str) else "application/json"
            attrs["output.mime_type"] = "text/plain"
        if ok:
            text.put(attrs, "gen_ai.tool.call.result", call.get("output"))
        text.put(attrs, "output.value", call.get("output"))
        if not ok:
            text.put(attrs, W + "error.message", call.get("error"))
        spans.append(
            SpanData(
                name=f"execute_tool {tool}",
                span_id=span_id,
                parent_id=root_id,
                kind="INTERNAL",
                start_ns=c_start,
                end_ns=max(c_start, c_end),
                attributes=attrs,
                status="UNSET" if ok else "ERROR",
                status_message="" if ok else str(call.get("error_category") or "error"),
            )
        )
        t = _attempt_spans(spans, text, run_id, f"call/{number}/{call_id}", tool, span_id, attempts, c_start, c_end)
        fallback = call.get("fallback")
        if isinstance(fallback, dict):
            fb_tool = str(fallback.get("tool") or "unknown")
            fb_attempts = [a for a in fallback.get("attempts") or [] if isinstance(a, dict)]
            fb_ok = bool(fallback.get("success"))
            fb_path = f"call/{number}/{call_id}/fallback"
            fb_id = span_id_for(run_id, fb_path)
            fb_end = max(t, min(c_end, t + sum(_ms_ns(a.get("duration_ms")) for a in fb_attempts))) if c_end >= t else t
            fb_attrs = _clean(
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": fb_tool,
                    "gen_ai.tool.call.id": f"{call_id}:fallback",
                    "gen_ai.tool.type": "function",
                    "gen_ai.conversation.id": run_id,
                    "openinference.span.kind": "TOOL",
                    "tool.name": fb_tool,
                    W + "step": _int(call.get("step")),
                    W + "fallback_of": call_id,
                    W + "fallback_success": fb_ok,
                    W + "attempts": len(fb_attempts),
                    "error.type": None if fb_ok else "fallback_failed",
                }
            )
            if not fb_ok:
                text.put(fb_attrs, W + "error.message", fallback.get("error"))
            spans.append(
                SpanData(
                    name=f"execute_tool {fb_tool}",
                    span_id=fb_id,
                    parent_id=root_id,
                    kind="INTERNAL",
                    start_ns=t,
                    end_ns=fb_end,
                    attributes=fb_attrs,
                    links=[span_id],
                    status="UNSET" if fb_ok else "ERROR",
                    status_message="" if fb_ok else "fallback_failed",
                )
            )
            _attempt_spans(spans, text, run_id, fb_path, fb_tool, fb_id, fb_attempts, t, fb_end)
    return Trace(trace_id=trace_id, spans=spans)


def _attempt_spans(
    spans: list[SpanData],
    text: _Content,
    run_id: str,
    path: str,
    tool: str,
    parent: bytes,
    attempts: Sequence[Mapping[str, Any]],
    start: int,
    limit: int | None,
    *,
    kind: str = "INTERNAL",
    error_key: str = "error_category",
    message_key: str = "error",
) -> int:
    """One child span per attempt (model or tool), laid end to end with the waits between; returns
    where they end, at most ``limit``. A model attempt names its error by ``error_type`` and says it
    in ``message``; a tool attempt by ``error_category`` and ``error``."""
    t = start
    for attempt in attempts:
        number = _int(attempt.get("attempt"))
        ok = bool(attempt.get("success"))
        a_end = t + _ms_ns(attempt.get("duration_ms"))
        wait = _number(attempt.get("wait_s"))
        attrs = _clean(
            {
                W + "attempt": number,
                W + "retry_wait_s": float(wait) if wait else None,
                W + "error_category": attempt.get("error_category")
                if isinstance(attempt.get("error_category"), str)
                else None,
                W + "duration_ms": float(attempt["duration_ms"])
                if isinstance(attempt.get("duration_ms"), (int, float))
                else None,
                "error.type": None if ok else str(attempt.get(error_key) or "error"),
            }
        )
        if not ok:
            text.put(attrs, W + "error.message", attempt.get(message_key))
        spans.append(
            SpanData(
                name=f"{tool} attempt {number}",
                span_id=span_id_for(run_id, f"{path}/attempt/{number}"),
                parent_id=parent,
                kind=kind,
                start_ns=t,
                end_ns=max(t, a_end),
                attributes=attrs,
                status="UNSET" if ok else "ERROR",
                status_message="" if ok else str(attempt.get(error_key) or "error"),
            )
        )
        t = a_end + _ms_ns(float(wait) * 1000)
    return min(t, limit) if limit is not None and limit >= start else t
