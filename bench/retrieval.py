"""Does a document search show the model what it needs? A measure with no model.

For each goal of a goal set whose expected figures (``answer_number``) and words
(``answer_contains_any``: one of them) are written in the set's workspace documents, the goal's
own text is given to ``search_documents`` as the query. A goal counts as *shown* when the output
(three hits, as the agent gets them) holds every expected figure and one of each expected word
list. Computed answers (a total, a scaled amount) are left out when their figure is written
nowhere. With ``--runs``, the first query the model wrote for each goal in saved eval runs is
measured too. The output's length is what the model reads for it (prompt time).

Prints one line per set and a ``BENCH_RETRIEVAL`` JSON line.

    python bench/retrieval.py evals/own_documents.yaml [more sets] [--runs DATA_DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agent_core.evals.checks import numbers_in  # noqa: E402
from agent_core.evals.goalset import Goal, load_goal_set  # noqa: E402
from agent_core.records.files import load_record  # noqa: E402
from agent_core.tools.files import make_file_tools  # noqa: E402
from agent_core.tools.sample_workspace import SAMPLE  # noqa: E402


def _expected(goal: Goal) -> tuple[list[float], list[list[str]]]:
    figures = [c.arg["value"] for c in goal.checks if c.kind == "answer_number"]
    words = [list(c.arg) for c in goal.checks if c.kind == "answer_contains_any"]
    return figures, words


def _holds(text: str, figures: list[float], words: list[list[str]]) -> bool:
    found = set(numbers_in(text))
    lowered = text.lower()
    return all(f in found for f in figures) and all(any(w.lower() in lowered for w in group) for group in words)


def _model_queries(data_dirs: list[Path]) -> dict[str, str]:
    """goal id → the first ``search_documents`` query the model wrote for it (the first run found)."""
    queries: dict[str, str] = {}
    for data in data_dirs:
        for result_file in sorted((data / "evals").glob("*.json")):
            result = json.loads(result_file.read_text(encoding="utf-8"))
            for run in result.get("runs", []):
                path = data / "runs" / f"{run.get('run_id')}.json"
                if run.get("goal_id") in queries or not path.is_file():
                    continue
                calls = [c for c in load_record(path).get("tool_calls", []) if c.get("tool") == "search_documents"]
                if calls:
                    queries[run["goal_id"]] = str(calls[0].get("arguments", {}).get("query", ""))
    return queries


def measure(set_path: Path, queries: dict[str, str]) -> dict[str, Any]:
    goal_set = load_goal_set(set_path)
    root = Path(goal_set.workspace) if goal_set.workspace else SAMPLE  # as the eval runner reads it
    documents = " ".join(p.read_text(encoding="utf-8", errors="ignore") for p in sorted(root.glob("*")) if p.is_file())
    _, search = make_file_tools(root)
    shown = model_shown = model_asked = 0
    goals: list[str] = []
    lengths: list[int] = []
    for goal in goal_set.goals:
        figures, words = _expected(goal)
        words = [[w for w in group if w.lower() in documents.lower()] for group in words]
        if not (figures or words) or not all(words) or not set(figures) <= set(numbers_in(documents)):
            continue
        goals.append(goal.id)
        output = search(goal.goal)
        lengths.append(len(output))
        shown += _holds(output, figures, words)
        if goal.id in queries:
            model_asked += 1
            output = search(queries[goal.id])
            lengths.append(len(output))
            model_shown += _holds(output, figures, words)
    return {
        "set": goal_set.name,
        "goals": len(goals),
        "shown_goal_query": shown,
        "model_queries": model_asked,
        "shown_model_query": model_shown,
        "mean_output_chars": round(sum(lengths) / len(lengths)) if lengths else 0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sets", nargs="+", type=Path)
    parser.add_argument("--runs", nargs="*", type=Path, default=[], help="data folders of saved eval runs")
    args = parser.parse_args()
    os.environ.setdefault("AGENT_DATA_DIR", tempfile.mkdtemp(prefix="bench-retrieval-"))
    queries = _model_queries(args.runs)
    figures = []
    for set_path in args.sets:
        row = measure(set_path, queries)
        figures.append(row)
        model = f"; the model's first query: {row['shown_model_query']}/{row['model_queries']}" if queries else ""
        print(
            f"{row['set']}: {row['goals']} goals answerable from a document; the goal as query shows the "
            f"answer for {row['shown_goal_query']}{model}; mean output {row['mean_output_chars']} characters"
        )
    print("BENCH_RETRIEVAL " + json.dumps(figures))


if __name__ == "__main__":
    main()
