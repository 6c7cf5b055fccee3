"""One streamed llama.cpp chat completion for the local provider, and what it reads from the reply
besides the text."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from agent_core.errors import ProviderError
from agent_core.providers.base import Usage
from agent_core.providers.local.engine import PROVIDER_ID, Engine, own_work_began
from agent_core.providers.local.prompt import complete_reply


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


def stream(
    engine: Engine,
    body: dict[str, Any],
    deadline: float,
    timeout: float,
    cancel: threading.Event | None = None,
    enough: Callable[[str], str | None] | None = None,
    began: Callable[[], None] = lambda: None,
) -> tuple[str, dict[str, Any], float]:
    """Stream one completion, stopping at ``deadline`` (or at the next token or prompt batch once
    ``cancel`` is set: the run was stopped, and the model is free for the next one at once).

    ``enough`` (:func:`~agent_core.providers.local.answer_end.enough_said`) sees the output so
    far after each token; once it returns the answer, generation stops there, and the final
    dict has it as ``said`` with ``finish_reason`` ``"enough"``.

    Returns ``(content, {finish_reason, timings, usage[, said]}, ms)``.
    """
    pieces: list[str] = []
    final: dict[str, Any] = {}
    errors: list[Any] = []
    started = time.perf_counter()
    timed_out = stopped = False
    whole: str | None = None  # the whole reply, once the grammar leaves no choice (complete_reply)

    def on_chunk(chunk: Any) -> bool:
        nonlocal timed_out, stopped, whole
        engine.handover.report(chunk)
        if own_work_began(chunk):
            began()
        if isinstance(chunk, dict):
            if "error" in chunk:
                errors.append(chunk["error"])
                stopped = True
                return True
            for choice in chunk.get("choices") or []:
                piece = (choice.get("delta") or {}).get("content")
                if piece:
                    pieces.append(piece)
                    so_far = "".join(pieces)
                    said = enough(so_far) if enough is not None else None
                    if said is not None:
                        final["said"], final["finish_reason"] = said, "enough"
                    elif (whole := complete_reply(so_far)) is not None:
                        final["finish_reason"] = "stop"
                if choice.get("finish_reason"):
                    final["finish_reason"] = choice["finish_reason"]
                if isinstance(choice.get("logprobs"), dict):
                    final.setdefault("logprobs", []).extend(choice["logprobs"].get("content") or [])
            for key in ("timings", "usage"):
                if chunk.get(key):
                    final[key] = chunk[key]
        if time.perf_counter() > deadline:
            timed_out = True
        stopped = "said" in final or whole is not None or timed_out or (cancel is not None and cancel.is_set())
        return stopped

    try:
        result = engine.server.handle_chat_completions(body, on_chunk)
    except Exception as exc:  # the binding raises ValueError / RuntimeError with llama.cpp's text
        raise ProviderError(
            f"llama.cpp rejected the request: {exc}", provider=PROVIDER_ID, error_type=type(exc).__name__
        ) from exc
    finally:
        # A request that ran to its end leaves the server idle; one stopped from its stream may not.
        engine.cut_short = stopped
    if isinstance(result, dict) and "error" in result:
        errors.append(result["error"])
    elapsed = round((time.perf_counter() - started) * 1000, 1)
    if errors:
        error = errors[0]
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        kind = error.get("type", "LlamaCppError") if isinstance(error, dict) else "LlamaCppError"
        if kind == "exceed_context_size_error":
            message += " (shorten the goal; if it is short, lower the context-block limit or MAX_TOOL_OUTPUT_CHARS)"
        raise ProviderError(f"llama.cpp: {message}", provider=PROVIDER_ID, error_type=str(kind))
    if cancel is not None and cancel.is_set():
        raise ProviderError("the run was stopped", provider=PROVIDER_ID, error_type="Cancelled")
    if timed_out:
        so_far = "".join(pieces)
        raise ProviderError(
            f"the local model took longer than the request timeout ({timeout:.0f} s) and was stopped "
            f"after {len(so_far)} characters ({so_far[:60]!r}…); raise REQUEST_TIMEOUT for slow machines",
            provider=PROVIDER_ID,
            error_type="Timeout",
        )
    return whole or "".join(pieces), final, elapsed
