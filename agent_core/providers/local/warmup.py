"""Making the local model ready for a run: the model file, the one load per process, and the run's
system prompt and tool list in the model's slot (restored from the disk cache when it can be,
else computed once and saved: :mod:`~agent_core.providers.local.prompt_cache`).

:class:`WarmUp` is the part of :class:`~agent_core.providers.local.LocalProvider` that does it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent_core.errors import ProviderError
from agent_core.providers.base import LoadProgress
from agent_core.providers.local.engine import N_BATCH, PROVIDER_ID, Engine, load_engine, loaded_engine, runtime_version
from agent_core.providers.local.model_files import ModelFileError, ModelSource, ensure_model_file, resolve_source
from agent_core.providers.local.prompt import build_messages
from agent_core.providers.local.prompt_cache import PromptCache, cache_key, remembered_sha256
from agent_core.providers.local.steps import offered_tools
from agent_core.tools.registry import Tool

log = logging.getLogger("agent_core.providers.local")

WARM_UP_GOAL = "hello"
"""The user turn of the warm-up; only the system prompt and tool list before it are reused."""
WARM_UP_S = 20
"""About how long the warm-up (:meth:`LocalProvider._warm_up`) takes on 2 cores, for the progress text."""
WARM_GRAMMAR = '%llguidance {}\nstart: "{"'
"""The grammar of the early load's one-token request (:attr:`LocalProvider.tables_early`). The first
request with an llguidance grammar in a process builds llguidance's tables for the 151,000-token
vocabulary: 1.3-1.7 s measured, paid inside the first step that needs them unless the app's early
load, before anyone clicks Run, pays it."""


class WarmUp:
    """Preparation for :class:`~agent_core.providers.local.LocalProvider` (its attributes are set
    in the provider's ``__init__``)."""

    _env: Any
    _source: ModelSource | None
    _engine: Engine | None
    _prompt_key: str | None
    n_threads: int
    n_ctx: int
    slot_dir: Path | None
    temperature: float
    load_ms: float | None
    loaded_now: bool
    warm_ms: float | None
    run_prompt: tuple[str, list[Tool]] | None
    file_ms: float | None
    file_check: str
    prompt_cache: str | None
    prompt_ms: float | None
    tables_early: bool

    def _model_source(self) -> ModelSource:
        try:
            return resolve_source(self._env)
        except ModelFileError as exc:
            raise ProviderError(str(exc), provider=PROVIDER_ID, error_type="ModelFileMissing") from exc

    def prepare(self) -> Iterator[LoadProgress]:
        """Join + verify the model file if needed, load it once per process, then make the run's
        system prompt ready (restored from the disk cache when it can be), with progress.

        While the app's early load (:mod:`~agent_core.providers.local.preload`) is under way, this
        waits for it and shows its progress: there is never a second load."""
        from agent_core.providers.local import preload

        shown = False  # whether this preparation reported progress (then it ends saying "ready")
        for progress in preload.wait_for_other():
            shown = True
            yield progress
        # One provider may serve many runs (an eval): what this preparation did, afresh each time.
        self.loaded_now, self.warm_ms, self.prompt_cache, self.prompt_ms = False, None, None, None
        source = self._source = self._model_source()
        engine = loaded_engine(source.path, self.n_threads)
        if engine is not None:
            self._engine, self.load_ms, self.file_check = engine, engine.load_ms, self.file_check or "loaded"
            for progress in self._ready_prompt(engine):
                shown = True
                yield progress
            if shown:  # else the run view's last word was the wait's ("Warming up the model …")
                yield LoadProgress("load", 2, 2, "ready")
            return
        started = time.perf_counter()
        stages: set[str] = set()
        hashed_bytes = 0.0
        preparing = ensure_model_file(source)
        try:
            while True:
                try:
                    progress = next(preparing)
                except StopIteration as done:
                    path: Path = done.value
                    break
                stages.add(progress.stage)
                if progress.stage == "verify":
                    hashed_bytes = max(hashed_bytes, progress.total)
                yield progress
        except ModelFileError as exc:
            raise ProviderError(str(exc), provider=PROVIDER_ID, error_type="ModelFileError") from exc
        finally:
            preparing.close()  # a page closed mid-join: release the file lock now, not at GC
        self.file_ms = round((time.perf_counter() - started) * 1000, 1)
        if source.custom:
            self.file_check = "unchecked"
        elif "join" in stages:
            self.file_check = "joined"
        else:
            self.file_check = "hashed" if hashed_bytes > 1 else "marker"
        yield LoadProgress("load", 0, 2, f"loading {path.name} into memory")
        engine, self.loaded_now = load_engine(path, n_threads=self.n_threads, n_ctx=self.n_ctx, slot_dir=self.slot_dir)
        self._engine, self.load_ms = engine, engine.load_ms
        if not self.loaded_now:
            yield LoadProgress("load", 1, 2, "model already loaded")
        yield from self._ready_prompt(engine)
        yield LoadProgress("load", 2, 2, "ready")

    def use_run(self, instructions: str, tools: list[Tool]) -> None:
        """The system prompt and tools of the run about to start (the loop says so before
        :meth:`prepare`): the warm-up caches exactly what that run's first request sends."""
        self.run_prompt = (instructions, list(tools))

    def _prompt_cache_key(self, engine: Engine) -> tuple[str, list[dict[str, str]]] | None:
        """The disk cache key of the run's warm-up and its messages; None without a run prompt."""
        if self.run_prompt is None:
            return None
        instructions, tools = self.run_prompt
        messages = build_messages(instructions, WARM_UP_GOAL, [], offered_tools(WARM_UP_GOAL, tools))
        source = self._source
        try:
            if source is not None and source.sha256 and not source.custom:
                model_sha = source.sha256
            else:
                model_sha = remembered_sha256(engine.path, engine.slot_dir or engine.path.parent)
        except OSError as exc:
            log.warning("the model file cannot be hashed for the prompt cache (%s)", exc)
            return None
        schemas = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]
        key = cache_key(
            model_sha256=model_sha,
            messages=messages,
            tool_schemas=schemas,
            n_ctx=engine.n_ctx,
            n_batch=N_BATCH,
            runtime_version=runtime_version(),
        )
        return key, messages

    def _ready_prompt(self, engine: Engine) -> Iterator[LoadProgress]:
        """Put the run's system prompt and tool list (:meth:`use_run`) into the model's slot:
        nothing to do when the slot already holds it, else restore it from the disk cache, else
        compute it once (the warm-up) and save it there for the next process."""
        keyed = self._prompt_cache_key(engine)
        if keyed is None:
            return
        key, messages = keyed
        self._prompt_key = key
        if engine.prompt_key == key:
            self.prompt_cache = "in memory"
            self._ready_grammar(engine, messages)
            return
        started = time.perf_counter()
        cache = PromptCache(engine.slot_dir) if engine.slot_dir is not None else None
        cached = cache.find(key) if cache is not None else None
        if cache is not None and cached is not None:
            yield LoadProgress("load", 1, 2, f"restoring the saved prompt ({cached.n_tokens} tokens)")
            with engine.busy:
                try:
                    if engine.prompt_key != key:  # another run may have put it there while we waited
                        engine.slot("restore", cached.filename)
                    engine.prompt_key = key
                except OSError as exc:  # a file llama.cpp refuses: compute the prompt instead
                    log.warning("the saved prompt could not be restored (%s); computing it", exc)
            if engine.prompt_key == key:
                self.prompt_cache = "restored"
                self._ready_grammar(engine, messages)
                self.prompt_ms = round((time.perf_counter() - started) * 1000, 1)
                return
        yield LoadProgress(
            "load", 1, 2, f"Warming up the model (first run only, about {WARM_UP_S} s): it reads the tool list once"
        )
        with engine.busy:
            if engine.prompt_key == key:  # another run warmed it up while we waited for the model
                self.prompt_cache = "in memory"
                return
            self.warm_ms = self._warm_up(engine, messages)
            if self.warm_ms is None:
                return
            engine.prompt_key = key
            self.prompt_cache = "computed"
            if cache is not None:
                self.prompt_cache = "built" if self._save_prompt(engine, cache, key) else "computed"
        self.prompt_ms = round((time.perf_counter() - started) * 1000, 1)

    def _save_prompt(self, engine: Engine, cache: PromptCache, key: str) -> bool:
        """Save the slot to the disk cache under ``key`` (the caller holds ``engine.busy``)."""
        try:
            temp = cache.temp_name(key)
            reply = engine.slot("save", temp)
            tokens = int(reply.get("n_saved") or 0)
            if tokens <= 0:
                raise OSError(f"llama.cpp saved no tokens ({reply})")
            cache.publish(key, temp, tokens)
        except (OSError, ValueError) as exc:  # the cache is an optimisation: log and go on
            log.warning("the prompt could not be saved to the cache in %s (%s)", cache.directory, exc)
            return False
        return True

    def _ready_grammar(self, engine: Engine, messages: list[dict[str, str]]) -> None:
        """With :attr:`tables_early`: have llguidance build its tables now, once per process
        (:data:`WARM_GRAMMAR`): one token after the prompt the slot already holds, so the slot
        keeps it. Skipped while another run holds the model: this run then pays it in its first
        call that needs them, and waits for the model where a Stop is seen (:func:`~agent_core.providers.local.engine.acquire`)."""
        if not self.tables_early or engine.grammar_ready or not engine.busy.acquire(blocking=False):
            return
        try:
            if not engine.grammar_ready:
                self._warm_up(engine, messages)
        finally:
            engine.busy.release()

    def _warm_up(self, engine: Engine, messages: list[dict[str, str]]) -> float | None:
        """Run the run's system prompt and tool list (:meth:`use_run`) through the model once, so
        llama.cpp's prompt cache holds it.

        The first request otherwise pays for ~500 prompt tokens (about 15 s on 2 cores) inside
        the first step; here it happens while the progress bar shows loading, and every run with
        the same tools starts from the cache. The caller holds ``engine.busy``. Returns the time
        taken (ms), None if it failed.
        """
        body: dict[str, Any] = {
            "messages": messages,
            "max_tokens": 1,
            "temperature": self.temperature,
            "cache_prompt": True,
        }
        if self.tables_early:
            body["grammar"] = WARM_GRAMMAR
        started = time.perf_counter()
        try:
            engine.server.handle_chat_completions(body)
        except Exception:  # the warm-up is an optimisation; a real request will say what fails
            log.warning("local model warm-up failed", exc_info=True)
            return None
        if self.tables_early:
            engine.grammar_ready = True
        return round((time.perf_counter() - started) * 1000, 1)
