"""Evals: goal sets with checks, run on several providers and models, scored with confidence.

- :mod:`.goalset` reads and validates YAML goal-set files;
- :mod:`.checks` checks one run record (answer, tool-call trajectory, limits, grounding);
- :mod:`.judge` a model as judge, with a verdict cache;
- :mod:`.runner` runs goals × targets × repeats as normal saved runs and saves the result;
- :mod:`.scores` Wilson intervals, pass@k, pass^k, flips and McNemar, trends;
- ``python -m agent_core eval`` is :mod:`agent_core.cli.evals`.

May import: everything below it (the foundation modules, ``text``, ``records``, ``tools``,
``checks``, ``providers``, ``run``, ``analysis``). Imported by the CLI and the pages.
"""

from agent_core.evals.goalset import GoalSet, GoalSetError, load_goal_set, parse_goal_set
from agent_core.evals.runner import EvalRun, Target, list_results, load_result, run_eval

__all__ = [
    "EvalRun",
    "GoalSet",
    "GoalSetError",
    "Target",
    "list_results",
    "load_goal_set",
    "load_result",
    "parse_goal_set",
    "run_eval",
]
