"""The typed run record: the committed schema is generated from it, records match it, old ones read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from agent_core.errors import RecordError
from agent_core.records.files import load_record, parse_record
from agent_core.records.run_record import RunRecord, json_schema_text
from agent_core.run import demo
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from tests.record_schema import SCHEMA_PATH, assert_valid_record

REPO = Path(__file__).resolve().parent.parent
RECORD = TypeAdapter(RunRecord)

# A record as the engine wrote it before the record was typed (schema_version 1, no optional
# fields of the second round): it must keep reading and validating.
OLD_RECORD = {
    "schema_version": 1,
    "run_id": "019ad7a2-1c2b-7abc-8def-0123456789ab",
    "goal": "What is (24*7)+100?",
    "provider": "offline",
    "provider_label": "offline demo model — rule-based, no LLM",
    "model": "rules-v1",
    "scripted": False,
    "status": "completed",
    "settings": {
        "max_steps": 10,
        "max_context_blocks": 8,
        "max_tool_output_chars": 4000,
        "tools": ["calculator"],
        "retry_delays": [1.0, 2.0, 4.0],
        "tool_timeout": 30.0,
        "request_timeout": 60.0,
    },
    "started_at": "2026-11-30T10:00:00.000+00:00",
    "updated_at": "2026-11-30T10:00:00.050+00:00",
    "finished_at": "2026-11-30T10:00:00.050+00:00",
    "duration_ms": 50.2,
    "answer": "(24*7)+100 = 268",
    "error": None,
    "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
    "cost_usd": None,
    "steps": [
        {
            "index": 1,
            "started_at": "2026-11-30T10:00:00.001+00:00",
            "duration_ms": 20.0,
            "model_duration_ms": 1.0,
            "model_attempts": [{"attempt": 1, "success": True, "duration_ms": 1.0}],
            "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
            "blocks_sent": [],
            "blocks_trimmed": [],
            "tool_call_ids": ["call_1"],
            "text": "",
            "stop_reason": "tool_calls",
        },
        {
            "index": 2,
            "duration_ms": 2.0,
            "model_attempts": [{"attempt": 1, "success": True}],
            "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
            "blocks_sent": [0],
            "blocks_trimmed": [],
            "tool_call_ids": [],
        },
    ],
    "context_blocks": [
        {
            "index": 0,
            "step": 1,
            "chars": 30,
            "raw": [],
            "items": [
                {"kind": "tool_call", "call_id": "call_1", "tool": "calculator", "arguments": {"expression": "1"}},
                {"kind": "tool_output", "call_id": "call_1", "tool": "calculator", "output": "268", "is_error": False},
            ],
        },
    ],
    "tool_calls": [
        {
            "call_id": "call_1",
            "step": 1,
            "tool": "calculator",
            "arguments": {"expression": "(24*7)+100"},
            "success": True,
            "output": "268",
            "error": None,
            "error_category": None,
            "attempts": [
                {
                    "attempt": 1,
                    "success": True,
                    "error": None,
                    "error_category": None,
                    "duration_ms": 0.4,
                    "wait_s": 0.0,
                }
            ],
            "fallback": None,
            "duplicate": False,
            "truncated": False,
            "duration_ms": 0.5,
            "started_at": "2026-11-30T10:00:00.002+00:00",
        },
    ],
    "history": [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "What is (24*7)+100?"},
        {"role": "assistant", "content": "(24*7)+100 = 268", "final": True},
    ],
    "history_dropped": 0,
    "provider_meta": {},
    "owner": {"pid": 1, "host": "h"},
}


def test_committed_schema_is_generated_from_the_record_type() -> None:
    committed = SCHEMA_PATH.read_text(encoding="utf-8")
    assert committed == json_schema_text(), (
        "docs/run.schema.json is stale: run `python -m agent_core schema > docs/run.schema.json`"
    )


def test_schema_command_prints_the_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agent_core", "schema"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(json_schema_text())


def test_old_version_1_record_reads_and_validates(tmp_path: Path) -> None:
    path = tmp_path / f"{OLD_RECORD['run_id']}.json"
    path.write_text(json.dumps(OLD_RECORD), encoding="utf-8")
    record = load_record(path)
    assert record == OLD_RECORD
    assert_valid_record(record)
    RECORD.validate_python(record)


def test_unknown_version_is_refused_with_a_reason() -> None:
    with pytest.raises(RecordError, match="not a run record"):
        parse_record(json.dumps({**OLD_RECORD, "schema_version": 99}).encode(), "future.json")


def test_the_type_rejects_what_the_schema_rejects() -> None:
    bad = {**OLD_RECORD, "status": "finished"}
    with pytest.raises(ValidationError):
        RECORD.validate_python(bad)
    with pytest.raises(AssertionError, match="status"):
        assert_valid_record(bad)


def test_optional_fields_of_this_round_validate() -> None:
    record = {
        **OLD_RECORD,
        "eval_id": "e1",
        "eval_goal_id": "g1",
        "replay_of": OLD_RECORD["run_id"],
        "tool_mode": "hybrid",
        "arena_id": "a1",
        "user": "kim",
        "imported_from": "otlp",
        "grounding": {
            "status": "partly",
            "tools_used": 1,
            "claims": [
                {"text": "268", "value": 268, "kind": "number", "source": {"call_id": "call_1", "tool": "calculator"}},
                {"text": "24", "value": 24, "kind": "number", "source": {"goal": True}},
                {"text": "7%", "value": 7, "kind": "percent", "source": None},
            ],
        },
        "tool_calls": [{**OLD_RECORD["tool_calls"][0], "source": "recorded"}],
    }
    assert_valid_record(record)
    RECORD.validate_python(record)
    with pytest.raises(AssertionError, match="grounding"):
        assert_valid_record({**record, "grounding": {"status": "maybe", "tools_used": 1, "claims": []}})


def test_what_the_engine_writes_matches_the_type(settings: Settings) -> None:
    """The demo tour touches retries, a fallback, a duplicate, bad JSON and trimming."""
    prepared = demo.prepare("tour", settings)
    record = run_to_end(
        prepared.goal,
        provider=prepared.provider,
        registry=prepared.registry,
        settings=prepared.settings,
        scripted=True,
        rng=prepared.rng,
        record_extra={"eval_id": "e1", "user": "kim"},
    )
    assert record["status"] == "completed"
    assert record["eval_id"] == "e1" and record["user"] == "kim"
    assert any(c["fallback"] for c in record["tool_calls"]) and any(c["duplicate"] for c in record["tool_calls"])
    assert_valid_record(record)
    RECORD.validate_python(record)
