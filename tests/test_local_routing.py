"""The local model's routing for two kinds of ordinary question it answered wrongly, as fact:

- a policy or price question answered from ``lookup``'s one line while the detail asked is only
  in the documents (an exception, a speed, a condition), or a count of units priced at the list
  price although it reaches a volume tier;
- a unit conversion whose formula the model wrote backwards.

Tables of goal × results → the calls the plan makes, run against the real tools on the sample
workspace (the planned calls are executed; a call the model would write stops the table). No model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.context import ContextBlock
from agent_core.providers.local.conversions import conversion
from agent_core.providers.local.plan import lookup_gaps, plan_step, planned_call, quantity_times_price
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.knowledge import lookup_fact
from agent_core.tools.registry import Tool
from tests.test_local_plan import block

WORKSPACE_ROOT = Path(__file__).resolve().parent.parent / "agent_data"


@pytest.fixture(scope="module")
def tools() -> list[Tool]:
    return list(build_default_registry(Settings(data_dir=WORKSPACE_ROOT)))


def planned_run(goal: str, tools: list[Tool]) -> tuple[list[str], list[ContextBlock]]:
    """The calls the plan makes by itself for ``goal``, each run with the real tool, as
    ``name(arguments)``; then ``answer`` (the model answers) or ``model:<tools>`` (the model must
    write the next call)."""
    by_name = {t.name: t for t in tools}
    blocks: list[ContextBlock] = []
    steps: list[str] = []
    for index in range(8):
        plan = plan_step(goal, blocks, tools)
        if plan.answer:
            return [*steps, "answer"], blocks
        call = planned_call(plan)
        if call is None:
            return [*steps, "model:" + "/".join(t.name for t in plan.tools)], blocks
        name, arguments = call
        try:
            output, error = str(by_name[name].func(**arguments)), False
        except Exception as exc:  # a failed tool is a result too
            output, error = f"ERROR: {exc}", True
        shown = arguments.get("expression") or arguments.get("topic") or arguments.get("query")
        steps.append(f"{name}({shown})")
        blocks.append(block(index, name, arguments, output, error=error))
    raise AssertionError(f"no answer planned for {goal!r}: {steps}")


# ---------------------------------------------------------------------------------------------
# A. The lookup's one line, or the documents too


@pytest.mark.parametrize(
    ("goal", "calls"),
    [
        # An exception to the policy (clearance, engraving): only the documents have it.
        (
            "If I buy something on clearance, can I still return it for a refund?",
            [
                "lookup(refund policy)",
                "search_documents(If I buy something on clearance, can I still return it for a refund)",
                "answer",
            ],
        ),
        (
            "이름을 새긴 각인 제품도 반품하고 환불받을 수 있나요?",
            ["lookup(환불 정책)", "search_documents(*)", "answer"],
        ),
        # How fast the money comes back, and what the returned box must hold.
        (
            "Once my return reaches your warehouse, how soon is my card refunded?",
            ["lookup(refund policy)", "search_documents(*)", "answer"],
        ),
        (
            "Do returned products have to be unused to get a refund?",
            ["lookup(refund policy)", "search_documents(*)", "answer"],
        ),
        ("Who pays the postage when I return a product?", ["lookup(refund policy)", "search_documents(*)", "answer"]),
        # The lookup line says all that is asked: no search.
        ("What's your refund policy?", ["lookup(refund policy)", "answer"]),
        ("반품 정책이 어떻게 돼요?", ["lookup(환불 정책)", "answer"]),
        ("Is shipping free on a $750 order?", ["lookup(shipping)", "model:calculator"]),
        ("단가가 어떻게 되나요?", ["lookup(단가)", "answer"]),
    ],
)
def test_a_detail_the_lookup_line_does_not_hold_is_searched_in_the_documents(
    tools: list[Tool], goal: str, calls: list[str]
) -> None:
    made, _ = planned_run(goal, tools)
    assert [c if not c.startswith("search_documents(") or "(*)" not in e else e for c, e in zip(made, calls)] == calls
    assert len(made) == len(calls)


def test_the_words_a_lookup_line_does_not_hold() -> None:
    refund = [block(0, "lookup", {"topic": "refund policy"}, lookup_fact("refund policy"))]
    assert lookup_gaps("Can I return a gift card I got on sale?", refund) == ["gift", "card", "sale"]
    assert lookup_gaps("Within how many days of delivery can I ask for a refund?", refund) == []
    assert lookup_gaps("세일 상품도 환불돼?", refund) == ["세일"]
    assert lookup_gaps("환불 정책 알려줘", refund) == []
    # The words of other needs (a city's weather) and figures are no gap; no lookup, no gap.
    price = [block(0, "lookup", {"topic": "unit price"}, lookup_fact("unit price"))]
    assert lookup_gaps("What's the weather in Tokyo, and what do three units cost?", price) == []
    assert lookup_gaps("Can I return a gift card?", []) == []


@pytest.mark.parametrize(
    ("goal", "calls"),
    [
        # A count of units is priced with the tier that holds it, discount asked or not.
        (
            "What would an order of 640 units cost me?",
            ["lookup(unit price, volume discount)", "calculator(21.60 * 640)", "answer"],
        ),
        ("How much do 230 items cost?", ["lookup(unit price, volume discount)", "calculator(22.80 * 230)", "answer"]),
        ("제품 450개 주문하면 얼마예요?", ["lookup(단가, 할인)", "calculator(22.80 * 450)", "answer"]),
        ("99개 사면 총 얼마야?", ["lookup(단가)", "calculator(24 * 99)", "answer"]),
        # Below every tier: the unit price; a conditional on the total compares it next.
        (
            "If I order 22 units, is delivery free?",
            ["lookup(unit price, shipping)", "calculator(24 * 22)", "answer"],
        ),
        (
            "Do I get free shipping with 100 units?",
            ["lookup(unit price, volume discount, shipping)", "calculator(22.80 * 100)", "answer"],
        ),
        # One unit is no order to discount; a goal with its own rate takes no tier.
        ("How much does a single unit cost?", ["lookup(unit price)", "answer"]),
    ],
)
def test_a_count_of_units_is_priced_with_its_volume_tier(tools: list[Tool], goal: str, calls: list[str]) -> None:
    assert planned_run(goal, tools)[0] == calls


def test_a_goal_with_its_own_rate_is_left_its_rate(tools: list[Tool]) -> None:
    made, _ = planned_run("What do 300 units cost with a 12% discount?", tools)
    assert made[0] == "lookup(unit price)" and made[-1] == "model:calculator"


def test_the_tier_expression_is_one_even_when_two_results_name_the_tier() -> None:
    table = "| Units ordered | Discount | Price per unit |\n| 1 to 99 | none | $24.00 |\n| 100 to 499 | 5% | $22.80 |"
    results = [
        block(0, "lookup", {"topic": "unit price, volume discount"}, lookup_fact("unit price, volume discount")),
        block(1, "search_documents", {"query": "discount"}, table),
    ]
    assert quantity_times_price("What do 310 units cost after the discount?", results) == "22.80 * 310"
    # A tier with a rate and no price of its own: the rate is applied to the unit price.
    rate_only = [
        block(0, "lookup", {"topic": "unit price"}, "Unit price: $24 per unit"),
        block(1, "search_documents", {"query": "discount"}, "Orders of 200 to 999 units get 8% off."),
    ]
    assert quantity_times_price("How much for 250 units?", rate_only) == "24 * 250 * (100 - 8) / 100"


# ---------------------------------------------------------------------------------------------
# B. Unit conversions, planned from the direction the goal states


@pytest.mark.parametrize(
    ("goal", "expression"),
    [
        ("What's 86 Fahrenheit in Celsius?", "(86 - 32) * 5 / 9"),
        ("Convert 15 degrees Celsius to Fahrenheit", "15 * 9 / 5 + 32"),
        ("It's 41°F outside. What is that in °C?", "(41 - 32) * 5 / 9"),
        ("How many kilograms is 200 lb?", "200 * 0.45359237"),
        ("How many pounds does a 20 kg suitcase weigh?", "20 / 0.45359237"),
        ("Convert 13.1 miles into kilometers", "13.1 * 1.609344"),
        ("How far is 5 km in miles?", "5 / 1.609344"),
        ("How many feet is a 30 m building?", "30 / 0.3048"),
        ("6 feet in metres?", "6 * 0.3048"),
        ("How many inches is 50 cm?", "50 / 2.54"),
        ("Convert 27 inches to cm", "27 * 2.54"),
        ("How many liters are in 2.5 gallons?", "2.5 * 3.785411784"),
        ("20 litres to gallons", "20 / 3.785411784"),
        ("Convert -10 °C to Fahrenheit", "-10 * 9 / 5 + 32"),
        ("섭씨 25도는 화씨로 몇 도예요?", "25 * 9 / 5 + 32"),
        ("화씨 104도를 섭씨로 바꿔 줘", "(104 - 32) * 5 / 9"),
        ("70킬로그램은 몇 파운드야?", "70 / 0.45359237"),
        ("200파운드는 몇 킬로그램이에요?", "200 * 0.45359237"),
        ("마라톤 42.195킬로미터는 몇 마일이야?", "42.195 / 1.609344"),
        ("5마일은 몇 킬로야?", "5 * 1.609344"),
        ("4갤런은 몇 리터야?", "4 * 3.785411784"),
        ("키 170센티는 몇 인치야?", "170 / 2.54"),
        ("영하 5도는 화씨로 몇 도?", "-5 * 9 / 5 + 32"),
    ],
)
def test_a_conversion_is_planned_from_the_direction_the_goal_states(
    tools: list[Tool], goal: str, expression: str
) -> None:
    found = conversion(goal)
    assert found is not None and found.expression == expression
    made, blocks = planned_run(goal, tools)
    assert made == [f"calculator({expression})", "answer"]
    # The answer is told which unit the result is in, in the goal's language.
    hint = plan_step(goal, blocks, tools).hint
    assert found.value in hint and ("화씨" in hint or "섭씨" in hint or "(" in hint)


@pytest.mark.parametrize(
    "goal",
    [
        "What is 17% of 2,340?",
        "How many degrees warmer is Singapore than London?",
        "What's the temperature in Tokyo right now, in Fahrenheit?",
        "How much do 5 kg of apples cost at $3 per kg?",
        "Is 30 °C hot?",
        "What's the weather in Seoul? Convert it to Fahrenheit.",
        "How much do 12 units cost?",
    ],
)
def test_no_conversion_is_read_where_none_is_asked(goal: str) -> None:
    assert conversion(goal) is None


def test_the_conversion_hint_names_both_units() -> None:
    english = conversion("What's 86 Fahrenheit in Celsius?")
    korean = conversion("섭씨 25도는 화씨로 몇 도예요?")
    assert english is not None and korean is not None
    assert "result above is in °C: it is 86 °F converted to °C" in english.hint()
    assert "섭씨 25" in korean.hint(korean=True) and "화씨" in korean.hint(korean=True)
    assert json.dumps(english.expression)  # plain text, no formatting left over


def test_the_answer_is_told_the_tier_of_the_quantity_asked(tools: list[Tool]) -> None:
    made, blocks = planned_run("What's the price of one unit if I order 320 units?", tools)
    # The price of one unit is the tier's, looked up: no total is computed (it was 22.80 * 320).
    assert made == ["lookup(unit price, volume discount)", "answer"]
    hint = plan_step("What's the price of one unit if I order 320 units?", blocks, tools).hint
    assert "falls in this tier: 100 to 499 units 5% off ($22.80 per unit)" in hint
    # Below every tier: nothing to tell.
    _, small = planned_run("How much do 12 units cost?", tools)
    assert plan_step("How much do 12 units cost?", small, tools).hint == ""


def test_a_quantity_below_every_tier_is_told_so_when_the_model_writes_the_sum() -> None:
    # Shown the tiers for 10 units with shipping, the model wrote "24 * 10 * (1 - 0.05) + 15".
    from agent_core.providers.local.plan import below_every_tier
    from agent_core.tools.knowledge import lookup

    looked = block(0, "lookup", {"topic": "unit price, volume discount"}, lookup("unit price, volume discount"))
    assert below_every_tier("What do 10 units cost including standard shipping?", [looked])
    assert not below_every_tier("What do 150 units cost including standard shipping?", [looked])
    assert not below_every_tier("What is 17% of 2,340?", [looked])  # no quantity of units
    assert not below_every_tier("What do 10 units cost?", [])  # no tiers seen
