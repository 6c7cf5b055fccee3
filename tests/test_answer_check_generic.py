"""The answer check's generic checks: a figure given for another quantity, a result computed from
a figure from nowhere, a comparison stated the wrong way round. No rule about any topic: the same
cases in other words and other domains behave the same."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.checks.claims import find_claims
from agent_core.checks.columns import from_another_date
from agent_core.checks.comparisons import wrong_comparisons
from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, summary, unsupported


def call(cid: str, output: str, arguments: dict[str, Any] | None = None, tool: str = "any_tool") -> dict[str, Any]:
    return {"call_id": cid, "tool": tool, "arguments": arguments or {}, "output": output, "success": True}


RECIPE = call("r", "Pancakes (serves 4)\n- 200 g flour\n- 2 eggs\n- 300 ml milk\nCook for 3 minutes per side.")
ROOM = call("h", "Double room: €120 per night, breakfast included.")
PRICE = call("p", "Unit price: $24 per unit. Orders of $500 or more ship free.")

SCALING = [
    # (answer, goal, calls, status, unsupported texts)
    (
        "For 10 people you need 200 g of flour.",
        "How much flour for pancakes for 10 people?",
        [RECIPE],
        "partly",
        ["200 g"],
    ),
    (
        "10명이면 밀가루 200 g이 필요해요.",
        "팬케이크 10명분 만들려면 밀가루 얼마나 필요해?",
        [RECIPE],
        "partly",
        ["200 g"],
    ),
    (
        "The recipe uses 200 g of flour for 4 people, so 10 people need 500 g.",
        "How much flour for pancakes for 10 people?",
        [RECIPE, call("c", "500", {"expression": "200 * 10 / 4"})],
        "grounded",
        [],
    ),
    ("Cook them for 3 minutes per side.", "pancakes for 10 people: how long per side?", [RECIPE], "grounded", []),
    ("Three nights cost €120.", "How much is a double room for 3 nights?", [ROOM], "ungrounded", ["€120"]),
    ("It is €120 per night, so €360 for 3 nights.", "How much is a double room for 3 nights?", [ROOM], "grounded", []),
    ("Flour: 200 g.", "How much flour do the pancakes need?", [RECIPE], "grounded", []),
    ("For 4 people you need 200 g of flour.", "How much flour for pancakes for 4 people?", [RECIPE], "grounded", []),
    # the answer repeating the question's own quantity is not scaled; a search whose hits hold the
    # recipe's title ("Serves 4") several hundred characters before its ingredients still scales
    (
        "To make 10 pancakes you need 200 g of flour.",
        "I'm making pancakes for 10 people. How much flour?",
        [
            call(
                "s", "Pancakes. Serves 4. Prep 10 minutes. " + "Method: mix and fry. " * 20 + "Ingredients: 200 g flour"
            )
        ],
        "partly",
        ["200 g"],
    ),
    # a figure the answer also sent to the calculator is judged where it came from: "2 eggs" is the
    # recipe's for 4, whatever "2 * 10" gave; "$24 × 15" in the answer says it scales the figure
    (
        "For 10 people you need 2 eggs.",
        "Pancakes for 10 people: how many eggs?",
        [RECIPE, call("c", "20", {"expression": "2 * 10"}, tool="calculator")],
        "partly",
        ["2"],
    ),
    (
        "The total for 15 units is $360 (unit price $24 × 15).",
        "How much do 15 units cost?",
        [PRICE, call("c", "360", {"expression": "24 * 15"}, tool="calculator")],
        "grounded",
        [],
    ),
]


TARIFF = call(
    "t",
    "pitch_id: G03, max_guests: 5, high_season_per_night: 89.00, extra_person_per_night: 10.00, notes: 3 singles;",
)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        # A table row's cell name says what the figure is for, like "per night" after it.
        ("For 3 nights the bell tent G03 costs £89.", "the result gives £89 per night; the question is about 3"),
        ("G03 is £89 a night, so 3 nights cost £267.", None),
        # true per night, and no total: what the goal asks
        (
            "The bell tent G03 is £89.00 per night.",
            "the question asks the price of 3 nights, and the answer gives only a price per night",
        ),
    ],
)
def test_a_cell_named_per_night_gives_its_figure_for_one_night(answer: str, reason: str | None) -> None:
    result = check_answer(answer, "bell tent G03 for 3 nights, what's the total?", [TARIFF])
    assert [c["reason"] for c in unsupported(result)] == ([reason] if reason else []), result["claims"]


@pytest.mark.parametrize(("answer", "goal", "calls", "status", "missing"), SCALING)
def test_a_figure_for_another_quantity_is_not_support(
    answer: str, goal: str, calls: list[dict[str, Any]], status: str, missing: list[str]
) -> None:
    result = check_answer(answer, goal, calls)
    assert (result["status"], [c["text"].strip() for c in unsupported(result)]) == (status, missing)
    for claim in unsupported(result):
        assert "the question is about" in claim["reason"]


GOAL_COUNTS = [
    # (answer, goal, grounded): the goal's count of something is no amount of money.
    ("The 10-person room is $10 per hour.", "How much is the 10-person meeting room per hour?", False),
    ("The price of a chair is $12.", "We need 12 chairs. What's the total?", False),
    ("3 nights cost $3.", "How much for 3 nights at the hut?", False),
    ("자유석은 24원입니다.", "24시간 자유석은 얼마예요?", False),
    ("12 units cost $12.", "What do 12 units cost?", False),
    ("$240 with 15% off is $240 minus the discount.", "What's $240 with 15% off?", True),
    ("Yes, 480 is less than 500: $480.", "Is an order of 480 below 500?", True),
    ("It is $480.", "What is 480 plus tax?", True),
    ("That is $24.", "Is 24 a fair price per unit?", True),
]


@pytest.mark.parametrize(("answer", "goal", "supported"), GOAL_COUNTS)
def test_a_count_in_the_goal_does_not_support_an_amount_of_money(answer: str, goal: str, supported: bool) -> None:
    result = check_answer(answer, goal, [call("s", "A page about something else entirely.")])
    assert (not unsupported(result)) is supported, unsupported(result)


def test_the_scaling_reason_reaches_the_summary_and_the_corrective_turn() -> None:
    result = check_answer("For 10 people you need 200 g of flour.", "flour for 10 people?", [RECIPE])
    assert "200 g: the result gives 200 g for 4 people; the question is about 10" in summary(result)
    assert correction(result).startswith("Your answer says 200 g, but the result gives 200 g for 4 people")


def test_a_result_computed_from_a_figure_from_nowhere_supports_nothing() -> None:
    made_up = call("c", "700", {"expression": "7 * 100"})
    result = check_answer("7 units cost $700.", "What do 7 units cost?", [made_up])
    assert [c["text"] for c in unsupported(result)] == ["$700"]
    assert unsupported(result)[0]["reason"] == "computed from 100, which no earlier tool result or the goal gives"
    looked_up = check_answer(
        "7 units cost $168.", "What do 7 units cost?", [PRICE, call("c", "168", {"expression": "24 * 7"})]
    )
    assert looked_up["status"] == "grounded"
    # Order matters: the figure must be known before the call that used it ($168 is then found
    # as 24 × 7 of the later result and the goal, not as the call's output).
    early = check_answer(
        "7 units cost $168.", "What do 7 units cost?", [call("c", "168", {"expression": "24 * 7"}), PRICE]
    )
    assert early["claims"][-1]["source"] == {"call_id": "p", "tool": "any_tool"}
    # Small counts need no source (an average of three divides by 3).
    average = check_answer(
        "The average is 19.", "average of 12, 18 and 27?", [call("c", "19", {"expression": "(12+18+27)/3"})]
    )
    assert average["status"] == "grounded"
    # A stated percentage is a known factor: 0.85 for "15% off", 0.17 for "17%"; 0.8 is not.
    off = check_answer(
        "$240 with 15% off is $204.", "What's $240 with 15% off?", [call("c", "204", {"expression": "240 * 0.85"})]
    )
    assert off["status"] == "grounded"
    other = check_answer("It is $192.", "What's $240 with 15% off?", [call("c", "192", {"expression": "240 * 0.8"})])
    assert unsupported(other)[0]["reason"] == "computed from 0.8, which no earlier tool result or the goal gives"


COMPARISONS = [
    ("The order is $480, which is more than $500, so shipping is free.", ["$480, which is more than $500"]),
    ("The order is $480, which is less than $500, so shipping is not free.", []),
    ("$480 exceeds the $500 threshold.", ["$480 exceeds the $500"]),
    ("480달러는 500달러보다 많습니다.", ["480달러는 500달러"]),
    ("480달러는 500달러보다 적습니다.", []),
    ("Seoul is 8 degrees warmer than London (22 °C vs 15 °C).", ["8 degrees"]),  # the 7, not the direction
    ("The sofa costs $800, more than the $900 chair.", ["$800, more than the $900"]),
    ("It is not more than $500.", []),
]


@pytest.mark.parametrize(("answer", "wrong"), COMPARISONS)
def test_a_comparison_is_recomputed_from_its_figures(answer: str, wrong: list[str]) -> None:
    calls = [call("x", "Totals: $480 $500 $800 $900; Seoul 22 °C, London 15 °C")]
    result = check_answer(answer, "compare", calls)
    assert [c["text"] for c in unsupported(result)] == wrong


def test_a_figure_counting_what_a_comparison_describes_is_not_compared() -> None:
    assert wrong_comparisons("There are 12 items with fewer than 10 in stock.") == []
    assert wrong_comparisons("3 orders that have more than 100 units each.") == []
    assert [c.text for c in wrong_comparisons("12 items is fewer than 10 items.")] == [
        "12 items is fewer than 10 items"
    ]


DIFFERENCES = [
    # (answer, expected or None): a stated difference between two named things, recomputed.
    (
        "The fixed desk costs $289 per month, while the hot desk costs $349 per month. "
        "Therefore, a fixed desk is $6 more per month than a hot desk.",
        "the figures say hot desk (349) is 60 above fixed desk (289)",
    ),
    (
        "The fixed desk costs $289 a month and the hot desk costs $349 a month, so the fixed desk is $60 "
        "more per month than the hot desk.",
        "the figures say hot desk (349) is 60 above fixed desk (289)",
    ),
    (
        "Premier ($1,050) is $400 more than Standard ($640).",
        "the figures say Premier (1050) is 410 above Standard (640)",
    ),
    ("Premier ($1,050) is $410 more than Standard ($640).", None),
    ("The hot desk ($349) is $60 more expensive than the fixed desk ($289).", None),
    ("Premier is $410 more than Standard.", None),  # no figure beside either name: nothing claimed
    ("Premier is $410 more than Standard ($640).", None),  # the $410 is not Premier's own figure
]


@pytest.mark.parametrize(("answer", "expected"), DIFFERENCES)
def test_a_stated_difference_is_recomputed_from_the_answers_figures(answer: str, expected: str | None) -> None:
    result = check_answer(answer, "how much more?", [call("x", "Fixed desk $289; hot desk $349; $1,050 $640")])
    wrong = [c["expected"] for c in unsupported(result) if c["kind"] == "comparison"]
    assert wrong == ([expected] if expected else [])


def test_a_named_comparison_reads_each_names_figure_from_the_results() -> None:
    london = call("l", '{"city": "London", "temperature": 15, "unit": "celsius"}')
    tokyo = call("t", '{"city": "Tokyo", "temperature": 25, "unit": "celsius"}')
    wrong = check_answer("London is warmer than Tokyo today.", "Which is warmer?", [london, tokyo])
    assert [(c["kind"], c["expected"]) for c in unsupported(wrong)] == [
        ("comparison", "the figures say Tokyo (25) is above London (15)")
    ]
    assert (
        check_answer("Tokyo is warmer than London today.", "Which is warmer?", [london, tokyo])["status"] == "no_claims"
    )
    table = call("t2", "| Oak desk | $340 |\n| Pine desk | $210 |")
    assert unsupported(
        check_answer("The Pine desk is more expensive than the Oak desk.", "which desk costs more?", [table])
    )
    assert not unsupported(
        check_answer("The Oak desk is more expensive than the Pine desk.", "which costs more?", [table])
    )
    # A name with no single figure anywhere: nothing is claimed.
    assert not unsupported(check_answer("Paris is warmer than Rome.", "?", [london, tokyo]))


def test_a_number_glued_to_a_korean_word_is_a_claim() -> None:
    """ "총 가격은 12입니다": the local model's wrong seed total had no claims and passed unchecked."""
    result = check_answer(
        "제품 7개의 총 가격은 12입니다.", "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", [PRICE]
    )
    assert [c["text"] for c in unsupported(result)] == ["12"]


def test_arithmetic_on_no_figure_of_the_goal_or_results_supports_nothing() -> None:
    filler = call("c", "12", {"expression": "1 * 2 + 1 * 2 + 1 * 2 + 1 * 2 + 1 * 2 + 1 * 2"})
    result = check_answer(
        "제품 7개의 총 가격은 12입니다.", "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", [filler]
    )
    assert [c["text"] for c in unsupported(result)] == ["12"]
    assert unsupported(result)[0]["reason"].startswith("computed from 1, 2")


def test_money_from_a_figure_of_another_unit_is_not_support() -> None:
    """'$1200' from "up to 1,200 m": the result writes that number only as metres; a bare 1200
    (a JSON value, a table cell) could still be the price."""
    walk = call("w", "Walk grades: 4, Strenuous, 20–26 km, up to 1,200 m, 7–9 hours. The cabin: members $22 a night.")
    goal = "What does it cost a member to sleep over at the cabin?"
    assert check_answer("The nightly rate for members is $1200.", goal, [walk])["status"] == "ungrounded"
    assert check_answer("The nightly rate for members is $22.", goal, [walk])["status"] == "grounded"
    bare = call("b", '{"price": 1200, "climb": "1,200 m"}')
    assert check_answer("The price is $1200.", "How much?", [bare])["status"] == "grounded"
    assert check_answer("The discount is 45%.", "How much off?", [call("d", "45% off")])["status"] == "grounded"


OTHER_UNITS = [
    # (answer, result, grounded): a quantity is backed by its number with the same unit, or plain.
    ("You can stay up to 1 week.", "Cabins: 1 person per bunk, check-out by 1 hour after breakfast.", False),
    ("최대 1주까지 머물 수 있어요.", "객실: 수용 인원 1인, 1회 최대 1시간", False),
    ("You must report it within 1 year.", '{"section": "1. Scope", "snippet": "Report within 30 days."}', False),
    ("Report it within 1 year.", "Applies from 1 March 2025; see section 1.", False),
    ("The desk holds 140 kg.", "Code: T-140, Model: Oak table, Price: $320", False),
    ("The desk holds 140 kg.", "Code: T-200, Max. load: 140 kg", True),
    ("You need 10개.", "10분 전까지 취소하세요. 월 10시간 무료.", False),
    ("Delivery takes 3 days.", "Delivered in 3 business days.", True),
    ("There are 24 units in stock.", '{"sku": "A-1", "stock": 24}', True),
    ("최대 1주까지 머물 수 있어요.", "예약은 최대 1주까지 가능합니다.", True),
    ("The total is 12개.", "총 수량은 12입니다.", True),
    # Right answers: the same measure in other words, abbreviations, or a unit not known to differ.
    ("The room holds 10 people.", "Capacity: 10 attendees", True),
    ("It has 640 characters.", "Length: 640 chars", True),
    ("The report has 3 pages.", "A 3 page report", True),
    ("The trail is 5 miles.", "A 5 mile trail", True),
    ("The box weighs 22 lbs.", "Weight: 22 lb", True),
    ("The ceiling is 10 feet high.", "Height: 10 ft", True),
    ("The screen is 15 inches.", "Screen: 15 in", True),
    ("The film runs 15 minutes over.", "Runtime 2h 15m", True),
    ("It takes 45 minutes.", "Duration: 0:45", True),
    ("You placed 3 orders.", "주문 3건", True),
    ("We have 3대.", "Stock: 3 units", True),
    ("It is $1,200.", "Total: USD1200", True),
    ("It takes 2 hours.", "Duration: PT2H", True),
    ("The deductible is $500.", "The deductible for water damage is\n500. Claims must be filed within 30 days.", True),
    ("See you in 2 days.", "Visit our homepage 2 days before.", True),
    # A temperature or an amount is not backed by a year, a count of days or another measure.
    ("Bake at 2025 degrees Fahrenheit.", "Last updated February 2025. Bake at 200 °C.", False),
    ("The fee is $2025.", "Club Rules and Fees 2025/26", False),
    ("It is 30 °C today.", "Open 30 days a year.", False),
    ("Bake at 200 °C.", "Last updated February 2025. Bake at 200 °C.", True),
    ("Bake at 180 °C.", "Oven: 200 °C (180 fan)", True),
    ("It is 19 °C.", '{"temperature": 19, "unit": "celsius"}', True),
    ("Tomorrow's high is 12 °C.", "Tomorrow - 12, sunny", True),  # a signed figure's span: no crash
    ("The high is 22 °C.", "Highs of 22 in the afternoon.", True),  # "in": a unit not known to differ
    ("We sold 1,999 units.", "In 2019 we sold 1999 units.", True),
    # A percentage is not a count: "12%" from "12개" or "12 units".
    ("You get 12% off.", "12개 이상 주문", False),
    ("You get 12% off.", "Orders of 12 units or more", False),
    ("You get 12% off.", '{"discount": 12}', True),
    ("You get 12% off.", "Discount: 12 percent", True),
]


@pytest.mark.parametrize(("answer", "result", "grounded"), OTHER_UNITS)
def test_a_quantity_of_another_unit_a_code_or_a_section_number_is_not_support(
    answer: str, result: str, grounded: bool
) -> None:
    checked = check_answer(answer, "How long, how much, how many?", [call("s", result)])
    assert (checked["status"] == "grounded") is grounded, checked["claims"]


def test_the_reason_says_how_the_results_write_the_figure_and_the_turn_asks_for_a_stated_one() -> None:
    lodge = call("s", "Rooms: 1 person per bunk; see section 1. Check-out 1 hour after breakfast.")
    result = check_answer("You can stay up to 1 week.", "How long can I stay?", [lodge])
    (claim,) = unsupported(result)
    assert claim["reason"] == "the results give 1 only as 1 person, section 1, 1 hour"
    assert summary(result) == "⚠ 1 week: the results give 1 only as 1 person, section 1, 1 hour"
    assert correction(result).endswith(
        "Give only a figure a tool result states for what was asked (look it up with a tool), "
        "or say that the results do not give it."
    )
    chairs = check_answer("That is $12.", "We need 12 chairs. What's the total?", [call("s", "Nothing here.")])
    assert (
        unsupported(chairs)[0]["reason"] == "the goal gives 12 only as a count of something, not as an amount of money"
    )


COUNTS_AND_PRICES = [
    # (goal, calls, answer, grounded): a price next to a count is a price, in any language or currency.
    ("하루 숙박비가 80000이고 3박이면 얼마예요?", [("c", "240000", "80000 * 3")], "240,000원입니다.", True),
    ("개당 500이고 3개 사면 얼마예요?", [("c", "1500", "500 * 3")], "1,500원입니다.", True),
    ("Tickets are 25 AUD each. How much for 4 tickets?", [("c", "100", "25 * 4")], "That is $100.", True),
    (
        "We need 10 seats. How much a month?",
        [("p", "Seat: $10 per month", None), ("c", "100", "10 * 10")],
        "$100.",
        True,
    ),
    ("We need 10 seats. How much a month?", [("p", "Seat: $10 per month", None)], "$100 a month.", True),
    ("We need 10 seats for 3 months. Total?", [("c", "30", "10 * 3")], "The total is $30.", False),
]


@pytest.mark.parametrize(("goal", "calls", "answer", "grounded"), COUNTS_AND_PRICES)
def test_a_price_beside_a_count_is_still_a_price(
    goal: str, calls: list[tuple[str, str, str | None]], answer: str, grounded: bool
) -> None:
    made = [
        call(cid, out, {"expression": expr} if expr else None, tool="calculator" if expr else "any_tool")
        for cid, out, expr in calls
    ]
    result = check_answer(answer, goal, made)
    assert (result["status"] == "grounded") is grounded, result["claims"]


def test_arithmetic_on_the_goals_counts_alone_is_no_amount_of_money() -> None:
    """Twelve months of a 24-hour pass is no 288 of any currency; a count times a price is."""
    goal = "We want the 24-hour pass for 12 months. How much in total?"
    counts_only = call("c", "288", {"expression": "24 * 12"}, tool="calculator")
    total = check_answer("The total is $288.", goal, [counts_only])
    assert unsupported(total)[0]["reason"] == (
        "it is computed from the goal's counts and measures alone (24 * 12), not from a price"
    )
    added = call("a", "48", {"expression": "24 + 24"}, tool="calculator")
    assert check_answer("The pass is $24 a month.", goal, [added])["status"] == "ungrounded"  # nor 48 − 24
    price = call("p", "Pass: $95 a month.")
    times = call("t", "1140", {"expression": "95 * 12"}, tool="calculator")
    assert check_answer("The total is $1,140.", goal, [price, times])["status"] == "grounded"
    assert check_answer("That is 288 hours.", goal, [counts_only])["status"] == "grounded"


def test_a_figure_from_another_row_of_a_table_is_not_support() -> None:
    """A catalogue table flattened into rows: the answer names one row's item and gives the price
    of another row; the right row's price is grounded."""
    table = call(
        "t",
        '{"file": "catalogue.md", "section": "Task seating", "snippet": "C-320, Sola Mesh, 120 kg, $259; '
        'C-400, Atlas Ergonomic, 150 kg, $449; C-500, Kappa Lounge, 110 kg, $329"}',
    )
    goal = "How much is the Atlas Ergonomic chair?"
    assert check_answer("The Atlas Ergonomic chair costs $259.", goal, [table])["status"] == "ungrounded"
    assert check_answer("The Atlas Ergonomic chair costs $449.", goal, [table])["status"] == "grounded"
    # a sentence that names no row (one shared word at most) is not judged by rows
    assert check_answer("It costs $259.", "How much is the cheapest chair?", [table])["status"] == "grounded"


def test_a_figure_from_another_column_of_a_table_is_not_support() -> None:
    """A row holds one figure per plan (column): an answer that names one column and gives another
    column's figure of the same row states a figure that is in the result, and is wrong. Read in
    both forms results carry tables: a Markdown table and a search snippet's row sentences."""
    markdown = call(
        "m",
        "## Fees\n\n| Item | Basic | Plus | Family |\n|---|---|---|---|\n"
        "| Monthly fee | $30 | $45 | $70 |\n| Joining fee | $10 | $10 | free |\n",
    )
    snippet = call(
        "s",
        '[{"file": "gym.md", "section": "Fees", "snippet": "Item: Monthly fee, Basic: $30, Plus: $45, Family: $70;"}]',
    )
    goal = "What's the monthly fee on the Plus plan?"
    for source in (markdown, snippet):
        wrong = check_answer("The Plus plan's monthly fee is $30.", goal, [source])
        assert wrong["status"] == "ungrounded"
        assert unsupported(wrong)[0]["reason"] == "the results give 30 under Basic, not under Plus"
        assert "under Basic" in correction(wrong)
        assert check_answer("The Plus plan's monthly fee is $45.", goal, [source])["status"] == "grounded"
        # naming the figure's own column too is not judged
        both = "The monthly fee is $30 on Basic and $45 on Plus."
        assert check_answer(both, goal, [source])["status"] == "grounded"
        # naming no column, the answer is judged by the column the goal names
        unnamed = check_answer("The monthly fee is $30.", goal, [source])
        assert unsupported(unnamed)[0]["reason"] == "the results give 30 under Basic, not under Plus"
        assert check_answer("The monthly fee is $45.", goal, [source])["status"] == "grounded"
        # ... unless the goal names the figure's column too, or the answer names it
        either = "What's the monthly fee on Basic or Plus?"
        assert check_answer("The monthly fee is $30.", either, [source])["status"] == "grounded"
        assert check_answer("The Basic plan's monthly fee is $30.", goal, [source])["status"] == "grounded"


def test_a_column_is_judged_only_where_the_table_alone_gives_the_figure() -> None:
    """Not judged: a figure the result also writes outside the table, a column the sentence names
    whose cell holds no figure of the claim's kind (a name, a weight beside a price), a Korean
    table and temperatures alike."""
    also_in_text = call(
        "a",
        "| Item | Basic | Plus |\n|---|---|---|\n| Monthly fee | $30 | $45 |\n\nA Plus day pass is $30.",
    )
    assert check_answer("A Plus pass is $30.", "Plus pass price?", [also_in_text])["status"] == "grounded"
    catalogue = call("c", "Code: C-400, Model: Atlas Ergonomic, Max. user weight: 150 kg, Price: $449;")
    answer = "The Atlas Ergonomic model for a max user weight of 150 kg costs $449."
    assert check_answer(answer, "How much is the Atlas?", [catalogue])["status"] == "grounded"
    korean = call("k", "| 항목 | 기본 | 플러스 |\n|---|---|---|\n| 월 회비 | 30,000원 | 45,000원 |")
    result = check_answer("플러스 월 회비는 30,000원이에요.", "플러스 월 회비 얼마예요?", [korean])
    assert result["status"] == "ungrounded"
    assert (
        check_answer("플러스 월 회비는 45,000원이에요.", "플러스 월 회비 얼마예요?", [korean])["status"] == "grounded"
    )


def test_a_figure_from_a_row_that_matches_the_answer_less_than_another_is_not_support() -> None:
    """Two rows of one table share a word with the answer (a category), the one the answer names
    shares more: the other row's price applied to it is no support, and the reason names both
    rows. Each figure of a sentence that states two rows is judged by its own clause."""
    rows = call(
        "r",
        '[{"file": "stock.csv", "section": "rows 1-9", "snippet": "sku: A-1, name: Garden hose 30 m, category: '
        'Watering, unit_price: 34.99;"}, {"file": "stock.csv", "section": "rows 10-19", "snippet": "sku: A-2, '
        'name: Watering jug 10 L, category: Watering, unit_price: 13.99;"}]',
    )
    goal = "What do we charge for the 10 litre watering jug?"
    wrong = check_answer("The 10 litre watering jug is $34.99.", goal, [rows])
    assert wrong["status"] == "partly"  # its "10 litre" is the goal's
    assert (
        unsupported(wrong)[0]["reason"]
        == "the results give 34.99 in the row of Garden hose 30 m, not of Watering jug 10 L"
    )
    assert check_answer("The 10 litre watering jug is $13.99.", goal, [rows])["status"] == "grounded"
    both = "The watering jug is $13.99, while the garden hose is $34.99."
    assert check_answer(both, goal, [rows])["status"] == "grounded"
    # one shared word each (a tie) or no row named: not judged
    assert check_answer("The watering item is $34.99.", goal, [rows])["status"] == "grounded"


def test_two_figures_swapped_between_two_rows_are_not_support() -> None:
    """A comparison that gives each row the other's figure: each clause names its row by one word
    ("minivan"), no word of the figure's own row, and the row's category cell holds a comma (read
    whole); a snippet's "…" before a row is no part of its first column's name."""
    snippet = (
        "Group: A, Category: Economy (Kia Picanto or similar), Deposit: $300, Damage excess: $1,200; … "
        "Group: D, Category: Minivan, 7 seats (Sienna or similar), Deposit: $500, Damage excess: $1,800;"
    )
    rows = call("r", json.dumps([{"file": "rental.txt", "section": "Rates", "snippet": snippet}], ensure_ascii=False))
    goal = "How much higher is the damage excess on the minivan than on an economy car?"
    swapped = check_answer(
        "The damage excess on the minivan is $1,200, while on the economy car it is $1,800.", goal, [rows]
    )
    assert [c["reason"] for c in unsupported(swapped)] == [
        "the results give 1200 in the row of Economy (Kia Picanto or similar), not of Minivan, 7 seats (Sienna or similar)",
        "the results give 1800 in the row of Minivan, 7 seats (Sienna or similar), not of Economy (Kia Picanto or similar)",
    ]
    right = "The damage excess on the minivan is $1,800, while on the economy car it is $1,200: $600 more."
    assert check_answer(right, goal, [rows])["status"] == "grounded"


def test_a_figure_from_the_row_of_another_date_is_not_support() -> None:
    """A log's rows are told apart by their dates: a figure the answer applies to a date, from a
    row dated on another day while the row of that date is in the results too, is no support; the
    same in query_table's JSON records. A date the results have no row of is not judged."""
    snippet = (
        "date: 2024-06-29, car: Toyota Yaris, station: Tesco Kendal, litres: 29.56, total_gbp: 42.83; "
        "date: 2024-03-14, car: Toyota Yaris, station: Sainsbury's Kendal, litres: 31.42, total_gbp: 45.78;"
    )
    log = call("s", json.dumps([{"file": "fuel.csv", "section": "rows 1-11", "snippet": snippet}]))
    goal = "how many litres went into the yaris on 14 march?"
    wrong = check_answer("The Toyota Yaris used 29.56 litres of fuel on 14 March at Tesco Kendal.", goal, [log])
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give 29.56 in the row of 2024-06-29, not of 14 March"
    ]
    assert check_answer("The Yaris took 31.42 litres on 14 March.", goal, [log])["status"] == "grounded"
    no_row = check_answer("The Yaris took 29.56 litres on 2 May.", goal, [log])
    assert [c["text"] for c in unsupported(no_row)] == ["2 May"]  # the date, not the litres
    records = call("q", '[{"date": "2024-01-13", "litres": 30}, {"date": "2024-02-10", "litres": 31}]')
    moved = check_answer("On 13 January the Yaris took 31 litres.", "litres on 13 jan?", [records])
    assert [c["reason"] for c in unsupported(moved)] == [
        "the results give 31 in the row of 2024-02-10, not of 13 January"
    ]
    assert check_answer("On 10 February it took 31 litres.", "litres on 10 feb?", [records])["status"] == "grounded"


@pytest.mark.parametrize(
    "answer",
    [
        "Before 14 March, the Yaris's last fill-up was 31 litres.",
        "Up to 14 March, the largest fill-up was 31 litres.",
        "Between 13 January and 14 March the largest fill-up was 31 litres.",
        "3월 14일 이전 마지막 주유량은 31 litres였어요.",
    ],
)
def test_a_date_that_bounds_a_range_names_no_row(answer: str) -> None:
    """A date after "before", "up to", "between" (or before "이전") is a bound, not the row's own day:
    the figure of another row before it is no row of another date."""
    records = call(
        "q",
        '[{"date": "2024-01-13", "litres": 30.5}, {"date": "2024-02-10", "litres": 31}, '
        '{"date": "2024-03-14", "litres": 29.25}]',
    )
    result = check_answer(answer, "how many litres?", [records])
    assert [c for c in unsupported(result) if "in the row of" in (c.get("reason") or "")] == []


def test_search_passages_are_no_dated_rows() -> None:
    """Hits of a search whose snippets are prose are passages, not a table's records: a figure in one
    dated passage is not judged by the date of another."""
    hits = json.dumps(
        [
            {
                "file": "notes.md",
                "section": "March",
                "snippet": "At its meeting on 2024-03-01 the committee agreed that the fee stays at £30 this season.",
            },
            {
                "file": "notes.md",
                "section": "April",
                "snippet": "At its meeting on 2024-04-14 the committee talked about the roof repairs and the spring fair.",
            },
        ]
    )
    answer = "On 14 April the fee was £30."
    fee = next(c for c in find_claims(answer) if c.kind == "money")
    assert from_another_date(fee, answer, hits) is None
    records = json.dumps([{"date": "2024-03-01", "fee": 30}, {"date": "2024-04-14", "fee": 35}])
    assert from_another_date(fee, answer, records) == ("2024-03-01", "14 April")


def test_a_row_is_named_by_a_figure_the_answer_gives_it() -> None:
    """ "can" is a stop word, so the words alone ("watering") fit both rows; the answer's "10 litre"
    names the row of "Watering can 10 L" by its 10. A figure of the claim itself names nothing."""
    rows = call(
        "r",
        '[{"file": "stock.csv", "section": "rows 1-9", "snippet": "sku: A-1, name: Garden hose 30 m, category: '
        'Watering, unit_price: 34.99;"}, {"file": "stock.csv", "section": "rows 10-19", "snippet": "sku: A-2, '
        'name: Watering can 10 L, category: Watering, unit_price: 13.99;"}]',
    )
    goal = "What do we charge for the 10 litre watering can?"
    wrong = check_answer("The price of the 10 litre watering can is $34.99.", goal, [rows])
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give 34.99 in the row of Garden hose 30 m, not of Watering can 10 L"
    ]
    right = check_answer("The price of the 10 litre watering can is $13.99.", goal, [rows])
    assert right["status"] == "grounded"
    assert check_answer("The 30 m garden hose is $34.99.", "hose price?", [rows])["status"] == "grounded"


def test_a_figure_only_in_a_row_the_answer_does_not_name_is_not_support() -> None:
    """A figure the results give only in table rows that share no word with the answer's sentence
    (beyond the column names every row has) is that row's, not the answer's subject's. A row
    sentence whose figures carry thousands separators, or whose cell holds a comma, is read whole."""
    rows = call(
        "r",
        '[{"file": "stock.csv", "section": "rows 1-9", "snippet": "sku: A-1, name: Hand trowel (steel, short), '
        'category: Tools, stock: 24, unit_price: 8.99;"}, {"file": "cover.md", "section": "1", "snippet": '
        '"Feature: Contents sum insured (maximum), Basic: $40,000, Premier: $150,000;"}]',
    )
    unnamed = check_answer("The total stock across all the seed products is 24 units.", "seed stock?", [rows])
    assert [c["reason"] for c in unsupported(unnamed)] == [
        "the results give 24 units only in the row of Hand trowel (steel, short), which the answer does not name"
    ]
    wrong = check_answer("The deductible on the Premier plan is $150,000.", "premier deductible?", [rows])
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give $150,000 only in the row of Contents sum insured (maximum), which the answer does not name"
    ]
    # the row named by a word of any of its cells (a cell cut by a comma too), or the figure also
    # written outside a row: support
    assert check_answer("We have 24 hand trowels in stock.", "trowels?", [rows])["status"] == "grounded"
    assert check_answer("The short trowel: 24 in stock.", "trowels?", [rows])["status"] == "grounded"
    assert check_answer("Premier covers contents up to $150,000.", "cover?", [rows])["status"] == "grounded"
    prose = call("p", "Seed packets: 24 in the back room.\n" + rows["output"])
    assert check_answer("There are 24 seed products in stock.", "seeds?", [prose])["status"] == "grounded"
    # a Korean answer on English rows cannot be judged by their words, so they are no support
    # (tests/test_answer_check_languages.py)
    assert [c["reason"] for c in unsupported(check_answer("씨앗 재고는 24개입니다.", "씨앗 재고?", [rows]))] == [
        "the results give 24 only in passages in another language, so what it belongs to could not be checked"
    ]


def test_a_row_that_writes_the_figure_with_the_answers_unit_is_where_it_came_from() -> None:
    """ "5 years" comes from the warranty rows, not from a bookcase row's "5 shelves" that the
    answer's "bookcases" names; a row sentence cut at a comma in a cell ("Tall bookcase, 5
    shelves") is read whole, so its 5 is no figure outside the rows."""
    hits = call(
        "s",
        '[{"file": "catalogue.md", "section": "Warranty", "snippet": "Product: Task chairs, Warranty: 5 years; '
        'Product: Atlas, Warranty: 10 years;"}, {"file": "catalogue.md", "section": "Storage", "snippet": '
        '"Code: S-520, Model: Tall bookcase, 5 shelves, Size (W × D × H): 80 × 35 × 190 cm, Price: $189;"}]',
    )
    wrong = check_answer(
        "The warranty for standing bookcases with motor failures is 5 years.", "motor warranty?", [hits]
    )
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give 5 years only in the row of Task chairs, which the answer does not name"
    ]
    assert check_answer("Task chairs have a 5 years warranty.", "chair warranty?", [hits])["status"] == "grounded"
    assert check_answer("The tall bookcase has 5 shelves.", "shelves?", [hits])["status"] == "grounded"


def test_a_figure_is_no_arithmetic_step_from_itself() -> None:
    """ "$10" for a 10-person room, with $10 only in a gear row the answer does not name: the
    result's "10%" (read as 0.1) added to the answer's own 10 rounds back to 10, which was counted
    as a derived figure. Outside the rows the result writes 10 only as a percentage, which is no
    other source for an amount of money."""
    hits = call(
        "s",
        '[{"file": "club.md", "section": "Gear", "snippet": "Item: Poles, Charge: $3, Deposit: none; Item: Crampons, '
        'Charge: $10, Deposit: none;"}, {"file": "policy.md", "section": "Costs", "snippet": "We reduce the premium '
        'by 10% if you have made no claim in the last 3 years."}]',
    )
    wrong = check_answer("The 10-person meeting room costs $10 per hour.", "10-person room per hour?", [hits])
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give $10 only in the row of Crampons, which the answer does not name"
    ]
    assert check_answer("Crampons cost $10 a weekend.", "crampons?", [hits])["status"] == "grounded"
    # a real step still counts: 10 + 3 = 13 from the two charges
    both = check_answer("Poles are $3 and crampons $10, so $13 together.", "both?", [hits])
    assert both["status"] == "grounded"


def test_a_result_echoing_the_calls_own_query_is_no_support() -> None:
    """A simulated search writes the query back: its "10" is the model's own, not a found fact. A
    document that merely contains the query's words still supports."""
    echo = call(
        "w",
        '{"query": "cost of 10-person meeting room", "results": [{"title": "Search tips"}]}',
        {"query": "cost of 10-person meeting room"},
    )
    result = check_answer("The 10-person room is $10 per hour.", "How much is the 10-person room per hour?", [echo])
    assert [c["text"] for c in unsupported(result)] == ["$10"]
    found = call("d", '[{"snippet": "Meeting room (10 people): $10 per hour"}]', {"query": "meeting room 10"})
    assert check_answer("It is $10 per hour.", "meeting room for 10?", [found])["status"] == "grounded"


def test_a_zero_in_the_answer_does_not_break_the_check() -> None:
    """A claim of 0 was divided by when looked for as one arithmetic step from another figure."""
    result = check_answer("It is 0 now, 5 before.", "what is 3+2?", [call("c", "5")])
    assert result["status"] == "partly"


def test_no_figure_rounds_to_a_zero() -> None:
    """ "£0" is not "50% off" (0.5 rounded to no decimals) nor "10%"; a result's own 0 is."""
    offers = call("o", "New customers: 50% off the rent for 8 weeks; pay up front: 10% off. Large: GBP 58.00 a week.")
    answer = "The difference between the two units is £0."
    assert check_answer(answer, "how much more a week is the drive-up unit?", [offers])["status"] == "ungrounded"
    assert (
        check_answer(answer, "how much more a week is it?", [call("z", "Price difference: £0")])["status"] == "grounded"
    )


NOT_ASKED = [
    # (goal, answer, result, grounded): a "how many days / people" or a price goal is answered by a
    # figure of that measure.
    (
        "해외 배송은 며칠 걸려요?",
        "무료 배송은 $500 이상 주문부터예요.",
        "Free shipping from $500. Abroad: 7-10 days.",
        False,
    ),
    ("How many days does delivery abroad take?", "It costs $35.", "Abroad: $35, 7-10 days.", False),
    ("How many people can the room hold?", "The room costs $40 an hour.", "Room: 10 people, $40 an hour.", False),
    ("해외 배송은 며칠 걸려요?", "해외 배송은 7~10일 걸려요.", "Abroad: 7-10 days.", True),
    ("How many days does delivery abroad take?", "7 to 10 days.", "Abroad: 7-10 days.", True),
    ("How many nights can I stay?", "You can stay 3 nights.", "Maximum stay: 3 nights.", True),
    (
        "다음 회의는 며칠이에요?",
        "다음 회의는 9월 9일이에요.",
        "Next meeting: 9 September.",
        True,
    ),  # 며칠: which day, too
    ("How many people can the room hold?", "It holds 10 people.", "Room: 10 people, $40 an hour.", True),
    # days are not a few hours (a day or more of them is); weeks are days
    (
        "산장은 최대 며칠까지 예약할 수 있어요?",
        "최대 1시간까지 예약할 수 있어요.",
        "회의실: 최대 1시간. 산장: 최대 3박.",
        False,
    ),
    ("How many hours does the course take?", "It costs $40.", "Course: $40, 6 hours a day.", False),
    ("How many days until it ships?", "48 hours.", "Ships within 48 hours.", True),  # a day or more
    ("How many hours is the shop open?", "From 9:00 to 17:00.", "Open 9:00-17:00.", True),
    # counts written in words, figures repeated from the goal, and words that are no measure
    (
        "How many nights is the minimum stay in the €150 room?",
        "The €150 room has a two-night minimum.",
        "€150 room: 2 nights minimum",
        True,
    ),
    ("며칠 걸려요?", "이틀 걸려요, 비용은 $35.", "2 days, $35", True),
    ("이 가방은 몇 달러예요?", "$85예요.", "가방 $85", True),
    ("최대 몇 분까지 들어갈 수 있어요?", "8명까지 들어가요.", "정원 8명, 2시간", True),
    ("산장은 최대 며칠까지 예약할 수 있어요?", "최대 2주까지 예약할 수 있어요.", "산장: 최대 2주.", True),
    ("How many hours does the course take?", "It takes 90 minutes.", "Course: 90 minutes.", True),
    ("How much does delivery abroad cost?", "It costs $35.", "Abroad: $35, 7-10 days.", True),  # not a count asked
    # a "not found" answer is judged as such, not as a wrong count
    ("How many days does delivery abroad take?", "The results do not say; shipping costs $35.", "Abroad: $35.", True),
    # a price or a date asked: a temperature alone is no answer (a weather call's figure); other
    # figures are judged no further, "when" meaning "if" and a goal about warmth not at all
    ("단지 헬스장 한 달 이용료가 얼마예요?", "단지 헬스장 한 달 이용료는 22°C입니다.", "Seoul: 22°C, sunny", False),
    ("How much does the boardroom cost?", "It is 22 °C in there.", "Boardroom: £40 an hour; 22 °C", False),
    ("How much does the boardroom cost?", "It takes 6 hours.", "Boardroom: 6 hours, £40 an hour", True),
    ("What's the cancellation fee?", "Cancellation is free up to 48 hours before.", "Free up to 48 hours", True),
    ("What does the free trial cost?", "The trial is free for 14 days.", "Trial: free for 14 days", True),
    ("거리가 얼마예요?", "약 5km입니다.", "거리 5km", True),
    ("온도가 얼마예요?", "현재 22°C입니다.", "22°C", True),
    ("준비기간은 얼마예요?", "3일입니다.", "준비기간 3일", True),
    ("Is there a fee when I return the car late?", "Yes, $25 per hour.", "Late return: $25 per hour", True),
    ("When is rent due and how much is it?", "Rent is $1,200, due on the 1st.", "Rent $1,200, due on the 1st", True),
    ("취소하면 언제든지 환불되나요?", "네, 100% 환불됩니다.", "100% 환불", True),
    ("언제 가장 따뜻해요?", "여름이 가장 따뜻하며 평균 27°C입니다.", "여름 평균 27°C", True),
    ("단지 헬스장 한 달 이용료가 얼마예요?", "한 달 이용료는 30,000원입니다.", "헬스장: 월 30,000원", True),
    ("What's the fee for a lost fob?", "The fee is £30.", "Lost fob: £30", True),
    ("How much does the plan cost?", "It costs 10% less on a 12-month contract.", "12-month: 10% off", True),
    ("2,340의 17%는 얼마야?", "397.8입니다.", "397.8", True),
    ("How much does the chicken weigh?", "It weighs 2 kg.", "Chicken: 2 kg", True),  # no price asked
    ("얼마나 걸려요?", "3일 걸려요.", "3 days", True),
    # "when" asks a date, a time or a span of time
    ("203동 엘리베이터 점검 언제 해요?", "현재 22°C로 점검해주세요.", '{"city": "Seoul", "temperature": 22}', False),
    ("토요일에는 몇 시까지 맡길 수 있어요?", "토요일에는 22°C까지 맡길 수 있어요.", '{"temperature": 22}', False),
    ("What time does the hall close on Fridays?", "It closes at 22 °C.", '{"temperature": 22}', False),
    ("토요일에는 몇 시까지 맡길 수 있어요?", "토요일에는 17:00까지예요.", "토요일 09:00 – 17:00", True),
    ("When is the payment due?", "It costs $35 if late.", "Late fee: $35, due on 25 May", True),  # not judged
    ("203동 엘리베이터 점검 언제 해요?", "5월 14일 오전 10시입니다.", "203동: 5월 14일 10:00", True),
    ("When can I cancel?", "Within 14 days.", "Cancel within 14 days.", True),
    # a time of day asked: a time answers, or a bare number that can be an hour; dates do not
    ("사진관 토요일엔 몇 시에 문 닫아요?", "토요일엔 71.6 시에 문 닫아요.", '{"temperature": 71.6}', False),
    (
        "What time are the quiet hours?",
        "The site is open from 27 March to 1 November.",
        "Open 27 March - 1 November",
        False,
    ),
    ("What time does the studio close on Saturdays?", "It closes at 18:00.", "Saturday: 10:00 - 18:00", True),
    ("사진관 토요일엔 몇 시에 문 닫아요?", "토요일엔 오후 6시에 닫아요.", "토요일 오전 10시 ~ 오후 6시", True),
    ("What time of year is cheapest?", "Prices are lowest from 1 November.", "Low season from 1 November", True),
    ("What time does it close on 24 December?", "On 24 December it is closed.", "24 December: closed", True),
    # a temperature asked: a temperature answers, or a bare number; the baking time does not
    ("What temperature do I bake the lasagne at?", "Bake it for 45 minutes.", "Bake at 190°C for 45 minutes.", False),
    ("오븐 몇 도로 구워요?", "40분 구우면 돼요.", "190°C에서 40분 굽는다", False),
    ("What temperature do I bake the lasagne at?", "Bake it at 190°C.", "Bake at 190°C for 45 minutes.", True),
    ("What temperature do I bake the lasagne at?", "Gas mark 5.", "Bake at gas mark 5 for 45 minutes.", True),
]


@pytest.mark.parametrize(("goal", "answer", "result", "grounded"), NOT_ASKED)
def test_a_how_many_goal_is_not_answered_by_figures_of_another_measure(
    goal: str, answer: str, result: str, grounded: bool
) -> None:
    checked = check_answer(answer, goal, [call("s", result)])
    assert (checked["status"] == "grounded") is grounded, checked["claims"]
    if not grounded:
        assert unsupported(checked)[0]["reason"].startswith("the question asks for ")


def test_the_goals_column_does_not_judge_an_answer_that_gives_that_columns_figure_too() -> None:
    row = call("s", '[{"file": "plans.md", "snippet": "Plan: Pro, Monthly: $12, Annual: $120;"}]')
    goal = "What is the Annual price of Pro?"
    both = check_answer("Pro costs $120 a year, or $12 if you pay each month.", goal, [row])
    assert both["status"] == "grounded"
    alone = check_answer("Pro costs $12.", goal, [row])
    assert unsupported(alone)[0]["reason"] == "the results give 12 under Monthly, not under Annual"


def test_a_how_many_check_leaves_contacts_their_support() -> None:
    result = call("s", "Abroad: $35. Write to help@example.com")
    checked = check_answer("It costs $35; write to help@example.com.", "How many days does delivery take?", [result])
    sources = {c["text"]: c["source"] for c in checked["claims"]}
    assert sources["$35"] is None and sources["help@example.com"] is not None


def test_an_amount_in_another_currency_is_no_support() -> None:
    """A result in pounds backs no euros or dollars of the same number ("€168 per month" from
    "£168 per month"); the same currency written another way ("24달러" for "$24") does."""
    tariff = call("t", "Students get 20% off the hot desk plan (£168 per month).")
    wrong = check_answer("A new key card costs €168 per month.", "How much is a new key card?", [tariff])
    assert unsupported(wrong)[0]["reason"] == "the results give 168 only as £168"
    assert check_answer("It is £168 per month.", "How much for students?", [tariff])["status"] == "grounded"
    dollars = call("p", "Unit price: $24")
    assert check_answer("단가는 24달러예요.", "단가가 얼마야?", [dollars])["status"] == "grounded"
