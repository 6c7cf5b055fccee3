"""Frozen goals: a goal made from a flagged offline run, evaluated with ``--tools recorded``, fails
the same way with 0 live tool calls (counted on the tool functions themselves), and passes with a
model that answers from the same recorded results without making a figure up."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_core.cli.main import main
from agent_core.evals.from_runs import add_goals, draft_from_record
from agent_core.evals.goalset import load_goal_set
from agent_core.evals.runner import EvalRun, Target
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.settings import Settings
from agent_core.tools import builtins
from agent_core.tools.registry import ToolRegistry
from tests.goals_kit import flagged_runs, offline_run


@pytest.fixture
def tool_executions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every real tool function the eval's runs execute, by name (the runner builds its registry
    through ``builtins.build_default_registry``; each tool of it is wrapped with a counter)."""
    executed: list[str] = []
    real = builtins.build_default_registry

    def counting(*args: Any, **kwargs: Any) -> ToolRegistry:
        registry = real(*args, **kwargs)

        def wrap(tool: Any) -> Any:
            def run(**arguments: Any) -> Any:
                executed.append(tool.name)
                return tool.func(**arguments)

            return dataclasses.replace(tool, func=run)

        return ToolRegistry([wrap(t) for t in registry])

    monkeypatch.setattr(builtins, "build_default_registry", counting)
    return executed


def _frozen_set(settings: Settings, tmp_path: Path, n: int = 2) -> tuple[Path, list[dict[str, Any]]]:
    runs = flagged_runs(settings, n)
    path = tmp_path / "frozen.yaml"
    add_goals(path, [draft_from_record(r) for r in runs])
    return path, runs


def test_a_flagged_run_fails_the_same_way_on_recorded_tools(
    settings: Settings, tmp_path: Path, tool_executions: list[str]
) -> None:
    path, runs = _frozen_set(settings, tmp_path)
    goal_set = load_goal_set(path)
    result = EvalRun(goal_set, [Target("offline")], settings=settings, tool_mode="recorded").run()
    assert result["tool_mode"] == "recorded" and len(result["runs"]) == 2
    assert tool_executions == []  # 0 live tool calls
    for row, source in zip(sorted(result["runs"], key=lambda r: r["goal_id"]), _by_goal(goal_set, runs)):
        assert row["passed"] is False and row["live_tool_calls"] == 0 and row["tool_mode"] == "recorded"
        assert [c["kind"] for c in row["checks"] if c["passed"] is False] == ["grounded"]  # the same way
        record = load_record(settings.runs_dir / f"{row['run_id']}.json")
        assert record["answer"] == source["answer"] and record["grounding"] == source["grounding"]
        assert record["replay_of"] == source["run_id"] and record["tool_mode"] == "recorded"
        assert [c["source"] for c in record["tool_calls"]] == ["recorded"] * len(source["tool_calls"])
        assert record["eval_goal_id"] == row["goal_id"]

    # The same goals with live tools run the real calculator (so the counter above does count).
    live = EvalRun(goal_set, [Target("offline")], settings=settings, tool_mode="live").run()
    assert tool_executions == ["calculator", "calculator"]
    assert {r["live_tool_calls"] for r in live["runs"]} == {1} and {r["tool_mode"] for r in live["runs"]} == {"live"}


def _by_goal(goal_set: Any, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_run = {r["run_id"]: r for r in runs}
    return [by_run[g.from_run.run_id] for g in sorted(goal_set.goals, key=lambda g: g.id)]


def test_a_model_that_answers_from_the_results_passes_on_the_same_recording(
    settings: Settings, tmp_path: Path, tool_executions: list[str]
) -> None:
    run = offline_run(settings, "What's $110 with 6% off?")
    path = tmp_path / "frozen.yaml"
    add_goals(path, [draft_from_record(run)])
    goal_set = load_goal_set(path)
    price, percent = "110", "6"
    output = run["tool_calls"][0]["output"]

    def fixed(target: Target, goal: Any) -> ScriptedProvider:
        return ScriptedProvider(
            [
                {
                    "tool_calls": [
                        {"name": "calculator", "arguments": {"expression": f"{price} - {price} * {percent} / 10 / 10"}}
                    ]
                },
                {"text": f"With {percent}% off, ${price} comes to ${output}: {price} * (100 - {percent}) / 100."},
            ]
        )

    result = EvalRun(
        goal_set, [Target("offline")], settings=settings, tool_mode="recorded", provider_factory=fixed
    ).run()
    (row,) = result["runs"]
    assert row["passed"] is True and row["grounding_status"] == "grounded" and tool_executions == []


def test_goals_without_a_recording_are_refused_and_a_kept_run_is_read(
    settings: Settings, tmp_path: Path, tool_executions: list[str], monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    path, runs = _frozen_set(settings, tmp_path, n=1)
    data = yaml.safe_load(path.read_text("utf-8"))
    del data["goals"][0]["from_run"]["tool_calls"]  # only the run id: its record is read from the store
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")
    result = EvalRun(load_goal_set(path), [Target("offline")], settings=settings, tool_mode="recorded").run()
    assert result["runs"][0]["passed"] is False and tool_executions == []

    (settings.runs_dir / f"{runs[0]['run_id']}.json").unlink()
    with pytest.raises(ValueError, match="is not in the store: evaluate it with --tools live"):
        EvalRun(load_goal_set(path), [Target("offline")], settings=settings, tool_mode="recorded")
    plain = tmp_path / "plain.yaml"
    plain.write_text("name: p\ngoals:\n- id: a\n  goal: What is 2+2?\n  checks: [{answer_number: 4}]\n", "utf-8")
    with pytest.raises(ValueError, match="goal 'a' was not made from a run"):
        EvalRun(load_goal_set(plain), [Target("offline")], settings=settings, tool_mode="recorded")

    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("RETRY_DELAYS", "0")
    assert main(["eval", str(plain), "--tools", "recorded", "-q"]) == 2
    assert "was not made from a run" in capsys.readouterr().err
    (tmp_path / "again").mkdir()
    frozen, _ = _frozen_set(settings, tmp_path / "again", n=1)
    assert main(["eval", str(frozen), "--tools", "recorded", "-q"]) == 0
    out = capsys.readouterr().out
    assert "tools: recorded" in out and "grounded True" in out and tool_executions == []
