"""A tool result that repeats the call's own arguments: what it echoes is no support.

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
