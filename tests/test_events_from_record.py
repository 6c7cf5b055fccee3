"""A saved run's events, rebuilt from its record, are the events it yielded live."""

from __future__ import annotations

from agent_core.records.files import load_record
from agent_core.run import demo
from agent_core.run.events import ModelLoading, RunFinished, ToolCallFinished, events_from_record
from agent_core.settings import Settings


def _shape(events: list) -> list[tuple[str, int | None]]:
    return [(e.kind, getattr(e, "step", None)) for e in events if not isinstance(e, ModelLoading)]


def test_events_from_record_match_the_live_events(settings: Settings) -> None:
    for scenario in ("tour", "malformed"):
        live = list(demo.prepare(scenario, settings).events())
        finished = live[-1]
        assert isinstance(finished, RunFinished)
        record = load_record(finished.path)
        rebuilt = list(events_from_record(record))
        assert _shape(rebuilt) == _shape(live)
        assert [e.call for e in rebuilt if isinstance(e, ToolCallFinished)] == [
            e.call for e in live if isinstance(e, ToolCallFinished)
        ]
        last = rebuilt[-1]
        assert isinstance(last, RunFinished)
        assert (last.status, last.answer, last.steps) == (finished.status, finished.answer, finished.steps)
        assert rebuilt[-2].total_usage.as_dict() == record["usage"]


def test_a_partial_or_odd_record_still_replays() -> None:
    events = list(
        events_from_record(
            {
                "run_id": "x",
                "status": "running",
                "steps": [{"index": 1}, "junk"],
                "tool_calls": [{"call_id": "c"}],
                "usage": None,
            }
        )
    )
    assert [e.kind for e in events] == [
        "run_started",
        "model_call_started",
        "model_call_finished",
        "step_finished",
        "run_finished",
    ]
