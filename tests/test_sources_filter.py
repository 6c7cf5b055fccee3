"""History's Source filter (issue 35, item 5): by default people's own runs, with a line saying how
many others it hides; remembered for the session and followed by Tool stats; an eval's link still
shows that eval's runs."""

from __future__ import annotations

import json
from pathlib import Path

from test_pages import app, data_dir, offline_run, scripted_run  # noqa: F401 - data_dir is a fixture

from agent_core.records.sources import source_of


def _mark(root: Path, run_id: str, **fields: str) -> None:
    path = root / "runs" / f"{run_id}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record.update(fields)
    path.write_text(json.dumps(record), encoding="utf-8")


def test_source_of_a_record() -> None:
    assert source_of({}) == "own"
    assert source_of({"scripted": True}) == "demo"
    assert source_of({"scripted": True, "eval_id": "e1"}) == "eval"  # an eval on the scripted model
    assert source_of({"arena_id": "a"}) == "arena" and source_of({"replay_of": "r"}) == "replay"


def test_history_shows_your_runs_and_says_how_many_are_hidden(data_dir: Path) -> None:  # noqa: F811
    mine = offline_run("What is (24*7)+100?")
    demo = scripted_run(
        "Scripted weather",
        [{"text": "", "tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}, {"text": "2"}],
    )
    evals = [offline_run(f"What is {n}+{n}?") for n in range(3)]
    for n, record in enumerate(evals):
        _mark(data_dir, record["run_id"], eval_id="ev-1", eval_goal_id=f"g{n}")

    at = app("pages/history.py", every_source=False)
    table = at.dataframe[0].value
    assert list(table["run_id"]) == [mine["run_id"]]
    captions = " ".join(c.value for c in at.caption)
    assert "1 of 5 runs shown" in captions
    assert "3 eval runs and 1 demo are hidden (the **Source** filter)" in captions, captions

    # Every source: all five; the choice holds on Tool stats (the same filter) and back on History.
    at.multiselect(key="runs_sources").set_value([]).run()
    assert len(at.dataframe[0].value) == 5
    at.multiselect(key="runs_sources").set_value(["demo"]).run()
    assert list(at.dataframe[0].value["run_id"]) == [demo["run_id"]]
    at.switch_page("pages/tool_stats.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.multiselect(key="runs_sources").value == ["demo"]
    assert {m.label: m.value for m in at.metric}["Tool calls"] == "1"  # the demo's one call
    at.multiselect(key="runs_sources").set_value(["own"]).run()
    assert {m.label: m.value for m in at.metric}["Tool calls"] == str(len(mine["tool_calls"]))
    at.switch_page("pages/history.py").run()
    assert list(at.dataframe[0].value["run_id"]) == [mine["run_id"]]


def test_the_source_choice_is_kept_in_the_address(data_dir: Path) -> None:  # noqa: F811
    """A reload or a shared link keeps the choice: ``?source=eval``; ``all`` for every source; the
    default (your own runs) writes nothing."""
    offline_run("What is (24*7)+100?")
    record = offline_run("What is 2+2?")
    _mark(data_dir, record["run_id"], eval_id="ev-1", eval_goal_id="g1")
    at = app("pages/history.py", every_source=False)
    assert "source" not in at.query_params
    at.multiselect(key="runs_sources").set_value(["eval"]).run()
    assert at.query_params["source"] in (["eval"], "eval")
    at.multiselect(key="runs_sources").set_value([]).run()
    assert at.query_params["source"] in (["all"], "all")

    fresh = app("pages/history.py", every_source=False, query={"source": "eval"})
    assert fresh.multiselect(key="runs_sources").value == ["eval"]
    assert list(fresh.dataframe[0].value["run_id"]) == [record["run_id"]]
    every = app("pages/history.py", every_source=False, query={"source": "all"})
    assert every.multiselect(key="runs_sources").value == [] and len(every.dataframe[0].value) == 2
    junk = app("pages/history.py", every_source=False, query={"source": "nonsense"})
    assert junk.multiselect(key="runs_sources").value == ["own"]
