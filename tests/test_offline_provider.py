"""The offline demo planner: rules, step-by-step plans from hand-made tool results, honesty,
determinism, trimmed history, disabled tools, and (at the end) whole runs through the real loop."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent_core.context import ContextBlock, ToolOutput
from agent_core.providers import offline
from agent_core.providers.base import ModelRequest, ModelResponse, Provider
from agent_core.providers.offline.rules import (
    classify,
    extract_cities,
    extract_expression,
    extract_path,
    extract_quantity,
    extract_search_query,
    extract_web_query,
)
from agent_core.tools.registry import Tool

ALL_TOOLS = (
    "calculator",
    "read_file",
    "lookup",
    "word_count",
    "search_documents",
    "get_weather",
    "search_web",
    "search_cached",
)

# Outputs shaped like the built-in tools' (agent_core/tools), so the plans meet realistic text.
FACTS = {
    "단가": "단가: 개당 $24 (unit price: $24 per unit)",
    "unit price": "Unit price: $24 per unit (단가: 개당 $24)",
    "환불 정책": "환불 정책: 배송 후 30일 이내 환불 가능합니다 (refund policy: within 30 days of delivery)",
    "refund policy": "Refund policy: refunds are accepted within 30 days of delivery",
    "배송": "배송: $500 이상 구매 시 무료 배송 (shipping: free on orders of $500 or more)",
    "shipping": "Shipping: free shipping on orders of $500 or more",
}
WEATHER = {
    "Seoul": (22, "sunny"),
    "서울": (22, "맑음"),
    "Tokyo": (25, "cloudy"),
    "Busan": (24, "partly cloudy"),
}
HITS = [
    {
        "document": "refund_policy.md",
        "section": "Refund window",
        "score": 3.2,
        "snippet": "You can request a refund within 30 days of delivery.",
    },
    {
        "document": "환불_안내.md",
        "section": "환불 정책",
        "score": 2.9,
        "snippet": "제품 배송 후 30일 이내에 환불을 요청할 수 있습니다.",
    },
]


def fake_tool(name: str, args: dict) -> str:
    """Stand-ins for the built-in tools; failures come back as ``ERROR: …`` like the dispatcher's."""
    if name == "lookup":
        return FACTS.get(args["topic"], f"ERROR: lookup failed: ValueError: no internal fact about {args['topic']!r}")
    if name == "calculator":
        return str(eval(args["expression"], {"__builtins__": {}}))  # test fake only; the real tool uses ast
    if name == "get_weather":
        if args["city"] not in WEATHER:
            return f"ERROR: get_weather failed: ValueError: no weather data for {args['city']!r}"
        celsius, condition = WEATHER[args["city"]]
        temp = celsius if args.get("unit") != "fahrenheit" else round(celsius * 9 / 5 + 32, 1)
        return json.dumps(
            {"city": args["city"], "temperature": temp, "unit": args.get("unit"), "condition": condition},
            ensure_ascii=False,
        )
    if name == "word_count":
        return str(len(args["text"].split()))
    if name == "read_file":
        if args["path"] == "notes.txt":
            return "Operations meeting — 2026-08-12\nAttendees: Minji, Daniel\n\nRefunds\n- keep 30 days"
        return f"ERROR: read_file failed: ValueError: no file {args['path']!r} in the workspace"
    if name == "search_documents":
        return json.dumps(HITS, ensure_ascii=False)
    if name == "search_web":
        return "ERROR: search_web failed after 3 attempts: TimeoutError: simulated"
    return f"ERROR: unknown tool {name}"


def tools(*names: str) -> list[Tool]:
    return [Tool(n, f"the {n} tool", lambda **_: None, {"type": "object", "properties": {}}) for n in names]


def request(goal: str, blocks: list[ContextBlock] | None = None, *, enabled=ALL_TOOLS, step: int = 1) -> ModelRequest:
    return ModelRequest(instructions="system prompt", goal=goal, blocks=blocks or [], tools=tools(*enabled), step=step)


def block_for(response: ModelResponse, step: int, outputs: list[str]) -> ContextBlock:
    """The context block the loop would build from a response and its tool outputs."""
    return ContextBlock(
        index=step - 1,
        step=step,
        provider="offline",
        text=response.text,
        tool_calls=response.tool_calls,
        outputs=[
            ToolOutput(c.call_id, c.name, out, out.startswith("ERROR")) for c, out in zip(response.tool_calls, outputs)
        ],
        raw=response.raw,
    )


def drive(
    goal: str,
    *,
    enabled=ALL_TOOLS,
    tool: Callable[[str, dict], str] = fake_tool,
    max_blocks: int = 8,
    max_steps: int = 10,
) -> tuple[str, list[ModelResponse]]:
    """A minimal loop (not agent_core.run.loop): plan, run the fake tools, keep the last blocks."""
    provider = offline.create(model=None, base_url=None, settings=None)
    blocks: list[ContextBlock] = []
    responses = []
    for step in range(1, max_steps + 1):
        response = provider.complete(request(goal, blocks[-max_blocks:], enabled=enabled, step=step))
        responses.append(response)
        if not response.tool_calls:
            return response.text, responses
        blocks.append(block_for(response, step, [tool(c.name, c.arguments) for c in response.tool_calls]))
    raise AssertionError(f"no answer after {max_steps} steps: {[r.tool_calls for r in responses]}")


def calls_of(responses: list[ModelResponse]) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for r in responses for c in r.tool_calls]


# ---------------------------------------------------------------- the module and the interface


def test_module_contract() -> None:
    assert offline.PROVIDER_ID == "offline"
    assert offline.LABEL == "offline demo model — rule-based, no LLM"
    assert offline.DEFAULT_MODEL == "offline-planner-1"
    assert offline.USES_BASE_URL is False
    assert offline.availability() is None
    provider = offline.create(model=None, base_url=None, settings=None)
    assert isinstance(provider, Provider)
    assert (provider.id, provider.model, provider.label) == ("offline", "offline-planner-1", offline.LABEL)
    assert offline.create(model="custom", base_url=None, settings=None).model == "custom"
    assert list(provider.prepare()) == []


def test_listed_in_the_catalogue() -> None:
    from agent_core.providers import provider_info

    info = provider_info("offline")
    assert info.available and info.label == offline.LABEL and not info.uses_base_url


# ---------------------------------------------------------------- the seed goal, step by step


def test_seed_goal_step_by_step_in_korean() -> None:
    provider = offline.create(model=None, base_url=None, settings=None)
    goal = "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요."

    first = provider.complete(request(goal, step=1))
    assert first.stop_reason == "tool_calls"
    assert [(c.call_id, c.name, c.arguments) for c in first.tool_calls] == [("call_1_1", "lookup", {"topic": "단가"})]
    assert first.raw[0]["type"] == "offline_plan" and first.raw[0]["intent"] == "price_total"

    b1 = block_for(first, 1, [FACTS["단가"]])
    second = provider.complete(request(goal, [b1], step=2))
    assert [(c.call_id, c.name, c.arguments) for c in second.tool_calls] == [
        ("call_2_1", "calculator", {"expression": "24 * 7"})
    ]

    b2 = block_for(second, 2, ["168"])
    third = provider.complete(request(goal, [b1, b2], step=3))
    assert third.tool_calls == [] and third.stop_reason == "end_turn"
    assert third.text == "제품 7개의 총 가격은 $168입니다 (단가 $24 × 7)."


@pytest.mark.parametrize(
    ("goal", "expression", "total"),
    [
        ("Look up the unit price and compute the total for 12 units", "24 * 12", "$288"),
        ("How much do 5 items cost?", "24 * 5", "$120"),
        ("What is the total price of 3 pcs?", "24 * 3", "$72"),
        ("제품 10개 가격은 얼마인가요?", "24 * 10", "$240"),
        ("단가 기준으로 세 개 사면 총 얼마야?", "24 * 3", "$72"),
    ],
)
def test_price_totals_for_other_quantities(goal: str, expression: str, total: str) -> None:
    answer, responses = drive(goal)
    assert calls_of(responses)[1] == ("calculator", {"expression": expression})
    assert total in answer


def test_price_answer_survives_trimming_to_one_block() -> None:
    answer, _ = drive("Look up the unit price and compute the total for 12 units", max_blocks=1)
    assert answer == "The total for 12 units is $288 (unit price $24 × 12)."


def test_price_falls_back_when_lookup_fails() -> None:
    def no_lookup(name: str, args: dict) -> str:
        if name == "lookup":
            return "ERROR: lookup failed: ValueError: no internal fact"
        if name == "search_documents":
            return json.dumps(
                [
                    {
                        "document": "pricing.md",
                        "section": "Unit price",
                        "snippet": "The standard product costs $24 per unit.",
                    }
                ]
            )
        return fake_tool(name, args)

    answer, responses = drive("Compute the total price for 4 units", tool=no_lookup)
    names = [n for n, _ in calls_of(responses)]
    assert names == ["lookup", "lookup", "search_documents", "calculator"]
    assert "$96" in answer


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("What is (24*7)+100?", "(24*7)+100"),
        ("What is 3 times 4 plus 2?", "3 * 4 + 2"),
        ("계산해: 15% of 200", "(15 / 100 * 200)"),
        ("7 × 24 는?", "7 * 24"),
        ("What is 1,000 x 3?", "1000 * 3"),
        ("2^10 please", "2 ** 10"),
        ("100 나누기 4 더하기 1", "100 / 4 + 1"),
        ("Compute 10 - 3", "10 - 3"),
    ],
)
def test_expression_extraction(goal: str, expression: str) -> None:
    assert extract_expression(goal) == expression


@pytest.mark.parametrize("goal", ["What is 7?", "notes for 2026-08-12", "hello", "refund within 30 days"])
def test_no_expression_without_an_operator(goal: str) -> None:
    assert extract_expression(goal) is None
    assert classify(goal).kind != "calculate"


def test_calculation_goal() -> None:
    answer, responses = drive("What is (24*7)+100?")
    assert calls_of(responses) == [("calculator", {"expression": "(24*7)+100"})]
    assert answer == "(24*7)+100 = 268"
    answer, _ = drive("(24*7)+100 계산해 줘")
    assert "268" in answer and "계산 결과" in answer


# ---------------------------------------------------------------- policies


def test_refund_policy_quotes_lookup() -> None:
    answer, responses = drive("What is the refund policy?")
    assert calls_of(responses) == [("lookup", {"topic": "refund policy"})]
    assert "30 days" in answer and FACTS["refund policy"] in answer


def test_korean_shipping_policy() -> None:
    answer, responses = drive("배송비 정책 알려줘")
    assert calls_of(responses) == [("lookup", {"topic": "배송"})]
    assert "$500" in answer and "lookup 결과" in answer


@pytest.mark.parametrize(
    ("goal", "verdict"),
    [
        ("Is shipping free for a $600 order?", "so shipping is free"),
        ("Is shipping free for a $300 order?", "does not apply"),
        ("600달러 주문이면 배송비가 무료인가요?", "무료 배송 대상입니다"),
    ],
)
def test_shipping_threshold_comparison(goal: str, verdict: str) -> None:
    answer, _ = drive(goal)
    assert verdict in answer


def test_two_topics_in_one_turn() -> None:
    answer, responses = drive("환불 정책과 배송 정책 알려줘")
    assert len(responses[0].tool_calls) == 2
    assert [c.call_id for c in responses[0].tool_calls] == ["call_1_1", "call_1_2"]
    assert "30일" in answer and "$500" in answer


def test_unknown_policy_tries_lookup_then_documents() -> None:
    answer, responses = drive("What is the warranty policy?")
    assert calls_of(responses) == [
        ("lookup", {"topic": "warranty policy"}),
        ("search_documents", {"query": "warranty policy"}),
    ]
    assert "lookup failed" in answer and "refund_policy.md" in answer


# ---------------------------------------------------------------- weather


def test_weather_in_fahrenheit() -> None:
    answer, responses = drive("What's the weather in Seoul in fahrenheit?")
    assert calls_of(responses) == [("get_weather", {"city": "Seoul", "unit": "fahrenheit"})]
    assert "71.6°F" in answer and "sunny" in answer and "simulated" in answer


def test_weather_in_korean() -> None:
    answer, responses = drive("서울 날씨 알려줘")
    assert calls_of(responses) == [("get_weather", {"city": "서울", "unit": "celsius"})]
    assert "22°C" in answer and "맑음" in answer


def test_weather_for_two_cities_and_alias_retry() -> None:
    answer, responses = drive("What's the weather in Tokyo and Seoul?")
    assert len(responses[0].tool_calls) == 2 and "Tokyo: 25°C" in answer and "Seoul: 22°C" in answer
    answer, responses = drive("부산 날씨 어때?")  # the fake knows only "Busan": retried with the alias
    assert calls_of(responses) == [
        ("get_weather", {"city": "부산", "unit": "celsius"}),
        ("get_weather", {"city": "Busan", "unit": "celsius"}),
    ]
    assert "24°C" in answer


def test_weather_unknown_city_is_honest() -> None:
    answer, responses = drive("Weather in Atlantis")
    assert len(calls_of(responses)) == 1 and "no weather data" in answer


def test_weather_without_city_asks() -> None:
    answer, responses = drive("날씨 알려줘")
    assert calls_of(responses) == [] and "도시" in answer


@pytest.mark.parametrize(
    ("goal", "cities"),
    [
        ("weather in New York", ["New York"]),
        ("도쿄와 서울 날씨", ["도쿄", "서울"]),
        ("Weather for Reykjavik?", ["Reykjavik"]),
    ],
)
def test_city_extraction(goal: str, cities: list[str]) -> None:
    assert [c.name for c in extract_cities(goal)] == cities


# ---------------------------------------------------------------- words, files, search


def test_word_count_of_quoted_text() -> None:
    answer, responses = drive('Count the words in "the quick brown fox"')
    assert calls_of(responses) == [("word_count", {"text": "the quick brown fox"})]
    assert answer == '"the quick brown fox" has 4 words.'
    answer, _ = drive("“하나 둘 셋”의 단어 수를 세어줘")
    assert "3개" in answer


def test_word_count_of_a_file_reads_it_first() -> None:
    answer, responses = drive("How many words are in notes.txt?")
    assert [n for n, _ in calls_of(responses)] == ["read_file", "word_count"]
    assert answer.startswith("notes.txt has ")


def test_read_file_answers_with_an_extract() -> None:
    answer, responses = drive("Read notes.txt and summarize")
    assert calls_of(responses) == [("read_file", {"path": "notes.txt"})]
    assert "Operations meeting — 2026-08-12" in answer and "extract" in answer


def test_read_missing_file_is_honest() -> None:
    answer, responses = drive("Read missing.txt")
    assert len(calls_of(responses)) == 1 and "no file 'missing.txt'" in answer


@pytest.mark.parametrize(
    ("goal", "path"),
    [
        ("Read notes.txt", "notes.txt"),
        ("환불_안내.md 읽어줘", "환불_안내.md"),
        ("notes.txt를 요약해줘", "notes.txt"),
        ("open docs/pricing.md", "docs/pricing.md"),
    ],
)
def test_path_extraction(goal: str, path: str) -> None:
    assert extract_path(goal) == path


@pytest.mark.parametrize(
    ("goal", "query"),
    [
        ("Search the documents for refund", "refund"),
        ("문서에서 환불 찾아줘", "환불"),
        ("find shipping in the docs", "shipping"),
        ("Search the documents for 'free shipping'", "free shipping"),
    ],
)
def test_search_query_extraction(goal: str, query: str) -> None:
    assert classify(goal).kind == "search_documents"
    assert extract_search_query(goal) == query


def test_document_search_lists_results() -> None:
    answer, responses = drive("Search the documents for refund")
    assert calls_of(responses) == [("search_documents", {"query": "refund"})]
    assert "1. refund_policy.md › Refund window" in answer and "2. 환불_안내.md" in answer
    answer, _ = drive("문서에서 환불 찾아줘")
    assert "'환불' 검색 결과" in answer


def test_web_search_error_is_reported_not_repeated() -> None:
    assert extract_web_query("search the web for streamlit") == "streamlit"
    answer, responses = drive("search the web for streamlit")
    assert calls_of(responses) == [("search_web", {"query": "streamlit"})]
    assert "ERROR" in answer and "search_web" in answer


def test_web_search_uses_cached_when_only_it_is_enabled() -> None:
    cached = '{"query": "python", "source": "cache", "results": [{"title": "Python docs", "url": "https://docs.python.org/3/"}]}'
    answer, responses = drive("Search the web for python", enabled=("search_cached",), tool=lambda n, a: cached)
    assert calls_of(responses) == [("search_cached", {"query": "python"})]
    assert "Python docs" in answer


def test_fallback_output_from_the_dispatcher_is_read() -> None:
    out = (
        "[fallback: search_web failed, result from search_cached]\n"
        '{"query": "x", "results": [{"title": "Streamlit documentation", "url": "https://docs.streamlit.io/"}]}'
    )
    answer, _ = drive("search the web for x", tool=lambda n, a: out)
    assert "failed; cached results" in answer and "Streamlit documentation" in answer


# ---------------------------------------------------------------- no tools, disabled tools, errors


@pytest.mark.parametrize(
    ("goal", "marker"),
    [("hello", "rule-based"), ("안녕하세요", "규칙 기반"), ("What can you do?", "Try goals like")],
)
def test_greeting_without_tools(goal: str, marker: str) -> None:
    response = offline.create(model=None, base_url=None, settings=None).complete(request(goal))
    assert response.tool_calls == [] and response.stop_reason == "end_turn"
    assert marker in response.text and "calculator" in response.text


def test_unmatched_goal_says_so() -> None:
    answer, responses = drive("Write me a poem about autumn")
    assert responses[0].tool_calls == [] and "couldn't match" in answer


@pytest.mark.parametrize(
    ("goal", "enabled", "needed"),
    [
        ("What is (24*7)+100?", ("lookup",), "`calculator`"),
        ("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", ("calculator",), "`lookup`"),
        ("What's the weather in Seoul?", ("calculator", "lookup"), "`get_weather`"),
        ("Read notes.txt", (), "`read_file`"),
        ("Search the documents for refund", ("read_file",), "`search_documents`"),
        ("search the web for cats", ("lookup",), "`search_web`"),
    ],
)
def test_disabled_tool_is_named_not_called(goal: str, enabled: tuple[str, ...], needed: str) -> None:
    answer, responses = drive(goal, enabled=enabled)
    assert calls_of(responses) == []
    assert needed in answer


def test_only_enabled_tools_are_ever_planned() -> None:
    enabled = ("lookup", "calculator")
    for goal in (
        "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
        "What is the warranty policy?",
        "hello",
    ):
        _, responses = drive(goal, enabled=enabled)
        assert {n for n, _ in calls_of(responses)} <= set(enabled)


GOALS = [
    "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.",
    "What is (24*7)+100?",
    "What is the refund policy?",
    "Is shipping free for a $600 order?",
    "What's the weather in Seoul in fahrenheit?",
    "서울과 도쿄 날씨",
    'Count the words in "a b c"',
    "How many words are in notes.txt?",
    "Read notes.txt",
    "문서에서 환불 찾아줘",
    "search the web for streamlit",
    "What is the warranty policy?",
    "hello",
]


@pytest.mark.parametrize("max_blocks", [1, 2, 8])
@pytest.mark.parametrize("goal", GOALS)
def test_every_tool_failing_ends_honestly_without_repeats(goal: str, max_blocks: int) -> None:
    answer, responses = drive(goal, tool=lambda n, a: "ERROR: boom (simulated failure)", max_blocks=max_blocks)
    calls = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in calls_of(responses)]
    assert len(calls) == len(set(calls)), "an identical call was planned twice"
    assert len(responses) <= 5
    if calls:
        assert "boom" in answer


def test_duplicate_refusal_from_the_dispatcher_ends_the_run() -> None:
    provider = offline.create(model=None, base_url=None, settings=None)
    goal = "What is (24*7)+100?"
    first = provider.complete(request(goal))
    refused = "ERROR: duplicate call: calculator was already called with these arguments; try another approach"
    final = provider.complete(request(goal, [block_for(first, 1, [refused])], step=2))
    assert final.tool_calls == [] and "duplicate call" in final.text


def test_guard_stops_after_the_step_budget() -> None:
    goal = "What is (24*7)+100?"
    response = offline.create(model=None, base_url=None, settings=None).complete(
        request(goal, step=offline.MAX_PLAN_STEPS + 1)
    )
    assert response.tool_calls == [] and "Stopping" in response.text


# ---------------------------------------------------------------- determinism, usage, raw


@pytest.mark.parametrize("goal", GOALS)
def test_deterministic(goal: str) -> None:
    first = drive(goal)
    second = drive(goal)
    assert first == second
    a = offline.create(model=None, base_url=None, settings=None).complete(request(goal))
    b = offline.create(model=None, base_url=None, settings=None).complete(request(goal))
    assert a == b


def test_usage_and_raw_describe_the_decision() -> None:
    _, responses = drive("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.")
    for r in responses:
        assert r.usage.input_tokens > 0 and r.usage.output_tokens > 0
        assert r.usage.total_tokens == r.usage.input_tokens + r.usage.output_tokens
        assert r.model == "offline-planner-1"
        (plan,) = r.raw
        assert plan["type"] == "offline_plan" and plan["language"] == "ko"
        assert plan["rule"] and plan["decision"]
        assert plan["calls"] == [{"name": c.name, "arguments": c.arguments} for c in r.tool_calls]
    assert responses[1].raw[0]["unit_price"] == 24 and responses[1].raw[0]["currency"] == "$"
    assert responses[1].usage.input_tokens > responses[0].usage.input_tokens  # the tool output counts


def test_call_ids_are_unique_per_run() -> None:
    _, responses = drive("What's the weather in Tokyo and Seoul?")
    _, more = drive("How many words are in notes.txt?")
    ids = [c.call_id for r in responses + more for c in r.tool_calls]
    assert ids[:2] == ["call_1_1", "call_1_2"]
    assert len(set(ids[:2])) == 2 and len(set(ids[2:])) == len(ids[2:])


def test_arguments_as_json_strings_are_understood() -> None:
    provider = offline.create(model=None, base_url=None, settings=None)
    goal = "What is (24*7)+100?"
    first = provider.complete(request(goal))
    first.tool_calls[0].arguments = json.dumps(first.tool_calls[0].arguments)  # as an OpenAI block would hold it
    final = provider.complete(request(goal, [block_for(first, 1, ["268"])], step=2))
    assert final.text == "(24*7)+100 = 268"


@pytest.mark.parametrize(
    ("goal", "kind"),
    [
        ("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", "price_total"),
        ("What is (24*7)+100?", "calculate"),
        ("환불 정책 알려줘", "lookup"),
        ("Search the documents for refund", "search_documents"),
        ("search the web for streamlit", "search_web"),
        ("Read notes.txt", "read_file"),
        ("How many words are in notes.txt?", "word_count"),
        ("What's the temperature in Paris?", "weather"),
        ("hi there", "greeting"),
        ("", "help"),
    ],
)
def test_classification(goal: str, kind: str) -> None:
    assert classify(goal).kind == kind


@pytest.mark.parametrize(
    ("goal", "qty"),
    [("7개", 7), ("12 units", 12), ("five items", 5), ("제품 3", 3), ("일곱 개", 7), ("2.5 pcs", 2.5)],
)
def test_quantity_extraction(goal: str, qty: float) -> None:
    found = extract_quantity(goal)
    assert found is not None and found[0] == qty


# ---------------------------------------------------------------- whole runs through the real loop


@pytest.fixture
def run_goal(settings):
    from agent_core.run.loop import run_to_end
    from agent_core.tools.builtins import build_default_registry

    def run(goal: str, **changes) -> dict:
        s = settings.replace(**changes)
        registry = build_default_registry(s, rng=random.Random(0))
        return run_to_end(
            goal,
            provider=offline.create(model=None, base_url=None, settings=s),
            registry=registry,
            settings=s,
        )

    return run


@pytest.mark.parametrize(
    ("goal", "expected", "tools"),
    [
        ("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", "$168", ["lookup", "calculator"]),
        ("Look up the unit price and compute the total for 12 units", "$288", ["lookup", "calculator"]),
        ("What is (24*7)+100?", "268", ["calculator"]),
        ("What's the weather in Seoul in fahrenheit?", "71.6°F", ["get_weather"]),
        ("서울 날씨 알려줘", "맑음", ["get_weather"]),
        ("Is shipping free for a $600 order?", "so shipping is free", ["lookup"]),
        ('Count the words in "the quick brown fox"', "4 words", ["word_count"]),
        ("Read notes.txt and summarize", "Operations meeting", ["read_file"]),
        ("문서에서 환불 찾아줘", "환불_안내.md", ["search_documents"]),
        ("How many words are in pricing.md?", "pricing.md has", ["read_file", "word_count"]),
        ("hello", "rule-based", []),
    ],
)
def test_end_to_end(run_goal, goal: str, expected: str, tools: list[str]) -> None:
    record = run_goal(goal)
    assert record["status"] == "completed"
    assert expected in record["answer"]
    assert [c["tool"] for c in record["tool_calls"]] == tools
    assert all(c["success"] for c in record["tool_calls"])
    assert record["provider"] == "offline" and record["provider_label"] == offline.LABEL


def test_end_to_end_with_one_context_block(run_goal) -> None:
    record = run_goal("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", max_context_blocks=1)
    assert record["status"] == "completed" and "$168" in record["answer"]


def test_end_to_end_web_search_fallback(run_goal) -> None:
    record = run_goal("search the web for python tutorial", search_web_failure_rate=1.0)
    assert record["status"] == "completed"
    assert "cached results" in record["answer"] and "Python tutorial" in record["answer"]


def test_end_to_end_unknown_city_is_honest(run_goal) -> None:
    record = run_goal("What's the weather in Atlantis?")
    assert record["status"] == "completed" and "Atlantis" in record["answer"]
    assert [c["success"] for c in record["tool_calls"]] == [False]


# ---------------------------------------------------------------- any goal: no crash, no loop

_FRAGMENTS = [
    "단가",
    "7개",
    "12 units",
    "(2+3)*4",
    "times",
    "weather",
    "날씨",
    "Seoul",
    "서울",
    "fahrenheit",
    "notes.txt",
    "words",
    '"a b"',
    "search",
    "문서에서",
    "web",
    "refund",
    "배송",
    "$600",
    "policy",
    "hello",
    "find",
    "찾아줘",
    "read",
    "%",
    "of",
    "x",
    "?",
    "'",
    ":",
]


@hsettings(max_examples=150, deadline=None)
@given(
    goal=st.one_of(st.text(max_size=60), st.lists(st.sampled_from(_FRAGMENTS), max_size=6).map(" ".join)),
    fail=st.booleans(),
    max_blocks=st.integers(1, 3),
)
def test_any_goal_terminates_without_repeats(goal: str, fail: bool, max_blocks: int) -> None:
    answer, responses = drive(goal, tool=lambda n, a: "ERROR: nope" if fail else "42", max_blocks=max_blocks)
    calls = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in calls_of(responses)]
    assert len(calls) == len(set(calls))
    assert answer and len(responses) <= 6
