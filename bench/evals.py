"""Eval overhead benchmark: what an eval adds to each run on the offline provider.

A goal set of 40 goals (the seed goals, cycled with new ids) × 3 repeats = 120 runs, one at a
time, run twice over:

- as an eval (``EvalRun``: tagging, reading the record back, the checks, scoring, saving the
  result file), with the eval's own work also timed directly;
- as the same 120 plain runs through ``prepare_run`` with the same seeded tools.

The difference per run is the eval's overhead. Prints the figures and one ``BENCH_EVALS {...}``
JSON line.

    python bench/evals.py [--goals 40] [--repeats 3] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.evals import cells, runner  # noqa: E402
from agent_core.evals.goalset import GoalSet, load_goal_set  # noqa: E402
from agent_core.evals.runner import EvalRun, Target  # noqa: E402
from agent_core.providers import make_provider  # noqa: E402
from agent_core.run.prepare import prepare_run  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.builtins import build_default_registry  # noqa: E402


def goal_set_of(n: int) -> GoalSet:
    seeds = load_goal_set(ROOT / "evals" / "seeds.yaml")
    goals = [
        replace(seeds.goals[i % len(seeds.goals)], id=f"{seeds.goals[i % len(seeds.goals)].id}-{i}") for i in range(n)
    ]
    return replace(seeds, name="bench", goals=tuple(goals))


def plain_runs(goal_set: GoalSet, repeats: int, settings: Settings) -> float:
    provider = make_provider("offline", settings=settings)
    t0 = time.perf_counter()
    for repeat in range(repeats):
        for goal in goal_set.goals:
            seed = f"{goal_set.name}:{goal.id}:{repeat}"
            prepared = prepare_run(
                goal.goal,
                "offline",
                settings=settings,
                tools=goal.tools,
                provider=provider,
                overrides={"max_steps": goal.max_steps} if goal.max_steps else None,
                registry=build_default_registry(settings, rng=random.Random(seed)),
                rng=random.Random(seed),
            )
            for _ in prepared.events():
                pass
    return time.perf_counter() - t0


def eval_runs(goal_set: GoalSet, repeats: int, settings: Settings) -> tuple[float, float, float]:
    """(seconds, pass rate, seconds of the eval's own bookkeeping: reading each record back, the
    checks, scoring and saving the result)."""
    spent = [0.0]
    load, row_of = cells.load_record, cells.row_of

    def timed(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args)
            finally:
                spent[0] += time.perf_counter() - t

        return wrapper

    cells.load_record, cells.row_of = timed(load), timed(row_of)  # type: ignore[assignment]
    try:
        t0 = time.perf_counter()
        run = EvalRun(goal_set, [Target("offline")], settings=settings, repeats=repeats, concurrency=1)
        result = run.run()
        seconds = time.perf_counter() - t0
    finally:
        cells.load_record, cells.row_of = load, row_of  # type: ignore[assignment]
    assert len(result["runs"]) == len(goal_set.goals) * repeats
    t = time.perf_counter()
    runner.save_result(run.result(), settings)  # the scoring and the file, once per eval
    spent[0] += time.perf_counter() - t
    return seconds, result["summary"][0]["pass_rate"], spent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("agent_core").setLevel(logging.ERROR)
    goal_set = goal_set_of(args.goals)
    runs = args.goals * args.repeats
    workspace = ROOT / "agent_data" / "workspace"
    plain, evals, own = [], [], []
    pass_rate = None
    for n in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="bench-evals-") as tmp:
            data = Path(tmp)
            if workspace.is_dir():
                shutil.copytree(workspace, data / "workspace")
            settings = Settings(data_dir=data, retry_delays=(0.0, 0.0))
            if n % 2 == 0:  # alternate the order: a folder that grows must not favour one side
                plain.append(plain_runs(goal_set, args.repeats, settings))
            seconds, pass_rate, bookkeeping = eval_runs(goal_set, args.repeats, settings)
            if n % 2 == 1:
                plain.append(plain_runs(goal_set, args.repeats, settings))
            evals.append(seconds)
            own.append(bookkeeping)
    plain_ms = statistics.median(plain) * 1000 / runs
    eval_ms = statistics.median(evals) * 1000 / runs
    own_ms = statistics.median(own) * 1000 / runs
    figures = {
        "goals": args.goals,
        "repeats": args.repeats,
        "runs": runs,
        "rounds": args.rounds,
        "plain_ms_per_run": round(plain_ms, 3),
        "eval_ms_per_run": round(eval_ms, 3),
        "overhead_ms_per_run": round(eval_ms - plain_ms, 3),
        "bookkeeping_ms_per_run": round(own_ms, 3),
        "overhead_pct": round(100 * (eval_ms - plain_ms) / plain_ms, 1) if plain_ms else None,
        "pass_rate": pass_rate,
    }
    print(f"{args.goals} goals × {args.repeats} repeats = {runs} runs on offline, median of {args.rounds} rounds")
    print(f"  plain run:     {plain_ms:7.2f} ms per run")
    print(f"  run in eval:   {eval_ms:7.2f} ms per run (checks, scoring and the result file included)")
    print(
        f"  difference:    {eval_ms - plain_ms:7.2f} ms per run ({figures['overhead_pct']} %; wall clock, noisy on a busy machine)"
    )
    print(
        f"  eval's own work: {own_ms:5.2f} ms per run (record read back, checks, scoring, result file; timed directly)"
    )
    print("BENCH_EVALS " + json.dumps(figures))


if __name__ == "__main__":
    main()
