"""AppTest checks of the Compare page and History's "select runs → Compare"."""

from __future__ import annotations

from pathlib import Path

from tests.test_pages import (
    HOSTILE,
    app,
    data_dir,  # noqa: F401 — the fixture
    live_markup,
    markdown_texts,
    offline_run,
    scripted_run,
)


def test_compare_page_banner_header_alignment_and_bad_ids(data_dir: Path) -> None:  # noqa: F811
    a = offline_run("What is (24*7)+100?")
    b = scripted_run(
        "What is (24*7)+100?",
        [{"tool_calls": [{"name": "lookup", "arguments": {"topic": HOSTILE}}]}, {"text": "Found " + HOSTILE}],
    )
    at = app("pages/compare.py", {"runs": f"{a['run_id']},{b['run_id']}"})
    warnings = [w.value for w in at.warning]
    assert any("First divergence" in w and "run B called lookup instead of calculator" in w for w in warnings), warnings
    frames = [df.value for df in at.dataframe]
    header = frames[0]
    assert list(header.columns) == ["measure", "A (baseline)", "B"]
    assert "Tool calls" in set(header["measure"])
    aligned = frames[1]
    assert "only in run A" in set(aligned["Note"]) and "only in run B" in set(aligned["Note"])
    assert all(live_markup(t) == [] for t in markdown_texts(at))
    # Run B as the baseline: the sentence names run A.
    at.selectbox(key="cmp_baseline").set_value(1).run()
    assert any("run A called calculator instead of lookup" in w.value for w in at.warning)
    # A missing run is named and left out; one run left is not a comparison.
    at = app("pages/compare.py", {"runs": f"{a['run_id']},nope"})
    assert any("nope" in e.value for e in at.error)
    assert any("Fewer than 2" in w.value for w in at.warning)


def test_history_select_runs_then_compare(data_dir: Path) -> None:  # noqa: F811
    a = offline_run("What is 2+2?")
    b = offline_run("What is 2+3?")  # (AppTest picks options by label: the labels must differ)
    at = app("pages/history.py")
    picker = at.multiselect(key="history_compare")
    assert at.button(key="history_compare_go").disabled
    picker.set_value([a["run_id"], b["run_id"]]).run()
    at.button(key="history_compare_go").click().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["⚖️ Compare runs"]
    assert any("run B called calculator with different arguments" in w.value for w in at.warning)


def test_history_replay_on_offline_with_recorded_tools(data_dir: Path) -> None:  # noqa: F811
    from tests.test_pages import records

    source = offline_run("What is (24*7)+100?")
    at = app("pages/history.py", {"run": source["run_id"]})
    key = f"replay_{source['run_id']}"
    assert at.selectbox(key=f"{key}_provider").value == "offline"
    at.button(key=f"FormSubmitter:{key}_form-Replay").click().run()
    assert not at.exception, [e.value for e in at.exception]
    saved = [r for r in records(data_dir) if r.get("replay_of") == source["run_id"]]
    assert len(saved) == 1 and saved[0]["tool_calls"][0]["source"] == "recorded"
    assert saved[0]["answer"] == source["answer"]


def test_run_page_arena_two_models_side_by_side(data_dir: Path) -> None:  # noqa: F811
    from tests.test_pages import records

    at = app("pages/run.py")
    at.text_area(key="run_goal").set_value("What is (24*7)+100?")
    at.multiselect(key="arena_models").set_value(["offline:offline-planner-1"]).run()
    at.text_area(key="arena_extra").set_value("offline:\nnope:x").run()
    at.button(key="arena_start").click().run()
    assert any("unknown provider" in e.value and "nope" in e.value for e in at.error)
    at.text_area(key="arena_extra").set_value("offline:").run()
    at.button(key="arena_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    saved = records(data_dir)
    assert len(saved) == 2 and len({r["arena_id"] for r in saved}) == 1 and saved[0]["arena_id"]
    texts = [t.value for t in at.text]
    assert any(t.startswith("Run A — offline · offline-planner-1: answered in") for t in texts), texts
    assert any("No divergence" in s.value for s in at.success)
