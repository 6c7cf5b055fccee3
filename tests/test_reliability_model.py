"""Reliability: whatever a model sends back, each bad tool call is refused and the run goes on.

Issue 7, case 7, through the REAL SDK providers (openai Responses, openai Chat Completions,
anthropic Messages) against the local fake server: invalid argument JSON, arguments that are
not an object, unknown tools, missing / extra / wrong-type arguments, an empty and a
10,000-character tool name, a duplicate call id, then 1,000 tool calls in one turn (only
``MAX_TOOL_CALLS_PER_TURN`` run; every call still gets an answer on the wire).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer, anthropic_body, chat_body, responses_body

from agent_core.providers.anthropic_messages import AnthropicProvider
from agent_core.providers.openai_chat import OpenAIChatProvider
from agent_core.providers.openai_responses import OpenAIResponsesProvider
from agent_core.records.files import load_record
from agent_core.run.events import ToolCallStarted
from agent_core.run.loop import MAX_TOOL_CALLS_PER_TURN, run_agent
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.record_schema import assert_valid_record

LONG_NAME = "n" * 10_000

# (call id, tool name, arguments as the model sent them, text expected in the refusal)
HOSTILE_CALLS: list[tuple[str, str, Any, str | tuple[str, ...]]] = [
    ("c_badjson", "calculator", '{"expression": "1+1"', "not valid JSON"),
    ("c_list", "calculator", "[1, 2]", "must be a JSON object, got list"),
    ("c_string", "calculator", '"1+1"', ("must be a JSON object, got str", "not valid JSON")),
    ("c_number", "calculator", "42", "must be a JSON object, got int"),
    ("c_unknown", "rm_rf", '{"path": "/"}', "Unknown tool 'rm_rf'. Available tools: calculator, read_file"),
    ("c_missing", "calculator", "{}", "missing argument(s): expression"),
    ("c_extra", "calculator", '{"expression": "1+1", "shell": "id"}', "unexpected argument(s): shell"),
    ("c_type", "calculator", '{"expression": 12}', "wrong type: expression"),
    ("c_nested", "get_weather", '{"city": {"$ne": null}}', "wrong type: city"),
    ("c_enum", "get_weather", '{"city": "Seoul", "unit": "kelvin"}', "unit"),
    ("c_long", LONG_NAME, "{}", "Unknown tool 'nnnn"),
    ("c_empty", "", "{}", "Unknown tool ''"),
    ("c_ok", "calculator", '{"expression": "6*7"}', ""),
    ("c_ok", "word_count", '{"text": "same id twice"}', ""),  # a model reusing an id
]


def as_object(arguments: str) -> Any:
    """Anthropic sends ``input`` as JSON; keep invalid JSON as the raw string the model produced."""
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


@dataclass
class Wire:
    """How one provider is built and how its follow-up requests carry tool results."""

    name: str
    make: Callable[[FakeLLMServer], Any]
    body: Callable[[list[tuple[str, str, Any]], str | None], dict[str, Any]]
    results: Callable[[dict[str, Any]], list[tuple[str, str]]]
    """(call id, output text) of every tool result in a request body, in order."""
    resend_many: bool = True
    """Send the 1,000 results back in a third request. The openai SDK needs ~5 s of CPU to encode
    a Responses request with 2,000 input items, so for it the run stops at the step limit instead
    (the per-call refusals are the same; chat and anthropic check the wire)."""


def _responses_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(i["call_id"], i["output"]) for i in body["input"] if i.get("type") == "function_call_output"]


def _chat_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m.get("role") == "tool"]


def _anthropic_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (b["tool_use_id"], b["content"])
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


WIRES = [
    Wire(
        "openai",
        lambda srv: OpenAIResponsesProvider(
            model="gpt-x", api_key="sk-proj-RELIABILITYKEY0123456789", base_url=srv.url("/v1"), timeout=10
        ),
        lambda calls, text: responses_body(text=text, calls=calls),
        _responses_results,
        resend_many=False,
    ),
    Wire(
        "openai-chat",
        lambda srv: OpenAIChatProvider(model="llama-x", base_url=srv.url("/v1"), timeout=10),
        lambda calls, text: chat_body(text=text, calls=calls),
        _chat_results,
    ),
    Wire(
        "anthropic",
        lambda srv: AnthropicProvider(
            model="claude-x", api_key="sk-ant-api03-RELIABILITYKEY0123456789", base_url=srv.url(), timeout=10
        ),
        lambda calls, text: anthropic_body(text=text, calls=[(c, n, as_object(a)) for c, n, a in calls]),
        _anthropic_results,
    ),
]


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.mark.filterwarnings("ignore::UserWarning")  # pydantic: a tool_use "input" that is not an object
@pytest.mark.parametrize("wire", WIRES, ids=[w.name for w in WIRES])
def test_hostile_tool_calls_through_the_real_sdk(wire: Wire, srv: FakeLLMServer, settings: Settings) -> None:
    many = [(f"m_{i:04d}", "calculator", json.dumps({"expression": f"{i}+1"})) for i in range(1000)]
    srv.push(wire.body([(c, n, a) for c, n, a, _ in HOSTILE_CALLS], "Trying everything."))
    srv.push(wire.body(many, None))
    if wire.resend_many:
        srv.push(wire.body([], "Done, despite it all."))
    provider = wire.make(srv)
    started = time.perf_counter()
    events = list(
        run_agent(
            "stress the engine",
            provider=provider,
            registry=build_default_registry(settings),
            settings=settings.replace(max_steps=3 if wire.resend_many else 2),
        )
    )
    elapsed = time.perf_counter() - started
    assert elapsed < 30
    assert srv.remaining == 0 and len(srv.requests) == (3 if wire.resend_many else 2)
    finished = events[-1]
    assert finished.status == ("completed" if wire.resend_many else "max_steps"), finished.error
    record = load_record(finished.path)
    assert_valid_record(record)
    assert record["answer"] == ("Done, despite it all." if wire.resend_many else None)

    # Turn 1: each bad call refused on its own, with the reason; the good ones ran.
    first = record["tool_calls"][: len(HOSTILE_CALLS)]
    for (call_id, _, _, reason), entry in zip(HOSTILE_CALLS, first, strict=True):
        assert entry["call_id"] == call_id
        if reason:
            assert entry["success"] is False and entry["error_category"] == "validation", (call_id, entry["output"])
            reasons = reason if isinstance(reason, tuple) else (reason,)
            assert entry["output"].startswith("ERROR: "), (call_id, entry["output"])
            assert any(r in entry["output"] for r in reasons), (call_id, entry["output"])
            assert entry["attempts"] == []  # nothing ran
        else:
            assert entry["success"] is True, (call_id, entry["output"])
    assert first[-2]["output"] == "42" and "3" in first[-1]["output"]
    long_entry = first[[c[0] for c in HOSTILE_CALLS].index("c_long")]
    assert len(long_entry["tool"]) <= 65 and len(long_entry["output"]) < 1000
    started_names = [e.tool for e in events if isinstance(e, ToolCallStarted)]
    assert max(len(n) for n in started_names) <= 64

    # Turn 2: 1,000 calls — the first MAX_TOOL_CALLS_PER_TURN ran, every other one was refused.
    second = record["tool_calls"][len(HOSTILE_CALLS) :]
    assert len(second) == 1000
    ran = MAX_TOOL_CALLS_PER_TURN
    assert [c["success"] for c in second] == [True] * ran + [False] * (1000 - ran)
    assert second[0]["output"] == "1" and second[MAX_TOOL_CALLS_PER_TURN - 1]["output"] == str(MAX_TOOL_CALLS_PER_TURN)
    assert all("Too many tool calls" in c["output"] for c in second[MAX_TOOL_CALLS_PER_TURN:])

    # On the wire: every call of a turn got its result in the next request, in order, linked by id.
    sent_1 = wire.results(srv.bodies[1])
    assert [cid for cid, _ in sent_1] == [c[0] for c in HOSTILE_CALLS]
    assert [out for _, out in sent_1] == [e["output"] for e in first]
    assert len(json.dumps(record)) < 5_000_000
    if not wire.resend_many:
        return
    sent_2 = wire.results(srv.bodies[2])  # both blocks are still within the context-block limit
    assert [cid for cid, _ in sent_2] == [c[0] for c in HOSTILE_CALLS] + [c[0] for c in many]
    assert [out for _, out in sent_2[len(HOSTILE_CALLS) :]] == [e["output"] for e in second]
