"""OTLP JSON (file-exporter lines, or one request document) → read-only run records.

Spans are read by their conventions, not by who wrote them: ``gen_ai.operation.name`` or
``openinference.span.kind`` says what a span is (agent, model call, tool call); our own
``agent_workbench.*`` extras, when present, restore what no convention names (attempts, waits,
fallbacks, duplicates, blocks). Each trace becomes one record marked ``imported_from: "otlp"``;
spans it does not understand are kept in ``import_source.notes``.

The input is untrusted: size, nesting, span and attribute counts are capped, every value is
type-checked, and a file that is not OTLP JSON is refused with :class:`ImportError_` saying why.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agent_core.records.files import SCHEMA_VERSION, STATUSES

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_SPANS = 50_000
MAX_ATTRIBUTES = 256
MAX_VALUE_CHARS = 100_000
MAX_NAME_CHARS = 200
MAX_DEPTH = 8
MAX_NOTES = 200
_PREFIX = "agent_workbench."
_CATEGORIES = ("validation", "transient", "non_transient", "timeout", "duplicate")


class ImportError_(ValueError):  # noqa: N801 - "ImportError" is a builtin
    """The file cannot be imported; the message says why in one line."""


# --- reading the file ----------------------------------------------------------------------------


def read_requests(data: bytes, name: str = "file") -> list[dict[str, Any]]:
    """The ``ExportTraceServiceRequest`` objects of a file: JSON lines, or one JSON document."""
    if len(data) > MAX_FILE_BYTES:
        raise ImportError_(f"{name}: larger than {MAX_FILE_BYTES // 2**20} MB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ImportError_(f"{name}: not UTF-8 text (an OTLP JSON file is text)") from None
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ImportError_(f"{name}: empty file")
    docs: list[Any] = []
    try:
        docs = [json.loads(text)]
    except RecursionError:
        raise ImportError_(f"{name}: nested too deeply") from None
    except ValueError:
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append(json.loads(line))
            except RecursionError:
                raise ImportError_(f"{name}: line {number} is nested too deeply") from None
            except json.JSONDecodeError as exc:
                raise ImportError_(f"{name}: line {number} is not JSON ({exc.msg})") from None
    requests = [d for d in docs if isinstance(d, dict) and isinstance(d.get("resourceSpans"), list)]
    if not requests:
        raise ImportError_(f"{name}: not OTLP JSON traces (no resourceSpans)")
    return requests


def _value(value: Any, depth: int = 0) -> Any:
    """An OTLP ``AnyValue`` as a Python value (None for anything malformed)."""
    if not isinstance(value, dict) or depth > MAX_DEPTH:
        return None
    if "stringValue" in value:
        text = value["stringValue"]
        return text[:MAX_VALUE_CHARS] if isinstance(text, str) else None
    if "boolValue" in value:
        return value["boolValue"] if isinstance(value["boolValue"], bool) else None
    if "intValue" in value:
        raw = value["intValue"]
        if isinstance(raw, bool):
            return None
        if isinstance(raw, int) or (isinstance(raw, str) and raw.lstrip("-").isdigit() and len(raw) <= 20):
            return int(raw)
        return None
    if "doubleValue" in value:
        raw = value["doubleValue"]
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return float(raw)
        if isinstance(raw, str) and len(raw) <= 40:
            try:
                return float(raw)
            except ValueError:
                return None
        return None
    if "arrayValue" in value:
        items = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else None
        return [_value(v, depth + 1) for v in items[:1000]] if isinstance(items, list) else []
    if "kvlistValue" in value:
        items = value["kvlistValue"].get("values") if isinstance(value["kvlistValue"], dict) else None
        return _attributes(items, depth + 1) if isinstance(items, list) else {}
    return None


def _attributes(items: Any, depth: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(items, list):
        return out
    for item in items[:MAX_ATTRIBUTES]:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"][:MAX_NAME_CHARS]] = _value(item.get("value"), depth)
    return out


def _hex_id(value: Any, size: int) -> str | None:
    if isinstance(value, str) and len(value) == size * 2:
        try:
            bytes.fromhex(value)
        except ValueError:
            return None
        return value.lower()
    return None


def _nanos(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 2**63 else None
    if isinstance(value, str) and value.isdigit() and len(value) <= 19:
        return int(value)
    return None


def iter_spans(requests: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every well-formed span, flattened: ids as hex, attributes as a dict, times in ns."""
    count = 0
    for request in requests:
        for resource_spans in request.get("resourceSpans") or []:
            if not isinstance(resource_spans, dict):
                continue
            scopes = resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans") or []
            for scope_spans in scopes if isinstance(scopes, list) else []:
                spans = scope_spans.get("spans") if isinstance(scope_spans, dict) else None
                for span in spans if isinstance(spans, list) else []:
                    if not isinstance(span, dict):
                        continue
                    trace_id, span_id = _hex_id(span.get("traceId"), 16), _hex_id(span.get("spanId"), 8)
                    start = _nanos(span.get("startTimeUnixNano"))
                    if trace_id is None or span_id is None or start is None:
                        continue
                    count += 1
                    if count > MAX_SPANS:
                        raise ImportError_(f"more than {MAX_SPANS:,} spans: split the file")
                    end = _nanos(span.get("endTimeUnixNano"))
                    raw_status, raw_links, raw_name = span.get("status"), span.get("links"), span.get("name")
                    status = raw_status if isinstance(raw_status, dict) else {}
                    code = status.get("code")
                    links = raw_links if isinstance(raw_links, list) else []
                    name = raw_name if isinstance(raw_name, str) else ""
                    message = status.get("message")
                    yield {
                        "trace_id": trace_id,
                        "span_id": span_id,
                        "parent_id": _hex_id(span.get("parentSpanId"), 8),
                        "name": name[:MAX_NAME_CHARS],
                        "kind": span.get("kind") if isinstance(span.get("kind"), int) else 0,
                        "start": start,
                        "end": end if end is not None and end >= start else start,
                        "attributes": _attributes(span.get("attributes")),
                        "error": code in (2, "STATUS_CODE_ERROR"),
                        "status_message": message[:2000] if isinstance(message, str) else "",
                        "links": [_hex_id(link.get("spanId"), 8) for link in links if isinstance(link, dict)],
                    }


# --- spans → record -----------------------------------------------------------------------------


def _iso(ns: int) -> str:
    return datetime.fromtimestamp(ns / 1e9, tz=timezone.utc).isoformat(timespec="microseconds")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _num(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else 0


def _role(span: Mapping[str, Any]) -> str:
    attrs = span["attributes"]
    operation = _str(attrs.get("gen_ai.operation.name")) or ""
    kind = (_str(attrs.get("openinference.span.kind")) or "").upper()
    if operation == "invoke_agent" or kind == "AGENT":
        return "agent"
    if operation in ("chat", "text_completion", "generate_content") or kind == "LLM":
        return "chat"
    if operation == "execute_tool" or kind == "TOOL":
        return "tool"
    return "other"


def import_run_id(trace_id: str, start_ns: int) -> str:
    """A UUIDv7 for an imported trace: its start time, and bits from the trace id (stable)."""
    ms = max(0, start_ns // 1_000_000) & ((1 << 48) - 1)
    bits = int.from_bytes(hashlib.sha256(f"otlp-import:{trace_id}".encode()).digest()[:10], "big")
    value = ms << 80 | 0x7 << 76 | ((bits >> 68) & 0xFFF) << 64 | 0b10 << 62 | (bits & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def _approval(attrs: Mapping[str, Any], arguments: Any) -> dict[str, Any]:
    """A call's ``approval`` from its span (the arguments the model asked for only with content)."""
    wait = attrs.get(_PREFIX + "approval.wait_ms")
    decision = _str(attrs.get(_PREFIX + "approval.decision"))
    original = _arguments({"input.value": attrs.get(_PREFIX + "approval.original_arguments")})
    return {
        "policy": "blocked" if attrs.get(_PREFIX + "approval.policy") == "blocked" else "ask",
        "decision": decision,
        "original_arguments": original if decision == "edited" else arguments,
        "arguments": None if decision in ("rejected", "stopped") else arguments,
        "reason": _str(attrs.get(_PREFIX + "approval.reason")),
        "by": _str(attrs.get(_PREFIX + "approval.by")) or "unknown",
        "wait_ms": float(wait) if isinstance(wait, (int, float)) and wait >= 0 else 0.0,
    }


def _arguments(attrs: Mapping[str, Any]) -> Any:
    raw = attrs.get("gen_ai.tool.call.arguments", attrs.get("input.value"))
    if not isinstance(raw, str):
        return raw if isinstance(raw, dict) else ({} if raw is None else str(raw))
    mime = _str(attrs.get("input.mime_type"))
    if mime == "text/plain":
        return raw
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return raw
    return parsed if isinstance(parsed, dict) or mime == "application/json" else raw


def _attempts(children: list[dict[str, Any]], *, model: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for child in sorted(children, key=lambda c: (_num(c["attributes"].get(_PREFIX + "attempt")), c["start"])):
        attrs = child["attributes"]
        ok = not child["error"]
        duration = attrs.get(_PREFIX + "duration_ms")
        entry: dict[str, Any] = {
            "attempt": _num(attrs.get(_PREFIX + "attempt")) or len(out) + 1,
            "success": ok,
        }
        if model:
            if not ok:
                entry["error_type"] = _str(attrs.get("error.type")) or "error"
                message = _str(attrs.get(_PREFIX + "error.message"))
                if message is not None:
                    entry["message"] = message
        else:
            entry["error"] = None if ok else _str(attrs.get(_PREFIX + "error.message")) or _str(attrs.get("error.type"))
            category = _str(attrs.get(_PREFIX + "error_category"))
            entry["error_category"] = category if category in _CATEGORIES else (None if ok else "non_transient")
        entry["duration_ms"] = (
            float(duration) if isinstance(duration, (int, float)) else (child["end"] - child["start"]) / 1e6
        )
        wait = attrs.get(_PREFIX + "retry_wait_s")
        entry["wait_s"] = float(wait) if isinstance(wait, (int, float)) and wait >= 0 else 0.0
        out.append(entry)
    return out


def trace_to_record(spans: list[dict[str, Any]], *, source: str = "") -> dict[str, Any]:
    """One trace's spans as a run record (``imported_from: "otlp"``)."""
    spans = sorted(spans, key=lambda s: (s["start"], s["span_id"]))
    by_id = {s["span_id"]: s for s in spans}
    children: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        if span["parent_id"] in by_id:
            children.setdefault(span["parent_id"], []).append(span)
    roles = {s["span_id"]: _role(s) for s in spans}
    roots = [s for s in spans if s["parent_id"] not in by_id]
    agents = [s for s in spans if roles[s["span_id"]] == "agent"]
    root = agents[0] if agents else (roots[0] if roots else spans[0])
    ra = root["attributes"] if roles[root["span_id"]] == "agent" else {}

    def is_attempt(span: dict[str, Any]) -> bool:
        parent = by_id.get(span["parent_id"] or "")
        return (
            (_PREFIX + "attempt") in span["attributes"]
            and parent is not None
            and roles[parent["span_id"]] in ("chat", "tool")
        )

    used = {root["span_id"]}
    chats = [s for s in spans if roles[s["span_id"]] == "chat" and not is_attempt(s)]
    # Steps of one millisecond share a start time: our own step number orders them when present.
    chats.sort(key=lambda s: (_num(s["attributes"].get(_PREFIX + "step")) or 0, s["start"], s["span_id"]))
    tools = [s for s in spans if roles[s["span_id"]] == "tool" and not is_attempt(s)]
    fallbacks = {}
    for span in tools:
        of = _str(span["attributes"].get(_PREFIX + "fallback_of"))
        if of is not None:
            fallbacks[of] = span

    model = _str(ra.get("gen_ai.request.model"))
    steps: list[dict[str, Any]] = []
    for number, chat in enumerate(chats, 1):
        attrs = chat["attributes"]
        used.add(chat["span_id"])
        model = model or _str(attrs.get("gen_ai.request.model")) or _str(attrs.get("llm.model_name"))
        attempt_spans = [c for c in children.get(chat["span_id"], []) if is_attempt(c)]
        used.update(c["span_id"] for c in attempt_spans)
        attempts = (
            _attempts(attempt_spans, model=True)
            if attempt_spans
            else [
                {"attempt": 1, "success": not chat["error"], "duration_ms": (chat["end"] - chat["start"]) / 1e6}
                | ({} if not chat["error"] else {"error_type": _str(attrs.get("error.type")) or "error"})
            ]
        )
        inp = _num(attrs.get("gen_ai.usage.input_tokens", attrs.get("llm.token_count.prompt")))
        out = _num(attrs.get("gen_ai.usage.output_tokens", attrs.get("llm.token_count.completion")))
        reasons = attrs.get("gen_ai.response.finish_reasons")
        stop = reasons[0] if isinstance(reasons, list) and reasons and isinstance(reasons[0], str) else None
        duration = attrs.get(_PREFIX + "duration_ms")
        step: dict[str, Any] = {
            "index": _num(attrs.get(_PREFIX + "step")) or number,
            "started_at": _iso(chat["start"]),
            "duration_ms": float(duration)
            if isinstance(duration, (int, float))
            else (chat["end"] - chat["start"]) / 1e6,
            "model_duration_ms": (chat["end"] - chat["start"]) / 1e6,
            "model_attempts": attempts,
            "usage": {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out},
            "blocks_sent": [b for b in attrs.get(_PREFIX + "blocks_sent") or [] if isinstance(b, int)],
            "blocks_trimmed": [b for b in attrs.get(_PREFIX + "blocks_trimmed") or [] if isinstance(b, int)],
            "tool_call_ids": [],
            "stop_reason": stop or _str(attrs.get("llm.finish_reason")),
        }
        text = _str(attrs.get("output.value"))
        if text is not None:
            step["text"] = text
        steps.append(step)

    def step_of(span: dict[str, Any]) -> int:
        explicit = _num(span["attributes"].get(_PREFIX + "step"))
        if explicit:
            return explicit
        earlier = [s for s, c in zip(steps, chats) if c["start"] <= span["start"]]
        return earlier[-1]["index"] if earlier else (steps[0]["index"] if steps else 1)

    calls: list[dict[str, Any]] = []
    for span in tools:
        attrs = span["attributes"]
        if _str(attrs.get(_PREFIX + "fallback_of")) is not None:
            continue
        used.add(span["span_id"])
        tool = (
            _str(attrs.get("gen_ai.tool.name"))
            or _str(attrs.get("tool.name"))
            or span["name"].removeprefix("execute_tool ").strip()
            or "unknown"
        )[:MAX_NAME_CHARS]
        call_id = (_str(attrs.get("gen_ai.tool.call.id")) or _str(attrs.get("tool.id")) or span["span_id"])[:200]
        ok = not span["error"]
        attempt_spans = [c for c in children.get(span["span_id"], []) if is_attempt(c)]
        used.update(c["span_id"] for c in attempt_spans)
        category = _str(attrs.get(_PREFIX + "error_category"))
        if category not in _CATEGORIES:
            kind = (_str(attrs.get("error.type")) or "").lower()
            category = None if ok else ("timeout" if "timeout" in kind else "non_transient")
        if (_PREFIX + "attempts") in attrs:
            attempts = _attempts(attempt_spans, model=False)
        else:
            attempts = [
                {
                    "attempt": 1,
                    "success": ok,
                    "error": None if ok else (span["status_message"] or "error"),
                    "error_category": category,
                    "duration_ms": (span["end"] - span["start"]) / 1e6,
                    "wait_s": 0.0,
                }
            ]
        output = attrs.get("output.value", attrs.get("gen_ai.tool.call.result"))
        output = output if isinstance(output, str) else ("" if output is None else json.dumps(output, default=str))
        error = _str(attrs.get(_PREFIX + "error.message"))
        if not ok and error is None:
            error = span["status_message"] or _str(attrs.get("error.type")) or "error"
        duration = attrs.get(_PREFIX + "duration_ms")
        call: dict[str, Any] = {
            "call_id": call_id,
            "step": step_of(span),
            "tool": tool,
            "arguments": _arguments(attrs),
            "success": ok,
            "output": output,
            "error": None if ok else error,
            "error_category": category,
            "attempts": attempts,
            "fallback": None,
            "duplicate": attrs.get(_PREFIX + "duplicate") is True,
            "truncated": attrs.get(_PREFIX + "truncated") is True,
            "duration_ms": float(duration)
            if isinstance(duration, (int, float)) and duration >= 0
            else (span["end"] - span["start"]) / 1e6,
            "started_at": _iso(span["start"]),
        }
        if attrs.get(_PREFIX + "cancelled") is True:
            call["cancelled"] = True
        if isinstance(attrs.get(_PREFIX + "approval.decision"), str):
            call["approval"] = _approval(attrs, call["arguments"])
        if attrs.get(_PREFIX + "origin") in ("model", "harness"):
            call["origin"] = attrs[_PREFIX + "origin"]
            if call["origin"] == "harness" and isinstance(attrs.get(_PREFIX + "harness_rule"), str):
                call["harness_rule"] = attrs[_PREFIX + "harness_rule"]
        fb = fallbacks.get(call_id) or next((f for f in fallbacks.values() if span["span_id"] in f["links"]), None)
        if fb is not None:
            used.add(fb["span_id"])
            fb_attempt_spans = [c for c in children.get(fb["span_id"], []) if is_attempt(c)]
            used.update(c["span_id"] for c in fb_attempt_spans)
            fb_ok = fb["attributes"].get(_PREFIX + "fallback_success")
            fb_ok = fb_ok if isinstance(fb_ok, bool) else not fb["error"]
            last = attempts[-1] if attempts else {}
            call["fallback"] = {
                "tool": (_str(fb["attributes"].get("gen_ai.tool.name")) or "unknown")[:MAX_NAME_CHARS],
                "success": fb_ok,
                "error": None if fb_ok else _str(fb["attributes"].get(_PREFIX + "error.message")),
                "reason": last.get("error") or "",
                "reason_category": last.get("error_category") or "non_transient",
                "attempts": _attempts(fb_attempt_spans, model=False),
            }
        calls.append(call)
    for step in steps:
        step["tool_call_ids"] = [c["call_id"] for c in calls if c["step"] == step["index"]]

    notes = []
    for span in spans:
        if span["span_id"] in used or is_attempt(span):
            continue
        notes.append(
            {
                "name": span["name"],
                "span_id": span["span_id"],
                "kind": span["kind"],
                "started_at": _iso(span["start"]),
                "duration_ms": (span["end"] - span["start"]) / 1e6,
                "attributes": {
                    k: (v if isinstance(v, (str, int, float, bool)) or v is None else json.dumps(v, default=str)[:2000])
                    for k, v in list(span["attributes"].items())[:50]
                },
            }
        )
        if len(notes) >= MAX_NOTES:
            break

    usage_in = ra.get(_PREFIX + "usage.input_tokens")
    usage_out = ra.get(_PREFIX + "usage.output_tokens")
    inp = _num(usage_in) if usage_in is not None else sum(s["usage"]["input_tokens"] for s in steps)
    out = _num(usage_out) if usage_out is not None else sum(s["usage"]["output_tokens"] for s in steps)
    status = _str(ra.get(_PREFIX + "status"))
    if status not in STATUSES:
        status = "error" if root["error"] else "completed"
    run_error: dict[str, Any] | None = None
    if status == "error":
        run_error = {
            "type": _str(ra.get("error.type")) or "error",
            "message": _str(ra.get(_PREFIX + "error.message")) or root["status_message"] or "the trace ended in error",
        }
    start, end = root["start"], max(root["end"], max(s["end"] for s in spans))
    provider = (
        _str(ra.get(_PREFIX + "provider"))
        or _str(ra.get("gen_ai.provider.name"))
        or next(
            (
                _str(c["attributes"].get("gen_ai.provider.name")) or _str(c["attributes"].get("llm.provider"))
                for c in chats
                if c["attributes"].get("gen_ai.provider.name") or c["attributes"].get("llm.provider")
            ),
            None,
        )
        or "otlp"
    )
    goal = (
        _str(ra.get("input.value"))
        or _str(root["attributes"].get("input.value"))
        or f"(imported trace {root['trace_id']})"
    )
    answer = _str(ra.get("output.value")) or _str(root["attributes"].get("output.value"))
    record: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "run_id": import_run_id(root["trace_id"], start),
        "goal": goal,
        "provider": provider[:MAX_NAME_CHARS],
        "provider_label": "imported from an OTLP trace",
        "model": (model or "unknown")[:MAX_NAME_CHARS],
        "status": status,
        "settings": {
            "max_steps": max(1, len(steps)),
            "max_context_blocks": 1,
            "max_tool_output_chars": 4000,
            "tools": sorted({c["tool"] for c in calls}),
        },
        "started_at": _iso(start),
        "updated_at": _iso(end),
        "finished_at": _iso(end),
        "duration_ms": float(ra[_PREFIX + "duration_ms"])
        if isinstance(ra.get(_PREFIX + "duration_ms"), (int, float))
        else (end - start) / 1e6,
        "answer": answer if status == "completed" or answer else None,
        "error": run_error,
        "usage": {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out},
        "cost_usd": float(ra[_PREFIX + "cost_usd"])
        if isinstance(ra.get(_PREFIX + "cost_usd"), (int, float)) and ra[_PREFIX + "cost_usd"] >= 0
        else None,
        "steps": steps,
        "context_blocks": [],
        "tool_calls": calls,
        "history": [{"role": "user", "content": goal}] + ([{"role": "assistant", "content": answer}] if answer else []),
        "imported_from": "otlp",
        "import_source": {
            "format": "otlp",
            "file": source[:MAX_NAME_CHARS],
            "trace_id": root["trace_id"],
            "source_run_id": _str(ra.get("gen_ai.conversation.id")),
            "notes": notes,
        },
    }
    if ra.get(_PREFIX + "scripted") is True:
        record["scripted"] = True
    for key in ("replay_of", "arena_id", "eval_id", "eval_goal_id"):
        value = _str(ra.get(_PREFIX + key))
        if value is not None:
            record[key] = value[:MAX_NAME_CHARS]
    return record


def parse_otlp(data: bytes, name: str = "file") -> list[dict[str, Any]]:
    """Every trace in an OTLP JSON file as a run record; :class:`ImportError_` when none can be read."""
    requests = read_requests(data, name)
    traces: dict[str, list[dict[str, Any]]] = {}
    for span in iter_spans(requests):
        traces.setdefault(span["trace_id"], []).append(span)
    if not traces:
        raise ImportError_(f"{name}: no readable spans (each needs a hex traceId, spanId and start time)")
    return [trace_to_record(spans, source=name) for spans in traces.values()]


def import_file(path: Path | str, runs_dir: Path) -> list[tuple[str, str]]:
    """Import a file into ``runs_dir``; (run_id, "imported" | "already imported") per trace."""
    from agent_core.records.files import record_path, save_record

    path = Path(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ImportError_(f"{path.name}: larger than {MAX_FILE_BYTES // 2**20} MB")
        data = path.read_bytes()
    except OSError as exc:
        raise ImportError_(f"{path.name}: cannot read ({exc.strerror or exc})") from None
    out = []
    for record in parse_otlp(data, path.name):
        if record_path(runs_dir, record["run_id"]).exists():
            out.append((record["run_id"], "already imported"))
            continue
        save_record(record, runs_dir)
        out.append((record["run_id"], "imported"))
    return out
