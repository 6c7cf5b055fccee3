"""Tables the dashboard draws: tool statistics, and the detail tables of one run.

Everything here takes records or the :class:`agent_core.records.store.RunStore` frames and returns
pandas DataFrames, so pages only display.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd

from agent_core.records.decided import origin_label

ERROR_CATEGORIES = ("validation", "transient", "non_transient", "timeout", "duplicate")
ORIGIN_COLUMNS = {"by_model": "model", "by_harness": "harness"}
"""Calls counted by who chose them (the call's ``origin``); calls of older runs, which did not
record it, are in neither."""
COUNT_COLUMNS = [
    "calls",
    *ORIGIN_COLUMNS,
    "retried",
    "fallbacks",
    "duplicates",
    *[f"err_{c}" for c in ERROR_CATEGORIES],
]
"""The whole-number columns of a Tool-stats table."""
STATS_COLUMNS = [
    "calls",
    *ORIGIN_COLUMNS,
    "success_rate",
    "p50_ms",
    "p95_ms",
    "mean_ms",
    "retried",
    "fallbacks",
    "duplicates",
    *[f"err_{c}" for c in ERROR_CATEGORIES],
]
"""A Tool-stats table's columns after its group columns (both backends)."""


def call_failed(call: dict[str, Any]) -> bool:
    """A tool call that did not succeed; one that a Stop cut short (``cancelled``) is not the
    tool's failure."""
    return not call.get("success") and not call.get("cancelled")


def tool_stats(calls: pd.DataFrame, by: Sequence[str] = ("tool",)) -> pd.DataFrame:
    """Per group: calls, how many the model chose and how many the workbench made for it,
    success rate, p50/p95/mean duration, retries, fallbacks, duplicates, and a column per
    error category."""
    by = list(by)
    columns = by + STATS_COLUMNS
    if calls.empty:
        return pd.DataFrame(columns=columns)
    origin = calls["origin"].astype("object") if "origin" in calls.columns else pd.Series(None, index=calls.index)
    df = calls.assign(
        **{name: origin.eq(value) for name, value in ORIGIN_COLUMNS.items()},
        _ok=calls["success"].astype(bool),
        _retried=calls["retried"].astype(bool),
        _fallback=calls["fallback"].notna(),
        _dup=calls["duplicate"].astype(bool),
        _ms=pd.to_numeric(calls["duration_ms"], errors="coerce"),
    )
    grouped = df.groupby(by, dropna=False, sort=True)
    out = grouped.agg(
        calls=("_ok", "size"),
        **{name: (name, "sum") for name in ORIGIN_COLUMNS},
        success_rate=("_ok", "mean"),
        mean_ms=("_ms", "mean"),
        retried=("_retried", "sum"),
        fallbacks=("_fallback", "sum"),
        duplicates=("_dup", "sum"),
    )
    # Vectorised per-group quantiles (a lambda per group costs ~1 ms each at 10k runs).
    out["p50_ms"] = grouped["_ms"].quantile(0.5)
    out["p95_ms"] = grouped["_ms"].quantile(0.95)
    cats = (
        df[df["error_category"].notna() & ~df["_ok"]]
        .groupby(by + ["error_category"], dropna=False)
        .size()
        .unstack("error_category", fill_value=0)
    )
    for cat in ERROR_CATEGORIES:
        out[f"err_{cat}"] = cats[cat] if cat in cats.columns else 0
    out = out.fillna({f"err_{c}": 0 for c in ERROR_CATEGORIES}).reset_index()
    for col in COUNT_COLUMNS[1:]:
        out[col] = out[col].astype(int)
    return out[columns].sort_values("calls", ascending=False, kind="stable").reset_index(drop=True)


def summary(calls: pd.DataFrame, tool: str | None = None) -> dict[str, Any]:
    """Seed 001's execution summary: total calls, success rate, average duration (by tool)."""
    df = calls if tool is None else calls[calls["tool"] == tool]
    total = int(len(df))
    if not total:
        return {"total_calls": 0, "success_rate": None, "avg_duration_ms": None}
    return {
        "total_calls": total,
        "success_rate": float(df["success"].astype(bool).mean()),
        "avg_duration_ms": round(float(pd.to_numeric(df["duration_ms"], errors="coerce").mean()), 3),
    }


def steps_frame(record: dict[str, Any]) -> pd.DataFrame:
    """One row per step: timing, attempts, tokens, blocks sent/trimmed, tool calls."""
    rows = []
    for step in record.get("steps") or []:
        usage = step.get("usage") or {}
        attempts = step.get("model_attempts") or []
        rows.append(
            {
                "step": step.get("index"),
                "duration_ms": step.get("duration_ms"),
                "model_ms": step.get("model_duration_ms"),
                "model_attempts": len(attempts),
                "input_tokens": usage.get("input_tokens", 0),
                "output_tokens": usage.get("output_tokens", 0),
                "blocks_sent": ", ".join(str(b) for b in step.get("blocks_sent") or []) or "—",
                "blocks_trimmed": ", ".join(str(b) for b in step.get("blocks_trimmed") or []) or "—",
                "tool_calls": len(step.get("tool_call_ids") or []),
                "model_text": (step.get("text") or "")[:300],
            }
        )
    return pd.DataFrame(rows)


def context_ledger(record: dict[str, Any]) -> pd.DataFrame:
    """A row per context block, a column per step: "sent", "trimmed" or "" (not yet made).

    This is what the model saw at each step.
    """
    blocks = record.get("context_blocks") or []
    steps = record.get("steps") or []
    rows = []
    for block in blocks:
        items = block.get("items") or []
        tools = [i.get("tool") for i in items if i.get("kind") == "tool_call"]
        row: dict[str, Any] = {
            "block": block.get("index"),
            "made_in_step": block.get("step"),
            "contents": ", ".join(str(t) for t in tools) or "text",
            "chars": block.get("chars"),
        }
        for step in steps:
            label = f"step {step.get('index')}"
            if block.get("index") in (step.get("blocks_sent") or []):
                row[label] = "sent"
            elif block.get("index") in (step.get("blocks_trimmed") or []):
                row[label] = "trimmed"
            else:
                row[label] = ""
        rows.append(row)
    return pd.DataFrame(rows)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tool_calls_frame(record: dict[str, Any]) -> pd.DataFrame:
    """The run's execution log: one row per tool call (with ``approval`` and ``approval_wait_ms``
    when a call of the run needed one)."""
    rows = []
    asked = any(isinstance(c.get("approval"), dict) for c in record.get("tool_calls") or [])
    for call in record.get("tool_calls") or []:
        attempts = call.get("attempts") or []
        fallback = call.get("fallback")
        rows.append(
            {
                "step": call.get("step"),
                "call_id": call.get("call_id"),
                "tool": call.get("tool"),
                "decided_by": origin_label(call.get("origin")),
                "arguments": _short(call.get("arguments")),
                "success": bool(call.get("success")),
                "result": _short(call.get("output")),
                "error": call.get("error") or "",
                "category": call.get("error_category") or "",
                "attempts": len(attempts) if isinstance(attempts, list) else attempts,
                "fallback": (fallback or {}).get("tool", "") if isinstance(fallback, dict) else (fallback or ""),
                "duplicate": bool(call.get("duplicate")),
                "truncated": bool(call.get("truncated")),
                "duration_ms": call.get("duration_ms"),
                "started_at": call.get("started_at"),
            }
        )
        if asked:
            approval = call.get("approval") if isinstance(call.get("approval"), dict) else {}
            rows[-1]["approval"] = approval_words(approval)
            rows[-1]["approval_wait_ms"] = approval.get("wait_ms")
    return pd.DataFrame(rows)


def approval_words(approval: dict[str, Any]) -> str:
    """A call's approval in a few words: "edited by a person, on the Run page" ('' when none)."""
    if not approval:
        return ""
    if approval.get("policy") == "blocked":
        return "blocked (its policy)"
    reason = f" — {_short(approval['reason'], 120)}" if approval.get("reason") else ""
    return f"{approval.get('decision')} by {approval.get('by')}{reason}"


def transcript_frame(record: dict[str, Any]) -> pd.DataFrame:
    """The transcript (system, user, assistant, tool messages) as a table."""
    rows = []
    for n, message in enumerate(record.get("history") or []):
        content = message.get("content") or ""
        calls = message.get("tool_calls")
        if calls:
            content = (content + "\n" if content else "") + "; ".join(
                f"{c.get('tool')}({_short(c.get('arguments'), 200)})" for c in calls
            )
        rows.append({"#": n, "role": message.get("role"), "content": content, "tool": message.get("tool") or ""})
    return pd.DataFrame(rows)
