"""A price asked for several things, answered only with a price per one.

"How much do 150 units cost after the volume discount?" was answered "$21.60 per unit": a figure
the results give, said truly, and no answer to the question. The check flags it with what was
asked; a total beside the price per one, a goal that asks the price per one, or a goal that names
no count is left alone. A total asked ("what's the total?") is judged as a price asked. English
and Korean, no topic."""

from __future__ import annotations

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.words import unsupported
from tests.test_answer_check_generic import call

UNIT = call("p", "Volume discount: 150 units or more: $21.60 per unit. Unit price: $24 per unit.")
ROOM = call("h", "Double room: €120 per night, breakfast included.")
GUESTS = call("g", "Day pass: €30 per person. 1인당 30,000원.")
KO_UNIT = call("k", "단가: $24")


@pytest.mark.parametrize(
    ("goal", "answer", "result", "reason"),
    [
        (
            "How much do 150 units cost after the volume discount?",
            "The price for 150 units after the volume discount is $21.60 per unit.",
            UNIT,
            "the question asks the price of 150 units, and the answer gives only a price per unit",
        ),
        (
            "How much would 30 units cost, and would shipping be free?",
            "30 units would be $24 each, and shipping is free.",
            UNIT,
            "the question asks the price of 30 units, and the answer gives only a price per unit",
        ),
        (
            "How much is a double room for 3 nights?",
            "It is €120 per night.",
            ROOM,
            "the question asks the price of 3 nights, and the answer gives only a price per night",
        ),
        (
            "How much is the day pass for 4 people?",
            "It is €30 per person.",
            GUESTS,
            "the question asks the price of 4 people, and the answer gives only a price per person",
        ),
        (
            "제품 10개 사면 총 얼마예요?",
            "개당 $24입니다.",
            KO_UNIT,
            "the question asks the price of 10개, and the answer gives only a price for 1개",
        ),
        (
            "We're 5 people and want the double room for 3 nights. What's the total?",
            "The total is €120 per night for 5 people.",
            ROOM,
            "the question asks the price of 3 nights, and the answer gives only a price per night",
        ),
        (
            "4명이면 얼마예요?",
            "1인당 30,000원입니다.",
            GUESTS,
            "the question asks the price of 4명, and the answer gives only a price for 1명",
        ),
        (
            "Two of us are coming. How much for 3 nights?",  # "how much for" asks a price too
            "The cost for 3 nights is €120 per night.",
            ROOM,
            "the question asks the price of 3 nights, and the answer gives only a price per night",
        ),
        (
            "how much to keep the double room 3 nights? just me, an adult",  # "how much to"; one person, not one night
            "Keeping the double room is €120 per night.",
            ROOM,
            "the question asks the price of 3 nights, and the answer gives only a price per night",
        ),
        (
            "how much to hire a kayak for 3 days?",  # the price per day is the goal's count of days
            "A kayak is £3 per day.",
            call("k", "Kayak hire: £3 per day, £8 for 3 days."),
            "the question asks the price of 3 days, and the answer gives only a price per day",
        ),
    ],
)
def test_a_price_per_one_does_not_answer_a_price_for_several(goal: str, answer: str, result: dict, reason: str) -> None:
    checked = check_answer(answer, goal, [result])
    assert [c["reason"] for c in unsupported(checked)] == [reason], checked["claims"]


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        # the total is there too
        ("How much is a double room for 3 nights?", "It is €120 per night, so €360 in all.", ROOM),
        ("How much is the day pass for 4 people?", "€30 per person: €120 for the four of you.", GUESTS),
        # the goal asks the price per one, or a price for one
        ("How much is a double room per night for 3 nights?", "It is €120 per night.", ROOM),
        ("How much is a night in the double room?", "It is €120 per night.", ROOM),
        ("How much is the double room?", "It is €120 per night.", ROOM),
        ("how much to keep the double room for an adult, per night, 3 nights?", "It is €120 per night.", ROOM),
        ("3 rooms, how much will that be each?", "It is €120 per night.", ROOM),
        ("how much per lesson for 5 lessons?", "It is £30 each.", call("l", "Lessons: £30 per lesson.")),
        # a total asked, answered with one ("in all"), or a total of no count
        ("3 nights in the double room: what's the total?", "€120 per night, so €360 in all.", ROOM),
        ("What's the total for the double room?", "It is €120 per night.", ROOM),
        ("We're 2 for 3 nights. Is breakfast included in all rooms?", "Yes; the room is €120 per night.", ROOM),
        ("For 3 nights, what's the total nightly rate?", "It is €120 per night.", ROOM),
        ("Does the total price include breakfast for 2 adults?", "Yes; the room is €120 per night.", ROOM),
        # no price asked, or no figure of money in the answer
        ("How many units get the volume discount?", "150 units or more, at $21.60 per unit.", UNIT),
        ("How long can 4 people stay?", "There is no limit for 4 people.", GUESTS),
    ],
)
def test_a_price_per_one_is_left_alone_where_it_answers(goal: str, answer: str, result: dict) -> None:
    checked = check_answer(answer, goal, [result])
    assert unsupported(checked) == [], checked["claims"]


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("고양이 하룻밤 맡기면 얼마예요?", "고양이 하룻밤 맡기면 22°C 예요."),
        ("How much is a student membership?", "It is 22 °C today."),
        ("가든홀 토요일 대관료 얼마예요?", "가든홀 토요일 대관료는 22°C입니다."),  # a fee word: …료
        ("스키 장비 대여비 얼마예요?", "장비 대여비는 22°C입니다."),  # …비
        ("how much will that be, then?", "That will be 22 °C."),
        ("바닥 샌더 하루 빌리는 데 얼마예요?", "바닥 샌더 하루는 22°C입니다."),  # …는 데 얼마: to rent it
        ("물레 한 번만 체험해 보는 건 얼마야?", "체험은 22°C입니다."),  # …는 건 얼마: to try it once
    ],
)
def test_a_price_asked_in_plain_words_is_not_answered_by_a_temperature(goal: str, answer: str) -> None:
    checked = check_answer(answer, goal, [call("w", '{"city": "Seoul", "temperature": 22, "unit": "celsius"}')])
    assert [c["reason"] for c in unsupported(checked)] == ["the question asks for a price, and the answer gives none"]


PRICE_LIST = call("s", "시술 가격 및 이용 안내: 2025년 3월 1일부터 적용됩니다. 남성 커트 25,000원. Open 10:00–19:00.")


@pytest.mark.parametrize(
    ("goal", "answer"),
    [
        ("속눈썹 연장도 해요? 가격 얼마예요?", "속눈썹 연장도는 2025년 3월 1일부터 적용됩니다."),  # a date
        ("How much is a men's cut?", "A men's cut is available from 10:00."),  # a time of day
    ],
)
def test_a_price_asked_is_not_answered_by_a_date_or_a_time_alone(goal: str, answer: str) -> None:
    checked = check_answer(answer, goal, [PRICE_LIST])
    assert [c["reason"] for c in unsupported(checked)] == ["the question asks for a price, and the answer gives none"]


@pytest.mark.parametrize(
    "answer",
    [
        "남성 커트는 25,000원이고 2025년 3월 1일부터 적용됩니다.",  # a price beside the date
        "A men's cut is free on 1 March 2025.",  # a price in words
        "남성 커트는 2025년 3월 1일부터 무료입니다.",
    ],
)
def test_a_date_beside_a_price_or_a_price_in_words_answers_a_price_asked(answer: str) -> None:
    checked = check_answer(answer, "남자 커트 가격 얼마예요?", [PRICE_LIST])
    assert not any("asks for a price" in str(c.get("reason")) for c in checked["claims"]), checked["claims"]


@pytest.mark.parametrize("goal", ["역까지 가는 데 얼마나 걸려요?", "끝나는 데 얼마 걸려?", "거리는 얼마야?"])
def test_a_korean_how_long_or_how_far_asks_no_price(goal: str) -> None:
    checked = check_answer("22°C입니다.", goal, [call("w", '{"city": "Seoul", "temperature": 22, "unit": "celsius"}')])
    assert not any("asks for a price" in str(c.get("reason")) for c in checked["claims"]), checked["claims"]


def test_a_korean_per_one_before_the_figure_gives_it_for_one() -> None:
    """ "단가: 개당 $24" gives $24 for one, as "$24 per unit" does: "10개 사면 총 $24" applies it
    to ten."""
    result = call("l", "Unit price (단가): 개당 $24")
    wrong = check_answer("제품 10개 사면 총 $24입니다.", "제품 10개 사면 총 얼마예요?", [result])
    assert [c["reason"] for c in unsupported(wrong)] == ["the result gives $24 for 1개; the question is about 10"]
    right = check_answer("개당 $24라서 10개는 총 $240입니다.", "제품 10개 사면 총 얼마예요?", [result])
    assert unsupported(right) == [], right["claims"]


def test_a_korean_monthly_price_before_the_figure_gives_it_for_one_month() -> None:
    """ "요금: 월 240,000원" is a price per month: said as the total for 12 months, it is another
    quantity's figure; said per month, with its total, it answers. "5월" (May) is no rate."""
    result = call("c", "요금제: 24시간 자유석, 요금: 월 240,000원, 회의실 무료 이용: 월 8시간")
    goal = "24시간 자유석을 12개월치 한 번에 결제하면 총 얼마예요?"
    wrong = check_answer("12개월치 한 번에 결제하면 총 240,000원입니다.", goal, [result])
    assert [c["reason"] for c in unsupported(wrong)] == [
        "the result gives 240,000원 for 1개월; the question is about 12"
    ]
    right = check_answer("월 240,000원이라서 12개월은 총 2,880,000원입니다.", goal, [result])
    assert unsupported(right) == [], right["claims"]
    may = call("m", "5월 240,000원 특가")
    assert unsupported(check_answer("12개월 총 240,000원입니다.", goal, [may])) == []


HIRE = call(
    "h",
    '[{"file": "hire.csv", "section": "rows 1-3", "snippet": "item: Kayak, adult_1_day_gbp: 3, adult_3_days_gbp: 8, '
    'notes: life jacket included;"}, {"file": "hire.csv", "section": "rows 4-6", "snippet": "item: Paddle board, '
    'adult_1_day_gbp: 5, adult_3_days_gbp: 12;"}]',
)


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        # a column named for one day gives its figure for one day, even where it equals the goal's count
        ("Hiring a kayak for 3 days is £3.", ["£3"]),
        ("Hiring a kayak for 3 days is £8.", []),
        ("A kayak is £3 for 1 day, so 3 days cost £8.", []),
    ],
)
def test_a_column_named_for_a_count_gives_its_figure_for_that_count(answer: str, missing: list[str]) -> None:
    checked = check_answer(answer, "how much to hire a kayak for 3 days?", [HIRE])
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]


@pytest.mark.parametrize(
    ("goal", "answer", "missing"),
    [
        # the goal writes £3 as money: the answer repeats the user's own figure
        ("I have £3 left. How much to hire a kayak for 3 days?", "It is £8 for 3 days, more than your £3.", []),
        # the goal writes 3 only as a count, or as a date: the £3 is the result's, for one day
        ("how much to hire a kayak for 3 days?", "Hiring a kayak for 3 days is £3.", ["£3"]),
        ("It's June 3. how much to hire a kayak for 3 days?", "Hiring a kayak for 3 days is £3.", ["£3"]),
    ],
)
def test_a_price_is_the_goals_own_only_where_the_goal_writes_it_as_one(
    goal: str, answer: str, missing: list[str]
) -> None:
    checked = check_answer(answer, goal, [HIRE])
    assert [c["text"] for c in unsupported(checked)] == missing, checked["claims"]
