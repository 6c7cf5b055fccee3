"""The ``answer_not_found`` eval check: "not found" phrasings in English and Korean, and the
answers that only look like one (a fact stated with a negation)."""

from __future__ import annotations

import pytest

from agent_core.evals.checks import check_run
from agent_core.evals.goalset import GoalSetError, parse_goal_set
from agent_core.evals.not_found import says_not_found


@pytest.mark.parametrize(
    "answer",
    [
        "Sorry, I could not find the weather for Cairo.",
        "I couldn’t find who the CEO is in the documents.",
        "The documents do not mention a warranty period.",
        "There is no information about the CEO in the workspace.",
        "The warranty length is not specified in the policy documents.",
        "That isn't listed anywhere.",
        "Weather data for Cairo is unavailable.",
        "Cairo: no weather data (ERROR: get_weather failed)",
        "죄송합니다, 고객센터 전화번호를 찾을 수 없습니다.",
        "요청하신 정보는 문서에서 확인할 수 없습니다.",
        "죄송하지만 전화번호에 대한 정보가 문서에 없습니다.",
        "문서에 전화번호가 나와 있지 않아요.",
        "전화번호는 명시되어 있지 않습니다.",
        "카이로의 날씨 정보를 찾지 못했습니다.",
        "고객센터 번호는 알 수 없습니다.",
        "The CEO of the company cannot be found in the provided information.",
        "The price could not be determined from the results.",
        "The information is missing.",
    ],
)
def test_not_found_phrasings(answer: str) -> None:
    assert says_not_found(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "No, shipping is not free: 20 units cost $480, below the $500 threshold.",
        "20개는 $480로 $500 미만이므로 배송비가 무료가 아닙니다.",
        "배송비가 없습니다: 25개는 $600입니다.",
        "The next operations meeting is on 2026-09-09.",
        "다음 운영 회의는 2026-09-09입니다.",
        "You don't need an umbrella in Seoul: it is sunny, 22 °C.",
        "The customer service number is 1588-1234.",
        "Shipping cannot be free for 20 units: they cost $480.",
        "The form is missing a date.",
        "",
    ],
)
def test_facts_with_a_negation_are_not_a_not_found(answer: str) -> None:
    assert not says_not_found(answer)


def test_the_check_in_a_goal_set() -> None:
    goal_set = parse_goal_set(
        "name: t\ngoals:\n  - id: a\n    goal: Who is the CEO?\n    checks:\n      - answer_not_found: true\n"
        "  - id: b\n    goal: When is the meeting?\n    checks:\n      - answer_not_found: false\n"
    )
    found, missing = goal_set.goals
    record = {"answer": "죄송합니다, 대표 이름은 문서에서 찾을 수 없습니다.", "status": "completed"}
    assert [r["passed"] for r in check_run(found.checks, record)] == [True]
    assert [r["passed"] for r in check_run(missing.checks, record)] == [False]
    assert check_run(found.checks, {"answer": "The CEO is Minji."})[0]["detail"] == "no 'not found' in the answer"
    with pytest.raises(GoalSetError, match="expected true or false"):
        parse_goal_set("name: t\ngoals:\n  - id: a\n    goal: x\n    checks:\n      - answer_not_found: yes please\n")
