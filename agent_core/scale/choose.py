"""Choosing an executor: ``--executor``, else ``EVAL_EXECUTOR``, else threads."""

from __future__ import annotations

import os
import threading
from typing import Any

from agent_core.scale.executor import EXECUTORS, Executor, ExecutorName, ThreadsExecutor

ENV_VAR = "EVAL_EXECUTOR"
_RAY: dict[tuple[Any, ...], Executor] = {}
"""Ray executors made in this process, by their options: a page's next eval finds the workers
(and the local models they loaded) still up."""
_RAY_LOCK = threading.Lock()


def executor_name(name: str | None = None) -> ExecutorName:
    """``name``, else ``EVAL_EXECUTOR``, else ``threads``; ValueError for an unknown one."""
    chosen = (name or os.environ.get(ENV_VAR, "") or "threads").strip().lower()
    for known in EXECUTORS:
        if chosen == known:
            return known
    raise ValueError(f"unknown executor {chosen!r} ({ENV_VAR} or --executor): choose one of {', '.join(EXECUTORS)}")


def make_executor(
    name: str | None = None,
    *,
    concurrency: int = 4,
    address: str | None = None,
    local_workers: int = 1,
    workers: int | None = None,
) -> Executor:
    """The executor called ``name`` (default: ``EVAL_EXECUTOR``, else threads).

    :class:`ExecutorUnavailable` (a ValueError) for ``ray`` when Ray is not installed or the
    cluster cannot be reached; ValueError for an unknown name or a bad number.
    """
    chosen = executor_name(name)
    if chosen == "threads":
        return ThreadsExecutor(concurrency=concurrency)
    from agent_core.scale.ray_executor import RayExecutor

    key = (address, concurrency, local_workers, workers)
    with _RAY_LOCK:
        if key not in _RAY:
            _RAY[key] = RayExecutor(
                address=address, concurrency=concurrency, local_workers=local_workers, workers=workers
            )
        return _RAY[key]
