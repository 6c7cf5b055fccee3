"""The answer check on a table's rows added up or averaged, and on a name the goal writes in
brackets: two kinds of wrong answer the local model's runs on held-out documents had marked
grounded ("the lead climbing course costs 942 GBP", nineteen prices added up; "a men's haircut at
Ongyeol is 9 GBP", from a climbing gym's table that never names the salon).

Each in other words and other domains than the runs they came from; no rule about any topic."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.subjects import names
from agent_core.checks.words import unsupported


def call(cid: str, output: str) -> dict[str, Any]:
    return {"call_id": cid, "tool": "any_tool", "arguments": {}, "output": output, "success": True}


ADDED = [
    # several rows' prices added up, offered as one thing's price
    (
        "How much is the pottery taster class?",
        '{"table": "classes.csv", "where": "level != beginner", "sum of price_eur": 312, "rows": 8}',
        "The pottery taster class costs €312.",
        ["€312"],
    ),
    (
        "how far is the coastal walk?",
        '{"table": "walks.csv", "where": "area contains coast", "sum of distance_km": 47.5, "rows": 6}',
        "The coastal walk is 47.5 km long.",
        ["47.5 km"],
    ),
    (
        "카약 투어는 얼마예요?",
        '{"table": "tours.csv", "sum of price_krw": 420000, "rows": 5}',
        "카약 투어는 420,000원입니다.",
        ["420,000원"],
    ),
    # several rows' mean, offered as one thing's figure
    (
        "how long is the sunset kayak tour?",
        '{"table": "tours.csv", "where": "kind = kayak", "mean of minutes": 95, "rows": 4}',
        "The sunset kayak tour takes 95 minutes.",
        ["95 minutes"],
    ),
    # a total or an average asked: the sum or the mean answers it
    (
        "what's the total stock of mugs?",
        '{"table": "stock.csv", "where": "name contains mug", "sum of stock": 312, "rows": 8}',
        "The total stock of mugs is 312.",
        [],
    ),
    (
        "What do the two lakeside cabins cost together?",
        '{"table": "cabins.csv", "where": "site = lakeside", "sum of price": 230, "rows": 2}',
        "The two lakeside cabins cost £230 together.",
        [],
    ),
    (
        "머그컵 재고 합계가 몇 개야?",
        '{"table": "stock.csv", "where": "name contains mug", "sum of stock": 312, "rows": 8}',
        "머그컵 재고는 312개입니다.",
        [],
    ),
    (
        "What's the average length of a kayak tour?",
        '{"table": "tours.csv", "where": "kind = kayak", "mean of minutes": 95, "rows": 4}',
        "A kayak tour lasts 95 minutes on average.",
        [],
    ),
    # one row "added up" is that row's cell
    (
        "How much is the pottery taster class?",
        '{"table": "classes.csv", "where": "class = Taster", "sum of price_eur": 39, "rows": 1}',
        "The pottery taster class costs €39.",
        [],
    ),
    # a mean is no total, and a sum is no average
    (
        "what do all the kayak tours cost in total?",
        '{"table": "tours.csv", "where": "kind = kayak", "mean of price": 55, "rows": 4}',
        "The kayak tours cost £55 in total.",
        ["£55"],
    ),
]


@pytest.mark.parametrize(("goal", "output", "answer", "missing"), ADDED)
def test_rows_added_up_or_averaged_back_only_a_total_or_an_average(
    goal: str, output: str, answer: str, missing: list[str]
) -> None:
    result = check_answer(answer, goal, [call("t", output)])
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


def test_the_reason_says_what_was_added_up() -> None:
    output = '{"table": "classes.csv", "sum of price_eur": 312, "rows": 8}'
    (claim,) = unsupported(
        check_answer("The taster class is €312.", "How much is the taster class?", [call("t", output)])
    )
    assert claim["reason"] == "the result adds up price_eur over 8 rows, and the question asks for no total"


BARBERS = call(
    "s",
    '[{"file": "salons.md", "section": "Prices", "snippet": "Northgate Barbers: a trim is £14, a beard tidy £8."},'
    ' {"file": "salons.md", "section": "Hours", "snippet": "Northgate Barbers opens at 9am."}]',
)


def test_a_name_in_brackets_is_a_subject_the_results_must_mention() -> None:
    goal = "How much is a trim at the new barber shop (Kestrel Cuts)?"
    (claim,) = unsupported(check_answer("A trim at Kestrel Cuts costs £14.", goal, [BARBERS]))
    assert claim["text"] == "£14" and "Kestrel Cuts" in claim["reason"]
    named = call("s", '[{"file": "salons.md", "section": "Prices", "snippet": "Kestrel Cuts: a trim is £14."}]')
    assert unsupported(check_answer("A trim at Kestrel Cuts costs £14.", goal, [named])) == []


def test_a_bracket_that_opens_a_sentence_names_nothing() -> None:
    goal = "(Asking for my dad.) How much is a trim?"
    assert unsupported(check_answer("Asking around: a trim is £14.", goal, [BARBERS])) == []


def test_names_in_brackets_or_quotes_within_a_sentence() -> None:
    assert names("A trim at Kestrel Cuts is £14.", "a trim at the barber (Kestrel Cuts)?") == ["Kestrel Cuts"]
    assert names('The "Premier" plan costs $640.', 'How much is the "Premier" plan?') == ["Premier"]
    assert names("Asking around: £14.", "(Asking for my dad.) How much is a trim?") == []
    assert names("Trims are £14.", '"Trims" - how much?') == []
