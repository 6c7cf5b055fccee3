"""Where an eval's runs run: threads of this process, or Ray workers on one machine or many.

- :mod:`.executor` the executor interface and the threads backend;
- :mod:`.choose` :func:`make_executor` (``--executor``, ``EVAL_EXECUTOR``);
- :mod:`.ray_executor` the Ray backend (optional: ``requirements-scale.txt``);
- :mod:`.ratelimit` requests per second per provider, shared by every worker, honouring 429s.

May import: the foundation modules, ``tools`` and ``providers`` (it wraps a provider in its rate
limit). Imported by ``evals`` (and the CLI, for the options).
"""

from agent_core.scale.choose import make_executor
from agent_core.scale.executor import (
    EXECUTORS,
    Executor,
    ExecutorUnavailable,
    Outcome,
    Task,
    ThreadsExecutor,
    WorkerContext,
)
from agent_core.scale.ratelimit import Buckets, RateLimitedProvider, limited, parse_rps

__all__ = [
    "EXECUTORS",
    "Buckets",
    "Executor",
    "ExecutorUnavailable",
    "Outcome",
    "RateLimitedProvider",
    "Task",
    "ThreadsExecutor",
    "WorkerContext",
    "limited",
    "make_executor",
    "parse_rps",
]
