"""Differences an answer states: "7 degrees warmer", "£30 more than the Full Service", "5,000원 차이".

A difference is a figure of its own: it is found when two figures differ by it, not when a result
happens to hold the same number (a £30 deposit is no "£30 more"). Two readings, neither about any
topic:

- a temperature the answer gives as a difference is found when two found temperatures of the
  answer differ by it (temperatures are not derived in general: a made-up 20 °C would pass as
  19 + 1);
- any other figure the answer writes as a difference ("£30 more than", "cheaper by $24", "a
  difference of 5", "£30 더 비싸요", "5,000원 차이") keeps a result's support only when that result
  says it as a difference too ("£20 extra"), or computed it (a calculator's ``165 - 95``), or two
  figures of the same kind in the results or the goal differ by it.

Pure functions over the answer check's ``(claim, source)`` pairs.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Mapping

from agent_core.checks.claims import Claim, claims_in, sentence_bounds
from agent_core.checks.comparisons import LARGER, SMALLER
from agent_core.checks.derived import Source, prefer_tool, same
from agent_core.checks.words import AS_DIFFERENCE
from agent_core.records.run_record import CallSource

Found = list[tuple[Claim, Source | None]]

_TEMPERATURE_WORDS = re.compile(
    r"warmer|colder|cooler|hotter|higher|lower|difference|apart|더\s?(?:따뜻|덥|춥|추워|높|낮)|차이",
    re.IGNORECASE,
)
_KO_STEMS = (
    r"많|크|높|길|무겁|비싸|따뜻|덥|더워|늦|넓|빠르|적|작|낮|짧|가볍|싸|저렴|춥|추워|시원|이르|좁|느리|나와|들어|내"
)
_AFTER = re.compile(
    rf"\s*(?:(?:per|a|an|each)\s+\w+\s+){{0,2}}(?:{LARGER}|{SMALLER}|extra|additional)\b"
    rf"|\s*(?:이|가)?\s*더\s*(?:{_KO_STEMS})|\s*(?:이|가)?\s*(?:정도\s*)?(?:차이|비싸|싸|저렴|추가)",
    re.IGNORECASE,
)
"""What follows a figure said as a difference: "£30 more", "£30 more per month", "£30 더 비싸요", "5,000원 차이"."""
_BEFORE = re.compile(
    r"(?:\b(?:by|differ\w*\s+(?:of|is|was|by|:)?|difference\s*(?:of|is|was|:)?|extra|additional)|차이(?:는|가)?|추가)"
    r"\s*(?:about|around|roughly|only|just|약)?\s*$",
    re.IGNORECASE,
)
"""What comes before one: "cheaper by $24", "a difference of 5", "Price difference: €5", "차이는 5,000원"."""
_OPERATOR = re.compile(r"\s*[-+*/×÷=]\s*[\d$€£₩(]")
_COMPARING = re.compile(rf"\b(?:{LARGER}|{SMALLER})\b|difference|differ|차이|보다", re.IGNORECASE)


def said_as_difference(text: str, start: int, end: int) -> bool:
    """Whether the figure at ``text[start:end]`` is written as a difference ("by" needs a
    comparison in its sentence: "cheaper by $24", not "paid by 5 pm")."""
    if _AFTER.match(text, end):
        return True
    if _OPERATOR.match(text, end):
        return False  # "the difference is 22 - 15 = 7": an operand, the sum is checked as one
    before = _BEFORE.search(text[max(0, start - 40) : start])
    if before is None:
        return False
    begin, finish = sentence_bounds(text, start, end)
    return not before.group(0).lower().lstrip().startswith("by") or bool(_COMPARING.search(text[begin:finish]))


def _unit(claim: Claim) -> str:
    return claim.value.split(" ", 1)[1] if " " in claim.value else ""


def _tolerance(claim: Claim) -> float:
    return 0.5 * 10**-claim.decimals + 1e-9


def _differ_by(claim: Claim, texts: Mapping[str, str]) -> str | None:
    """The key of a text holding one of two figures of ``claim``'s kind and unit (in ``texts``)
    that differ by its value; None when no two do."""
    held: dict[float, str] = {}
    for key, text in texts.items():
        for c in claims_in(text):
            if c.kind == claim.kind and c.numbers and _unit(c) == _unit(claim):
                held.setdefault(c.numbers[0], key)
    values = sorted(held)[:200]
    stated = abs(claim.numbers[0])
    return next(
        (held[b] for a, b in itertools.combinations(values, 2) if abs((b - a) - stated) <= _tolerance(claim)), None
    )


_REDUCTION = re.compile(r"\s*(?:off\b|discount|할인)", re.IGNORECASE)
"""A result may write a difference as a reduction too: "12-month: 10% off"."""


def _said_in(claim: Claim, text: str) -> bool:
    """Whether ``text`` writes ``claim``'s figure as a difference itself ("£20 extra", "10% off")."""
    return any(
        c.kind == claim.kind
        and c.numbers
        and abs(c.numbers[0] - claim.numbers[0]) <= _tolerance(claim)
        and (said_as_difference(text, c.start, c.end) or _REDUCTION.match(text, c.end))
        for c in claims_in(text)
    )


_NOT_READ = frozenset({"temperature", "date", "time", "contact", "comparison", "verdict"})


def stated_differences(
    answer: str, found: Found, results: Mapping[str, tuple[CallSource, str]], computed: Collection[str], goal: str
) -> Found:
    """``found`` with each figure the answer gives as a difference judged as one: supported when
    two figures of the results (``call_id`` → its source and text) or the goal differ by it, or
    its result says it as a difference or computed it; else unsupported, with its reason."""
    texts = {key: text for key, (_, text) in results.items()}
    out: Found = []
    for claim, ref in found:
        call_id = str(ref.get("call_id", "")) if ref is not None else ""
        if (
            (ref is not None and not call_id)
            or (ref is None and claim.reason is not None)
            or call_id in computed
            or claim.kind in _NOT_READ
            or not claim.numbers
            or not said_as_difference(answer, claim.start, claim.end)
            or (call_id and _said_in(claim, texts.get(call_id, "")))
        ):
            out.append((claim, ref))
            continue
        pair = _differ_by(claim, {**texts, "": goal})
        if pair is not None:
            out.append((claim, ref or (results[pair][0] if pair else {"goal": True})))
        elif ref is None:
            out.append((claim, None))
        else:
            claim.reason = AS_DIFFERENCE
            out.append((claim, None))
    return out


def temperature_differences(answer: str, found: Found) -> Found:
    """A temperature the answer gives as a difference ("7 degrees warmer", "차이는 7도") is found
    when it is the difference of two found temperatures of the answer."""
    known = [(c, ref) for c, ref in found if ref is not None and c.kind == "temperature" and c.numbers]
    if len(known) < 2:
        return found
    result = []
    for claim, ref in found:
        if ref is None and claim.kind == "temperature" and claim.numbers:
            begin, finish = sentence_bounds(answer, claim.start, claim.end)
            if _TEMPERATURE_WORDS.search(answer[begin:finish]):
                for (a, ref_a), (b, ref_b) in itertools.permutations(known, 2):
                    if a.numbers[0] > b.numbers[0] and same(
                        claim.numbers[0], claim.decimals, a.numbers[0] - b.numbers[0], 12
                    ):
                        ref = prefer_tool(ref_a, ref_b)
                        break
        result.append((claim, ref))
    return result
