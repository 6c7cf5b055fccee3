"""The loaded model: one llama.cpp server per process (``xllamacpp``), shared by every run.

A second copy would cost ~2 GB, so the engine is the one process-wide object of the local
provider: a module-level value guarded by a lock; requests take turns on it (:attr:`Engine.busy`).
Environment: ``LOCAL_MODEL_THREADS`` (default 2), ``OMP_WAIT_POLICY`` / ``GOMP_SPINCOUNT`` (how
llama.cpp's threads wait for each other; see :func:`wait_policy`).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core.errors import ProviderError
from agent_core.providers.local.handover import Handover

log = logging.getLogger("agent_core.providers.local")

PROVIDER_ID = "local"
INSTALL_LINE = "pip install -r requirements-local.txt"

N_THREADS = 2
"""CPU threads for generation and prompt processing (measured on a 2-core machine)."""
N_CTX = 8192
"""Context window in tokens (the KV cache is ~230 MB at this size)."""
MAX_TOKENS = 768
"""Longest output of one step (the engine's bound)."""
TEMPERATURE = 0.0
"""Greedy decoding: the same goal gives the same run (tool choice is what matters here)."""
SEED = 42
CACHE_RAM_MIB = 256
"""Bound on llama.cpp's in-RAM prompt cache (its default, 8 GB, is more than this machine has)."""
N_BATCH = 64
"""Prompt tokens llama.cpp processes between two checks for a Stop (its default, 2048, is over a
minute of work on 2 cores: a Stop during a long goal left the model busy for minutes). With
``return_progress`` the server reports after every batch, and the reply to that report stops it;
the batch under way still finishes (~2 s on 2 idle cores, far longer on a loaded machine)."""


# ---------------------------------------------------------------------------------------------
# The shared engine


@dataclass
class Engine:
    """The loaded model (an in-process llama.cpp server) and the lock requests queue on."""

    server: Any
    path: Path
    load_ms: float
    n_threads: int
    n_ctx: int
    busy: threading.Lock = field(default_factory=threading.Lock)
    api_key: str = ""
    """The embedded HTTP server's key (it only listens on 127.0.0.1; the slot calls use it)."""
    slot_dir: Path | None = None
    """The prompt cache folder llama.cpp saves slots to and restores them from (None: no disk cache)."""
    prompt_key: str | None = None
    """The prompt cache key of the system prompt whose state the slot holds (None: unknown)."""
    handover: Handover = field(default_factory=lambda: Handover(N_BATCH))
    """Which request holds the model, and how long a stopped one still keeps it."""
    grammar_ready: bool = False
    """llguidance has built its token tables (once per process, ~1.3 s on 2 cores: see
    :data:`WARM_GRAMMAR`)."""
    cut_short: bool = False
    """A request was stopped from its stream (said enough, complete, Stop, timeout): the server may
    still be computing the token under way (see :meth:`settle`)."""

    def slot(self, action: str, filename: str) -> dict[str, Any]:
        """``POST /slots/0?action=save|restore`` on the embedded server; llama.cpp's JSON reply.

        Raises :class:`OSError` (HTTP or connection error, with llama.cpp's message) on failure.
        """
        reply = self._call(f"/slots/0?action={action}", {"filename": filename})
        return reply if isinstance(reply, dict) else {}

    def settle(self, timeout: float = 5.0) -> None:
        """Wait until the server has finished the work of a request stopped from its stream.

        Such a request returns at once, while llama.cpp finishes the token (or prompt batch) under
        way: ~0.1 s. A later request simply queues behind it, but a process that exits meanwhile
        frees the model under that computation (a segmentation fault, seen in ~1 run in 11 that
        stopped at the end of a reply): so this runs at exit (:func:`_settle_at_exit`)."""
        if not self.cut_short:
            return
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            try:
                slots = self._call("/slots")
            except OSError:
                break
            if not any(isinstance(s, dict) and s.get("is_processing") for s in slots or []):
                break
            time.sleep(0.005)
        self.cut_short = False

    def _call(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """A GET (or with ``payload``, a POST) to the embedded server; its JSON reply.

        Raises :class:`OSError` (HTTP or connection error, with llama.cpp's message) on failure.
        """
        import urllib.error
        import urllib.request

        address = str(getattr(self.server, "listening_address", "") or "").rstrip("/")
        if not address.startswith("http://127.0.0.1:"):
            raise OSError(f"the local model's server does not listen on loopback ({address!r})")
        request = urllib.request.Request(
            address + path,
            data=None if payload is None else json.dumps(payload).encode(),
            headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
        )
        try:
            # No proxy: http_proxy in the environment must not see this loopback call (or its key).
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            with opener.open(request, timeout=120) as response:
                reply = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as exc:
            raise OSError(f"HTTP {exc.code}: {exc.read()[:300].decode('utf-8', 'replace')}") from exc
        except ValueError as exc:
            raise OSError(f"unreadable reply ({exc})") from exc
        return reply


_ENGINE: Engine | None = None
"""The process's loaded model (:func:`current`)."""
_ENGINE_LOCK = threading.Lock()


def current() -> Engine | None:
    """The process's loaded model, if any."""
    return _ENGINE


def loaded_engine(path: Path, n_threads: int) -> Engine | None:
    engine = _ENGINE
    if engine is not None and engine.path == path and engine.n_threads == n_threads:
        return engine
    return None


def load_engine(path: Path, *, n_threads: int, n_ctx: int, slot_dir: Path | None = None) -> tuple[Engine, bool]:
    """The process's engine for ``path``, loading it when needed; ``(engine, loaded_now)``.

    ``slot_dir`` (the prompt cache folder) is fixed when the model loads: a later run with another
    data folder uses the loaded engine's."""
    global _ENGINE
    with _ENGINE_LOCK:
        engine = loaded_engine(path, n_threads)
        if engine is not None:
            return engine, False
        if _ENGINE is not None:
            old = _ENGINE
            with old.busy:  # let a running request finish before the model is swapped
                old.settle()
                _ENGINE = None
                del old.server
        # Set before the import: libgomp reads it when it loads.
        os.environ.update(wait_policy(os.environ, n_threads, os.cpu_count() or 1, other_model_processes()))
        try:
            import xllamacpp
        except ImportError as exc:
            raise ProviderError(
                f"the llama.cpp runtime (xllamacpp) cannot be imported ({exc}); run: {INSTALL_LINE}",
                provider=PROVIDER_ID,
                error_type="RuntimeMissing",
            ) from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1
        params.n_predict = MAX_TOKENS
        params.n_batch = N_BATCH
        params.n_ubatch = N_BATCH
        params.cpuparams.n_threads = n_threads
        params.cpuparams_batch.n_threads = n_threads
        # llama.cpp's warm-up is one dummy decode at load (it pages GPU/mmap'd weights in); it
        # cost ~1 CPU-second, and the weights come from the page cache anyway.
        params.warmup = False
        # Fitting the model to the devices' free memory loads it twice more, as a dry run: 2.2 s of
        # a 4.5 s load on 2 cores, for nothing on a CPU (n_ctx is set, and it fits in RAM).
        params.fit_params = False
        # No repacking of the weights into the AVX2 kernels' layout: the load copied all 1 GB into
        # RAM for it (1.3 s more, 600 MB more resident), and prompts were no faster (measured
        # 29.7 ms a token with it, 25.6-29.4 without; generation 80-104 ms against 87-107). The
        # weights stay mapped from the file, shared with every process that maps it.
        params.no_extra_bufts = True
        params.sampling.temp = TEMPERATURE
        params.sampling.seed = SEED
        params.verbosity = -1
        # The embedded server also listens on 127.0.0.1 (a random port); we never use it, so
        # lock it with a throwaway key and turn its extras off.
        params.ui = False
        params.endpoint_slots = True  # slot save/restore (the prompt cache on disk), and Engine.settle
        params.endpoint_metrics = False
        api_key = secrets.token_urlsafe(32)
        params.api_keys = [api_key]
        if slot_dir is not None:
            try:
                slot_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                log.warning("no prompt cache: %s cannot be created (%s)", slot_dir, exc)
                slot_dir = None
        if slot_dir is not None:
            params.slot_save_path = str(slot_dir) + os.sep  # llama.cpp appends the file name as is
        params.cache_ram_mib = CACHE_RAM_MIB
        params.cors_origins = "http://127.0.0.1"
        started = time.perf_counter()
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:
            raise ProviderError(
                f"llama.cpp could not load the model {path} ({exc}); is it a GGUF file this runtime supports?",
                provider=PROVIDER_ID,
                error_type="ModelLoadError",
            ) from exc
        load_ms = round((time.perf_counter() - started) * 1000, 1)
        log.info("loaded %s in %.0f ms with %d threads", path, load_ms, n_threads)
        _ENGINE = Engine(
            server=server,
            path=path,
            load_ms=load_ms,
            n_threads=n_threads,
            n_ctx=n_ctx,
            api_key=api_key,
            slot_dir=slot_dir,
        )
        return _ENGINE, True


@atexit.register
def _settle_at_exit() -> None:
    engine = _ENGINE
    if engine is not None:
        engine.settle()


# ---------------------------------------------------------------------------------------------
# The provider


def acquire(lock: threading.Lock, timeout: float, cancel: threading.Event | None) -> bool:
    """``lock.acquire(timeout=…)`` that also gives up once ``cancel`` is set: a run stopped while
    it waits for the model (another run holds it) must not take it afterwards."""
    if lock.acquire(blocking=False):
        return True  # free: a Stop already set is seen by the generation itself
    end = time.monotonic() + timeout
    while True:
        if cancel is not None and cancel.is_set():
            return False
        left = end - time.monotonic()
        if lock.acquire(timeout=max(0.0, min(0.1, left))):
            if cancel is not None and cancel.is_set():
                lock.release()
                return False
            return True
        if left <= 0:
            return False


def wait_policy(env: Mapping[str, str], n_threads: int, cpus: int, others: Sequence[int]) -> dict[str, str]:
    """The OpenMP setting to add to the environment before llama.cpp loads (``{}`` for none).

    llama.cpp's threads wait for each other at every step of a token. libgomp's own default lets a
    waiting thread spin a little (300,000 turns) before it sleeps; passive waiting sleeps at once.
    Measured on 2 cores, 2 threads (``bench/threads.py``, median of 3), ms per generated token:

    ============================  =======  ========
    the other load on the cores   default  passive
    ============================  =======  ========
    none                          47       59
    a process busy 20 % / 50 %    48 / 63  64 / 84
    a process busy 100 %          120      81
    a second model generating     246      81
    ============================  =======  ========

    A dashboard and a browser load the cores only in part, so the default, unless another model
    process is there when this one loads: passive then (once measured, the newcomer got 106 and the
    one before it, still spinning, 221 while both generated; neither can change once loaded). A core
    kept busy by something else cannot be foreseen; ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` set by
    the operator win.
    """
    if "OMP_WAIT_POLICY" in env or "GOMP_SPINCOUNT" in env or n_threads < cpus or not others:
        return {}
    log.info("another model process shares the cores (pid %s): llama.cpp's threads wait passively", others[0])
    return {"OMP_WAIT_POLICY": "PASSIVE"}


def other_model_processes(proc: Path = Path("/proc")) -> list[int]:
    """Other processes with a GGUF model mapped (llama.cpp maps its weights from the file), as far
    as ``/proc`` lets this process read their maps; ``[]`` where there is no ``/proc``."""
    found = []
    try:
        entries = [p for p in proc.iterdir() if p.name.isdigit() and int(p.name) != os.getpid()]
    except OSError:
        return []
    for entry in entries:
        try:
            with open(entry / "maps", encoding="utf-8", errors="replace") as maps:
                if any(line.rstrip().endswith(".gguf") for line in maps):
                    found.append(int(entry.name))
        except OSError:  # gone meanwhile, or another user's
            continue
    return found


def threads_from_env(env: Mapping[str, str]) -> int:
    value = env.get("LOCAL_MODEL_THREADS", "").strip()
    try:
        return max(1, int(value)) if value else N_THREADS
    except ValueError:
        log.warning("LOCAL_MODEL_THREADS=%r is not a number; using %d", value, N_THREADS)
        return N_THREADS


def own_work_began(chunk: Any) -> bool:
    """A streamed chunk that shows the request's own prompt under way (a batch done) or its output."""
    if not isinstance(chunk, dict):
        return False
    progress = chunk.get("prompt_progress")
    if isinstance(progress, dict) and (progress.get("processed") or 0) > (progress.get("cache") or 0):
        return True
    return any(isinstance(c, dict) and (c.get("delta") or {}).get("content") for c in chunk.get("choices") or [])


def runtime_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("xllamacpp")
    except Exception:
        return None
