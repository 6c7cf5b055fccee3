"""The answer check on wrong answers the local model's eval runs still had marked grounded, on
documents of kinds the sample shop never had:

- a count whose digits a result holds only inside a date, a clock time or a name ("2,025
  screenings" from "2025-03-19"), and an amount that is a file name's digits, a phone number's or
  a document's year ("£2025", "1422 pounds" from "01422 860 317");
- a figure applied to a thing no result mentions at all ("a large popcorn is £25", from a kennel's
  price list), read with the sentence before when it opens with a pronoun;
- a count of fewer rows than its result counted ("11 co-op games under an hour", from a count of
  every co-op game);
- a figure from a row the answer names only through the row's note or its other figures;
- a comparative with no "than" that the answer's own figures contradict.

Each in other words and other domains than the runs they came from; no rule about any topic."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_core.checks.comparisons import flipped_bounds, wrong_comparisons
from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, unsupported


def call(cid: str, output: str) -> dict[str, Any]:
    return {"call_id": cid, "tool": "any_tool", "arguments": {}, "output": output, "success": True}


def hits(*snippets: tuple[str, str]) -> dict[str, Any]:
    """A search result: one hit a snippet, with its file name."""
    return call(
        "s", json.dumps([{"file": f, "section": "prices", "snippet": s} for f, s in snippets], ensure_ascii=False)
    )


TIMETABLE = hits(
    ("ferry_timetable_2024.csv", "sailing: S12, date: 2024-06-03, departs: 07:45, vessel: Gull, seats_free: 31;"),
    ("ferry_timetable_2024.csv", "sailing: S13, date: 2024-06-03, departs: 12:10, vessel: Tern, seats_free: 8;"),
)

COUNTS = [
    # (answer, unsupported texts)
    ("There are 2,024 sailings on the timetable.", ["2,024"]),  # only in the dates and the file name
    ("There are 12 sailings a day.", ["12"]),  # only in the clock time 12:10
    ("Sailing S13 has 8 seats free.", []),
    ("The Gull has 31 free seats.", []),
]


@pytest.mark.parametrize(("answer", "missing"), COUNTS)
def test_a_count_is_not_found_inside_a_date_a_time_or_a_name(answer: str, missing: list[str]) -> None:
    result = check_answer(answer, "how many sailings are there?", [TIMETABLE])
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


@pytest.mark.parametrize(("section", "count"), [("rows 1–13", 1), ("rows 14-25", 14), ("page 3", 3), ("lines 9–13", 9)])
def test_a_count_is_not_found_in_the_part_of_a_document_a_hit_names(section: str, count: int) -> None:
    """A hit's section ("rows 1–13" of a table) says where it is, not how many of anything there are."""
    found = call(
        "s",
        json.dumps(
            [{"file": "ferries.csv", "section": section, "snippet": "sailing: S12, vessel: Gull"}] * 2,
            ensure_ascii=False,  # as the document search writes its hits
        ),
    )
    answer = f"There are {count} sailings below capacity."
    (claim,) = unsupported(check_answer(answer, "how many sailings are full?", [found]))
    assert claim["reason"] == f"the results give {count} only as {section}"


@pytest.mark.parametrize(
    ("goal", "answer", "output"),
    [
        # the end of a range may count what it ranges over
        ("How many rows are reserved?", "12 rows are reserved.", "Rows 1-12 are reserved for members."),
        # an answer that points to a part of a document cites it; it claims no count
        ("Where is the refund rule?", "It is on page 12 of the handbook.", "Handbook, page 12: refunds."),
        ("How many seats are in row 12?", "Row 12 has 20 seats.", "Row 12 - 20 seats; Row 13 - 22 seats"),
        (
            "설치 방법은 몇 페이지에 있나요?",
            "설치 방법은 9페이지부터 20페이지까지 나와 있습니다.",
            "pages 9–20: Installation.",
        ),
    ],
)
def test_counts_and_citations_of_a_documents_parts_are_left_alone(goal: str, answer: str, output: str) -> None:
    assert unsupported(check_answer(answer, goal, [call("c", output)])) == []


def test_the_reason_names_where_the_digits_were() -> None:
    result = check_answer("There are 2,024 sailings.", "how many sailings?", [TIMETABLE])
    (claim,) = unsupported(result)
    assert "2024-06-03" in claim["reason"]


STUDIO = hits(
    ("harbour_studio_prices.md", "Private lesson (45 min): £38. Group class: £14 a head."),
    ("harbour_studio_prices.md", "Mat hire £2; towel hire £1.50. Lockers are free."),
)


def test_a_figure_for_a_thing_no_result_mentions_is_not_support() -> None:
    result = check_answer(
        "A pottery workshop at the harbour studio costs £38.", "how much is a pottery workshop?", [STUDIO]
    )
    (claim,) = unsupported(result)
    assert claim["text"] == "£38"
    assert "“pottery”" in claim["reason"] and "no tool result mentions" in claim["reason"]


def test_a_result_that_repeats_the_query_does_not_mention_its_words() -> None:
    """A web search that found nothing writes the model's own query back: only the query said
    "pottery", no result speaks of it, so £38 is still no support."""
    echo = {
        "call_id": "e",
        "tool": "web",
        "success": True,
        "arguments": {"query": "pottery workshop price"},
        "output": {"query": "pottery workshop price", "results": []},
    }
    result = check_answer("A pottery workshop costs £38.", "how much is a pottery workshop?", [STUDIO, echo])
    (claim,) = unsupported(result)
    assert "“pottery”" in claim["reason"]


@pytest.mark.parametrize(
    "output",
    [
        # rows that name what the call asked for (only an echo at the top of one object is left out)
        [{"name": "pottery", "price": "£38"}, {"name": "weaving", "price": "£30"}],
        # the query written back beside a hit that mentions the word
        {"name": "pottery", "results": [{"snippet": "Pottery evenings at the studio"}]},
    ],
)
def test_a_result_that_names_the_asked_thing_still_mentions_it(output: Any) -> None:
    said = {"call_id": "r", "tool": "any_tool", "success": True, "arguments": {"name": "pottery"}, "output": output}
    assert unsupported(check_answer("Pottery costs £38.", "how much is pottery?", [STUDIO, said])) == []


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        # the thing is in the results, in another form (plural, capitals)
        ("how much is a private lesson?", "A private lesson costs £38."),
        ("what do lessons cost?", "Lessons cost £38."),
        # words that only frame the amount, or the place asked at, need not be in the results
        ("how much does mat hire cost for a full day at Harbour Studio?", "Mat hire at Harbour Studio costs £2."),
        (
            "how much would it cost in total at the harbour studio for a group class?",
            "A group class costs £14 in total.",
        ),
    ],
)
def test_a_figure_about_a_thing_the_results_mention_is_found(goal: str, answer: str) -> None:
    assert unsupported(check_answer(answer, goal, [STUDIO])) == []


def test_a_word_that_names_the_figures_measure_need_not_be_in_the_results() -> None:
    """A recipe gives "Oven: 190 C" and never the word "temperature": "the temperature is 190
    degrees" is about the lasagne, which the result does mention."""
    recipe = hits(
        ("recipes.txt", "3. VEGETABLE LASAGNE. Serves 6. Prep 30 minutes, bake 45 minutes. Oven: 190 C (170 C fan)."),
        ("recipes.txt", "You can assemble the lasagne a day ahead and keep it covered in the fridge overnight."),
    )
    goal = "What temperature do I bake the vegetable lasagne at?"
    right = check_answer("The temperature to bake the vegetable lasagne at is 190 degrees Celsius.", goal, [recipe])
    assert right["status"] == "grounded", right["claims"]
    wrong = check_answer(
        "The temperature to bake the moussaka at is 190 degrees Celsius.", goal + " And moussaka?", [recipe]
    )
    assert "“moussaka”" in unsupported(wrong)[0]["reason"]


def test_one_answer_to_what_was_asked_is_not_judged_by_its_words() -> None:
    # A result that answers the call ('{"temperature": 19}') need not repeat the goal's words.
    weather = call("w", '{"city": "Oslo", "temperature": 19, "unit": "celsius"}')
    assert unsupported(check_answer("The weather in Oslo is 19 °C.", "what's the weather in Oslo?", [weather])) == []
    table = call("t", '[{"price_gbp": 4.2}]')
    assert (
        unsupported(check_answer("The price of a cheese scone is £4.20.", "how much is a cheese scone?", [table])) == []
    )


def test_results_in_another_script_are_not_judged() -> None:
    korean = hits(("가격표.md", "개인 레슨 (45분): 38,000원"), ("가격표.md", "단체 수업: 14,000원"))
    assert unsupported(check_answer("A pottery class is 38,000원.", "pottery class price?", [korean])) == []


COUNTED = [
    # (goal, result, answer, unsupported texts)
    (
        "how many vegan cakes are under £3?",
        '{"table": "menu.csv", "where": "vegan = yes", "count": 7}',
        "There are 7 vegan cakes under £3.",
        ["7"],
    ),
    (
        "how many vegan cakes are under £3?",
        '{"table": "menu.csv", "where": "vegan = yes and price < 3", "count": 4}',
        "There are 4 vegan cakes under £3.",
        [],
    ),
    (
        "몇 개가 만원 이하예요?",
        '{"table": "menu.csv", "count": 40}',
        "40개예요.",
        ["40개"],
    ),
    (
        "how many rooms sleep 4?",
        '{"table": "rooms.csv", "count": 12}',
        "There are 12 rooms that sleep 4.",
        ["12"],
    ),
    # a count of every row answers a question about every row
    ("how many rooms are there?", '{"table": "rooms.csv", "count": 12}', "There are 12 rooms.", []),
    (
        "what do the rooms that sleep 4 cost altogether?",
        '{"table": "rooms.csv", "where": "sleeps = 4", "sum of price": 960, "rows": 6}',
        "The rooms that sleep 4 cost £960 altogether.",
        [],
    ),
]


@pytest.mark.parametrize(("goal", "output", "answer", "missing"), COUNTED)
def test_a_count_covers_only_the_rows_its_result_counted(
    goal: str, output: str, answer: str, missing: list[str]
) -> None:
    result = check_answer(answer, goal, [call("t", output)])
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


def test_the_reason_says_which_rows_were_counted() -> None:
    output = '{"table": "menu.csv", "where": "vegan = yes", "count": 7}'
    (claim,) = unsupported(
        check_answer("7 vegan cakes are under £3.", "how many vegan cakes under £3?", [call("t", output)])
    )
    assert claim["reason"] == "the result counts the rows where vegan = yes, but the question asks for “under” too"


EXTRAS = call(
    "x",
    '[{"file": "post_office_prices.md", "section": "Extras", "snippet": "Extra: Gift wrap, Per item: £4, Per box: '
    "£15, Notes: Not for oversized parcels or pallets.; Extra: Insurance, Per item: £6, Per box: £20, Notes: Up "
    'to £500 cover.;"}, {"file": "post_office_prices.md", "section": "Sending", "snippet": "Parcels over 20 kg '
    'go by courier."}]',
)


def test_a_note_after_a_rows_figure_does_not_name_the_row() -> None:
    """ "oversized parcels" is in the gift wrap row's note, not its name: £4 and £15 are the gift
    wrap's, though the answer's other figure is from the same row."""
    wrong = check_answer(
        "Sending an oversized parcel costs £4 per item and £15 per box.", "oversized parcel?", [EXTRAS]
    )
    assert [c["text"] for c in unsupported(wrong)] == ["£4", "£15"], wrong["claims"]
    right = check_answer("Gift wrap costs £4 per item and £15 per box.", "gift wrap?", [EXTRAS])
    assert unsupported(right) == []


def test_a_sentence_opening_with_a_pronoun_names_its_row_by_the_sentence_before() -> None:
    table = call(
        "c",
        '[{"file": "courses.md", "section": "Timetable", "snippet": "Course: Welsh for Beginners, Time: 18:00 – '
        "19:30, Hours per week: 3, Max. students: 10; Course: Spanish Advanced, Time: 10:00 – 12:00, Hours per week: "
        '4, Max. students: 12;"}, {"file": "courses.md", "section": "Fees", "snippet": "Books are extra."}]',
    )
    answer = "The Welsh beginners course is on Mondays. It runs from 18:00 to 19:30 with at most 10 students."
    assert unsupported(check_answer(answer, "when is welsh for beginners?", [table])) == []
    alone = "It takes at most 10 students."
    assert [c["text"] for c in unsupported(check_answer(alone, "how big is the class?", [table]))] == ["10"]


def test_a_pronoun_sentence_applies_its_figure_to_the_thing_before() -> None:
    answer = "Yes, there is a pottery workshop on Sunday. It starts at 14:00."
    studio = hits(("studio.md", "Private lesson: Sunday 14:00, £38."), ("studio.md", "Group class: Monday 18:00."))
    (claim,) = unsupported(check_answer(answer, "is there a pottery workshop on sunday? what time?", [studio]))
    assert claim["text"] == "14:00" and "“pottery”" in claim["reason"]


def test_a_document_read_whole_is_judged_a_short_answer_is_not() -> None:
    document = call(
        "f",
        "HARBOUR STUDIO PRICES 2025\n\nPrivate lesson (45 min): £38.\nGroup class: £14 a head, up to 8 people.\n"
        "Mat hire £2; towel hire £1.50. Lockers are free. Classes run Monday to Saturday; book at the desk or "
        "online. Cancel 24 hours ahead for a full refund.",
    )
    (claim,) = unsupported(check_answer("A pottery workshop costs £38.", "how much is a pottery workshop?", [document]))
    assert "“pottery”" in claim["reason"]
    short = call("h", "Opening hours: Mon-Fri 9:00-17:00")
    assert unsupported(check_answer("The shop opens at 9:00 on Monday.", "when does the shop open?", [short])) == []


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ("The semi costs £2025.", ["£2025"]),  # a year: the file name has it, the title says it alone
        ("Harbour Windows charge 1422 pounds.", ["1422 pounds"]),  # a phone number's digits, with its leading zero
        ("A 3-bed semi is £18.", []),
        ("The 2 storey semi is £860.", []),  # a number of its own in the same line is still plain
    ],
)
def test_an_amount_is_not_a_name_a_phone_number_or_a_years_title(answer: str, missing: list[str]) -> None:
    price_list = hits(
        ("harbour_windows_prices_2025.txt", "HARBOUR WINDOWS - Prices 2025 · 01422 860 317"),
        ("harbour_windows_prices_2025.txt", "3-bed semi, £18, £45; 4-bed detached, £24, £60; quote 860"),
    )
    result = check_answer(answer, "how much for a semi?", [price_list])
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        # A sentence ends at a point before a space: not inside a file name or a price.
        ("A root canal on a molar at fees_2025.md is £695.", []),
        ("A root canal at fees_2025.md is £695.", ["£695"]),
        ("After the £5.50 check-up, a root canal on a molar is £695.", []),
        ("The practice's emergency line is 01632 960 481.", []),
    ],
)
def test_the_sentence_of_a_figure_runs_past_a_file_name_and_a_price(answer: str, missing: list[str]) -> None:
    fees = hits(
        ("fees_2025.md", "Root canal treatment: Tooth: Premolar, Fee: £550; Tooth: Molar, Fee: £695; Check-up: £5.50;"),
        ("fees_2025.md", "Emergency line: 01632 960 481 (weekdays 17:30-21:00)"),
    )
    result = check_answer(answer, "how much is a root canal on a molar?", [fees])
    assert [c["text"] for c in unsupported(result)] == missing, result["claims"]


UNPAIRED = [
    # (answer, wrong comparisons)
    (
        "The 2-person tent costs £18 a night, while the yurt costs £16 a night. Therefore, the 2-person tent is "
        "cheaper by £2 a night.",
        ["the 2-person tent is cheaper by £2"],
    ),
    ("The yurt costs £16 a night and the tent costs £18. So the yurt is cheaper by £2.", []),
    ("The yurt costs £16 a night and the tent costs £18. So the yurt is £3 cheaper.", ["the yurt is £3 cheaper"]),
    ("The yurt costs £16 a night and the tent costs £18. The tent is more expensive.", []),
    ("The yurt costs £16 a night and the tent costs £18. The tent is cheaper.", ["The tent is cheaper"]),
    # the other side is unsure (two other figures) or not said: not judged
    ("The yurt costs £16, the tent £18 and the cabin £24. The tent is cheaper.", []),
    ("The tent is cheaper.", []),
    ("A 10-night pass costs £95. Ten single nights cost £120, so the pass is cheaper.", []),
]


@pytest.mark.parametrize(("answer", "wrong"), UNPAIRED)
def test_a_comparative_with_no_than_is_checked_against_the_answers_other_figure(answer: str, wrong: list[str]) -> None:
    assert [c.text for c in wrong_comparisons(answer)] == wrong


def test_a_wrong_unpaired_comparison_says_what_the_figures_give() -> None:
    answer = "The yurt costs £16 a night and the tent costs £18. The tent is cheaper."
    result = check_answer(answer, "which is cheaper, the yurt or the tent?", [call("p", "Yurt £16; tent £18.")])
    (claim,) = [c for c in unsupported(result) if c["kind"] == "comparison"]
    assert claim["expected"] == "the answer's own figures give tent 18, 2 above the other figure, 16"


def test_the_correction_for_an_unmentioned_word_allows_the_results_own_words() -> None:
    result = check_answer("A pottery workshop costs £38.", "how much is a pottery workshop?", [STUDIO])
    message = correction(result)
    assert message.startswith("Your answer says £38, but no tool result mentions “pottery”")
    assert "in the result's words" in message and "say that the results do not give it" in message


@pytest.mark.parametrize(
    ("answer", "goal", "flipped"),
    [
        (
            "There is 1 pitch that costs less than £40 a night.",
            "how many pitches cost more than £40 a night?",
            ["less than £40"],
        ),
        ("There are 3 pitches under £40.", "how many pitches cost more than £40?", ["under £40"]),
        ("12 items have more than 10 in stock.", "how many items have fewer than 10 in stock?", ["more than 10"]),
        ("13 pitches cost more than £40.", "how many pitches cost more than £40?", []),
        ("There is 1 pitch that costs more than £40.", "how many pitches cost more than £40?", []),
        ("13 are over £40 and 20 cost less than £40.", "how many pitches cost more than £40?", []),
        ("There are 12 items with fewer than 10 in stock.", "how many items have fewer than 10 in stock?", []),
        ("It is less than £40.", "is it more than £30?", []),  # another figure: a comparison of its own
        ("Yes: only members under 18 need a parent's consent.", "can I join if I'm over 18?", []),  # a yes or no
    ],
)
def test_a_bound_the_other_way_round_from_the_goals_is_flagged(answer: str, goal: str, flipped: list[str]) -> None:
    assert [c.text for c in flipped_bounds(answer, goal)] == flipped
    result = check_answer(answer, goal, [call("t", "13 pitches: £42, £45, £50 …")])
    said = [c for c in result["claims"] if c["kind"] == "comparison"]
    assert [c["text"] for c in said] == flipped
    if flipped:
        assert result["status"] != "grounded"
        assert said[0]["expected"].startswith("the question asks about ")
