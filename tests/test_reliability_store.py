"""Reliability: bad files in the runs folder, and many runs at once.

Issue 7, cases 2 and 3. Every bad file is skipped *and reported*; every good run is still shown
(RunStore, ``python -m agent_core runs``, the History page); reading never hangs, even on a
FIFO or a link to ``/dev/zero``. Twenty runs at once (ten threads, ten processes) give twenty
distinct, schema-valid records whose steps and tool calls all belong to their own goal.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core import masking
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records.files import load_record
from agent_core.records.store import RunStore
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry
from tests.record_schema import assert_valid_record

REPO = Path(__file__).resolve().parent.parent
BOUND_S = 10.0
"""Longest any single read of the runs folder may take before the test calls it a hang."""


# --------------------------------------------------------------------------------- helpers
def cli(
    data_dir: Path, *args: str, preexec: Callable[[], None] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m agent_core ARGS`` in a fresh process on ``data_dir``."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(AGENT_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO), RETRY_DELAYS="0,0")
    return subprocess.run(
        [sys.executable, "-m", "agent_core", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=data_dir,
        timeout=timeout,
        preexec_fn=preexec,
    )


def within(seconds: float, func: Callable[[], Any], *, unblock: Callable[[], None] = lambda: None) -> Any:
    """``func()`` in a worker thread; fail (instead of hanging the suite) when it takes too long."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:  # noqa: BLE001 - re-raised below
            box["error"] = exc

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        unblock()
        pytest.fail(f"reading the runs folder hung for more than {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def release_fifos(folder: Path) -> Callable[[], None]:
    """Open every FIFO in ``folder`` for writing once, so a reader blocked on it gets EOF."""

    def run() -> None:
        for path in folder.iterdir():
            try:
                if stat.S_ISFIFO(path.lstat().st_mode):
                    os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass

    return run


def echo_registry() -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def echo(text: str) -> str:
        """Echo the text back (after a tiny pause, so threads interleave)."""
        time.sleep(0.002)
        return f"echo:{text}"

    return registry


def scripted_runs(settings: Settings, goals: list[str]) -> list[dict[str, Any]]:
    """One finished scripted run per goal (two tool steps, then an answer)."""
    out = []
    for goal in goals:
        provider = ScriptedProvider(
            [
                {"tool_calls": [{"name": "echo", "arguments": {"text": f"{goal}/1"}}]},
                {"tool_calls": [{"name": "echo", "arguments": {"text": f"{goal}/2"}}]},
                {"text": f"answer for {goal}"},
            ]
        )
        out.append(run_to_end(goal, provider=provider, registry=echo_registry(), settings=settings))
    return out


# --------------------------------------------------------------------------------- case 2
BAD_CONTENT: dict[str, bytes] = {
    "corrupt.json": b"{not json at all",
    "empty.json": b"",
    "blank.json": b" \n\t ",
    "foreign.json": b'{"hello": "world", "items": [1, 2, 3]}',
    "list.json": b"[1, 2, 3]",
    "nul.json": b"\x00\x00\x00\x00",
    "latin1.json": '{"goal": "café"}'.encode("latin-1"),
    "no_steps.json": b'{"schema_version": 1, "run_id": "r", "goal": "g", "provider": "p", "status": "completed"}',
    "steps_not_list.json": (
        b'{"schema_version": 1, "run_id": "r", "goal": "g", "provider": "p", "status": "completed",'
        b' "steps": 5, "tool_calls": {}}'
    ),
    "deep.json": b"[" * 200_000 + b"]" * 200_000,
    "bigint.json": b'{"schema_version": 1, "run_id": "r", "n": ' + b"9" * 5000 + b"}",
    "mistyped.json": json.dumps(
        {
            "schema_version": 1,
            "run_id": "01000000-0000-7000-8000-00000000beef",
            "goal": ["not", "text"],
            "provider": {"nested": True},
            "model": 42,
            "status": "exploded",
            "usage": "lots",
            "error": "text",
            "settings": [],
            "answer": {"a": 1},
            "context_blocks": "none",
            "steps": [1, "two", None],
            "history": [None, 3],
            "tool_calls": [None, 7, "call"],
        }
    ).encode(),
}
UNREADABLE = ("x.json", "y.json", "z.json", "loop.json", "huge.json")
"""A directory, a FIFO, a dangling symlink, a symlink loop, a 65 MB sparse file."""


@pytest.fixture
def messy(settings: Settings) -> Iterator[tuple[Settings, list[dict[str, Any]]]]:
    """Three good runs, one truncated copy of a good run, and every kind of bad file."""
    runs_dir = settings.runs_dir
    good = scripted_runs(settings, ["first good run", "second good run", "third good run"])
    data = (runs_dir / f"{good[0]['run_id']}.json").read_bytes()
    (runs_dir / "truncated.json").write_bytes(data[: len(data) // 2])
    for name, content in BAD_CONTENT.items():
        (runs_dir / name).write_bytes(content)
    (runs_dir / "x.json").mkdir()
    (runs_dir / "x.json" / "inner.json").write_bytes(data)
    os.mkfifo(runs_dir / "y.json")
    (runs_dir / "z.json").symlink_to("does-not-exist.json")
    (runs_dir / "loop.json").symlink_to("loop.json")
    with open(runs_dir / "huge.json", "wb") as handle:
        handle.truncate(65 * 2**20)
    # A temp file left by a process killed mid-save: hidden, never shown, never a problem.
    (runs_dir / f".{good[1]['run_id']}.abc123.tmp").write_bytes(data[:100])
    yield settings, good
    release_fifos(runs_dir)()


EXPECTED_PROBLEMS = {"truncated.json", *BAD_CONTENT, *UNREADABLE}


def test_store_skips_and_reports_every_bad_file(messy: tuple[Settings, list[dict[str, Any]]]) -> None:
    settings, good = messy
    store = RunStore(settings.runs_dir)
    started = time.perf_counter()
    within(BOUND_S, store.refresh, unblock=release_fifos(settings.runs_dir))
    assert time.perf_counter() - started < BOUND_S
    problems = dict(store.problems())
    assert set(problems) == EXPECTED_PROBLEMS, f"reported: {sorted(problems)}"
    assert all(reason.strip() for reason in problems.values())
    assert "not a regular file" in problems["x.json"]
    assert "not a regular file" in problems["y.json"]  # the FIFO is refused, not opened and waited on
    assert "empty" in problems["empty.json"] and "not valid JSON" in problems["truncated.json"]
    assert "larger than" in problems["huge.json"]
    assert list(store.runs()["run_id"]) == [r["run_id"] for r in reversed(good)]
    # A second refresh is quiet and still complete; a fresh store (from the index) agrees.
    within(BOUND_S, store.refresh, unblock=release_fifos(settings.runs_dir))
    again = RunStore(settings.runs_dir)
    within(BOUND_S, again.refresh, unblock=release_fifos(settings.runs_dir))
    assert set(dict(again.problems())) == EXPECTED_PROBLEMS
    assert len(again.runs()) == 3
    # Loading a bad one by name is a RecordError, never a hang or another exception.
    from agent_core.errors import RecordError

    for name in ("y", "z", "x", "loop", "huge", "corrupt"):
        with pytest.raises(RecordError):
            within(BOUND_S, lambda n=name: store.load(n), unblock=release_fifos(settings.runs_dir))


def test_a_bad_file_turning_good_and_back_is_followed(settings: Settings) -> None:
    (good,) = scripted_runs(settings, ["only run"])
    store = RunStore(settings.runs_dir)
    store.refresh()
    path = settings.runs_dir / f"{good['run_id']}.json"
    data = path.read_bytes()
    path.write_bytes(data[:-10])  # truncated in place (a copy tool that died half-way)
    os.utime(path, ns=(time.time_ns() + 5_000_000_000,) * 2)
    store.full_scan_interval = 0.0
    store.refresh()
    assert store.runs().empty and [n for n, _ in store.problems()] == [path.name]
    path.write_bytes(data)
    os.utime(path, ns=(time.time_ns() + 10_000_000_000,) * 2)
    store.refresh()
    assert list(store.runs()["run_id"]) == [good["run_id"]] and store.problems() == []


def _limit_memory() -> None:
    """Child process: at most 3 GB of address space, so a reader of /dev/zero dies, not the host."""
    resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, 3 * 2**30))


def without_root_override() -> list[str]:
    """A command prefix that makes permissions count: root normally reads any file whatever its
    mode, so as root the CLI runs under ``setpriv`` without CAP_DAC_OVERRIDE/READ_SEARCH."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a mode-000 file cannot be made unreadable")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


def test_cli_runs_skips_bad_files_including_dev_zero_and_unreadable(
    messy: tuple[Settings, list[dict[str, Any]]],
) -> None:
    """The CLI in a fresh process; also a link to /dev/zero and a mode-000 file."""
    settings, good = messy
    runs_dir = settings.runs_dir
    (runs_dir / "zero.json").symlink_to("/dev/zero")
    (runs_dir / "secret.json").write_bytes((runs_dir / f"{good[0]['run_id']}.json").read_bytes())
    (runs_dir / "secret.json").chmod(0o000)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(AGENT_DATA_DIR=str(settings.data_dir), PYTHONPATH=str(REPO))
    try:
        done = subprocess.run(
            [*without_root_override(), sys.executable, "-m", "agent_core", "runs", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=settings.data_dir,
            timeout=30,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        release_fifos(runs_dir)()
        pytest.fail("`python -m agent_core runs` hung on the bad files")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["run_id"] for r in rows] == [r["run_id"] for r in reversed(good)]
    skipped = {line.split()[1].rstrip(":") for line in done.stderr.splitlines() if line.startswith("skipped ")}
    assert skipped == EXPECTED_PROBLEMS | {"zero.json", "secret.json"}, done.stderr
    assert "Permission denied" in next(line for line in done.stderr.splitlines() if "secret.json" in line)
    assert "not a regular file" in next(line for line in done.stderr.splitlines() if "zero.json" in line)


def test_history_page_lists_bad_files_and_shows_every_good_run(
    messy: tuple[Settings, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from streamlit.testing.v1 import AppTest

    settings, good = messy
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.switch_page("pages/history.py")
    within(60, at.run, unblock=release_fifos(settings.runs_dir))
    assert not at.exception, [e.value for e in at.exception]
    assert any("could not be read" in w.value for w in at.warning)
    frames = [d.value for d in at.dataframe]
    problems = next(f for f in frames if "problem" in f.columns)
    assert set(problems["file"]) == EXPECTED_PROBLEMS
    table = next(f for f in frames if "run_id" in f.columns)
    assert list(table["run_id"]) == [r["run_id"] for r in reversed(good)]
    # Opening a bad file by name in the detail view is a clear error, not a crash or a hang.
    at.query_params["run"] = "y"
    within(60, at.run, unblock=release_fifos(settings.runs_dir))
    assert not at.exception and any("could not be opened" in e.value for e in at.error)


ODD_RECORD = {
    "schema_version": 1,
    "run_id": "01000000-0000-7000-8000-00000000beef",
    "goal": "odd but well-formed",
    "provider": "elsewhere",
    "model": "m",
    "status": "exploded",
    "started_at": "yesterday at noon",
    "finished_at": 12,
    "duration_ms": "slow",
    "usage": {"total_tokens": "many", "input_tokens": None},
    "cost_usd": "free",
    "answer": None,
    "error": {"type": 5},
    "settings": {"max_steps": "ten", "tools": "all"},
    "steps": [
        {
            "index": "x",
            "blocks_sent": "all",
            "usage": [],
            "model_attempts": 3,
            "duration_ms": "slow",
            "tool_call_ids": None,
            "started_at": [],
        }
    ],
    "context_blocks": [{"index": None, "items": "none", "chars": "many", "step": {}}],
    "history": [{"role": 5, "content": {"x": 1}, "tool_calls": "x"}],
    "tool_calls": [
        {
            "tool": ["a"],
            "success": "maybe",
            "attempts": "many",
            "duration_ms": "NaN",
            "started_at": 5,
            "step": "one",
            "call_id": {"id": 1},
            "arguments": "x",
            "fallback": "yes",
            "output": 7,
        }
    ],
}
"""Well-formed at the top (it passes the record check) but with odd values inside: shown, not fatal."""


@pytest.fixture
def odd(settings: Settings) -> tuple[Settings, dict[str, Any]]:
    (good,) = scripted_runs(settings, ["a normal run"])
    (settings.runs_dir / f"{ODD_RECORD['run_id']}.json").write_text(json.dumps(ODD_RECORD))
    return settings, good


def test_odd_values_inside_a_record_are_shown_by_store_and_cli(odd: tuple[Settings, dict[str, Any]]) -> None:
    settings, good = odd
    store = RunStore(settings.runs_dir)
    store.refresh()
    assert set(store.runs()["run_id"]) == {good["run_id"], ODD_RECORD["run_id"]} and store.problems() == []
    assert len(store.tool_calls()) == 3
    assert store.load(ODD_RECORD["run_id"])["goal"] == ODD_RECORD["goal"]
    done = cli(settings.data_dir, "runs")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "a normal run" in done.stdout and "odd but well-formed" in done.stdout


@pytest.mark.parametrize(
    ("page", "query"),
    [
        ("pages/history.py", {}),
        ("pages/history.py", {"run": ODD_RECORD["run_id"]}),
        ("pages/tool_stats.py", {}),
    ],
    ids=["history-table", "history-detail", "tool-stats"],
)
def test_odd_values_inside_a_record_do_not_break_a_page(
    odd: tuple[Settings, dict[str, Any]], monkeypatch: pytest.MonkeyPatch, page: str, query: dict[str, str]
) -> None:
    from streamlit.testing.v1 import AppTest

    settings, _ = odd
    monkeypatch.setenv("AGENT_DATA_DIR", str(settings.data_dir))
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=30)
    at.run()
    at.switch_page(page)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]


# --------------------------------------------------------------------------------- case 3
def _check_own_record(record: dict[str, Any], goal: str) -> None:
    """Schema-valid, finished, and every step / call / block / message belongs to ``goal``."""
    assert_valid_record(record)
    assert record["goal"] == goal and record["status"] == "completed"
    assert record["answer"] == f"answer for {goal}"
    assert [s["index"] for s in record["steps"]] == [1, 2, 3]
    assert [c["arguments"]["text"] for c in record["tool_calls"]] == [f"{goal}/1", f"{goal}/2"]
    assert [c["output"] for c in record["tool_calls"]] == [f"echo:{goal}/1", f"echo:{goal}/2"]
    ids = [c["call_id"] for c in record["tool_calls"]]
    assert [i for s in record["steps"] for i in s["tool_call_ids"]] == ids
    assert len(record["context_blocks"]) == 2
    texts = json.dumps(record["context_blocks"]) + json.dumps(record["history"])
    assert f"{goal}/1" in texts and f"{goal}/2" in texts


def test_ten_threads_and_ten_processes_at_once(settings: Settings) -> None:
    runs_dir = settings.runs_dir
    # Ten processes: the CLI with the offline planner, each with its own arithmetic goal.
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(AGENT_DATA_DIR=str(settings.data_dir), PYTHONPATH=str(REPO), RETRY_DELAYS="0,0")
    proc_goals = {i: f"What is {100 + i}*{7 + i}+{i}?" for i in range(10)}
    procs = {
        i: subprocess.Popen(
            [sys.executable, "-m", "agent_core", "run", goal, "--provider", "offline", "--json", "-q"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=settings.data_dir,
        )
        for i, goal in proc_goals.items()
    }
    # Ten threads in this process (how Streamlit sessions run), started together, while two
    # stores keep re-reading the folder as pages would.
    thread_goals = [f"thread-{i}" for i in range(10)]
    barrier = threading.Barrier(len(thread_goals))
    results: dict[str, dict[str, Any]] = {}
    errors: list[BaseException] = []

    def one(goal: str) -> None:
        try:
            barrier.wait()
            (results[goal],) = scripted_runs(settings, [goal])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    stop = threading.Event()

    def reader() -> None:
        store = RunStore(runs_dir)
        store.full_scan_interval = 0.0
        try:
            while not stop.wait(0.02):  # a page rerun every 20 ms
                store.refresh()
                store.runs()
                store.tool_calls()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    readers = [threading.Thread(target=reader) for _ in range(2)]
    workers = [threading.Thread(target=one, args=(g,)) for g in thread_goals]
    for t in readers + workers:
        t.start()
    for t in workers:
        t.join(60)
    outputs = {i: p.communicate(timeout=60) for i, p in procs.items()}
    stop.set()
    for t in readers:
        t.join(30)
    assert not errors, errors
    for i, proc in procs.items():
        assert proc.returncode == 0, outputs[i][1]

    files = sorted(runs_dir.glob("*.json"))
    assert len(files) == 20
    assert not [p for p in runs_dir.iterdir() if p.name.startswith(".")]  # no temp files left
    records = {r["run_id"]: r for r in (load_record(p) for p in files)}
    assert len(records) == 20  # distinct ids, one file each
    by_goal = {r["goal"]: r for r in records.values()}
    assert set(by_goal) == set(thread_goals) | set(proc_goals.values())
    for goal in thread_goals:
        _check_own_record(by_goal[goal], goal)
        assert by_goal[goal] == {k: v for k, v in results[goal].items()}
    for i, goal in proc_goals.items():
        record = by_goal[goal]
        assert_valid_record(record)
        assert record["status"] == "completed" and record["owner"]["pid"] == procs[i].pid
        assert json.loads(outputs[i][0])["run_id"] == record["run_id"]
        (call,) = [c for c in record["tool_calls"] if c["tool"] == "calculator"]
        assert call["arguments"]["expression"].replace(" ", "") == f"{100 + i}*{7 + i}+{i}"
        assert f"{(100 + i) * (7 + i) + i:,}" in record["answer"]
    store = RunStore(runs_dir)
    store.refresh()
    assert len(store.runs()) == 20 and store.problems() == []
    assert len(store.tool_calls()) == 2 * 10 + 10


def test_masking_is_safe_while_other_sessions_register_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider built in one session registers its key while another session masks text."""
    monkeypatch.setattr(masking, "_extra_secrets", type(masking._extra_secrets)(masking._extra_secrets))
    errors: list[BaseException] = []
    stop = threading.Event()

    def masker() -> None:
        try:
            while not stop.is_set():
                assert masking.mask_text("token sk-proj-ABCDEFGHIJKLMNOP here") == "token **** here"
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    for i in range(2000):  # many sessions' keys already known: each mask_text walks them all
        masking.register_secret(f"reliability-old-key-{i:05d}")
    threads = [threading.Thread(target=masker) for _ in range(2)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 0.5
    count = 0
    try:
        while time.monotonic() < deadline and not errors:
            masking.register_secret(f"reliability-session-key-{count:06d}")
            count += 1
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    assert not errors, errors
    assert masking.mask_text(f"x reliability-session-key-{count - 1:06d} y") == "x **** y"


@pytest.mark.parametrize("damage", ["garbage", "empty", "directory", "truncated"])
def test_a_damaged_index_never_hides_a_run(settings: Settings, damage: str) -> None:
    """The SQLite index is a cache: whatever happened to it, every good run is still shown."""
    from agent_core.records.index import default_index_path

    good = scripted_runs(settings, ["indexed one", "indexed two"])
    first = RunStore(settings.runs_dir)
    first.refresh()
    index = default_index_path(settings.runs_dir)
    assert index.exists() and first.index is not None
    first.index.close()  # damaged while no process has it open (between two app starts)
    for extra in index.parent.glob(index.name + "-*"):  # WAL / shared-memory files
        extra.unlink()
    if damage == "garbage":
        index.write_bytes(b"this is not a database" * 100)
    elif damage == "empty":
        index.write_bytes(b"")
    elif damage == "directory":
        index.unlink()
        index.mkdir()
    else:
        index.write_bytes(index.read_bytes()[:100])
    (third,) = scripted_runs(settings, ["after the damage"])
    store = RunStore(settings.runs_dir)
    within(BOUND_S, store.refresh)
    assert set(store.runs()["run_id"]) == {r["run_id"] for r in [*good, third]}
    assert store.problems() == []
    if damage == "garbage":  # one fresh process is enough to show the CLI copes too
        done = cli(settings.data_dir, "runs", "--json")
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert len(done.stdout.splitlines()) == 3
