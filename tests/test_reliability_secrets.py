"""Reliability: keys never reach a record, a log, a page or an error message.

Issue 7, case 8. Provider keys (set the way users set them: environment variables), the
``Authorization`` header the SDKs send, and key-shaped strings in goals, model text, tool
arguments and tool output are looked for everywhere the workbench writes or shows text:
every file under the data folder (records and the SQLite index), every log record at DEBUG
from ``agent_core.*`` and the ``openai`` / ``anthropic`` / ``httpx2`` / ``httpcore2`` loggers,
every event, every error message (including SDK errors whose body echoes the key, as OpenAI's
"Incorrect API key provided: sk-…" does), the CLI's stdout/stderr (with the SDK's own debug
logging on), and every element of the Run, History and Tool-stats pages (AppTest).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer, anthropic_body, anthropic_error, chat_body, openai_error, responses_body

from agent_core.errors import ProviderError
from agent_core.providers import make_provider
from agent_core.providers.base import ModelRequest, ModelResponse
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.loop import run_agent
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry

REPO = Path(__file__).resolve().parent.parent
OPENAI_KEY = "sk-proj-RELSECRETopenai0123456789abcdefXYZ"
ANTHROPIC_KEY = "sk-ant-api03-RELSECRETanthropic0123456789abcdefXYZ"
COMPAT_KEY = "RELSECRETcompat-0123456789abcdef"  # not key-shaped: only registration can hide it
GOAL_KEY = "sk-proj-RELSECRETgoal0123456789abcdef"
MODEL_KEY = "sk-RELSECRETmodel0123456789abcdef"
TOOL_KEY = "ghp_RELSECRETtool0123456789abcdefABCDEF"
ARG_KEY = "RELSECRETargument-0123456789"
BEARER = "Bearer RELSECRETbearer0123456789abcdef"
MARKER = "RELSECRET"
"""Every secret above contains it; no scanned text may."""
LOGGERS = ("agent_core", "openai", "anthropic", "httpx2", "httpcore2", "httpx", "httpcore", "")


def assert_clean(where: str, text: str) -> None:
    """No secret (nor the start of one: a partial echo is a leak too) in ``text``."""
    at = text.find(MARKER)
    assert at < 0, f"secret leaked into {where}: …{text[max(0, at - 80) : at + 60]!r}…"


def scan_folder(root: Path) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            assert_clean(str(path.relative_to(root)), path.read_bytes().decode("utf-8", "replace"))


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def scan_logs(caplog: pytest.LogCaptureFixture) -> None:
    assert caplog.records, "nothing was logged at DEBUG: the capture is not working"
    for record in caplog.records:
        text = record.getMessage()
        if record.exc_info:
            text += logging.Formatter().formatException(record.exc_info)
        assert_clean(f"log {record.name}", text)
    assert_clean("formatted logs", caplog.text)


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def leaky_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def fetch(url: str, api_key: str, authorization: str = "") -> dict[str, Any]:
        """Echoes what it was given, and a token of its own (a careless tool)."""
        return {
            "url": url,
            "api_key": api_key,
            "headers": {"Authorization": authorization},
            "note": f"used token {TOOL_KEY} and {api_key}",
            "raw": f"Authorization: {BEARER}",
        }

    @registry.tool
    def flaky(x: str) -> str:
        """Fails with the key in the message (a careless backend)."""
        raise ConnectionError(f"upstream refused api_key={ARG_KEY} and {TOOL_KEY}")

    @registry.tool
    def crash(x: str) -> str:
        """Raises with the key in the message."""
        raise RuntimeError(f"boom with {OPENAI_KEY} / {BEARER}")

    return registry


TOOL_TURN = [
    (
        "call_a",
        "fetch",
        json.dumps({"url": f"https://x.test/?key={GOAL_KEY}", "api_key": ARG_KEY, "authorization": BEARER}),
    ),
    ("call_b", "flaky", '{"x": "y"}'),
    ("call_c", "crash", '{"x": "y"}'),
]


def _wire(provider_id: str) -> tuple[Any, Any, dict[str, str]]:
    """(body builder, error body builder, env) for a provider id."""
    if provider_id == "openai":
        return (
            lambda text, calls: responses_body(text=text, calls=calls),
            lambda msg: openai_error(msg, code="invalid_api_key"),
            {"OPENAI_API_KEY": OPENAI_KEY},
        )
    if provider_id == "openai-chat":
        return (
            lambda text, calls: chat_body(text=text, calls=calls),
            lambda msg: openai_error(msg, code="invalid_api_key"),
            {"OPENAI_COMPAT_API_KEY": COMPAT_KEY},
        )
    return (
        lambda text, calls: anthropic_body(text=text, calls=[(c, n, json.loads(a)) for c, n, a in calls]),
        lambda msg: anthropic_error(msg, type_="authentication_error"),
        {"ANTHROPIC_API_KEY": ANTHROPIC_KEY},
    )


@pytest.mark.parametrize("provider_id", ["openai", "openai-chat", "anthropic"])
def test_no_secret_in_records_logs_events_or_errors(
    provider_id: str,
    srv: FakeLLMServer,
    settings: Settings,
    logs: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body, error, env = _wire(provider_id)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # What the server echoes: this provider's configured key and key-shaped strings. (A key the
    # engine was never given and that has no key shape cannot be recognised by anyone.)
    all_keys = " ".join(dict.fromkeys([OPENAI_KEY, ANTHROPIC_KEY, *env.values()]))
    base = srv.url("/v1") if provider_id != "anthropic" else srv.url()
    # 1. A run whose key is refused: the 401 body echoes the key (and the other providers' keys).
    srv.push(error(f"Incorrect API key provided: {all_keys}. You can find your API key at …"), status=401)
    provider = make_provider(provider_id, settings=settings, model="m", base_url=base)
    events = list(run_agent(f"use {GOAL_KEY} please", provider=provider, registry=leaky_registry(), settings=settings))
    assert events[-1].status == "error" and "401" in events[-1].error["message"]
    for event in events:
        assert_clean(f"event {event.kind}", json.dumps(event.as_dict(), default=str))
    # The request itself carried the key (the fake saw it) — so the scan below is meaningful.
    sent = srv.requests[-1]["headers"]
    assert any(key in (sent.get("authorization", "") + sent.get("x-api-key", "")) for key in env.values())
    assert all(MARKER not in json.dumps(body) for body in srv.bodies)  # the goal's key was masked before sending
    # 2. A run that works: rate limited once (the 429 body echoes a key), then tool calls that
    #    handle keys, model text with keys, and an answer with a key.
    srv.push(error(f"Rate limit for key {all_keys}"), status=429, headers={"retry-after-ms": "1"})
    srv.push(body(f"I will use {MODEL_KEY} and {BEARER}", TOOL_TURN))
    srv.push(error(f"Server error near {all_keys}"), status=500)
    srv.push(body(f"The key was {MODEL_KEY}; api_key={ARG_KEY}", []))
    events = list(run_agent(f"use {GOAL_KEY} please", provider=provider, registry=leaky_registry(), settings=settings))
    assert events[-1].status == "completed", events[-1].error
    for event in events:
        assert_clean(f"event {event.kind}", json.dumps(event.as_dict(), default=str))
    # 3. The SDK's own error object echoes the key; the engine's error never does.
    srv.push(error(f"Incorrect API key provided: {all_keys}"), status=401)
    request = ModelRequest(instructions="i", goal="g", blocks=[], tools=[], step=1, timeout=5)
    with pytest.raises(ProviderError) as caught:
        provider.complete(request)
    assert_clean("ProviderError", f"{caught.value} {caught.value!r} {caught.value.message} {caught.value.__dict__}")
    scan_folder(settings.data_dir)
    from agent_core.records.store import RunStore

    store = RunStore(settings.runs_dir)
    store.refresh()
    assert_clean("run table", store.runs().to_csv() + store.tool_calls().to_csv())
    scan_folder(settings.data_dir)  # the index written by the store too
    scan_logs(logs)


class _RaisingProvider(ScriptedProvider):
    """A provider with a bug whose exception message quotes the key."""

    def complete(self, request: ModelRequest) -> ModelResponse:
        raise RuntimeError(f"internal failure, headers={{'Authorization': '{BEARER}'}}, key={OPENAI_KEY}")


def test_engine_bugs_are_logged_without_the_key(settings: Settings, logs: pytest.LogCaptureFixture) -> None:
    """Tracebacks logged for an engine or provider bug go through masking too."""
    events = list(run_agent("g", provider=_RaisingProvider([]), registry=leaky_registry(), settings=settings))
    assert events[-1].status == "error"
    for event in events:
        assert_clean(f"event {event.kind}", json.dumps(event.as_dict(), default=str))
    provider = ScriptedProvider(
        [{"tool_calls": [{"name": n, "arguments": a, "call_id": c} for c, n, a in TOOL_TURN]}, {"text": "ok"}]
    )
    list(run_agent("g", provider=provider, registry=leaky_registry(), settings=settings))
    scan_folder(settings.data_dir)
    scan_logs(logs)
    assert any(r.name.startswith("agent_core.run.dispatcher") for r in logs.records)  # the transient retry was logged


def test_cli_output_and_sdk_debug_logs_hold_no_key(srv: FakeLLMServer, data_dir: Path) -> None:
    """The CLI with the SDK's own debug logging on (OPENAI_LOG=debug) and a 401 that echoes the key."""
    srv.push(openai_error(f"Incorrect API key provided: {COMPAT_KEY}", code="invalid_api_key"), status=401)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        AGENT_DATA_DIR=str(data_dir),
        PYTHONPATH=str(REPO),
        RETRY_DELAYS="0",
        OPENAI_LOG="debug",
        OPENAI_COMPAT_API_KEY=COMPAT_KEY,
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            f"use {GOAL_KEY}",
            "--provider",
            "openai-chat",
            "--base-url",
            srv.url("/v1"),
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=data_dir,
        timeout=60,
    )
    assert done.returncode == 1
    assert "rejected the API key (401)" in done.stderr
    assert "Request options" in done.stderr or "HTTP Request" in done.stderr  # the SDK did log at debug
    assert COMPAT_KEY in srv.requests[0]["headers"]["authorization"]
    assert_clean("CLI stdout", done.stdout)
    assert_clean("CLI stderr", done.stderr)
    scan_folder(data_dir)


# --------------------------------------------------------------------------------- the pages
def page_text(at: Any) -> str:
    """Every string the page would send to the browser (element protos, table contents)."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if type(node).__name__ in ("TextArea", "TextInput"):
            return  # what the user typed in, shown back to that user as they typed it
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        value = getattr(node, "value", None) if type(node).__name__ == "Dataframe" else None
        if value is not None:
            parts.append(value.to_csv())
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def _openai_script(srv: FakeLLMServer) -> None:
    """A 401 that echoes the key, then a run whose model text, tool arguments and answer hold keys."""
    srv.push(openai_error(f"Incorrect API key provided: {OPENAI_KEY}", code="invalid_api_key"), status=401)
    srv.push(
        responses_body(
            text=f"Using {MODEL_KEY}",
            calls=[("call_1", "word_count", json.dumps({"text": f"api_key={ARG_KEY} {BEARER} {TOOL_KEY}"}))],
        )
    )
    srv.push(responses_body(text=f"Done with {MODEL_KEY} and {OPENAI_KEY}"))


@pytest.fixture
def page_env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("RETRY_DELAYS", "0")
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    return data_dir


def test_history_and_tool_stats_pages_show_no_key(srv: FakeLLMServer, page_env: Path) -> None:
    from streamlit.testing.v1 import AppTest

    from agent_core.tools.builtins import build_default_registry

    _openai_script(srv)
    config = Settings.from_env(dotenv=False)
    for _ in range(2):
        provider = make_provider("openai", settings=config, base_url=srv.url("/v1"))
        list(
            run_agent(
                f"Count the words in 'my key is {GOAL_KEY}'",
                provider=provider,
                registry=build_default_registry(config),
                settings=config,
            )
        )
    runs = sorted(p.stem for p in (page_env / "runs").glob("*.json"))
    assert len(runs) == 2
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    for page, query in [
        ("pages/history.py", {}),
        ("pages/history.py", {"run": runs[0]}),
        ("pages/history.py", {"run": runs[1]}),
        ("pages/tool_stats.py", {}),
    ]:
        at.switch_page(page)
        for key, value in query.items():
            at.query_params[key] = value
        at.run()
        assert not at.exception, (page, [e.value for e in at.exception])
        text = page_text(at)
        assert_clean(f"{page} {query}", text)
        if query.get("run") == runs[0]:
            assert "rejected the API key" in text  # the 401 run's error is shown, without the key
        if query.get("run") == runs[1]:
            assert "Done with" in text
    scan_folder(page_env)


def test_run_page_shows_no_key(srv: FakeLLMServer, page_env: Path) -> None:
    from streamlit.testing.v1 import AppTest

    _openai_script(srv)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.selectbox(key="run_provider").select("openai").run()
    at.text_input(key="run_base_url_openai").input(srv.url("/v1")).run()
    at.text_area(key="run_goal").input(f"Count the words in 'my key is {GOAL_KEY}'").run()
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "rejected the API key" in page_text(at)
    assert_clean("Run page after a 401", page_text(at))
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Done with" in page_text(at)
    assert_clean("Run page after a run", page_text(at))
    scan_folder(page_env)
