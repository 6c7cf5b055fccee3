"""Compare 2–6 runs: a header with deltas against a baseline, aligned steps, the first divergence
and a side-by-side context ledger.

Everything works on :mod:`agent_core.analysis.trajectory`, so it reads any record (every provider writes
the same one). :func:`compare` returns a :class:`Comparison`; ``as_dict()`` is the JSON the CLI
prints and the page downloads.

The **first divergence** walks two trajectories event by event (an event is a tool call, or the
final answer / stop) and names the first position where they differ, and why:

``different_tool``       the runs called different tools
``different_arguments``  the same tool with different arguments
``different_context``    the same call, but the model was sent (or had trimmed) other blocks
``different_result``     the same call returned something else
``different_answer``     the final answers differ, or one run answered while the other called a tool
``stopped``              one run stopped there (step limit, error, Stop) and the other did not
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.analysis.trajectory import ANSWER, STOP, TOOL_CALL, Action, Trajectory, as_mapping, trajectory
from agent_core.providers import tokens_estimated
from agent_core.records.outcome import outcome

MIN_RUNS, MAX_RUNS = 2, 6
CAUSES = (
    "different_tool",
    "different_arguments",
    "different_result",
    "different_answer",
    "stopped",
    "different_context",
)
CAUSE_LABELS = {
    "different_tool": "a different tool",
    "different_arguments": "the same tool with different arguments",
    "different_result": "the same call with a different result",
    "different_answer": "a different answer",
    "stopped": "one run stopped",
    "different_context": "different context sent or trimmed",
}
STOP_WORDS = {
    "max_steps": "hit the step limit",
    "error": "ended with an error",
    "cancelled": "was stopped",
    "interrupted": "was interrupted",
    "running": "is still running",
    "waiting_for_approval": "waits for a tool call's approval",
}
NUMERIC_FIELDS = (
    "steps",
    "tool_calls",
    "errors",
    "retries",
    "fallbacks",
    "duplicates",
    "tokens",
    "cost_usd",
    "duration_ms",
    "blocks_trimmed",
)


@dataclass(frozen=True)
class Divergence:
    """Where run ``other`` first differs from the baseline: 1-based event position and cause."""

    step: int
    cause: str
    sentence: str
    run_id: str
    label: str
    loop_step: int
    """The other run's loop step (model turn) at that event."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "cause": self.cause,
            "sentence": self.sentence,
            "run_id": self.run_id,
            "label": self.label,
            "loop_step": self.loop_step,
        }


def run_label(position: int) -> str:
    """``A``, ``B`` … for the runs in the order they were given."""
    return string.ascii_uppercase[position] if position < 26 else f"#{position + 1}"


def header(record: Mapping[str, Any]) -> dict[str, Any]:
    """The header values of one run."""
    calls = [c for c in record.get("tool_calls") or [] if isinstance(c, dict)]
    steps = [s for s in record.get("steps") or [] if isinstance(s, dict)]
    errors: dict[str, int] = {}
    retries = 0
    for call in calls:
        if not call.get("success") and not call.get("cancelled"):
            category = str(call.get("error_category") or "other")
            errors[category] = errors.get(category, 0) + 1
        attempts = call.get("attempts")
        if isinstance(attempts, list) and len(attempts) > 1:
            retries += len(attempts) - 1
    for step in steps:
        attempts = step.get("model_attempts")
        if isinstance(attempts, list) and len(attempts) > 1:
            retries += len(attempts) - 1
    trimmed: set[int] = set()
    for step in steps:
        trimmed.update(b for b in step.get("blocks_trimmed") or [] if isinstance(b, int))
    usage = as_mapping(record.get("usage"))
    grounding = record.get("grounding") if isinstance(record.get("grounding"), dict) else None
    cost = record.get("cost_usd")
    return {
        "goal": str(record.get("goal") or ""),
        "outcome": outcome(record)[0],
        "tokens_estimated": tokens_estimated(str(record.get("provider") or "")),
        "status": str(record.get("status_shown") or record.get("status") or ""),
        "error_type": str(record["error"].get("type") or "") if isinstance(record.get("error"), dict) else None,
        "provider": str(record.get("provider") or ""),
        "model": str(record.get("model") or ""),
        "steps": len(steps),
        "tool_calls": len(calls),
        "errors": sum(errors.values()),
        "errors_by_category": dict(sorted(errors.items())),
        "retries": retries,
        "fallbacks": sum(1 for c in calls if c.get("fallback")),
        "duplicates": sum(1 for c in calls if c.get("duplicate")),
        "tokens": int(usage.get("total_tokens") or 0),
        "cost_usd": float(cost) if isinstance(cost, (int, float)) else None,
        "duration_ms": record.get("duration_ms") if isinstance(record.get("duration_ms"), (int, float)) else None,
        "blocks_trimmed": len(trimmed),
        "grounding": str(grounding.get("status")) if grounding and grounding.get("status") else None,
        "answer": record.get("answer") if isinstance(record.get("answer"), str) else None,
        "replay_of": record.get("replay_of"),
        "tool_mode": record.get("tool_mode"),
        "arena_id": record.get("arena_id"),
    }


def deltas(values: Mapping[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    """Numeric fields: value − baseline (None when either is unknown); others: same or not."""
    out: dict[str, Any] = {}
    for key in NUMERIC_FIELDS:
        a, b = values.get(key), base.get(key)
        out[key] = None if a is None or b is None else round(a - b, 6)
    if values.get("tokens_estimated") or base.get("tokens_estimated"):
        out["tokens"] = None  # an estimate against a count (or another estimate) says nothing
    for key in ("status", "provider", "model", "grounding", "answer"):
        out[key] = "same" if values.get(key) == base.get(key) else "differs"
    return out


# --- alignment -----------------------------------------------------------------------------------


def lcs_pairs(a: Sequence[str], b: Sequence[str]) -> list[tuple[int | None, int | None]]:
    """Align two key sequences by their longest common subsequence.

    Returns (index in a, index in b) pairs in order; ``None`` on one side is a gap (an event only in
    the other run). Ties prefer keeping the events of ``a`` first.
    """
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        for j in range(m - 1, -1, -1):
            row[j] = below[j + 1] + 1 if a[i] == b[j] else max(below[j], row[j + 1])
    pairs: list[tuple[int | None, int | None]] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i += 1
            j += 1
        elif table[i + 1][j] >= table[i][j + 1]:
            pairs.append((i, None))
            i += 1
        else:
            pairs.append((None, j))
            j += 1
    pairs.extend((k, None) for k in range(i, n))
    pairs.extend((None, k) for k in range(j, m))
    return pairs


def align(
    trajectories: Sequence[Trajectory], baseline: int, *, ignore_arguments: bool = False
) -> list[list[int | None]]:
    """Rows of event indexes, one column per run, aligned on the baseline (star alignment).

    Each other run is aligned to the baseline by LCS on the tool-call signature; events only in
    one run get rows of their own (next to the other runs' extra events at the same place).
    """
    run_keys = [t.keys(ignore_arguments=ignore_arguments) for t in trajectories]
    base_keys = run_keys[baseline]
    n = len(base_keys)
    # For each other run: its event matched to each baseline event, and its extras before each one.
    matched: dict[int, list[int | None]] = {}
    extras: dict[int, list[list[int]]] = {}
    for r in range(len(trajectories)):
        if r == baseline:
            continue
        match: list[int | None] = [None] * n
        gaps: list[list[int]] = [[] for _ in range(n + 1)]
        position = 0
        for i, j in lcs_pairs(base_keys, run_keys[r]):
            if i is not None:
                match[i] = j
                position = i + 1
            elif j is not None:
                gaps[position].append(j)
        matched[r], extras[r] = match, gaps
    rows: list[list[int | None]] = []
    width = len(trajectories)
    row: list[int | None]
    for g in range(n + 1):
        # Extra events at this place: the same call in several runs shares a row; others get their own.
        gap_rows: list[list[int | None]] = []
        gap_keys: list[str] = []
        for r in extras:
            keys = run_keys[r]
            start = 0
            for j in extras[r][g]:
                spot = next(
                    (x for x in range(start, len(gap_rows)) if gap_keys[x] == keys[j] and gap_rows[x][r] is None), None
                )
                if spot is None:
                    gap_rows.append([None] * width)
                    gap_keys.append(keys[j])
                    spot = len(gap_rows) - 1
                gap_rows[spot][r] = j
                start = spot + 1
        rows.extend(gap_rows)
        if g < n:
            row = [None] * width
            row[baseline] = g
            for r in matched:
                row[r] = matched[r][g]
            rows.append(row)
    return rows


# --- first divergence ----------------------------------------------------------------------------


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _did(event: Action) -> str:
    if event.kind == TOOL_CALL:
        return f"calling {event.tool}"
    if event.kind == ANSWER:
        return "giving its final answer"
    return _stop_words(event)


def _stop_words(event: Action) -> str:
    words = STOP_WORDS.get(event.status, f"stopped ({event.status})")
    return words + (f" ({event.reason})" if event.reason and event.status == "error" else "")


def _cause(a: Action, b: Action) -> str | None:
    """Why event ``b`` differs from ``a`` (None when they are the same)."""
    if a.kind != b.kind:
        return "stopped" if STOP in (a.kind, b.kind) else "different_answer"
    if a.kind == TOOL_CALL:
        if a.tool != b.tool:
            return "different_tool"
        if a.arguments != b.arguments:
            return "different_arguments"
    if a.kind == STOP and (a.status, a.reason) != (b.status, b.reason):
        return "stopped"
    if a.context != b.context:
        return "different_context"
    if a.kind == TOOL_CALL and (a.result, a.success) != (b.result, b.success):
        return "different_result"
    if a.kind == ANSWER and a.result != b.result:
        return "different_answer"
    return None


def _sentence(k: int, cause: str, a: Action, b: Action, la: str, lb: str) -> str:
    same = k - 1
    if same == 0:
        prefix = "The runs differ from the first step: "
    else:
        prefix = f"Both runs did the same for {same} step{'s' if same != 1 else ''}; at step {k} "
    if cause == "different_tool":
        what = f"run {lb} called {b.tool} instead of {a.tool}."
    elif cause == "different_arguments":
        what = (
            f"run {lb} called {b.tool} with different arguments ({_short(b.arguments)} instead of "
            f"{_short(a.arguments)})."
        )
    elif cause == "different_context":
        what = (
            f"run {lb}'s model was sent different context ({b.context.describe()}; run {la}: "
            f"{a.context.describe()}) before {_did(b)}."
        )
    elif cause == "different_result":
        what = f"the same call to {b.tool} returned a different result in run {lb}."
    elif cause == "different_answer":
        if a.kind == b.kind:
            what = f"run {lb} gave a different final answer."
        else:
            what = f"run {lb} was {_did(b)} instead of {_did(a)}."
    else:  # stopped
        if b.kind == STOP and a.kind == STOP:
            what = f"run {la} {_stop_words(a)} and run {lb} {_stop_words(b)}."
        elif b.kind == STOP:
            what = f"run {lb} {_stop_words(b)} instead of {_did(a)}."
        else:
            what = f"run {la} {_stop_words(a)} while run {lb} went on {_did(b)}."
    return prefix + what


def first_divergence(base: Trajectory, other: Trajectory, *, labels: tuple[str, str] = ("A", "B")) -> Divergence | None:
    """The first event position (1-based) where ``other`` differs from ``base``, or None."""
    for k, (a, b) in enumerate(zip(base.events, other.events), start=1):
        cause = _cause(a, b)
        if cause is not None:
            return Divergence(
                step=k,
                cause=cause,
                sentence=_sentence(k, cause, a, b, *labels),
                run_id=other.run_id,
                label=labels[1],
                loop_step=b.step,
            )
    if len(base.events) != len(other.events):  # cannot happen for records (each ends in one terminal event)
        k = min(len(base.events), len(other.events)) + 1
        longer = labels[1] if len(other.events) > len(base.events) else labels[0]
        return Divergence(
            step=k,
            cause="stopped",
            sentence=f"Both runs did the same for {k - 1} steps; then only run {longer} went on.",
            run_id=other.run_id,
            label=labels[1],
            loop_step=0,
        )
    return None


# --- context ledger diff ---------------------------------------------------------------------------


def context_diff(trajectories: Sequence[Trajectory], baseline: int) -> list[dict[str, Any]]:
    """Per loop step: each run's blocks sent and trimmed, and whether it differs from the baseline."""
    last = max((t.turns[-1].step for t in trajectories if t.turns), default=0)
    rows = []
    for step in range(1, last + 1):
        cells: list[dict[str, Any] | None] = []
        for traj in trajectories:
            turn = next((t for t in traj.turns if t.step == step), None)
            cells.append(
                None if turn is None else {"sent": list(turn.context.sent), "trimmed": list(turn.context.trimmed)}
            )
        base = cells[baseline]
        rows.append({"step": step, "cells": cells, "differs": [c != base for c in cells]})
    return rows


# --- the comparison ----------------------------------------------------------------------------------


@dataclass
class Comparison:
    """The result of :func:`compare`."""

    records: list[Mapping[str, Any]]
    trajectories: list[Trajectory]
    baseline: int
    ignore_arguments: bool
    headers: list[dict[str, Any]] = field(default_factory=list)
    rows: list[list[int | None]] = field(default_factory=list)
    divergences: list[Divergence | None] = field(default_factory=list)
    context: list[dict[str, Any]] = field(default_factory=list)

    @property
    def run_ids(self) -> list[str]:
        return [t.run_id for t in self.trajectories]

    @property
    def labels(self) -> list[str]:
        return [run_label(i) for i in range(len(self.trajectories))]

    @property
    def first(self) -> Divergence | None:
        """The earliest divergence from the baseline among the other runs."""
        found = [d for d in self.divergences if d is not None]
        return min(found, key=lambda d: d.step) if found else None

    def cell(self, row: list[int | None], run: int) -> Action | None:
        index = row[run]
        return None if index is None else self.trajectories[run].events[index]

    def row_differs(self, row: list[int | None]) -> list[bool]:
        """Per run: does this cell differ from the baseline's cell (gap, arguments, result)?"""
        base = self.cell(row, self.baseline)
        out = []
        for r in range(len(row)):
            event = self.cell(row, r)
            if event is None or base is None:
                out.append(event is not base)
            else:
                out.append((event.key(), event.result, event.success) != (base.key(), base.result, base.success))
        return out

    def as_dict(self) -> dict[str, Any]:
        base_id = self.run_ids[self.baseline]
        runs = []
        for r, (traj, values) in enumerate(zip(self.trajectories, self.headers)):
            div = self.divergences[r]
            runs.append(
                {
                    "label": self.labels[r],
                    "run_id": traj.run_id,
                    "baseline": r == self.baseline,
                    **values,
                    "deltas": deltas(values, self.headers[self.baseline]),
                    "first_divergence": div.as_dict() if div else None,
                }
            )
        alignment = []
        for n, row in enumerate(self.rows, start=1):
            differs = self.row_differs(row)
            cells = {}
            for r, run_id in enumerate(self.run_ids):
                event = self.cell(row, r)
                cells[run_id] = (
                    None if event is None else {"event": (row[r] or 0) + 1, **event.as_dict(), "differs": differs[r]}
                )
            alignment.append({"row": n, "cells": cells})
        first = self.first
        return {
            "baseline": base_id,
            "ignore_arguments": self.ignore_arguments,
            "runs": runs,
            "alignment": alignment,
            "first_divergence": first.as_dict() if first else None,
            "context": [
                {
                    "step": row["step"],
                    "runs": {rid: row["cells"][r] for r, rid in enumerate(self.run_ids)},
                    "differs": {rid: row["differs"][r] for r, rid in enumerate(self.run_ids)},
                }
                for row in self.context
            ],
        }


def check_count(n: int) -> None:
    """ValueError with a plain message unless 2–6 runs are given."""
    if n < MIN_RUNS:
        raise ValueError(f"Compare needs at least {MIN_RUNS} runs (got {n}).")
    if n > MAX_RUNS:
        raise ValueError(f"Compare takes at most {MAX_RUNS} runs at a time (got {n}).")


def compare(
    records: Sequence[Mapping[str, Any]], *, baseline: int | str = 0, ignore_arguments: bool = False
) -> Comparison:
    """Compare 2–6 run records against one of them (an index or a run id)."""
    check_count(len(records))
    trajectories = [trajectory(r) for r in records]
    if isinstance(baseline, str):
        ids = [t.run_id for t in trajectories]
        if baseline not in ids:
            raise ValueError(f"The baseline {baseline!r} is not one of the compared runs.")
        baseline = ids.index(baseline)
    if not 0 <= baseline < len(records):
        raise ValueError(f"baseline index {baseline} is out of range")
    result = Comparison(list(records), trajectories, baseline, ignore_arguments)
    result.headers = [header(r) for r in records]
    result.rows = align(trajectories, baseline, ignore_arguments=ignore_arguments)
    labels = result.labels
    result.divergences = [
        None if r == baseline else first_divergence(trajectories[baseline], t, labels=(labels[baseline], labels[r]))
        for r, t in enumerate(trajectories)
    ]
    result.context = context_diff(trajectories, baseline)
    return result
