"""Typed events: keyword-only, one literal kind each, JSON-ready with typed payloads."""

from __future__ import annotations

import json
import typing

import pytest

from agent_core.providers.base import Usage
from agent_core.run import events
from agent_core.run.events import ModelCallFinished, RunEvent, RunStarted, StepFinished


def test_every_event_has_its_own_literal_kind() -> None:
    members = typing.get_args(RunEvent)
    kinds = [cls.__dataclass_fields__["kind"].default for cls in members]
    assert len(set(kinds)) == len(members) == 12
    defined = {
        name
        for name, value in vars(events).items()
        if isinstance(value, type) and issubclass(value, events.Event) and value is not events.Event
    }
    assert defined == {cls.__name__ for cls in members}, "a new event class must join the RunEvent union"


def test_events_are_keyword_only_and_serialise_typed_payloads() -> None:
    with pytest.raises(TypeError):
        RunStarted("run-1")  # type: ignore[misc]
    usage = Usage(3, 4, 7)
    event = StepFinished(run_id="r", step=2, usage=usage, total_usage=usage + usage, cost_usd=None)
    data = event.as_dict()
    assert list(data)[0] == "kind" and data["kind"] == "step_finished"
    assert data["total_usage"] == {"input_tokens": 6, "output_tokens": 8, "total_tokens": 14}
    json.dumps(data)
    assert ModelCallFinished(run_id="r", step=1).usage == Usage()
