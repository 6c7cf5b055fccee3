"""A price asked per one thing, answered with a price the answer says is per another.

"How much is the 10-person meeting room per hour?" was answered "… up to $2,500 per claim." (an
insurance limit) and shown ✅: the figure is in a result, and the answer itself says it is per
claim, not per hour. Flagged now. A price said per the asked thing, per a word for it, or per
nothing at all is left alone. No topic."""

from __future__ import annotations

import pytest

from agent_core.checks.asked import asked_bases
from agent_core.checks.grounding import check_answer
from agent_core.checks.words import unsupported
from tests.test_answer_check_generic import call

HITS = call(
    "s",
    "We pay the cost of finding where the water came from, up to $2,500 per claim. "
    "Meeting room (10 people): $25 per hour. Day pass: $30 a day. Membership: $240 per month.",
)


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ("How much is the meeting room per hour?", {"hour"}),
        ("what's the nightly rate for a campervan?", {"night"}),
        ("how much more a year is premier than standard", {"year"}),
        ("How much is it a night?", {"night"}),
        ("회의실 시간당 얼마예요?", {"hour"}),
        ("하룻밤에 얼마까지 나와요?", {"night"}),
        ("I booked a day trip, how much is it?", set()),  # "a day trip" asks no price per day
        ("How much is the meeting room?", set()),
        ("How much is the fee as per the policy?", set()),
    ],
)
def test_what_a_goal_asks_a_price_per(goal: str, expected: set[str]) -> None:
    assert asked_bases(goal) == expected


def test_a_price_per_another_thing_does_not_answer() -> None:
    checked = check_answer(
        "The cost of finding where the water came from is up to $2,500 per claim.",
        "How much is the 10-person meeting room per hour?",
        [HITS],
    )
    reasons = [c["reason"] for c in unsupported(checked)]
    assert reasons == ["the question asks a price per hour, and the answer gives $2,500 per claim"], checked


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("How much is the meeting room per hour?", "The meeting room costs $25 per hour."),
        ("How much is the meeting room per hour?", "The meeting room costs $25."),  # said per nothing
        ("How much is the meeting room per hour?", "It is $25 per hour, or $2,500 per claim."),
        ("How much is it per person?", "It is $30 a head."),  # a word for the same thing
        ("What's the nightly price?", "It is $30 a day."),  # a day and a night are taken for one another
        ("How much is the meeting room?", "It costs $2,500 per claim."),  # no price per anything asked
    ],
)
def test_a_price_per_the_asked_thing_or_per_nothing_stands(goal: str, answer: str) -> None:
    checked = check_answer(answer, goal, [HITS])
    assert not any("asks a price per" in str(c.get("reason")) for c in checked["claims"]), checked
