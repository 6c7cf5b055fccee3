"""One arithmetic step from stated figures: a figure of an answer that is a sum, difference,
product or ratio of two numbers the goal or the run's results state counts as stated
(:func:`agent_core.checks.grounding.check_answer`). Pure functions, no I/O."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable

from agent_core.checks.claims import Claim
from agent_core.records.run_record import CallSource, GoalSource

Source = CallSource | GoalSource
"""Where a claim was found: a successful tool call, or the goal."""


def same(value: float, decimals: int, atom: float, atom_decimals: int, *, slack: float = 0.0) -> bool:
    """Whether a figure written with ``decimals`` is ``atom`` (written with ``atom_decimals``), or it rounded."""
    if abs(value - atom) <= max(1e-9, 1e-9 * abs(atom)) + slack:
        return True
    # The answer rounds the tool's value (397.79999 → 397.8); never to a zero ("£0" is not 0.5).
    return value != 0 and decimals < atom_decimals and abs(round(atom, decimals) - value) <= 1e-9 * max(1.0, abs(value))


DERIVABLE: frozenset[str] = frozenset({"number", "money", "percent", "quantity"})


def derived(
    claim: Claim,
    left: list[tuple[float, Source]],
    right: list[tuple[float, Source]],
    is_count: Callable[[float, Source], bool],
) -> Source | None:
    """A source when ``claim`` is one arithmetic step (+ − × ÷) from a number the answer or the
    goal states (``left``) and a number of any source (``right``, sorted by value); an amount of
    money is never one from two counts (:func:`is_count`: the goal's, or a count-only call's)."""
    if claim.kind not in DERIVABLE or not right:
        return None
    values = [n for n, _ in right]
    tol = 0.5 * 10**-claim.decimals + 1e-9
    for t in (t for t in claim.numbers if t):  # a zero is never derived (nor divided by)
        # The same figure is no step from itself: 10 plus a "10%" read as 0.1 rounds back to 10.
        for a, ref_a in (pair for pair in left if pair[0] and not same(t, claim.decimals, pair[0], 12)):
            # The partner b each operation would need, and how far b may be off for t to round right.
            needs = [
                (t - a, tol),
                (a - t, tol),
                (t + a, tol),
                (t / a, tol / abs(a)),
                (a / t, abs(a) * tol / (t * t)),
                (t * a, abs(a) * tol),
            ]
            for need, slack in needs:
                lo = bisect.bisect_left(values, need - slack - 1e-9 * abs(need))
                hi = bisect.bisect_right(values, need + slack + 1e-9 * abs(need))
                for b, ref_b in right[lo:hi]:
                    if (b == a and ref_b is ref_a) or (
                        claim.kind == "money" and is_count(a, ref_a) and is_count(b, ref_b)
                    ):
                        continue
                    results = (a + b, a - b, b - a, a * b, a / b if b else math.inf, b / a)
                    if any(same(t, claim.decimals, r, 12) for r in results):
                        return prefer_tool(ref_a, ref_b)
    return None


def prefer_tool(a: Source, b: Source) -> Source:
    return a if "call_id" in a or "call_id" not in b else b


def _operand(x: float) -> bool:
    """Numbers used for the one-step arithmetic: not 0 or ±1 (they make everything derivable)
    and not a year."""
    return abs(x) not in (0.0, 1.0) and not (x == int(x) and 1900 <= x <= 2100)


def unique_operands(pairs: Iterable[tuple[float, Source]], limit: int) -> list[tuple[float, Source]]:
    """The first ``limit`` distinct numbers of ``pairs`` fit to be operands, each with its first source."""
    seen: dict[float, Source] = {}
    for n, ref in pairs:
        if _operand(n) and n not in seen and len(seen) < limit:
            seen[n] = ref
    return list(seen.items())
