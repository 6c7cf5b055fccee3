"""Frozen goals: a goal made from a run, evaluated on that run's recorded tool results.

``eval --tools recorded`` answers every tool call of a goal from ``from_run.tool_calls`` (or, when
the file does not hold them, from the run's record in the store) through the replay's
:class:`agent_core.analysis.replay.RecordedTools`: nothing runs, no network, the same results,
retries and fallbacks as in the run. The check then tests the model, not a changing world: a
flagged answer fails the same way until the model (or its prompt, or its tools' descriptions) is
fixed. A call the run never made gets an ERROR output (``source: missing``); the record says
``tool_mode: recorded`` and ``replay_of`` the run. ``--tools live`` (the default) runs the real
tools, as for any goal.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

from agent_core.analysis.replay import RecordedTools, Replay
from agent_core.evals.goalset import Goal, GoalSet
from agent_core.run.events import Event
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry

TOOL_MODES = ("live", "recorded")


def _from_store(run_id: str, settings: Settings) -> dict[str, Any] | None:
    from agent_core.errors import RecordError
    from agent_core.pgstore.reading import reading_store

    try:
        record: dict[str, Any] = reading_store(settings, persist=False).load(run_id)
    except (RecordError, OSError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - a team store that cannot be read: as if the run were not there
        return None
    return record


def source_of(goal: Goal, settings: Settings) -> dict[str, Any] | None:
    """What ``goal``'s tool calls are answered from: its run's id, goal and tool calls; None when
    it was not made from a run, or its tool calls are neither in the file nor in the store."""
    if goal.from_run is None:
        return None
    calls = goal.from_run.tool_calls
    if calls is None:
        record = _from_store(goal.from_run.run_id, settings)
        if record is None:
            return None
        calls = tuple(c for c in record.get("tool_calls") or () if isinstance(c, dict))
    return {"run_id": goal.from_run.run_id, "goal": goal.goal, "tool_calls": [dict(c) for c in calls]}


def sources(goal_set: GoalSet, settings: Settings) -> dict[str, dict[str, Any]]:
    """The recorded source of every goal of the set, by goal id; ValueError (bad input: nothing
    runs) naming the first goal that has none."""
    found = {}
    for goal in goal_set.goals:
        if goal.scenario:
            continue  # a demo scenario replays its own turns and tools
        source = source_of(goal, settings)
        if source is None:
            why = (
                "was not made from a run (no from_run)"
                if goal.from_run is None
                else f"has no recorded tool calls, and its run {goal.from_run.run_id} is not in the store"
            )
            raise ValueError(f"{goal_set.path}: goal {goal.id!r} {why}: evaluate it with --tools live")
        found[goal.id] = source
    return found


def recorded_tools(source: Mapping[str, Any], registry: ToolRegistry) -> RecordedTools:
    """Tools that answer from ``source``'s recorded calls (the next one of the same tool: ``fifo``)."""
    return RecordedTools(source, registry, "recorded", "fifo")


def frozen_events(
    prepared: Any, tools: RecordedTools, cancel: threading.Event | None, *, run_id: str | None = None
) -> Iterator[Event]:
    """The run's events, each tool call marked with its ``source`` (``recorded`` or ``missing``);
    retry waits are not slept (nothing live is waited for). ``run_id``: an eval cell's fixed id."""
    return Replay(source=dict(tools.source), prepared=prepared, tools=tools, wait=False).events(cancel, run_id=run_id)
