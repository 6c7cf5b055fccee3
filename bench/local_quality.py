"""Tool-calling quality and speed of the ``local`` provider, through the real agent loop.

Runs each goal several times with the default tools and prints a table: correct/total per goal,
model load time, median / max step latency and peak RSS. Targets on a 2-core machine: ≥ 90 %
correct, median step ≤ 2 s.

    python bench/local_quality.py [--tries 3] [--temperature 0] [--only SUBSTRING] [--json]

A try is correct when the run completes, the answer contains every expected number / keyword
(numbers compared without thousands separators) and the run called every expected tool — and
none at all for goals that need none.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_core.providers import local  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.builtins import build_default_registry  # noqa: E402


@dataclass(frozen=True)
class Goal:
    """A goal and what a correct run looks like."""

    text: str
    expect: tuple[str, ...] = ()
    """Every one of these must appear in the answer (any of a ``a|b`` alternative)."""
    tools: tuple[str, ...] = ()
    """Tools the run must call; empty with ``no_tools`` means none may be called."""
    no_tools: bool = False
    kind: str = "tool"


GOALS: tuple[Goal, ...] = (
    # The three seed goals.
    Goal("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", ("168",), ("lookup", "calculator")),
    Goal("What is (24*7)+100?", ("268",), ("calculator",)),
    Goal("Look up the unit price and compute the total for 7 units.", ("168",), ("lookup", "calculator")),
    # Arithmetic variations.
    Goal("Calculate 1234 * 56.", ("69104",), ("calculator",)),
    Goal("(350 - 120) / 5 를 계산해 주세요.", ("46",), ("calculator",)),
    # Single lookups.
    Goal("What is the refund policy?", ("30",), ("lookup",)),
    Goal("환불 정책이 어떻게 되나요?", ("30",), ("lookup",)),
    Goal(
        "How many words are in this sentence: 'the quick brown fox jumps over the lazy dog'?",
        ("9",),
        ("word_count",),
    ),
    # Two- and three-step goals.
    Goal(
        "Look up the unit price and compute the cost of 12 units plus a $15 fee.",
        ("303",),
        ("lookup", "calculator"),
    ),
    Goal(
        "Look up the unit price, compute the total for 25 units, and check the shipping policy: is shipping free?",
        ("600", "free"),
        ("lookup", "calculator"),
        kind="multi",
    ),
    Goal(
        "단가를 확인해서 30개 주문의 총액을 계산하고, 배송 정책을 보고 무료 배송인지 알려 주세요.",
        ("720", "무료|free"),
        ("lookup", "calculator"),
        kind="multi",
    ),
    # No tool needed.
    Goal("hello", no_tools=True, kind="chat"),
    Goal("안녕하세요! 반가워요.", no_tools=True, kind="chat"),
    Goal("Thanks, that is all for today.", no_tools=True, kind="chat"),
)


def _numbers_in(text: str) -> str:
    return re.sub(r"(?<=\d),(?=\d{3})", "", text)


def judge(goal: Goal, record: dict[str, Any]) -> tuple[bool, str]:
    """``(correct, why not)`` for one finished run record."""
    if record.get("status") != "completed":
        return False, f"status {record.get('status')}: {(record.get('error') or {}).get('message', '')[:80]}"
    answer = _numbers_in(record.get("answer") or "").lower()
    called = [c["tool"] for c in record.get("tool_calls", [])]
    if goal.no_tools and called:
        return False, f"called {called} for a goal that needs no tool"
    if goal.no_tools and not answer.strip():
        return False, "empty answer"
    missing_tools = [t for t in goal.tools if t not in called]
    if missing_tools:
        return False, f"did not call {missing_tools} (called {called})"
    for expected in goal.expect:
        if not any(option.lower() in answer for option in expected.split("|")):
            calls = [(c["tool"], c["arguments"], str(c["output"])[:40]) for c in record.get("tool_calls", [])]
            return False, f"answer lacks {expected!r}: {answer[:100]!r}; calls {calls}"
    return True, ""


@dataclass
class GoalResult:
    """Outcomes of all tries of one goal."""

    goal: Goal
    correct: int = 0
    tries: int = 0
    steps: list[float] = field(default_factory=list)
    run_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def run(tries: int, temperature: float, only: str | None, keep: bool = False) -> dict[str, Any]:
    """Run the benchmark; return the figures (the run records are deleted unless ``keep``)."""
    hint = local.availability()
    if hint:
        raise SystemExit(f"local provider unavailable: {hint}")
    workdir = Path(tempfile.mkdtemp(prefix="local-bench-"))
    try:
        figures = _run(workdir, tries, temperature, only)
    finally:
        if keep:
            print(f"run records kept in {workdir / 'runs'}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return figures


def _run(workdir: Path, tries: int, temperature: float, only: str | None) -> dict[str, Any]:
    shutil.copytree(ROOT / "agent_data" / "workspace", workdir / "workspace")
    settings = Settings(data_dir=workdir, retry_delays=(0.0,), search_web_failure_rate=0.0)
    registry = build_default_registry(settings)
    goals = [g for g in GOALS if not only or only.lower() in g.text.lower()]

    first = provider = local.LocalProvider(temperature=temperature)
    t0 = time.perf_counter()
    stages: dict[str, float] = {}
    last_stage, stage_t0 = None, t0
    for progress in provider.prepare():
        if progress.stage != last_stage:
            if last_stage is not None:
                stages[last_stage] = round((time.perf_counter() - stage_t0) * 1000, 1)
            last_stage, stage_t0 = progress.stage, time.perf_counter()
    if last_stage is not None:
        stages[last_stage] = round((time.perf_counter() - stage_t0) * 1000, 1)
    prepare_ms = round((time.perf_counter() - t0) * 1000, 1)

    results = []
    first_step_ms: float | None = None
    for goal in goals:
        result = GoalResult(goal)
        for _ in range(tries):
            provider = local.LocalProvider(temperature=temperature)
            record = run_to_end(goal.text, provider=provider, registry=registry, settings=settings)
            ok, why = judge(goal, record)
            result.tries += 1
            result.correct += ok
            if not ok:
                result.failures.append(why)
            durations = [s["model_duration_ms"] for s in record.get("steps", []) if s.get("model_duration_ms")]
            if first_step_ms is None and durations:
                first_step_ms = durations[0]
            result.steps.extend(durations)
            result.run_ms.append(record.get("duration_ms") or 0.0)
        results.append(result)
        print(
            f"{result.correct}/{result.tries}  {goal.text[:70]}"
            + (f"  ✗ {result.failures[0]}" if result.failures else ""),
            file=sys.stderr,
        )

    all_steps = [s for r in results for s in r.steps]
    later_steps = all_steps[1:]  # the very first step pays for the system prompt once
    return {
        "tries": tries,
        "temperature": temperature,
        "correct": sum(r.correct for r in results),
        "total": sum(r.tries for r in results),
        "by_kind": {
            kind: [
                sum(r.correct for r in results if r.goal.kind == kind),
                sum(r.tries for r in results if r.goal.kind == kind),
            ]
            for kind in sorted({r.goal.kind for r in results})
        },
        "prepare_ms": prepare_ms,
        "prepare_stages_ms": stages,
        "file_check": first.file_check,
        "file_ms": first.file_ms,
        "load_ms": first.load_ms,
        "warm_ms": first.warm_ms,
        "first_step_ms": first_step_ms,
        "step_median_ms": round(statistics.median(all_steps), 1) if all_steps else None,
        "step_max_ms": round(max(all_steps), 1) if all_steps else None,
        "step_median_ms_after_first": round(statistics.median(later_steps), 1) if later_steps else None,
        "steps": len(all_steps),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "goals": [
            {
                "goal": r.goal.text,
                "correct": r.correct,
                "tries": r.tries,
                "median_step_ms": round(statistics.median(r.steps), 1) if r.steps else None,
                "median_run_ms": round(statistics.median(r.run_ms), 1) if r.run_ms else None,
                "failures": r.failures,
            }
            for r in results
        ],
    }


def print_table(figures: dict[str, Any]) -> None:
    """The human-readable report."""
    rows = [("goal", "correct", "median step ms", "median run ms")]
    for g in figures["goals"]:
        rows.append(
            (
                g["goal"][:60],
                f"{g['correct']}/{g['tries']}",
                f"{g['median_step_ms']}",
                f"{g['median_run_ms']}",
            )
        )
    width = [max(len(str(r[i])) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(str(cell).ljust(width[i]) for i, cell in enumerate(row)))
    pct = 100 * figures["correct"] / max(1, figures["total"])
    print()
    print(f"correct            {figures['correct']}/{figures['total']} ({pct:.0f} %)  by kind: {figures['by_kind']}")
    print(
        f"prepare            {figures['prepare_ms']} ms {figures['prepare_stages_ms']} "
        f"(model file: {figures['file_check']}, {figures['file_ms']} ms)"
    )
    print(f"model load         {figures['load_ms']} ms, then {figures['warm_ms']} ms caching the tool prompt")
    print(f"first step         {figures['first_step_ms']} ms")
    print(
        f"step latency       median {figures['step_median_ms']} ms, max {figures['step_max_ms']} ms "
        f"over {figures['steps']} steps"
    )
    print(f"peak RSS           {figures['peak_rss_mb']} MB")
    print(f"temperature        {figures['temperature']}, {figures['tries']} tries per goal")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--temperature", type=float, default=local.TEMPERATURE)
    parser.add_argument("--only", help="run only goals containing this text")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the run records for inspection")
    parser.add_argument(
        "--fresh-cache",
        action="store_true",
        help="join the model into a new temporary cache (measures the join)",
    )
    args = parser.parse_args(argv)
    if args.fresh_cache:
        cache = tempfile.mkdtemp(prefix="local-model-cache-")
        os.environ["LOCAL_MODEL_CACHE"] = cache
    try:
        figures = run(args.tries, args.temperature, args.only, keep=args.keep)
    finally:
        if args.fresh_cache:
            shutil.rmtree(cache, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False, indent=2))
    else:
        print_table(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
