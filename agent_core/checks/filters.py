"""A count or a total over a table's rows, applied to fewer rows than it covers.

A result that says which rows it counted or added up (``{"where": "category = co-op", "count":
11}``) backs a count or a total of those rows only. "There are 11 co-op games that take less than
an hour" from that result counts every co-op game, whatever its length. Judged only where it is
plain: the goal sets a bound ("under £3", "less than an hour", "10kg 이하") and none of the
result's conditions compares anything, or the result has no condition at all (every row of the
table) while the goal qualifies what it counts with a bound or a figure ("how many 3D
screenings", "games for 6-year-olds"). The shape is read from the result alone; nothing here
knows a tool, a table or a topic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from agent_core.checks.claims import ANY_DIGITS, Claim

_BOUND = re.compile(
    r"\b(?:(?:less|fewer|more|cheaper|dearer|longer|shorter|older|younger|under|over)\s+than|under|over|below|above"
    r"|at\s+(?:least|most)|up\s+to|no\s+more\s+than)\b|미만|이하|이상|초과|넘는|넘지",
    re.IGNORECASE,
)
"""Words that bound what is counted ("under an hour", "£3 이하")."""
_COMPARISON = re.compile(r"\s(?:<=?|>=?|≤|≥)\s")
"""A condition of a result that compares ("play_time_min < 60")."""
_AGGREGATE = re.compile(r"^(?:count|rows|(?:sum|mean|min|max)(?:\s+of\s+.+)?)$")


def _objects(text: str) -> Iterator[dict[str, Any]]:
    try:
        data = json.loads(text.strip())
    except ValueError:
        return
    for item in data if isinstance(data, list) else [data]:
        if isinstance(item, dict):
            yield item


def counted_fewer(claim: Claim, goal: str, text: str) -> tuple[str, str] | None:
    """Which rows the result holding ``claim``'s figure as a count or a total covers ("the rows
    where category = co-op", "every row of the table") and what the goal asks that it did not
    count by ("less than", "3"), when it is plain; None otherwise."""
    if claim.kind not in ("number", "money", "quantity") or not claim.numbers:
        return None
    values = {abs(n) for n in claim.numbers}
    for item in _objects(text):
        figures = {
            float(v)
            for k, v in item.items()
            if _AGGREGATE.match(str(k)) and isinstance(v, int | float) and not isinstance(v, bool)
        }
        if not figures & values:
            continue
        where = str(item.get("where") or "")
        rows = f"the rows where {where}" if where else "every row of the table"
        if (bound := _BOUND.search(goal)) and not _COMPARISON.search(f" {where} "):
            return rows, bound.group()
        figures_asked = [d for d in ANY_DIGITS.findall(goal) if float(d) not in values]
        if not where and figures_asked:
            return rows, figures_asked[0]
    return None
