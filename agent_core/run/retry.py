"""Retries: one policy for model calls and tool calls (attempts, full-jitter backoff with a cap,
``retry-after``, a wait that a Stop cuts short, giving up)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from agent_core.errors import RunCancelled
from agent_core.records.run_record import ModelAttempt, ToolAttempt


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
    return (rng or random).uniform(0, max_delay(attempt, base_delays, cap=cap))


def max_delay(attempt: int, base_delays: Sequence[float], *, cap: float) -> float:
    """The most :func:`backoff_delay` can wait before retry ``attempt`` (0-based), without a
    server's ``retry_after``: the attempt's base wait, capped."""
    if not base_delays:
        return 0.0
    return min(base_delays[min(attempt, len(base_delays) - 1)], cap)


T = TypeVar("T")
A = TypeVar("A", ModelAttempt, ToolAttempt)
E = TypeVar("E")
"""An attempt's record entry: a model call's or a tool call's."""


@dataclass(frozen=True)
class Failure(Generic[A]):
    """How one failed attempt is recorded and whether it is worth another try."""

    entry: A
    """The attempt's record entry (``attempt``, ``success: false``, the error fields, ``wait_s``)."""
    transient: bool
    retry_after: float | None = None


@dataclass(frozen=True)
class RetryWait(Generic[A]):
    """Yielded by :func:`with_retries` before it waits: attempt ``attempt`` failed, the next
    starts in ``wait_s`` seconds."""

    attempt: int
    wait_s: float
    entry: A


class GaveUp(Exception):
    """The last attempt failed and no retry is left (or the error is not transient)."""

    def __init__(self, error: Exception, attempts: int) -> None:
        super().__init__(f"gave up after {attempts} attempt(s)")  # (str(error) may itself fail)
        self.error = error
        self.attempts = attempts


def _ms_since(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)


def with_retries(
    call: Callable[[], T],
    *,
    attempts: list[A],
    succeeded: Callable[[int, float], A],
    failed: Callable[[Exception, int, float], Failure[A]],
    delays: Sequence[float],
    cap: float,
    wait: Callable[[float], None],
    rng: random.Random | None = None,
) -> Generator[RetryWait[A], None, T]:
    """Call ``call()`` until it succeeds, retrying transient failures: the one retry policy of
    model calls and tool calls.

    Each attempt's entry (made by ``succeeded(attempt, duration_ms)`` or ``failed(error, attempt,
    duration_ms)``) is appended to ``attempts``. After a transient failure, while ``delays`` has an
    entry for it, the wait is :func:`backoff_delay` (full jitter, ``cap``, a server's
    ``retry_after`` wins); it is stored in the entry's ``wait_s``, yielded as a :class:`RetryWait`
    (the loop shows it live) and then waited with ``wait`` (which raises to stop, e.g. on Stop).
    Otherwise :class:`GaveUp` is raised with the last error. :class:`RunCancelled` goes through.
    Returns ``call()``'s value (a generator's return value: ``value = yield from with_retries(…)``).
    """
    attempt = 0
    while True:
        t0 = time.perf_counter()
        try:
            value = call()
        except RunCancelled:
            raise
        except Exception as exc:  # classified by ``failed``
            failure = failed(exc, attempt + 1, _ms_since(t0))
            attempts.append(failure.entry)
            if not failure.transient or attempt >= len(delays):
                raise GaveUp(exc, attempt + 1) from exc
            delay = backoff_delay(attempt, delays, cap=cap, retry_after=failure.retry_after, rng=rng)
            failure.entry["wait_s"] = round(delay, 3)
            if failure.retry_after is None or failure.retry_after < 0:  # randomised: say up to how long
                failure.entry["wait_cap_s"] = round(max_delay(attempt, delays, cap=cap), 3)
            yield RetryWait(attempt=attempt + 1, wait_s=failure.entry["wait_s"], entry=failure.entry)
            wait(delay)
            attempt += 1
            continue
        attempts.append(succeeded(attempt + 1, _ms_since(t0)))
        return value


def relabel(retries: Generator[RetryWait[A], None, T], make: Callable[[RetryWait[A]], E]) -> Generator[E, None, T]:
    """:func:`with_retries` with each wait before a retry yielded as ``make(wait)`` (the model
    call's :class:`~agent_core.run.events.ModelCallRetrying`); its value at the end."""
    while True:
        try:
            wait = next(retries)
        except StopIteration as stop:
            value: T = stop.value
            return value
        yield make(wait)


def run_through(retries: Generator[RetryWait[A], None, T], on_wait: Callable[[RetryWait[A]], None] | None = None) -> T:
    """Drive :func:`with_retries` where nothing is shown live (tool calls): its value, or GaveUp."""
    value: list[T] = []

    def drive() -> Generator[None, None, None]:
        value.append((yield from relabel(retries, on_wait or (lambda _wait: None))))

    for _ in drive():
        pass
    return value[0]
