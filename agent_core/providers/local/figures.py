"""Which figures a local answer may write: those of the goal and of the successful tool results.

A 1.5B model asked to answer from tool results still writes figures from its head ("it is
20" with no result saying so). So the answer's text is held by a pattern: any text without
digits, and digits only as one of the figures the goal or a successful result (or the call that
produced it: an arithmetic argument) has, in the usual spellings. This knows nothing about
any tool or document: it reads digits. The Run page says so ("figures only from the goal or the
tool results").

Pure functions, unit-tested without the model.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence

from agent_core.context import ContextBlock
from agent_core.text.contacts import EMAIL
from agent_core.text.percent import factors
from agent_core.tools.registry import Tool

_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def plain_number(text: str) -> float | None:
    """``"1,234.5"`` → 1234.5; None when it is not a plain number."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def short_number(value: float) -> str:
    """1234.5 → ``1,234.5``, 500.0 → ``500``: as an amount is written in a sentence."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def result_texts(goal: str, blocks: Sequence[ContextBlock]) -> list[str]:
    """The goal, each successful tool output and the arguments of the call that made it."""
    texts = [goal]
    for block in blocks:
        calls = {c.call_id: c for c in block.tool_calls}
        for output in block.outputs:
            if output.is_error:
                continue
            texts.append(output.output)
            call = calls.get(output.call_id)
            if call is not None:
                texts.append(json.dumps(call.arguments, ensure_ascii=False))
    return texts


def allowed_numbers(goal: str, blocks: Sequence[ContextBlock]) -> list[str]:
    """Every figure the answer may write: those in the goal, the successful tool results and the
    calls that produced them, as written, without thousands separators, without leading zeros
    ("09" of a date → "9") and rounded (:func:`figure_forms`); and every e-mail address they give
    (the answer's text has no "@" otherwise). Longest first."""
    found: set[str] = set()
    for text in result_texts(goal, blocks):
        found.update(m.group(0).rstrip(".") for m in EMAIL.finditer(text))
        for raw in _DIGITS.findall(unicodedata.normalize("NFKC", text)):
            plain = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", raw) else raw
            for value in {raw, plain, *plain.split(","), *re.split(r"[.,]", raw)}:
                if value:
                    found.add(value)
                    found.add(value.lstrip("0") or "0")
            if plain_number(plain) is not None and "," not in plain:
                found.update(figure_forms(plain))  # 3420 → 3,420; 42.1648128 → 42.16
    return sorted(found, key=lambda v: (-len(v), v))


def figures_in(text: str) -> set[str]:
    """The figures ``text`` writes, in every form an answer may write them (:func:`figure_forms`):
    what holding one back from an answer must remove from :func:`allowed_numbers`."""
    found: set[str] = set()
    for raw in _DIGITS.findall(unicodedata.normalize("NFKC", text)):
        plain = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", raw) else raw
        found.update({raw, plain, *figure_forms(plain)})
    return found


def argument_numbers(goal: str, blocks: Sequence[ContextBlock], allowed: Sequence[str] | None = None) -> list[str]:
    """The figures a tool's text argument may hold: :func:`allowed_numbers` (``allowed``, when the
    caller has them already), and the factors a percentage of the goal or a result gives
    (``0.17``, ``0.85`` for "15% off"; :func:`~agent_core.text.percent.factors`)."""
    if allowed is None:
        allowed = allowed_numbers(goal, blocks)
    derived = {f for text in result_texts(goal, blocks) for f in factors(text)}
    return sorted({*allowed, *derived}, key=lambda v: (-len(v), v))


_FILE_NAME = re.compile(r"[^\s,;:()\[\]{}\"'|]*\d[^\s,;:()\[\]{}\"'|]*\.[A-Za-z]{2,5}\b")


def name_figures(tools: Sequence[Tool]) -> list[str]:
    """The figures inside the file names the tools' descriptions and argument lists give
    ("report_2025.csv" → "2025"): an argument may name a file. Held to the goal's and the results'
    figures, the model wrote "… in report_2 0 2  1 . csv"."""
    texts = [t.description for t in tools] + [json.dumps(t.parameters, ensure_ascii=False) for t in tools]
    return sorted({d for text in texts for name in _FILE_NAME.findall(text) for d in re.findall(r"\d+", name)})


def figure_forms(written: str) -> list[str]:
    """The ways an answer may write a figure a result gives: as written, with or without thousands
    separators, without a ".0", and rounded to two or one decimals or none (42.1648128 → 42.16)."""
    number = plain_number(written)
    if number is None:
        return [written]
    forms = {written, written.replace(",", ""), short_number(number), short_number(number).replace(",", "")}
    if number == int(number):
        forms.add(str(int(number)))
    elif "." in written and len(written.split(".")[1]) > 2:
        for places in (2, 1, 0):
            rounded = round(number, places)
            forms.update({f"{rounded:,.{places}f}", f"{rounded:.{places}f}"})
    return sorted(forms, key=lambda v: (-len(v), v))


# What an answer may write between its figures: printable ASCII but the digits and "@", Latin-1 and
# Latin Extended-A (°, ×, é) without the superscript digits and the fractions ¼ ½ ¾ (blocked from
# a figure, the model wrote "¾" in its place), dashes, quotes and ellipses, the
# currency and degree signs, Hangul and CJK punctuation. (Characters, not escapes: the pattern
# travels as JSON to llguidance and is also compiled by Python in the tests.) Blocked from a digit
# it wanted, the model once ran on in Thai combining marks until the token limit: hence a list of
# scripts rather than "anything but digits".
TEXT_CHARS = (
    " -/:-?A-~\u00a0-\u00b1\u00b4-\u00b8\u00ba\u00bb\u00bf-\u017f\u2010-\u2027\u20a9\u20ac\u2103\u2109"
    "\u1100-\u11ff\u3000-\u3003\u3008-\u3011\u3131-\u318e\uac00-\ud7a3"
)
_NON_ASCII = TEXT_CHARS[len(" -/:-?A-~") :]
_TEXT_NO_SEPARATOR = " -+\\-/:-?A-~" + _NON_ASCII
"""The same without "." and "," (what may follow a figure's last digit)."""


def goal_scripts(goal: str) -> str:
    """Character ranges for the letters of ``goal`` outside :data:`TEXT_CHARS` (a question in
    Japanese may be answered in Japanese): the 128-character block of each such letter, all of
    the CJK ideographs for one of them."""
    ranges = set()
    for c in goal:
        if c.isalpha() and not re.match(f"[{TEXT_CHARS}]", c):
            if "\u4e00" <= c <= "\u9fff":
                ranges.add((0x4E00, 0x9FFF))
            else:
                ranges.add((ord(c) & ~0x7F, (ord(c) & ~0x7F) + 0x7F))
    return "".join(f"{chr(a)}-{chr(b)}" for a, b in sorted(ranges))


SMALL_COUNTS = ("0", "1", "2")
"""Figures a tool's text argument may always hold: halves and doubles. Not the other digits: let
to write any, the model wrote "12 * 5" for a figure it had not read from any result yet."""


def argument_pattern(numbers: Sequence[str]) -> str:
    """A regex for a tool's text argument whose figures all belong to ``numbers`` (or
    :data:`SMALL_COUNTS`): what a tool is given to compute cannot be a figure from the
    model's head (it wrote ``7 * 100`` before any result held the 100)."""
    options = "|".join(re.escape(n) for n in sorted({*numbers, *SMALL_COUNTS}, key=lambda v: (-len(v), v)))
    other = r"[^0-9\u0660-\u0669\uff10-\uff19]"
    after = r"(?:[^0-9.,\u0660-\u0669\uff10-\uff19]|[.,][^0-9])"
    return f"^(?:{other}|(?:{options}){after})*(?:(?:{options})[.,]?)?$"


CURRENCY_SIGNS = "$£¥€₩"
"""Signs an answer writes only right before a figure: blocked from the figure it wanted, the model
wrote a placeholder ("$X", "$<amount>") as its answer."""
_TEXT_NO_CURRENCY = (
    TEXT_CHARS.replace(" -/", " -#%-/")
    .replace("\u00a0-\u00b1", "\u00a0-\u00a2\u00a4\u00a6-\u00b1")
    .replace("\u20a9\u20ac", "")
)
""":data:`TEXT_CHARS` without :data:`CURRENCY_SIGNS`."""


def answer_pattern(numbers: Sequence[str], *, goal: str = "") -> str:
    """A regex for an answer whose digits all belong to ``numbers``: any text without digits,
    and digits only as one of those numbers (the model cannot write a figure no result has); a
    currency sign only right before one of them."""
    options = "|".join(re.escape(n) for n in numbers)
    scripts = goal_scripts(goal)
    other = f"[{_TEXT_NO_CURRENCY}{scripts}]"
    # A figure ends where its digits end: the next character is no digit, nor a decimal or
    # thousands separator that runs on into digits. Without this, allowed numbers could be run
    # together into a made-up one ("108" + "08" → "10808", "100" + "." + "8" → "100.8").
    after = f"(?:[{_TEXT_NO_SEPARATOR}{scripts}]|[.,][{TEXT_CHARS}{scripts}])"
    core = f"(?:{other}|[{CURRENCY_SIGNS}]?(?:{options}){after})*" if options else f"{other}*"
    tail = f"(?:[{CURRENCY_SIGNS}]?(?:{options})[.,]?)?" if options else ""
    return f"^{core}{tail}$"
