"""The answer check on what wrong answers of the local model were still marked grounded for: a
difference backed by a result that only holds the same number, an answer that only repeats the
goal's figures, a price computed from the goal's minutes, a calculator that divided by 1, and a
figure from a table row the answer names only by its unit. Each in other words and other domains
than the runs it came from; no rule about any topic."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.checks.differences import said_as_difference
from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, summary, unsupported
from ui.grounding import label


def call(cid: str, output: str, arguments: dict[str, Any] | None = None, tool: str = "any_tool") -> dict[str, Any]:
    return {"call_id": cid, "tool": tool, "arguments": arguments or {}, "output": output, "success": True}


def calc(cid: str, expression: str, output: str) -> dict[str, Any]:
    return call(cid, output, {"expression": expression}, "calculator")


DEPOSIT = call("d", "We take a £30 deposit when you book a Premium Overhaul. Full Service: £95.")
BOTH = call("b", "Premium Overhaul: £165. Full Service: £95.")
MENU = call("m", "Sancerre £39.50 a bottle; Chablis £34.00 a bottle; corkage £24 per bottle.")

DIFFERENCES = [
    # (answer, calls, unsupported texts)
    ("premium overhaul이 full service보다 £30 더 비싸요.", [DEPOSIT], ["£30"]),
    ("The overhaul is £30 more than the full service.", [DEPOSIT], ["£30"]),
    ("Chablis is cheaper by £24 compared to Sancerre.", [MENU], ["£24"]),
    ("The price difference is £24.", [MENU], ["£24"]),
    ("두 와인은 £24 차이가 나요.", [MENU], ["£24"]),
    # two figures of the results differ by it: found, though the answer writes neither
    ("The overhaul is £70 more than the full service.", [BOTH], []),
    ("Chablis is cheaper than Sancerre by £5.50.", [MENU], []),
    ("오버홀이 풀 서비스보다 £70 더 비싸요.", [BOTH], []),
    # the result says it as a difference itself, or computed it
    ("Saturday classes cost £20 more.", [call("s", "Saturday classes cost £20 extra per term.")], []),
    ("It costs 10% less on a 12-month contract.", [call("s", "12-month contract: 10% off")], []),
    ("The overhaul is £70 more.", [BOTH, calc("c", "165 - 95", "70")], []),
    # not a difference: a figure of its own, a bound, a deadline
    ("You pay a £30 deposit.", [DEPOSIT], []),
    ("£24 is less than £39.50.", [MENU], []),
    ("Pay the £30 deposit by Friday.", [DEPOSIT], []),
]


@pytest.mark.parametrize(("answer", "calls", "missing"), DIFFERENCES)
def test_a_difference_is_found_only_as_a_difference(
    answer: str, calls: list[dict[str, Any]], missing: list[str]
) -> None:
    result = check_answer(answer, "How much?", calls)
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


def test_a_difference_held_only_as_another_figure_says_why() -> None:
    result = check_answer("The overhaul is £30 more than the full service.", "how much more?", [DEPOSIT])
    assert unsupported(result)[0]["reason"] == (
        "it is given as a difference, but the results hold it only as a figure of its own, "
        "and no two of their figures differ by it"
    )
    assert summary(result).startswith("⚠ £30: it is given as a difference")
    assert correction(result).startswith("Your answer gives £30 as a difference, but no two figures")


@pytest.mark.parametrize(
    ("text", "figure", "said"),
    [
        ("It is £30 more than that.", "£30", True),
        ("It costs £30 more per month than that.", "£30", True),
        ("It costs £156 per student per term more than a paired lesson.", "£156", True),
        ("cheaper by $24", "$24", True),
        ("paid by $24 cash", "$24", False),  # "by" with no comparison in the sentence
        ("The difference is 22 - 15 = 7.", "22", False),  # an operand of a sum written out
        ("차이는 5,000원입니다.", "5,000원", True),
        ("5,000원 더 비싸요.", "5,000원", True),
        ("5,000원이에요.", "5,000원", False),
    ],
)
def test_said_as_difference(text: str, figure: str, said: bool) -> None:
    at = text.index(figure)
    assert said_as_difference(text, at, at + len(figure)) is said


@pytest.mark.parametrize(
    ("answer", "goal"),
    [
        ("No, 15살은 클럽에 가입할 수 없습니다.", "15살도 클럽 가입할 수 있어요?"),
        ("Ticket to Ride cannot be played by 6 players.", "can 6 of us play ticket to ride?"),
        ("Yes, a 10 kg dog is allowed.", "can i bring my 10 kg dog?"),
    ],
)
def test_an_answer_that_only_repeats_the_goals_figures_was_checked_against_nothing(answer: str, goal: str) -> None:
    result = check_answer(answer, goal, [call("s", "Members must be 18 or over. Dogs are welcome on a lead.")])
    assert result["status"] == "no_claims"
    assert not unsupported(result)
    assert summary(result) == "every number comes from your goal, so nothing was checked against a tool result"
    assert label(result) == "— nothing to check"


def test_arithmetic_on_the_goals_figures_or_a_results_figure_is_still_grounded() -> None:
    assert check_answer("397.8", "17% of 2,340", [])["status"] == "grounded"
    mixed = check_answer(
        "Yes: members must be 18, and you are 15.", "I'm 15, can I join?", [call("s", "Members must be 18 or over.")]
    )
    assert mixed["status"] == "grounded"


PIANO_GOAL = "one child does 45 min lessons and the other 30 min. what do i pay for the term altogether?"


@pytest.mark.parametrize(
    ("answer", "goal", "expression", "output", "supported"),
    [
        ("You pay 120 pounds for the term.", PIANO_GOAL, "45 * 2 + 30 * 1", "120", False),
        ("Booking the room for 6 hours costs $12.", "what do i pay for 6 hours in the room?", "1 * 2 * 6", "12", False),
        ("6시간이면 $12 나와요.", "회의실 6시간 빌리면 얼마예요?", "6 * 2", "12", False),
        # a measure times a count: "my 10kg dog, 7 nights" gave "10 * 7", then "€70 in total"
        ("총 70유로 나와요.", "10kg 강아지 7박이면 총 얼마 나와요?", "10 * 7", "70", False),
        ("That comes to €70.", "my 10 kg dog stays 7 nights, what's the total?", "10 * 7", "70", False),
        # a price in the goal, or a small count the goal writes: arithmetic on a price
        ("3 nights cost $360.", "3 nights at $120 a night, total?", "3 * 120", "360", True),
        ("Two tickets cost $30.", "tickets are $15 each, what do 2 cost?", "15 * 2", "30", True),
    ],
)
def test_a_price_computed_from_the_goals_counts_and_measures_alone_is_not_supported(
    answer: str, goal: str, expression: str, output: str, supported: bool
) -> None:
    result = check_answer(answer, goal, [calc("c", expression, output)])
    money = [c for c in result["claims"] if c["kind"] == "money"]
    assert (money[0]["source"] is not None) is supported, money
    if not supported:
        assert money[0]["reason"].startswith("it is computed from the goal's counts and measures alone")


def test_a_calculator_that_only_divided_by_one_supports_nothing_new() -> None:
    result = check_answer(
        "Yes, you can pay your €600 plan in instalments.",
        "my plan is €600, can i pay monthly?",
        [calc("c", "600 / 1 / 1", "600")],
    )
    assert result["status"] == "no_claims"  # the figure is the goal's, not the calculator's
    assert check_answer("That is €600.", "price?", [calc("c", "600 / 1 / 1", "600")])["status"] == "ungrounded"
    assert (
        check_answer("That is €5.", "price?", [call("p", "€10 for two"), calc("c", "10 / 2", "5")])["status"]
        == "grounded"
    )


REPAIRS = call(
    "r",
    '[{"file": "prices.md", "section": "Single repairs", "snippet": "Job: Puncture repair (new inner tube '
    "fitted), Price: £12 per wheel, Notes: inner tube £7; Job: Tubeless setup, Price: £30 per wheel, Notes: "
    'sealant included;"}]',
)


def test_the_unit_after_a_figure_in_its_own_cell_does_not_name_the_row() -> None:
    wrong = check_answer(
        "Straightening a back wheel costs £12 per wheel.", "how much to straighten my wheel?", [REPAIRS]
    )
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the results give £12 only in the row of Puncture repair (new inner tube fitted), which the answer does not name"
    ]
    right = check_answer("A puncture repair costs £12 per wheel.", "puncture?", [REPAIRS])
    assert right["status"] == "grounded"
    assert check_answer("A tubeless setup is £30 per wheel.", "tubeless?", [REPAIRS])["status"] == "grounded"


WINES = call(
    "w",
    '[{"file": "wines.csv", "section": "rows 33–40", "snippet": "bin: 403, wine: Barolo, country: Italy, colour: red, '
    'bottles_in_cellar: 36; bin: 404, wine: Chianti, country: Italy, colour: red, bottles_in_cellar: 12;"}]',
)


@pytest.mark.parametrize(
    ("answer", "goal", "supported"),
    [
        ("There are 36 Italian red wines on the list.", "how many italian reds have you got?", False),
        (
            "이탈리아 레드 와인은 36개 있어요.",
            "이탈리아 레드 와인 몇 개 있어요?",
            True,
        ),  # "36개" is a count of its own kind
        ("We have 36 bottles of Barolo in the cellar.", "how many bottles of barolo are left?", True),
        ("Barolo has 36 in the cellar.", "how many bottles_in_cellar for barolo?", True),
        ("Barolo is bin 403.", "what bin is barolo?", True),  # no count asked
    ],
)
def test_a_table_cell_is_no_count_of_rows_unless_its_column_is_named(answer: str, goal: str, supported: bool) -> None:
    result = check_answer(answer, goal, [WINES])
    assert (not unsupported(result)) is supported, result["claims"]
    if not supported:
        assert unsupported(result)[0]["reason"] == (
            "the results give 36 only as a table cell under bottles_in_cellar, not as a count of rows"
        )


READING = call("w", '{"city": "Seoul", "temperature": 22, "unit": "celsius", "condition": "sunny"}')


@pytest.mark.parametrize(
    ("goal", "answer", "missing"),
    [
        # a JSON result that names its number's unit gives that figure only in it
        ("자전거 브레이크 케이블 교체하는 데 얼마예요?", "교체하는 데는 약 22분 정도 걸립니다.", ["22분"]),
        ("How much is a haircut?", "A haircut costs $22.", ["$22"]),
        ("How far is it?", "It is 22 km away.", ["22 km"]),
        # the figure as the result gives it, with its unit or bare
        ("서울 날씨 어때?", "서울은 22°C로 맑습니다.", []),
        ("weather in seoul?", "It is 22 degrees and sunny.", []),
        ("weather in seoul?", "It is 22 and sunny.", []),
    ],
)
def test_a_figure_is_of_the_unit_its_json_result_names(goal: str, answer: str, missing: list[str]) -> None:
    checked = check_answer(answer, goal, [READING])
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]
    assert all(c["reason"] == "the results give 22 only as 22 celsius" for c in unsupported(checked))


def test_a_json_unit_judges_only_an_object_with_one_number() -> None:
    """Two numbers and one unit: which has it is not plain, so neither is judged."""
    two = call("t", '{"temperature": 22, "humidity": 60, "unit": "celsius"}')
    assert unsupported(check_answer("It takes 22 minutes.", "how long?", [two])) == []


BILLS_CSV = call(
    "r",
    "month,electricity_kwh,electricity_cost_gbp,gas_kwh,gas_cost_gbp,water_m3,notes\n"
    "2023-01,312,106.08,1850,190.55,11.2,\n"
    "2023-02,284,96.56,1600,164.80,10.4,estimated reading 1600\n",
    {"path": "bills.csv"},
    "read_file",
)
BILLS_SUM = call("q", '[{"month": "2023-01", "sum of electricity_kwh": 312}]', tool="query_table")
FUEL_SUM = call(
    "q",
    '{"table": "fuel_log.csv", "where": "date = April (any year)", "sum of litres": 139.79, "rows": 4}',
    tool="query_table",
)
SHOP_ROW = call("s", '[{"file": "shop.md", "snippet": "name: Trowel, stock: 24, price_per_kg: 12, weight_kg: 3;"}]')


@pytest.mark.parametrize(
    ("result", "answer", "missing"),
    [
        # a column whose name ends in a unit gives its figures in that unit: a CSV read whole, a
        # JSON row, a search snippet's row
        (BILLS_CSV, "The gas cost for January 2023 was £1850.", ["£1850"]),
        (BILLS_CSV, "January's water bill was £11.2.", ["£11.2"]),
        (BILLS_SUM, "The electricity cost £312 in January.", ["£312"]),
        (FUEL_SUM, "We spent $139.79 on petrol in April.", ["$139.79"]),  # a unit word as the column's name
        (SHOP_ROW, "The trowel costs $3.", ["$3"]),
        # the figure in its own unit, or written elsewhere plainly, or in a column with no unit
        (BILLS_CSV, "January's gas use was 1850 kWh and it cost £190.55.", []),
        (BILLS_CSV, "February's gas cost £1600.", []),  # also in the notes, as a plain number
        (BILLS_SUM, "January's electricity use was 312 kWh.", []),
        (SHOP_ROW, "The trowel costs $12 per kg; 24 are in stock.", []),  # a price per kg, a plain count
    ],
)
def test_a_figure_is_of_the_unit_its_tables_column_names(result: dict, answer: str, missing: list[str]) -> None:
    checked = check_answer(answer, "How much was it?", [result])
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]
    assert all(" only as " in c["reason"] and "(" in c["reason"] for c in unsupported(checked))


def test_a_columns_unit_is_said_with_the_column() -> None:
    checked = check_answer("The gas cost for January 2023 was £1850.", "gas bill in january 2023?", [BILLS_CSV])
    assert [c["reason"] for c in unsupported(checked)] == ["the results give 1850 only as 1850 kwh (gas_kwh)"]
