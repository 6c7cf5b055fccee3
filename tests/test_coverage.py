"""Tool coverage per tool × provider/model, checked against hand-counted data."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from agent_core.providers.scripted import ScriptedProvider
from agent_core.records import files as records
from agent_core.records.columns import RUN_COLUMN_SPEC
from agent_core.records.coverage import (
    OfferedTools,
    coverage_table,
    harness_only_from_table,
    never_chosen,
    offered_frame,
    offered_from_runs,
    offered_rows,
    validation_matrix,
)
from agent_core.records.filters import filter_calls
from agent_core.records.queries import NOT_RECORDED, tool_stats_tables
from agent_core.records.store import RunStore
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from tests.explain_fixtures import Tools, answer, call

OFFERED = {
    "r1": ("openai", "gpt-a", ["calculator", "lookup", "get_weather"]),
    "r2": ("openai", "gpt-a", ["calculator", "lookup", "get_weather"]),
    "r3": ("anthropic", "claude-b", ["calculator", "lookup"]),
    "r4": ("anthropic", "claude-b", ["calculator", "lookup", "lookup"]),  # a repeated name counts once
}
CALLS = [  # run, tool, error_category
    ("r1", "calculator", "validation"),
    ("r1", "calculator", None),
    ("r1", "lookup", None),
    ("r2", "calculator", None),
    ("r3", "lookup", "validation"),
    ("r3", "lookup", "validation"),
    ("r3", "made_up_tool", "validation"),
]


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    offered = offered_frame(
        row
        for rid, (p, m, tools) in OFFERED.items()
        for row in offered_rows({"run_id": rid, "provider": p, "model": m, "settings": {"tools": tools}})
    )
    calls = pd.DataFrame(
        [
            {"run_id": r, "provider": OFFERED[r][0], "model": OFFERED[r][1], "tool": t, "error_category": c}
            for r, t, c in CALLS
        ]
    )
    calls["error_category"] = calls["error_category"].astype("str")  # as in the store: Arrow text with <NA>
    return offered, calls


def test_coverage_matches_hand_count() -> None:
    offered, calls = _frames()
    table = coverage_table(offered, calls)
    got = {
        (r.provider, r.model, r.tool): (r.runs_offered, r.runs_chosen, r.calls, r.validation_failures, r.never_chosen)
        for r in table.itertuples()
    }
    assert got == {
        ("openai", "gpt-a", "calculator"): (2, 2, 3, 1, False),
        ("openai", "gpt-a", "lookup"): (2, 1, 1, 0, False),
        ("openai", "gpt-a", "get_weather"): (2, 0, 0, 0, True),
        ("anthropic", "claude-b", "calculator"): (2, 0, 0, 0, True),
        ("anthropic", "claude-b", "lookup"): (2, 1, 2, 2, False),
        ("anthropic", "claude-b", "made_up_tool"): (0, 1, 1, 1, False),
    }
    rates = dict(zip(table["tool"] + "/" + table["model"], table["choice_rate"]))
    assert (
        rates["calculator/gpt-a"] == 1.0 and rates["lookup/gpt-a"] == 0.5 and math.isnan(rates["made_up_tool/claude-b"])
    )
    assert never_chosen(offered, calls) == ["get_weather"]
    per_tool = coverage_table(offered, calls, by=())
    assert per_tool.set_index("tool").loc[
        "calculator", ["runs_offered", "runs_chosen", "validation_failures"]
    ].tolist() == [4, 2, 1]
    matrix = validation_matrix(table)
    assert matrix.loc["lookup", "anthropic · claude-b"] == 2 and matrix.loc["calculator", "openai · gpt-a"] == 1
    assert matrix.loc["lookup", "openai · gpt-a"] == 0 and "get_weather" not in matrix.index


WHO = ["model", "model", "harness", "harness", None, "harness", "model"]
"""Who chose each of :data:`CALLS` (None: a record from before calls said)."""


def test_model_chosen_calls_are_counted_apart() -> None:
    offered, calls = _frames()
    calls["origin"] = pd.array(WHO, dtype="str")
    table = coverage_table(offered, calls)
    counted = ["runs_chosen", "runs_by_model", "calls", "calls_by_model", "calls_by_harness", "harness_only"]
    got = {(m, t): tuple(row) for m, t, *row in table[["model", "tool", *counted]].itertuples(index=False)}
    assert got == {
        ("gpt-a", "calculator"): (2, 1, 3, 2, 1, False),  # r2's call was the workbench's
        ("gpt-a", "lookup"): (1, 0, 1, 0, 1, True),  # only the workbench called it: no evidence the model can
        ("gpt-a", "get_weather"): (0, 0, 0, 0, 0, False),
        ("claude-b", "calculator"): (0, 0, 0, 0, 0, False),
        ("claude-b", "lookup"): (1, 0, 2, 0, 1, False),  # one call's chooser not recorded: not "only the workbench"
        ("claude-b", "made_up_tool"): (1, 1, 1, 1, 0, False),
    }
    rates = dict(zip(table["tool"] + "/" + table["model"], table["model_choice_rate"]))
    assert rates["calculator/gpt-a"] == 0.5 and rates["lookup/gpt-a"] == 0.0
    assert math.isnan(rates["made_up_tool/claude-b"])  # called, never offered
    assert harness_only_from_table(table) == [("lookup", "openai", "gpt-a")]  # (claude-b: one not recorded)
    # Without the column (a table from before origin was stored) nothing counts as either.
    older = coverage_table(offered, calls.drop(columns=["origin"]))
    assert older[["runs_by_model", "calls_by_model", "calls_by_harness"]].to_numpy().sum() == 0
    same = ["provider", "model", "tool", "runs_offered", "runs_chosen", "choice_rate", "calls", "never_chosen"]
    assert not older["harness_only"].any() and older[same].equals(table[same])


def test_tool_stats_count_who_chose_the_calls() -> None:
    _, calls = _frames()
    calls = calls.assign(
        origin=pd.array(WHO, dtype="str"),
        success=True,
        retried=False,
        fallback=pd.array([None] * len(WHO), dtype="str"),
        duplicate=False,
        duration_ms=1.0,
        run_started_at="2026-01-02T03:04:05+00:00",
    )
    tables = tool_stats_tables(calls)
    assert tables is not None and (tables["by_model"], tables["by_harness"]) == (3, 3)  # and 1 not recorded
    per_tool = tables["tool"].set_index("tool")
    assert per_tool[["calls", "by_model", "by_harness"]].to_dict("index") == {
        "calculator": {"calls": 3, "by_model": 2, "by_harness": 1},
        "lookup": {"calls": 3, "by_model": 0, "by_harness": 2},
        "made_up_tool": {"calls": 1, "by_model": 1, "by_harness": 0},
    }
    assert list(per_tool.columns[:3]) == ["calls", "by_model", "by_harness"]
    by_model = tables["provider_model"].set_index("model")
    assert by_model.loc["gpt-a", ["by_model", "by_harness"]].tolist() == [2, 2]
    assert by_model.loc["claude-b", ["by_model", "by_harness"]].tolist() == [1, 1]
    for origins, n in ((["model"], 3), (["harness"], 3), ([NOT_RECORDED], 1), (["model", NOT_RECORDED], 4)):
        assert len(filter_calls(calls, origins=origins)) == n, origins
    assert filter_calls(calls, origins=[NOT_RECORDED])["tool"].tolist() == ["lookup"]


def test_coverage_from_saved_runs(settings: Settings) -> None:
    tools = Tools()
    offered_names = ["add", "web_search", "cached_search"]
    registry = tools.registry.subset(offered_names)
    run_to_end(
        "a",
        provider=ScriptedProvider([call("add", {"a": "x", "b": 1}), call("add", {"a": 1, "b": 1}), answer("2")]),
        registry=registry,
        settings=settings,
    )
    run_to_end("b", provider=ScriptedProvider([answer("none")]), registry=registry, settings=settings)
    store = RunStore(settings.runs_dir, persist=False)
    store.refresh()
    cache = OfferedTools()
    offered, missing = cache.rows(store, store.runs()["run_id"])
    assert not missing and sorted(offered["tool"].unique()) == sorted(offered_names) and len(offered) == 6
    again, _ = cache.rows(store, store.runs()["run_id"])
    assert again.equals(offered)
    table = coverage_table(offered, store.tool_calls()).set_index("tool")
    assert table.loc["add", ["runs_offered", "runs_chosen", "calls", "validation_failures"]].tolist() == [2, 1, 2, 1]
    assert table.loc["web_search", "never_chosen"] and never_chosen(offered, store.tool_calls()) == [
        "cached_search",
        "web_search",
    ]


def test_coverage_reads_no_record(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """Offered tools come from the run summary index: after the store has read the folder once,
    coverage (and a new store on the same index) never opens a record file."""
    mp = monkeypatch
    tools = Tools()
    registry = tools.registry.subset(["add", "web_search"])
    run_to_end(
        "a",
        provider=ScriptedProvider([call("add", {"a": 1, "b": 1}), answer("2")]),
        registry=registry,
        settings=settings,
    )
    first = RunStore(settings.runs_dir)
    first.refresh()
    if first.index is not None:
        first.index.close()

    def no_reading(*args: object, **kwargs: object) -> None:
        raise AssertionError("coverage read a record file")

    mp.setattr(RunStore, "load", no_reading)
    mp.setattr(records, "load_record", no_reading)
    mp.setattr(records, "parse_record", no_reading)
    mp.setattr("agent_core.records.index.parse_record", no_reading)
    store = RunStore(settings.runs_dir)  # a new process: summaries from the index
    store.refresh()
    offered = offered_from_runs(store.runs())
    assert sorted(offered["tool"]) == ["add", "web_search"]
    table = coverage_table(offered, store.tool_calls()).set_index("tool")
    assert table.loc["add", ["runs_offered", "runs_chosen", "calls"]].tolist() == [1, 1, 1]
    assert table.loc["web_search", "never_chosen"]
    again, missing = OfferedTools().rows(store, store.runs()["run_id"])
    assert not missing and again.equals(offered)


def test_hand_count_through_the_run_table() -> None:
    """The index column gives the same offered frame as the records' settings.tools."""
    column = next(c for c in RUN_COLUMN_SPEC if c.name == "tools_offered")
    records_ = [
        {"run_id": rid, "provider": p, "model": m, "settings": {"tools": tools}}
        for rid, (p, m, tools) in OFFERED.items()
    ]
    records_.append({"run_id": "r5", "provider": "x", "model": "y", "settings": {"tools": [1, None]}})
    runs = pd.DataFrame(
        [
            {
                "run_id": r["run_id"],
                "provider": r["provider"],
                "model": r["model"],
                "tools_offered": column.value(r, None),
            }  # type: ignore[arg-type]
            for r in records_
        ]
    )
    assert column.value(records_[-1], None) is None  # type: ignore[arg-type]
    expected, _ = _frames()
    assert offered_from_runs(runs).equals(expected)
    table = coverage_table(offered_from_runs(runs), _frames()[1])
    assert table.equals(coverage_table(*_frames()))
