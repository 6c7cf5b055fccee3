"""The CLI as a user runs it: a fresh process, the offline provider, a temp data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.record_schema import assert_valid_record

REPO = Path(__file__).resolve().parent.parent


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(AGENT_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO), RETRY_DELAYS="0,0")
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args], capture_output=True, text=True, env=env, cwd=data_dir, timeout=120
    )


def test_seed_goal_and_json_record(data_dir: Path) -> None:
    done = cli(data_dir, "run", "단가를 확인해서 제품 7개의 총 가격을 계산해 주세요.", "--provider", "offline")
    assert done.returncode == 0, done.stderr
    assert "168" in done.stdout
    assert "lookup(" in done.stderr and "calculator(" in done.stderr and "record: " in done.stderr
    saved = Path(done.stderr.strip().splitlines()[-1].removeprefix("record: "))
    record = json.loads((data_dir / saved if not saved.is_absolute() else saved).read_text())
    assert [c["tool"] for c in record["tool_calls"]] == ["lookup", "calculator"]
    assert_valid_record(record)

    done = cli(data_dir, "run", "What is (24*7)+100?", "--provider", "offline", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert "268" in record["answer"] and record["status"] == "completed"
    assert_valid_record(record)


def test_runs_lists_newest_first_and_reports_bad_files(data_dir: Path) -> None:
    assert cli(data_dir, "run", "hello", "--provider", "offline", "-q").returncode == 0
    assert cli(data_dir, "run", "What is 2+2?", "--provider", "offline", "-q").returncode == 0
    (data_dir / "runs" / "broken.json").write_text("{oops")
    done = cli(data_dir, "runs")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "goal" in lines[0] and "What is 2+2?" in lines[2] and "hello" in lines[3]
    assert "skipped broken.json" in done.stderr and "Traceback" not in done.stderr
    rows = [json.loads(line) for line in cli(data_dir, "runs", "--json").stdout.splitlines()]
    assert [r["goal"] for r in rows] == ["What is 2+2?", "hello"]


def test_bad_input_gets_one_line_and_nonzero_exit(data_dir: Path) -> None:
    done = cli(data_dir, "run", "   ")
    assert done.returncode == 2 and done.stderr.strip() == "error: The goal is empty: write what the agent should do."
    done = cli(data_dir, "run", "hi", "--provider", "openai")
    assert done.returncode == 2 and "OPENAI_API_KEY" in done.stderr and "Traceback" not in done.stderr
    done = cli(data_dir, "run", "hi", "--provider", "offline", "--tools", "nope")
    assert done.returncode == 2 and "unknown tool" in done.stderr
    assert cli(data_dir, "runs").stdout.startswith("no runs yet")


def test_failed_run_exits_nonzero(data_dir: Path) -> None:
    done = cli(data_dir, "run", "What is 1+1?", "--provider", "offline", "--max-steps", "1", "-q")
    assert done.returncode == 1 and "run max_steps" in done.stderr


def test_a_fresh_data_folder_gets_the_sample_documents(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    done = cli(fresh, "run", "Search the documents for refund", "--provider", "offline")
    assert done.returncode == 0, done.stderr
    assert "copied the sample documents" in done.stderr
    assert (fresh / "workspace" / "refund_policy.md").is_file()
    assert "refund_policy.md" in done.stdout  # the search found the sample document
    again = cli(fresh, "run", "hello", "--provider", "offline")
    assert "copied the sample" not in again.stderr  # once


class _Exited(Exception):
    def __init__(self, how: str, code: int) -> None:
        super().__init__(how, code)
        self.how, self.code = how, code


def _exit_with(monkeypatch: pytest.MonkeyPatch, *, loaded: bool, busy_thread: bool = False) -> _Exited:
    """What :func:`agent_core.cli.main.exit_process` did: ``os._exit`` or ``sys.exit``, and the code."""
    import threading

    from agent_core.cli import main as cli
    from agent_core.providers.local import engine as local_engine

    # Where the loaded model really lives: a stand-in there, as after a local run.
    monkeypatch.setattr(local_engine, "_ENGINE", object() if loaded else None)

    def os_exit(code: int) -> None:
        raise _Exited("os._exit", code)

    def sys_exit(code: int) -> None:
        raise _Exited("sys.exit", code)

    monkeypatch.setattr(cli.os, "_exit", os_exit)
    monkeypatch.setattr(cli.sys, "exit", sys_exit)
    release = threading.Event()
    worker = threading.Thread(target=release.wait, daemon=False) if busy_thread else None
    if worker is not None:
        worker.start()
    try:
        cli.exit_process(3)
    except _Exited as exited:
        return exited
    finally:
        release.set()
        if worker is not None:
            worker.join()
    raise AssertionError("exit_process returned")


def test_the_cli_skips_the_teardown_only_when_the_local_model_is_loaded_and_nothing_else_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tearing llama.cpp down took ~0.5 s of each CLI run and writes nothing; a thread still at work
    (a snapshot being saved) is waited for by a normal exit."""
    fast = _exit_with(monkeypatch, loaded=True)
    assert (fast.how, fast.code) == ("os._exit", 3)
    assert _exit_with(monkeypatch, loaded=False).how == "sys.exit"
    waited = _exit_with(monkeypatch, loaded=True, busy_thread=True)
    assert (waited.how, waited.code) == ("sys.exit", 3)


@pytest.mark.local_model
def test_a_local_cli_run_prints_its_answer_before_the_fast_exit(tmp_path: Path) -> None:
    """End to end with the real local model: stdout (a short answer, still in the buffer) is
    flushed before ``os._exit``."""
    from agent_core.providers import local

    if local.availability() is not None:
        pytest.skip(f"the local model is not installed: {local.availability()}")
    data = tmp_path / "agent_data"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout buffered, as usual
    env.update(AGENT_DATA_DIR=str(data), REQUEST_TIMEOUT="300")
    done = subprocess.run(
        [sys.executable, "-m", "agent_core", "run", "hello", "--provider", "local"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = list((data / "runs").glob("*.json"))
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["status"] == "completed" and record["answer"]
    assert done.stdout.strip() == record["answer"].strip()
