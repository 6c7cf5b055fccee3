"""The Ray executor: an eval's runs on Ray actors, on this machine or on a cluster.

Ray is optional (``requirements-scale.txt``); without it :class:`RayExecutor` raises
:class:`~agent_core.scale.executor.ExecutorUnavailable` saying how to install it.

- **Workers.** ``workers`` actors (default: the cluster's CPUs, at most ``concurrency``) run the
  runs of remote and rule-based providers, ``ceil(concurrency / workers)`` at a time each, spread
  over the nodes. They take no CPU of their own from Ray's accounting: what they do is wait for
  an API.
- **Pools.** A provider that serves one request at a time (the local model) gets
  ``local_workers`` actors of its own, each with ``local_cpus`` CPUs (the model's threads), each
  holding one loaded model and running one run at a time.
- **Batches.** Short runs go to a worker several at a time (about :data:`BATCH_S` seconds of
  work per call), so Ray's cost per call does not weigh on 15 ms offline runs.
- **Retries.** A worker that dies is restarted by Ray and its runs in flight are run again
  (``task_retries`` times), under the same run id: the record is written once. A run whose
  retries are used up comes back as an error; ``eval --resume`` runs it later.
- **Control.** One small actor per stream holds the Stop flag (each worker polls it) and the
  requests-per-second buckets (:class:`~agent_core.scale.ratelimit.Buckets`) every worker shares.

Local Ray (no address): started here on 127.0.0.1 with this process's environment (API keys
included) and the repository on the workers' path. A cluster (``auto``, ``ray://host:port``):
``agent_core`` is shipped to the workers (``py_modules``); each node needs the project's
requirements and its own API keys.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agent_core.scale.executor import (
    DRAIN_S,
    ExecutorName,
    ExecutorUnavailable,
    Finish,
    Outcome,
    Task,
    Work,
    WorkerContext,
)
from agent_core.scale.ratelimit import Buckets

log = logging.getLogger("agent_core.scale")

INSTALL_HINT = "the ray executor needs Ray: pip install -r requirements-scale.txt"
STOP_POLL_S = 0.5
BATCH_S = 0.25
"""Runs are sent to a worker in batches of about this many seconds of work (one run at first,
then as many as fit, up to :data:`MAX_BATCH`): a Ray call costs a few milliseconds, which is much
next to a 15 ms offline run and nothing next to a model's."""
MAX_BATCH = 64
Batch = tuple[list[tuple[Any, str | None]], float]
"""What a worker returns for a batch: (value, error) per task, and the seconds it took."""
"""How often a worker asks whether the stream was stopped."""
_REPO = Path(__file__).resolve().parents[2]
LOCAL_WORKER_ENV = {"RAY_worker_niceness": "0"}
"""A local Ray's workers run at this process's priority, as the threads executor's runs do (Ray's
default, nice 15, keeps its own services responsive, but on a machine busy with other work it
starves the eval: 2.3× slower than threads on this 2-core machine under load, against ~1× at 0)."""


def import_ray() -> Any:
    """The ``ray`` module; :class:`ExecutorUnavailable` with the install line when it is missing."""
    try:
        import ray
    except ImportError:
        raise ExecutorUnavailable(INSTALL_HINT) from None
    return ray


def connect(address: str | None = None) -> Any:
    """Ray, initialised: the running instance if this process has one, else a local one on
    127.0.0.1 (no ``address``), else the cluster at ``address`` (``auto``, ``ray://host:port``)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
    if address:
        options["address"] = address
        options["runtime_env"] = {"py_modules": [str(_REPO / "agent_core")]}
    else:
        options["_node_ip_address"] = "127.0.0.1"
        path = os.pathsep.join(p for p in (str(_REPO), os.environ.get("PYTHONPATH", "")) if p)
        options["runtime_env"] = {"env_vars": {"PYTHONPATH": path, **LOCAL_WORKER_ENV}}
    try:
        ray.init(**options)
    except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError …
        where = f"the Ray cluster at {address}" if address else "a local Ray"
        raise ExecutorUnavailable(f"cannot start or reach {where}: {type(exc).__name__}: {exc}") from None
    return ray


def _match_priority() -> None:
    """Give this thread the niceness the local Ray asked for (:data:`LOCAL_WORKER_ENV`): Ray
    applies it to a plain actor's process, but a threaded actor's threads keep 15. Lowering a
    niceness needs the privilege to; without it, nothing changes."""
    wanted = os.environ.get("RAY_worker_niceness", "")
    if not wanted.lstrip("-").isdigit():
        return
    try:
        thread = threading.get_native_id()
        if os.getpriority(os.PRIO_PROCESS, thread) > int(wanted):
            os.setpriority(os.PRIO_PROCESS, thread, int(wanted))
    except OSError:
        pass


class _Control:
    """Every stream's Stop flag and rate buckets (one Ray actor per executor; the workers ask it)."""

    def __init__(self) -> None:
        self._buckets: dict[str, Buckets] = {}
        self._stopped: set[str] = set()

    def open(self, stream: str, rates: Mapping[str, float]) -> None:
        self._buckets[stream] = Buckets(rates)

    def close(self, stream: str) -> None:
        self._buckets.pop(stream, None)
        self._stopped.discard(stream)

    def stop(self, stream: str) -> None:
        self._stopped.add(stream)

    def stopped(self, streams: list[str]) -> list[str]:
        """Those of ``streams`` that were stopped or are over."""
        return [s for s in streams if s in self._stopped or s not in self._buckets]

    def reserve(self, stream: str, provider: str) -> float:
        buckets = self._buckets.get(stream)
        return buckets.reserve(provider) if buckets is not None else 0.0

    def held(self, stream: str, provider: str) -> float:
        buckets = self._buckets.get(stream)
        return buckets.held(provider) if buckets is not None else 0.0

    def hold(self, stream: str, provider: str, seconds: float) -> None:
        buckets = self._buckets.get(stream)
        if buckets is not None:
            buckets.hold(provider, seconds)


class RayLimits:
    """:class:`~agent_core.scale.ratelimit.Limits` of one stream, kept by the control actor (picklable)."""

    def __init__(self, control: Any, stream: str, rates: Mapping[str, float]) -> None:
        self.control = control
        self.stream = stream
        self.rates = dict(rates)

    def reserve(self, provider: str) -> float:
        import ray

        return float(ray.get(self.control.reserve.remote(self.stream, provider)))

    def held(self, provider: str) -> float:
        import ray

        return float(ray.get(self.control.held.remote(self.stream, provider)))

    def hold(self, provider: str, seconds: float) -> None:
        self.control.hold.remote(self.stream, provider, seconds)


class _Stream:
    """What a worker keeps of one stream: its work and its context (the Stop, the limits)."""

    def __init__(self, work: Work, limits: RayLimits | None) -> None:
        self.work = work
        self.context = WorkerContext(cancel=threading.Event(), limits=limits)


class _Worker:
    """A Ray actor that runs the tasks of any stream of its executor. It stays up between streams
    (evals), and so do the providers it made (a loaded local model)."""

    def __init__(self, control: Any) -> None:
        self._control = control
        self._streams: dict[str, _Stream] = {}
        self._ended: deque[str] = deque(maxlen=64)
        """Streams stopped or over: their tasks still queued here return at once."""
        self._lock = threading.Lock()
        self._cache: dict[Any, Any] = {}
        self._cache_lock = threading.Lock()
        threading.Thread(target=self._watch, name="stop-watch", daemon=True).start()

    def _watch(self) -> None:
        import ray

        _match_priority()
        while True:
            time.sleep(STOP_POLL_S)
            with self._lock:
                active = list(self._streams)
            if not active:
                continue
            try:
                over = ray.get(self._control.stopped.remote(active))
            except Exception:  # noqa: BLE001 - the control actor is gone: every stream is over
                over = active
            with self._lock:
                for stream in over:
                    gone = self._streams.pop(stream, None)
                    self._ended.append(stream)
                    if gone is not None:
                        gone.context.cancel.set()

    def run(self, stream: str, work: list[Any], limits: RayLimits | None, payloads: list[Any]) -> Batch:
        """Run a batch of tasks of ``stream``, one after the other; ``work`` is ``[ObjectRef]``
        (fetched once per stream). Each task's value, or its error, and the batch's seconds."""
        import ray

        _match_priority()
        t0 = time.perf_counter()
        with self._lock:
            known = self._streams.get(stream)
            if known is None and stream in self._ended:
                return [(None, None) for _ in payloads], 0.0
        if known is None:
            known = _Stream(ray.get(work[0]), limits)
            known.context.cache = self._cache  # providers outlive the stream
            known.context.lock = self._cache_lock
            with self._lock:
                known = self._streams.setdefault(stream, known)
        results: list[tuple[Any, str | None]] = []
        for payload in payloads:
            try:
                results.append((known.work(payload, known.context), None))
            except Exception as exc:  # noqa: BLE001 - one broken run must not take its batch down
                results.append((None, f"{type(exc).__name__}: {exc}"))
        return results, time.perf_counter() - t0


class RayExecutor:
    """Runs tasks on Ray actors (see the module doc)."""

    name: ExecutorName = "ray"

    def __init__(
        self,
        *,
        address: str | None = None,
        concurrency: int = 4,
        local_workers: int = 1,
        workers: int | None = None,
        local_cpus: int | None = None,
        task_retries: int = 1,
    ) -> None:
        if concurrency < 1:
            raise ValueError("--concurrency must be at least 1")
        if local_workers < 1:
            raise ValueError("--local-workers must be at least 1")
        if workers is not None and workers < 1:
            raise ValueError("--workers must be at least 1")
        self.ray = connect(address)
        self.address = address
        cpus = max(1, int(self.ray.cluster_resources().get("CPU", 1)))
        self.workers = workers or min(cpus, concurrency)
        self.slots = max(1, -(-concurrency // self.workers))
        self.concurrency = concurrency
        self.local_workers = local_workers
        self.local_cpus = local_cpus or max(1, cpus // local_workers)
        self.task_retries = task_retries
        self.actors: dict[str | None, list[Any]] = {}
        """The workers per pool; they stay up between streams (:meth:`close` ends them)."""
        self._control = self.ray.remote(_Control).options(num_cpus=0, max_concurrency=1).remote()
        self._group(None)  # started now: they boot while the eval gets ready

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address or "local",
            "nodes": sum(1 for node in self.ray.nodes() if node.get("Alive")),
            "workers": self.workers,
            "runs_per_worker": self.slots,
            "local_workers": self.local_workers,
            "local_cpus": self.local_cpus,
        }

    def close(self) -> None:
        """End the workers (and the models they hold); the executor can start new ones later."""
        for actors in self.actors.values():
            for actor in actors:
                self.ray.kill(actor, no_restart=True)
        self.actors = {}

    def _group(self, pool: str | None) -> list[Any]:
        if pool not in self.actors:
            count = self.workers if pool is None else self.local_workers
            self.actors[pool] = [self._start(pool) for _ in range(count)]
        return self.actors[pool]

    def _start(self, pool: str | None) -> Any:
        retries = {"max_restarts": self.task_retries, "max_task_retries": self.task_retries}
        actor = self.ray.remote(_Worker)
        if pool is None:
            options = {"num_cpus": 0, "max_concurrency": self.slots, "scheduling_strategy": "SPREAD"}
        else:
            threads = {"LOCAL_MODEL_THREADS": str(self.local_cpus)}
            options = {"num_cpus": self.local_cpus, "max_concurrency": 1, "runtime_env": {"env_vars": threads}}
        return actor.options(**options, **retries).remote(self._control)

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
        ray = self.ray
        queues: dict[str | None, deque[Task]] = {}
        for task in tasks:
            queues.setdefault(task.pool, deque()).append(task)
        stream = secrets.token_hex(8)
        control = self._control
        ray.get(control.open.remote(stream, dict(rates or {})))
        limits = RayLimits(control, stream, rates) if rates else None
        work_ref = [ray.put(work)]  # (in a list: Ray passes the reference, each worker fetches it once)
        load: dict[str | None, list[int]] = {}
        in_flight: dict[Any, tuple[list[Task], str | None, int, Any]] = {}
        batch: dict[str | None, int] = {}
        """Tasks per call, per pool: 1 until a run's time is known (see :data:`BATCH_S`)."""

        def submit() -> None:
            for pool, queue in queues.items():
                actors = self._group(pool)
                counts = load.setdefault(pool, [0] * len(actors))
                room = 2 * (self.slots if pool is None else 1) + 1  # queued work, so no worker waits for us
                while queue:
                    index = min(range(len(actors)), key=counts.__getitem__)
                    if counts[index] >= room:
                        break
                    chunk = [queue.popleft() for _ in range(min(batch.get(pool, 1), len(queue)))]
                    ref = actors[index].run.remote(stream, work_ref, limits, [t.payload for t in chunk])
                    in_flight[ref] = (chunk, pool, index, actors[index])
                    counts[index] += 1

        def outcomes(ref: Any) -> list[Outcome]:
            chunk, pool, index, actor = in_flight.pop(ref)
            load[pool][index] -= 1
            try:
                results, seconds = ray.get(ref)
            except ray.exceptions.RayActorError as exc:
                if self.actors[pool][index] is actor and not cancel.is_set():  # dead for good: a new one
                    log.warning("eval worker died with no retry left; starting another: %s", exc)
                    self.actors[pool][index] = self._start(pool)
                return [Outcome(task, error=f"the worker died: {type(exc).__name__}") for task in chunk]
            except ray.exceptions.RayError as exc:
                cause = getattr(exc, "cause", None) or exc
                return [Outcome(task, error=f"{type(cause).__name__}: {cause}") for task in chunk]
            if seconds > 0:
                batch[pool] = max(1, min(MAX_BATCH, int(BATCH_S / (seconds / len(chunk)))))
            out = []
            for task, (value, error) in zip(chunk, results):
                if error is None and finish is not None and value is not None:
                    value = finish(task, value)
                out.append(Outcome(task, value=value, error=error))
            return out

        def ready(timeout: float) -> list[Any]:
            refs = list(in_flight)
            if not refs:
                return []
            first, rest = ray.wait(refs, num_returns=1, timeout=timeout)
            if first and rest:
                more, _ = ray.wait(rest, num_returns=len(rest), timeout=0)
                first += more
            return list(first)

        stopped_at: float | None = None
        try:
            submit()
            while in_flight:
                for ref in ready(tick_s):
                    yield from outcomes(ref)
                yield None
                if cancel.is_set():
                    if stopped_at is None:
                        control.stop.remote(stream)
                        stopped_at = time.monotonic()
                    elif time.monotonic() - stopped_at > DRAIN_S:
                        break
                else:
                    submit()
        except GeneratorExit:
            cancel.set()
            raise
        except BaseException:  # Ctrl-C while waiting: stop the workers, report what ends, raise again
            cancel.set()
            control.stop.remote(stream)
            deadline = time.monotonic() + DRAIN_S
            while in_flight and time.monotonic() < deadline:
                for ref in ready(min(tick_s, max(0.0, deadline - time.monotonic()))):
                    yield from outcomes(ref)
            raise
        finally:
            control.close.remote(stream)  # the workers drop the stream (and stop what is left of it)
