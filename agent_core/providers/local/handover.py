"""How long a stopped run still keeps the local model (issue 19, bug 1's fallback).

A Stop reaches llama.cpp only between two prompt batches (or two tokens): the callback that
answers a progress report says "stop", and the server then finishes the batch it has already
begun. So a run stopped in the middle of a long prompt keeps the model for the rest of the batch
under way (until its next report) and for one more batch inside the server after its call
returned. The next run waits that long: first for the model's lock, then inside the server
before its own first batch. :class:`Handover` follows the request that holds the model (its
reports: tokens done, time taken) and estimates how many seconds that stopped run still needs,
so the waiting run can say so ("the local model is finishing the stopped run, about N s").

The estimate: the tokens left in the batch under way plus one whole batch, at the speed the
stopped request measured (its ``time_ms / processed``), less the time since its last report; a
request stopped while generating ends at its next token (about a second).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from agent_core.providers.model_wait import ModelWait

__all__ = ["Handover", "ModelWait"]

DEFAULT_MS_PER_TOKEN = 35.0
"""Prompt speed before any request measured one (about 2 s a 64-token batch on 2 idle cores)."""
GENERATION_S = 1.0
"""About how long a request stopped while generating keeps the model (its next token)."""


@dataclass
class _Holder:
    """The request that holds the model: its Stop and its prompt progress so far."""

    cancel: threading.Event | None
    took_at: float
    total: int = 0
    processed: int = 0
    report_at: float | None = None
    generating: bool = False

    @property
    def stopped(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


class Handover:
    """Who holds the model and, once a stopped request let go, how long its last batch runs on."""

    def __init__(self, n_batch: int) -> None:
        self.n_batch = n_batch
        self._lock = threading.Lock()
        self._holder: _Holder | None = None
        self._tail_until: float | None = None
        """When the stopped request's batch still running in the server should be over."""
        self._ms_per_token: float | None = None
        """The latest measured prompt speed (of any request)."""

    def took(self, cancel: threading.Event | None, now: float | None = None) -> None:
        """A request took the model (it holds the lock now)."""
        with self._lock:
            self._holder = _Holder(cancel=cancel, took_at=time.monotonic() if now is None else now)

    def report(self, chunk: Any, now: float | None = None) -> None:
        """A streamed chunk of the request that holds the model: its prompt progress or a token."""
        if not isinstance(chunk, dict):
            return
        now = time.monotonic() if now is None else now
        with self._lock:
            holder = self._holder
            if holder is None:
                return
            progress = chunk.get("prompt_progress")
            if isinstance(progress, dict):
                total, done = _int(progress.get("total")), _int(progress.get("processed"))
                cached, ms = _int(progress.get("cache")), progress.get("time_ms")
                # Both counts include the tokens reused from the cache; the time is for the rest.
                holder.total, holder.processed, holder.report_at = total, done, now
                if done > cached and isinstance(ms, int | float) and ms > 0:
                    self._ms_per_token = float(ms) / (done - cached)
            elif any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or [] if isinstance(c, dict)):
                holder.generating = True

    def released(self, now: float | None = None) -> None:
        """The request that held the model let go (its call returned). A stopped one may leave a
        batch running in the server: the next request waits for it."""
        now = time.monotonic() if now is None else now
        with self._lock:
            holder, self._holder = self._holder, None
            if holder is not None and holder.stopped and not holder.generating and holder.processed < holder.total:
                self._tail_until = now + self._batch_s(holder.total - holder.processed)

    def stopped_run_left(self, now: float | None = None) -> float | None:
        """About how many seconds a stopped request still keeps the model (at least 1); None when
        no stopped request holds it (the model is free, or busy with a live run)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            left: float | None = None
            if self._tail_until is not None:
                if now < self._tail_until:
                    left = self._tail_until - now
                else:
                    self._tail_until = None
            holder = self._holder
            if holder is not None and holder.stopped:
                if holder.generating:
                    mine = GENERATION_S
                else:
                    since = now - (holder.report_at if holder.report_at is not None else holder.took_at)
                    rest = holder.total - holder.processed
                    # The batch under way (to the next report), then the one begun in the server.
                    mine = max(0.0, self._batch_s(rest) - since) + self._batch_s(rest - self.n_batch, none=0)
                left = max(left or 0.0, mine)
            return None if left is None else max(1.0, left)

    def _batch_s(self, rest: int, none: int | None = None) -> float:
        """Seconds the next batch takes at the measured speed: a whole one, or the prompt's last
        ``rest`` tokens; with ``rest`` <= 0 (or no report yet, total 0) a whole batch, or
        ``none`` tokens when given."""
        tokens = min(self.n_batch, rest) if rest > 0 else (self.n_batch if none is None else none)
        return tokens * (self._ms_per_token or DEFAULT_MS_PER_TOKEN) / 1000


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0
