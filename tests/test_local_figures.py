"""Which figures a local answer, and a tool's text argument, may write: those of the goal and the
successful results (agent_core/providers/local/figures.py). It reads digits, never a tool or topic."""

from __future__ import annotations

import re

import pytest

from agent_core.providers.local.figures import (
    SMALL_COUNTS,
    allowed_numbers,
    answer_pattern,
    argument_numbers,
    argument_pattern,
    figure_forms,
    goal_scripts,
    name_figures,
)
from agent_core.text.percent import factors
from tests.local_kit import block


def matcher(pattern: str) -> re.Pattern[str]:
    assert pattern.startswith("^") and pattern.endswith("$")
    return re.compile(pattern[1:-1])


BLOCKS = [
    block(0, "lookup", {"topic": "unit price"}, "Unit price: $24 per unit"),
    block(1, "calculator", {"expression": "150 * 22.80"}, "3420"),
    block(2, "search_documents", {"query": "meeting"}, "Next meeting: 2026-09-09"),
    block(3, "get_weather", {"city": "Cairo"}, "ERROR: no weather data for 'Cairo' (19 known)", error=True),
]


def test_the_allowed_figures_are_the_goals_and_the_successful_results_and_calls() -> None:
    assert allowed_numbers("How much do 150 units cost?", BLOCKS) == [
        "2,026",
        "22.80",
        "3,420",
        "2026",
        "22.8",
        "3420",
        "150",
        "09",
        "22",
        "24",
        "80",
        "9",
    ]  # longest first; "19" of the failed call is not there
    custom = [block(0, "stock_level", {"sku": "SKU-42"}, "SKU-42: 137 units in stock")]
    assert allowed_numbers("What's the stock level of SKU-42?", custom) == ["137", "42"]
    assert allowed_numbers("hello", []) == []


@pytest.mark.parametrize(
    ("written", "forms"),
    [
        ("42.1648128", ["42.1648128", "42.16", "42.2", "42"]),
        ("3420", ["3,420", "3420"]),
        ("1,234.50", ["1,234.50", "1,234.5", "1234.50", "1234.5"]),
        ("500.0", ["500.0", "500"]),
        ("x", ["x"]),
    ],
)
def test_a_figure_may_be_written_rounded_or_with_separators(written: str, forms: list[str]) -> None:
    assert figure_forms(written) == forms


def test_the_answer_can_only_write_numbers_the_goal_or_a_result_has() -> None:
    pattern = matcher(answer_pattern(allowed_numbers("How much do 150 units cost?", BLOCKS)))
    for ok in [
        "150 units cost $3,420.",
        "The next meeting is on 2026-09-09 (September 9).",
        "Not found.",
        "It costs $24",
        "It costs $24.",
        "3420, or 3,420, for 150 units at 22.80",
        "on 9. 9. 2026, 09:09",
    ]:
        assert pattern.fullmatch(ok), ok
    # Allowed numbers run together make a new one: "150" + "24" → "15024", "24" + "." + "9" → "24.9".
    for made_up in [
        "It is 19 °C in Cairo.",  # from the failed call
        "The total is $3,600.",
        "١٢°C",
        "１２ units",
        "15024 units",
        "$24.9",
        "$3,4209",
        "2026.09",
    ]:
        assert not pattern.fullmatch(made_up), made_up
    assert not matcher(answer_pattern([])).fullmatch("about 5")  # no numbers at all: no digit allowed
    assert matcher(answer_pattern([])).fullmatch("Not found — “sorry”, 안녕하세요, café, °C")


def test_a_currency_sign_stands_only_right_before_an_allowed_figure() -> None:
    """Blocked from a figure no result has, the model wrote a placeholder for it ("$X")."""
    pattern = matcher(answer_pattern(allowed_numbers("How much do 150 units cost?", BLOCKS)))
    for ok in ["It costs $24.", "€24 or ₩3,420 or £22.80", "$3,420", "24 dollars", "No price is given."]:
        assert pattern.fullmatch(ok), ok
    for placeholder in ["It costs $X.", "It costs $<unit_price>.", "It costs € and more", "$ 24", "$"]:
        assert not pattern.fullmatch(placeholder), placeholder
    assert not matcher(answer_pattern([])).fullmatch("It is $X.")


def test_the_answer_writes_only_the_email_addresses_the_results_give() -> None:
    blocks = [
        block(0, "search_documents", {"query": "refund email"}, "Write to support@example.com within 30 days."),
        block(1, "lookup", {"topic": "sales"}, "ERROR: sales@example.com is not a topic", error=True),
    ]
    numbers = allowed_numbers("Who do I email about a refund?", blocks)
    assert "support@example.com" in numbers and "sales@example.com" not in numbers
    korean = [block(0, "read_file", {"path": "환불_안내.md"}, "문의는 support@example.com으로 보내 주세요.")]
    assert "support@example.com" in allowed_numbers("이메일 주소?", korean)  # not "…com으로"
    pattern = matcher(answer_pattern(numbers))
    for ok in [
        "Write to support@example.com.",
        "E-mail support@example.com within 30 days.",
        "문의: support@example.com",
    ]:
        assert pattern.fullmatch(ok), ok
    # Asked whom to e-mail, the model made one up: "@" is only in an address given.
    for made_up in ["E-mail minji@example.com.", "support@example.org", "sales@example.com", "me @ home"]:
        assert not pattern.fullmatch(made_up), made_up


def test_the_answer_is_written_in_the_scripts_of_an_english_or_korean_answer_or_the_goals() -> None:
    pattern = matcher(answer_pattern(["200"]))
    assert pattern.fullmatch("It is 200 °C × 200 – “quoted” … 서울은 맑음, 가격은 ₩200.")
    # Blocked from a digit, the model ran on in Thai combining marks until the token limit.
    assert not pattern.fullmatch("Seoul has a temperature of  \u0e4d\u0e4d\u0e4d")
    assert not pattern.fullmatch("東京は200度")
    # A question in another script may be answered in it.
    assert matcher(answer_pattern(["200"], goal="東京の天気は?")).fullmatch("東京は200度です。")
    assert goal_scripts("東京の天気は?") == "\u3000-\u307f\u4e00-\u9fff"
    assert goal_scripts("Привет") == "\u0400-\u047f"
    assert goal_scripts("What about 서울?") == ""


def test_a_text_argument_holds_only_allowed_figures_and_small_counts() -> None:
    pattern = matcher(argument_pattern(["24", "7"]))
    assert set(SMALL_COUNTS) <= set("0123456789") and "2" in SMALL_COUNTS  # halves and doubles
    for ok in ["24 * 7", "24*7+2", "(24 * 7) / 2", "price", "", "average of 24 and 7."]:
        assert pattern.fullmatch(ok), ok
    for count in SMALL_COUNTS:
        assert pattern.fullmatch(f"24 * {count}"), count
    # A price from the model's head, or allowed figures run together, cannot be written.
    for made_up in ["25 * 7", "24.5*7", "240", "7 * 100", "247", "SKU-42", "٢٤"]:
        assert not pattern.fullmatch(made_up), made_up
    for digit in sorted(set("0123456789") - set(SMALL_COUNTS) - {"7"}):
        assert not pattern.fullmatch(f"24 * {digit}"), digit
    assert matcher(argument_pattern(["42"])).fullmatch("SKU-42")


def test_a_stated_percentage_gives_its_factors_to_arithmetic_arguments() -> None:
    """ "17% of 2,340" is computed as 2340 * 0.17; held to the goal's figures alone, the model wrote
    "2340 * 0. 17", which no calculator reads."""
    pattern = matcher(argument_pattern(argument_numbers("What's $240 with 15% off?", [])))
    for ok in ["240 * 0.85", "240 * (1 - 0.15)", "240 - 240 * 15 / 100", "240 * 1.15"]:
        assert pattern.fullmatch(ok), ok
    for made_up in ["240 * 0.8", "240 * 0.75", "240 * 0.1"]:
        assert not pattern.fullmatch(made_up), made_up
    # No percentage, no factor and no 100.
    assert not matcher(argument_pattern(argument_numbers("What is 24 * 7?", []))).fullmatch("24 * 100")
    assert factors("5% off; 500 units or more 10%") == ["0.05", "0.95", "1.05", "0.1", "0.9", "1.1", "100"]
    assert factors("세금 10퍼센트") == ["0.1", "0.9", "1.1", "100"]
    assert factors("no percentage here, 100 units") == []


def test_a_file_name_the_tools_list_may_be_written_whole_in_an_argument() -> None:
    from agent_core.tools.registry import make_tool

    def search(query: str) -> str:
        return query

    tool = make_tool(
        search, description="Search the documents (the_anchor_wine_list_2025.csv, notes.txt, 2단지_안내문.md)."
    )
    assert name_figures([tool]) == ["2", "2025"]
    pattern = argument_pattern(name_figures([tool]))
    assert re.fullmatch(pattern, "Barolo in the_anchor_wine_list_2025.csv")
    assert not re.fullmatch(pattern, "Barolo 2018")  # a vintage the model has not read
    assert name_figures([make_tool(search, description="Costs 25 a month, version 3.5.")]) == []
