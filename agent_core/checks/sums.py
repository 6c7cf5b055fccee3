"""Sums an answer writes out, checked by the calculator's own rules: "22 - 15 = 15" and "the
average of 12, 18 and 27 is 43.5" are wrong whatever the sources of their figures.

Each figure in such a sum may be found in a tool result, so the check on figures alone passed
"the difference is 22 - 15 = 15 degrees". A wrong one becomes a claim with no source and the
right sum in :attr:`~agent_core.checks.claims.Claim.arithmetic`.
"""

from __future__ import annotations

import math
import re
import unicodedata

from agent_core.checks.claims import NUM, Claim, decimals, fmt, masked_answer, parse_number

_OPERAND = r"\$?\s?" + NUM
# A minus or an "x" is an operator only with spaces around it: "9-5", "Mon-Fri 9-6" and "2x" are
# ranges and words. A result followed by a space and three digits is a spaced thousands number.
_OPERATOR = r"(?:\s*[+×*/÷]\s*|\s+[-−x]\s+)"
# "=", or the words for it after an optional unit: shown no "=", the local model wrote "22 - 15
# degrees Celsius, which equals 15 degrees Celsius", each figure in a result. Not "is": "100 - 499
# units is 5 % off" is a range.
_UNIT = r"(?:\s?(?:°\s?[CF]|℃|℉|degrees?(?:\s+(?:Celsius|Fahrenheit))?|units?|dollars?|won|원))"
_EQUALS = rf"(?:{_UNIT}?\s*=\s*|{_UNIT}?,?\s+(?:which\s+|that\s+)?(?:equals|is\s+equal\s+to|comes\s+to|makes)\s+)"
_EQUATION = re.compile(
    rf"(?<![\w.,:\-−])({_OPERAND}(?:{_OPERATOR}{_OPERAND})+){_EQUALS}({_OPERAND})"
    r"(?![\d]|[.,]\d|\s\d{3}\b)(\s?(?:%|％|percent\b|per\s?cent\b|퍼센트))?",
    re.IGNORECASE,
)
_OPERATORS = {"+": "+", "-": "-", "−": "-", "×": "*", "x": "*", "*": "*", "/": "/", "÷": "/"}


def _evaluate(left: str) -> float | None:
    """The value of ``24 * 7 + 15`` by the calculator tool's own rules, or None when it mixes
    ``+ -`` with ``× ÷`` (a model writes its steps in order: "100 - 20 / 2 = 40")."""
    from agent_core.tools.calculator import calculate

    tokens = re.findall(r"\d[\d,]*(?:\.\d+)?|[-+−×x*/÷]", left.replace("$", ""))
    operators = {_OPERATORS[t] for t in tokens if t in _OPERATORS}
    if operators & {"+", "-"} and operators & {"*", "/"}:
        return None
    try:
        return float(calculate(" ".join(_OPERATORS.get(t, t.replace(",", "")) for t in tokens)))
    except ValueError:
        return None


def _agrees(computed: float, stated: float, places: int) -> bool:
    """``stated`` is ``computed`` rounded or cut to the decimals it shows (2/3 = 0.67 or 0.66)."""
    if abs(computed - stated) <= 0.5 * 10**-places + 1e-9:
        return True
    return places > 0 and math.trunc(computed * 10**places + 1e-9) == round(stated * 10**places)


def wrong_arithmetic(answer: str) -> list[Claim]:
    """The sums ``answer`` writes out (``22 - 15 = 15``) whose result is wrong, as claims with
    the right sum in :attr:`Claim.arithmetic`. Each figure in them may be found in a tool
    result, so the check on figures alone passed "the difference is 22 - 15 = 15 degrees".

    Read only when plain: no bracket or operator just before it ("(98.6 - 32) × 5/9 = 37"), no
    mix of ``+ -`` with ``× ÷``; a result in percent (``36 / 240 = 15%``) is compared as one."""
    text = unicodedata.normalize("NFC", answer or "")
    masked = masked_answer(text)
    wrong = []
    position = 0
    while m := _EQUATION.search(masked, position):
        position = m.start(2)  # "24 * 7 = 168 + 15 = 183": the result starts the next sum
        if re.search(r"[-+−×*/÷(\[)]\s*$", masked[: m.start()]):
            continue
        computed = _evaluate(m.group(1))
        if computed is None:
            continue
        stated = parse_number(m.group(2).replace("$", "").strip())
        places = decimals(m.group(2))
        percent = bool(m.group(3))
        if _agrees(computed * 100 if percent else computed, stated, places) or (
            percent and _agrees(computed, stated, places)  # "0.15 × 100 = 15%"
        ):
            continue
        left = " ".join(m.group(1).split())
        right = f"{fmt(round(computed * 100, max(places, 2)))}%" if percent else fmt(round(computed, max(places, 2)))
        wrong.append(_wrong(text, m, stated, places, f"{left} = {right}"))
    return wrong


def _wrong(text: str, m: re.Match[str], stated: float, places: int, arithmetic: str) -> Claim:
    """The claim for a sum ``m`` states wrong: its stated result, and the right sum."""
    return Claim(
        text=text[m.start() : m.end()].strip(),
        value=fmt(stated),
        kind="number",
        start=m.start(),
        end=m.end(),
        numbers=(stated,),
        decimals=places,
        arithmetic=arithmetic,
    )


# An average or a total of listed figures, said in words: "the average of 12, 18, and 27 is 43.5"
# (the local model's calculator call was 12 + 18 + 27 / 2, and the answer quoted its result).
_ITEM = rf"(?>(?:\$\s?)?{NUM})"
_LISTED = rf"({_ITEM}(?:\s*,\s*(?:and\s+)?{_ITEM}|\s+and\s+{_ITEM})+)"
"""Listed figures, each read whole (an atomic group) and a space before it only after a "$": with
two ways to read each item ("1,234" as one figure or two; ", 12" with the space in the separator
or in the figure), a long list that did not end in an average ("857, 386.4, 12, …") took
minutes to fail, and the eval's run with it hung in the answer check."""
_STATED_EN = re.compile(
    rf"\b(average|mean|sum|total)\s+of\s+(?:the\s+)?(?:numbers\s+|figures\s+)?{_LISTED}"
    rf"{_UNIT}?,?\s+(?:is|are|=|equals|comes\s+to|would\s+be|will\s+be)\s+(?:about\s+|approximately\s+)?({_OPERAND})"
    r"(?![\d]|[.,]\d)",
    re.IGNORECASE,
)
_STATED_KO = re.compile(
    rf"{_LISTED}(?:\s?(?:의|을|를))?\s*(평균|합계|합|총합)(?:은|는|이|값은)?\s*({_OPERAND})(?![\d]|[.,]\d)"
)
_MEAN_WORDS = {"average", "mean", "평균"}


def wrong_aggregates(answer: str) -> list[Claim]:
    """The averages and totals of listed figures ``answer`` states in words ("the average of 12,
    18, and 27 is 43.5", "12, 18, 27의 평균은 43.5") whose value is wrong, as claims with the right
    sum in :attr:`Claim.arithmetic`."""
    text = unicodedata.normalize("NFC", answer or "")
    masked = masked_answer(text)
    wrong = []
    for pattern, listed, word, result in ((_STATED_EN, 2, 1, 3), (_STATED_KO, 1, 2, 3)):
        for m in pattern.finditer(masked):
            values = [parse_number(v.replace("$", "").strip()) for v in re.findall(_OPERAND, m.group(listed))]
            if len(values) < 2:
                continue
            mean = m.group(word).lower() in _MEAN_WORDS
            computed = sum(values) / len(values) if mean else sum(values)
            stated = parse_number(m.group(result).replace("$", "").strip())
            places = decimals(m.group(result))
            if _agrees(computed, stated, places):
                continue
            terms = " + ".join(fmt(v) for v in values)
            left = f"({terms}) / {len(values)}" if mean else terms
            wrong.append(_wrong(text, m, stated, places, f"{left} = {fmt(round(computed, max(places, 2)))}"))
    return wrong
