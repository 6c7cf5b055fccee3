"""Shared pieces of the goals-from-runs tests: real offline runs the answer check flags.

The offline demo model answers "What's $120 with 6% off?" with the calculator's arithmetic,
``120 * (100 - 6) / 100 = 112.8``; the answer check flags it (``partly``: the 100 of the
percentage comes from no tool result nor the goal). So these are honest flagged runs, made in
~0.1 s each with no model.
"""

from __future__ import annotations

from typing import Any

from agent_core.providers import make_provider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry


def flagged_goals(n: int) -> list[str]:
    """``n`` distinct goals the offline model answers with a flagged figure."""
    goals = [f"What's ${110 + 10 * i} with {6 + i % 40}% off?" for i in range(n // 2 + n % 2)]
    goals += [f"Convert {40 + i} °C to Fahrenheit." for i in range(n // 2)]  # (not 32: in the goal, it grounds)
    return goals


def offline_run(settings: Settings, goal: str) -> dict[str, Any]:
    return run_to_end(
        goal,
        provider=make_provider("offline", settings=settings),
        registry=build_default_registry(settings),
        settings=settings,
    )


def flagged_runs(settings: Settings, n: int) -> list[dict[str, Any]]:
    """``n`` saved offline runs whose answer the answer check flagged (checked here)."""
    records = [offline_run(settings, goal) for goal in flagged_goals(n)]
    flagged = [r for r in records if (r.get("grounding") or {}).get("status") in ("partly", "ungrounded")]
    assert len(flagged) == n, [(r["goal"], (r.get("grounding") or {}).get("status")) for r in records]
    return records
