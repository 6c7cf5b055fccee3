"""A count or a total over a table's rows, applied to fewer rows than it covers, or to one thing.

A result that says which rows it counted or added up (``{"where": "category = co-op", "count":
11}``) backs a count or a total of those rows only. "There are 11 co-op games that take less than
an hour" from that result counts every co-op game, whatever its length. Judged only where it is
plain: the goal sets a bound ("under £3", "less than an hour", "10kg 이하") and none of the
result's conditions compares anything, or the result has no condition at all (every row of the
table) while the goal qualifies what it counts with a bound or a figure ("how many 3D
screenings", "games for 6-year-olds"). The shape is read from the result alone; nothing here
knows a tool, a table or a topic.

A sum or a mean over several rows (``{"sum of non_member_price_gbp": 942, "rows": 19}``) backs a
total or an average only: "the lead climbing course costs 942 GBP" from it answers "how much is
the lead climbing course?" with nineteen prices added up. Judged where the goal asks for no
total ("total", "altogether", "in all", "both", "총", "합계", "모두" …), or for a mean, no
average.
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
_OVER_ROWS = re.compile(r"^(sum|mean)\s+of\s+(.+)$")
"""A result's figure made from several rows' cells: their total or their mean."""
_ASKS = {
    "sum": re.compile(
        r"\b(?:total|totals|altogether|in\s+all|all\s+(?:together|told)|both|combined|sum|add(?:s|ed)?\s+up|overall|together)\b"
        r"|(?<![가-힣])총(?!회)|합계|합쳐|합치|합하|합산|전부|모두|통틀어",
        re.IGNORECASE,
    ),
    "mean": re.compile(r"\b(?:average|averages|mean|typical|typically|on\s+the\s+whole)\b|평균|보통", re.IGNORECASE),
}
"""Words of a goal that ask for a total (a sum's figure) or an average (a mean's)."""


def objects(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects ``text`` is (one, or a list of them); none when it is no JSON."""
    try:
        data = json.loads(text.strip())
    except ValueError:
        return
    for item in data if isinstance(data, list) else [data]:
        if isinstance(item, dict):
            yield item


def out_of_scope(claim: Claim, goal: str, text: str) -> str | None:
    """Why the rows a result counted, added up or averaged back no figure of this answer
    (:func:`counted_fewer`, :func:`summed_unasked`); None when they may."""
    if fewer := counted_fewer(claim, goal, text):
        return f"the result counts {fewer[0]}, but the question asks for “{fewer[1]}” too"
    return summed_unasked(claim, goal, text)


def summed_unasked(claim: Claim, goal: str, text: str) -> str | None:
    """Why ``claim``'s figure, a sum or a mean of a result's several rows, answers nothing the
    goal asks: it asks for no total (no average); None otherwise."""
    if claim.kind not in ("number", "money", "quantity") or not claim.numbers:
        return None
    values = {abs(n) for n in claim.numbers}
    for item in objects(text):
        rows = item.get("rows")
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 2:
            continue
        for key, value in item.items():
            made = _OVER_ROWS.match(str(key))
            if made is None or not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if not any(abs(float(value) - v) <= 1e-9 * max(1.0, v) for v in values):
                continue
            if _ASKS[made.group(1)].search(goal):
                return None
            done, asked = ("adds up", "total") if made.group(1) == "sum" else ("averages", "average")
            return f"the result {done} {made.group(2)} over {rows} rows, and the question asks for no {asked}"
    return None


def counted_fewer(claim: Claim, goal: str, text: str) -> tuple[str, str] | None:
    """Which rows the result holding ``claim``'s figure as a count or a total covers ("the rows
    where category = co-op", "every row of the table") and what the goal asks that it did not
    count by ("less than", "3"), when it is plain; None otherwise."""
    if claim.kind not in ("number", "money", "quantity") or not claim.numbers:
        return None
    values = {abs(n) for n in claim.numbers}
    for item in objects(text):
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
