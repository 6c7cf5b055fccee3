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
    return int(text) if text.isascii() and text.isdigit() else None  # not "²" or "３"


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


KEY_START = '{"'
"""Where the branch's name begins: the reply's JSON object and its key's opening quote."""
WANTED_SHOWN = 0.05
"""Least probability of a key the grammar did not allow for the record to name it."""


def branch_probabilities(logprobs: Sequence[Mapping[str, Any]], names: Sequence[str]) -> Certainty | None:
    """How sure the model was of the branch its reply took (``{"<name>": …}``: a tool, or the
    answer), read at the tokens that wrote the name until one name alone could follow.

    At each of those tokens, the reported alternatives (``top_logprobs``) are sorted by where they
    lead: on along the name written (another spelling of the same way: its weight joins the
    written token's), away to other offered names (``"a or b"`` when a token could still become
    either), or to no offered name (left out: the grammar did not allow it). Alternatives that
    could still become the written name and others too are left out as well. The chosen name's
    ``p`` is the product of the written token's shares, and each rival's the share of the token
    that would have left towards it, so ``p`` and the rivals add up to 1.

    At the first token that decides, the keys the model would have written that no offered name
    begins with (``{"answer"`` on a step that offers only tools and a reply; a key of its own
    making, a word of the request) are recorded as ``unoffered``: their share of its probability, and the
    likeliest of them. The grammar kept the model from them, so they show what it wanted most
    when that was not among its choices.

    None when the reply wrote no offered name, or when at a deciding token the probability the
    report leaves out (the alternatives below its last) could be more than all the offered names
    it holds: a rival there could outweigh what was read."""
    before = ""
    key: str | None = None
    p = 1.0
    others: dict[str, float] = {}
    unoffered: dict[str, Any] | None = None
    for token in logprobs:
        written = str(token.get("token", ""))
        if key is None and KEY_START not in before + written:
            before += written
            continue
        written_key = _key_with(key, before, written)
        assert written_key is not None
        ahead = {n for n in names if _leads_to(written_key, n)}
        if not ahead:
            return None
        same = away_weight = reported = 0.0
        away: dict[str, float] = {}
        wanted: dict[str, float] = {}
        seen: set[str] = set()
        for alternative in [token, *(token.get("top_logprobs") or [])]:
            piece = str(alternative.get("token", ""))
            if piece in seen:
                continue
            seen.add(piece)
            weight = math.exp(float(alternative.get("logprob", -math.inf)))
            reported += weight
            made = _key_with(key, before, piece)
            led = {n for n in names if made is not None and _leads_to(made, n)}
            if not led:
                if made:  # a key the grammar did not allow
                    wanted[made] = wanted.get(made, 0.0) + weight
                continue
            if led <= ahead:
                same += weight
            elif not led & ahead:
                label = " or ".join(n for n in names if n in led)
                away[label] = away.get(label, 0.0) + weight
                away_weight += weight
        total = same + away_weight
        open_before = [n for n in names if key is None or _leads_to(key, n)]
        if len(ahead) == len(open_before) and not away and not wanted:
            key = written_key  # nothing decided here (the opening quote, a name's shared start)
            continue
        if total <= 0 or 1.0 - reported > total:
            return None
        if unoffered is None:
            top = sorted(wanted.items(), key=lambda x: -x[1])
            unoffered = {
                "p": round(sum(wanted.values()), 4),
                "keys": [{"name": k.strip(), "p": round(w, 4)} for k, w in top if w >= WANTED_SHOWN][:3],
            }
        for label, weight in away.items():
            others[label] = others.get(label, 0.0) + p * weight / total
        p *= same / total
        key = written_key
        if len(ahead) == 1:  # one name alone can follow: the rest of its tokens are forced
            ranked = sorted(others.items(), key=lambda x: -x[1])
            found: Certainty = {
                "chosen": ahead.pop(),
                "p": round(p, 4),
                "others": [{"name": n, "p": round(q, 4)} for n, q in ranked if q >= 0.0005],
            }
            if unoffered and unoffered["p"] >= WANTED_SHOWN:
                found["unoffered"] = {"p": unoffered["p"], "keys": unoffered["keys"]}
            return found
    return None


def _key_with(key: str | None, before: str, piece: str) -> str | None:
    """The key a token makes: ``key`` (written so far) and the token, or, before the key began, what
    follows :data:`KEY_START` in the reply's text with the token (None: the key has not begun)."""
    if key is not None:
        return key + piece
    whole = before + piece
    return whole.split(KEY_START, 1)[1] if KEY_START in whole else None


def _leads_to(written: str, name: str) -> bool:
    """Whether a key written so far can still be, or already is, ``"<name>"``."""
    key = name + '"'
    return key.startswith(written) or written.startswith(key)


def decided_by(items: Sequence[Mapping[str, Any]], taken: str) -> Certainty | None:
    """The certainty of the choice the step's output came from: that of its last attempt that
    chose ``taken`` (the tool called, or the answer's key) among several branches and was not
    sent back (a step that answered after a line choice keeps the certainty with which it chose to
    answer; a step re-asked for a call after its answer began has none, unless that call was
    chosen among others)."""
    for item in reversed(items):
        certainty = item.get("certainty")
        if certainty and certainty.get("chosen") == taken and not item.get("rejected"):
            found: Certainty = certainty
            return found
    return None


def written(logprobs: Sequence[Mapping[str, Any]], content: str) -> Sequence[Mapping[str, Any]]:
    """``logprobs`` when their tokens spell the start of ``content`` (or all of it and the reply
    was completed without them); none when they do not (a token llama.cpp streamed without its
    probabilities would shift every later one)."""
    spelled = "".join(str(t.get("token", "")) for t in logprobs)
    return logprobs if spelled and (content.startswith(spelled) or spelled.startswith(content)) else []
