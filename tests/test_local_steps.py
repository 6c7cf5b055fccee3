"""Which tools a local step offers, and what the record says about how its output was held
(agent_core/providers/local/steps.py). Generic: the words of the goal against the tools' own
names, descriptions and parameter names; no tool is known by name."""

from __future__ import annotations

from agent_core.providers.local.steps import FIGURES_NOTE, MAX_OFFERED, constraint, offered_tools, relevance
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import Tool, make_tool


def _tool(name: str, description: str, *, fallback: str | None = None, param: str = "text") -> Tool:
    def func(text: str) -> str:
        return text

    parameters = {"type": "object", "properties": {param: {"type": "string"}}, "required": [param]}
    return make_tool(func, name=name, description=description, parameters=parameters, fallback=fallback)


def names(tools: list[Tool]) -> list[str]:
    return [t.name for t in tools]


def test_a_tool_that_is_anothers_fallback_is_not_offered(settings: Settings) -> None:
    tools = list(build_default_registry(settings))
    assert names(tools)[-3:-1] == ["search_web", "search_cached"]  # search_web falls back to search_cached
    assert names(offered_tools("anything", tools)) == [
        "calculator",
        "read_file",
        "lookup",
        "word_count",
        "search_documents",
        "get_weather",
        "search_web",
        "convert_measurement",
    ]
    # Enabled alone, the fallback is an ordinary tool.
    only = [t for t in tools if t.name == "search_cached"]
    assert names(offered_tools("anything", only)) == ["search_cached"]


def test_up_to_the_limit_every_tool_is_offered_in_registry_order() -> None:
    tools = [_tool(f"tool_{n}", f"Does thing number {n}.") for n in range(MAX_OFFERED)]
    assert offered_tools("nothing in common", tools) == tools


def test_above_the_limit_the_tools_sharing_most_words_with_the_goal_are_kept_in_registry_order() -> None:
    tools = [_tool(f"filler_{n}", "Does something unrelated.") for n in range(MAX_OFFERED)]
    tools.insert(3, _tool("stock_level", "How many units of a product are in stock.", param="sku"))
    tools.append(_tool("forecast", "Weather forecast for a city.", param="city"))
    tools.append(_tool("warehouse", "Where a product is stored.", param="sku"))
    assert len(tools) == MAX_OFFERED + 3
    goal = "What's the stock level of SKU-42 in the warehouse?"
    assert relevance(goal, tools[3]) == 2 * 2 + 2  # "stock" and "level" in the name, "stock" and "sku" besides
    assert relevance(goal, tools[-1]) == 2 * 1 + 1  # "warehouse" in the name, "sku" as its parameter
    assert relevance(goal, tools[-2]) == 0
    offered = offered_tools(goal, tools)
    # The two that meet the goal, then the first fillers (ties keep their order) up to the limit.
    assert names(offered) == [
        "filler_0",
        "filler_1",
        "filler_2",
        "stock_level",
        *[f"filler_{n}" for n in range(3, 8)],
    ] + ["warehouse"]
    assert "forecast" not in names(offered) and len(offered) == MAX_OFFERED
    assert names(offered_tools(goal, tools, limit=2)) == ["stock_level", "warehouse"]


def test_relevance_reads_words_not_substrings_in_either_language() -> None:
    tool = _tool("get_exchange_rate", "환율: the exchange rate between two currencies.", param="currency")
    assert relevance("What is the exchange rate of the won?", tool) == 2 * 2 + 2  # name twice, description once
    assert relevance("오늘 환율 알려줘", tool) == 1
    assert relevance("Exchange rates?", tool) == relevance("exchange rate", tool)  # plurals and case
    assert relevance("ratex", tool) == 0


def test_the_constraint_says_which_tools_and_whether_the_answer_was_allowed() -> None:
    tools = [_tool("a_tool", "A."), _tool("b_tool", "B.")]
    assert constraint(tools, answer=True, figures=True) == {
        "kind": "grammar",
        "tools": ["a_tool", "b_tool"],
        "answer": True,
        "notes": [FIGURES_NOTE],
    }
    assert constraint([], answer=False, figures=False) == {"kind": "grammar", "tools": [], "answer": False, "notes": []}
    assert FIGURES_NOTE == "figures in the answer only from the goal or the tool results"
