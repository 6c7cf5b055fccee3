"""One model call with the engine's retry policy, cut short by a Stop (used by the loop)."""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Generator

from agent_core.errors import ProviderError, RunCancelled
from agent_core.masking import mask_text, masked_traceback
from agent_core.providers.base import ModelRequest, ModelResponse, Provider
from agent_core.records.run_record import ModelAttempt
from agent_core.run import workers
from agent_core.run.events import ModelCallRetrying, RunEvent
from agent_core.run.retry import Failure, GaveUp, RetryWait, relabel, with_retries
from agent_core.settings import Settings

log = logging.getLogger("agent_core.run.loop")


def _complete(provider: Provider, request: ModelRequest, cancel: threading.Event) -> ModelResponse:
    """``provider.complete(request)`` in a worker thread, so a Stop does not wait for the answer:
    the run ends at once and the call, left to its thread, is dropped when it returns (a remote
    API's request runs to its timeout at most; the local model stops at its next token).
    An ``instant`` provider is called here: the hand-off would cost more than its answer.
    (SystemExit & co. from a provider come back as :class:`workers.CallAborted`, an engine error.)"""
    if provider.instant:
        return provider.complete(request)
    pending = workers.start(lambda: provider.complete(request))
    try:
        pending.wait(cancel=cancel)
    except RunCancelled:
        log.info("model call of step %s left running: the run was stopped", request.step)
        raise
    return pending.result()


def _model_call(provider: Provider, request: ModelRequest, cancel: threading.Event) -> ModelResponse:
    """:func:`_complete`, with any failure as a :class:`ProviderError` (a provider bug or an SDK
    surprise becomes a non-transient one, so it is not retried)."""
    try:
        return _complete(provider, request, cancel)
    except RunCancelled:
        raise
    except ProviderError:
        # A provider that stops on the Stop itself (the local model, between batches) may end its
        # call before the wait above sees the Stop: that call ended because of the Stop, so the
        # run is stopped, not failed (it was recorded as an error with the type "Cancelled").
        if cancel.is_set():
            raise RunCancelled() from None
        raise
    except Exception as exc:
        log.error("provider %s raised\n%s", provider.id, masked_traceback(exc))
        raise ProviderError(
            f"{provider.id} failed: {type(exc).__name__}: {exc}", provider=provider.id, error_type=type(exc).__name__
        ) from exc


def _model_attempt_ok(attempt: int, duration_ms: float) -> ModelAttempt:
    return {"attempt": attempt, "success": True, "duration_ms": duration_ms}


def _model_attempt_failed(exc: Exception, attempt: int, duration_ms: float) -> Failure[ModelAttempt]:
    error = exc if isinstance(exc, ProviderError) else ProviderError(str(exc))
    entry: ModelAttempt = {
        "attempt": attempt,
        "success": False,
        "error_type": error.error_type,
        "status": error.status,
        "message": mask_text(error.message),
        "transient": error.transient,
        "duration_ms": duration_ms,
        "wait_s": 0.0,
    }
    return Failure(entry, transient=error.transient, retry_after=error.retry_after)


def call_model(
    provider: Provider,
    request: ModelRequest,
    attempts: list[ModelAttempt],
    *,
    run_id: str,
    settings: Settings,
    cancel: threading.Event,
    rng: random.Random | None,
) -> Generator[RunEvent, None, ModelResponse]:
    """Call the model with the engine's retry policy (:func:`agent_core.run.retry.with_retries`; each
    attempt goes into ``attempts``, each wait before a retry is a :class:`ModelCallRetrying`
    event); raise :class:`ProviderError` when it fails for good."""

    def wait(seconds: float) -> None:
        if cancel.wait(seconds):
            raise RunCancelled()

    retries = with_retries(
        lambda: _model_call(provider, request, cancel),
        attempts=attempts,
        succeeded=_model_attempt_ok,
        failed=_model_attempt_failed,
        delays=settings.retry_delays,
        cap=settings.retry_max_delay,
        wait=wait,
        rng=rng,
    )

    def shown(retry: RetryWait[ModelAttempt]) -> ModelCallRetrying:
        entry = retry.entry
        return ModelCallRetrying(
            run_id=run_id,
            step=request.step,
            attempt=retry.attempt,
            error_type=entry.get("error_type", ""),
            message=entry.get("message", ""),
            status=entry.get("status"),
            wait_s=retry.wait_s,
        )

    try:
        return (yield from relabel(retries, shown))
    except GaveUp as gave_up:
        error = gave_up.error
        assert isinstance(error, ProviderError)
        if error.transient and settings.retry_delays:
            error.message = f"{error.message} (gave up after {gave_up.attempts} attempts)"
        raise error from None
