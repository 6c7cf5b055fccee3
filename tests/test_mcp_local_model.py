"""The local model finishes a goal through an MCP tool it was never tuned on: it picks the tool from
the name, description and schema the server gave (a real model run, ``local_model``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.providers import local
from agent_core.run.prepare import prepare_run
from tests.mcp_kit import close_sessions, data_dir, stdio_entry
from tests.record_schema import assert_valid_record


@pytest.fixture(autouse=True)
def fresh_hub() -> Iterator[None]:
    close_sessions()
    yield
    close_sessions()


@pytest.mark.local_model
def test_the_local_model_finishes_a_goal_through_an_mcp_tool(tmp_path: Path) -> None:
    hint = local.availability()
    if hint:
        pytest.skip(f"local model not installed: {hint}")
    settings = data_dir(tmp_path, {"warehouse": stdio_entry()}, request_timeout=120.0)
    prepared = prepare_run(
        "How many units of item A-100 are in stock in the warehouse?",
        "local",
        settings=settings,
        tools=["calculator", "read_file", "get_weather", "warehouse__stock_level", "warehouse__delete_order"],
    )
    record = prepared.run_to_end()
    assert_valid_record(record)
    assert record["status"] == "completed", record.get("error")
    calls = [c for c in record["tool_calls"] if c["tool"] == "warehouse__stock_level" and c["success"]]
    assert calls, [(c["tool"], c["arguments"], c["output"][:80]) for c in record["tool_calls"]]
    assert calls[0]["origin"] == "model"
    assert calls[0]["tool_source"] == "mcp" and calls[0]["server"] == "warehouse"
    assert calls[0]["annotations"]["readOnlyHint"] is True
    assert "17" in (record["answer"] or "")
    assert not any(c["tool"] == "warehouse__delete_order" for c in record["tool_calls"])
