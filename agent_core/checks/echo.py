"""A tool result that repeats the call's own arguments: what it echoes is no support.

A call given a bare number that returns it (``"200"`` in, ``200`` out) states nothing at all.
A simulated web search answers ``{"query": "cost of 10-person meeting room", "results": […]}``;
the "10" there is the model's own query, not a fact the tool found, yet an answer "$10 per hour"
would count it as support. Only the exact echo is removed: the argument's name and value as the
result's JSON writes them (a document that happens to contain the query's words is untouched).
Pure functions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any


def without_echo(call: Mapping[str, Any], output: str) -> str:
    """``output`` with each text argument that holds a digit removed where the result writes it
    back under the same name (``"query": "…"``)."""
    args = call.get("arguments")
    if not isinstance(args, Mapping):
        return output
    for name, value in args.items():
        if isinstance(value, str) and any(ch.isdigit() for ch in value):
            for quoted in {json.dumps(value), json.dumps(value, ensure_ascii=False)}:
                pattern = rf"{re.escape(json.dumps(str(name)))}\s*:\s*{re.escape(quoted)}"
                output = re.sub(pattern, f"{json.dumps(str(name))}: null", output)
    return output


def without_query(call: Mapping[str, Any], output: str) -> str:
    """``output`` without the text arguments that a result of one JSON object writes back under
    their own names at its top: a result that repeats the model's query does not mention what
    the query was about. A web search answered ``{"query": "gold plan deductible", "results":
    []}``, and "the deductible on gold is $900" (a premium, from another result) read as backed by
    a result that speaks of deductibles. Rows that name what was asked for (``[{"name": "Hand
    trowel", "price": 9}]`` for ``name="Hand trowel"``) are kept."""
    args = call.get("arguments")
    try:
        data = json.loads(output)
    except ValueError:
        return output
    if not isinstance(args, Mapping) or not isinstance(data, dict):
        return output
    kept = {k: v for k, v in data.items() if not (isinstance(v, str) and v.strip() and args.get(k) == v)}
    return json.dumps(kept, ensure_ascii=False) if len(kept) < len(data) else output


def output_text(call: Mapping[str, Any]) -> str:
    """A call's output as text (JSON for a structured one)."""
    output = call.get("output")
    return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)


_FIGURE = re.compile(r"\d+(?:\.\d+)?")


def _identity(expression: str, output: str) -> bool:
    """``600 / 1 / 1`` → ``600``: arithmetic by 1 or 0 that gives back one of its own figures."""
    if not re.fullmatch(r"[\d.\s()+\-*/]+", expression) or not re.fullmatch(r"-?\d+(?:\.\d+)?", output):
        return False
    figures = [float(f) for f in _FIGURE.findall(expression)]
    result = abs(float(output))
    return result in figures and all(f in (0.0, 1.0) for f in figures if f != result) and len(figures) > 1


def returns_its_argument(call: Mapping[str, Any]) -> bool:
    """A call that was given a bare number and returned it: asked to ground a made-up 200, a model
    sent exactly that to a calculator, and it would have counted as the source. So is one that
    only multiplied or divided it by 1 (``600 / 1 / 1``): the figure is the argument's, not a result."""
    args = call.get("arguments")
    values = list(args.values()) if isinstance(args, Mapping) else [args]
    output = output_text(call).strip()
    return any(
        isinstance(v, str) and (re.fullmatch(r"-?[\d.,]+", v.strip()) and v.strip() == output or _identity(v, output))
        for v in values
    )
