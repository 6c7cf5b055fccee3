"""Yes/no questions the tool results decide: the offline demo's rules (providers/offline/verdicts.py),
which it may keep as a rule-based demo, and the offline model's answers that start with the verdict.
No other provider, and not the answer check, uses them (tests/test_no_sample_rules.py)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.words import summary
from agent_core.providers.offline import create as create_offline
from agent_core.providers.offline import verdicts
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.simulated import get_weather
from tests.record_schema import assert_valid_record

NEW_YORK = json.dumps(get_weather("New York"))
SEOUL = json.dumps(get_weather("Seoul"))
PARIS_KO = json.dumps(get_weather("파리"), ensure_ascii=False)
PRICES = "Unit price: $24 per unit (단가: 개당 $24)\nShipping: free shipping on orders of $500 or more ($500 이상 구매 시 무료 배송)"


def call(tool: str, arguments: dict[str, Any], output: str, *, ok: bool = True, n: int = 1) -> dict[str, Any]:
    return {"call_id": f"c{n}", "tool": tool, "arguments": arguments, "output": output, "success": ok}


def weather(output: str, city: str = "New York", n: int = 1) -> dict[str, Any]:
    return call("get_weather", {"city": city}, output, n=n)


def order(units: int) -> list[dict[str, Any]]:
    return [
        call("lookup", {"topic": "unit price, shipping"}, PRICES),
        call("calculator", {"expression": f"24 * {units}"}, str(24 * units), n=2),
    ]


@pytest.mark.parametrize(
    ("goal", "yes_no"),
    [
        ("Do I need an umbrella in New York today?", True),
        ("Is shipping free for an order of 20 units?", True),
        ("If I order 25 units, do I get free shipping?", True),
        ("I'm flying to Paris, should I pack an umbrella?", True),
        ("I'm in Paris today. Do I need an umbrella?", True),
        ("Will it rain in Sydney?", True),
        ("20개 주문하면 배송비 무료인가요?", True),
        ("파리에 가는데 오늘 우산 챙겨야 할까?", True),
        # Not yes/no as a whole: the answer starts with what is asked.
        ("How much would 30 units cost, and would shipping be free?", False),
        ("What's the weather in Paris?", False),
        ("Which is warmer, London or Seoul?", False),
        ("서울 날씨 어때?", False),
        ("제품 10개 사면 총 얼마예요?", False),
        ("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", False),  # a request, not a question
        ("Tell me whether shipping is free for 20 units.", False),
    ],
)
def test_which_goals_are_yes_no_questions(goal: str, yes_no: bool) -> None:
    assert verdicts.asks_yes_no(goal) is yes_no


def test_rain_decides_an_umbrella_question() -> None:
    wet = verdicts.expected("Do I need an umbrella in New York today?", [weather(NEW_YORK)])
    assert wet is not None and wet.yes and wet.topic == "rain"
    assert wet.because == "get_weather says rain in New York"
    dry = verdicts.expected("Do I need an umbrella in Seoul?", [weather(SEOUL, "Seoul")])
    assert dry is not None and not dry.yes
    assert verdicts.expected("파리에 가는데 오늘 우산 챙겨야 할까?", [weather(PARIS_KO, "파리")]).yes  # type: ignore[union-attr]
    # Showers and thunderstorms are rain too.
    for city in ("Sydney", "Singapore"):
        assert verdicts.expected(f"Will it rain in {city}?", [weather(json.dumps(get_weather(city)), city)]).yes  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "goal",
    [
        # A choice, a negative question, another day: undecided, never the wrong word.
        "Is it sunny in New York, or do I need an umbrella?",
        "Can't I leave my umbrella at home in New York?",
        "Can I leave my umbrella at home in New York tomorrow?",
        "뉴욕 우산 안 챙기면 안 돼?",
        "Is there no rain in New York today?",
        "Will it stop raining in New York?",
        "Will it rain in New York tomorrow?",
        "Did it rain in New York yesterday?",
        "Don't I need an umbrella in New York?",
        "뉴욕에 우산 필요 없지?",
        "뉴욕에 내일 비 와?",
    ],
)
def test_rain_asked_another_way_is_left_undecided(goal: str) -> None:
    assert verdicts.expected(goal, [weather(NEW_YORK)]) is None


@pytest.mark.parametrize(
    "goal",
    [
        "Can I leave my umbrella at home in New York today?",
        "Can I skip the umbrella in New York today?",
        "Can I go without an umbrella in New York?",
        "뉴욕 가는데 우산 안 챙겨도 돼?",
        "뉴욕 우산 없이 나가도 될까?",
    ],
)
def test_doing_without_an_umbrella_is_decided_the_other_way_round(goal: str) -> None:
    wet = verdicts.expected(goal, [weather(NEW_YORK)])
    assert wet is not None and not wet.yes  # it rains: no, keep the umbrella
    dry = verdicts.expected(goal, [weather(SEOUL, "Seoul")])
    assert dry is not None and dry.yes


@pytest.mark.parametrize(
    ("goal", "calls"),
    [
        ("Is shipping free for orders under $500?", order(1)[:1]),
        ("Do orders below $500 get free shipping?", order(1)[:1]),
        ("500달러 미만 주문도 무료 배송인가요?", order(1)[:1]),
        ("Is express shipping free for a $600 order?", order(1)[:1]),
        ("Is international shipping free for a $600 order?", order(1)[:1]),
        ("해외 배송도 600달러면 무료인가요?", order(1)[:1]),
        ("Is shipping free for 25 units at $24 each?", order(1)[:1]),  # no calculator: $24 is no order
        ("I spent $600 last month. Is shipping free for my 10-unit order?", order(1)[:1]),
        # Results on both sides of the threshold: which one is the order is not plain.
        (
            "Is shipping free for 20 units?",
            [*order(20), call("calculator", {"expression": "480 * 1.1"}, "528", n=3)],
        ),
    ],
)
def test_free_shipping_asked_about_a_rule_or_another_delivery_is_left_undecided(
    goal: str, calls: list[dict[str, Any]]
) -> None:
    assert verdicts.expected(goal, calls) is None


def test_free_returns_are_no_shipping_question() -> None:
    assert verdicts.expected("30개 사면 무료 반품돼요?", order(30)) is None
    assert verdicts.expected("Do I get free returns on 30 units?", order(30)) is None


def test_shipping_cost_in_korean_is_no_rain_question() -> None:
    # "배송비가" holds "비가" (rain): still a shipping question.
    assert verdicts.expected("20개 주문하면 배송비가 무료인가요?", order(20)).topic == "free shipping"  # type: ignore[union-attr]


def test_no_verdict_when_the_results_do_not_settle_it() -> None:
    goal = "Do I need an umbrella today?"
    assert verdicts.expected(goal, []) is None
    assert verdicts.expected(goal, [weather(NEW_YORK), weather(SEOUL, "Seoul", n=2)]) is None  # rain in one only
    assert verdicts.expected(goal, [call("get_weather", {"city": "Cairo"}, "ERROR: no weather data", ok=False)]) is None
    assert verdicts.expected("What's the weather in New York?", [weather(NEW_YORK)]) is None  # not yes/no


def test_the_free_shipping_threshold_decides_a_shipping_question() -> None:
    below = verdicts.expected("Is shipping free for an order of 20 units?", order(20))
    assert below is not None and not below.yes and below.topic == "free shipping"
    assert below.because == "$480 is below the free-shipping threshold of $500 or more"
    above = verdicts.expected("If I order 25 units, do I get free shipping?", order(25))
    assert above is not None and above.yes
    assert verdicts.expected("20개 주문하면 배송비 무료인가요?", order(20)).yes is False  # type: ignore[union-attr]
    # The threshold itself counts ("$500 or more"); a dollar amount in the question is the order.
    at = verdicts.expected("Is a $500 order shipped for free?", order(1)[:1])
    assert at is not None and at.yes and "equal to" in at.because
    # How far above the threshold is not the order.
    worked = [*order(25), call("calculator", {"expression": "600 - 500"}, "100", n=3)]
    assert verdicts.expected("If I order 25 units, do I get free shipping?", worked).yes  # type: ignore[union-attr]


def test_no_shipping_verdict_without_a_free_threshold_or_for_a_negated_question() -> None:
    fee_only = [
        call("lookup", {}, "Orders under $500 pay a flat shipping fee of $15."),
        call("calculator", {"expression": "24 * 20"}, "480", n=2),
    ]
    assert verdicts.expected("Is shipping free for 20 units?", fee_only) is None
    assert verdicts.expected("Is shipping not free for 20 units?", order(20)) is None  # "yes" would be ambiguous
    assert verdicts.expected("Is shipping free?", order(20)[:1]) is None  # no order amount


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("Yes, you need an umbrella.", (True, "Yes")),
        ("No, you do not need an umbrella.", (False, "No")),
        ("No umbrella needed.", None),  # not read: "No problem!" starts so too
        ("No problem! It rains, so yes, bring one.", None),
        ("Nope!", (False, "Nope")),
        ("Sure! You won't need one.", None),
        ("Absolutely not.", None),
        ("네 번째 도시는 비가 옵니다.", None),
        ("아니, 필요 없어요.", (False, "아니")),
        ("아니라고 합니다.", None),
        ("**Yes** — take one.", (True, "Yes")),
        ("네, 우산을 챙기세요.", (True, "네")),
        ("아니요, 무료 배송이 아닙니다.", (False, "아니요")),
        ("Nothing was found.", None),
        ("예를 들어 비가 옵니다.", None),  # "for example", not "yes"
        ("The total is $480.", None),
    ],
)
def test_the_yes_or_no_an_answer_starts_with(answer: str, said: tuple[bool, str] | None) -> None:
    assert verdicts.stated(answer) == said


def test_the_answer_check_knows_no_topic_so_it_says_the_reasoning_was_not_checked(settings: Settings) -> None:
    """These rules belong to the offline demo; the answer check of every provider has no rule about
    umbrellas or shipping: a "No" the weather contradicts is not its to judge, and the badge says so."""
    goal = "Do I need an umbrella in New York today?"
    answer = "No, you do not need an umbrella in New York today. It is 18 °C and the forecast shows rain."
    grounding = check_answer(answer, goal, [weather(NEW_YORK)])
    assert grounding["status"] == "grounded" and [c["kind"] for c in grounding["claims"]] == ["temperature"]
    assert summary(grounding) == "every number appears in a tool result; the reasoning was not checked"
    assert verdicts.contradiction(answer, goal, [weather(NEW_YORK)]) == (
        "No",
        verdicts.expected(goal, [weather(NEW_YORK)]),
    )
    # Through a run: no corrective turn is sent for it.
    provider = ScriptedProvider(
        [
            {"text": "", "tool_calls": [{"name": "get_weather", "arguments": {"city": "New York"}, "call_id": "w"}]},
            {"text": "No, you do not need an umbrella."},
        ]
    )
    s = settings.replace(answer_check="retry")
    record = run_to_end(goal, provider=provider, registry=build_default_registry(s, rng=random.Random(1)), settings=s)
    provider.assert_complete()
    assert_valid_record(record)
    assert record["answer"] == "No, you do not need an umbrella." and "answer_check" not in record["steps"][1]


def test_the_offline_model_answers_an_umbrella_question_with_the_verdict(settings: Settings) -> None:
    for goal, first in [
        ("Do I need an umbrella in New York today?", "Yes, it is raining, so take an umbrella."),
        ("Do I need an umbrella in Seoul today?", "No, it is not raining."),
        ("Can I leave my umbrella at home in New York today?", "No, it is raining, so take an umbrella."),
        ("파리에 가는데 오늘 우산 챙겨야 할까?", "네, 비가 오니 우산을 챙기세요."),
    ]:
        record = run_to_end(
            goal,
            provider=create_offline(model=None, base_url=None, settings=settings),
            registry=build_default_registry(settings),
            settings=settings,
        )
        assert record["answer"].splitlines()[0] == first
        assert record["grounding"]["status"] == "grounded"
