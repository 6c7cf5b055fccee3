"""Who decided: every tool call records ``origin`` (model or harness, with the rule) and every
step how its output was constrained, on every provider; the words the pages use say so."""

from __future__ import annotations

from agent_core.providers.offline import OfflineProvider
from agent_core.providers.scripted import SCRIPT_RULE, ScriptedProvider
from agent_core.records import decided
from agent_core.run.events import ModelCallFinished, events_from_record
from agent_core.run.loop import run_agent, run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import ToolRegistry
from tests.record_schema import assert_valid_record


def _registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def stock_level(sku: str) -> str:
        """How many units of a SKU are in stock."""
        return f"{sku}: 7 in stock"

    return reg


def test_a_scripted_model_run_records_origin_model_and_no_constraint(settings: Settings) -> None:
    provider = ScriptedProvider(
        [
            {"tool_calls": [{"name": "stock_level", "arguments": {"sku": "SKU-42"}}]},
            {"text": "SKU-42 has 7 in stock."},
        ]
    )
    record = run_to_end("stock of SKU-42?", provider=provider, registry=_registry(), settings=settings)
    assert_valid_record(record)
    (call,) = record["tool_calls"]
    assert call["origin"] == "model" and "harness_rule" not in call
    assert [s["constraint"] for s in record["steps"]] == [{"kind": "none"}, {"kind": "none"}]
    finished = [e for e in events_from_record(record) if isinstance(e, ModelCallFinished)]
    assert finished[0].choices == [{"tool": "stock_level", "arguments": {"sku": "SKU-42"}, "origin": "model"}]
    assert decided.choice_words(call) == '🧠 The model chose stock_level(sku="SKU-42")'


def test_a_harness_call_records_its_rule_live_and_in_the_record(settings: Settings) -> None:
    provider = ScriptedProvider(
        [
            {
                "tool_calls": [
                    {"name": "stock_level", "arguments": {"sku": "A"}, "origin": "harness", "harness_rule": "test rule"}
                ]
            },
            {"text": "done"},
        ]
    )
    events = list(run_agent("go", provider=provider, registry=_registry(), settings=settings))
    live = next(e for e in events if isinstance(e, ModelCallFinished) and e.tool_calls)
    assert live.choices[0]["origin"] == "harness" and live.choices[0]["harness_rule"] == "test rule"
    record = run_to_end(
        "go",
        provider=ScriptedProvider(
            [{"tool_calls": [{"name": "stock_level", "arguments": {"sku": "A"}}]}, {"text": "ok"}], origin="harness"
        ),
        registry=_registry(),
        settings=settings,
    )
    (call,) = record["tool_calls"]
    assert call["origin"] == "harness" and call["harness_rule"] == SCRIPT_RULE
    assert decided.choice_words(call).startswith('⚙ The workbench called stock_level(sku="A") for the model — rule: ')


def test_the_offline_demo_records_its_calls_as_its_rules(settings: Settings) -> None:
    record = run_to_end(
        "What is (24*7)+100?", provider=OfflineProvider(), registry=build_default_registry(settings), settings=settings
    )
    assert record["tool_calls"]
    for call in record["tool_calls"]:
        assert call["origin"] == "harness" and call["harness_rule"].startswith("offline demo rule: ")


def test_the_words_for_constraints_and_older_records() -> None:
    assert decided.constraint_words(None) == (
        "Output not constrained: the model chose freely among the tools its API was given."
    )
    words = decided.constraint_words(
        {
            "kind": "json-schema",
            "tools": ["calculator", "read_file"],
            "answer": True,
            "notes": ["figures only from results"],
        }
    )
    assert words == (
        "Output held to a JSON schema: one of 2 tools (calculator, read_file) or the final answer. "
        "Figures only from results."
    )
    assert "not recorded" in decided.choice_words({"tool": "x", "arguments": {}})
    # A line choice: the picked line (as the answer saw it), never one of a choice the record cannot hold.
    read = {"lines": ["a: $1", "b: $2"], "chosen": 2, "shown": "b: $2 (only b)"}
    assert decided.picked_line(read) == "b: $2 (only b)" and decided.picked_number(read) == 2
    assert decided.picked_line({"lines": ["a: $1", "b: $2"], "chosen": 1, "shown": ["x"]}) == "a: $1"
    for odd in (
        {"lines": ["a"], "chosen": 0, "shown": "a"},
        {"lines": ["a"], "chosen": 5},
        {"lines": ["a"], "chosen": True},
    ):
        assert decided.picked_line(odd) == "" and "answered from" not in decided.constraint_words(
            {"kind": "grammar", "answer": True, "line_choice": odd}, answered=True
        )
    assert decided.picked_number({"lines": "a", "chosen": 1}) is None and decided.picked_number(None) is None
    assert decided.origin_counts([{"origin": "model"}, {"origin": "harness"}, {}]) == {
        "model": 1,
        "harness": 1,
        "unknown": 1,
    }


def test_the_plain_summary_says_who_chose_the_calls(settings: Settings) -> None:
    from agent_core.analysis.explain import explain

    record = run_to_end(
        "What is (24*7)+100?", provider=OfflineProvider(), registry=build_default_registry(settings), settings=settings
    )
    assert (
        "(the workbench chose it)" in explain(record).text or "(the workbench chose every call" in explain(record).text
    )
    provider = ScriptedProvider([{"tool_calls": [{"name": "stock_level", "arguments": {"sku": "A"}}]}, {"text": "7"}])
    record = run_to_end("stock?", provider=provider, registry=_registry(), settings=settings)
    assert "It used the stock_level tool once (the model chose it)." in explain(record).text
