"""Tool dispatch: validate, refuse duplicates, run with a timeout, retry, fall back, truncate, mask.

Every call produces one log entry (the record's ``tool_calls`` item); nothing raises out of
:meth:`Dispatcher.dispatch`, so one bad call never ends a run.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from agent_core.context import ToolCallRequest, call_signature
from agent_core.errors import (
    ERROR_PREFIX,
    ErrorCategory,
    RunCancelled,
    ToolTimeout,
    ToolValidationError,
    TransientToolError,
)
from agent_core.masking import is_secret_key, mask, mask_text, masked_traceback, register_secret
from agent_core.records.run_record import ErrorCategoryName, ToolAttempt, ToolCall
from agent_core.run import workers
from agent_core.run.retry import Failure, GaveUp, RetryWait, run_through, with_retries
from agent_core.settings import Settings
from agent_core.tools.registry import Tool, ToolRegistry

log = logging.getLogger("agent_core.run.dispatcher")

TRUNCATED_MARKER = "\n[TRUNCATED]"
MAX_TOOL_NAME_CHARS = 64
MAX_ERROR_CHARS = 1000
"""Longest exception message kept in a log entry (a tool may raise with megabytes of text)."""
MIN_SECRET_CHARS = 8
"""Shorter values under secret-named keys are not registered (masking "1234" everywhere would hurt)."""
TRANSIENT_EXCEPTIONS: tuple[type[BaseException], ...] = (
    TransientToolError,
    TimeoutError,
    ConnectionError,
)


class CallStopped(RunCancelled):
    """The run was stopped while a tool call ran; ``entry`` is that call's log entry so far
    (``cancelled: true``, its attempts until then)."""

    def __init__(self, entry: ToolCall) -> None:
        super().__init__("the run was stopped during a tool call")
        self.entry = entry


def classify(exc: BaseException) -> ErrorCategory:
    """Transient failures are worth a retry; everything else is reported at once."""
    if isinstance(exc, ToolTimeout):
        return ErrorCategory.TIMEOUT
    if isinstance(exc, TRANSIENT_EXCEPTIONS):
        return ErrorCategory.TRANSIENT
    return ErrorCategory.NON_TRANSIENT


def output_to_text(value: Any) -> str:
    """A tool's return value as the text the model sees."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return f"<{len(data)} bytes of binary output, not shown>"
    if value is None:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def register_argument_secrets(value: Any) -> None:
    """A value the model passes under a secret-named key (``api_key``, ``token`` …) is a secret
    wherever it shows up again: in the tool's output, its error message or a log line."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and is_secret_key(key) and isinstance(item, str):
                if len(item.strip()) >= MIN_SECRET_CHARS:
                    register_secret(item.strip())
            else:
                register_argument_secrets(item)
    elif isinstance(value, list):
        for item in value:
            register_argument_secrets(item)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to ``limit`` characters plus the ``[TRUNCATED]`` marker."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + TRUNCATED_MARKER, True


def call_with_timeout(
    func: Callable[..., Any], kwargs: dict[str, Any], timeout: float, cancel: threading.Event | None = None
) -> Any:
    """Run ``func(**kwargs)`` in a worker thread; raise :class:`ToolTimeout` after ``timeout`` s,
    or :class:`RunCancelled` as soon as ``cancel`` is set.

    A thread cannot be killed, so a hung tool keeps its thread until it returns; the run goes on.
    """
    pending = workers.start(lambda: func(**kwargs))
    if not pending.wait(timeout, cancel):
        raise ToolTimeout(f"timed out after {timeout:g} s")
    try:
        return pending.result()
    except workers.CallAborted as exc:  # SystemExit & co. from the tool: its failure, not the run's end
        raise RuntimeError(f"the tool raised {_describe(exc.original)}") from None


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc).strip()
    except Exception:  # an exception whose message itself fails
        text = ""
    if len(text) > MAX_ERROR_CHARS:  # errors are bounded like outputs (they are kept per attempt)
        text = text[:MAX_ERROR_CHARS] + "…"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _category(category: ErrorCategory) -> ErrorCategoryName:
    """The record's name of an error category."""
    return _CATEGORY_NAMES[category]


_CATEGORY_NAMES: dict[ErrorCategory, ErrorCategoryName] = {
    ErrorCategory.VALIDATION: "validation",
    ErrorCategory.TRANSIENT: "transient",
    ErrorCategory.NON_TRANSIENT: "non_transient",
    ErrorCategory.TIMEOUT: "timeout",
    ErrorCategory.DUPLICATE: "duplicate",
}


def _attempt_ok(attempt: int, duration_ms: float) -> ToolAttempt:
    return {
        "attempt": attempt,
        "success": True,
        "error": None,
        "error_category": None,
        "duration_ms": duration_ms,
        "wait_s": 0.0,
    }


def _attempt_failed(exc: Exception, attempt: int, duration_ms: float) -> Failure[ToolAttempt]:
    category = classify(exc)
    entry: ToolAttempt = {
        "attempt": attempt,
        "success": False,
        "error": mask_text(_describe(exc)),
        "error_category": _category(category),
        "duration_ms": duration_ms,
        "wait_s": 0.0,
    }
    return Failure(entry, transient=category is ErrorCategory.TRANSIENT)


class Dispatcher:
    """Runs the model's tool calls for one run (it remembers calls, to refuse duplicates)."""

    def __init__(
        self,
        registry: ToolRegistry,
        settings: Settings,
        *,
        sleep: Callable[[float], Any] = time.sleep,
        rng: random.Random | None = None,
        cancel: threading.Event | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self._sleep = sleep
        self._cancel = cancel
        """Set when the run is stopped: a running call or retry wait ends at once with
        :class:`RunCancelled` (the one exception :meth:`dispatch` lets through)."""
        self._rng = rng or random.Random()
        self._seen: set[str] = set()

    def dispatch(self, call: ToolCallRequest, *, step: int = 0) -> ToolCall:
        """Run one call and return its log entry; the ``output`` field is what the model gets."""
        return self._entry(call, step, self._dispatch)

    def refuse(
        self,
        call: ToolCallRequest,
        *,
        step: int,
        message: str,
        category: ErrorCategory | None = ErrorCategory.VALIDATION,
    ) -> ToolCall:
        """A log entry for a call that is not run at all (over the per-turn limit; rejected by a
        person, with no error ``category``: not the tool's failure)."""

        def body(c: ToolCallRequest, entry: ToolCall) -> str:
            if category is None:
                self._describe_call(c, entry)
                entry["error"] = message
                return ERROR_PREFIX + message
            return self._refuse(entry, category, message)

        return self._entry(call, step, body)

    def precheck(self, call: ToolCallRequest) -> tuple[Tool, dict[str, Any]] | None:
        """The tool and its parsed arguments when the call would pass validation and is no
        duplicate (so it is worth asking a person about); None when it will be refused anyway.
        Changes nothing."""
        raw = call.arguments
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            args: Any = {}
        else:
            try:
                args = json.loads(raw) if isinstance(raw, str) else raw
            except json.JSONDecodeError:
                return None
        tool = self.registry.get(call.name)
        if tool is None or not isinstance(args, dict):
            return None
        try:
            tool.validate(args)
        except ToolValidationError:
            return None
        if call_signature(tool.name, args) in self._seen:
            return None
        return tool, args

    def _describe_call(self, call: ToolCallRequest, entry: ToolCall) -> None:
        """The arguments and where the tool comes from, for a call that is refused unrun."""
        raw = call.arguments
        try:
            args = json.loads(raw) if isinstance(raw, str) and raw.strip() else raw
        except json.JSONDecodeError:
            args = raw
        entry["arguments"] = mask(args) if isinstance(args, dict) else mask(output_to_text(args)[:2000])
        tool = self.registry.get(call.name)
        if tool is not None:
            entry["tool_source"] = tool.source
            if tool.server:
                entry["server"] = tool.server
            if tool.annotations:
                entry["annotations"] = mask(tool.annotations)

    def _entry(self, call: ToolCallRequest, step: int, body: Callable[[ToolCallRequest, ToolCall], str]) -> ToolCall:
        started_at = datetime.now(timezone.utc).isoformat()
        t0 = time.perf_counter()
        entry: ToolCall = {
            "call_id": str(call.call_id)[:200],
            "step": step,
            "tool": call.name[:MAX_TOOL_NAME_CHARS] + ("…" if len(call.name) > MAX_TOOL_NAME_CHARS else ""),
            "arguments": None,
            "success": False,
            "output": "",
            "error": None,
            "error_category": None,
            "attempts": [],
            "fallback": None,
            "duplicate": False,
            "truncated": False,
            "duration_ms": 0.0,
            "started_at": started_at,
            "origin": "harness" if call.origin == "harness" else "model",
        }
        if call.origin == "harness":
            entry["harness_rule"] = mask_text(str(call.harness_rule or "not named"))[:300]
        try:
            text = body(call, entry)
        except RunCancelled:  # the run was stopped while this call ran: keep what it did so far
            entry["success"] = False
            entry["cancelled"] = True
            entry["output"] = ERROR_PREFIX + "the run was stopped before this call finished."
            entry["error"] = "stopped by the user before the call finished"
            entry["duration_ms"] = round((time.perf_counter() - t0) * 1000, 3)
            raise CallStopped(entry) from None
        except Exception as exc:  # a bug here must not end the run
            log.error("dispatcher failed on %s\n%s", entry["tool"], masked_traceback(exc))
            entry["success"] = False
            entry["error"] = _describe(exc)
            entry["error_category"] = "non_transient"
            text = ERROR_PREFIX + _describe(exc)
        text, entry["truncated"] = truncate(mask_text(text), self.settings.max_tool_output_chars)
        entry["output"] = text
        if entry["error"] is not None:
            entry["error"] = mask_text(entry["error"])
        entry["duration_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        log.info("tool %s %s in %.1f ms", entry["tool"], "ok" if entry["success"] else "failed", entry["duration_ms"])
        return entry

    def _refuse(self, entry: ToolCall, category: ErrorCategory, message: str) -> str:
        entry["error"] = message
        entry["error_category"] = _category(category)
        return ERROR_PREFIX + message

    def _dispatch(self, call: ToolCallRequest, entry: ToolCall) -> str:
        raw_args = call.arguments
        # 1. Validation: tool, JSON, object, schema.
        if isinstance(raw_args, str):
            try:
                args: Any = json.loads(raw_args) if raw_args.strip() else {}
            except json.JSONDecodeError as exc:
                entry["arguments"] = mask_text(raw_args[:2000])
                return self._refuse(
                    entry,
                    ErrorCategory.VALIDATION,
                    f"Tool arguments were not valid JSON ({exc.msg} at position {exc.pos}). "
                    "Send the arguments as a JSON object.",
                )
        else:
            args = raw_args if raw_args is not None else {}
        register_argument_secrets(args)
        entry["arguments"] = mask(args) if isinstance(args, dict) else mask(output_to_text(args)[:2000])
        tool = self.registry.get(call.name)
        if tool is None:
            available = ", ".join(self.registry.names()) or "(none)"
            return self._refuse(
                entry,
                ErrorCategory.VALIDATION,
                f"Unknown tool '{entry['tool']}'. Available tools: {available}.",
            )
        entry["tool_source"] = tool.source
        if tool.server:
            entry["server"] = tool.server
        if tool.annotations:
            entry["annotations"] = mask(tool.annotations)
        if not isinstance(args, dict):
            return self._refuse(
                entry,
                ErrorCategory.VALIDATION,
                f"Tool arguments must be a JSON object, got {type(args).__name__}.",
            )
        try:
            kwargs = tool.validate(args)
        except ToolValidationError as exc:
            return self._refuse(entry, ErrorCategory.VALIDATION, str(exc))
        # 2. Duplicate detection on the canonical arguments.
        signature = call_signature(tool.name, args)
        if signature in self._seen:
            entry["duplicate"] = True
            return self._refuse(
                entry,
                ErrorCategory.DUPLICATE,
                f"Duplicate tool call: {tool.name} was already called with these arguments in this "
                "run. Use the earlier result or try another approach.",
            )
        self._seen.add(signature)
        # 3. Run with retries, then the fallback.
        ok, value, failed_as, error = self._run_with_retries(tool, kwargs, entry["attempts"])
        if ok or failed_as is None:
            entry["success"] = True
            return output_to_text(value)
        category = failed_as
        fallback = self.registry.get(tool.fallback) if tool.fallback else None
        if fallback is not None:
            fb_attempts: list[ToolAttempt] = []
            fb_error: str | None
            try:
                fb_kwargs = fallback.validate(args)
            except ToolValidationError as exc:
                fb_ok, fb_value, fb_error = False, None, str(exc)
            else:
                fb_ok, fb_value, _, fb_error = self._run_with_retries(fallback, fb_kwargs, fb_attempts, retries=False)
            entry["fallback"] = {
                "tool": fallback.name,
                "success": fb_ok,
                "error": mask_text(fb_error) if fb_error else None,
                "reason": mask_text(error or ""),
                "reason_category": _category(category),
                "attempts": fb_attempts,
            }
            if fb_ok:
                entry["success"] = True
                return f"[fallback: {tool.name} failed, result from {fallback.name}]\n" + output_to_text(fb_value)
            error = f"{error}; fallback {fallback.name} failed too: {fb_error}"
        entry["error"] = error
        entry["error_category"] = _category(category)
        return f"{ERROR_PREFIX}{tool.name} failed: {error}"

    def _run_with_retries(
        self,
        tool: Tool,
        kwargs: dict[str, Any],
        attempts: list[ToolAttempt],
        *,
        retries: bool = True,
    ) -> tuple[bool, Any, ErrorCategory | None, str | None]:
        """(ok, value, error category, error text); the category and the text are None when it worked."""
        timeout = tool.timeout or self.settings.tool_timeout

        def on_wait(retry: RetryWait[ToolAttempt]) -> None:
            log.warning(
                "tool %s transient error (%s); retry in %.2f s", tool.name, retry.entry.get("error"), retry.wait_s
            )

        try:
            value = run_through(
                with_retries(
                    lambda: call_with_timeout(tool.func, kwargs, timeout, self._cancel),
                    attempts=attempts,
                    succeeded=_attempt_ok,
                    failed=_attempt_failed,
                    delays=self.settings.retry_delays if retries else (),
                    cap=self.settings.retry_max_delay,
                    wait=self._wait,
                    rng=self._rng,
                ),
                on_wait,
            )
        except GaveUp as gave_up:
            return False, None, classify(gave_up.error), _describe(gave_up.error)
        return True, value, None, None

    def _wait(self, seconds: float) -> None:
        self._sleep(seconds)
        if self._cancel is not None and self._cancel.is_set():
            raise RunCancelled()

    def call_direct(self, name: str, arguments: dict[str, Any]) -> ToolCall:
        """Run one tool outside a run (the Tools page form); same validation and log entry."""
        return self.dispatch(
            ToolCallRequest(
                call_id=f"direct_{int(time.time() * 1000)}",
                name=name,
                arguments=arguments,
                origin="harness",
                harness_rule="called directly by a person (Tools page)",
            )
        )
