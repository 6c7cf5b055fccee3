"""What the local provider reads from a llama.cpp chat-completion reply besides the text."""

from __future__ import annotations

from typing import Any

from agent_core.providers.base import Usage


def _usage(final: dict[str, Any]) -> Usage:
    usage = final.get("usage")
    if isinstance(usage, dict) and "prompt_tokens" in usage:
        prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    else:
        timings = final.get("timings") or {}
        prompt = int(timings.get("cache_n", 0)) + int(timings.get("prompt_n", 0))
        completion = int(timings.get("predicted_n", 0))
    return Usage(prompt, completion, prompt + completion)


def _timings(final: dict[str, Any]) -> dict[str, float]:
    """llama.cpp's timings, the counts and durations only (its ``*_per_token_*`` keys would be
    masked as secrets by the record's key-name rule)."""
    timings = final.get("timings") or {}
    keys = ("cache_n", "prompt_n", "prompt_ms", "predicted_n", "predicted_ms")
    return {
        key: (int(timings[key]) if key.endswith("_n") else round(float(timings[key]), 1))
        for key in keys
        if isinstance(timings.get(key), (int, float))
    }
