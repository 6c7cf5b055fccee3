"""The line choice before a local answer (agent_core/providers/local/lines.py): which result lines
are offered, in what order. Pure functions; no model, no tool or topic named in the code."""

from __future__ import annotations

import json

from agent_core.providers.local.lines import (
    MAX_LINES,
    answer_note,
    candidate_lines,
    choice_question,
    named_cells,
    nothing_found,
)
from tests.local_kit import block

HITS = json.dumps(
    [
        {
            "file": "catalogue.md",
            "snippet": "Code: C-320, Model: Sola Mesh, Price: $259; Code: C-400, Model: Atlas, Price: $449;",
        },
        {
            "file": "club.md",
            "snippet": "Bedding is provided; bring a liner. Nightly rate: Adult, Members: $12, Guests: $18;",
        },
    ]
)


def test_rows_that_name_their_columns_are_offered_one_by_one() -> None:
    """Two rows in one snippet were one line: the model picked it and wrote the first row's price."""
    lines = candidate_lines("How much is the Atlas chair?", [block(0, "any_search", {"query": "atlas"}, HITS)])
    assert lines[0] == "Code: C-400, Model: Atlas, Price: $449;"
    assert "Code: C-320, Model: Sola Mesh, Price: $259;" in lines
    assert "Bedding is provided; bring a liner." in lines  # prose keeps its semicolons
    assert "Nightly rate: Adult, Members: $12, Guests: $18;" in lines


def test_the_rows_of_a_table_with_no_header_are_offered_one_by_one() -> None:
    """A plain-text price list's rows come in one snippet, each ending in its figure; offered as
    one line of three prices, the model picked another line's."""
    snippet = (
        "Hygienist appointment, 30 minutes (scale and polish), £62; Hygienist appointment, 45 minutes "
        "(scale and polish), £85; Airflow stain removal, added to a hygiene visit, £25;"
    )
    hits = json.dumps([{"file": "dental.txt", "section": "3.2 Hygiene", "snippet": snippet}])
    lines = candidate_lines("half hour hygienist appointment cost", [block(0, "search_documents", {}, hits)])
    assert lines[:3] == [
        "Hygienist appointment, 30 minutes (scale and polish), £62;",
        "Hygienist appointment, 45 minutes (scale and polish), £85;",
        "Airflow stain removal, added to a hygiene visit, £25;",
    ]


def test_the_passages_a_snippet_joins_over_an_omission_are_lines_of_their_own() -> None:
    """A snippet marks text left out with "…"; read as one line, a notice rule and another case's
    fee (£40, a missed appointment) shared the request's words twice over, came first and were
    picked as the price of the visit."""
    snippet = (
        "5.2 Hygienist appointments: please give at least 48 hours' notice to cancel or move. … "
        "Missed hygienist appointments: £40"
    )
    hits = json.dumps([{"file": "dental.txt", "section": "5. Appointments", "snippet": snippet}])
    lines = candidate_lines("hygienist appointment cost", [block(0, "search_documents", {}, hits)])
    assert "Missed hygienist appointments: £40" in lines
    assert "5.2 Hygienist appointments: please give at least 48 hours' notice to cancel or move." in lines
    assert not any("…" in line for line in lines)
    # A "…" inside a line of text, not after a sentence's end, is no omission (after review: the
    # prices of "Checkup … £30" were split off and dropped).
    listed = json.dumps([{"file": "prices.txt", "snippet": "Checkup … £30; Hygiene … £45;"}])
    assert "Checkup … £30;" in candidate_lines("checkup price", [block(0, "search_documents", {}, listed)])


def test_a_json_record_is_one_line_with_its_figures() -> None:
    """A table tool's rows (and any object with numbers among its values) are offered row by row,
    each cell after its name: offered their text cells alone ("2024-03"), the rows lost their
    figures, and the model answered from a month with none."""
    rows = json.dumps([{"month": f"2024-0{i}", "sum of electricity_kwh": 300 + i} for i in (1, 2, 3)])
    lines = candidate_lines("units of electric used in march 2024?", [block(0, "query_table", {"file": "u.csv"}, rows)])
    assert lines == [
        "month: 2024-01, sum of electricity_kwh: 301",
        "month: 2024-02, sum of electricity_kwh: 302",
        "month: 2024-03, sum of electricity_kwh: 303",
    ]
    nested = json.dumps({"table": "u.csv", "rows": 2, "result": [{"name": "Trowel", "price": 8.5, "in_stock": True}]})
    # a search hit's page number does not make its snippet one line: the snippet is read by sentence
    hit = {"file": "report.pdf", "page": 7, "snippet": "The trowel costs £8.50 in stores. " + "It is steel. " * 6}
    assert candidate_lines("trowel price?", [block(0, "search_documents", {}, json.dumps([hit]))])[0] == (
        "The trowel costs £8.50 in stores."
    )
    # the outer object's own cells are a short line sharing no word with the request: a label
    assert candidate_lines("trowel price?", [block(0, "query_table", {}, nested)]) == [
        "name: Trowel, price: 8.5, in_stock: true"
    ]


def test_a_markdown_table_row_keeps_its_header_and_failed_results_are_skipped() -> None:
    table = "| Plan | Price |\n|---|---|\n| Basic | $10 |\n| Pro | $25 |"
    blocks = [block(0, "read_any", {"path": "t.md"}, table), block(1, "other", {}, "ERROR: Pro is $99", error=True)]
    lines = candidate_lines("price of the Pro plan", blocks)
    assert lines[0] == "| Plan | Price | | Pro | $25 |"
    assert not any("$99" in line for line in lines)


def test_the_lines_are_ranked_by_shared_words_and_capped() -> None:
    text = (
        " ".join(f"Sentence number {n} mentions nothing useful." for n in range(20)) + " The refund window is 30 days."
    )
    lines = candidate_lines("How long is the refund window?", [block(0, "any", {}, text)])
    assert lines[0] == "The refund window is 30 days." and len(lines) == MAX_LINES
    question = choice_question(lines)
    assert "0. none of them" in question and f"{MAX_LINES}. " in question
    assert "none of the result lines" in answer_note(None).lower() and '"The refund' in answer_note(lines[0])


def test_a_result_writing_back_the_calls_own_query_offers_no_line_of_it() -> None:
    """A search that echoes its query: the query shares the most words with the request and was
    picked as the answer line. It is not offered; what the result found still is."""
    query = "Standard plan hotel fee"
    echoed = json.dumps({"query": query, "results": [{"title": "Search tips", "snippet": "Try other words."}]})
    lines = candidate_lines(
        "What is the hotel fee on the Standard plan?", [block(0, "any_search", {"query": query}, echoed)]
    )
    assert query not in lines and "Try other words." in lines
    # the same text is kept when it is not the call's own argument
    other = candidate_lines(
        "What is the hotel fee on the Standard plan?", [block(0, "any_search", {"query": "x"}, echoed)]
    )
    assert other[0] == query


def test_nothing_found_when_no_result_line_shares_a_word_with_the_request() -> None:
    """A search that wrote back its query and a tip, or a failed call, found nothing about the
    request; a line sharing one of its words did."""
    goal = "What is the hotel fee on the Standard plan?"
    query = "Standard plan hotel fee"
    echoed = json.dumps({"query": query, "results": [{"title": "Search tips", "snippet": "Try other words."}]})
    failed = block(1, "lookup", {"topic": "hotel"}, "ERROR: no fact about the hotel fee", error=True)
    assert nothing_found(goal, [block(0, "any_search", {"query": query}, echoed), failed])
    assert nothing_found(goal, [])
    assert not nothing_found(goal, [block(0, "any", {}, "Hotel costs: up to $150 a night, for at most ten nights.")])
    assert not nothing_found(goal, [block(0, "calculator", {"expression": "150 * 3"}, "450")])  # a value


def test_a_result_in_the_words_of_the_calls_own_query_is_a_finding() -> None:
    """A request in one language, searched in the documents' language: the result shares no word
    with the request but does with the query the model wrote."""
    hits = json.dumps(
        [{"file": "catalogue.md", "snippet": "Electric motors and keypads: warranty of 2 years, parts only."}]
    )
    goal = "스탠딩 책상 모터가 고장나면 몇 년까지 무상 수리 받을 수 있어요?"
    assert not nothing_found(goal, [block(0, "any_search", {"query": "motor warranty"}, hits)])
    assert nothing_found(goal, [block(0, "any_search", {"query": "desk price"}, hits)])


def test_a_short_line_sharing_no_word_with_the_request_is_a_label_and_not_offered() -> None:
    """A search hit's file name and section title: the model picked "garden_centre_inventory.csv"
    as the answering line. Short lines about the request, and sentences, are still offered."""
    hits = json.dumps(
        [
            {
                "file": "garden_centre_inventory.csv",
                "section": "rows 14–25",
                "snippet": "sku: GL-5001, name: Watering can 10 L, stock: 12, unit_price: 13.99;",
            },
            {"file": "notes.md", "section": "Watering", "snippet": "Ask at the till."},
        ]
    )
    lines = candidate_lines("What do we charge for the 10 litre watering can?", [block(0, "any_search", {}, hits)])
    assert "garden_centre_inventory.csv" not in lines and "rows 14–25" not in lines and "notes.md" not in lines
    assert lines[0].startswith("sku: GL-5001") and "Watering" in lines and "Ask at the till." in lines


ROW = "Feature: Escape of water excess (each claim), Essentials: $750, Standard: $500, Premier: $300;"


def test_a_chosen_row_is_narrowed_to_the_figure_columns_the_request_names() -> None:
    goal = "What's the escape of water excess on the Standard policy?"
    assert named_cells(goal, ROW) == (
        "Feature: Escape of water excess (each claim), Standard: $500",
        ["Standard"],
        ["$750", "$300"],
    )
    table = "| Plan | Price | Seats | | Pro | $25 | 10 |"
    assert named_cells("price of the Pro plan", table) == ("Plan: Pro, Price: $25", ["Price"], ["10"])
    # a label that holds digits ("C-400") is no figure: it stays with the row's name
    chair = "Code: C-400, Model: Atlas, Max. user weight: 150 kg, Price: $449;"
    assert named_cells("what is the price of the Atlas?", chair) == (
        "Code: C-400, Model: Atlas, Price: $449",
        ["Price"],
        ["150 kg"],
    )


def test_a_row_is_left_whole_when_the_request_names_none_or_all_of_its_figure_columns() -> None:
    assert named_cells("How much is the escape of water excess?", ROW) is None
    assert named_cells("Compare Essentials, Standard and Premier escape of water excess", ROW) is None
    assert named_cells("What's on the Standard plan?", "The Standard plan costs $10 a month.") is None
    assert named_cells("Standard?", "Feature: x, Standard: $5") is None  # too few cells to be a row
