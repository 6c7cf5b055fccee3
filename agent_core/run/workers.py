"""Calls that run in a worker thread, so the caller can stop waiting: a tool that hangs past its
timeout, a model call that a Stop cuts short.

A thread cannot be killed: a call given up on keeps its thread until it returns, and the run goes
on without it. Starting a thread costs ~0.1 ms, more than the engine's own work on a call, so an
idle worker is reused; a busy (or hung) one is never waited for: a new one is started instead,
exactly as if every call had its own thread.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from agent_core.errors import RunCancelled

CANCEL_POLL_S = 0.05
"""How often a caller waiting on a call checks for a Stop."""


class _Worker(threading.Thread):
    """A daemon thread that runs jobs one at a time (daemon: a hung call never blocks exit)."""

    MAX_IDLE = 8
    _idle: list[_Worker] = []
    _lock = threading.Lock()
    _local = threading.local()

    def __init__(self) -> None:
        super().__init__(name="agent-worker", daemon=True)
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.start()

    @classmethod
    def acquire(cls) -> _Worker:
        """An idle worker, or a new one."""
        with cls._lock:
            while cls._idle:
                worker = cls._idle.pop()
                if worker.is_alive():  # (threads do not survive a fork)
                    return worker
        return cls()

    @classmethod
    def release(cls) -> None:
        """Called by a worker when its job is over (before the caller is woken)."""
        worker = getattr(cls._local, "worker", None)
        if worker is not None:
            with cls._lock:
                if len(cls._idle) < cls.MAX_IDLE:
                    cls._idle.append(worker)
                    return
            worker._jobs.put(worker._stop_job)

    def submit(self, job: Callable[[], None]) -> None:
        self._jobs.put(job)

    def _stop_job(self) -> None:
        raise SystemExit

    def run(self) -> None:
        type(self)._local.worker = self
        try:
            while True:
                self._jobs.get()()
        except SystemExit:
            return


os.register_at_fork(after_in_child=_Worker._idle.clear)


class Pending:
    """A call running in a worker thread: wait for it (with a timeout), then take its result."""

    def __init__(self, func: Callable[[], Any]) -> None:
        self._func = func
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        _Worker.acquire().submit(self._run)

    def _run(self) -> None:
        try:
            self._value = self._func()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, never lost
            self._error = exc
        finally:
            _Worker.release()
            self._done.set()

    def wait(self, timeout: float | None = None, cancel: threading.Event | None = None) -> bool:
        """True once the call is over; False if ``timeout`` seconds passed first;
        :class:`RunCancelled` as soon as ``cancel`` is set (checked every :data:`CANCEL_POLL_S`)."""
        if cancel is None:
            return self._done.wait(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = CANCEL_POLL_S if deadline is None else min(CANCEL_POLL_S, deadline - time.monotonic())
            if self._done.wait(max(0.0, left)):
                return True
            if cancel.is_set():
                raise RunCancelled()
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def result(self) -> Any:
        """The call's return value, or its exception raised here (call after :meth:`wait`).

        ``SystemExit``, ``KeyboardInterrupt`` and the like raised by the call are the call's
        failure, not this process's end: they come back as :class:`CallAborted`.
        """
        error = self._error
        if error is None:
            return self._value
        if not isinstance(error, Exception):
            raise CallAborted(error) from None
        raise error


class CallAborted(RuntimeError):
    """The call raised a ``BaseException`` that is not an ``Exception`` (SystemExit & co.)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(f"{type(original).__name__}: {original}".rstrip(": "))
        self.original = original


def start(func: Callable[[], Any]) -> Pending:
    """Run ``func()`` in a worker thread at once; wait on the returned :class:`Pending`."""
    return Pending(func)
