"""Shared pieces of the goals-from-runs tests: real offline runs the answer check flags.

The offline demo model answers "Convert 40 °C to Fahrenheit." with the calculator's arithmetic,
``40 * 9 / 5 + 32 = 104``; the answer check flags it (``partly``: the 32 comes from no tool result
nor the goal). So these are honest flagged runs, made in ~0.1 s each with no model. (A percentage
no longer serves: "$120 with 6% off" computed as ``120 * (100 - 6) / 100`` is grounded, the 100
being the percentage's own.)
"""

from __future__ import annotations

from typing import Any

from agent_core.providers import make_provider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry


def flagged_goals(n: int) -> list[str]:
    """``n`` distinct goals the offline model answers with a flagged figure."""
    return [f"Convert {40 + i} °C to Fahrenheit." for i in range(n)]  # (not 32: in the goal, it grounds)


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
