"""Dispatcher: every validation error, error categories, retries with jitter, fallback,
timeouts, truncation, duplicates and masking."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

from agent_core.context import ToolCallRequest, call_signature
from agent_core.errors import TransientToolError
from agent_core.run.dispatcher import Dispatcher, output_to_text, truncate
from agent_core.run.retry import backoff_delay
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry


def make_registry(calls: dict[str, int]) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        calls["add"] = calls.get("add", 0) + 1
        return a + b

    @registry.tool(fallback="cached")
    def flaky(query: str) -> str:
        """Fails transiently until calls['flaky_ok'] is reached."""
        calls["flaky"] = calls.get("flaky", 0) + 1
        if calls["flaky"] < calls.get("flaky_ok", 10**9):
            raise TransientToolError("backend busy")
        return f"live:{query}"

    @registry.tool
    def cached(query: str) -> str:
        """Cached results."""
        calls["cached"] = calls.get("cached", 0) + 1
        return f"cached:{query}"

    @registry.tool
    def broken(x: str) -> str:
        """Always raises a non-transient error."""
        calls["broken"] = calls.get("broken", 0) + 1
        raise ValueError(f"no data for {x}")

    @registry.tool(timeout=0.2)
    def hang(x: str) -> str:
        """Sleeps longer than its timeout."""
        time.sleep(3)
        return x

    @registry.tool
    def big(n: int) -> str:
        """Returns n characters."""
        return "x" * n

    @registry.tool
    def secret(api_key: str, text: str) -> dict:
        """Echoes its arguments."""
        return {"api_key": api_key, "text": text}

    @registry.tool
    def binary() -> bytes:
        """Returns bytes that are not UTF-8."""
        return b"\xff\xfe\x00\x01"

    return registry


@pytest.fixture
def calls() -> dict[str, int]:
    return {}


@pytest.fixture
def dispatcher(calls: dict[str, int], tmp_path) -> Dispatcher:
    waits: list[float] = []
    settings = Settings(data_dir=tmp_path, retry_delays=(1.0, 2.0, 4.0), max_tool_output_chars=200, tool_timeout=2.0)
    d = Dispatcher(make_registry(calls), settings, sleep=waits.append, rng=random.Random(7))
    d.waits = waits  # type: ignore[attr-defined]
    return d


def call(name: str, arguments: object, call_id: str = "c1") -> ToolCallRequest:
    return ToolCallRequest(call_id=call_id, name=name, arguments=arguments)


def test_success_entry_has_every_field(dispatcher: Dispatcher) -> None:
    entry = dispatcher.dispatch(call("add", '{"a": 2, "b": 3}'), step=4)
    assert entry["success"] is True and entry["output"] == "5" and entry["step"] == 4
    assert entry["arguments"] == {"a": 2, "b": 3}
    assert entry["error"] is None and entry["error_category"] is None
    assert [a["attempt"] for a in entry["attempts"]] == [1]
    assert entry["fallback"] is None and not entry["duplicate"] and not entry["truncated"]
    assert entry["duration_ms"] >= 0 and entry["started_at"].endswith("+00:00")


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        (
            "send_email",
            "{}",
            "Unknown tool 'send_email'. Available tools: add, flaky, cached, broken, hang, big, secret, binary.",
        ),
        ("add", '{"a": 1, "b": ', "Tool arguments were not valid JSON"),
        ("add", "[1, 2]", "Tool arguments must be a JSON object, got list."),
        ("add", '"text"', "Tool arguments must be a JSON object, got str."),
        ("add", '{"a": 1, "b": 2, "c": 3}', "unexpected argument(s): c"),
        ("add", '{"a": 1}', "missing argument(s): b"),
        ("add", '{"a": "one", "b": 2}', "wrong type: a"),
    ],
)
def test_validation_errors_go_back_to_the_model(
    dispatcher: Dispatcher, calls: dict[str, int], name: str, arguments: str, expected: str
) -> None:
    entry = dispatcher.dispatch(call(name, arguments))
    assert entry["success"] is False
    assert entry["error_category"] == "validation"
    assert entry["output"].startswith("ERROR: ")
    assert expected in entry["output"]
    assert calls.get("add", 0) == 0  # nothing ran
    assert entry["attempts"] == []


def test_anthropic_style_object_arguments_are_accepted(dispatcher: Dispatcher) -> None:
    assert dispatcher.dispatch(call("add", {"a": 1, "b": 1}))["output"] == "2"
    assert dispatcher.dispatch(call("add", None, "c2"))["error_category"] == "validation"


def test_duplicate_call_is_refused_regardless_of_key_order(dispatcher: Dispatcher, calls: dict[str, int]) -> None:
    first = dispatcher.dispatch(call("add", '{"a": 1, "b": 2}'))
    second = dispatcher.dispatch(call("add", '{"b": 2, "a": 1}', "c2"))
    third = dispatcher.dispatch(call("add", '{"a": 2, "b": 2}', "c3"))
    assert first["success"] and third["success"]
    assert second["duplicate"] is True and second["error_category"] == "duplicate"
    assert "another approach" in second["output"]
    assert calls["add"] == 2
    assert call_signature("t", {"b": 1, "a": 2}) == call_signature("t", {"a": 2, "b": 1})


def test_transient_failure_retried_with_full_jitter_then_succeeds(
    dispatcher: Dispatcher, calls: dict[str, int]
) -> None:
    calls["flaky_ok"] = 3
    entry = dispatcher.dispatch(call("flaky", '{"query": "python"}'))
    assert entry["success"] and entry["output"] == "live:python"
    assert [a["success"] for a in entry["attempts"]] == [False, False, True]
    assert entry["attempts"][0]["error_category"] == "transient"
    waits = dispatcher.waits  # type: ignore[attr-defined]
    assert len(waits) == 2 and 0 <= waits[0] <= 1.0 and 0 <= waits[1] <= 2.0
    assert [a["wait_s"] for a in entry["attempts"][:2]] == [round(w, 3) for w in waits]
    assert entry["fallback"] is None


def test_fallback_after_retries_exhausted(dispatcher: Dispatcher, calls: dict[str, int]) -> None:
    entry = dispatcher.dispatch(call("flaky", '{"query": "python"}'))
    assert calls["flaky"] == 4  # 1 + 3 retries
    assert entry["success"] is True
    assert entry["fallback"]["tool"] == "cached" and entry["fallback"]["success"] is True
    assert entry["fallback"]["reason_category"] == "transient"
    assert "cached:python" in entry["output"] and "fallback" in entry["output"]


def test_non_transient_error_is_not_retried(dispatcher: Dispatcher, calls: dict[str, int]) -> None:
    entry = dispatcher.dispatch(call("broken", '{"x": "atlantis"}'))
    assert calls["broken"] == 1
    assert entry["error_category"] == "non_transient"
    assert entry["output"] == "ERROR: broken failed: ValueError: no data for atlantis"


def test_hanging_tool_times_out_and_the_run_goes_on(dispatcher: Dispatcher) -> None:
    t0 = time.perf_counter()
    entry = dispatcher.dispatch(call("hang", '{"x": "y"}'))
    assert time.perf_counter() - t0 < 1.5
    assert entry["error_category"] == "timeout" and "timed out after 0.2 s" in entry["output"]
    assert len(entry["attempts"]) == 1  # a timeout is not retried


def test_output_truncated_with_marker(dispatcher: Dispatcher) -> None:
    entry = dispatcher.dispatch(call("big", '{"n": 500}'))
    assert entry["truncated"] is True
    assert entry["output"] == "x" * 200 + "\n[TRUNCATED]"
    assert truncate("abc", 3) == ("abc", False)


def test_secrets_are_masked_in_arguments_and_output(dispatcher: Dispatcher) -> None:
    entry = dispatcher.dispatch(
        call("secret", json.dumps({"api_key": "abc123456789", "text": "key sk-proj-ABCDEFGHIJKLMNOP"}))
    )
    assert entry["arguments"]["api_key"] == "****"
    assert "abc123456789" not in json.dumps(entry) and "ABCDEFGHIJKLMNOP" not in json.dumps(entry)


def test_binary_and_structured_outputs_become_text(dispatcher: Dispatcher) -> None:
    assert dispatcher.dispatch(call("binary", "{}"))["output"] == "<4 bytes of binary output, not shown>"
    assert output_to_text({"a": "한"}) == '{"a": "한"}'
    assert output_to_text(None) == ""
    assert output_to_text(b"ok") == "ok"


def test_backoff_delay_bounds() -> None:
    rng = random.Random(1)
    for attempt, base in enumerate((1.0, 2.0, 4.0)):
        assert 0 <= backoff_delay(attempt, (1.0, 2.0, 4.0), cap=3.0, rng=rng) <= min(base, 3.0)
    assert backoff_delay(10, (1.0, 2.0), cap=30, rng=rng) <= 2.0
    assert backoff_delay(0, (1.0,), cap=5, retry_after=12) == 5
    assert backoff_delay(0, (1.0,), cap=5, retry_after=0.5) == 0.5
    assert backoff_delay(0, (), cap=5) == 0.0


def test_dispatcher_is_safe_across_threads(calls: dict[str, int], tmp_path) -> None:
    d = Dispatcher(make_registry(calls), Settings(data_dir=tmp_path))
    results: list[dict] = []
    threads = [
        threading.Thread(target=lambda i=i: results.append(d.dispatch(call("add", {"a": i, "b": 0}, f"c{i}"))))
        for i in range(20)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(int(r["output"]) for r in results) == list(range(20))
