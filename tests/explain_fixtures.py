"""Real run records for the explain / export tests: each made by the engine on a scripted model.

One fixture per status × error category. Tools are small and deterministic; the failures are
the dispatcher's and the loop's own (validation, transient retries, fallback, timeout, duplicate,
a tool that fails for good, provider errors, the step limit, a Stop).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_core.errors import ProviderError, TransientToolError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import save_record
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry


def call(name: str, arguments: Any) -> dict[str, Any]:
    return {"text": "", "tool_calls": [{"name": name, "arguments": arguments}]}


def answer(text: str) -> dict[str, Any]:
    return {"text": text}


class Tools:
    """A registry of test tools whose failures are planned per fixture."""

    def __init__(self, *, flaky_failures: int = 0, cancel: threading.Event | None = None) -> None:
        self.flaky_left = flaky_failures
        self.cancel = cancel
        reg = ToolRegistry()
        tools = self

        @reg.tool
        def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        @reg.tool(fallback="cached_search")
        def web_search(query: str) -> str:
            """Search the web (fails while the plan says so)."""
            if tools.flaky_left > 0:
                tools.flaky_left -= 1
                raise TransientToolError("backend 503")
            return f"results for {query}"

        @reg.tool
        def cached_search(query: str) -> str:
            """Search a cache."""
            return f"cached results for {query}"

        @reg.tool
        def slow_lookup(topic: str) -> str:
            """Look a topic up (hangs)."""
            time.sleep(1.0)
            return topic

        @reg.tool
        def read_note(name: str) -> str:
            """Read a note (there are none)."""
            raise FileNotFoundError(f"no note called {name}")

        @reg.tool
        def press_stop(reason: str) -> str:
            """Stands for a person pressing Stop while the run works."""
            if tools.cancel is not None:
                tools.cancel.set()
            return "ok"

        self.registry = reg


@dataclass
class Case:
    """One fixture: what it is, its expected status, category and main failure cause."""

    name: str
    status: str
    category: str | None
    cause: str | None
    tool: str | None
    build: Callable[[Settings], dict[str, Any]]


def _run(
    settings: Settings,
    turns: list[Any],
    *,
    tools: Tools | None = None,
    max_steps: int = 6,
    cancel: threading.Event | None = None,
    goal: str = "Add 2 and 3, then tell me.",
) -> dict[str, Any]:
    tools = tools or Tools()
    provider = ScriptedProvider(turns)
    return run_to_end(
        goal, provider=provider, registry=tools.registry, settings=settings.replace(max_steps=max_steps), cancel=cancel
    )


def _completed_plain(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": 2, "b": 3}), answer("2 + 3 = 5.")])


def _completed_validation(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": "two", "b": 3}), call("add", {"a": 2, "b": 3}), answer("It is 5.")])


def _completed_retry(s: Settings) -> dict[str, Any]:
    return _run(s, [call("web_search", {"query": "cats"}), answer("Found cats.")], tools=Tools(flaky_failures=1))


def _completed_fallback(s: Settings) -> dict[str, Any]:
    return _run(s, [call("web_search", {"query": "cats"}), answer("Found cats.")], tools=Tools(flaky_failures=9))


def _completed_duplicate(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": 2, "b": 3}), call("add", {"a": 2, "b": 3}), answer("It is 5.")])


def _completed_timeout(s: Settings) -> dict[str, Any]:
    return _run(
        s.replace(tool_timeout=0.2), [call("slow_lookup", {"topic": "cats"}), answer("I could not look it up.")]
    )


def _completed_non_transient(s: Settings) -> dict[str, Any]:
    return _run(s, [call("read_note", {"name": "plan"}), answer("There is no such note.")])


def _max_steps_duplicate(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": 2, "b": 3})] * 3, max_steps=3)


def _max_steps_validation(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": 2}), call("add", {"a": 2, "c": 1}), call("add", "{bad json")], max_steps=3)


def _max_steps_plain(s: Settings) -> dict[str, Any]:
    return _run(s, [call("add", {"a": i, "b": 1}) for i in range(3)], max_steps=3)


def _error_auth(s: Settings) -> dict[str, Any]:
    turns = [
        call("web_search", {"query": "cats"}),
        ProviderError("Incorrect API key provided", status=401, error_type="AuthenticationError"),
    ]
    return _run(s, turns, tools=Tools(flaky_failures=1))


def _error_busy(s: Settings) -> dict[str, Any]:
    busy = ProviderError("Overloaded", status=529, transient=True, error_type="OverloadedError")
    return _run(s.replace(retry_delays=(0.0,)), [call("read_note", {"name": "plan"}), busy, busy])


def _error_timeout(s: Settings) -> dict[str, Any]:
    turns = [
        call("slow_lookup", {"topic": "cats"}),
        ProviderError("Bad request", status=400, error_type="BadRequestError"),
    ]
    return _run(s.replace(tool_timeout=0.2), turns)


def _cancelled(s: Settings) -> dict[str, Any]:
    cancel = threading.Event()
    tools = Tools(cancel=cancel)
    return _run(s, [call("press_stop", {"reason": "demo"}), answer("never")], tools=tools, cancel=cancel)


def _cancelled_transient(s: Settings) -> dict[str, Any]:
    cancel = threading.Event()
    tools = Tools(cancel=cancel, flaky_failures=9)
    turns = [
        call("add", {"a": 1, "b": 1}),
        call("cached_search", {"query": "x"}),
        {
            "text": "",
            "tool_calls": [
                {"name": "read_note", "arguments": {"name": "x"}},
                {"name": "press_stop", "arguments": {"reason": "r"}},
            ],
        },
        answer("never"),
    ]
    return _run(s, turns, tools=tools, cancel=cancel)


def _interrupted(s: Settings) -> dict[str, Any]:
    """A record left ``running`` by a process that is gone (made from a real run)."""
    record = _run(s, [call("web_search", {"query": "cats"}), answer("x")], tools=Tools(flaky_failures=9))
    record.update(
        status="running",
        finished_at=None,
        answer=None,
        owner={"pid": 2**22 + 12345, "host": __import__("os").uname().nodename},
    )
    save_record(record, s.runs_dir)
    return record


def _completed_ungrounded(s: Settings) -> dict[str, Any]:
    record = _run(s, [call("add", {"a": 2, "b": 3}), answer("It is 7.")])
    record["grounding"] = {
        "status": "ungrounded",
        "tools_used": ["add"],
        "claims": [{"text": "7", "value": 7, "kind": "number", "source": None}],
    }
    save_record(record, s.runs_dir)
    return record


def _cancelled_ungrounded(s: Settings) -> dict[str, Any]:
    record = _cancelled(s)
    record["grounding"] = {
        "status": "partly",
        "tools_used": [],
        "claims": [{"text": "9", "value": 9, "kind": "number", "source": None}],
    }
    save_record(record, s.runs_dir)
    return record


CASES = [
    Case("completed", "completed", None, None, None, _completed_plain),
    Case("completed-validation", "completed", "validation", None, "add", _completed_validation),
    Case("completed-transient-retry", "completed", "transient", None, "web_search", _completed_retry),
    Case("completed-transient-fallback", "completed", "transient", None, "web_search", _completed_fallback),
    Case("completed-duplicate", "completed", "duplicate", None, "add", _completed_duplicate),
    Case("completed-timeout", "completed", "timeout", None, "slow_lookup", _completed_timeout),
    Case("completed-non-transient", "completed", "non_transient", None, "read_note", _completed_non_transient),
    Case("completed-ungrounded", "completed", None, None, None, _completed_ungrounded),
    Case("max_steps-duplicate", "max_steps", "duplicate", "step_limit", "add", _max_steps_duplicate),
    Case("max_steps-validation", "max_steps", "validation", "tool_failed", "add", _max_steps_validation),
    Case("max_steps-plain", "max_steps", None, "step_limit", None, _max_steps_plain),
    Case("error-auth-after-retry", "error", "transient", "provider", "web_search", _error_auth),
    Case("error-busy-non-transient", "error", "non_transient", "provider", "read_note", _error_busy),
    Case("error-timeout", "error", "timeout", "provider", "slow_lookup", _error_timeout),
    Case("cancelled", "cancelled", None, "cancelled", None, _cancelled),
    Case("cancelled-non-transient", "cancelled", "non_transient", "tool_failed", "read_note", _cancelled_transient),
    Case("cancelled-ungrounded", "cancelled", None, "ungrounded", None, _cancelled_ungrounded),
    Case("interrupted-fallback", "interrupted", "transient", "interrupted", "web_search", _interrupted),
]


def build_all(settings: Settings) -> dict[str, dict[str, Any]]:
    """Every fixture's record, by case name."""
    return {case.name: case.build(settings) for case in CASES}


def dump(records: dict[str, dict[str, Any]], folder: Path) -> None:
    """Write the records as plain JSON files (for looking at them)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, record in records.items():
        (folder / f"{name}.json").write_text(json.dumps(record, ensure_ascii=False, indent=1))
