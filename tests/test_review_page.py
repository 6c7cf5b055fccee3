"""AppTest of the pages of "from runs to goal sets": the Review queue, History's label column and
filters, Add to a goal set (one run, every run of the filter), Tool stats by label, and an eval of
the goals on their recorded tools from the Evals page."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from agent_core.evals.goalset import load_goal_set  # noqa: E402
from agent_core.records.labels import FolderLabels, Label  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from tests.goals_kit import flagged_runs, offline_run  # noqa: E402


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    root = tmp_path / "agent_data"
    shutil.copytree(ROOT / "agent_data" / "workspace", root / "workspace")
    (root / "runs").mkdir()
    monkeypatch.setenv("AGENT_DATA_DIR", str(root))
    monkeypatch.setenv("RETRY_DELAYS", "0,0")
    monkeypatch.setenv("SEARCH_WEB_FAILURE_RATE", "0")
    return Settings.from_env(dotenv=False)


def _page(path: str, query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page(path)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _labels(config: Settings) -> dict[str, Label]:
    return {x.run_id: x for x in FolderLabels.beside(config.runs_dir).all()}


def _progress(at: AppTest) -> str:
    return str(at.get("progress")[0].proto.text)


def test_the_review_queue_labels_skips_and_goes_back(config: Settings) -> None:
    flagged = flagged_runs(config, 3)  # newest last
    offline_run(config, "What's the weather in Paris?")  # grounded: not in the flagged queue
    at = _page("pages/review.py")
    assert "0 labelled this session · 3 left in this queue" in _progress(at)
    assert [b.label for b in at.button] == ["✓ Pass", "✗ Fail", "Skip", "← Back"]
    newest = flagged[-1]
    figure = re.search(r"\d+", newest["goal"]).group()  # type: ignore[union-attr]
    assert any(m.value.startswith("**Goal**") and figure in m.value for m in at.markdown)
    at.text_input(key=f"review_reason_{newest['run_id']}").input("the 100 is made up")
    at.text_area(key=f"review_answer_{newest['run_id']}").input("It comes to $112.80")
    at.button(key="review_fail").click().run()
    label = _labels(config)[newest["run_id"]]
    assert (label.verdict, label.reason, label.corrected_answer) == (
        "fail",
        "the 100 is made up",
        "It comes to $112.80",
    )
    assert "1 labelled this session · 2 left" in _progress(at)
    second = flagged[-2]["run_id"]
    at.button(key="review_skip").click().run()
    assert "1 skipped" in _progress(at) and second not in _labels(config)
    at.button(key="review_back_button").click().run()  # back to the run labelled first: relabel it
    at.button(key="review_pass").click().run()
    assert _labels(config)[newest["run_id"]].verdict == "pass"
    at.button(key="review_pass").click().run()
    assert set(_labels(config)) == {newest["run_id"], flagged[0]["run_id"]}
    assert any("Nothing left to label" in s.value for s in at.success)
    at.button(key="review_restart").click().run()  # the skipped one comes back
    at.button(key="review_fail").click().run()
    assert set(_labels(config)) == {r["run_id"] for r in flagged}
    assert not at.exception


def test_history_label_column_filters_and_adding_runs_to_a_goal_set(config: Settings) -> None:
    flagged = flagged_runs(config, 3)
    fine = offline_run(config, "What's the weather in Paris?")
    FolderLabels.beside(config.runs_dir).put([Label.make(flagged[0]["run_id"], "fail", reason="made up")])
    at = _page("pages/history.py")
    table = at.dataframe[0].value.set_index("run_id")
    assert table.loc[flagged[0]["run_id"], "label"] == "✗ fail" and table.loc[fine["run_id"], "label"] == ""
    assert "retries" in table.columns
    at.multiselect(key="history_labels").set_value(["fail"]).run()
    assert list(at.dataframe[0].value["run_id"]) == [flagged[0]["run_id"]]
    at.multiselect(key="history_labels").set_value([""]).run()
    assert len(at.dataframe[0].value) == 3
    at.multiselect(key="history_labels").set_value([]).run()
    at.number_input(key="history_min_retries").set_value(0).run()
    assert at.dataframe[0].value.empty  # no run here retried anything
    at.number_input(key="history_min_retries").set_value(None).run()

    # every run of the filter: the flagged ones
    at.multiselect(key="history_checks").set_value(["⚠️ partly"]).run()
    assert len(at.dataframe[0].value) == 3
    at.session_state["goals_bulk_panel"] = True  # the expander opened
    at.run()
    preview = at.dataframe[0].value if "checks" in at.dataframe[0].value.columns else at.dataframe[1].value
    assert len(preview) == 3 and all("grounded true" in c for c in preview["checks"])
    at.button(key="goals_add_bulk").click().run()
    assert any("Added 3 goal(s)" in s.value for s in at.success), [s.value for s in at.success]
    target = config.data_dir / "goal_sets" / "from-runs.yaml"
    assert len(load_goal_set(target).goals) == 3
    at.button(key="goals_add_bulk").click().run()
    assert any("3 already in" in i.value for i in at.info)
    assert len(load_goal_set(target).goals) == 3

    # one run, from its detail: the checks to confirm or edit, then Next run
    at.session_state["goals_bulk_panel"] = False
    at.multiselect(key="history_checks").set_value([]).run()
    at.selectbox(key="history_pick").select(fine["run_id"]).run()
    at.session_state["goals_run_panel"] = True
    at.run()
    assert at.selectbox(key="goals_target").value == "from-runs.yaml"  # the set made above
    at.button(key="goals_add_run").click().run()
    assert any("Added 1 goal(s)" in s.value for s in at.success)
    goal = next(g for g in load_goal_set(target).goals if g.from_run and g.from_run.run_id == fine["run_id"])
    assert [c.kind for c in goal.checks] == ["tool_used", "answer_number", "grounded"]
    # its verdict from the detail
    at.text_input(key=f"labels_reason_{fine['run_id']}").input("right figure")
    at.button(key="labels_pass").click().run()
    assert _labels(config)[fine["run_id"]].reason == "right figure"
    assert at.button(key="history_next") is not None
    assert not at.exception


def test_tool_stats_by_label_and_an_eval_on_recorded_tools(config: Settings) -> None:
    from agent_core.evals.from_runs import add_goals, draft_from_record

    flagged = flagged_runs(config, 2)
    offline_run(config, "What's the weather in Paris?")
    FolderLabels.beside(config.runs_dir).put([Label.make(flagged[0]["run_id"], "fail")])
    at = _page("pages/tool_stats.py")
    at.multiselect(key="stats_labels").set_value(["fail"]).run()
    assert not at.exception
    assert any(m.label == "Tool calls" and m.value == "1" for m in at.metric)

    add_goals(config.data_dir / "goal_sets" / "regressions.yaml", [draft_from_record(r) for r in flagged])
    at = _page("pages/evals.py")
    at.selectbox(key="evals_set").select("regressions — goal_sets/regressions.yaml").run()
    assert at.radio(key="evals_tools_regressions").value == "recorded"
    at.button(key="evals_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    runs = [r for r in (config.runs_dir).glob("*.json")]
    assert len(runs) == 2 + 1 + 2  # the two eval runs saved like any other
    # people's label of an eval run shows beside its verdict
    eval_id = at.query_params["eval"]
    eval_id = eval_id[0] if isinstance(eval_id, list) else eval_id
    from agent_core.evals.runner import load_result

    result = load_result(eval_id, config)
    assert {r["tool_mode"] for r in result["runs"]} == {"recorded"} and not any(r["passed"] for r in result["runs"])
    FolderLabels.beside(config.runs_dir).put([Label.make(result["runs"][0]["run_id"], "pass")])
    at.run()
    assert any("disagree on 1" in c.value for c in at.caption)


def test_a_record_with_odd_values_can_be_reviewed_and_made_a_goal(config: Settings) -> None:
    """A hand-made record with values of the wrong types (tests/test_reliability_store.py): the
    Review page shows it, History's panels open on it, and it becomes a goal (what cannot be
    carried over is left out)."""
    import json

    from agent_core.evals.from_runs import add_goals, draft_from_record
    from tests.test_reliability_store import ODD_RECORD

    (config.runs_dir / f"{ODD_RECORD['run_id']}.json").write_text(json.dumps(ODD_RECORD), "utf-8")
    at = _page("pages/review.py")
    at.selectbox(key="review_queue").select("all").run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="review_fail").click().run()
    assert _labels(config)[ODD_RECORD["run_id"]].verdict == "fail"
    at = _page("pages/history.py", {"run": ODD_RECORD["run_id"]})
    at.session_state["goals_run_panel"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    draft = draft_from_record(ODD_RECORD)
    assert draft.tools is None and draft.tool_calls == [] and {"status": ["completed"]} in draft.checks
    assert add_goals(config.data_dir / "goal_sets" / "odd.yaml", [draft]).added
