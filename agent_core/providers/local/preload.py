"""Load the local model early: in a background thread when the app starts, before anyone clicks Run.

One preload per process (:func:`start` is idempotent). It prepares a provider exactly as the Run
page's default run would (the built-in tools, the standard system prompt), so the run that
follows finds the model loaded and its prompt ready. A run whose preparation starts while the
preload is under way waits for it and shows its progress (:func:`wait_for_other`); it never
starts a second load. A failed preload is logged and reported; the run then tries by itself
and shows the real error.

``LOCAL_PRELOAD=0`` turns it off (the tests do: each test app would load 2 GB).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from agent_core.providers.base import LoadProgress
from agent_core.settings import Settings

log = logging.getLogger("agent_core.providers.local.preload")

POLL_S = 0.25
"""How often a waiting run looks at the preload's progress."""
LOAD_NICE = 19
"""The nice value of the load's threads while it runs: the lowest priority, so a page drawn
meanwhile (History's first render over 10,000 runs, say) gets the CPU first."""


@dataclass
class Preload:
    """The state of the background load, read by the Run page and by waiting runs."""

    started: float = field(default_factory=time.monotonic)
    progress: LoadProgress | None = None
    error: str | None = None
    finished: float | None = None
    done: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    summary: str = ""
    """When done: how the prompt was made ready (``restored``, ``built`` …) and the load time."""

    @property
    def running(self) -> bool:
        return not self.done.is_set()

    def elapsed_s(self) -> float:
        return (self.finished or time.monotonic()) - self.started


_CURRENT: Preload | None = None
_LOCK = threading.Lock()


def enabled(env: Mapping[str, str]) -> bool:
    """False when ``LOCAL_PRELOAD`` is ``0``, ``off``, ``no`` or ``false``."""
    return env.get("LOCAL_PRELOAD", "1").strip().lower() not in ("0", "off", "no", "false")


def current() -> Preload | None:
    """The process's preload, running or finished, or None if none was started."""
    return _CURRENT


def start_if_default(settings: Settings, env: Mapping[str, str]) -> Preload | None:
    """:func:`start`, when the local model is the default provider, ``LOCAL_PRELOAD`` allows it and
    runs can start here (not on a read-only viewer); the server's start and the app's first page
    both ask, and the first one starts it."""
    from agent_core.providers import default_provider_id

    if not enabled(env) or settings.read_only or default_provider_id() != "local":
        return None
    return start(settings)


def start(settings: Settings) -> Preload | None:
    """Start loading the local model in the background (once per process); the preload, or None
    when the local provider is not installed."""
    global _CURRENT
    from agent_core.providers import local

    with _LOCK:
        if _CURRENT is not None:
            return _CURRENT
        if local.availability() is not None:
            return None
        preload = Preload()
        preload.thread = threading.Thread(
            target=_run, args=(preload, settings), name="local-model-preload", daemon=True
        )
        _CURRENT = preload
        preload.thread.start()
        return preload


def _tasks() -> set[int]:
    """The ids of this process's threads (Linux: /proc/self/task); empty elsewhere."""
    try:
        return {int(name) for name in os.listdir("/proc/self/task")}
    except OSError:
        return set()


@contextlib.contextmanager
def low_priority() -> Iterator[None]:
    """Run the block at the lowest CPU priority, in this thread and the threads it starts, then give
    every thread started meanwhile (the model's own workers) this thread's priority back.

    Linux only: there a nice value belongs to one thread (and a thread starts with its creator's),
    so the pages the server draws meanwhile keep theirs; elsewhere ``setpriority`` would lower the
    whole process, so nothing changes. Giving the priority back needs the right to raise it
    (root, or CAP_SYS_NICE); without it the model's workers stay low, which costs nothing while
    the machine is otherwise idle."""
    if not sys.platform.startswith("linux"):
        yield
        return
    me = threading.get_native_id()
    before = _tasks()
    try:
        original = os.getpriority(os.PRIO_PROCESS, me)
        os.setpriority(os.PRIO_PROCESS, me, max(original, LOAD_NICE))
    except OSError as exc:
        log.info("the preload keeps its priority: %s", exc)
        yield
        return
    try:
        yield
    finally:
        for task in (_tasks() - before) | {me}:
            with contextlib.suppress(OSError):
                if os.getpriority(os.PRIO_PROCESS, task) > original:
                    os.setpriority(os.PRIO_PROCESS, task, original)


def _run(preload: Preload, settings: Settings) -> None:
    with low_priority():  # the analyst's first page before the model's warm-up (issue 35)
        _load(preload, settings)


def _load(preload: Preload, settings: Settings) -> None:
    from agent_core.providers import local
    from agent_core.tools.builtins import build_default_registry
    from agent_core.tools.instructions import build_instructions

    try:
        provider = local.create(model=None, base_url=None, settings=settings)
        provider.tables_early = True  # nobody waits for this load: the first run then needs nothing more
        registry = build_default_registry(settings)
        provider.use_run(build_instructions(registry), list(registry))
        for progress in provider.prepare():
            preload.progress = progress
        prompt = f"prompt {provider.prompt_cache}" if provider.prompt_cache else "the prompt is read at the first run"
        preload.summary = f"loaded in {(provider.load_ms or 0) / 1000:.1f} s, {prompt}"
        log.info("local model preloaded in %.1f s (%s)", preload.elapsed_s(), preload.summary)
    except Exception as exc:  # reported on the Run page; the run itself will try again and say why
        preload.error = str(exc) or type(exc).__name__
        log.warning("preloading the local model failed: %s", preload.error)
    finally:
        preload.finished = time.monotonic()
        preload.done.set()


def wait_for_other() -> Iterator[LoadProgress]:
    """While a preload runs in another thread: its progress, until it is over."""
    preload = _CURRENT
    if preload is None or preload.thread is threading.current_thread():
        return
    if not preload.running:
        return
    first = True
    while first or not preload.done.wait(POLL_S):
        first = False  # each poll yields, so a Stop during the wait is seen at once
        progress = preload.progress or LoadProgress("load", 0, 2, "loading the model")
        yield LoadProgress(progress.stage, progress.done, progress.total, f"{progress.message} (started early)")
