"""Goals made from saved runs: checks pre-filled from what the run did, its run and tool results
kept, no goal added twice, the goal-set file kept as the analyst wrote it; ``goals add`` and
``goals from-filter``."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent_core.cli.main import main
from agent_core.evals.from_runs import add_goals, draft_from_record, goal_key, proposed_checks
from agent_core.evals.goalset import GoalSetError, load_goal_set
from agent_core.records.labels import FolderLabels, Label
from agent_core.settings import Settings
from tests.goals_kit import flagged_runs, offline_run


def test_checks_are_pre_filled_from_the_run(settings: Settings) -> None:
    (flagged,) = flagged_runs(settings, 1)
    draft = draft_from_record(flagged)
    assert draft.goal == flagged["goal"] and draft.run_id == flagged["run_id"]
    assert draft.provider == "offline" and draft.model == flagged["model"]
    assert draft.tools == flagged["settings"]["tools"] and draft.max_steps == flagged["settings"]["max_steps"]
    # the tools it called; no figure (its only figure is the flagged one); an answer that must be grounded
    assert draft.checks == [{"tool_used": ["calculator"]}, {"grounded": True}]
    (call,) = draft.tool_calls
    assert call["tool"] == "calculator" and call["output"] == flagged["tool_calls"][0]["output"]

    grounded = offline_run(settings, "What's the weather in Paris?")
    assert grounded["grounding"]["status"] == "grounded"
    assert proposed_checks(grounded) == [{"tool_used": ["get_weather"]}, {"answer_number": 19}, {"grounded": True}]
    shop = offline_run(settings, "When is the next operations meeting? Read notes.txt")
    dates = [c for c in proposed_checks(shop) if "answer_contains" in c]
    assert dates and all(d in shop["answer"] for d in dates[0]["answer_contains"])

    # a person's corrected answer gives the figures instead of the run's
    label = Label.make(flagged["run_id"], "fail", corrected_answer="It costs $112.80, or 112.8 dollars.")
    assert draft_from_record(flagged, label).checks == [
        {"tool_used": ["calculator"]},
        {"answer_number": 112.8},
        {"grounded": True},
    ]
    nothing = Label.make(flagged["run_id"], "fail", corrected_answer="The documents do not say.")
    assert {"answer_not_found": True} in draft_from_record(flagged, nothing).checks
    # a run that did not complete must complete
    stopped = offline_run(settings.replace(max_steps=1), "What is the unit price and the total for 12 units?")
    assert stopped["status"] == "max_steps" and {"status": ["completed"]} in proposed_checks(stopped)


def test_tools_this_installation_does_not_know_are_left_out_and_said(settings: Settings) -> None:
    (record,) = flagged_runs(settings, 1)
    record = copy.deepcopy(record)
    record["settings"]["tools"] = ["calculator", "hammer", "crm__lookup_customer"]
    draft = draft_from_record(record)
    # an MCP server's tool (server__tool) may be named by a goal set; a name of neither kind is not
    assert draft.tools == ["calculator", "crm__lookup_customer"] and "hammer" in draft.notes[0]
    with pytest.raises(ValueError):
        draft_from_record({"run_id": "x", "goal": "  "})


def test_adding_goals_skips_the_same_goal_and_keeps_the_file(settings: Settings, tmp_path: Path) -> None:
    records = flagged_runs(settings, 4)
    target = tmp_path / "sets" / "regressions.yaml"
    first = add_goals(target, [draft_from_record(r) for r in records[:3]])
    assert first.created and len(first.added) == 3 and not first.duplicates
    loaded = load_goal_set(target)
    assert loaded.name == "regressions" and loaded.provider == "offline"
    assert [g.from_run.run_id for g in loaded.goals if g.from_run] == [r["run_id"] for r in records[:3]]
    # The analyst edits the file: a comment, a check changed. Adding more keeps both.
    text = target.read_text(encoding="utf-8").replace("goals:\n", "goals:\n  # made from flagged runs\n", 1)
    target.write_text(text.replace("grounded: true", "grounded: true  # the point", 1), encoding="utf-8")
    again = add_goals(target, [draft_from_record(r) for r in records])
    assert len(again.added) == 1 and [r for r, _ in again.duplicates] == [r["run_id"] for r in records[:3]]
    after = target.read_text(encoding="utf-8")
    assert (
        after.startswith(text.split("goals:\n")[0]) and "# made from flagged runs" in after and "# the point" in after
    )
    assert len(load_goal_set(target).goals) == 4
    assert add_goals(target, [draft_from_record(r) for r in records]).added == []  # re-adding adds 0

    # The same text with other tools is another goal; a taken id gets a suffix.
    other = draft_from_record(records[0])
    other.tools = ["calculator"]
    assert goal_key(other.goal, other.tools) != draft_from_record(records[0]).key
    result = add_goals(target, [other])
    assert result.added == [draft_from_record(records[0]).id + "-2"]


def test_a_file_whose_goals_are_not_last_is_rewritten_and_a_bad_one_refused(settings: Settings, tmp_path: Path) -> None:
    (record,) = flagged_runs(settings, 1)
    target = tmp_path / "set.yaml"
    target.write_text(
        "name: mine\ngoals:\n- id: one\n  goal: hello\n  checks: [{status: completed}]\nprovider: offline\n", "utf-8"
    )
    assert add_goals(target, [draft_from_record(record)]).added
    data = yaml.safe_load(target.read_text("utf-8"))
    assert [g["id"] for g in data["goals"]][0] == "one" and data["provider"] == "offline" and len(data["goals"]) == 2
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\ngoals:\n- id: a\n  goal: b\n  checks: [{nope: 1}]\n", "utf-8")
    with pytest.raises(GoalSetError):
        add_goals(broken, [draft_from_record(record)])
    assert "nope" in broken.read_text("utf-8")  # untouched
    draft = draft_from_record(record)
    draft.checks = [{"answer_number": "not a number"}]
    with pytest.raises(GoalSetError):
        add_goals(tmp_path / "new.yaml", [draft])
    assert not (tmp_path / "new.yaml").exists()


def test_goals_add_and_from_filter(settings: Settings, monkeypatch: Any, capsys: Any) -> None:
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    flagged = flagged_runs(settings, 3)
    fine = offline_run(settings, "What's the weather in Paris?")
    target = settings.data_dir / "goal_sets" / "flagged.yaml"
    assert main(["goals", "from-filter", "--flagged", "--to", str(target)]) == 0
    out = capsys.readouterr().out
    assert "3 goal(s) added to made" in out and fine["run_id"] not in out
    assert {g.from_run.run_id for g in load_goal_set(target).goals if g.from_run} == {r["run_id"] for r in flagged}
    assert main(["goals", "from-filter", "--flagged", "--to", str(target)]) == 0
    assert "0 goal(s) added" in capsys.readouterr().out
    # by label: the runs people failed, with their corrected answers
    FolderLabels.beside(settings.runs_dir).put([Label.make(fine["run_id"], "fail", corrected_answer="It is 21 °C")])
    assert main(["goals", "from-filter", "--label", "fail", "--to", str(target), "--json"]) == 0
    report = __import__("json").loads(capsys.readouterr().out)
    assert len(report["added"]) == 1 and not report["duplicates"]
    goal = load_goal_set(target).goal(report["added"][0])
    assert goal.from_run is not None and goal.from_run.label == "fail"
    assert [c.arg for c in goal.checks if c.kind == "answer_number"] == [{"value": 21.0, "tolerance": 0.0}]
    assert main(["goals", "add", flagged[0]["run_id"], fine["run_id"], "--to", str(target)]) == 0
    assert "0 goal(s) added" in capsys.readouterr().out
    assert main(["goals", "add", "no-such-run", "--to", str(target)]) == 2
    assert main(["goals", "from-filter", "--label", "maybe", "--to", str(target)]) == 2
    assert main(["goals", "from-filter", "--min-cost", "5", "--to", str(target)]) == 0
    assert "no run passes these filters" in capsys.readouterr().err
