"""The engine-overhead savings keep behaviour: incremental record encoding is byte for
byte json.dumps, the masking fast path masks exactly what the regexes mask, reused tool threads
still time out and never block each other, the price table is read once per run."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from agent_core import masking
from agent_core.context import ToolCallRequest
from agent_core.errors import ProviderError, TransientToolError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import RecordEncoder, load_record
from agent_core.run import loop as loop_module
from agent_core.run import pricing
from agent_core.run.dispatcher import Dispatcher, ToolTimeout, call_with_timeout
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry


def _reference_mask_text(text: str) -> str:
    """mask_text without the fast path (the regexes on everything)."""
    if not text:
        return text
    if not text.isascii():
        text = masking._LONE_SURROGATE.sub("\ufffd", text)
    for secret in masking._extra_secrets:
        if secret in text:
            text = text.replace(secret, masking.MASK)
    text = masking._INLINE_ASSIGN.sub(masking._mask_assignment, text)
    return masking._SECRET_VALUE.sub(masking.MASK, text)


PIECES = [
    "sk-",
    "sk-abcdefghij",
    "sk-proj-ABCDEFGH12",
    "AKIA",
    "AKIA1234567890ABCDEF",
    "Bearer ",
    "bearer abcdefghijk",
    "BEARER",
    "gh",
    "ghp_",
    "ghs_" + "a" * 24,
    "AIza",
    "AIza" + "b" * 31,
    "xoxb-",
    "xoxp-1234567890",
    "token",
    "TOKEN=",
    "api_key: ",
    "apiKey=",
    "API-KEY",
    '"secret": "',
    "password=",
    "Authorization: ",
    "my_token=",
    "=",
    ":",
    " ",
    "\n",
    "'",
    '"',
    "x",
    "1",
    "_",
    "-",
    "é",
    "ſecret=abc",
    "K",
    "검색",
]


@hsettings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.text(max_size=30))
def test_mask_text_fast_path_masks_exactly_like_the_regexes(parts: list[str], noise: str) -> None:
    text = "".join(parts) + noise
    assert masking.mask_text(text) == _reference_mask_text(text)


def test_mask_text_fast_path_on_long_outputs() -> None:
    plain = ("lorem ipsum dolor sit amet " * 100).strip()
    assert masking.mask_text(plain) is plain
    leaky = plain + " token=abc123 and sk-abcdefghijklmnop"
    assert masking.mask_text(leaky) == _reference_mask_text(leaky) and "abc123" not in masking.mask_text(leaky)


@pytest.mark.parametrize(
    "record",
    [
        {"run_id": "r", "steps": [], "history": [], "x": None},
        {
            "run_id": "r",
            "steps": [{"a": 1}, {"b": [1, 2.5, None, True]}],
            "tool_calls": [{"é": "검색", "n": float("inf")}],
        },
        {"run_id": "r", "steps": "not a list", "context_blocks": [[], {}], "obj": {1: "int key"}},
    ],
)
def test_record_encoder_is_json_dumps(record: dict[str, Any]) -> None:
    encoder = RecordEncoder()
    expected = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    assert encoder.encode(record) == expected
    assert encoder.encode(record) == expected  # from the cache
    record.setdefault("history", []).append({"role": "tool", "content": "new"})
    assert encoder.encode(record) == json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)
    assert encoder.encode(record, full=True) == json.dumps(
        record, ensure_ascii=False, separators=(",", ":"), default=str
    )


def _registry() -> ToolRegistry:
    reg = ToolRegistry()
    state = {"flaky": 0}

    @reg.tool
    def echo(text: str, api_key: str = "") -> str:
        """Echo."""
        return f"echo {text} " + ("x" * 50)

    @reg.tool(fallback="echo")
    def flaky(text: str) -> str:
        """Fails transiently twice, then works."""
        state["flaky"] += 1
        if state["flaky"] % 3:
            raise TransientToolError("busy")
        return "flaky ok"

    return reg


def test_every_save_of_a_run_is_byte_for_byte_json_dumps(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    saved: list[tuple[str, str]] = []
    real = loop_module.save_record

    def checking_save(
        record: dict[str, Any], runs_dir: Any, *, encoder: RecordEncoder | None = None, final: bool = True
    ) -> Any:
        assert encoder is not None
        saved.append(
            (
                encoder.encode(record, full=final),
                json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str),
            )
        )
        return real(record, runs_dir, encoder=encoder, final=final)

    monkeypatch.setattr(loop_module, "save_record", checking_save)
    turns: list[Any] = [
        {"tool_calls": [{"name": "echo", "arguments": {"text": "a", "api_key": "sk-secretsecret123"}}]},
        {"tool_calls": [{"name": "echo", "arguments": {"text": "a", "api_key": "sk-secretsecret123"}}]},  # duplicate
        ProviderError("rate limited", transient=True, status=429),
        {"tool_calls": [{"name": "flaky", "arguments": {"text": "b"}}, {"name": "nope", "arguments": "{bad"}]},
    ] + [{"tool_calls": [{"name": "echo", "arguments": {"text": f"t{n}"}}]} for n in range(6)]
    small = settings.replace(max_steps=8, max_context_blocks=2, history_max_messages=6, retry_delays=(0.0, 0.0))
    record = run_to_end(
        "encode me", provider=ScriptedProvider(turns), registry=_registry(), settings=small, sleep=lambda s: None
    )
    assert record["status"] == "max_steps" and record["history_dropped"] > 0
    assert len(saved) == 10  # start, 8 steps, finish
    for incremental, full in saved:
        assert incremental == full
    on_disk = load_record(small.runs_dir / f"{record['run_id']}.json")
    assert json.dumps(on_disk, ensure_ascii=False, separators=(",", ":"), default=str) == saved[-1][1]
    # Block items are masked as before: arguments masked here, outputs by the dispatcher.
    items = [i for b in on_disk["context_blocks"] for i in b["items"]]
    assert all("sk-secret" not in json.dumps(i) for i in items)
    assert items == masking.mask(items)


def test_the_price_table_is_read_once_per_run(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = pricing.load_prices

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(loop_module, "load_prices", counting)

    class Paid(ScriptedProvider):
        id = "openai"

    turns = [{"tool_calls": [{"name": "echo", "arguments": {"text": str(n)}}]} for n in range(4)] + [{"text": "ok"}]
    record = run_to_end("price me", provider=Paid(turns, model="gpt-4.1-mini"), registry=_registry(), settings=settings)
    assert calls["n"] == 1
    assert record["cost_usd"] == pytest.approx(pricing.estimate_cost("gpt-4.1-mini", record["usage"]))


def _tool_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "tool-call")


def test_tool_threads_are_reused_and_a_hung_tool_blocks_nothing() -> None:
    before = _tool_threads()
    for n in range(50):
        assert call_with_timeout(lambda x: x * 2, {"x": n}, 5.0) == n * 2
    assert _tool_threads() - before <= 2
    release = threading.Event()
    with pytest.raises(ToolTimeout):
        call_with_timeout(lambda: release.wait(10), {}, 0.05)
    t0 = time.perf_counter()
    assert call_with_timeout(lambda: "next", {}, 5.0) == "next"  # not queued behind the hung one
    assert time.perf_counter() - t0 < 1.0
    release.set()
    with pytest.raises(ValueError, match="boom"):
        call_with_timeout(lambda: (_ for _ in ()).throw(ValueError("boom")), {}, 5.0)
    with pytest.raises(RuntimeError, match="SystemExit"):
        call_with_timeout(lambda: (_ for _ in ()).throw(SystemExit(3)), {}, 5.0)
    assert call_with_timeout(lambda: "still fine", {}, 5.0) == "still fine"


def test_concurrent_dispatchers_share_tool_threads_safely(settings: Settings) -> None:
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            dispatcher = Dispatcher(_registry(), settings)
            for n in range(40):
                entry = dispatcher.dispatch(
                    ToolCallRequest(call_id=f"{k}-{n}", name="echo", arguments={"text": f"{k}-{n}"})
                )
                assert entry["success"] and entry["output"].startswith(f"echo {k}-{n} ")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
