"""The first hour's last UI points (issue 19): History's table at 1400 and 800 px, one percent
format on Tool stats, waiting that looks alive, and the small texts that were wrong.

AppTest against a private data folder (the fixtures of tests/test_pages.py); the look at 800 px
itself is checked in tests/test_browser.py (the table a narrow window shows)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow
import pytest
import test_pages
from test_pages import app, offline_run, scripted_run

from pages import _history_ui


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tests/test_pages.py's private data folder (a workspace copy, no retry waits)."""
    return test_pages.data_dir.__wrapped__(tmp_path, monkeypatch)


def _columns(frame: Any) -> dict[str, Any]:
    return json.loads(frame.proto.columns)


def test_history_shows_the_analysts_columns_wide_and_the_essentials_narrow(data_dir: Path) -> None:
    offline_run("What is (24*7)+100?")
    at = app("pages/history.py")
    wide, narrow = at.dataframe
    # Wide: the numbers an analyst sorts by first, then provider and model (all in view at 1400 px).
    assert list(wide.proto.column_order)[:10] == [
        *("started_at", "status", "goal", "steps", "tool_calls", "duration_s", "cost_usd", "tokens"),
        *("provider", "model"),
    ]
    assert {"answer_check", "summary", "scripted"} <= set(wide.proto.column_order)
    # Narrow: only when, how it ended and what was asked; the rest under "Show/hide columns".
    assert list(narrow.proto.column_order) == ["started_at", "status", "goal"]
    assert _columns(narrow)["started_at"]["type_config"]["format"] == "MM-DD HH:mm"
    assert list(narrow.value["run_id"]) == list(wide.value["run_id"])  # the same runs, all columns at hand
    # One of the two per window width, by CSS on their containers.
    (style,) = [h.proto.body for h in at.get("html") if "history_narrow" in h.proto.body]
    assert (
        f"@media (min-width: {_history_ui.NARROW_BELOW_PX}px) {{ .st-key-history_narrow {{ display: none; }}" in style
    )
    assert ".st-key-history_wide { display: none; }" in style
    assert any("Show/hide columns" in c.value for c in at.caption)


def test_tool_stats_uses_one_percent_format(data_dir: Path) -> None:
    """Every rate on Tool stats is a whole percent: the progress columns ("67%", not "66.67%"),
    the metric, the chart axes and tooltips."""
    scripted_run(
        "a",
        [
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "2+2"}}]},
            {"text": "done 2"},
        ],
    )
    at = app("pages/tool_stats.py")
    assert not at.exception
    percent_columns = [
        (name, config["type_config"])
        for frame in at.dataframe
        for name, config in _columns(frame).items()
        if (config.get("type_config") or {}).get("format") == "percent"
    ]
    # Success and worked-when-called-correctly (per tool, twice per provider), ungrounded answers, chosen.
    assert {name for name, _ in percent_columns} >= {"success_rate", "reliable_rate", "ungrounded_rate", "choice_rate"}
    # Streamlit shows a "percent" column with (decimals of step - 2) digits: 0.01 -> whole percents.
    assert all(config.get("step") == 0.01 for _, config in percent_columns), percent_columns
    assert {m.label: m.value for m in at.metric}["Success rate"] == "67%"  # 2 of 3 (one refused repeat)
    for chart in (json.loads(c.proto.spec) for c in at.get("vega_lite_chart")):
        for channel in chart["encoding"].values():
            for item in channel if isinstance(channel, list) else [channel]:
                if isinstance(item, dict) and "rate" in str(item.get("field")) and "format" in item:
                    assert item["format"] == ".0%", item
    # The per-tool table has one duplicates column (the error-category copy of it is left out).
    per_tool = at.dataframe[0]
    assert "duplicates" in per_tool.proto.column_order and "err_duplicate" not in per_tool.proto.column_order


def test_tool_stats_duration_chart_reads_with_one_slow_tool(data_dir: Path) -> None:
    offline_run("What is (24*7)+100?")
    at = app("pages/tool_stats.py")
    specs = [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]
    durations = next(spec for spec in specs if "yOffset" in spec["encoding"])
    x = durations["encoding"]["x"]
    assert x["scale"] == {"type": "symlog"}
    ticks = x["axis"]["values"]
    assert ticks[:3] == [0, 1, 10] and all(b == a * 10 for a, b in zip(ticks[1:], ticks[2:]))
    assert "format(" in x["axis"]["labelExpr"]  # 10, 100, 1,000 — not 1e+1
    assert durations["encoding"]["y"]["axis"]["labelLimit"] >= 200  # "search_documents (n=5)" in full
    chart = next(c for c in at.get("vega_lite_chart") if "yOffset" in json.loads(c.proto.spec)["encoding"])
    tools = set(pyarrow.ipc.open_stream(chart.proto.data.data).read_pandas()["tool"])
    assert "calculator (n=1 · few)" in tools  # n per bar; under 5 calls marked as few
