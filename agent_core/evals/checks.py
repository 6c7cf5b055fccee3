"""Checks on one run record: the answer, the trajectory of tool calls, the run's limits.

:func:`check_run` returns one result per check: ``passed`` is True, False, or None for a check
that could not be decided (no judge available, cost unknown) — such a check counts neither way.
The ``judge`` check is decided by :mod:`agent_core.evals.judge`; here it is "not judged".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypedDict

from agent_core.evals.goalset import Check
from agent_core.evals.not_found import says_not_found

_NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?|(?<![\w.])[-−]?\.\d+")


class CheckResult(TypedDict):
    check: str
    kind: str
    passed: bool | None
    detail: str


def _result(check: Check, passed: bool | None, detail: str = "") -> CheckResult:
    return {"check": check.label(), "kind": check.kind, "passed": passed, "detail": detail}


def successful_calls(record: dict[str, Any]) -> list[str]:
    """Names of the run's successful tool calls, in order (a call its fallback answered counts)."""
    return [str(c.get("tool")) for c in record.get("tool_calls") or [] if c.get("success")]


def sequence_matches(calls: Sequence[str], expected: Sequence[str], mode: str) -> bool:
    """Whether ``calls`` (the run's successful calls, in order) match ``expected`` under ``mode``.

    ``strict``: exactly these calls in this order; ``in_order``: these calls in this order, others
    allowed between; ``any_order``: the same multiset; ``subset``: every call is in the list;
    ``superset``: every listed tool was called.
    """
    if mode == "strict":
        return list(calls) == list(expected)
    if mode == "in_order":
        it = iter(calls)
        return all(any(c == want for c in it) for want in expected)
    if mode == "any_order":
        return Counter(calls) == Counter(expected)
    if mode == "subset":
        allowed = set(expected)
        return all(c in allowed for c in calls)
    if mode == "superset":
        made = set(calls)
        return all(want in made for want in expected)
    raise ValueError(f"unknown tool_sequence mode {mode!r}")


def _same(expected: Any, actual: Any) -> bool:
    """Subset match: strings case-insensitive, numbers by value, mappings by their given keys."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and _same(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(map(_same, expected, actual))
    if isinstance(expected, str):
        return isinstance(actual, str) and expected.strip().casefold() == actual.strip().casefold()
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return float(expected) == float(actual)
    return bool(expected == actual)


def numbers_in(text: str) -> list[float]:
    """Every number written in ``text`` (thousands separators allowed)."""
    found = []
    for match in _NUMBER.finditer(text):
        raw = match.group().replace(",", "").replace("−", "-")
        try:
            found.append(float(raw))
        except ValueError:
            continue
    return found


def tool_errors(record: dict[str, Any]) -> Counter[str]:
    """Tool errors by category: each failed attempt (a retried transient failure counts), and each
    call refused before running (validation, duplicate). A call cut short by Stop is not counted."""
    counts: Counter[str] = Counter()
    for call in record.get("tool_calls") or []:
        if call.get("cancelled"):
            continue
        attempts = [a for a in call.get("attempts") or [] if not a.get("success")]
        if attempts:
            for attempt in attempts:
                counts[str(attempt.get("error_category") or "non_transient")] += 1
        elif not call.get("success"):
            counts[str(call.get("error_category") or "non_transient")] += 1
    return counts


def _one(check: Check, record: dict[str, Any]) -> CheckResult:
    kind, arg = check.kind, check.arg
    answer = record.get("answer") or ""
    folded = answer.casefold()
    if kind == "answer_contains":
        missing = [s for s in arg if s.casefold() not in folded]
        return _result(check, not missing, f"missing: {', '.join(missing)}" if missing else "")
    if kind == "answer_contains_any":
        hit = [s for s in arg if s.casefold() in folded]
        return _result(check, bool(hit), "" if hit else "none of them in the answer")
    if kind == "answer_not_contains":
        hit = [s for s in arg if s.casefold() in folded]
        return _result(check, not hit, f"found: {', '.join(hit)}" if hit else "")
    if kind == "answer_regex":
        ok = re.search(arg, answer) is not None
        return _result(check, ok, "" if ok else "no match in the answer")
    if kind == "answer_number":
        numbers = numbers_in(answer)
        ok = any(abs(n - arg["value"]) <= arg["tolerance"] + 1e-12 for n in numbers)
        return _result(check, ok, "" if ok else f"numbers in the answer: {numbers[:8] or 'none'}")
    if kind == "answer_not_found":
        said = says_not_found(answer)
        return _result(
            check, said == arg, "" if said == arg else ("no 'not found' in the answer" if arg else "says 'not found'")
        )
    calls = successful_calls(record)
    if kind == "tool_used":
        missing = [t for t in arg if t not in calls]
        return _result(check, not missing, f"not called successfully: {', '.join(missing)}" if missing else "")
    if kind == "tool_used_any":
        ok = any(t in calls for t in arg)
        return _result(check, ok, "" if ok else f"none called successfully: {', '.join(arg)}")
    if kind == "tool_not_used":
        attempted = [str(c.get("tool")) for c in record.get("tool_calls") or []]
        used = [t for t in arg if t in attempted]
        return _result(check, not used, f"called: {', '.join(used)}" if used else "")
    if kind == "tool_sequence":
        ok = sequence_matches(calls, arg["tools"], arg["mode"])
        return _result(check, ok, "" if ok else f"calls: [{', '.join(calls)}]")
    if kind == "tool_args":
        for call in record.get("tool_calls") or []:
            if call.get("success") and call.get("tool") == arg["tool"] and _same(arg["args"], call.get("arguments")):
                return _result(check, True)
        seen = [c.get("arguments") for c in record.get("tool_calls") or [] if c.get("tool") == arg["tool"]]
        return _result(check, False, f"{arg['tool']} calls had: {seen[:3]}" if seen else f"{arg['tool']} not called")
    if kind == "max_tool_errors":
        errors = tool_errors(record)
        if isinstance(arg, int):
            total = sum(errors.values())
            return _result(check, total <= arg, f"{total} tool error(s)" if total > arg else "")
        over = [f"{cat} {errors[cat]} > {limit}" for cat, limit in arg.items() if errors[cat] > limit]
        return _result(check, not over, "; ".join(over))
    if kind == "max_steps":
        steps = len(record.get("steps") or [])
        return _result(check, steps <= arg, f"{steps} steps" if steps > arg else "")
    if kind == "max_cost_usd":
        cost = record.get("cost_usd")
        if cost is None:
            return _result(check, None, "cost unknown")
        return _result(check, cost <= arg, f"cost ${cost:.4f}" if cost > arg else "")
    if kind == "status":
        status = record.get("status")
        return _result(check, status in arg, "" if status in arg else f"status {status}")
    if kind == "grounded":
        grounding = record.get("grounding")
        if not isinstance(grounding, dict) or "status" not in grounding:
            return _result(check, False, "not checked (the run has no grounding result)")
        status = grounding.get("status")
        ok = status in ("grounded", "no_claims")
        return _result(check, ok, "" if ok else f"grounding: {status}")
    if kind == "judge":
        return _result(check, None, "not judged")
    raise ValueError(f"unknown check {kind!r}")


def check_run(checks: Sequence[Check], record: dict[str, Any]) -> list[CheckResult]:
    """Every check on one record, in order."""
    return [_one(check, record) for check in checks]


def verdict(results: Sequence[CheckResult]) -> bool | None:
    """A run passes when no decided check failed (undecided ones count neither way); None when no
    check could be decided at all."""
    decided = [r["passed"] for r in results if r["passed"] is not None]
    if not decided:
        return None
    return all(decided)
