"""A goal that asks how many days (or people …): an answer whose figures are all of another kind
does not answer it.

"해외 배송은 며칠 걸려요?" (how many days does shipping abroad take) was answered "free shipping on
orders of $500 or more": the $500 is in a result, yet it is no number of days. So when the goal
asks for a count of a measure — a time (days, nights, weeks, months, years, hours, minutes) or
people — and the answer states figures, none of them of that measure nor a bare number, its
figures do not count as support. English and Korean ("how many days", "며칠", "몇 명"); "how
long" and "how much" are left out (a length, an amount). Pure functions; nothing here knows a
topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent_core.checks.claims import Claim
from agent_core.checks.units import unit_measure

_ASKED_EN = re.compile(
    r"\bhow\s+many\s+(?:more\s+|business\s+|working\s+)?(days?|nights?|weeks?|months?|years?|hours?|minutes?"
    r"|people|persons|guests|adults)\b",
    re.IGNORECASE,
)
_ASKED_KO = re.compile(r"며칠|몇\s?(일|박|주|개월|달|년|시간|분|명)")
_PEOPLE_WORDS = frozenset({"명", "people", "persons", "guests", "adults"})
_NAMES = {"time": "a length of time", "people": "a number of people"}


def asked_measure(goal: str) -> str | None:
    """The measure the goal asks a count of: ``"time"``, ``"people"`` or None."""
    found = _ASKED_EN.search(goal) or _ASKED_KO.search(goal)
    if found is None:
        return None
    word = (found.group(1) or "").lower()
    return "people" if word in _PEOPLE_WORDS else "time"


def _answers(claim: Claim, measure: str) -> bool:
    """Whether ``claim`` can be the count asked for: a bare number, a quantity of that measure,
    or (for a length of time) a date or a time of day ("며칠" also asks which day)."""
    if claim.kind == "number":
        return True
    if measure == "time" and claim.kind in ("date", "time"):
        return True
    return claim.kind == "quantity" and unit_measure(claim) in (measure, None)


def not_what_was_asked(claims: Sequence[Claim], goal: str) -> str | None:
    """Why the answer's figures do not answer the goal's "how many": "the question asks for a
    length of time, and the answer gives none"; None when it does, or asks no such thing."""
    measure = asked_measure(goal)
    figures = [c for c in claims if c.kind not in ("contact", "verdict", "comparison")]
    if measure is None or not figures or any(_answers(c, measure) for c in figures):
        return None
    return f"the question asks for {_NAMES[measure]}, and the answer gives none"
