"""A goal that asks how many days (or people …): an answer whose figures are all of another kind
does not answer it.

"해외 배송은 며칠 걸려요?" (how many days does shipping abroad take) was answered "free shipping on
orders of $500 or more": the $500 is in a result, yet it is no number of days. So when the goal
asks for a count of a measure — a time (days, nights, weeks, months, years, hours, minutes) or
people — and the answer states figures, none of them of that measure nor a bare number, its
figures do not count as support. A count of days (nights, weeks, months, years) is not answered
by hours or minutes, nor the other way round: "최대 며칠까지 예약할 수 있어요?" answered "최대
1시간" is another measure. English and Korean ("how many days", "며칠", "몇 명"); "how long" and
"how much" are left out (a length, an amount). Pure functions; nothing here knows a topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_core.checks.claims import Claim
from agent_core.checks.units import unit_of

_ASKED_EN = re.compile(
    r"\bhow\s+many\s+(?:more\s+|business\s+|working\s+)?(days?|nights?|weeks?|months?|years?|hours?|minutes?"
    r"|people|persons|guests|adults)\b",
    re.IGNORECASE,
)
_ASKED_KO = re.compile(r"며칠|몇\s?(일|박|주|개월|달|년|시간|분|명)")
_PEOPLE_WORDS = frozenset({"명", "people", "persons", "guests", "adults"})
_CLOCK_WORDS = frozenset({"hour", "hours", "minute", "minutes", "시간", "분"})
_CLOCK_UNITS = frozenset({"hour", "minute", "second"})
_NAMES = {"days": "a number of days", "hours": "a number of hours or minutes", "people": "a number of people"}


def asked_measure(goal: str) -> str | None:
    """The measure the goal asks a count of: ``"days"`` (days, nights, weeks, months, years),
    ``"hours"`` (hours, minutes), ``"people"`` or None."""
    found = _ASKED_EN.search(goal) or _ASKED_KO.search(goal)
    if found is None:
        return None
    word = (found.group(1) or "").lower()
    return "people" if word in _PEOPLE_WORDS else "hours" if word in _CLOCK_WORDS else "days"


def _answers(claim: Claim, measure: str) -> bool:
    """Whether ``claim`` can be the count asked for: a bare number, a quantity of that measure,
    or (for days) a date ("며칠" also asks which day)."""
    if claim.kind == "number" or (measure == "days" and claim.kind == "date"):
        return True
    if claim.kind != "quantity":
        return False
    unit = unit_of(claim)
    if unit is None:
        return True  # a unit not known to differ
    if measure == "people":
        return unit[0] == "people"
    return unit[0] == "time" and (unit[1] in _CLOCK_UNITS) == (measure == "hours")


def not_what_was_asked(claims: Sequence[Claim], goal: str) -> str | None:
    """Why the answer's figures do not answer the goal's "how many": "the question asks for a
    length of time, and the answer gives none"; None when it does, or asks no such thing."""
    measure = asked_measure(goal)
    figures = [c for c in claims if c.kind not in ("contact", "verdict", "comparison")]
    if measure is None or not figures or any(_answers(c, measure) for c in figures):
        return None
    return f"the question asks for {_NAMES[measure]}, and the answer gives none"
