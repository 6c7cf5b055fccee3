"""Arithmetic a tool call was given: which text arguments are expressions, and whether one
computed a price from nothing but the goal's counts and measures.

Any tool's argument of digits and operators only ("17 / 100 * 2340") is arithmetic the call
computed, whatever the tool is called. Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_core.checks.claims import find_all
from agent_core.checks.scaling import counted
from agent_core.checks.units import NUMBER

_ARITHMETIC_ONLY = re.compile(r"[\d\s.,()+\-*/×÷%^]+")
_HAS_OPERATOR = re.compile(r"\d[\d\s.,()]*[+\-*/×÷%^]")
"""A text argument of digits and operators only, with an operator ("17 / 100 * 2340"): the call
computed something from it (two simple patterns: one nested one took 0.25 s on 2,000 digits)."""


def expressions(call: Mapping[str, Any]) -> list[str]:
    """The arithmetic a call was given (its text arguments that are expressions), whatever the tool."""
    args = call.get("arguments")
    values = list(args.values()) if isinstance(args, Mapping) else [args]
    return [
        v
        for v in values
        if isinstance(v, str) and _ARITHMETIC_ONLY.fullmatch(v.strip()) and _HAS_OPERATOR.search(v) is not None
    ]


SMALL_OPERANDS = frozenset(range(11))
"""Figures an expression may use that no source need give: small counts ("the average of three
prices" divides by 3). Not 100: "7 * 100" is the made-up unit price this exists for."""


def of_counts(call: Mapping[str, Any], goal: str, stated: frozenset[float]) -> str:
    """A call's arithmetic when every number in it is one the goal only counts or measures with
    ("10 seats", "45 min", "6 hours") and no result states, besides small constants the goal does
    not write (``45 * 2 + 30 * 1``): its result is no price ($10 for "10 seats"); else ''."""
    values = {float(m.group().replace(",", "")) for e in expressions(call) for m in NUMBER.finditer(e)}
    figures = find_all(goal)
    written = {n for c in figures for n in c.numbers}
    values -= {v for v in values if v in SMALL_OPERANDS and v not in written}
    if not values or values & stated:
        return ""
    measured = measures(goal)
    return "; ".join(expressions(call)) if counted(goal, values - measured) or values <= measured else ""


def measures(goal: str) -> set[float]:
    """The numbers the goal writes as a quantity with a unit that is no money ("10kg", "45 min",
    "7박"): none of them is a price."""
    figures = find_all(goal)
    money = {n for c in figures if c.kind == "money" for n in c.numbers}
    return {n for c in figures if c.kind == "quantity" for n in c.numbers} - money
