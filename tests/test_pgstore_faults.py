"""The team store under faults, on a real PostgreSQL: the engine's per-step save, the database
going away mid-run and coming back, kill -9 of a run and of a sync, 4 writers at once, and
`sync` both ways (idempotent, resumable). The password never shows in any output."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg")

from pgserver import PASSWORD, PgServer, free_port  # noqa: E402
from record_schema import assert_valid_record  # noqa: E402

from agent_core import pgstore  # noqa: E402
from agent_core.cli import main as cli  # noqa: E402
from agent_core.pgstore import outbox, sink  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.records.files import load_record, new_run_id, parse_record, save_record  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.registry import ToolRegistry  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh_writers() -> Any:
    sink.forget_writers()
    yield
    sink.forget_writers()


def stored(url: str, run_id: str) -> dict[str, Any] | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT record::text FROM runs WHERE run_id = %s", (run_id,)).fetchone()
    return parse_record(row[0].encode(), run_id) if row else None


def count(url: str) -> tuple[int, int]:
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT to_regclass('runs')").fetchone() == (None,):
            return 0, 0
        row = conn.execute("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM tool_calls)").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def run_with(settings: Settings, reg: ToolRegistry, turns: list[dict[str, Any]], goal: str = "g") -> dict[str, Any]:
    return run_to_end(goal, provider=ScriptedProvider(turns), registry=reg, settings=settings)


def test_each_step_is_upserted_with_the_user(pg_url: str, settings: Settings) -> None:
    config = settings.replace(store_url=pg_url, user="ana")
    seen: list[int] = []
    reg = ToolRegistry()

    @reg.tool
    def peek(text: str) -> str:
        """Look at what the store holds now."""
        with psycopg.connect(pg_url) as conn:
            row = conn.execute("SELECT steps FROM runs").fetchone()
        seen.append(row[0] if row else -1)
        return text

    from agent_core.run.prepare import prepare_run

    prepared = prepare_run(
        "g",
        provider=ScriptedProvider(
            [
                {"tool_calls": [{"name": "peek", "arguments": {"text": "a"}}]},
                {"tool_calls": [{"name": "peek", "arguments": {"text": "b"}}]},
                {"text": "done"},
            ]
        ),
        registry=reg,
        settings=config,
    )
    record = prepared.run_to_end()
    assert seen == [0, 1]  # the run's start, then step 1, were in the store while the run went on
    assert stored(pg_url, record["run_id"]) == load_record(settings.runs_dir / f"{record['run_id']}.json")
    assert record["user"] == "ana"
    assert outbox.pending(settings.data_dir) == []
    assert sink.team_note(config, record["run_id"]) is None


def test_server_stopped_mid_run_and_started_again(pg_server: PgServer, pg_url: str, settings: Settings) -> None:
    config = settings.replace(store_url=pg_url)
    writer = sink.writer_for(pg_url, settings.data_dir)
    writer.retry_after = 0.0
    reg = ToolRegistry()

    @reg.tool
    def server(action: str) -> str:
        """Stop or start the database."""
        pg_server.stop() if action == "stop" else pg_server.start()
        return action

    try:
        # 1. Down at step 1, back at step 3: the steps in between reach the store when it is back.
        first = run_with(
            config,
            reg,
            [
                {"tool_calls": [{"name": "server", "arguments": {"action": "stop"}}]},
                {"tool_calls": [{"name": "server", "arguments": {"action": "start"}}]},
                {"text": "done"},
            ],
        )
        assert first["status"] == "completed" and len(first["steps"]) == 3
        assert stored(pg_url, first["run_id"]) == first
        assert outbox.pending(settings.data_dir) == []
        assert writer.problem is None
        # 2. Down until the run ends: the run completes in the folder, the person is told.
        second = run_with(
            config, reg, [{"tool_calls": [{"name": "server", "arguments": {"action": "stop"}}]}, {"text": "done"}]
        )
        assert second["status"] == "completed"
        assert load_record(settings.runs_dir / f"{second['run_id']}.json") == second
        assert outbox.pending(settings.data_dir) == [second["run_id"]]
        note = sink.team_note(config, second["run_id"])
        assert note and f"127.0.0.1:{pg_server.port}" in note and "sync" in note and PASSWORD not in note
    finally:
        pg_server.start() if not _up(pg_server) else None
    # The next start sends it (a new process: a new writer), and nothing is lost or doubled.
    sink.forget_writers()
    assert sink.writer_for(pg_url, settings.data_dir).available()
    assert stored(pg_url, second["run_id"]) == second
    assert outbox.pending(settings.data_dir) == []
    assert count(pg_url) == (2, 3)  # 2 runs, 2 + 1 tool calls


def _up(server: PgServer) -> bool:
    try:
        with psycopg.connect(server.url("postgres"), connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def test_unreachable_store_runs_on_in_the_folder_and_says_where(settings: Settings, capsys: Any) -> None:
    port = free_port()
    url = f"postgresql://workbench:{PASSWORD}@127.0.0.1:{port}/workbench"
    config = settings.replace(store_url=url)
    reg = ToolRegistry()
    record = run_with(config, reg, [{"text": "done"}])
    assert record["status"] == "completed"
    assert outbox.pending(settings.data_dir) == [record["run_id"]]
    note = sink.team_note(config, record["run_id"])
    assert note is not None and f"Cannot reach the team store at 127.0.0.1:{port}" in note
    assert PASSWORD not in note
    assert config.store_label == f"postgresql://workbench@127.0.0.1:{port}/workbench"
    assert PASSWORD not in repr(config)


def test_cli_output_never_shows_the_password(
    pg_server: PgServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, caplog: Any
) -> None:
    env = {
        "AGENT_DATA_DIR": str(tmp_path / "data"),
        "AGENT_STORE_URL": pg_server.url(password="wrong-" + PASSWORD),
    }
    run = subprocess.run(
        [sys.executable, "-m", "agent_core", "run", "what is 2+2", "--provider", "offline"],
        env={**os.environ, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "refused user 'workbench'" in run.stderr and f"127.0.0.1:{pg_server.port}" in run.stderr
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    caplog.set_level("DEBUG")
    assert cli.main(["sync"]) == 1
    sync = capsys.readouterr()
    assert "wrong user name or password" in sync.err
    monkeypatch.setenv("AGENT_READ_ONLY", "1")
    assert cli.main(["run", "hi", "--provider", "offline"]) == 2
    ro = capsys.readouterr()
    assert "read-only" in ro.err
    for out in (run.stdout, run.stderr, sync.out, sync.err, ro.err, caplog.text):
        assert PASSWORD not in out


# -- kill -9 --------------------------------------------------------------------------------------
_SLOW_RUN = """
import sys, time
from agent_core.run.loop import run_to_end
from agent_core.providers.scripted import ScriptedProvider
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry
reg = ToolRegistry()

@reg.tool
def wait(seconds: float) -> str:
    \"\"\"Wait.\"\"\"
    time.sleep(seconds)
    return "waited"

turns = [{"tool_calls": [{"name": "wait", "arguments": {"seconds": 0}}]},
         {"tool_calls": [{"name": "wait", "arguments": {"seconds": 600}}]}, {"text": "done"}]
settings = Settings.from_env().replace(tool_timeout=900.0)
run_to_end("slow", provider=ScriptedProvider(turns), registry=reg, settings=settings, run_id=sys.argv[1])
"""


def test_kill_9_mid_step_leaves_the_finished_steps_everywhere(pg_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    run_id = new_run_id()
    env = {**os.environ, "PYTHONPATH": str(REPO), "AGENT_DATA_DIR": str(data), "AGENT_STORE_URL": pg_url}
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_RUN, run_id], env=env)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            record = stored(pg_url, run_id) if count(pg_url)[0] else None
            if record and len(record["steps"]) == 1:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the run's first step never reached the store")
        time.sleep(0.3)  # well inside step 2's 600 s tool call
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    local = load_record(data / "runs" / f"{run_id}.json")
    assert local["status"] == "running" and len(local["steps"]) == 1
    assert stored(pg_url, run_id) == local
    assert outbox.pending(data) == [run_id]  # a run that never finished is sent again at the next start
    with pgstore.connect(pg_url) as conn:
        result = outbox.send_pending(conn, data)
    assert (result.written, result.unchanged) == (0, 1)
    assert outbox.pending(data) == []  # its process is gone: it is final as it is (shown as interrupted)


# -- 4 writers at once ----------------------------------------------------------------------------
_WRITER = """
import sys
from agent_core.providers.scripted import ScriptedProvider
from agent_core.run.prepare import prepare_run
from agent_core.tools.registry import ToolRegistry
reg = ToolRegistry()

@reg.tool
def echo(text: str) -> str:
    \"\"\"Echo.\"\"\"
    return text

for i in range(int(sys.argv[1])):
    turns = [{"tool_calls": [{"name": "echo", "arguments": {"text": f"{sys.argv[2]}-{i}"}}]}, {"text": "done"}]
    prepare_run(f"goal {sys.argv[2]}-{i}", provider=ScriptedProvider(turns), registry=reg).run_to_end()
"""


def test_four_processes_writing_250_runs_each_give_1000_runs(pg_url: str, tmp_path: Path) -> None:
    procs = []
    started = time.perf_counter()
    for n in range(4):
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "AGENT_DATA_DIR": str(tmp_path / f"data{n}"),
            "AGENT_STORE_URL": pg_url,
            "AGENT_USER": f"user{n}",
        }
        procs.append(subprocess.Popen([sys.executable, "-c", _WRITER, "250", str(n)], env=env))
    for proc in procs:
        assert proc.wait(300) == 0
    took = time.perf_counter() - started
    assert count(pg_url) == (1000, 1000)
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute(
            "SELECT user_name, count(*), count(DISTINCT goal) FROM runs GROUP BY 1 ORDER BY 1"
        ).fetchall()
        records = [json.loads(text) for (text,) in conn.execute("SELECT record::text FROM runs").fetchall()]
    assert rows == [(f"user{n}", 250, 250) for n in range(4)]
    for record in records:
        assert record["status"] == "completed"
        assert_valid_record(record)
    print(f"4 x 250 runs written at once in {took:.1f} s")


# -- sync -----------------------------------------------------------------------------------------
def _folder_of(settings: Settings, n: int) -> list[dict[str, Any]]:
    base = run_with(settings, _echo(), [{"tool_calls": [{"name": "echo", "arguments": {"text": "x"}}]}, {"text": "ok"}])
    records = [base]
    for i in range(n - 1):
        rec = copy.deepcopy(base)
        rec["run_id"] = new_run_id()
        rec["goal"] = f"goal {i} 'quoted' \x00"
        save_record(rec, settings.runs_dir)
        records.append(rec)
    return records


def _echo() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    return reg


def _sync(*args: str, env: dict[str, str] | None = None, wait: bool = True) -> Any:
    cmd = [sys.executable, "-m", "agent_core", "sync", *args]
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    if wait:
        return subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=300)
    return subprocess.Popen(cmd, env=full, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_sync_is_idempotent_and_resumable_after_kill_9(pg_url: str, settings: Settings, tmp_path: Path) -> None:
    records = _folder_of(settings, 1000)
    data = str(settings.data_dir)
    proc = _sync("--from", data, "--to", pg_url, "--batch", "50", wait=False)
    lines = []
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)
        if line.startswith("sync: 200/1,000"):
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    partial = count(pg_url)[0]
    assert 200 <= partial < 1000, lines
    again = _sync("--from", data, "--to", pg_url)
    assert again.returncode == 0, again.stderr
    assert count(pg_url) == (1000, 1000)
    assert f"{1000 - partial:,} written, {partial:,} already there" in again.stdout
    third = _sync("--from", data, "--to", pg_url)
    assert "0 written, 1,000 already there" in third.stdout
    assert "sync: 1,000/1,000 runs" in third.stderr
    for out in (again.stdout, again.stderr, third.stderr, "".join(lines)):
        assert PASSWORD not in out
    # And back: the team's runs into an empty folder, then nothing more the second time.
    back = tmp_path / "offline"
    first = _sync("--from", pg_url, "--to", str(back))
    assert first.returncode == 0 and "1,000 written" in first.stdout, first.stderr
    assert "0 written, 1,000 already there" in _sync("--from", pg_url, "--to", str(back)).stdout
    got = {p.stem: load_record(p) for p in (back / "runs").glob("*.json")}
    assert len(got) == 1000
    want = {r["run_id"]: r for r in records}
    assert got[records[0]["run_id"]] == want[records[0]["run_id"]]
    assert got[records[5]["run_id"]]["goal"] == records[5]["goal"].replace("\x00", "\ufffd")


def test_sync_bad_input_is_exit_code_2(tmp_path: Path) -> None:
    assert _sync("--from", str(tmp_path), "--to", str(tmp_path)).returncode == 2
    assert _sync("--to", "mysql://x@y/z").returncode == 2
    assert cli.main(["sync", "--from", str(tmp_path / "nope"), "--to", "postgresql://u@127.0.0.1:1/db"]) == 2


def test_sync_to_a_folder_never_writes_outside_it(pg_url: str, settings: Settings, tmp_path: Path) -> None:
    good = run_with(settings, _echo(), [{"text": "ok"}])
    evil = copy.deepcopy(good)
    evil["run_id"] = "../../escaped"
    with pgstore.connect(pg_url) as conn:
        pgstore.upsert_records(conn, [good, evil])
        from agent_core.pgstore import sync

        report = sync.store_to_folder(conn, tmp_path / "copy")
    assert report.written == 1 and len(report.problems) == 1 and "escaped" in report.problems[0]
    assert [p.name for p in (tmp_path / "copy" / "runs").iterdir()] == [f"{good['run_id']}.json"]
    assert not list(tmp_path.glob("**/escaped.json")) and not (tmp_path.parent / "escaped.json").exists()


def test_settings_of_the_team_store(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"AGENT_STORE_URL": f"postgresql://u:{PASSWORD}@db:5432/runs", "AGENT_USER": "ana", "AGENT_READ_ONLY": "yes"}
    config = Settings.from_env(env)
    assert (config.user, config.read_only, config.store_label) == ("ana", True, "postgresql://u@db:5432/runs")
    assert PASSWORD not in repr(config)
    with pytest.raises(ValueError, match="AGENT_READ_ONLY must be 1 or 0"):
        Settings.from_env({"AGENT_READ_ONLY": "maybe"})
    with pytest.raises(ValueError, match="must start with postgresql://") as info:
        Settings.from_env({"AGENT_STORE_URL": f"mysql://u:{PASSWORD}@db/runs"})
    assert PASSWORD not in str(info.value)
    assert Settings.from_env({}).store_url is None and not Settings.from_env({}).read_only


def test_a_command_of_several_runs_says_once_what_did_not_reach_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    port = free_port()
    monkeypatch.setenv("AGENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_STORE_URL", f"postgresql://workbench:{PASSWORD}@127.0.0.1:{port}/workbench")
    assert cli.main(["arena", "what is 2+2", "--provider", "offline", "--provider", "offline", "-q"]) == 0
    err = capsys.readouterr().err
    assert err.count("note: ") == 1 and f"127.0.0.1:{port}" in err and "2 run(s) are saved in" in err
    assert PASSWORD not in err
    assert len(outbox.pending(tmp_path / "data")) == 2
