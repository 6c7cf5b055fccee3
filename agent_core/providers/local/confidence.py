"""How sure the local model was of what it wrote, read from llama.cpp's token probabilities.

llama.cpp reports, for each generated token, its log-probability and the most likely
alternatives (``logprobs`` / ``top_logprobs`` in an OpenAI-style request), computed from the
model's own distribution before the grammar narrowed it. Nothing here knows any tool, document or
topic. Pure functions, unit-tested without the model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.records.run_record import Certainty

MAX_ALTERNATIVES = 10
"""Most alternatives llama.cpp is asked for at each token (``top_logprobs``)."""


def _number(token: str) -> int | None:
    text = token.strip()
    return int(text) if text.isdigit() else None


def choice_probabilities(logprobs: Sequence[Mapping[str, Any]], choices: int) -> dict[int, float] | None:
    """For a reply that wrote one number from ``0 … choices - 1`` (``{"line": 2}``): each number's
    probability at the token that wrote it, among those numbers alone (the grammar allowed no
    other); None when no generated token is such a number."""
    for token in logprobs:
        if _number(str(token.get("token", ""))) is None:
            continue
        weights: dict[int, float] = {}
        for alternative in [token, *(token.get("top_logprobs") or [])]:
            n = _number(str(alternative.get("token", "")))
            if n is not None and 0 <= n < choices and n not in weights:
                weights[n] = math.exp(float(alternative.get("logprob", -math.inf)))
        total = sum(weights.values())
        if total <= 0:
            return None
        return {n: round(w / total, 4) for n, w in sorted(weights.items())}
    return None


def branch_probabilities(logprobs: Sequence[Mapping[str, Any]], names: Sequence[str]) -> Certainty | None:
    """How sure the model was of the branch its reply took (``{"<name>": …}``: a tool, or the
    answer), read at the tokens that wrote the name: the chosen name's probability (the product,
    over those tokens, of each one's share among the tokens that still lead to an offered name)
    and, for the others, the share of the tokens that would have left it towards them where they
    first could (``"a or b"`` for a token that could still become either). None when the reply
    wrote no offered name.

    The alternatives are the ``top_logprobs`` llama.cpp reports (a few per token): a name whose
    tokens were all below them counts as 0."""
    text = ""
    start = None
    for i, token in enumerate(logprobs):
        text += str(token.get("token", ""))
        if '{"' in text:
            start = i + 1
            after = text.split('{"', 1)[1]
            break
    if start is None:
        return None
    prefix = after
    p = 1.0
    others: dict[str, float] = {}
    chosen: str | None = None
    for token in logprobs[start:]:
        if chosen is not None:
            break
        written = str(token.get("token", ""))
        reach: dict[str, tuple[str, ...]] = {}
        weights: dict[str, float] = {}
        for alternative in [token, *(token.get("top_logprobs") or [])]:
            piece = str(alternative.get("token", ""))
            if piece in weights:
                continue
            led = tuple(n for n in names if _leads_to(prefix + piece, n))
            if led:
                reach[piece] = led
                weights[piece] = math.exp(float(alternative.get("logprob", -math.inf)))
        total = sum(weights.values())
        if written not in weights or total <= 0:
            return None
        for piece, led in reach.items():
            if piece == written:
                continue
            away = " or ".join(n for n in led if not _leads_to(prefix + written, n))
            if away:
                others[away] = others.get(away, 0.0) + p * weights[piece] / total
        p *= weights[written] / total
        prefix += written
        # Decided once one name alone can follow (the rest of its tokens are forced).
        chosen = reach[written][0] if len(reach[written]) == 1 else None
    if chosen is None:
        return None
    ranked = sorted(others.items(), key=lambda x: -x[1])
    return {
        "chosen": chosen,
        "p": round(p, 4),
        "others": [{"name": n, "p": round(q, 4)} for n, q in ranked if q >= 0.0005],
    }


def _leads_to(written: str, name: str) -> bool:
    """Whether a key written so far can still be, or already is, ``"<name>"``."""
    key = name + '"'
    return key.startswith(written) or written.startswith(key)


def decided_by(items: Sequence[Mapping[str, Any]]) -> Certainty | None:
    """The certainty of the choice a step's output came from: that of its last attempt that
    chose among several branches and was not sent back (a step that answered after a line choice
    keeps the certainty with which it chose to answer)."""
    for item in reversed(items):
        if item.get("certainty") and not item.get("rejected"):
            certainty: Certainty = item["certainty"]
            return certainty
    return None
