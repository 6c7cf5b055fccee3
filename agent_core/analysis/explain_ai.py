"""Explain with AI: a real model rewords a run's fact list (:func:`agent_core.analysis.explain.explain`),
and a guard rejects its text when it holds a number or a tool name that is not in the facts —
the template summary is shown instead, with a note saying why."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from agent_core.analysis.explain import Explanation

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def _numbers(text: str) -> set[str]:
    return {m.group(0).replace(",", "").rstrip(".") for m in _NUMBER.finditer(text)}


def check_ai_text(text: str, explanation: Explanation, *, known_tools: Iterable[str] = ()) -> str | None:
    """None when ``text`` is safe to show; else why it was rejected (a plain sentence).

    Rejected: a number that no fact holds, or a tool name (a known tool, or any snake_case name)
    that the facts do not mention.
    """
    facts = "\n".join(explanation.facts)
    allowed_numbers = _numbers(facts)
    for number in sorted(_numbers(text)):
        if number not in allowed_numbers:
            return f"The AI text gave the number {number}, which is not in the run's facts."
    mentioned = {t for t in explanation.tools if t in facts} | set(explanation.tools)
    candidates = set(_IDENTIFIER.findall(text)) | {t for t in known_tools if re.search(rf"\b{re.escape(t)}\b", text)}
    for name in sorted(candidates):
        if name not in mentioned:
            return f"The AI text named the tool {name}, which is not in the run's facts."
    return None


AI_INSTRUCTIONS = (
    "You explain an AI agent's run to a person who does not program. Use only the facts given. "
    "Write 3 to 5 short sentences in plain words. Do not add numbers or tool names that are not in the facts."
)


def explain_with_ai(
    explanation: Explanation, ask: Callable[[str, str], str], *, known_tools: Iterable[str] = ()
) -> tuple[str, str | None]:
    """Ask a model (``ask(instructions, prompt) -> text``) to explain the run from its facts.

    Returns ``(text, note)``: the model's text and None when it passed :func:`check_ai_text`,
    else the template summary and a note saying why the model's text was not used.
    """
    prompt = "Facts about the run:\n" + "\n".join(f"- {f}" for f in explanation.facts)
    try:
        text = (ask(AI_INSTRUCTIONS, prompt) or "").strip()
    except Exception as exc:  # any provider failure: the template stands
        return explanation.text, f"The model could not be asked ({type(exc).__name__}); this is the template summary."
    if not text:
        return explanation.text, "The model gave no text; this is the template summary."
    problem = check_ai_text(text, explanation, known_tools=known_tools)
    if problem:
        return explanation.text, problem + " This is the template summary instead."
    return text, None


def provider_asker(provider: Any, *, timeout: float = 60.0) -> Callable[[str, str], str]:
    """An ``ask`` for :func:`explain_with_ai` that sends one plain request (no tools) to a provider."""
    from agent_core.providers.base import ModelRequest

    def ask(instructions: str, prompt: str) -> str:
        for _ in provider.prepare():  # a local model loads once
            pass
        request = ModelRequest(instructions=instructions, goal=prompt, blocks=[], tools=[], step=1, timeout=timeout)
        return str(provider.complete(request).text or "")

    return ask
