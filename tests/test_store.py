"""RunStore and its persisted SQLite index: incremental refresh, bad files, a corrupt or
stale index, a second process reusing the index, and ``running`` records re-checked on read."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent_core.errors import RecordError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.records import files as records
from agent_core.records import index as index_mod
from agent_core.records.columns import COLUMNS_VERSION
from agent_core.records.files import new_run_id, save_record
from agent_core.records.index import RunIndex, default_index_path
from agent_core.records.store import CALL_COLUMNS, RUN_COLUMNS, RunStore, call_rows
from agent_core.run.loop import run_to_end
from agent_core.settings import Settings
from agent_core.tools.registry import ToolRegistry

REPO = Path(__file__).resolve().parent.parent


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return f"echo:{text}"

    return reg


def real_run(settings: Settings, goal: str) -> dict[str, Any]:
    """One run through the real loop: a tool call, a bad call, then an answer."""
    provider = ScriptedProvider(
        [
            {"tool_calls": [{"name": "echo", "arguments": {"text": goal}}, {"name": "nope", "arguments": {}}]},
            {"text": f"answer for {goal}"},
        ]
    )
    return run_to_end(goal, provider=provider, registry=registry(), settings=settings)


def record(
    run_id: str | None = None,
    *,
    started: str = "2026-01-02T03:04:05.000+00:00",
    status: str = "completed",
    calls: int = 2,
    **extra: Any,
) -> dict[str, Any]:
    """A small, valid record written without the loop (fast, and any status or owner)."""
    rid = run_id or new_run_id()
    rec: dict[str, Any] = {
        "schema_version": 1,
        "run_id": rid,
        "goal": f"goal {rid[-4:]}",
        "provider": "offline",
        "model": "m",
        "status": status,
        "started_at": started,
        "updated_at": started,
        "duration_ms": 12.5,
        "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7},
        "cost_usd": 0.0,
        "steps": [{"index": 1}],
        "tool_calls": [
            {
                "call_id": f"c{n}",
                "step": 1,
                "tool": "echo",
                "success": n % 2 == 0,
                "error_category": None if n % 2 == 0 else "transient",
                "attempts": [{}, {}] if n == 1 else [{}],
                "fallback": None,
                "duplicate": False,
                "truncated": False,
                "duration_ms": 1.5 * n,
                "started_at": started,
            }
            for n in range(calls)
        ],
    }
    rec.update(extra)
    return rec


def write(runs_dir: Path, rec: dict[str, Any]) -> Path:
    return save_record(rec, runs_dir)


@pytest.fixture
def runs_dir(settings: Settings) -> Path:
    return settings.runs_dir


# -- tables ---------------------------------------------------------------------------------------
def test_tables_have_the_documented_columns_newest_first(settings: Settings, runs_dir: Path) -> None:
    first = real_run(settings, "first")
    second = real_run(settings, "second")
    store = RunStore(runs_dir)
    assert store.refresh() is True
    runs, calls = store.runs(), store.tool_calls()
    assert list(runs.columns) == RUN_COLUMNS and list(calls.columns) == CALL_COLUMNS
    assert list(runs["run_id"]) == [second["run_id"], first["run_id"]]
    row = runs.iloc[0]
    assert (row["status"], row["steps"], row["tool_calls"], row["failed_calls"]) == ("completed", 2, 2, 1)
    assert row["path"] == str(runs_dir / f"{second['run_id']}.json")
    assert str(runs["started_at"].dtype).startswith("datetime64") and str(runs["started_at"].dt.tz) == "UTC"
    assert len(calls) == 4 and list(calls["run_id"][:2]) == [second["run_id"]] * 2
    assert set(calls["tool"]) == {"echo", "nope"}
    assert calls.loc[calls["tool"] == "nope", "error_category"].tolist() == ["validation", "validation"]
    # The same rows as call_rows() gives for one record (the Tool-stats unit).
    one = call_rows(second)
    assert [r["tool"] for r in one] == ["echo", "nope"] and one[0]["retried"] is False


def test_incremental_refresh_parses_only_new_and_changed_files(runs_dir: Path) -> None:
    recs = [record(started=f"2026-01-0{d}T00:00:00+00:00") for d in range(1, 6)]
    for rec in recs:
        write(runs_dir, rec)
    store = RunStore(runs_dir)
    store.refresh()
    assert store.parsed == 5
    version = store.version
    assert store.refresh() is False and store.parsed == 5 and store.version == version  # nothing new: nothing parsed
    write(runs_dir, record(started="2026-02-01T00:00:00+00:00"))  # one new file
    changed = dict(recs[0], goal="edited goal")
    write(runs_dir, changed)  # one changed file (rewritten: new size/mtime/inode)
    assert store.refresh() is True
    assert store.parsed == 7 and store.version > version
    runs = store.runs()
    assert len(runs) == 6 and runs.iloc[0]["started_at"].month == 2
    assert runs.loc[runs["run_id"] == recs[0]["run_id"], "goal"].item() == "edited goal"


def test_deleted_files_disappear_from_both_tables(runs_dir: Path) -> None:
    keep, gone = record(calls=1), record(calls=3)
    write(runs_dir, keep)
    path = write(runs_dir, gone)
    store = RunStore(runs_dir)
    store.refresh()
    assert len(store.tool_calls()) == 4
    path.unlink()
    assert store.refresh() is True
    assert store.runs()["run_id"].tolist() == [keep["run_id"]]
    assert store.tool_calls()["run_id"].tolist() == [keep["run_id"]]
    fresh = RunStore(runs_dir)
    fresh.refresh()
    assert fresh.runs()["run_id"].tolist() == [keep["run_id"]] and fresh.parsed == 0


def test_bad_files_are_reported_and_skipped(runs_dir: Path) -> None:
    good = record()
    data = json.dumps(good).encode()
    write(runs_dir, good)
    (runs_dir / "corrupt.json").write_bytes(b"{nope")
    (runs_dir / "empty.json").write_bytes(b"")
    (runs_dir / "foreign.json").write_text('{"hello": "world"}')
    (runs_dir / "truncated.json").write_bytes(data[: len(data) // 2])
    (runs_dir / "x.json").mkdir()
    odd_calls = [{"tool": {"a": 1}, "step": "one", "attempts": "3", "duration_ms": "slow", "fallback": "x"}]
    (runs_dir / "odd.json").write_text(json.dumps(record(owner="me", cost_usd="free", tool_calls=odd_calls)))
    (runs_dir / ".hidden.tmp").write_bytes(b"{")  # a temp file of a save in progress: ignored
    (runs_dir / "notes.txt").write_text("not a record")
    store = RunStore(runs_dir)
    store.refresh()
    problems = dict(store.problems())
    assert set(problems) == {"corrupt.json", "empty.json", "foreign.json", "truncated.json", "x.json"}
    assert "empty" in problems["empty.json"] and "not valid JSON" in problems["truncated.json"]
    assert "not a run record" in problems["foreign.json"] and "not a regular file" in problems["x.json"]
    assert good["run_id"] in set(store.runs()["run_id"])
    assert len(store.runs()) == 2  # the odd-but-valid record is shown
    odd = store.tool_calls()[store.tool_calls()["run_id"] != good["run_id"]].iloc[0]
    assert (odd["tool"], odd["fallback"], odd["attempts"], str(odd["step"])) == ('{"a": 1}', "x", 0, "nan")
    # Problems come back from the index in a new store, without parsing the bad files again.
    again = RunStore(runs_dir)
    again.refresh()
    assert dict(again.problems()) == problems and again.parsed == 0
    # A bad file that is fixed is picked up; a directory that goes away stops being reported.
    (runs_dir / "empty.json").write_text(json.dumps(record()))
    (runs_dir / "x.json").rmdir()
    store.refresh()
    assert "empty.json" not in dict(store.problems()) and "x.json" not in dict(store.problems())
    assert len(store.runs()) == 3


def test_load_reads_one_record_on_demand(runs_dir: Path) -> None:
    rec = record()
    write(runs_dir, rec)
    other = record()
    (runs_dir / "renamed-copy.json").write_text(json.dumps(other))
    store = RunStore(runs_dir)
    store.refresh()
    assert store.load(rec["run_id"])["goal"] == rec["goal"]
    assert store.load(other["run_id"])["run_id"] == other["run_id"]  # found through the table
    for bad in ("", "../x", "a/b", ".hidden", "missing"):
        with pytest.raises(RecordError):
            store.load(bad)


# -- the index --------------------------------------------------------------------------------------
def test_index_lives_in_data_dir_and_a_new_process_reuses_it(settings: Settings, runs_dir: Path) -> None:
    for n in range(6):
        write(runs_dir, record(started=f"2026-01-0{n + 1}T00:00:00+00:00", calls=n))
    store = RunStore(runs_dir)
    store.refresh()
    assert store.parsed == 6
    path = default_index_path(runs_dir)
    assert path == settings.data_dir / "index" / "runs.sqlite" and path.is_file()
    code = (
        "import json, sys; from agent_core.records.store import RunStore\n"
        f"s = RunStore({str(runs_dir)!r}); s.refresh()\n"
        "print(json.dumps([s.parsed, len(s.runs()), len(s.tool_calls()), s.runs()['run_id'].tolist()]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    parsed, n_runs, n_calls, ids = json.loads(out.stdout.strip().splitlines()[-1])
    assert parsed == 0, "a new process must not parse records the index already has"
    assert (n_runs, n_calls) == (6, 15) and ids == store.runs()["run_id"].tolist()


def test_a_stale_index_is_brought_up_to_date(runs_dir: Path) -> None:
    a, b = record(), record()
    write(runs_dir, a)
    path_b = write(runs_dir, b)
    RunStore(runs_dir).refresh()
    path_b.unlink()  # changes made while no store was running
    c = record()
    write(runs_dir, c)
    write(runs_dir, dict(a, goal="changed while away"))
    store = RunStore(runs_dir)
    store.refresh()
    assert store.parsed == 2  # the new file and the changed one
    runs = store.runs().set_index("run_id")
    assert set(runs.index) == {a["run_id"], c["run_id"]} and runs.loc[a["run_id"], "goal"] == "changed while away"


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "old_format", "foreign_db"])
def test_a_corrupt_or_foreign_index_file_is_rebuilt(runs_dir: Path, damage: str) -> None:
    for _ in range(3):
        write(runs_dir, record())
    first = RunStore(runs_dir)
    first.refresh()
    path = first.index.path
    first.index.close()
    if damage == "garbage":
        path.write_bytes(os.urandom(8192))
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1500])
    elif damage == "empty":
        path.write_bytes(b"")
    else:
        con = sqlite3.connect(path)
        if damage == "old_format":
            con.execute("UPDATE meta SET value='0' WHERE key='format'")
        else:
            con.execute("DROP TABLE files")
            con.execute("CREATE TABLE files (something TEXT)")
        con.commit()
        con.close()
    store = RunStore(runs_dir)
    store.refresh()
    assert len(store.runs()) == 3 and len(store.tool_calls()) == 6 and store.problems() == []
    assert store.parsed == 3  # everything read again from the records
    again = RunStore(runs_dir)
    again.refresh()
    assert again.parsed == 0 and len(again.runs()) == 3  # and the rebuilt index is used


def test_who_chose_each_call_round_trips_through_the_index_and_the_snapshot(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mixed = record(calls=5)
    for call, origin in zip(mixed["tool_calls"], ["model", "harness", None, "robot", {"who": 1}]):
        if origin is not None:
            call["origin"] = origin
    mixed["tool_calls"][1]["harness_rule"] = "a rule of the workbench"
    older = record(calls=2)  # from before calls said who chose them
    more = [record(calls=1) for _ in range(58)]  # (enough runs for the tool-call table's snapshot)
    for n, rec in enumerate(more):
        rec["tool_calls"][0]["origin"] = ("model", "harness")[n % 2]
    want = {(mixed["run_id"], "c0"): "model", (mixed["run_id"], "c1"): "harness"}  # anything else: not recorded
    want.update({(rec["run_id"], "c0"): rec["tool_calls"][0]["origin"] for rec in more})
    for rec in (mixed, older, *more):
        write(runs_dir, rec)
    first = RunStore(runs_dir)
    first.refresh()
    calls = first.tool_calls()
    got = {(r, c): o for r, c, o in zip(calls["run_id"], calls["call_id"], calls["origin"]) if isinstance(o, str)}
    assert got == want and len(calls) == 65 and calls["origin"].dtype == "str"
    assert [row["origin"] for row in call_rows(mixed)] == ["model", "harness", None, None, None]
    first.wait_for_snapshot()
    decodes, seen = _decodes(monkeypatch), list[int]()
    for step in ("snapshot", "index", "index of the format before origin"):
        if step == "index":
            assert first.snapshot_path is not None
            first.snapshot_path.unlink()
        elif step.startswith("index of"):
            con = sqlite3.connect(default_index_path(runs_dir))
            con.execute("UPDATE meta SET value=? WHERE key='format'", (f"4-{COLUMNS_VERSION}",))
            con.commit()
            con.close()
        again = RunStore(runs_dir)
        again.refresh()
        assert again.tool_calls().equals(calls), step
        assert again.parsed == (60 if step.startswith("index of") else 0), step
        seen.append(decodes["n"])
    assert seen[:2] == [0, 60]  # from the snapshot alone, then decoded from the index


def test_damaged_call_rows_in_the_index_are_read_again_from_the_file(runs_dir: Path) -> None:
    rec = record(calls=3)
    write(runs_dir, rec)
    RunStore(runs_dir).refresh()
    con = sqlite3.connect(default_index_path(runs_dir))
    con.execute("UPDATE files SET calls='[[1,2],[3]]'")
    con.commit()
    con.close()
    store = RunStore(runs_dir)
    store.refresh()
    assert store.parsed == 0 and len(store.tool_calls()) == 3


def test_an_index_that_cannot_be_written_is_not_fatal(runs_dir: Path, tmp_path: Path) -> None:
    write(runs_dir, record())
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the index folder should be")
    store = RunStore(runs_dir, index_path=blocker / "runs.sqlite")
    store.refresh()
    assert len(store.runs()) == 1
    memory_only = RunStore(runs_dir, persist=False)
    memory_only.refresh()
    assert len(memory_only.runs()) == 1 and memory_only.index is None


def test_an_index_locked_by_another_process_is_not_fatal(runs_dir: Path) -> None:
    write(runs_dir, record())
    RunStore(runs_dir).refresh()
    write(runs_dir, record())
    locker = sqlite3.connect(default_index_path(runs_dir), isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    try:
        store = RunStore(runs_dir)
        store.index.timeout = 0.05
        store.refresh()  # cannot read or write the index: goes on from the files
        assert len(store.runs()) == 2
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    later = RunStore(runs_dir)
    later.refresh()
    assert len(later.runs()) == 2 and later.parsed == 1  # the run saved during the lock is indexed now


def test_an_index_replaced_by_another_process_is_followed(runs_dir: Path) -> None:
    write(runs_dir, record())
    store = RunStore(runs_dir)
    store.refresh()
    path = store.index.path
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)  # e.g. another process rebuilt it
    write(runs_dir, record())
    store.refresh()
    assert len(store.runs()) == 2
    fresh = RunStore(runs_dir)
    fresh.refresh()
    assert fresh.parsed == 1  # the new file went into the new index; the older one is read again
    assert len(fresh.runs()) == 2


def test_two_processes_share_one_index(runs_dir: Path) -> None:
    for n in range(40):
        write(runs_dir, record(calls=n % 4))
    code = (
        "import json; from agent_core.records.store import RunStore\n"
        f"s = RunStore({str(runs_dir)!r}, workers=1); s.refresh()\n"
        "print(json.dumps([len(s.runs()), len(s.tool_calls()), len(s.problems())]))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outs]
    assert {out.strip().splitlines()[-1] for out, _ in outs} == {"[40, 60, 0]"}
    store = RunStore(runs_dir)
    store.refresh()
    assert store.parsed == 0 and len(store.runs()) == 40


def test_threads_share_one_store(runs_dir: Path) -> None:
    for _ in range(30):
        write(runs_dir, record())
    store = RunStore(runs_dir)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(5):
                store.refresh()
                assert len(store.runs()) >= 30 and len(store.tool_calls()) >= 60
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for _ in range(5):
        write(runs_dir, record())
    for t in threads:
        t.join()
    assert not errors
    store.refresh()
    assert len(store.runs()) == 35 and store.parsed == 35


def test_parse_helpers_give_the_same_tables(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(24):
        write(runs_dir, record(started=f"2026-01-{n + 1:02d}T00:00:00+00:00", calls=n % 5))
    (runs_dir / "bad.json").write_text("{")
    serial = RunStore(runs_dir, persist=False, workers=1)
    serial.refresh()
    monkeypatch.setattr(index_mod, "PARALLEL_MIN_FILES", 2)
    monkeypatch.setattr(index_mod, "idle_cores", lambda: 4)  # whatever else the machine is doing
    parallel = RunStore(runs_dir, workers=3)
    parallel.refresh()
    assert parallel.runs().equals(serial.runs()) and parallel.tool_calls().equals(serial.tool_calls())
    assert parallel.problems() == serial.problems()
    reuse = RunStore(runs_dir)
    reuse.refresh()
    assert reuse.parsed == 0 and reuse.tool_calls().equals(serial.tool_calls())  # the helpers' rows were stored
    # Many files at once are kept encoded until the tool-call table is built: same tables.
    encoded = RunStore(runs_dir, persist=False, workers=2)
    encoded.keep_parsed_files = 0
    encoded.refresh()
    assert encoded.tool_calls().equals(serial.tool_calls())
    # A helper that fails is replaced by parsing its share in the caller.
    monkeypatch.setattr(index_mod, "_WORKER", "import sys; sys.exit(3)")
    fallback = RunStore(runs_dir, persist=False, workers=2)
    fallback.refresh()
    assert fallback.runs().equals(serial.runs())


def test_helpers_are_used_only_on_cores_that_are_idle_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_mod, "default_workers", lambda: 2)
    monkeypatch.setattr(index_mod.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(index_mod.time, "sleep", lambda s: None)
    samples = iter([(1000, 2000), (1190, 2200)])  # 190 of 200 jiffies idle: 0.1 core busy
    monkeypatch.setattr(index_mod, "_cpu_times", lambda: next(samples))
    assert index_mod.idle_cores() == 2
    samples = iter([(1000, 2000), (1090, 2200)])  # one core spinning
    assert index_mod.idle_cores() == 1
    samples = iter([(1000, 2000), (1000, 2200)])  # both busy: still one (this process)
    assert index_mod.idle_cores() == 1
    # No /proc/stat: the load average decides.
    monkeypatch.setattr(index_mod, "_cpu_times", lambda: None)
    monkeypatch.setattr(index_mod.os, "getloadavg", lambda: (0.2, 0.5, 0.5))
    assert index_mod.idle_cores() == 2


# -- running records ------------------------------------------------------------------------------
def test_running_records_are_rechecked_on_every_read(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    host = os.uname().nodename
    mine = record(status="running", owner={"pid": os.getpid(), "host": host})
    dead = record(status="running", owner={"pid": 2**22 + 12345, "host": host})
    write(runs_dir, mine)
    write(runs_dir, dead)
    store = RunStore(runs_dir)
    store.refresh()
    status = dict(zip(store.runs()["run_id"], store.runs()["status"]))
    assert status == {mine["run_id"]: "running", dead["run_id"]: "interrupted"}
    # The process owning "mine" goes away: no file changes, yet the next read says interrupted.
    alive = records._pid_alive
    monkeypatch.setattr(records, "_pid_alive", lambda pid: False if pid == os.getpid() else alive(pid))
    version = store.version
    assert dict(zip(store.runs()["run_id"], store.runs()["status"]))[mine["run_id"]] == "interrupted"
    assert store.version > version
    # A new store reads the stored "running" from the index and re-evaluates it too.
    fresh = RunStore(runs_dir)
    fresh.refresh()
    assert fresh.parsed == 0 and set(fresh.runs()["status"]) == {"interrupted"}
    assert store.load(mine["run_id"])["status_shown"] == "interrupted"


def test_a_live_run_is_followed_step_by_step(settings: Settings, runs_dir: Path) -> None:
    store = RunStore(runs_dir)
    seen: list[tuple[str, int]] = []
    provider = ScriptedProvider(
        [{"tool_calls": [{"name": "echo", "arguments": {"text": str(n)}}]} for n in range(3)] + [{"text": "done"}]
    )
    from agent_core.run.events import StepFinished
    from agent_core.run.loop import run_agent

    for event in run_agent("follow me", provider=provider, registry=registry(), settings=settings):
        if isinstance(event, StepFinished):
            store.refresh()
            row = store.runs().iloc[0]
            seen.append((row["status"], int(row["steps"])))
    store.refresh()
    assert seen == [("running", 1), ("running", 2), ("running", 3), ("running", 4)]
    assert store.runs().iloc[0]["status"] == "completed" and len(store.tool_calls()) == 3


# -- the folder-signature shortcut ------------------------------------------------------------------
def test_an_unchanged_folder_is_not_rescanned_but_in_place_edits_are_caught(runs_dir: Path) -> None:
    rec = record()
    path = write(runs_dir, rec)
    old = time.time() - 3600
    os.utime(runs_dir, (old, old))
    store = RunStore(runs_dir)
    store.refresh()
    # Edited in place (no rename): the folder's own mtime does not change.
    path.write_text(json.dumps(dict(rec, goal="edited in place, longer than before")))
    os.utime(runs_dir, (old, old))
    assert store.refresh() is False  # trusted folder signature: no stat of every file
    store.full_scan_interval = 0.0
    assert store.refresh() is True
    assert store.runs().iloc[0]["goal"] == "edited in place, longer than before"
    # Saving a record (temp file + rename) changes the folder and is seen at once.
    store.full_scan_interval = 3600.0
    write(runs_dir, record())
    assert store.refresh() is True and len(store.runs()) == 2


def test_missing_runs_folder_is_empty_not_an_error(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "nowhere" / "runs")
    assert store.refresh() is False
    assert store.runs().empty and list(store.runs().columns) == RUN_COLUMNS
    assert store.tool_calls().empty and list(store.tool_calls().columns) == CALL_COLUMNS
    assert store.problems() == []


def test_index_rows_match_a_direct_parse(runs_dir: Path) -> None:
    rec = record(calls=4, cost_usd=None, duration_ms=None, started="not a date")
    write(runs_dir, rec)
    store = RunStore(runs_dir)
    store.refresh()
    entries = RunIndex(default_index_path(runs_dir)).load()
    assert len(entries) == 1 and entries[0][0][0] == f"{rec['run_id']}.json"
    fresh = RunStore(runs_dir)
    fresh.refresh()
    assert fresh.runs().equals(store.runs()) and fresh.tool_calls().equals(store.tool_calls())
    row = fresh.runs().iloc[0]
    assert row["started_at"] is not None and str(row["started_at"]) == "NaT"


def test_large_folders_list_names_between_full_scans(runs_dir: Path) -> None:
    done = record()
    path = write(runs_dir, done)
    live = record(status="running", owner={"pid": os.getpid(), "host": os.uname().nodename})
    write(runs_dir, live)
    gone = write(runs_dir, record())
    (runs_dir / "bad.json").write_text("{")
    store = RunStore(runs_dir)
    store.refresh()
    store.full_scan_files, store.full_scan_interval = 0, 3600.0  # as if the folder were huge
    new = write(runs_dir, record())  # a new file
    gone.unlink()  # a deleted one
    write(runs_dir, dict(live, status="completed"))  # a live run's save is always checked
    (runs_dir / "bad.json").write_text(json.dumps(record()))  # so is a bad file (fixed in place)
    (runs_dir / "dir.json").mkdir()
    parsed = store.parsed
    assert store.refresh() is True and store.parsed == parsed + 3
    runs = store.runs().set_index("run_id")
    assert new.stem in runs.index and gone.stem not in runs.index
    assert runs.loc[live["run_id"], "status"] == "completed"
    assert [name for name, _ in store.problems()] == ["dir.json"]
    # A finished record written again is noticed at the next full scan.
    write(runs_dir, dict(done, goal="saved again"))
    path.write_text(json.dumps(dict(done, goal="saved again, then edited in place")))
    store.refresh()
    assert store.runs().set_index("run_id").loc[done["run_id"], "goal"] == done["goal"]
    store.full_scan_interval = 0.0
    store.refresh()
    assert store.runs().set_index("run_id").loc[done["run_id"], "goal"] == "saved again, then edited in place"


# -- the tool-call table's snapshot ---------------------------------------------------------------
def _decodes(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the records whose calls a store decodes from the index."""
    count = {"n": 0}
    real = RunStore._decoded

    def counting(self: RunStore, name: str, stored: Any) -> Any:
        count["n"] += 1
        return real(self, name, stored)

    monkeypatch.setattr(RunStore, "_decoded", counting)
    return count


def test_the_tool_call_table_is_reused_from_its_snapshot(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = [record(started=f"2026-01-{1 + n % 28:02d}T{n % 24:02d}:00:00+00:00", calls=1 + n % 4) for n in range(60)]
    paths = [write(runs_dir, rec) for rec in recs]
    first = RunStore(runs_dir)
    first.refresh()
    expected = first.tool_calls()
    first.wait_for_snapshot()
    assert first.snapshot_path is not None and first.snapshot_path.is_file()
    decodes = _decodes(monkeypatch)
    again = RunStore(runs_dir)
    again.refresh()
    assert again.tool_calls().equals(expected) and decodes["n"] == 0 and again.parsed == 0
    # Two records change while no store runs: only theirs are read again.
    write(runs_dir, dict(recs[3], tool_calls=recs[3]["tool_calls"][:1]))
    paths[7].unlink()
    stale = RunStore(runs_dir)
    stale.refresh()
    stale_calls = stale.tool_calls()
    assert decodes["n"] == 1  # the changed record; the deleted one's rows are dropped
    fresh = RunStore(runs_dir, persist=False)
    fresh.refresh()
    assert stale_calls.equals(fresh.tool_calls())


@pytest.mark.parametrize("damage", ["garbage", "empty", "other_folder"])
def test_a_bad_snapshot_is_ignored(runs_dir: Path, tmp_path: Path, damage: str) -> None:
    for n in range(60):
        write(runs_dir, record(calls=1 + n % 5))
    store = RunStore(runs_dir)
    store.refresh()
    expected = store.tool_calls()
    store.wait_for_snapshot()
    snapshot = store.snapshot_path
    assert snapshot is not None and snapshot.is_file()
    if damage == "garbage":
        snapshot.write_bytes(os.urandom(4096))
    elif damage == "empty":
        snapshot.write_bytes(b"")
    else:  # a snapshot of another runs folder, with other files under the same names
        other = tmp_path / "other" / "runs"
        other.mkdir(parents=True)
        for path in runs_dir.glob("*.json"):
            rec = json.loads(path.read_text())
            rec["tool_calls"] = [dict(call, tool="other") for call in rec["tool_calls"]]
            (other / path.name).write_text(json.dumps(rec))
        elsewhere = RunStore(other)
        elsewhere.refresh()
        elsewhere.tool_calls()
        elsewhere.wait_for_snapshot()
        assert elsewhere.snapshot_path is not None
        snapshot.write_bytes(elsewhere.snapshot_path.read_bytes())
    again = RunStore(runs_dir)
    again.refresh()
    assert again.tool_calls().equals(expected)
