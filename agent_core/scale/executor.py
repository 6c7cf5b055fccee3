"""Executors: where the runs of an eval go — threads of this process (the default) or Ray workers.

An executor is given tasks and the *work* that runs one (a picklable callable: Ray ships it to
each worker once) and streams back an :class:`Outcome` per task as each ends. Tasks of a
``pool`` are the runs of a provider that serves one request at a time (the local model): the
threads executor runs them one at a time in this process (one loaded model per process); the
Ray executor gives each pool actors of their own, each holding one loaded model.

``stream`` stops starting tasks once ``cancel`` is set; the tasks in flight end (as cancelled
runs) and are still yielded, for at most :data:`DRAIN_S` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent_core.scale.ratelimit import Buckets, Limits

log = logging.getLogger("agent_core.scale")

ExecutorName = Literal["threads", "ray"]
EXECUTORS: tuple[ExecutorName, ...] = ("threads", "ray")
DRAIN_S = 60.0
"""After a Stop, how long the runs in flight are waited for (they end at their next step)."""

_ONE_AT_A_TIME = threading.Lock()
"""A pool's tasks under the threads executor: one at a time, across every eval in this process."""


class ExecutorUnavailable(ValueError):
    """The executor cannot be used here (Ray not installed, no cluster at the address); the
    message says what to do. A ValueError: bad input, exit code 2."""


@dataclass(frozen=True)
class Task:
    """One unit of work: an eval cell."""

    key: str
    """Unique in one stream (an eval cell's run id)."""
    payload: Any
    """What the work is given (picklable for Ray)."""
    pool: str | None = None
    """Runs of a provider that serves one request at a time go to its pool (see the module doc)."""


@dataclass
class Outcome:
    """How one task ended: its value (after ``finish``), or why there is none."""

    task: Task
    value: Any = None
    error: str | None = None
    """The exception the work raised, or the worker that died with no retry left."""


@dataclass
class WorkerContext:
    """What a worker lends the work: the Stop, the shared rate limits and a cache of its own."""

    cancel: threading.Event
    limits: Limits | None = None
    cache: dict[Any, Any] = field(default_factory=dict)
    """Per worker process (per actor under Ray): the providers made there (one loaded model)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Guards ``cache`` (a worker runs several tasks at once on threads)."""


Work = Callable[[Any, WorkerContext], Any]
"""Runs one task's payload in a worker; returns its value (None: nothing to report)."""
Finish = Callable[[Task, Any], Any]
"""Turns a work value into the outcome's value: in the worker thread (threads) or here (Ray)."""


class Executor(Protocol):
    """The two backends share this shape (see the module doc)."""

    name: ExecutorName

    def stream(
        self,
        tasks: Iterable[Task],
        work: Work,
        *,
        cancel: threading.Event,
        finish: Finish | None = None,
        rates: Mapping[str, float] | None = None,
        tick_s: float = 0.5,
    ) -> Iterator[Outcome | None]:
        """Run every task; yield each :class:`Outcome` as it ends, and None at least every
        ``tick_s`` seconds (a page redraws its clock there)."""
        ...

    def describe(self) -> dict[str, Any]:
        """What the eval result records about where it ran."""
        ...


class ThreadsExecutor:
    """Up to ``concurrency`` runs at once on threads of this process; a pool's runs one at a time."""

    name: ExecutorName = "threads"

    def __init__(self, *, concurrency: int = 4) -> None:
        if concurrency < 1:
            raise ValueError("--concurrency must be at least 1")
        self.concurrency = concurrency

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "concurrency": self.concurrency}

    def stream(
        self,
        tasks: Iterable[Task],
        work: Work,
        *,
        cancel: threading.Event,
        finish: Finish | None = None,
        rates: Mapping[str, float] | None = None,
        tick_s: float = 0.5,
    ) -> Iterator[Outcome | None]:
        context = WorkerContext(cancel=cancel, limits=Buckets(rates) if rates else None)

        def one(task: Task) -> Any:
            if cancel.is_set():
                return None
            if task.pool is not None:
                with _ONE_AT_A_TIME:
                    value = work(task.payload, context)
            else:
                value = work(task.payload, context)
            return finish(task, value) if finish is not None and value is not None else value

        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="eval")
        futures: dict[Future[Any], Task] = {}
        pending = iter(tasks)

        def submit() -> None:
            for task in pending:
                futures[pool.submit(one, task)] = task
                if len(futures) >= self.concurrency * 2:
                    return

        def outcome(future: Future[Any], timeout: float | None = None) -> Outcome:
            task = futures.pop(future)
            try:
                return Outcome(task, value=future.result(timeout=timeout))
            except Exception as exc:  # noqa: BLE001 - one broken run must not end the eval
                return Outcome(task, error=f"{type(exc).__name__}: {exc}")

        try:
            submit()
            while futures:
                done, _ = wait(list(futures), timeout=tick_s, return_when=FIRST_COMPLETED)
                for future in done:
                    yield outcome(future)
                yield None
                if not cancel.is_set():
                    submit()
        except GeneratorExit:  # the caller stopped listening: stop the runs too
            cancel.set()
            raise
        except BaseException:  # Ctrl-C while waiting: stop, report what ends, then raise again
            cancel.set()
            deadline = time.monotonic() + DRAIN_S
            for future in list(futures):
                if future.cancel():
                    futures.pop(future)
                    continue
                try:
                    yield outcome(future, timeout=max(0.0, deadline - time.monotonic()))
                except Exception:  # noqa: BLE001 - (a timeout): that run is left to its thread
                    pass
            raise
        finally:
            pool.shutdown(wait=not cancel.is_set(), cancel_futures=True)
