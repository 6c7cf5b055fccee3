"""Requests per second per provider, shared by every worker of an eval, honouring 429 ``retry-after``.

One bucket per provider id: a call takes the next free slot (slots are ``1 / rps`` seconds
apart, no burst) and waits for it. A 429 with ``retry-after`` holds the whole provider until
then: every worker's next call waits, and a worker that had already taken a slot inside the
hold waits for its end and takes a new one. :class:`Buckets` keeps the slots in this process
(the threads executor); the Ray executor keeps one :class:`Buckets` in an actor that every
worker asks (:mod:`agent_core.scale.ray_executor`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Protocol

from agent_core.errors import ProviderError, RunCancelled
from agent_core.providers.base import LoadProgress, ModelRequest, ModelResponse, Provider
from agent_core.providers.model_wait import ModelWait
from agent_core.tools.registry import Tool

DEFAULT_HOLD_S = 1.0
"""How long a 429 without ``retry-after`` holds its provider."""


class Limits(Protocol):
    """Where a worker asks for its next slot (in this process, or an actor every worker shares)."""

    @property
    def rates(self) -> Mapping[str, float]:
        """Requests per second per provider id; a provider not named here is not limited."""
        ...

    def reserve(self, provider: str) -> float:
        """Take the provider's next slot; the seconds to wait for it."""
        ...

    def held(self, provider: str) -> float:
        """Seconds the provider is still held by a 429 (0: not held)."""
        ...

    def hold(self, provider: str, seconds: float) -> None:
        """A 429 said to wait ``seconds``: no call to the provider starts before then."""
        ...


class Buckets:
    """The slots of every provider, in this process (thread-safe)."""

    def __init__(self, rates: Mapping[str, float], *, clock: Callable[[], float] = time.monotonic) -> None:
        self.rates = {provider: float(rps) for provider, rps in rates.items() if rps and rps > 0}
        self._clock = clock
        self._next: dict[str, float] = {}
        self._held: dict[str, float] = {}
        self._lock = threading.Lock()

    def reserve(self, provider: str) -> float:
        rate = self.rates.get(provider)
        if not rate:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = max(self._next.get(provider, now), self._held.get(provider, now), now)
            self._next[provider] = slot + 1.0 / rate
            return slot - now

    def held(self, provider: str) -> float:
        with self._lock:
            return max(0.0, self._held.get(provider, 0.0) - self._clock())

    def hold(self, provider: str, seconds: float) -> None:
        with self._lock:
            until = self._clock() + max(0.0, seconds)
            self._held[provider] = max(self._held.get(provider, 0.0), until)


def parse_rps(values: Iterable[str], providers: Iterable[str]) -> dict[str, float]:
    """``--rps`` values: ``N`` (every provider of ``providers`` that calls a server) or ``P=N``
    (provider ``P``). ValueError with a plain message for anything else."""
    from agent_core.providers import provider_spec

    rates: dict[str, float] = {}
    every: float | None = None
    for value in values:
        name, _, number = value.rpartition("=")
        try:
            rps = float(number)
        except ValueError:
            raise ValueError(f"--rps takes a number of requests per second, or PROVIDER=N (got {value!r})") from None
        if not rps > 0 or rps != rps:
            raise ValueError(f"--rps must be more than 0 (got {value!r})")
        if name:
            rates[name.strip()] = rps
        else:
            every = rps
    if every is not None:
        for provider in providers:
            spec = provider_spec(provider)
            calls_a_server = spec is not None and not spec.rule_based and not spec.one_request_at_a_time
            if calls_a_server:
                rates.setdefault(provider, every)
    return rates


class RateLimitedProvider:
    """``inner`` with every model call let through by ``limits`` (its slot, any 429 hold).

    A 429 answer (with or without ``retry-after``) holds the provider for every worker; the loop's
    own retry then asks again, and waits here for the end of the hold.
    """

    def __init__(self, inner: Provider, limits: Limits) -> None:
        self.inner = inner
        self.limits = limits
        self.id = inner.id
        self.model = inner.model
        self.label = inner.label
        self.instant = inner.instant

    def _wait(self, seconds: float, request: ModelRequest) -> None:
        if seconds <= 0:
            return
        if request.cancel is not None:
            if request.cancel.wait(seconds):
                raise RunCancelled()
        else:
            time.sleep(seconds)

    def complete(self, request: ModelRequest) -> ModelResponse:
        while True:
            self._wait(self.limits.reserve(self.id), request)
            held = self.limits.held(self.id)
            if held <= 0:
                break
            self._wait(held, request)
        try:
            return self.inner.complete(request)
        except ProviderError as exc:
            if exc.status == 429:
                self.limits.hold(self.id, exc.retry_after if exc.retry_after is not None else DEFAULT_HOLD_S)
            raise

    def prepare(self) -> Iterator[LoadProgress]:
        return self.inner.prepare()

    def use_run(self, instructions: str, tools: list[Tool]) -> None:
        return self.inner.use_run(instructions, tools)

    def meta(self) -> dict[str, Any] | None:
        return self.inner.meta()

    def model_wait(self) -> ModelWait | None:
        return self.inner.model_wait()


def limited(provider: Provider, limits: Limits | None) -> Provider:
    """``provider`` behind ``limits`` when they name it; else ``provider`` itself."""
    if limits is None or provider.id not in limits.rates:
        return provider
    return RateLimitedProvider(provider, limits)
