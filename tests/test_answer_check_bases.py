"""A price a result gives per one thing, applied by the answer per another.

"£14.00 per student per term" was shown ✅ from "£14.00 per student per lesson ........ £182 per
student per term". Flagged now; the same basis in other words, a result that says nothing of the
basis, and a basis the result prices by only in another row or sentence are left alone. A figure
a result gives for another weight than the goal's, where the result states a rate by weight
("84 minutes" for a 1.6 kg chicken, roasted "20 minutes per 500 g"), is flagged too; a weight
that is a limit, or a figure the rate does not give, is not. No topic."""

from __future__ import annotations

import pytest

from agent_core.checks.bases import bases_after
from agent_core.checks.grounding import check_answer
from agent_core.checks.words import correction, unsupported
from tests.test_answer_check_generic import call

FEES = call(
    "f",
    "Individual lessons 45 minutes ........ £26.00 per lesson ........ £338 per term\n"
    "Paired lessons ........ £14.00 per student per lesson ........ £182 per student per term",
)
FEES_AND_CHOIR = call("fc", FEES["output"] + "\nEnsembles: Chamber Choir (Tuesday 17:00-18:00) ........ £40")
ROOMS = call("r", "Double room: €120 per night, breakfast €15 per person.")
TWO_SENTENCES = call("s", "Double room: €120 per night. Tickets to the spa: €15 per person.")
PLAIN = call("p", "Hire of the hall: £40. Extra hour: £10/hour.")


@pytest.mark.parametrize(
    ("goal", "answer", "result", "reason"),
    [
        (
            "How much is a paired lesson per term?",
            "A paired lesson is £14.00 per student per term.",
            FEES,
            "the result gives £14.00 per student per lesson; the answer gives it per term",
        ),
        (
            "What does an individual lesson cost for a term?",
            "An individual lesson costs £26 per student per term.",
            FEES,
            "the result gives £26 per lesson; the answer gives it per term",
        ),
        (  # a difference said per term: the figure is the result's price per lesson
            "How much more per term is a 45 min individual lesson than a paired lesson (per student)?",
            "A 45-minute individual lesson costs £26 more per term.",
            FEES_AND_CHOIR,  # £40 − £14 is 26 too: as a difference alone, £26 would stand
            "the result gives £26 per lesson; the answer gives it per term",
        ),
        (
            "How much is breakfast?",
            "Breakfast is €120 per person.",
            ROOMS,
            "the result gives €120 per night; the answer gives it per person",
        ),
    ],
)
def test_a_price_per_another_thing_is_not_support(goal: str, answer: str, result: dict, reason: str) -> None:
    grounding = check_answer(answer, goal, [result])
    assert grounding["status"] in ("ungrounded", "partly")
    assert reason in [c.get("reason") for c in unsupported(grounding)]


@pytest.mark.parametrize(
    ("answer", "result"),
    [
        ("A paired lesson is £14.00 per student per lesson.", FEES),
        ("A paired lesson costs £14.00 a lesson.", FEES),  # "a lesson" is "per lesson"
        ("The 45-minute lessons are £338 per term.", FEES),
        ("The room is €120 a night.", ROOMS),
        ("The room is €120 per stay.", ROOMS),  # "stay" is no basis the result prices by
        ("The room is €120 per person.", TWO_SENTENCES),  # "per person" only in another sentence
        ("Pro is $15 per user per month.", call("m", "Pro: $15/user/mo billed annually or $18 per user per month")),
        ("Breakfast is €15 per person.", call("g", "Breakfast €15 per guest, dinner €30 per person")),  # one thing
        ("The hall is £40 per booking.", PLAIN),  # the result says nothing of a basis
        ("An extra hour is £10 per hour.", PLAIN),
        ("An individual lesson costs £12 more per lesson than a paired one.", FEES),  # 26 − 14, per lesson
        ("It costs £156 more per term than a paired lesson.", FEES),  # 338 − 182
    ],
)
def test_the_same_basis_stands(answer: str, result: dict) -> None:
    assert check_answer(answer, "How much is it?", [result])["status"] == "grounded"


def test_bases_after() -> None:
    text = "£14.00 per student per lessons, £5/night, £3 a classes."
    assert bases_after(text, 6) == ["student", "lesson"]
    assert bases_after(text, text.index("/") - 0) == ["night"]
    assert bases_after(text, text.index(" a class")) == ["class"]
    assert bases_after("£26 more per term", 3) == ["term"]
    assert bases_after("£26 more than that", 3) == []


ROAST = call(
    "c",
    "Roasting time: Roast for 20 minutes per 500 g, plus an extra 20 minutes. "
    "A 1.6 kg chicken therefore needs 84 minutes.",
)
CHAIRS = call("t", "Model: Atlas Ergonomic, Max user weight: 150 kg, Price: $449;")


def test_a_figure_for_another_weight_is_not_support() -> None:
    """The result's rate by weight ("per 500 g") makes its figure one for its own weight."""
    grounding = check_answer(
        "The chicken should be roasted for 84 minutes.", "my chicken weighs 2 kg, how long?", [ROAST]
    )
    assert [c.get("reason") for c in unsupported(grounding)] == [
        "the result gives 84 minutes for 1.6 kg; the question is about 2 kg"
    ]
    # The answer's turn asks for the arithmetic, as for a recipe for more people.
    assert "Work it out for the quantity asked" in correction(grounding)


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        ("my chicken weighs 1.6 kg, how long?", "It needs 84 minutes.", ROAST),  # the result's own weight
        ("my chicken weighs 1600 g, how long?", "It needs 84 minutes.", ROAST),  # in grams
        ("my chicken weighs 2 kg, how long?", "A 1.6 kg chicken needs 84 minutes.", ROAST),  # says which
        ("I weigh 140 kg. How much is the Atlas chair?", "The Atlas Ergonomic is $449.", CHAIRS),  # a limit
        ("my chicken weighs 2 kg", "Let it rest for 10 minutes.", call("r", ROAST["output"] + " Rest for 10 minutes.")),
        (
            "My bag weighs 20 kg. What does it cost?",
            "A checked bag costs $35.",
            call("b", "Excess baggage: 15 minutes per kg at the desk. Checked bag up to 23 kg: 35 minutes."),
        ),
        (
            "I weigh 80 kg. How much protein is in a scoop?",
            "One scoop has 24 g of protein.",
            call("p", "Aim for 1.6 g per kg of body weight. One scoop (30 g) has 24 g protein."),
        ),
        ("5킬로미터 달리면 몇 분 걸려요?", "60분 걸려요.", call("k", "1킬로당 6분. 10킬로 코스는 60분입니다.")),
        (  # a rate of 0 ("Sugar: 0 g per 100 g") gives nothing to judge by
            "I usually eat about 150 g. How much protein is in a pot?",
            "A pot has 17 g of protein.",
            call("y", "Protein: 10 g per 100 g. Sugar: 0 g per 100 g. One 170 g pot has 17 g protein."),
        ),
        (  # the goal's weight, written with another beside it
            "my chicken weighs 2 kg",
            "It needs 100 minutes.",
            call("c", "Allow 20 minutes per 500 g plus 20 minutes. A 2kg (4lb) chicken needs 100 minutes."),
        ),
    ],
)
def test_a_figure_for_its_own_weight_stands(goal: str, answer: str, result: dict) -> None:
    assert unsupported(check_answer(answer, goal, [result])) == []
