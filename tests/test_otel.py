"""OpenTelemetry export and import: span tree over real OTLP/HTTP, allowlists, content, round trip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from agent_core.errors import ProviderError, TransientToolError
from agent_core.otel import auto
from agent_core.otel.conventions import (
    ALL_KEYS,
    CONTENT_KEYS,
    GEN_AI_KEYS,
    OPENINFERENCE_KEYS,
    OPENINFERENCE_SPAN_KINDS,
    SCHEMA_URL,
    WORKBENCH_KEYS,
)
from agent_core.otel.encode import to_otlp_json_lines
from agent_core.otel.export import (
    MAX_CONTENT_CHARS,
    TRUNCATION_MARKER,
    canonical_json,
    record_to_trace,
)
from agent_core.otel.importer import ImportError_, import_file, parse_otlp
from agent_core.otel.send import (
    ExportError,
    Target,
    mask_header,
    parse_headers,
    preset_target,
    send_traces,
    target_from_env,
)
from agent_core.providers.offline import OfflineProvider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record, parse_record
from agent_core.run import demo
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from agent_core.tools.registry import ToolRegistry
from tests.record_schema import assert_valid_record

REPO = Path(__file__).resolve().parent.parent
KIND = {1: "INTERNAL", 3: "CLIENT"}


# --- a real OTLP/HTTP receiver on loopback -------------------------------------------------------


class Receiver:
    """Decodes each POST to /v1/traces as an ExportTraceServiceRequest; answers from ``replies``."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], ExportTraceServiceRequest]] = []
        self.replies: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                code = receiver.replies.pop(0) if receiver.replies else 200
                if code == 200:
                    message = ExportTraceServiceRequest()
                    message.ParseFromString(body)
                    receiver.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, message))
                self.send_response(code)
                self.send_header("Content-Length", "0")
                if code == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list[Any]:
        return [s for _, _, m in self.requests for rs in m.resource_spans for ss in rs.scope_spans for s in ss.spans]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()
    r.server.server_close()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- runs to export ----------------------------------------------------------------------------


def retry_fallback_run(settings: Settings) -> dict[str, Any]:
    """2 retries (one model call, one tool call) and 1 fallback, on the scripted provider."""
    reg = ToolRegistry()
    flaky_fails = [True]

    @reg.tool
    def flaky(q: str) -> str:
        """Fails once, then answers."""
        if flaky_fails and flaky_fails.pop():
            raise TransientToolError("backend hiccup")
        return f"result for {q}"

    @reg.tool(fallback="cached")
    def down(q: str) -> str:
        """Always down."""
        raise RuntimeError("service down")

    @reg.tool
    def cached(q: str) -> str:
        """Cached answer."""
        return f"cached {q}"

    provider = ScriptedProvider(
        [
            ProviderError("rate limited", transient=True, status=429, retry_after=0.0, error_type="RateLimitError"),
            {"text": "searching", "tool_calls": [{"name": "flaky", "arguments": {"q": "a"}, "call_id": "c1"}]},
            {"tool_calls": [{"name": "down", "arguments": {"q": "b"}, "call_id": "c2"}]},
            {"text": "a and cached b"},
        ]
    )
    return run_to_end("find a and b", provider=provider, registry=reg, settings=settings.replace(retry_delays=(0.0,)))


@pytest.fixture(scope="module")
def fixture_records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every demo scenario, the retry/fallback run, an offline run (a secret in the goal) and
    the explain fixtures (one run per status × error category); built once for this module."""
    import shutil

    root = tmp_path_factory.mktemp("otel") / "agent_data"
    shutil.copytree(REPO / "agent_data" / "workspace", root / "workspace")
    settings = Settings(data_dir=root, retry_delays=(0.0, 0.0, 0.0), tool_timeout=5.0, request_timeout=5.0)
    records = []
    for scenario in demo.SCENARIOS:
        run = demo.prepare(scenario, settings.replace(retry_delays=(0.0, 0.0)))
        run.settings = run.settings.replace(retry_delays=(0.0, 0.0))
        for event in run.events():
            last = event
        records.append(load_record(last.path))  # type: ignore[attr-defined]
    records.append(retry_fallback_run(settings))
    records.append(
        run_to_end(
            "What is (24*7)+100? my api_key=sk-abcdefghijklmnopqrstuvwx",
            provider=OfflineProvider(),
            registry=build_default_registry(settings),
            settings=settings,
        )
    )
    from tests.explain_fixtures import build_all  # one run per status × error category

    records += build_all(settings).values()
    return records


# --- 1. the span tree over OTLP/HTTP -------------------------------------------------------------


def test_span_tree_for_retries_and_fallback_over_otlp_http(settings: Settings, receiver: Receiver) -> None:
    record = retry_fallback_run(settings)
    assert record["status"] == "completed"
    count = send_traces([record_to_trace(record)], Target(receiver.url + "/v1/traces"), delays=())
    ((path, headers, message),) = receiver.requests
    assert path == "/v1/traces" and headers["content-type"] == "application/x-protobuf"
    assert message.resource_spans[0].schema_url == SCHEMA_URL
    assert message.resource_spans[0].scope_spans[0].schema_url == SCHEMA_URL
    spans = receiver.spans()
    assert len(spans) == count == 13
    by_id = {s.span_id: s for s in spans}
    assert len({s.trace_id for s in spans}) == 1

    def tree(parent: bytes = b"") -> list[Any]:
        return [(s.name, KIND[s.kind], tree(s.span_id)) for s in spans if s.parent_span_id == parent]

    assert tree() == [
        (
            "invoke_agent agent-workbench",
            "INTERNAL",
            [
                (
                    "chat scripted-1",
                    "CLIENT",
                    [
                        ("chat scripted-1 attempt 1", "CLIENT", []),
                        ("chat scripted-1 attempt 2", "CLIENT", []),
                    ],
                ),
                ("chat scripted-1", "CLIENT", []),
                ("chat scripted-1", "CLIENT", []),
                (
                    "execute_tool flaky",
                    "INTERNAL",
                    [("flaky attempt 1", "INTERNAL", []), ("flaky attempt 2", "INTERNAL", [])],
                ),
                ("execute_tool down", "INTERNAL", [("down attempt 1", "INTERNAL", [])]),
                ("execute_tool cached", "INTERNAL", [("cached attempt 1", "INTERNAL", [])]),
            ],
        )
    ]
    # The fallback links to the call it replaced.
    fallback = next(s for s in spans if s.name == "execute_tool cached")
    (link,) = fallback.links
    assert by_id[link.span_id].name == "execute_tool down"
    attrs = {k.key: k.value for k in fallback.attributes}
    assert attrs["agent_workbench.fallback_of"].string_value == "c2"
    # Attempts carry their number, retry wait and error.
    flaky_attempts = sorted(
        (s for s in spans if s.name.startswith("flaky attempt")), key=lambda s: s.start_time_unix_nano
    )
    first = {k.key: k.value for k in flaky_attempts[0].attributes}
    assert first["agent_workbench.attempt"].int_value == 1
    assert first["agent_workbench.error_category"].string_value == "transient"
    assert first["error.type"].string_value == "transient"
    assert flaky_attempts[0].status.code == 2 and flaky_attempts[1].status.code == 0
    # The record's own timestamps, not the export time; children inside the run.
    root = next(s for s in spans if not s.parent_span_id)
    from agent_core.otel.export import _ns

    assert root.start_time_unix_nano == _ns(record["started_at"])
    assert root.end_time_unix_nano == _ns(record["finished_at"])
    assert all(root.start_time_unix_nano <= s.start_time_unix_nano <= s.end_time_unix_nano for s in spans)
    # Re-export gives the same ids (a backend keeps one copy).
    again = record_to_trace(record)
    assert {s.span_id for s in again.spans} == set(by_id) and again.trace_id == root.trace_id


def test_chat_span_attributes(settings: Settings) -> None:
    record = retry_fallback_run(settings)
    spans = record_to_trace(record).spans
    chat = next(s for s in spans if s.name == "chat scripted-1")
    a = chat.attributes
    assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.request.model"] == "scripted-1"
    assert a["gen_ai.provider.name"] == "scripted" and a["gen_ai.conversation.id"] == record["run_id"]
    assert a["gen_ai.usage.input_tokens"] == record["steps"][0]["usage"]["input_tokens"]
    assert a["gen_ai.response.finish_reasons"] == [record["steps"][0]["stop_reason"]]
    assert a["openinference.span.kind"] == "LLM" and a["llm.token_count.prompt"] == a["gen_ai.usage.input_tokens"]
    assert a["agent_workbench.attempts"] == 2
    root = spans[0].attributes
    assert root["gen_ai.operation.name"] == "invoke_agent" and root["openinference.span.kind"] == "AGENT"
    tool = next(s for s in spans if s.name == "execute_tool flaky").attributes
    assert (
        tool["gen_ai.tool.name"] == "flaky"
        and tool["gen_ai.tool.call.id"] == "c1"
        and tool["gen_ai.tool.type"] == "function"
    )


def test_duplicate_marked_with_the_call_it_repeats(fixture_records: list[dict[str, Any]]) -> None:
    record = next(r for r in fixture_records if r["goal"].startswith("[Scripted demo] 단가"))
    spans = record_to_trace(record).spans
    dup = next(s for s in spans if s.attributes.get("agent_workbench.duplicate"))
    assert dup.attributes["agent_workbench.duplicate_of"] == "demo_1"
    assert dup.attributes["gen_ai.tool.call.id"] == "demo_2" and dup.status == "ERROR"


# --- 2. allowlists and content -------------------------------------------------------------------


def _all_attributes(records: list[dict[str, Any]], content: bool) -> list[tuple[str, Any]]:
    out = []
    for line in to_otlp_json_lines(records, content=content).splitlines():
        for rs in json.loads(line)["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    out += [(a["key"], a["value"]) for a in span.get("attributes", [])]
    return out


@pytest.mark.parametrize("content", [False, True])
def test_every_emitted_key_is_in_its_pinned_allowlist(fixture_records: list[dict[str, Any]], content: bool) -> None:
    keys = {key for key, _ in _all_attributes(fixture_records, content)}
    unknown = sorted(keys - ALL_KEYS)
    assert not unknown, f"keys in no pinned list: {unknown}"
    assert {k for k in keys if k.startswith("gen_ai.")} <= GEN_AI_KEYS
    assert {k for k in keys if k.startswith("agent_workbench.")} <= WORKBENCH_KEYS
    assert {
        k for k in keys if k.split(".")[0] in ("llm", "tool", "input", "output", "openinference")
    } <= OPENINFERENCE_KEYS
    kinds = {v["stringValue"] for k, v in _all_attributes(fixture_records, content) if k == "openinference.span.kind"}
    assert kinds <= OPENINFERENCE_SPAN_KINDS and kinds == {"AGENT", "LLM", "TOOL"}
    # The checks can fail: an invented key is caught.
    assert "gen_ai.tool.arguments" not in GEN_AI_KEYS and "llm.token_count.input" not in OPENINFERENCE_KEYS


def _secret_record(settings: Settings) -> dict[str, Any]:
    record = retry_fallback_run(settings)
    # A hand-edited or older record holding secrets in clear: the export masks again.
    record["goal"] = "call with password=hunter2-secret please"
    record["answer"] = "done, key sk-proj-SEEDEDSECRET0123456789abcdef"
    record["tool_calls"][0]["arguments"] = {"q": "a", "api_key": "SEEDED-API-KEY-VALUE"}
    record["tool_calls"][0]["output"] = "token: SEEDEDTOKENVALUE42 and Bearer sk-ant-SEEDED0123456789abcdefgh"
    record["tool_calls"][1]["error"] = "failed with secret=SEEDEDERRORSECRET"
    return record


def test_content_off_holds_no_arguments_results_or_messages(settings: Settings) -> None:
    record = _secret_record(settings)
    values = json.dumps(_all_attributes([record], content=False))
    keys = {k for k, _ in _all_attributes([record], content=False)}
    assert not keys & CONTENT_KEYS
    for text in ("find a and b", "hunter2", "result for a", "cached b", "searching", '"q"', "SEEDED", "rate limited"):
        assert text not in values


def test_content_on_is_masked_capped_and_marked(settings: Settings) -> None:
    record = _secret_record(settings)
    record["tool_calls"][2 if len(record["tool_calls"]) > 2 else 1]["output"] = "x" * (MAX_CONTENT_CHARS + 500)
    attrs = _all_attributes([record], content=True)
    text = json.dumps(attrs)
    for secret in ("hunter2", "SEEDED", "sk-proj-", "sk-ant-"):
        assert secret not in text
    keys = {k for k, _ in attrs}
    assert {"input.value", "output.value", "gen_ai.tool.call.arguments", "gen_ai.output.messages"} <= keys
    cut = [v["stringValue"] for k, v in attrs if k == "output.value" and v["stringValue"].endswith(TRUNCATION_MARKER)]
    assert cut and all(len(v) == MAX_CONTENT_CHARS for v in cut)
    marked = [v for k, v in attrs if k == "agent_workbench.content.truncated"]
    assert marked and "output.value" in json.dumps(marked)


# --- 3. round trip and import --------------------------------------------------------------------


def _essence(record: dict[str, Any]) -> dict[str, Any]:
    return {
        "calls": [
            (
                c["tool"],
                canonical_json(c["arguments"]),
                c["output"],
                c["success"],
                c["error_category"],
                c["duplicate"],
                [
                    (a["attempt"], a["success"], a.get("error_category"), a.get("error"), a["wait_s"])
                    for a in c["attempts"]
                ],
                c["fallback"] and (c["fallback"]["tool"], c["fallback"]["success"], len(c["fallback"]["attempts"])),
            )
            for c in record["tool_calls"]
        ],
        "steps": [
            (
                s["index"],
                s["usage"],
                [(a["attempt"], a["success"], a.get("error_type")) for a in s["model_attempts"]],
                s["blocks_sent"],
                s["blocks_trimmed"],
                s["tool_call_ids"],
            )
            for s in record["steps"]
        ],
        "usage": record["usage"],
        "status": record["status"],
        "answer": record["answer"],
        "provider": record["provider"],
        "model": record["model"],
        "goal": record["goal"],
    }


def test_json_writer_equals_protobufs_json_mapping(fixture_records: list[dict[str, Any]]) -> None:
    from agent_core.otel.encode import to_otlp_json, to_otlp_json_via_protobuf

    for record in fixture_records:
        for content in (False, True):
            trace = record_to_trace(record, content=content)
            assert to_otlp_json([trace]) == to_otlp_json_via_protobuf([trace])


def test_round_trip_every_fixture_record(fixture_records: list[dict[str, Any]], tmp_path: Path) -> None:
    text = to_otlp_json_lines(fixture_records, content=True)
    back = parse_otlp(text.encode(), "runs.jsonl")
    assert len(back) == len(fixture_records)
    for original, imported in zip(fixture_records, back):
        assert_valid_record(imported)
        parse_record(json.dumps(imported).encode())
        assert imported["imported_from"] == "otlp" and imported["run_id"] != original["run_id"]
        assert imported["import_source"]["source_run_id"] == original["run_id"]
        assert _essence(imported) == _essence(original)
        assert imported["import_source"]["notes"] == []
    # Imported into the runs folder: read by the one reading path, idempotent.
    runs = tmp_path / "runs"
    path = tmp_path / "runs.jsonl"
    path.write_text(text)
    first = import_file(path, runs)
    assert [o for _, o in first] == ["imported"] * len(fixture_records)
    assert [o for _, o in import_file(path, runs)] == ["already imported"] * len(fixture_records)
    from agent_core.records.store import RunStore

    store = RunStore(runs)
    store.refresh()
    assert len(store.runs()) == len(fixture_records) and not store.problems()
    # Tool stats read the imported calls like any others.
    calls = store.tool_calls()
    assert sorted(calls["tool"]) == sorted(c["tool"] for r in fixture_records for c in r["tool_calls"])


def _span(
    span_id: str, name: str, attrs: dict[str, Any], parent: str = "", start: int = 0, error: bool = False
) -> dict[str, Any]:
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        return {"stringValue": v}

    span = {
        "traceId": "ab" * 16,
        "spanId": span_id,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + start),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + start + 1000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attrs.items()],
    }
    if parent:
        span["parentSpanId"] = parent
    if error:
        span["status"] = {"code": 2, "message": "boom"}
    return span


def test_import_another_tools_openinference_trace() -> None:
    spans = [
        _span(
            "01" * 8,
            "Agent.run",
            {"openinference.span.kind": "AGENT", "input.value": "weather?", "output.value": "Sunny."},
        ),
        _span(
            "02" * 8,
            "ChatOpenAI",
            {
                "openinference.span.kind": "LLM",
                "llm.model_name": "gpt-x",
                "llm.provider": "openai",
                "llm.token_count.prompt": 11,
                "llm.token_count.completion": 4,
            },
            "01" * 8,
            10,
        ),
        _span(
            "03" * 8,
            "get_weather",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "get_weather",
                "input.value": '{"city": "Seoul"}',
                "output.value": "sunny",
            },
            "01" * 8,
            20,
        ),
        _span("04" * 8, "<script>alert(1)</script>", {"openinference.span.kind": "CHAIN", "x": 1}, "01" * 8, 30),
        _span(
            "05" * 8,
            "execute_tool lookup",
            {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"},
            "01" * 8,
            40,
            error=True,
        ),
    ]
    data = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()
    (record,) = parse_otlp(data, "foreign.json")
    assert_valid_record(record)
    assert record["goal"] == "weather?" and record["answer"] == "Sunny." and record["model"] == "gpt-x"
    assert record["provider"] == "openai" and record["usage"]["total_tokens"] == 15
    assert [(c["tool"], c["arguments"], c["output"], c["success"]) for c in record["tool_calls"]] == [
        ("get_weather", {"city": "Seoul"}, "sunny", True),
        ("lookup", {}, "", False),
    ]
    assert (
        record["tool_calls"][1]["error_category"] == "non_transient" and len(record["tool_calls"][1]["attempts"]) == 1
    )
    (note,) = record["import_source"]["notes"]
    assert note["name"] == "<script>alert(1)</script>"  # kept as text; pages render it as data


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"\xff\xfe\x00", "UTF-8"),
        (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
        (b'{"hello": 1}', "no resourceSpans"),
        (b"not json at all\n", "not JSON"),
        (
            json.dumps(
                {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": 5, "spanId": [], "name": {}}]}]}]}
            ).encode(),
            "no readable spans",
        ),
    ],
)
def test_hostile_files_are_refused_cleanly(data: bytes, message: str) -> None:
    with pytest.raises(ImportError_, match=message):
        parse_otlp(data, "bad.jsonl")


def test_wrong_typed_values_are_dropped_not_crashing(monkeypatch: pytest.MonkeyPatch) -> None:
    span = _span("01" * 8, "execute_tool t", {"gen_ai.operation.name": "execute_tool"})
    span["attributes"] += [
        {"key": "gen_ai.tool.name", "value": {"intValue": "NaN"}},
        {"key": "agent_workbench.attempts", "value": {"arrayValue": "x"}},
        {"key": 7, "value": {}},
        "junk",
        {"key": "deep", "value": {"kvlistValue": {"values": [{"key": "a", "value": {"kvlistValue": {}}}]}}},
    ]
    (record,) = parse_otlp(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode())
    assert_valid_record(record)
    assert record["tool_calls"][0]["tool"] == "t"
    from agent_core.otel import importer

    monkeypatch.setattr(importer, "MAX_FILE_BYTES", 100)
    with pytest.raises(ImportError_, match="larger than"):
        parse_otlp(b" " * 200)


# --- 4. sending: presets, env, retries, failures -------------------------------------------------


def test_presets_and_env_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    lf = preset_target("langfuse", endpoint="http://127.0.0.1:3000", public_key="pk-lf-1", secret_key="sk-lf-2")
    assert lf.endpoint == "http://127.0.0.1:3000/api/public/otel/v1/traces"
    assert lf.headers["Authorization"] == "Basic cGstbGYtMTpzay1sZi0y"  # base64("pk-lf-1:sk-lf-2")
    assert lf.masked_headers()["Authorization"] == "Basic ****"
    ml = preset_target("mlflow", experiment_id="42")
    assert ml.endpoint == "http://localhost:5000/v1/traces" and ml.headers == {"x-mlflow-experiment-id": "42"}
    assert preset_target("phoenix").endpoint == "http://localhost:6006/v1/traces"
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/",
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=abc%3D,x-team=t1",
    }
    target = target_from_env(env)
    assert target is not None and target.endpoint == "http://collector:4318/v1/traces"
    assert target.headers == {"api-key": "abc=", "x-team": "t1"}
    assert mask_header("api-key", "abc=") == "****" and mask_header("x-team", "t1") == "t1"
    assert target_from_env({}) is None
    with pytest.raises(ValueError):
        parse_headers(["no-equals-sign"])


def test_retries_then_succeeds_and_refusal_fails_at_once(settings: Settings, receiver: Receiver) -> None:
    trace = record_to_trace(retry_fallback_run(settings))
    waits: list[float] = []
    receiver.replies = [503, 429]
    send_traces([trace], Target(receiver.url + "/v1/traces"), delays=(0.01, 0.01, 0.01), sleep=waits.append)
    assert len(waits) == 2 and len(receiver.requests) == 1
    receiver.replies = [401]
    with pytest.raises(ExportError) as info:
        send_traces(
            [trace],
            Target(receiver.url + "/v1/traces", {"Authorization": "Bearer TOPSECRET"}),
            delays=(0.01,),
            sleep=waits.append,
        )
    line = str(info.value)
    assert receiver.url + "/v1/traces" in line and "HTTP 401" in line and "TOPSECRET" not in line and "\n" not in line
    with pytest.raises(ExportError, match="unreachable .* |after 3 attempts"):
        send_traces([trace], Target(f"http://127.0.0.1:{_free_port()}"), delays=(0.0, 0.0), sleep=lambda s: None)


def test_auto_export_after_run_off_the_loop_thread(
    settings: Settings, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_OTEL_EXPORT", "auto")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
    record = retry_fallback_run(settings)
    assert auto.wait_idle(20)
    assert {s.trace_id.hex() for s in receiver.spans()} == {record["run_id"].replace("-", "")}
    assert auto.last_results[-1][1].startswith("ok: 13 spans")
    # An endpoint that never answers does not slow the run down.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{_free_port()}")
    monkeypatch.setattr(auto, "AUTO_DELAYS", (0.5, 0.5))
    t0 = time.perf_counter()
    record = retry_fallback_run(settings)
    assert time.perf_counter() - t0 < 1.0 and record["status"] == "completed"
    assert auto.wait_idle(20)
    assert "unreachable" in auto.last_results[-1][1]


# --- 5. the CLI ----------------------------------------------------------------------------------


def _cli(data_dir: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_") and not k.startswith("AGENT_OTEL")}
    full.update(AGENT_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args], capture_output=True, text=True, env=full, cwd=data_dir, timeout=120
    )


def test_cli_export_send_file_since_and_import(
    settings: Settings,
    receiver: Receiver,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agent_core.cli.main import main

    for name in [k for k in os.environ if k.startswith(("OTEL_", "AGENT_OTEL"))]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))

    def cli(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    record = retry_fallback_run(settings)
    code, _, err = cli("export", record["run_id"][:13], "--otlp", receiver.url, "--header", "x-team=qa")
    assert code == 0, err
    assert "sent 1 run(s), 13 spans" in err
    assert receiver.requests[0][1]["x-team"] == "qa"
    # A process of its own, with the real retries: exit 1 and one line naming the endpoint.
    port = _free_port()
    done = _cli(settings.data_dir, "export", record["run_id"], "--otlp", f"http://127.0.0.1:{port}")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert f"http://127.0.0.1:{port}/v1/traces" in line and "unreachable" in line
    out = tmp_path / "runs.jsonl"
    code, _, err = cli("export", "--since", "2000-01-01", "--otlp-json", str(out), "--content")
    assert code == 0, err
    assert len(out.read_text().splitlines()) == 1
    assert cli("export", "nosuchrun", "--otlp-json", str(out))[0] == 2
    assert cli("export", "--since", "yesterday-ish", "--otlp-json", str(out))[0] == 2
    code, stdout, err = cli("import", str(out))
    assert code == 0 and stdout.startswith("imported: "), err
    run_id = stdout.split(": ")[1].strip()
    assert load_record(settings.runs_dir / f"{run_id}.json")["imported_from"] == "otlp"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("<html>nope</html>")
    code, _, err = cli("import", str(bad))
    assert code == 2 and "not JSON" in err


# --- 6. History: download and "Send to…" ---------------------------------------------------------


def test_history_send_to_and_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, receiver: Receiver) -> None:
    from tests import test_pages

    root = test_pages.data_dir.__wrapped__(tmp_path, monkeypatch)  # type: ignore[attr-defined]
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "AGENT_OTEL_EXPORT"):
        monkeypatch.delenv(name, raising=False)
    record = retry_fallback_run(test_pages.settings())
    at = test_pages.app("pages/history.py", {"run": record["run_id"]})
    assert "Download as OTLP JSON" in {b.label for b in at.get("download_button")}
    at.toggle(key="otel_send_open").set_value(True).run()
    at.selectbox(key="otel_preset").select("generic").run()
    at.text_input(key="otel_endpoint_generic").input(receiver.url).run()
    at.text_input(key="otel_key_generic").input("SEEDED-UI-KEY").run()
    at.button(key="otel_send").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (success,) = at.success
    assert "Sent 13 spans" in success.value and "Bearer \\*\\*\\*\\*" in success.value and "SEEDED" not in success.value
    assert receiver.requests[0][1]["authorization"] == "Bearer SEEDED-UI-KEY"
    saved = json.loads((root / "otel_destination.json").read_text())
    assert saved == {"preset": "generic", "endpoint": receiver.url} and "SEEDED" not in json.dumps(saved)
    # The next visit starts from the last destination; a refusal is one plain line.
    at = test_pages.app("pages/history.py", {"run": record["run_id"]})
    at.toggle(key="otel_send_open").set_value(True).run()
    assert at.text_input(key="otel_endpoint_generic").value == receiver.url
    receiver.replies = [403]
    at.button(key="otel_send").click().run()
    assert "HTTP 403" in at.error[0].value
    # An imported run opens in History like any other.
    text = to_otlp_json_lines([record], content=True)
    (imported,) = parse_otlp(text.encode(), "x.jsonl")
    from agent_core.records.files import save_record

    save_record(imported, root / "runs")
    at = test_pages.app("pages/history.py", {"run": imported["run_id"]})
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Tool calls"] == "2" and metrics["Steps"].startswith("3 ")


def test_cli_run_with_auto_export(data_dir: Path, receiver: Receiver) -> None:
    done = _cli(
        data_dir,
        "run",
        "What is (24*7)+100?",
        "--provider",
        "offline",
        "--quiet",
        env={"AGENT_OTEL_EXPORT": "auto", "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url},
    )
    assert done.returncode == 0, done.stderr
    assert "OpenTelemetry: ok: " in done.stderr and len(receiver.requests) == 1
    assert {s.name for s in receiver.spans()} >= {"invoke_agent agent-workbench", "execute_tool calculator"}
