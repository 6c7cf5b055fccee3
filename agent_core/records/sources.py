"""Where a run came from: a person's own run, an eval's, an arena's, a replay, or a scripted demo.

History and Tool stats filter by it (by default they show people's own runs, so one eval of 27
goals does not bury the runs someone made by hand). The record says it: ``eval_id``, ``arena_id``,
``replay_of``, and ``scripted`` for the demo scenarios' fixed turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

Source = Literal["own", "eval", "arena", "replay", "demo"]
SOURCES: tuple[Source, ...] = ("own", "eval", "arena", "replay", "demo")
"""Every source, in the order the filter lists them."""
OWN: tuple[Source, ...] = ("own",)
"""The default of the Source filter: people's own runs."""
LABELS: dict[str, str] = {
    "own": "Your runs",
    "eval": "Evals",
    "arena": "Arena",
    "replay": "Replays",
    "demo": "Demos",
}
"""Each source in the filter's words."""


def source_of(record: Mapping[str, Any]) -> Source:
    """The run's source; a run an eval started on the scripted demo model counts as the eval's."""
    if record.get("eval_id"):
        return "eval"
    if record.get("arena_id"):
        return "arena"
    if record.get("replay_of"):
        return "replay"
    if record.get("scripted"):
        return "demo"
    return "own"
