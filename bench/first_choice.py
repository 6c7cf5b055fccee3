"""Which tool does the local model choose first? Its first step only, for every goal of goal sets.

Many wrong answers on documents the product does not ship began with a call to the wrong
tool (the simulated web search, the weather) rather than the user's documents; a whole eval run
measures that only through the answers, at about 50 s a goal. This runs the first step alone
(about 4 s a goal), with the set's workspace, the default tools and instructions, and counts:

- *document goals*: those with an expected figure or word (not small talk, not "not found"); how
  many of them the model began with a tool that reads the workspace (tagged ``files``), with a
  simulated one (tagged ``simulated``), or otherwise;
- the model's own probability of the tool it chose (its ``certainty``), as the record keeps it.

Prints one line per set, ``--goals`` a line per goal, and a ``BENCH_FIRST_CHOICE`` JSON line.

    python bench/first_choice.py evals/own_documents.yaml [more sets] [--goals]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from retrieval import _expected  # noqa: E402

from agent_core.evals.goalset import load_goal_set  # noqa: E402
from agent_core.providers import local  # noqa: E402
from agent_core.providers.base import ModelRequest  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.builtins import build_default_registry  # noqa: E402
from agent_core.tools.instructions import build_instructions  # noqa: E402
from agent_core.tools.sample_workspace import SAMPLE  # noqa: E402


def _document_goal(goal: Any) -> bool:
    figures, words = _expected(goal)
    return bool(figures or words)


def measure(set_path: Path, data_dir: Path, show: bool) -> dict[str, Any]:
    goal_set = load_goal_set(set_path)
    root = Path(goal_set.workspace) if goal_set.workspace else SAMPLE
    settings = Settings(data_dir=data_dir, workspace=root)
    registry = build_default_registry(settings)
    tools = list(registry)
    instructions = build_instructions(registry)
    provider = local.create(model=None, base_url=None, settings=settings)
    provider.use_run(instructions, tools)
    kinds: Counter[str] = Counter()
    chosen: Counter[str] = Counter()
    certainty: list[float] = []
    seconds: list[float] = []
    for goal in goal_set.goals:
        if not _document_goal(goal):
            continue
        request = ModelRequest(instructions=instructions, goal=goal.goal, blocks=[], tools=tools, step=1, timeout=900)
        started = time.perf_counter()
        response = provider.complete(request)
        seconds.append(time.perf_counter() - started)
        name = response.tool_calls[0].name if response.tool_calls else "(answer)"
        tool = registry.get(name)
        tags = set(tool.tags) if tool is not None else set()
        kind = "workspace" if "files" in tags else "simulated" if "simulated" in tags else "other"
        kinds[kind] += 1
        chosen[name] += 1
        p = ((response.constraint or {}).get("certainty") or {}).get("p")
        if isinstance(p, (int, float)):
            certainty.append(float(p))
        if show:
            print(f"  {goal.id:40} {kind:10} {name:20} p={p}")
    goals = sum(kinds.values())
    return {
        "set": goal_set.name,
        "document_goals": goals,
        "first_reads_workspace": kinds["workspace"],
        "first_simulated": kinds["simulated"],
        "first_other": kinds["other"],
        "tools": dict(chosen.most_common()),
        "median_p": round(statistics.median(certainty), 2) if certainty else None,
        "median_step_s": round(statistics.median(seconds), 1) if seconds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--goals", action="store_true", help="a line per goal")
    args = parser.parse_args()
    if (problem := local.availability()) is not None:
        sys.exit(f"the local provider is not available: {problem}")
    data_dir = Path(os.environ.get("AGENT_DATA_DIR") or tempfile.mkdtemp(prefix="bench-first-"))
    figures = []
    for set_path in args.sets:
        row = measure(set_path, data_dir, args.goals)
        figures.append(row)
        print(
            f"{row['set']}: {row['document_goals']} document goals; first call reads the workspace in "
            f"{row['first_reads_workspace']}, a simulated tool in {row['first_simulated']}, other "
            f"{row['first_other']} ({row['tools']}); median certainty {row['median_p']}, median step "
            f"{row['median_step_s']} s"
        )
    print("BENCH_FIRST_CHOICE " + json.dumps(figures))


if __name__ == "__main__":
    main()
