"""The one run path: prepare_run checks everything before a record is written, then runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.errors import ProviderUnavailable
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.events import RunFinished, RunStarted
from agent_core.run.prepare import prepare_run
from agent_core.settings import Settings
from tests.record_schema import assert_valid_record


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"goal": "   "}, "goal is empty"),
        ({"tools": ["calculator", "no_such_tool"]}, "no_such_tool"),
        ({"overrides": {"max_steps": 0}}, "MAX_STEPS"),
        ({"overrides": {"max_stepz": 3}}, "unknown setting"),
        ({"provider_id": "nope"}, "unknown provider"),
    ],
)
def test_bad_input_is_a_value_error_and_writes_nothing(settings: Settings, changes: dict, message: str) -> None:
    kwargs = {"goal": "What is 2+2?", "provider_id": "offline", "settings": settings, **changes}
    with pytest.raises(ValueError, match=message):
        prepare_run(**kwargs)
    assert list(settings.runs_dir.iterdir()) == []


def test_unavailable_provider_says_why(settings: Settings) -> None:
    with pytest.raises(ProviderUnavailable, match="OPENAI_API_KEY"):
        prepare_run("hi", "openai", settings=settings)


def test_prepared_run_uses_overrides_tools_and_extra_fields(settings: Settings) -> None:
    prepared = prepare_run(
        "  What is (24*7)+100?  ",
        "offline",
        settings=settings,
        overrides={"max_steps": 4, "max_context_blocks": 3},
        tools=["calculator", " lookup "],
        record_extra={"eval_id": "e1"},
    )
    assert prepared.goal == "What is (24*7)+100?"
    assert prepared.registry.names() == ["calculator", "lookup"]
    record = prepared.run_to_end()
    assert_valid_record(record)
    assert record["status"] == "completed" and "268" in (record["answer"] or "")
    assert record["settings"]["max_steps"] == 4 and record["settings"]["max_context_blocks"] == 3
    assert record["settings"]["tools"] == ["calculator", "lookup"]
    assert record["eval_id"] == "e1"
    assert Path(settings.runs_dir, f"{record['run_id']}.json").is_file()


def test_events_of_a_ready_provider(settings: Settings) -> None:
    prepared = prepare_run("say hi", provider=ScriptedProvider([{"text": "hi"}]), settings=settings, scripted=True)
    events = list(prepared.events())
    assert isinstance(events[0], RunStarted) and isinstance(events[-1], RunFinished)
    assert events[-1].status == "completed" and events[-1].answer == "hi"
