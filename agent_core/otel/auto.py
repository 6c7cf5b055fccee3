"""``AGENT_OTEL_EXPORT=auto``: send each finished run to the OTLP endpoint, off the loop's thread.

:func:`run_finished` is called by the loop after the final save; it only reads one environment
variable and, when enabled, queues the record's path for a daemon thread. That thread loads the
saved record, exports it (content only with ``AGENT_OTEL_CONTENT=on``) and retries with backoff.
A failure is logged (endpoint and reason, never credentials) and kept in :data:`last_results`;
it never reaches the run.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from pathlib import Path
from typing import TextIO

log = logging.getLogger("agent_core.otel")

_queue: queue.Queue[Path] = queue.Queue(maxsize=1000)
_worker: threading.Thread | None = None
_lock = threading.Lock()
last_results: list[tuple[str, str]] = []
"""(run file name, "ok: N spans" or the error line) of the latest auto exports, newest last."""
AUTO_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0)


def enabled() -> bool:
    return os.environ.get("AGENT_OTEL_EXPORT", "").strip().lower() == "auto"


def content_enabled() -> bool:
    return os.environ.get("AGENT_OTEL_CONTENT", "").strip().lower() in ("1", "on", "true", "yes")


def run_finished(path: Path | str) -> None:
    """Queue a finished run for export when ``AGENT_OTEL_EXPORT=auto`` (otherwise nothing)."""
    if not enabled():
        return
    global _worker
    with _lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="otel-auto-export", daemon=True)
            _worker.start()
    try:
        _queue.put_nowait(Path(path))
    except queue.Full:
        log.warning("OpenTelemetry export queue is full; %s was not sent", Path(path).name)


def export_one(path: Path) -> str:
    """Export one saved run to the environment's endpoint; the outcome as one line."""
    from agent_core.otel.export import record_to_trace
    from agent_core.otel.send import ExportError, send_traces, target_from_env
    from agent_core.records.files import load_record

    target = target_from_env()
    if target is None:
        return "not sent: AGENT_OTEL_EXPORT=auto but OTEL_EXPORTER_OTLP_ENDPOINT is not set"
    try:
        record = load_record(path)
        count = send_traces([record_to_trace(record, content=content_enabled())], target, delays=AUTO_DELAYS)
    except ExportError as exc:
        return str(exc)
    except Exception as exc:  # never let the worker die
        return f"export of {path.name} failed: {type(exc).__name__}: {exc}"
    return f"ok: {count} spans to {target.endpoint}"


def _work() -> None:
    while True:
        path = _queue.get()
        try:
            outcome = export_one(path)
            if not outcome.startswith("ok"):
                log.warning("OpenTelemetry auto export of %s: %s", path.name, outcome)
            last_results.append((path.name, outcome))
            del last_results[:-50]
        finally:
            _queue.task_done()


def wait_idle(timeout: float = 30.0) -> bool:
    """Block until queued exports are done (tests, CLI exit); True when idle."""
    done = threading.Event()

    def join() -> None:
        _queue.join()
        done.set()

    threading.Thread(target=join, daemon=True).start()
    return done.wait(timeout)


def report_at_exit(out: TextIO, timeout: float = 20.0) -> None:
    """For a short-lived process (the CLI): wait up to ``timeout`` s, then say how the export went."""
    if wait_idle(timeout):
        if last_results:
            out.write(f"OpenTelemetry: {last_results[-1][1]}\n")
    else:
        out.write(f"OpenTelemetry: export still retrying after {timeout:.0f} s; not sent\n")
