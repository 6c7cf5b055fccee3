"""Backoff: exponential base delays with full jitter and a cap, shared by tools and models."""

from __future__ import annotations

import random
from collections.abc import Sequence


def backoff_delay(
    attempt: int,
    base_delays: Sequence[float],
    *,
    cap: float,
    retry_after: float | None = None,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait before retry number ``attempt`` (0-based).

    Full jitter: uniform(0, base) where base is ``base_delays[attempt]`` (the last one repeats),
    capped at ``cap``. A server's ``retry_after`` wins when given, but is capped too.
    """
    if retry_after is not None and retry_after >= 0:
        return min(retry_after, cap)
    if not base_delays:
        return 0.0
    base = base_delays[min(attempt, len(base_delays) - 1)]
    return (rng or random).uniform(0, min(base, cap))
