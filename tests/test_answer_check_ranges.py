"""A figure a result gives for a range of a count that does not hold the goal's count.

"How much do 150 units cost after the volume discount?" was answered "$3240": 21.60 × 150, a
calculator's real result, from the price the list gives for "500 units or more". The tier the
goal's count falls in gives $22.80. Such a figure is no support, nor is arithmetic that used it;
a figure whose range holds the count, or that stands after no range, is read as before.
"""

from __future__ import annotations

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.ranges import Range, range_before
from agent_core.checks.words import unsupported
from tests.test_answer_check_generic import call

TIERS = call(
    "t",
    "Volume discount on the whole order: 100 to 499 units 5% off ($22.80 per unit); "
    "500 units or more 10% off ($21.60 per unit); under 100 units no discount.",
)
GOAL = "How much do 150 units cost after the volume discount?"


def calc(cid: str, expression: str, result: str) -> dict:
    return call(cid, result, {"expression": expression}, tool="calculator")


@pytest.mark.parametrize(
    ("answer", "calls", "missing", "reason"),
    [
        # the wrong tier, through a calculator, through the check's own one-step arithmetic, or said
        (
            "150 units cost $3,240.",
            [TIERS, calc("c", "21.60 * 150", "3240")],
            ["$3,240"],
            "computed from 21.60, which the results give for 500 units or more; the question is about 150",
        ),
        ("150 units cost $3,240.", [TIERS], ["$3,240"], None),
        (
            "You get 10% off, so each unit is $21.60.",
            [TIERS],
            ["10%", "$21.60"],
            "the result gives 10% for 500 units or more; the question is about 150",
        ),
        # the tier that holds 150
        ("150 units cost $3,420.", [TIERS, calc("c", "22.80 * 150", "3420")], [], None),
        ("150 units cost $3,420.", [TIERS], [], None),
        ("You get 5% off.", [TIERS], [], None),
    ],
)
def test_a_figure_for_another_range_of_the_count_is_no_support(
    answer: str, calls: list[dict], missing: list[str], reason: str | None
) -> None:
    checked = check_answer(answer, GOAL, calls)
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]
    if reason:
        assert unsupported(checked)[0]["reason"] == reason


@pytest.mark.parametrize(
    ("goal", "answer", "result", "missing"),
    [
        # a table row's range, in English and Korean; an upper bound
        (
            "What discount do we get on 12 units?",
            "12% off.",
            "| 10 to 24 units | 8% |\n| 25 units or more | 12% |",
            ["12%"],
        ),
        ("What discount do we get on 12 units?", "8% off.", "| 10 to 24 units | 8% |\n| 25 units or more | 12% |", []),
        # a count of things the counting words do not name is one of units
        (
            "We need 12 Sola Mesh chairs. Discount?",
            "12% off.",
            "| 10 to 24 units | 8% |\n| 25 units or more | 12% |",
            ["12%"],
        ),
        ("3박 하면 1박에 얼마예요?", "1박에 90,000원입니다.", "2박 이하: 1박 100,000원; 3박 이상: 1박 90,000원", []),
        (
            "2박 하면 1박에 얼마예요?",
            "1박에 90,000원입니다.",
            "2박 이하: 1박 100,000원; 3박 이상: 1박 90,000원",
            ["90,000원"],
        ),
        ("Room for 6 people?", "It is €120 per night.", "Up to 4 guests: €120 per night.", ["€120"]),
        # no count in the goal, another family, or the range after the figure: not judged
        ("What discount is there?", "12% off.", "| 10 to 24 units | 8% |\n| 25 units or more | 12% |", []),
        ("What's it for 3 nights?", "12% off.", "| 10 to 24 units | 8% |\n| 25 units or more | 12% |", []),
        ("Shipping for 5 units?", "Shipping is $15.", "Shipping: $15 per order, free for 20 units or more.", []),
    ],
)
def test_ranges_read_from_rows_and_sentences(goal: str, answer: str, result: str, missing: list[str]) -> None:
    checked = check_answer(answer, goal, [call("r", result)])
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]


def test_range_before_reads_the_bounds_and_stops_at_the_row() -> None:
    text = "under 100 units: none; 100 to 499 units: $22.80; more than 45 days: $5"
    assert range_before(text, text.index("$22.80"), "units") == Range("units", 100, 499, "100 to 499 units")
    assert range_before(text, text.index("$5"), "units") is None  # the units range is another row's
    days = range_before(text, text.index("$5"), "days")
    assert days is not None and not days.holds(45) and days.holds(46)
    under = Range("units", None, 100, "under 100 units", high_in=False)
    assert under.holds(99) and not under.holds(100)
