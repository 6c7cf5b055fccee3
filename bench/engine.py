"""Engine overhead benchmark: time the loop spends outside the model and the tools.

A provider that answers instantly (pre-built responses, no copying) and tools that return at
once make every measured microsecond engine time: context selection, events, dispatch
(validation, duplicate check, the timeout thread, masking, truncation), the run record kept in
memory and saved atomically after every step.

Prints the median engine overhead per step (model time and tool time subtracted) and per tool
dispatch, for small outputs and for 2 KB outputs, and one ``BENCH_ENGINE {...}`` JSON line.

    python bench/engine.py [--steps 10] [--runs 30] [--calls-per-step 1] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.context import ToolCallRequest  # noqa: E402
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Provider, Usage  # noqa: E402
from agent_core.run import loop as loop_module  # noqa: E402
from agent_core.run.dispatcher import Dispatcher  # noqa: E402
from agent_core.run.events import StepFinished  # noqa: E402
from agent_core.run.loop import run_agent  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.registry import ToolRegistry  # noqa: E402

TARGET_MS = 1.0
SAVE = {"s": 0.0, "n": 0}
"""Time spent in the record save (encode + temp file + rename), to split the per-step figure."""


def _timed_save(record: dict[str, Any], runs_dir: Path, **options: Any) -> Path:
    t0 = time.perf_counter()
    try:
        return _real_save(record, runs_dir, **options)
    finally:
        SAVE["s"] += time.perf_counter() - t0
        SAVE["n"] += 1


_real_save = loop_module.save_record
loop_module.save_record = _timed_save


class InstantProvider(Provider):
    """Answers at once from pre-built turns; records the time spent inside ``complete``."""

    id = "bench"
    label = "instant benchmark provider"
    model = "instant-1"
    instant = True
    """Called in the loop's thread, like the offline provider (see ``measure_steps(threaded=...)``)."""

    def __init__(self, steps: int, calls_per_step: int) -> None:
        self.model_s = 0.0
        self._turns = [
            ModelResponse(
                text="",
                tool_calls=[
                    ToolCallRequest(call_id=f"c{s}_{k}", name="instant", arguments={"n": s * 100 + k})
                    for k in range(calls_per_step)
                ],
                usage=Usage(100, 10, 110),
                raw=[{"type": "bench_turn", "step": s}],
                stop_reason="tool_use",
            )
            for s in range(1, steps)
        ]
        self._turns.append(ModelResponse(text="done", usage=Usage(100, 10, 110), stop_reason="end_turn"))
        self._next = 0

    def prepare(self) -> Iterator[LoadProgress]:
        return iter(())

    def complete(self, request: ModelRequest) -> ModelResponse:
        t0 = time.perf_counter()
        turn = self._turns[self._next]
        self._next += 1
        self.model_s += time.perf_counter() - t0
        return turn


def instant_registry(output_chars: int, timing: dict[str, float]) -> ToolRegistry:
    """One tool that returns ``output_chars`` characters at once (its own time is recorded)."""
    reg = ToolRegistry()
    payload = ("x" * 63 + " ") * (output_chars // 64) + "x" * (output_chars % 64)

    @reg.tool
    def instant(n: int) -> str:
        """Return at once."""
        t0 = time.perf_counter()
        out = payload or str(n)
        timing["tool_s"] += time.perf_counter() - t0
        return out

    return reg


def measure_steps(
    steps: int, runs: int, calls_per_step: int, output_chars: int, data_dir: Path, *, threaded: bool = False
) -> dict[str, Any]:
    """Median engine overhead per step over ``runs`` runs of ``steps`` steps; ``threaded``: the
    model is called in a worker thread, as for every provider that is not ``instant`` (remote
    APIs, the local model), so that a Stop does not wait for its answer."""
    per_step_ms: list[float] = []
    per_step_save_ms: list[float] = []
    per_run_ms: list[float] = []
    settings = Settings(data_dir=data_dir, retry_delays=(0.0,), max_steps=steps)
    for _ in range(runs):
        timing = {"tool_s": 0.0}
        provider = InstantProvider(steps, calls_per_step)
        provider.instant = not threaded
        registry = instant_registry(output_chars, timing)
        marks: list[tuple[float, float, float, float]] = []  # (time, model_s, tool_s, save_s) after each step
        t_start = time.perf_counter()
        for event in run_agent("benchmark goal", provider=provider, registry=registry, settings=settings):
            if isinstance(event, StepFinished):
                marks.append((time.perf_counter(), provider.model_s, timing["tool_s"], SAVE["s"]))
        t_end = time.perf_counter()
        per_run_ms.append((t_end - t_start - provider.model_s - timing["tool_s"]) * 1000)
        for (t0, m0, k0, s0), (t1, m1, k1, s1) in zip(marks, marks[1:]):
            per_step_ms.append((t1 - t0 - (m1 - m0) - (k1 - k0)) * 1000)
            per_step_save_ms.append((s1 - s0) * 1000)
    return {
        "steps": steps,
        "calls_per_step": calls_per_step,
        "output_chars": output_chars,
        "per_step_median_ms": round(statistics.median(per_step_ms), 3),
        "per_step_p90_ms": round(sorted(per_step_ms)[int(len(per_step_ms) * 0.9)], 3),
        "per_step_save_median_ms": round(statistics.median(per_step_save_ms), 3),
        "per_run_median_ms": round(statistics.median(per_run_ms), 3),
    }


def measure_dispatch(n: int, output_chars: int, data_dir: Path) -> dict[str, Any]:
    """Median time of :meth:`Dispatcher.dispatch` for an instant tool (unique arguments)."""
    timing = {"tool_s": 0.0}
    dispatcher = Dispatcher(instant_registry(output_chars, timing), Settings(data_dir=data_dir, retry_delays=(0.0,)))
    samples = []
    for i in range(n):
        call = ToolCallRequest(call_id=f"d{i}", name="instant", arguments={"n": i})
        before = timing["tool_s"]
        t0 = time.perf_counter()
        entry = dispatcher.dispatch(call, step=1)
        samples.append((time.perf_counter() - t0 - (timing["tool_s"] - before)) * 1000)
        assert entry["success"], entry
    return {
        "output_chars": output_chars,
        "dispatch_median_ms": round(statistics.median(samples), 3),
        "dispatch_p90_ms": round(sorted(samples)[int(n * 0.9)], 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--calls-per-step", type=int, default=1)
    parser.add_argument("--dispatches", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="print where the engine time goes (cProfile)")
    parser.add_argument(
        "--tmp",
        type=Path,
        help="folder for the run records (default: the system temp folder; "
        "try /dev/shm to take the disk out of the figure)",
    )
    args = parser.parse_args(argv)
    logging.getLogger("agent_core").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory(prefix="bench-engine-", dir=args.tmp) as tmp:
        data_dir = Path(tmp)
        measure_steps(3, 3, 1, 0, data_dir)  # warm-up: imports, first file writes
        results = {
            "steps_small": measure_steps(args.steps, args.runs, args.calls_per_step, 0, data_dir),
            "steps_2kb": measure_steps(args.steps, args.runs, args.calls_per_step, 2048, data_dir),
            "steps_3calls_2kb": measure_steps(args.steps, args.runs, 3, 2048, data_dir),
            "steps_small_threaded": measure_steps(
                args.steps, args.runs, args.calls_per_step, 0, data_dir, threaded=True
            ),
            "dispatch_small": measure_dispatch(args.dispatches, 0, data_dir),
            "dispatch_2kb": measure_dispatch(args.dispatches, 2048, data_dir),
        }
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            measure_steps(args.steps, max(5, args.runs // 3), args.calls_per_step, 2048, data_dir)
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    print(f"engine overhead (instant provider, instant tools; model and tool time subtracted; target < {TARGET_MS} ms)")
    print(f"  records written to {args.tmp or tempfile.gettempdir()}")
    for key in ("steps_small", "steps_2kb", "steps_3calls_2kb"):
        r = results[key]
        print(
            f"  per step, {r['calls_per_step']} call(s), {r['output_chars']:>4}-char outputs: median "
            f"{r['per_step_median_ms']:.3f} ms, of which record save {r['per_step_save_median_ms']:.3f} ms  "
            f"(p90 {r['per_step_p90_ms']:.3f} ms; whole {r['steps']}-step run {r['per_run_median_ms']:.2f} ms)"
        )
    r = results["steps_small_threaded"]
    print(
        f"  per step, model called in a worker thread (providers that are not instant): median "
        f"{r['per_step_median_ms']:.3f} ms, {r['per_step_median_ms'] - results['steps_small']['per_step_median_ms']:+.3f} ms "
        "for the hand-off"
    )
    for key in ("dispatch_small", "dispatch_2kb"):
        r = results[key]
        print(
            f"  per tool dispatch, {r['output_chars']:>4}-char output: median {r['dispatch_median_ms']:.3f} ms "
            f"(p90 {r['dispatch_p90_ms']:.3f} ms)"
        )
    worst = max(results[k]["per_step_median_ms"] for k in ("steps_small", "steps_2kb"))
    print(f"  verdict: per-step median {'<' if worst < TARGET_MS else '≥'} {TARGET_MS} ms")
    print("BENCH_ENGINE " + json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
