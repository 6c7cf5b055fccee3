"""Reliability: a run killed, stopped or starved of disk loses nothing it had finished.

Issue 7, cases 1 and 10. ``kill -9`` of a real CLI run while step 2's model call is in flight
(the openai-chat provider on the real SDK, pointed at the local fake server) leaves a valid
record with step 1 that every reader shows as ``interrupted``; Ctrl-C and the engine's Stop
save ``cancelled``; a full or read-only data folder gives a clear error in the engine, the CLI
and the Run page, and never replaces a good record with a half-written one.
"""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_llm_server import FakeLLMServer, chat_body

from agent_core.errors import ProviderError
from agent_core.providers.base import ModelRequest, ModelResponse
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import effective_status, load_record
from agent_core.records.store import RunStore
from agent_core.run.events import ModelCallRetrying, RunFinished, StepFinished
from agent_core.run.loop import run_agent, run_to_end
from agent_core.settings import Settings
from agent_core.tools.builtins import build_default_registry
from tests.record_schema import assert_valid_record

REPO = Path(__file__).resolve().parent.parent
COMPAT_KEY = "compat-reliability-key-0123456789"


@pytest.fixture
def srv() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def cli_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("OPENAI_COMPAT")}
    env.update(AGENT_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO), RETRY_DELAYS="0,0", PYTHONDONTWRITEBYTECODE="1")
    env.update(extra)
    return env


def cli(data_dir: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args],
        capture_output=True,
        text=True,
        env=cli_env(data_dir),
        cwd=data_dir,
        timeout=60,
        **kwargs,
    )


def start_chat_run(srv: FakeLLMServer, data_dir: Path, goal: str = "What is 6*7?") -> subprocess.Popen[str]:
    """A CLI run on openai-chat: step 1 calls the calculator, step 2's answer is 30 s late."""
    srv.push(chat_body(text="Let me compute.", calls=[("call_1", "calculator", '{"expression": "6*7"}')]))
    srv.push(chat_body(text="It is 42."), delay=30)
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_core",
            "run",
            goal,
            "--provider",
            "openai-chat",
            "--base-url",
            srv.url("/v1"),
            "--model",
            "fake-llm",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=data_dir,
        env=cli_env(data_dir, OPENAI_COMPAT_API_KEY=COMPAT_KEY),
        # Ctrl-C as in a terminal: a child inherits an ignored SIGINT, and in the whole suite
        # something in this process leaves it ignored (the run then never saw the Ctrl-C).
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_second_request(srv: FakeLLMServer, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while len(srv.requests) < 2:
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the CLI never made its second model call")
        time.sleep(0.02)


def only_record(data_dir: Path) -> tuple[Path, dict[str, Any]]:
    files = list((data_dir / "runs").glob("*.json"))
    assert len(files) == 1, files
    assert not [p for p in (data_dir / "runs").iterdir() if p.name.startswith(".")]  # no temp file left
    return files[0], json.loads(files[0].read_text(encoding="utf-8"))  # plain JSON, as any reader would


def assert_step_one_kept(record: dict[str, Any]) -> None:
    assert_valid_record(record)
    assert [s["index"] for s in record["steps"]] == [1]
    (call,) = record["tool_calls"]
    assert (call["call_id"], call["tool"], call["success"], call["output"]) == ("call_1", "calculator", True, "42")
    assert record["steps"][0]["tool_call_ids"] == ["call_1"]
    assert len(record["context_blocks"]) == 1
    assert COMPAT_KEY not in json.dumps(record)


# --------------------------------------------------------------------------------- case 1
def test_kill_9_during_step_2_model_call_keeps_step_1_and_shows_interrupted(
    srv: FakeLLMServer, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = start_chat_run(srv, data_dir)
    wait_for_second_request(srv, proc)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(10) == -signal.SIGKILL  # reaped: the pid is really gone
    # The model saw step 1's result in the request that was in flight.
    assert srv.bodies[1]["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}

    path, record = only_record(data_dir)
    assert record["status"] == "running" and record["owner"]["pid"] == proc.pid
    assert_step_one_kept(record)
    assert effective_status(record) == "interrupted"

    store = RunStore(data_dir / "runs")
    store.refresh()
    assert list(store.runs()["status"]) == ["interrupted"] and store.problems() == []
    assert store.load(record["run_id"])["status_shown"] == "interrupted"

    done = cli(data_dir, "runs", "--json")
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert (row["run_id"], row["status"], row["steps"], row["tool_calls"]) == (record["run_id"], "interrupted", 1, 1)

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.switch_page("pages/history.py")
    at.query_params["run"] = record["run_id"]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    # Opened on the run: its outcome says it failed, the saved status says interrupted.
    assert any(m.label == "Outcome" and "Failed" in m.value and "interrupted" in m.help for m in at.metric)
    at.button(key="history_back").click().run()  # ← all runs
    table = next(d.value for d in at.dataframe if "run_id" in d.value.columns and "status" in d.value.columns)
    assert list(table["status"]) == ["Failed"]  # the Run page's word for an interrupted run (issue 35)


def test_ctrl_c_during_a_model_call_saves_cancelled(srv: FakeLLMServer, data_dir: Path) -> None:
    """Ctrl-C is the CLI's Stop: the run ends ``cancelled`` with its finished steps."""
    proc = start_chat_run(srv, data_dir)
    wait_for_second_request(srv, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    _, record = only_record(data_dir)
    assert record["status"] == "cancelled", record["status"]
    assert record["finished_at"] and record["error"]["type"] == "Cancelled"
    assert_step_one_kept(record)


class _BlockingProvider(ScriptedProvider):
    """Scripted turns; the call for step ``block_step`` waits until ``release`` is set."""

    instant = False  # it blocks: called in a worker thread like a real model

    def __init__(self, turns: list[dict[str, Any]], block_step: int) -> None:
        super().__init__(turns)
        self.block_step = block_step
        self.in_flight = threading.Event()
        self.release = threading.Event()

    def complete(self, request: ModelRequest) -> ModelResponse:
        if request.step == self.block_step:
            self.in_flight.set()
            assert self.release.wait(10)
        return super().complete(request)


def test_stop_while_a_model_call_is_in_flight_keeps_finished_steps(settings: Settings) -> None:
    """The UI's Stop sets the cancel event from another thread while step 2's call is running."""
    turns = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}, "call_id": "call_1"}]},
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}, "call_id": "call_2"}]},
        {"text": "never reached"},
    ]
    provider = _BlockingProvider(turns, block_step=2)
    cancel = threading.Event()
    events: list[Any] = []
    worker = threading.Thread(
        target=lambda: events.extend(
            run_agent(
                "g", provider=provider, registry=build_default_registry(settings), settings=settings, cancel=cancel
            )
        )
    )
    worker.start()
    assert provider.in_flight.wait(10)
    cancel.set()  # Stop pressed while the model is thinking
    worker.join(2)  # the run does not wait for the answer
    assert not worker.is_alive() and not provider.release.is_set()
    provider.release.set()  # the abandoned call returns later: dropped, the record is not touched
    assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
    record = load_record(events[-1].path)
    assert_valid_record(record)
    assert record["status"] == "cancelled"
    assert [c["call_id"] for c in record["tool_calls"]] == ["call_1"]  # step 2's call was never run
    assert record["tool_calls"][0]["output"] == "42"
    assert [b["step"] for b in record["context_blocks"]] == [1]  # no half block


def test_stop_while_a_tool_runs_ends_at_once_and_keeps_the_call(settings: Settings) -> None:
    """A tool that takes its time (or hangs until its timeout) does not hold a Stop: the run
    ends at once, and the call stays in the log marked ``cancelled`` (not counted as a failure)."""
    registry = build_default_registry(settings)
    started, release = threading.Event(), threading.Event()

    @registry.tool(timeout=60)
    def slow_report(topic: str) -> str:
        """Write a report (slowly)."""
        started.set()
        release.wait(30)
        return "late"

    turns = [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}, "call_id": "call_1"}]},
        {"tool_calls": [{"name": "slow_report", "arguments": {"topic": "x"}, "call_id": "call_2"}]},
        {"text": "never reached"},
    ]
    cancel = threading.Event()
    events: list[Any] = []
    worker = threading.Thread(
        target=lambda: events.extend(
            run_agent("g", provider=ScriptedProvider(turns), registry=registry, settings=settings, cancel=cancel)
        )
    )
    worker.start()
    assert started.wait(10)
    t0 = time.perf_counter()
    cancel.set()
    worker.join(5)
    assert not worker.is_alive() and time.perf_counter() - t0 < 1.0
    release.set()
    assert events[-1].status == "cancelled"
    record = load_record(events[-1].path)
    assert_valid_record(record)
    first, stopped = record["tool_calls"]
    assert first["success"] and "cancelled" not in first
    assert stopped["call_id"] == "call_2" and stopped["cancelled"] is True and not stopped["success"]
    assert "stopped" in stopped["error"] and stopped["duration_ms"] < 2000
    assert record["steps"][-1]["tool_call_ids"] == ["call_2"]
    assert [b["step"] for b in record["context_blocks"]] == [1]  # step 2's block is not whole
    store = RunStore(settings.runs_dir, persist=False)
    store.refresh()
    assert list(store.tool_calls()["tool"]) == ["calculator"]  # a stopped call is not the tool's failure


def test_stop_during_a_long_retry_wait_ends_at_once(settings: Settings) -> None:
    """A server asking for a 30 s wait does not hold a Stop for 30 s."""
    provider = ScriptedProvider(
        [ProviderError("busy", transient=True, status=429, retry_after=30.0, error_type="RateLimitError")]
    )
    slow = settings.replace(retry_delays=(30.0,), retry_max_delay=30.0)
    cancel = threading.Event()
    started = time.perf_counter()
    events = []
    for event in run_agent("g", provider=provider, registry=build_default_registry(slow), settings=slow, cancel=cancel):
        events.append(event)
        if isinstance(event, ModelCallRetrying):
            assert event.wait_s == 30.0
            cancel.set()
    assert time.perf_counter() - started < 5
    assert events[-1].status == "cancelled"
    record = load_record(events[-1].path)
    assert record["status"] == "cancelled" and record["steps"] == []
    assert_valid_record(record)


# --------------------------------------------------------------------------------- case 10
class _FullDisk:
    """Makes writes of record temp files fail with ENOSPC half-way, from the ``after``-th save on."""

    def __init__(self, runs_dir: Path, after: int) -> None:
        self.runs_dir = str(runs_dir.resolve())
        self.after = after
        self.saves = 0
        self.failed = 0
        self._real = os.fdopen

    def fdopen(self, fd: int, *args: Any, **kwargs: Any) -> Any:
        handle = self._real(fd, *args, **kwargs)
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return handle
        if not (target.startswith(self.runs_dir + os.sep) and target.endswith(".tmp")):
            return handle
        self.saves += 1
        if self.saves <= self.after:
            return handle
        disk = self

        class HalfWriter(io.BufferedWriter):
            def write(self, data: Any) -> int:
                handle.write(bytes(data)[: len(data) // 2])
                handle.flush()
                disk.failed += 1
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        writer = HalfWriter(io.BytesIO())
        writer.close = handle.close  # type: ignore[method-assign]
        return writer


def test_disk_full_mid_run_keeps_the_last_good_record(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = _FullDisk(settings.runs_dir, after=2)  # the first save and step 1's save succeed
    monkeypatch.setattr(os, "fdopen", disk.fdopen)
    provider = ScriptedProvider(
        [
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}, "call_id": "call_1"}]},
            {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}, "call_id": "call_2"}]},
            {"text": "done"},
        ]
    )
    events = list(run_agent("g", provider=provider, registry=build_default_registry(settings), settings=settings))
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.status == "error"
    assert "Cannot save the run record" in finished.error["message"]
    assert "No space left on device" in finished.error["message"]
    assert disk.failed >= 1
    assert [e.step for e in events if isinstance(e, StepFinished)] == [1]  # the loop stopped at the failed save
    monkeypatch.undo()
    path, record = only_record(settings.data_dir)
    assert record["status"] == "running"  # step 1's version, whole: the half-written temp file never replaced it
    assert_valid_record(record)
    assert [c["call_id"] for c in record["tool_calls"]] == ["call_1"]
    # Once there is room again, the next run is saved normally.
    again = run_to_end(
        "g2", provider=ScriptedProvider([{"text": "ok"}]), registry=build_default_registry(settings), settings=settings
    )
    assert again["status"] == "completed" and load_record(settings.runs_dir / f"{again['run_id']}.json")


def test_run_page_says_the_disk_is_full(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("RETRY_DELAYS", "0,0")
    disk = _FullDisk(data_dir / "runs", after=2)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.")
    monkeypatch.setattr(os, "fdopen", disk.fdopen)
    at.button(key="run_start").click().run()
    monkeypatch.undo()
    assert not at.exception, [e.value for e in at.exception]
    texts = [t.value for t in at.text] + [m.value for m in at.markdown]
    assert any("No space left on device" in t for t in texts), texts
    _, record = only_record(data_dir)
    assert_valid_record(record)
    assert len(record["steps"]) == 1  # the last good version


def test_run_page_with_a_read_only_runs_folder(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``runs`` is a file (what a read-only mount looks like to root): a clear error, no crash."""
    from streamlit.testing.v1 import AppTest

    shutil.rmtree(data_dir / "runs")
    (data_dir / "runs").write_text("not a folder")
    monkeypatch.setenv("AGENT_DATA_DIR", str(data_dir))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.selectbox(key="run_provider").select("offline").run()
    at.text_area(key="run_goal").input("What is (24*7)+100?")
    at.button(key="run_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    texts = [t.value for t in at.text] + [m.value for m in at.markdown] + [e.value for e in at.error]
    assert any("Cannot save the run record" in t for t in texts), texts
    for page in ("pages/history.py", "pages/tool_stats.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
    at.switch_page("pages/history.py").run()
    problems = next(d.value for d in at.dataframe if "problem" in d.value.columns)
    assert any("cannot list the runs folder" in p for p in problems["problem"])  # said, not just "no runs yet"
    done = cli(data_dir, "runs")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "cannot list the runs folder" in done.stderr
    assert (data_dir / "runs").read_text() == "not a folder"


def test_cli_with_a_read_only_runs_folder(data_dir: Path) -> None:
    """A real read-only folder (mode 555, and root's override dropped with setpriv when root)."""
    (data_dir / "runs").chmod(0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: mode 555 does not stop root")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "agent_core", "run", "What is 2+2?", "--provider", "offline"],
            capture_output=True,
            text=True,
            env=cli_env(data_dir),
            cwd=data_dir,
            timeout=60,
        )
    finally:
        (data_dir / "runs").chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "Cannot save the run record" in done.stderr and "Permission denied" in done.stderr
    assert list((data_dir / "runs").iterdir()) == []


def test_cli_file_too_large_mid_write_keeps_the_last_good_record(data_dir: Path) -> None:
    """RLIMIT_FSIZE: the first save fits, step 1's save hits a real EFBIG half-way."""

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "run", "Read notes.txt and summarize it", "--provider", "offline"],
        capture_output=True,
        text=True,
        env=cli_env(data_dir),
        cwd=data_dir,
        timeout=60,
        preexec_fn=limit_file_size,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "Cannot save the run record" in done.stderr and "File too large" in done.stderr
    path, record = only_record(data_dir)
    assert path.stat().st_size <= 4096
    assert_valid_record(record)
    assert record["status"] == "running" and record["steps"] == []  # the first save, intact
    store = RunStore(data_dir / "runs")
    store.refresh()
    assert list(store.runs()["status"]) == ["interrupted"] and store.problems() == []
