"""Replay: recorded tools reproduce a run (retries and fallbacks too) with no live tool execution;
forks, strict matching, hybrid and the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.analysis.compare import compare
from agent_core.analysis.replay import prepare_replay
from agent_core.analysis.trajectory import trajectory
from agent_core.providers import make_provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run import demo
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.record_schema import assert_valid_record

OFFLINE_GOALS = (
    "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    "What is (24*7)+100?",
    "Search the documents for refund policy",
    "What's the weather in Seoul in fahrenheit?",
    "Read the file shipping.md and count its words",
)


def _tool_sequence(record: dict[str, Any]) -> list[str]:
    return [e.key() for e in trajectory(record).tool_events()]


def _offline_run(goal: str, settings: Settings) -> dict[str, Any]:
    return run_to_end(
        goal,
        provider=make_provider("offline", settings=settings),
        registry=build_default_registry(settings),
        settings=settings,
    )


def _demo_run(scenario: str, settings: Settings) -> dict[str, Any]:
    prepared = demo.prepare(scenario, settings)
    events = list(prepared.events())
    finished = events[-1] if events else None
    from agent_core.records.files import load_record

    assert finished is not None
    return load_record(finished.path)


def _replayed(
    source: dict[str, Any], provider_id: str, settings: Settings, **options: Any
) -> tuple[dict[str, Any], Any]:
    replay = prepare_replay(source, provider_id, settings=settings, **options)
    record = replay.run_to_end()
    assert_valid_record(record)
    return record, replay


@pytest.fixture
def demo_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setattr(demo, "DEMO_RETRY_DELAYS", (0.0, 0.0))
    return settings


def test_offline_runs_replayed_with_recorded_tools_run_no_tool(demo_settings: Settings) -> None:
    settings = demo_settings
    goals = list(OFFLINE_GOALS) + [s.goal for s in demo.SCENARIOS]
    for goal in goals:
        source = _offline_run(goal, settings)
        record, replay = _replayed(source, "offline", settings)
        assert replay.tools.live_executions == 0, goal
        assert _tool_sequence(record) == _tool_sequence(source), goal
        assert record["answer"] == source["answer"] and record["status"] == source["status"], goal
        assert record["replay_of"] == source["run_id"] and record["tool_mode"] == "recorded"
        assert {c["source"] for c in record["tool_calls"]} <= {"recorded"}, goal
        assert compare([source, record]).first is None, goal


def test_demo_scenarios_replay_their_retries_and_fallbacks_offline(demo_settings: Settings) -> None:
    settings = demo_settings
    for scenario in demo.SCENARIOS:
        source = _demo_run(scenario.id, settings)
        record, replay = _replayed(source, "source", settings)
        assert replay.tools.live_executions == 0, scenario.id
        assert _tool_sequence(record) == _tool_sequence(source), scenario.id
        assert record["answer"] == source["answer"], scenario.id
        for old, new in zip(source["tool_calls"], record["tool_calls"]):
            # The same attempts (errors, then the success or the fallback), the same output.
            assert [(a["success"], a["error"]) for a in new["attempts"]] == [
                (a["success"], a["error"]) for a in old["attempts"]
            ]
            assert (new["output"], new["success"], new["duplicate"]) == (
                old["output"],
                old["success"],
                old["duplicate"],
            )
            assert bool(new["fallback"]) == bool(old["fallback"])
        assert compare([source, record]).first is None, scenario.id
    tour = _demo_run("tour", settings)
    assert any(len(c["attempts"]) > 1 for c in tour["tool_calls"]) and any(c["fallback"] for c in tour["tool_calls"])


def test_a_model_that_deviates_at_step_k_shows_in_compare(settings: Settings) -> None:
    source = _demo_run("trimming", settings)
    turns = [dict(t) for t in demo.TRIMMING.turns]
    k = 3
    turns[k - 1] = {"tool_calls": [{"name": "lookup", "arguments": {"topic": "warranty"}, "call_id": "x"}]}
    record, replay = _replayed(source, "scripted-model", settings, provider=ScriptedProvider(turns))
    result = compare([source, record]).first
    assert result is not None and result.step == k and result.cause == "different_arguments", result
    assert replay.tools.live_executions == 0
    # fifo: the deviating lookup got the next recorded lookup's answer; nothing was missing.
    assert [c["source"] for c in record["tool_calls"]] == ["recorded"] * 5


def test_fork_from_step_keeps_earlier_turns_and_the_new_model_continues(settings: Settings) -> None:
    source = _offline_run("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", settings)
    new_model = ScriptedProvider([{"text": "A different ending."}])
    record, replay = _replayed(source, "scripted", settings, provider=new_model, from_step=2)
    assert [c["tool"] for c in record["tool_calls"]] == ["lookup"]
    assert record["answer"] == "A different ending." and new_model.remaining == 0
    assert len(new_model.requests) == 1 and new_model.requests[0].step == 2
    found = compare([source, record]).first
    assert found is not None and found.step == 2 and found.cause == "different_answer"


def test_strict_matching_fails_on_unexpected_calls_and_hybrid_runs_them_live(settings: Settings) -> None:
    source = _offline_run("What is (24*7)+100?", settings)
    other = [{"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}, {"text": "2"}]
    record, replay = _replayed(source, "scripted", settings, provider=ScriptedProvider(other), match="strict")
    assert record["status"] == "error" and record["error"]["type"] == "ReplayMismatch"
    assert "unexpected call calculator" in record["error"]["message"]
    assert "never made" in record["error"]["message"]
    assert record["tool_calls"][0]["source"] == "missing" and replay.tools.live_executions == 0
    record, replay = _replayed(source, "scripted", settings, provider=ScriptedProvider(other), tool_mode="hybrid")
    assert record["status"] == "completed" and record["tool_calls"][0]["source"] == "live"
    assert record["tool_calls"][0]["output"] == "2" and replay.tools.live_executions == 1
    with pytest.raises(ValueError, match="from-step"):
        prepare_replay(source, "offline", settings=settings, from_step=9)


def test_cli_replay(settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    from agent_core.cli.main import main

    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    source = _offline_run("What is (24*7)+100?", settings)
    assert main(["replay", source["run_id"], "--provider", "offline", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["replay_of"] == source["run_id"] and out["tool_mode"] == "recorded"
    assert out["tool_calls"][0]["source"] == "recorded"
    assert main(["replay", "no-such-run", "--provider", "offline"]) == 2
    assert "unknown run id" in capsys.readouterr().err
    assert main(["replay", source["run_id"], "--provider", "offline", "--from-step", "0"]) == 2
