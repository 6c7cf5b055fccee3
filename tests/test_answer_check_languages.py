"""A figure found only in search hits written in another language than the answer's sentence.

Which hit a figure belongs to is judged by its words (a name the goal gives, a table's row or
column), and words in two languages cannot be compared: "14일" for "how many days do I have to
report damage?" came from "You can cancel within 14 days" and was shown grounded. Such a figure
is not counted as support, and the badge says why; a hit in the answer's own language, or a tool
result that is one passage (a weather reading, a fact, a sum), is read as before.
"""

from __future__ import annotations

import json

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.words import summary, unsupported
from tests.test_answer_check_generic import call


def hits(*snippets: str) -> dict:
    return call("s", json.dumps([{"file": "guide", "snippet": s} for s in snippets], ensure_ascii=False))


ENGLISH = hits(
    "You can cancel within 14 days of the policy starting and we will refund the full premium.",
    "Alternative accommodation is paid up to the nightly rate for your cover level.",
)
KOREAN = hits("환불은 구매 후 14일 이내에 신청할 수 있습니다.", "영업시간은 평일 09:00-18:00입니다.")


@pytest.mark.parametrize(
    ("goal", "answer", "calls", "missing"),
    [
        # a Korean answer, its figure only in English hits; an English answer from Korean hits
        ("집에 피해가 생기면 며칠 안에 신고해야 돼?", "14일 안에 신고해야 합니다.", [ENGLISH], ["14일"]),
        ("How many days do I have to ask for a refund?", "You have 14 days.", [KOREAN], ["14 days"]),
        # a hit in the answer's own language holds it too
        ("환불은 며칠 안에 신청해야 해?", "14일 이내에 신청하면 됩니다.", [ENGLISH, KOREAN], []),
        ("How many days do I have to cancel?", "You can cancel within 14 days.", [ENGLISH], []),
        # one passage, not a search's hits: a weather reading, a fact with its Korean gloss
        ("서울 날씨 어때?", "서울은 22°C입니다.", [call("w", '{"city": "Seoul", "temperature": 22}')], []),
        (
            "배송비 무료 기준이 얼마야?",
            "500달러 이상이면 무료입니다.",
            [call("f", "Free shipping on orders of $500 or more")],
            [],
        ),
    ],
)
def test_a_figure_only_in_hits_in_another_language_is_not_counted(
    goal: str, answer: str, calls: list[dict], missing: list[str]
) -> None:
    checked = check_answer(answer, goal, calls)
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]


def test_the_badge_says_the_language_kept_it_from_being_checked() -> None:
    checked = check_answer("14일 안에 신고해야 합니다.", "며칠 안에 신고해야 돼?", [ENGLISH])
    assert checked["status"] == "ungrounded"
    assert summary(checked) == (
        "⚠ 14일: the results give 14 only in passages in another language, so what it belongs to could not be checked"
    )


def test_arithmetic_that_comes_to_such_a_figure_by_chance_is_no_support() -> None:
    """ "20 hours" for the longest recipe came from "월 20시간" in a Korean hit; the check's own
    one-step arithmetic (4 × 5, from the goal's "4개" and the hit's "5층") then called it grounded."""
    korean = hits("프라이빗 오피스 (4인실), 회의실 무료 이용: 월 20시간", "라운지는 5층에 있습니다.")
    checked = check_answer("The longest recipe takes 20 hours.", "레시피 4개 중에 제일 오래 걸리는 게 뭐야?", [korean])
    assert [c["text"] for c in unsupported(checked)] == ["20 hours"], checked["claims"]
    assert "another language" in str(unsupported(checked)[0].get("reason"))
    # In the hits' own language the same arithmetic still backs it: 4 × 5 people.
    answer = "4인실 5개면 20명이 들어갑니다."
    assert unsupported(check_answer(answer, "몇 명 들어가?", [korean])) == []
