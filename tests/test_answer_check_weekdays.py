"""A time a result gives for one day of the week, applied by the answer to another; a clock time
no clock shows.

"토요일에는 10시부터 19시까지" was shown ✅ from an opening-hours list whose 10:00 - 19:00 is
Monday's (Saturday's is 09:30 - 16:00), and "25시부터 25시까지" was backed by a weather result's
25 °C. Both are flagged now; the day's own times, a list with no row for the day asked about and
an answer that names the day the times are for are left alone. English and Korean, no topic."""

from __future__ import annotations

import pytest

from agent_core.checks.grounding import check_answer
from agent_core.checks.weekdays import days_in
from agent_core.checks.words import unsupported
from tests.test_answer_check_generic import call

HOURS = call(
    "h",
    "Monday       10:00 - 19:00\nTuesday      10:00 - 19:00\nWednesday    10:00 - 13:00\n"
    "Thursday     10:00 - 19:00\nFriday       10:00 - 17:00\nSaturday     09:30 - 16:00\nSunday       closed",
)
ROWS = call(
    "r",
    '[{"file": "shop.md", "section": "Opening hours", "snippet": "Day: Monday, Hours: Closed; '
    'Day: Tuesday–Friday, Hours: 08:30–18:00; Day: Saturday, Hours: 09:00–17:00;"}]',
)
DAILY = call("d", "Closed on Mondays. Open daily 10:00 - 19:00.")
WEATHER = call("w", '{"city": "Tokyo", "temperature": 25, "unit": "celsius"}')


@pytest.mark.parametrize(
    ("goal", "answer", "result", "reason"),
    [
        (
            "자전거 수리점 토요일에 몇 시부터 몇 시까지 해요?",
            "토요일에는 10시부터 19시까지 오픈합니다.",
            HOURS,
            "the result gives 10시 for Monday to Friday; the answer gives it for Saturday",
        ),
        (
            "What are the opening hours on Saturday?",
            "On Saturday it opens at 08:30.",
            ROWS,
            "the result gives 08:30 for Tuesday to Friday; the answer gives it for Saturday",
        ),
        (
            "When does it close on Wednesday?",
            "It closes at 19:00.",  # the day only in the goal
            HOURS,
            "the result gives 19:00 for Monday, Tuesday and Thursday; the answer gives it for Wednesday",
        ),
    ],
)
def test_a_time_for_another_day_is_not_support(goal: str, answer: str, result: dict, reason: str) -> None:
    grounding = check_answer(answer, goal, [result])
    assert grounding["status"] in ("ungrounded", "partly")
    assert reason in [c.get("reason") for c in unsupported(grounding)]


@pytest.mark.parametrize(
    ("goal", "answer", "result"),
    [
        ("토요일에 몇 시부터 해요?", "토요일에는 9시 30분부터 16시까지 해요.", HOURS),
        ("What are the hours on Thursday?", "On Thursday, 08:30 to 18:00.", ROWS),  # in a range of days
        ("What are the hours on Saturday?", "It is open 10:00 to 19:00.", DAILY),  # no Saturday row
        ("When does it open?", "It opens at 10:00 on weekdays.", HOURS),  # a group of days
        ("Wednesday hours?", "Monday to Friday it opens at 10:00.", HOURS),  # the answer names the days
        # the day after its times, a list of days, another time on the line, a closed day
        (
            "Saturday hours?",
            "On Saturday it opens at 10:00.",
            call("a", "Hours: 9:00-17:00 (Mon-Fri), 10:00-14:00 (Sat)."),
        ),
        ("Monday hours?", "On Monday it opens at 10:00.", call("l", "Mon, Tue, Wed: 10:00-18:00; Sat: 09:00-14:00")),
        ("Monday class?", "On Monday it is at 18:00.", call("l", "Classes: Monday and Wednesday 18:00-20:00")),
        (
            "I'm leaving on Monday, what time is check-out?",
            "Check-out is at 11:00.",
            call("j", '{"breakfast": {"weekdays": "07:00-10:00", "weekend": "08:00-11:00"}, "checkout": "11:00"}'),
        ),
        (
            "Is it open on Sunday?",
            "It's open until 22:00 except on Sunday.",
            call("c", "Mon-Sat 08:00-22:00; Sun closed"),
        ),
        # days after their times, "except", a Korean range "월~금요일"
        (
            "Saturday hours?",
            "On Saturday it's open from 10:00 to 16:00.",
            call("t", "Open 9:00–17:00 Mon–Fri, 10:00–16:00 Sat, 11:00–15:00 Sun."),
        ),
        (
            "Thursday hours?",
            "On Thursday it is open from 10:00 to 21:00.",
            call("e", "Open daily except Monday 10:00–18:00, Thursdays until 21:00."),
        ),
        (
            "수요일 진료시간?",
            "수요일은 9시부터 18시까지 진료해요.",
            call("k", "진료시간: 월~금요일 09:00~18:00, 토요일 09:00~13:00"),
        ),
    ],
)
def test_the_days_own_times_stand(goal: str, answer: str, result: dict) -> None:
    assert check_answer(answer, goal, [result])["status"] == "grounded"


def test_a_clock_time_past_24_is_a_time_no_result_states() -> None:
    grounding = check_answer("토요일에는 25시부터 25시까지 해요.", "토요일에 몇 시부터 해요?", [WEATHER])
    assert grounding["status"] == "ungrounded"
    assert [c["kind"] for c in grounding["claims"]] == ["time"]


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Day: Tuesday–Friday, Hours: 08:30", {1, 2, 3, 4}),
        ("월요일~금요일 9시", {0, 1, 2, 3, 4}),
        ("Fri to Mon", {4, 5, 6, 0}),
        ("주말과 평일", set(range(7))),
        ("I sat down and wed the two ideas", set()),  # lower-case short forms are words
    ],
)
def test_days_named(text: str, days: set[int]) -> None:
    assert days_in(text) == days
