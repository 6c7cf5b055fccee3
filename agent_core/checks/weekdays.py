"""A time a result gives for one day of the week, applied by the answer to another.

Asked "자전거 수리점 토요일에 몇 시부터 몇 시까지 해요?" (what hours on Saturday), the model answered
"토요일에는 10시부터 19시까지" from an opening-hours list whose 10:00 - 19:00 is Monday's; its
Saturday is 09:30 - 16:00. Both times are in the result, yet not for Saturday. So a time of day
found in a result counts as support only if, at some place the result states it, the day named
nearest before it on its line ("Saturday 09:30", "Day: Tuesday–Friday, Hours: 08:30–18:00",
"Mon, Wed & Fri 9:00") is one the answer gives it for (or the goal, when the answer's sentence
names no day). Judged only when the result gives a time for that day too: a list that has no
row for it ("Open daily 10:00–19:00", "Sun closed") says nothing against the answer.

Days in English (full names, and capitalised short ones: "Sat", "Tue") and Korean ("토요일"),
ranges ("Tuesday–Friday", "월요일~금요일"), weekdays and weekends ("평일", "주말"). Pure functions.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Set as AbstractSet

from agent_core.checks.claims import Claim, claim_sentence, claims_in

NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_KOREAN = "월화수목금토일"
_SHORT = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6}
_GROUPS = {
    "weekday": range(5),
    "weekdays": range(5),
    "평일": range(5),
    "weekend": (5, 6),
    "weekends": (5, 6),
    "주말": (5, 6),
}
_ONE = (
    r"(?i:\b(?P<full>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b)"
    r"|\b(?P<short>Mon|Tues?|Wed|Thu(?:rs?)?|Fri|Sat|Sun)\b\.?"
    r"|(?P<ko>[월화수목금토일])요일"
    r"|(?P<kob>[월화수목금토일])(?=\s*[~\-–]\s*[월화수목금토일]요일)"
    r"|(?i:\b(?P<group>weekdays?|weekends?)\b)|(?P<kogroup>평일|주말)"
)
_DAY = re.compile(_ONE)
_RANGE = re.compile(
    rf"(?:{_ONE.replace('?P<', '?P<a')})\s*(?:–|—|-|~|to|through|thru|until|부터)\s*(?:{_ONE.replace('?P<', '?P<b')})"
)
_LINE_BREAK = re.compile(r"\n|\\n")
WINDOW = 120
"""How far before a time the day it is for is looked for, on its line."""


def _day(groups: dict[str, str | None], prefix: str = "") -> set[int]:
    full, short = groups.get(prefix + "full"), groups.get(prefix + "short")
    ko = groups.get(prefix + "ko") or groups.get(prefix + "kob")
    group = groups.get(prefix + "group") or groups.get(prefix + "kogroup")
    if full:
        return {NAMES.index(full.capitalize())}
    if short:
        return {_SHORT[short.lower()]}
    if ko:
        return {_KOREAN.index(ko)}
    return set(_GROUPS[group.lower()]) if group else set()


def _spans(text: str) -> list[tuple[int, int, set[int]]]:
    """Each day, range of days or group the text names: (start, end, days), in order."""
    spans: list[tuple[int, int, set[int]]] = []
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(text):
        first, last = _day(m.groupdict(), "a"), _day(m.groupdict(), "b")
        if len(first) == 1 and len(last) == 1:
            a, b = next(iter(first)), next(iter(last))
            spans.append((m.start(), m.end(), {(a + i) % 7 for i in range((b - a) % 7 + 1)}))
            taken.append((m.start(), m.end()))
    for m in _DAY.finditer(text):
        if not any(s <= m.start() < e for s, e in taken):
            spans.append((m.start(), m.end(), _day(m.groupdict())))
    return sorted(spans)


@functools.lru_cache(maxsize=256)
def days_in(text: str) -> frozenset[int]:
    """Every day of the week the text names (0 = Monday), ranges and groups spread out."""
    return frozenset(d for _, _, days in _spans(text) for d in days)


_TIME = re.compile(r"\d{1,2}(?::\d{2}|\s?시|\s?[ap]\.?m\b)", re.IGNORECASE)
"""A time of day, as a line's first figure: the line names each day after its times ("9:00–17:00
Mon–Fri, 10:00–16:00 Sat"), so the day before a time is the previous one's."""
_EXCEPT = re.compile(r"(?:\bexcept|\bexcluding|\bclosed(?:\s+on)?|\bnot)\s*$", re.IGNORECASE)
"""Before a day, a word that says the time is not that day's ("daily except Monday 10:00")."""
_LIST_JOIN = re.compile(r"\s*(?:,|&|/|·|\band\b|및|과|와)\s*$", re.IGNORECASE)
"""What joins the days of a list ("Mon, Wed & Fri", "월요일과 수요일")."""
_BREAK = re.compile(r"[;|{}]|\.\s|\",|\d{1,2}(?::\d{2}|\s?시).*\d{1,2}(?::\d{2}|\s?시)")
"""Between a day and a time, what ends the day's reach: a field, a row or a sentence, or two other
times ("Breakfast Sat-Sun 8:00-11:00. Check-out 11:00")."""


def _day_before(text: str, at: int) -> set[int] | None:
    """The days named right before ``text[at]`` on its line, within :data:`WINDOW`: a day, a range,
    or a list of them ("Mon, Wed & Fri"), with no :data:`_BREAK` between; None if none."""
    start = max(0, at - WINDOW)
    line = _LINE_BREAK.split(text[start:at])[-1]
    spans = _spans(line)
    if not spans or _BREAK.search(line[spans[-1][1] :]):
        return None
    newline, escaped = text.rfind("\n", 0, at), text.rfind("\\n", 0, at)
    whole = text[max(newline + 1, escaped + 2 if escaped >= 0 else 0) : at]  # the whole line up to the time
    first_time, first_day = _TIME.search(whole), _DAY.search(whole)
    if first_time and (first_day is None or first_time.start() < first_day.start()):
        return None  # days after their times
    if _EXCEPT.search(line[: spans[-1][0]]):
        return None
    days = set(spans[-1][2])
    for (_, end, more), (begin, _, _) in zip(reversed(spans[:-1]), reversed(spans)):
        if not _LIST_JOIN.fullmatch(line[end:begin]) and line[end:begin].strip():
            break
        days |= more
    return days


def other_day(claim: Claim, answer: str, goal: str, source_text: str) -> tuple[str, str] | None:
    """``(the day the result gives the time for, the day the answer gives it for)`` when
    ``claim`` is a time of day that ``source_text`` states only for other days than the answer's
    (or the goal's) and gives some other time for the answer's day; else None."""
    if claim.kind != "time" or claim.minutes is None:
        return None
    wanted = days_in(claim_sentence(answer, claim)) or days_in(goal)
    if not wanted or not wanted & days_in(source_text):
        return None
    times = [(c, _day_before(source_text, c.start)) for c in claims_in(source_text) if c.kind == "time"]
    if not any(days and days & wanted for _, days in times):
        return None  # the result gives no time for the answer's day ("Sun closed"): nothing to set against
    given: list[set[int]] = []
    for place, days in times:
        if place.minutes != claim.minutes:
            continue
        if days is None or days & wanted:
            return None  # a place with no day, or with the answer's own: it may be that one
        given.append(days)
    if not given:
        return None
    return _said(set().union(*given)), _said(wanted)


def _said(days: AbstractSet[int]) -> str:
    ordered = sorted(days)
    if len(ordered) > 2 and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{NAMES[ordered[0]]} to {NAMES[ordered[-1]]}"
    names = [NAMES[d] for d in ordered]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
