"""A difference asked, answered with prices and no difference.

"how much more is the gold service compared to silver?" was answered "The gold service costs
£165." and shown ✅: the figure is in the result, and it is no difference. So was "The fixed desk
costs $289 per month, while the hot desk costs $349 per month." Both are flagged; an answer that
gives the difference, or says how the prices compare, is left alone. English and Korean, no topic."""

from __future__ import annotations

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, summary, unsupported
from tests.test_answer_check_generic import call

PACKAGES = call("s", "Package: Silver Service, Price: £95; Package: Gold Service, Price: £165;")
PASSES = call("y", "이용권: 10회권, 가격: 220,000원; 이용권: 20회권, 가격: 400,000원;")
WHY = "the question asks how much the prices differ, and the answer gives one price and no difference"
BOTH = "the question asks how much the prices differ, and the answer gives the prices and no difference"


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        ("how much more is the gold service compared to silver?", "The gold service costs £165.", PACKAGES),
        ("What's the price difference between Gold and Silver?", "Silver is £95.", PACKAGES),
        ("10회권이랑 20회권 중에 얼마 차이 나요?", "10회권의 가격은 220,000원입니다.", PASSES),
    ],
)
def test_one_price_is_no_difference(goal: str, answer: str, result: dict) -> None:
    checked = check_answer(answer, goal, [result])
    assert [c["reason"] for c in unsupported(checked)] == [WHY], checked["claims"]


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        ("how much more is gold than silver?", "Gold costs £70 more than Silver.", PACKAGES),
        ("how much more is gold than silver?", "Gold is £165 and Silver £95. The difference is £70.", PACKAGES),
        ("how much more is gold than silver?", "Gold, at £165, is the dearer one.", PACKAGES),
        ("10회권이랑 20회권 중에 얼마 차이 나요?", "20회권이 180,000원 더 비싸요.", PASSES),
        ("How much is the gold service?", "The gold service costs £165.", PACKAGES),  # no difference asked
        ("how much more is gold than silver?", "Gold is £70 pricier.", PACKAGES),
        ("What's the difference between the gold and silver plans?", "Gold costs £165 and adds a clean.", PACKAGES),
        ("What's the price difference? And how much is gold?", "Gold is £165.", PACKAGES),  # two questions
        ("How much extra is breakfast?", "Breakfast is £165 per person.", PACKAGES),  # a supplement, not a difference
        ("What's the price difference between Gold and Silver?", "Both cost £165 a month.", PACKAGES),
    ],
)
def test_a_difference_or_a_comparison_stands(goal: str, answer: str, result: dict) -> None:
    checked = check_answer(answer, goal, [result])
    assert {WHY, BOTH}.isdisjoint(c.get("reason") for c in unsupported(checked)), checked["claims"]


@pytest.mark.parametrize(
    "answer",
    [
        "Gold is £165 and Silver £95.",
        "The gold service costs £165, while the silver service costs £95.",
    ],
)
def test_both_prices_side_by_side_are_no_difference(answer: str) -> None:
    checked = check_answer(answer, "how much more is gold than silver?", [PACKAGES])
    assert [c["reason"] for c in unsupported(checked)] == [BOTH, BOTH], checked["claims"]
    assert summary(checked) == f"⚠ £165 and £95: {BOTH}"  # one reason, said once


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        ("how much more is gold than silver?", "The gold service costs £165.", PACKAGES),
        ("how much more is gold than silver?", "Gold is £165 and Silver £95.", PACKAGES),
        ("How much do 3 nights cost?", "It is €120 per night.", call("h", "Double room: €120 per night.")),
        (
            "How much is a paired lesson per term?",
            "It is £14 per term.",
            call("f", "£14.00 per lesson ........ £182 per term"),
        ),
    ],
)
def test_the_model_is_asked_to_work_out_what_was_asked(goal: str, answer: str, result: dict) -> None:
    """A true figure for another quantity than the one asked: looking it up again finds the same
    figure, so the turn sent back asks for the arithmetic."""
    assert correction(check_answer(answer, goal, [result])).endswith(
        "Work it out for the quantity asked (with a tool for the arithmetic), or say which quantity the figure is for."
    )


def test_a_word_that_frames_a_comparison_need_not_be_in_the_results() -> None:
    """ "compared" (stemmed "compar") asks how two things compare; it names no thing a result must
    mention."""
    hits = call(
        "h",
        '[{"file": "prices.md", "section": "Service packages", "snippet": "Package: Silver Service, What is '
        'included: wheel truing, Price: £95; Package: Gold Service, What is included: full strip-down, Price: £165;"},\n'
        '{"file": "prices.md", "section": "Discounts", "snippet": "10% off everything except service plans."}]',
    )
    answer = "Gold costs £165 compared to Silver's £95: £70 more."
    checked = check_answer(answer, "how much more is gold compared to silver?", [hits])
    assert unsupported(checked) == [], checked["claims"]
