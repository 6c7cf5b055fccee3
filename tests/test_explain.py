"""Plain-language summaries and failure explanations, on real records made by the engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import textstat

from agent_core.analysis.explain import CAUSES, HINTS, explain, one_line_from_row, plain_phrase
from agent_core.analysis.explain_ai import check_ai_text, explain_with_ai, provider_asker
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import effective_status
from agent_core.settings import Settings
from tests.explain_fixtures import CASES, build_all

JARGON = re.compile(r"(?i)\b(span|payload|exception|stack ?trace|traceback|error_category|call_id)\b")
CLASS_NAME = re.compile(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b")  # TransientToolError, AuthenticationError …


@pytest.fixture(scope="module")
def fixture_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explain") / "agent_data"
    (root / "runs").mkdir(parents=True)
    (root / "workspace").mkdir()
    return root


@pytest.fixture(scope="module")
def records(fixture_root: Path) -> dict[str, dict[str, Any]]:
    settings = Settings(data_dir=fixture_root, retry_delays=(0.0, 0.0, 0.0), tool_timeout=5.0, request_timeout=5.0)
    return build_all(settings)


def test_enough_fixtures() -> None:
    combos = {(c.status, c.category) for c in CASES}
    assert len(combos) >= 12
    assert {c.status for c in CASES} == {"completed", "max_steps", "error", "cancelled", "interrupted"}
    assert {c.category for c in CASES} >= {None, "validation", "transient", "timeout", "duplicate", "non_transient"}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_summary_of_each_fixture(case: Any, records: dict[str, dict[str, Any]]) -> None:
    record = records[case.name]
    assert effective_status(record) == case.status
    result = explain(record)
    text = result.text
    assert 3 <= len(result.sentences) <= 6, text
    assert len(text.split()) <= 120, text
    assert textstat.flesch_reading_ease(text) >= 60, text
    assert not JARGON.search(text) and not CLASS_NAME.search(text), text
    assert not JARGON.search(result.one_line) and not CLASS_NAME.search(result.one_line)
    if case.category:
        # The failing tool is named, in the category's plain phrase.
        assert plain_phrase(case.category, case.tool) in text, text
    # Each sentence points at a step the run has (or at the run as a whole).
    indexes = {s["index"] for s in record["steps"]}
    assert all(s.step is None or s.step in indexes for s in result.sentences)
    assert result.sentences[0].topic == "outcome" and result.sentences[-1].topic == "cost"
    failure = result.failure
    if case.cause is None:
        assert failure is None
    else:
        assert failure is not None and failure.cause == case.cause, (failure, text)
        assert failure.cause in CAUSES and failure.hints
        assert set(failure.hints) <= set(HINTS.values()) | {HINTS["switch_off_tool"].format(tool=failure.tool)}
        assert not CLASS_NAME.search(failure.headline + " ".join(failure.hints))
        assert result.one_line.startswith(failure.headline.rstrip("."))
    # Engine words stay in the technical details.
    error = record.get("error") or {}
    if error.get("type") and error["type"] not in ("Cancelled",):
        assert any(error["type"] in line for line in result.technical)
        assert error["type"] not in text


def test_hints_fit_the_cause(records: dict[str, dict[str, Any]]) -> None:
    assert explain(records["error-auth-after-retry"]).failure.hints[0] == HINTS["check_key"]
    assert explain(records["max_steps-plain"]).failure.hints[0] == HINTS["raise_limit"]
    tool_failed = explain(records["max_steps-validation"]).failure
    assert HINTS["other_model"] in tool_failed.hints
    assert HINTS["switch_off_tool"].format(tool="add") in tool_failed.hints
    assert HINTS["shorten_goal"] in explain(records["max_steps-duplicate"]).failure.hints


def test_priority_provider_beats_an_unrecovered_tool(records: dict[str, dict[str, Any]]) -> None:
    # error-busy-non-transient has both a tool that failed for good and a provider outage.
    record = records["error-busy-non-transient"]
    assert any(not c["success"] for c in record["tool_calls"])
    assert explain(record).failure.cause == "provider"
    # Without the provider's failure, the tool is the cause.
    steps = [s for s in record["steps"] if all(a.get("success") for a in s["model_attempts"])]
    assert explain({**record, "steps": steps, "status": "cancelled"}).failure.cause == "tool_failed"


def test_one_line_from_index_fields() -> None:
    assert one_line_from_row("completed", 3, 4, 1) == "Answered in 3 steps, 4 tool calls (1 failed)."
    assert one_line_from_row("max_steps", 10, 0, 0) == "Ran out of steps (10)."
    assert one_line_from_row("interrupted", 1, 1, 0) == "Cut off after 1 step, 1 tool call."


def test_grounding_sentence(records: dict[str, dict[str, Any]]) -> None:
    text = explain(records["completed-ungrounded"]).text
    assert "may be made up" in text
    grounded = {
        **records["completed"],
        "grounding": {
            "status": "grounded",
            "tools_used": ["add"],
            "claims": [{"text": "5", "value": 5, "kind": "number", "source": {"call_id": "x", "tool": "add"}}],
        },
    }
    assert "Every number in the answer was found" in explain(grounded).text
    goal_only = {"text": "15", "value": "15", "kind": "number", "source": {"goal": True}}
    echoed = {**records["completed"], "grounding": {"status": "no_claims", "tools_used": 1, "claims": [goal_only]}}
    assert "only repeat your goal, so nothing in it was checked against a tool result" in explain(echoed).text
    # a figure the results hold for another row or quantity is "not backed", not "not found"
    other_row = {"text": "$60", "value": "$60", "kind": "money", "source": None, "reason": "the results give …"}
    backed = {**records["completed"], "grounding": {"status": "ungrounded", "tools_used": 1, "claims": [other_row]}}
    assert "were not backed by the tool results, so they may be wrong (see the answer check)" in explain(backed).text
    partly = {**backed, "grounding": {**backed["grounding"], "status": "partly"}}
    assert "One number in the answer was not backed by the tool results, so check it." in explain(partly).text


def test_ai_guard_rejects_one_wrong_number(records: dict[str, dict[str, Any]]) -> None:
    result = explain(records["max_steps-duplicate"])
    good = "The agent used all 3 of its steps. It kept asking the add tool for the same thing."
    bad = "The agent used all 7 of its steps. It kept asking the add tool for the same thing."
    provider = ScriptedProvider([{"text": bad}, {"text": good}, {"text": "It called the get_weather tool."}])
    ask = provider_asker(provider)
    text, note = explain_with_ai(result, ask)
    assert text == result.text and note and "7" in note
    assert "Facts about the run" in provider.requests[0].goal and not provider.requests[0].tools
    assert explain_with_ai(result, ask) == (good, None)
    text, note = explain_with_ai(result, ask)
    assert text == result.text and "get_weather" in note
    assert check_ai_text("It used the add tool 3 times.", result) is None
    assert check_ai_text("It used the calculator tool.", result, known_tools=["calculator"]) is not None


def test_ai_failure_falls_back_to_the_template(records: dict[str, dict[str, Any]]) -> None:
    result = explain(records["completed"])

    def broken(instructions: str, prompt: str) -> str:
        raise ConnectionError("down")

    text, note = explain_with_ai(result, broken)
    assert text == result.text and "could not be asked" in note


def test_odd_records_do_not_crash() -> None:
    for record in (
        {},
        {"status": "error", "steps": "x", "tool_calls": [1, None]},
        {"status": "completed", "steps": [{"index": 1}], "tool_calls": [{"tool": None}], "duration_ms": "x"},
    ):
        result = explain(record)
        assert result.sentences and result.one_line


def test_cli_summary(
    records: dict[str, dict[str, Any]],
    fixture_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agent_core.cli.main import main

    record = records["max_steps-plain"]
    monkeypatch.setenv("AGENT_DATA_DIR", str(fixture_root))
    assert main(["summary", record["run_id"]]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The agent used all 3 of its steps")
    assert "What you can try:" in out and HINTS["raise_limit"] in out
    assert main(["summary", record["run_id"], "--one-line"]) == 0
    assert capsys.readouterr().out.strip() == explain(record).one_line
    assert main(["summary", "no-such-run"]) == 2
    assert "no saved run" in capsys.readouterr().err
