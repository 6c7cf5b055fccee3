"""Plain English for counts and lists, as the pages and the explanations write them."""

from __future__ import annotations

from collections.abc import Sequence


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 step"``, ``"3 steps"``, ``"2 replies"`` (with ``many``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def join_words(parts: Sequence[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
