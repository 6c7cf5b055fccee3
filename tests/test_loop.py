"""The agent loop on a scripted provider: steps, events, trimming, retries, limits, cancel."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from agent_core.errors import ProviderError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record, new_run_id
from agent_core.run.events import ModelCallRetrying, RunFinished, StepFinished, ToolCallFinished
from agent_core.run.loop import run_agent, run_to_end, validate_goal
from agent_core.settings import Settings
from agent_core.tools.instructions import build_instructions
from agent_core.tools.registry import ToolRegistry
from tests.record_schema import assert_valid_record


@pytest.fixture
def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @reg.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return text

    return reg


def tool_turn(*calls: tuple[str, object], text: str = "") -> dict:
    return {"text": text, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}


def test_multi_step_run_record_and_transcript(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider(
        [
            tool_turn(("add", '{"a": 24, "b": 7}'), ("echo", {"text": "hi"}), text="Let me compute."),
            tool_turn(("add", '{"a": 31, "b": 1}')),
            {"text": "The answer is 32."},
        ]
    )
    record = run_to_end("compute", provider=provider, registry=registry, settings=settings)
    provider.assert_complete()
    assert_valid_record(record)
    assert record["status"] == "completed" and record["answer"] == "The answer is 32."
    assert [s["index"] for s in record["steps"]] == [1, 2, 3]
    assert [c["output"] for c in record["tool_calls"]] == ["31", "hi", "32"]
    assert record["steps"][0]["tool_call_ids"] == [c["call_id"] for c in record["tool_calls"][:2]]
    assert record["usage"] == {"input_tokens": 30, "output_tokens": 15, "total_tokens": 45}
    assert record["cost_usd"] == 0.0
    # Both calls of turn 1 and their outputs form one block, sent back together in the next request.
    block0 = record["context_blocks"][0]
    assert [i["kind"] for i in block0["items"]] == ["text", "tool_call", "tool_call", "tool_output", "tool_output"]
    second = provider.requests[1]
    assert [len(b.tool_calls) for b in second.blocks] == [2]
    assert [o.output for o in second.blocks[0].outputs] == ["31", "hi"]
    assert second.instructions == build_instructions(registry) and second.goal == "compute"
    roles = [m["role"] for m in record["history"]]
    assert roles == ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert record["finished_at"] and record["duration_ms"] > 0


def test_context_blocks_trimmed_and_recorded(registry: ToolRegistry, settings: Settings) -> None:
    turns = [tool_turn(("add", {"a": i, "b": 0})) for i in range(5)] + [{"text": "done"}]
    provider = ScriptedProvider(turns)
    record = run_to_end("g", provider=provider, registry=registry, settings=settings.replace(max_context_blocks=2))
    sent = [s["blocks_sent"] for s in record["steps"]]
    trimmed = [s["blocks_trimmed"] for s in record["steps"]]
    assert sent == [[], [0], [0, 1], [1, 2], [2, 3], [3, 4]]
    assert trimmed == [[], [], [], [0], [0, 1], [0, 1, 2]]
    # What was actually sent matches the record: the initial goal plus the last two blocks.
    assert [[b.index for b in r.blocks] for r in provider.requests] == sent
    assert all(r.goal == "g" for r in provider.requests)


def test_max_steps_ends_with_status_and_message(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider([tool_turn(("add", {"a": i, "b": 1})) for i in range(3)])
    record = run_to_end("loop", provider=provider, registry=registry, settings=settings.replace(max_steps=3))
    assert record["status"] == "max_steps" and record["answer"] is None
    assert "step limit (3 steps)" in record["error"]["message"]
    assert len(record["steps"]) == 3
    assert_valid_record(record)


def test_transient_model_error_retried_then_success(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider(
        [
            ProviderError("rate limited", transient=True, status=429, retry_after=0.0, error_type="RateLimitError"),
            ProviderError("overloaded", transient=True, status=529, error_type="OverloadedError"),
            {"text": "ok"},
        ]
    )
    events = list(run_agent("g", provider=provider, registry=registry, settings=settings))
    retries = [e for e in events if isinstance(e, ModelCallRetrying)]
    assert [(r.attempt, r.status) for r in retries] == [(1, 429), (2, 529)]
    record = load_record(events[-1].path)
    attempts = record["steps"][0]["model_attempts"]
    assert [a["success"] for a in attempts] == [False, False, True]
    assert attempts[0]["error_type"] == "RateLimitError" and attempts[0]["status"] == 429


def test_non_transient_model_error_is_not_retried(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider(
        [
            ProviderError("Anthropic rejected the API key (401)", status=401, error_type="AuthenticationError"),
            {"text": "x"},
        ]
    )
    record = run_to_end("g", provider=provider, registry=registry, settings=settings)
    assert record["status"] == "error"
    assert record["error"] == {"type": "AuthenticationError", "message": "Anthropic rejected the API key (401)"}
    assert len(provider.requests) == 1 and provider.remaining == 1
    assert len(record["steps"][0]["model_attempts"]) == 1
    assert_valid_record(record)


def test_transient_errors_until_retries_run_out(registry: ToolRegistry, settings: Settings) -> None:
    errors = [
        ProviderError("server error", transient=True, status=500, error_type="InternalServerError") for _ in range(4)
    ]
    provider = ScriptedProvider(errors)
    record = run_to_end("g", provider=provider, registry=registry, settings=settings)
    assert record["status"] == "error" and "gave up after 4 attempts" in record["error"]["message"]
    assert len(provider.requests) == 4


def test_provider_bug_becomes_a_clean_error(registry: ToolRegistry, settings: Settings) -> None:
    class Broken(ScriptedProvider):
        def complete(self, request):  # type: ignore[override]
            raise KeyError("choices")

    record = run_to_end("g", provider=Broken([]), registry=registry, settings=settings)
    assert record["status"] == "error" and record["error"]["type"] == "KeyError"


@pytest.mark.parametrize("instant", [True, False])
def test_a_model_that_is_not_instant_is_called_in_a_worker_thread(
    registry: ToolRegistry, settings: Settings, instant: bool
) -> None:
    seen: list[threading.Thread] = []

    class Watched(ScriptedProvider):
        def complete(self, request):  # type: ignore[override]
            seen.append(threading.current_thread())
            return super().complete(request)

    provider = Watched([tool_turn(("add", {"a": 1, "b": 2})), {"text": "3"}])
    provider.instant = instant
    record = run_to_end("g", provider=provider, registry=registry, settings=settings)
    assert record["status"] == "completed" and record["answer"] == "3"
    assert len(seen) == 2
    assert all((t is threading.current_thread()) == instant for t in seen)


def test_a_provider_that_exits_is_an_error_not_the_end_of_the_process(
    registry: ToolRegistry, settings: Settings
) -> None:
    class Exiting(ScriptedProvider):
        instant = False

        def complete(self, request):  # type: ignore[override]
            raise SystemExit(3)

    record = run_to_end("g", provider=Exiting([]), registry=registry, settings=settings)
    assert record["status"] == "error" and "SystemExit" in record["error"]["message"]


@pytest.mark.parametrize("instant", [True, False])
def test_a_model_call_that_ends_on_the_stop_is_a_stop_not_an_error(
    registry: ToolRegistry, settings: Settings, instant: bool
) -> None:
    """The local model checks for Stop between batches and ends its call with an error; when that
    came before the loop's wait saw the Stop, the run was saved as an error of type "Cancelled"."""
    cancel = threading.Event()

    class StopsItself(ScriptedProvider):
        def complete(self, request):  # type: ignore[override]
            cancel.set()  # the Stop arrives while the model works, and the model sees it first
            raise ProviderError("the run was stopped", provider="scripted", error_type="Cancelled")

    provider = StopsItself([])
    provider.instant = instant
    record = run_to_end("g", provider=provider, registry=registry, settings=settings, cancel=cancel)
    assert record["status"] == "cancelled", record.get("error")
    assert record["error"]["message"] == "The run was stopped by the user."


def test_cancel_event_between_events_saves_cancelled(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider([tool_turn(("add", {"a": i, "b": 1})) for i in range(5)] + [{"text": "x"}])
    cancel = threading.Event()
    events = []
    for event in run_agent("g", provider=provider, registry=registry, settings=settings, cancel=cancel):
        events.append(event)
        if isinstance(event, StepFinished) and event.step == 2:
            cancel.set()
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    record = load_record(events[-1].path)
    assert record["status"] == "cancelled" and len(record["steps"]) == 2
    assert_valid_record(record)


def test_closing_the_generator_saves_cancelled(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider([tool_turn(("add", {"a": i, "b": 1})) for i in range(5)] + [{"text": "x"}])
    gen = run_agent("g", provider=provider, registry=registry, settings=settings)
    path = None
    for event in gen:
        path = getattr(event, "path", path) or path
        if isinstance(event, ToolCallFinished) and event.step == 2:
            break
    gen.close()
    record = load_record(path)
    assert record["status"] == "cancelled"
    assert len(record["tool_calls"]) == 2 and len(record["steps"]) == 2


def test_record_is_saved_after_every_step(registry: ToolRegistry, settings: Settings) -> None:
    provider = ScriptedProvider(
        [tool_turn(("add", {"a": 1, "b": 1})), tool_turn(("add", {"a": 2, "b": 1})), {"text": "x"}]
    )
    seen = []
    for event in run_agent("g", provider=provider, registry=registry, settings=settings):
        if isinstance(event, StepFinished):
            on_disk = json.loads(Path(settings.runs_dir, f"{event.run_id}.json").read_text())
            seen.append((on_disk["status"], len(on_disk["steps"])))
            assert_valid_record(on_disk)
        if isinstance(event, RunFinished):
            seen.append((load_record(event.path)["status"], len(load_record(event.path)["steps"])))
    assert seen == [("running", 1), ("running", 2), ("running", 3), ("completed", 3)]
    assert not [p for p in settings.runs_dir.iterdir() if p.name.startswith(".")]  # no temp files left


def test_each_run_starts_clean_and_ids_are_unique(registry: ToolRegistry, settings: Settings) -> None:
    for _ in range(2):
        provider = ScriptedProvider([tool_turn(("add", {"a": 1, "b": 1})), {"text": "x"}])
        record = run_to_end("g", provider=provider, registry=registry, settings=settings)
        assert record["tool_calls"][0]["duplicate"] is False  # the duplicate memory is per run
    ids = [new_run_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)  # unique and time-sortable
    assert len(list(settings.runs_dir.glob("*.json"))) == 2


def test_too_many_calls_in_one_turn_are_refused_per_call(registry: ToolRegistry, settings: Settings) -> None:
    calls = [("add", {"a": i, "b": 0}) for i in range(1000)]
    provider = ScriptedProvider([tool_turn(*calls), {"text": "done"}])
    record = run_to_end("g", provider=provider, registry=registry, settings=settings)
    assert record["status"] == "completed" and len(record["tool_calls"]) == 1000
    ran = [c for c in record["tool_calls"] if c["success"]]
    assert len(ran) == 32
    assert all("Too many tool calls" in c["output"] for c in record["tool_calls"][32:])
    assert len(provider.requests[1].blocks[0].outputs) == 1000  # every call got an answer


def test_goal_validation() -> None:
    with pytest.raises(ValueError, match="empty"):
        validate_goal("   ")
    with pytest.raises(ValueError, match="too long"):
        validate_goal("x" * 20_001)
    assert validate_goal("  hi ") == "hi"


def test_unwritable_runs_folder_gives_a_clear_error(registry: ToolRegistry, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root ignores permissions: use a file where the folder should be instead.
        (tmp_path / "runs").write_text("not a folder")
    else:
        (tmp_path / "runs").mkdir()
        os.chmod(tmp_path / "runs", 0o500)
    settings = Settings(data_dir=tmp_path, retry_delays=())
    events = list(run_agent("g", provider=ScriptedProvider([{"text": "x"}]), registry=registry, settings=settings))
    assert len(events) == 1 and events[0].status == "error"
    assert "Cannot save the run record" in events[0].error["message"]


def test_secrets_in_goal_and_model_text_are_masked(registry: ToolRegistry, settings: Settings) -> None:
    key = "sk-ant-api03-SECRETSECRETSECRET"
    provider = ScriptedProvider(
        [tool_turn(("echo", {"text": f"my key is {key}"}), text=f"using {key}"), {"text": f"done {key}"}]
    )
    record = run_to_end(f"use {key}", provider=provider, registry=registry, settings=settings)
    raw = Path(settings.runs_dir, f"{record['run_id']}.json").read_text()
    assert "SECRETSECRET" not in raw
