"""Threads vs Ray on the same eval cells, and what N machines with one local model each would give.

The cells: the first 25 goals of ``evals/everyday.yaml`` × 40 repeats = 1,000 runs on the offline
provider (no retry waits; ``search_web`` fails half the time, so the verdicts vary with each
cell's seed). Each round runs them under ``threads`` and under ``ray`` (the order alternates) and
checks that the verdicts are the same. Ray is started once (timed apart); its first round also
starts the workers ("cold"), later rounds reuse them ("warm"), as a page or a cluster would.
A Ray round trip per cell is measured on no-op tasks for the estimate on paper:

    T(N) = start + load + ceil(C / N) × (t + overhead)      speed-up(N) = C × t / T(N)

for C local-model cells of ``--local-run-s`` seconds each, one loaded model per machine (the
threads executor runs them one at a time on one machine: C × t).

Prints the figures with the load average, and one ``BENCH_EVALS_SCALE {...}`` JSON line.

    python bench/evals_scale.py [--goals 25] [--repeats 40] [--rounds 3] [--local-run-s 15]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.evals.goalset import GoalSet, load_goal_set  # noqa: E402
from agent_core.evals.runner import EvalRun, Target  # noqa: E402
from agent_core.scale import Task, ThreadsExecutor  # noqa: E402
from agent_core.settings import Settings  # noqa: E402


def goal_set_of(goals: int) -> GoalSet:
    everyday = load_goal_set(ROOT / "evals" / "everyday.yaml")
    return dataclasses.replace(everyday, goals=everyday.goals[:goals])


def verdicts(result: dict[str, Any]) -> dict[tuple[str, int], Any]:
    return {(r["goal_id"], r["repeat"]): (r["passed"], r["steps"], r["answer"]) for r in result["runs"]}


def one_eval(goal_set: GoalSet, repeats: int, settings: Settings, executor: Any) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    result = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=repeats, executor=executor).run()
    return time.perf_counter() - t0, result


def noop(payload: Any, context: Any) -> Any:
    return payload


def round_trip_s(executor: Any, count: int = 400) -> float:
    """Seconds per task of a stream of no-op tasks on warm workers (the executor's own cost)."""
    tasks = [Task(key=str(i), payload=i) for i in range(count)]
    t0 = time.perf_counter()
    done = sum(1 for o in executor.stream(tasks, noop, cancel=threading.Event()) if o is not None)
    assert done == count
    return (time.perf_counter() - t0) / count


def paper(cells: int, run_s: float, overhead_s: float, start_s: float, load_s: float) -> list[dict[str, Any]]:
    one_machine = cells * run_s
    rows = []
    for n in (1, 2, 4, 8, 16, 32):
        total = start_s + load_s + math.ceil(cells / n) * (run_s + overhead_s)
        rows.append({"machines": n, "hours": round(total / 3600, 2), "speed_up": round(one_machine / total, 2)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--local-run-s", type=float, default=15.0, help="one local-model run, for the paper estimate")
    parser.add_argument("--local-load-s", type=float, default=10.0, help="loading the local model (cold start)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    os.environ.setdefault("RAY_TMPDIR", str(tmp / "ray"))
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    os.environ.setdefault("RAY_AUTH_TOKEN", secrets.token_hex(16))
    try:
        import ray
    except ImportError:
        sys.exit("Ray is not installed: pip install -r requirements-scale.txt")
    from agent_core.scale.ray_executor import RayExecutor, connect

    load_before = os.getloadavg()
    t0 = time.perf_counter()
    connect()
    init_s = time.perf_counter() - t0
    goal_set = goal_set_of(args.goals)
    cells = len(goal_set.goals) * args.repeats
    settings = Settings(data_dir=tmp / "data", retry_delays=(), search_web_failure_rate=0.5)
    one_eval(goal_set, 1, settings, ThreadsExecutor(concurrency=args.concurrency))  # warm this process
    times: dict[str, list[float]] = {"threads": [], "ray": []}
    same = True
    ray_executor: RayExecutor | None = None
    for n in range(args.rounds):
        order = ["threads", "ray"] if n % 2 == 0 else ["ray", "threads"]
        got: dict[str, dict[str, Any]] = {}
        for name in order:
            t0 = time.perf_counter()
            if name == "ray" and ray_executor is None:  # cold: the workers start within the time
                ray_executor = RayExecutor(concurrency=args.concurrency)
            executor = ThreadsExecutor(concurrency=args.concurrency) if name == "threads" else ray_executor
            got[name] = one_eval(goal_set, args.repeats, settings, executor)[1]
            seconds = time.perf_counter() - t0
            times[name].append(seconds)
            print(f"round {n + 1} {name:<7} {seconds:6.1f} s  ({cells / seconds:5.1f} runs/s)", flush=True)
        same = same and verdicts(got["threads"]) == verdicts(got["ray"])
        shutil.rmtree(settings.runs_dir, ignore_errors=True)
    assert ray_executor is not None
    overhead = round_trip_s(ray_executor)
    load_after = os.getloadavg()
    threads_med = statistics.median(times["threads"])
    warm = times["ray"][1:] or times["ray"]
    figures = {
        "cells": cells,
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_before": [round(x, 1) for x in load_before],
        "load_after": [round(x, 1) for x in load_after],
        "ray_init_s": round(init_s, 1),
        "threads_s": [round(x, 1) for x in times["threads"]],
        "ray_s": [round(x, 1) for x in times["ray"]],
        "ray_cold_over_threads": round(times["ray"][0] / threads_med, 2),
        "ray_warm_over_threads": round(statistics.median(warm) / threads_med, 2),
        "same_verdicts": same,
        "ray_round_trip_ms": round(overhead * 1000, 2),
        "paper": paper(1000, args.local_run_s, overhead, start_s=init_s, load_s=args.local_load_s),
        "paper_assumes": {"local_run_s": args.local_run_s, "local_load_s": args.local_load_s, "local_cells": 1000},
    }
    print(
        f"\n{cells} cells · threads median {threads_med:.1f} s · ray cold {times['ray'][0]:.1f} s "
        f"({figures['ray_cold_over_threads']}×), warm median {statistics.median(warm):.1f} s "
        f"({figures['ray_warm_over_threads']}×) · ray.init {init_s:.1f} s (apart) · same verdicts: {same}"
    )
    print(f"load average before {figures['load_before']}, after {figures['load_after']} on {os.cpu_count()} CPUs")
    print(f"Ray executor cost per task (400 no-op tasks, batched, warm workers): {overhead * 1000:.2f} ms")
    print(f"\non paper: 1,000 local-model runs of {args.local_run_s:g} s, one loaded model per machine")
    for row in figures["paper"]:
        print(f"  {row['machines']:>3} machine(s): {row['hours']:6.2f} h  speed-up {row['speed_up']:5.2f}×")
    print("BENCH_EVALS_SCALE " + json.dumps(figures))
    ray.shutdown()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
