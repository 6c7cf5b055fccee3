"""Benchmark: the Compare page with 6 runs × 50 steps (AppTest timing), and the engine's compare.

Each run is a real record from the loop (a scripted model calling instant tools for 49 steps,
then answering, context-block limit 8); runs differ from one another at a different step, so the
alignment has gaps and highlights. Prints the page's render time (median of several script runs,
after one warm-up) and the time of :func:`agent_core.analysis.compare.compare` alone.

    python bench/compare.py [--runs 6] [--steps 50] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.analysis.compare import compare  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.registry import ToolRegistry  # noqa: E402


def _registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def fetch(key: str) -> str:
        """Fetch a value."""
        return f"value of {key}: " + "x" * 200

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    return registry


def make_runs(settings: Settings, runs: int, steps: int) -> list[dict[str, Any]]:
    records = []
    for r in range(runs):
        turns: list[dict[str, Any]] = []
        for s in range(steps - 1):
            if r and s == r * 7:  # run r goes its own way at one step
                turns.append({"tool_calls": [{"name": "add", "arguments": {"a": r, "b": s}}]})
            else:
                turns.append({"tool_calls": [{"name": "fetch", "arguments": {"key": f"k{s}"}}]})
        turns.append({"text": f"Done after {steps} steps (run {r})."})
        records.append(
            run_to_end("bench goal", provider=ScriptedProvider(turns), registry=_registry(), settings=settings)
        )
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "agent_data"
        (data / "runs").mkdir(parents=True)
        settings = Settings(data_dir=data, max_steps=args.steps, max_context_blocks=8, answer_check="off")
        records = make_runs(settings, args.runs, args.steps)
        ids = [r["run_id"] for r in records]
        print(
            f"{args.runs} runs × {len(records[0]['steps'])} steps, {sum(len(r['tool_calls']) for r in records)} tool calls"
        )

        t = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            result = compare(records)
            result.as_dict()
            t.append(time.perf_counter() - t0)
        print(f"compare() + as_dict(): median {statistics.median(t) * 1000:.1f} ms ({len(result.rows)} aligned rows)")

        os.environ["AGENT_DATA_DIR"] = str(data)
        from streamlit.testing.v1 import AppTest

        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        at.switch_page("pages/compare.py")
        at.query_params["runs"] = ",".join(ids)
        at.run()  # warm-up: imports, first store read
        assert not at.exception, [e.value for e in at.exception]
        assert at.warning and "First divergence" in at.warning[0].value
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - t0)
        print(
            f"Compare page (AppTest script run): median {statistics.median(times):.3f} s, "
            f"max {max(times):.3f} s over {args.repeat} runs"
        )


if __name__ == "__main__":
    main()
