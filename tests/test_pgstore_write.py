"""The team store's writing side on a real PostgreSQL: connecting (with plain errors), the
migration runner, and the guarded batch upsert (values equal to the folder index's)."""

from __future__ import annotations

import copy
import threading
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg")

from pgserver import PASSWORD, PgServer, free_port  # noqa: E402

from agent_core import pgstore  # noqa: E402
from agent_core.pgstore import connection as pgconnection  # noqa: E402
from agent_core.pgstore.migrate import migrations  # noqa: E402
from agent_core.pgstore.write import RUN_SQL_COLUMNS, RUN_SQL_TYPES, record_json  # noqa: E402
from agent_core.providers.scripted import ScriptedProvider  # noqa: E402
from agent_core.records.columns import RUN_FIELDS  # noqa: E402
from agent_core.records.files import new_run_id, parse_record  # noqa: E402
from agent_core.records.index import extract  # noqa: E402
from agent_core.records.store import RunStore, call_rows  # noqa: E402
from agent_core.run.loop import run_to_end  # noqa: E402
from agent_core.settings import Settings  # noqa: E402
from agent_core.tools.registry import ToolRegistry  # noqa: E402


def registry() -> ToolRegistry:
    reg = ToolRegistry()

    @reg.tool
    def echo(text: str) -> str:
        """Echo the text."""
        return f"echo:{text}"

    return reg


def real_run(settings: Settings, goal: str, **extra: Any) -> dict[str, Any]:
    provider = ScriptedProvider(
        [
            {
                "tool_calls": [
                    {"name": "echo", "arguments": {"text": goal}},
                    {"name": "nope", "arguments": {}, "origin": "harness", "harness_rule": "a test rule"},
                ]
            },
            {"tool_calls": [{"name": "echo", "arguments": {"text": goal + "!"}}]},
            {"text": f"answer for {goal}"},
        ]
    )
    return run_to_end(goal, provider=provider, registry=registry(), settings=settings, record_extra=extra or None)


def stored(conn: Any, run_id: str) -> dict[str, Any]:
    row = conn.execute("SELECT record::text FROM runs WHERE run_id = %s", (run_id,)).fetchone()
    assert row is not None
    return parse_record(row[0].encode(), run_id)


# -- connect and migrate -------------------------------------------------------------------------
def test_connect_applies_the_migrations_once_and_records_them(pg_url: str) -> None:
    with pgstore.connect(pg_url) as conn:
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY version").fetchall()
        assert [(m.version, m.name) for m in migrations()] == rows
        assert rows[0] == (1, "0001_initial")
        assert pgstore.migrate(conn) == []  # nothing left to do
    with pgstore.connect(pg_url) as conn:  # a second start applies nothing again
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone() == (len(rows),)


def test_many_instances_starting_at_once_apply_each_migration_once(pg_url: str) -> None:
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def start() -> None:
        try:
            barrier.wait()
            with pgstore.connect(pg_url):
                pass
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT version) FROM schema_migrations").fetchone() == (
            len(migrations()),
            len(migrations()),
        )


def test_a_failing_migration_leaves_nothing_half_done(pg_url: str, tmp_path: Path) -> None:
    folder = tmp_path / "migrations"
    folder.mkdir()
    (folder / "0001_ok.sql").write_text("CREATE TABLE a (x int);")
    (folder / "0002_bad.sql").write_text("CREATE TABLE b (x int); SELECT no_such_function();")
    with pgconnection.connect(pg_url) as conn:
        with pytest.raises(psycopg.Error):
            pgstore.migrate(conn, folder)
        assert conn.execute("SELECT version FROM schema_migrations").fetchall() == [(1,)]
        assert conn.execute("SELECT to_regclass('b')").fetchone() == (None,)
        (folder / "0002_bad.sql").write_text("CREATE TABLE b (x int);")
        assert pgstore.migrate(conn, folder) == ["0002_bad"]


def test_the_summary_columns_are_columns_of_runs_with_their_types(pg_url: str) -> None:
    with pgstore.connect(pg_url) as conn:
        types = dict(
            conn.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'runs'"
            ).fetchall()
        )
    for name in RUN_SQL_COLUMNS:
        want = "jsonb" if name == "record" else RUN_SQL_TYPES.get(name, "text")
        assert types.get(name) == want, name
    assert set(RUN_FIELDS) <= set(types)


# -- clear errors, no password -----------------------------------------------------------------
def _message(url: str, **kwargs: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(pgstore.StoreError) as info:
        pgstore.connect(url, **kwargs)
    text = str(info.value)
    assert PASSWORD not in text and PASSWORD not in repr(info.value)
    # psycopg's error (its pgconn holds the password) is not chained
    assert info.value.__cause__ is None and (info.value.__context__ is None or info.value.__suppress_context__)
    return type(info.value), text


def test_wrong_password_missing_database_and_no_server_have_plain_messages(pg_server: PgServer) -> None:
    kind, text = _message(pg_server.url(password="not-" + PASSWORD))
    assert kind is pgstore.StoreAuthError and f"127.0.0.1:{pg_server.port}" in text and "password" in text
    kind, text = _message(pg_server.url("no_such_db"))
    assert kind is pgstore.StoreMissingDatabase and "'no_such_db'" in text and f"127.0.0.1:{pg_server.port}" in text
    port = free_port()
    kind, text = _message(pg_server.url().replace(str(pg_server.port), str(port)), connect_timeout=2)
    assert kind is pgstore.StoreUnreachable and f"Cannot reach the team store at 127.0.0.1:{port}" in text


def test_a_url_that_is_not_postgresql_is_bad_input(pg_server: PgServer) -> None:
    for url in ("mysql://u:s3cret-pw@h/db", "", f"postgresql://u:{PASSWORD}@host:notaport/db"):
        with pytest.raises(pgstore.StoreURLError) as info:
            pgstore.connect(url)
        assert PASSWORD not in str(info.value)
    assert pgstore.safe_url(pg_server.url()) == f"postgresql://workbench@127.0.0.1:{pg_server.port}/workbench"


def test_a_server_too_old_is_named_with_its_version(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pgconnection, "MIN_SERVER_VERSION", 990000)
    kind, text = _message(pg_url)
    assert kind is pgstore.StoreTooOld and "too old" in text and "99.0 or newer" in text


# -- upsert --------------------------------------------------------------------------------------
def test_rows_hold_the_folder_index_values(pg_url: str, settings: Settings) -> None:
    records = [real_run(settings, f"goal {i}", user="ana" if i else None) for i in range(3)]
    folder = RunStore(settings.runs_dir, persist=False)
    folder.refresh()
    for call in records[0]["tool_calls"]:  # a record from before calls said who chose them
        call.pop("origin")
    with pgstore.connect(pg_url) as conn:
        result = pgstore.upsert_records(conn, records)
        assert (result.inserted, result.updated, result.unchanged) == (3, 0, 0)
        assert result.calls == sum(len(r["tool_calls"]) for r in records) == 9
        cols = ", ".join(RUN_FIELDS)
        sql_runs = {row[0]: row for row in conn.execute(f"SELECT {cols} FROM runs").fetchall()}
        sql_calls = conn.execute(
            "SELECT run_id, run_started_at, provider, model, call_id, step, tool, success, error_category, attempts,"
            " retried, duplicate, truncated, duration_ms, origin FROM tool_calls ORDER BY run_id, seq"
        ).fetchall()
        users = dict(conn.execute("SELECT run_id, user_name FROM runs").fetchall())
        first_model_uses = [
            f for (f,) in conn.execute("SELECT first_model_use FROM tool_calls ORDER BY run_id, seq").fetchall()
        ]
        for r in records:
            assert stored(conn, r["run_id"]) == r
    for r in records:
        assert sql_runs[r["run_id"]] == extract(r, "")[0]
    want = []
    for r in sorted(records, key=lambda r: r["run_id"]):
        for c in call_rows(r):
            want.append(
                tuple(
                    c[k]
                    for k in (
                        "run_id",
                        "run_started_at",
                        "provider",
                        "model",
                        "call_id",
                        "step",
                        "tool",
                        "success",
                        "error_category",
                        "attempts",
                        "retried",
                        "duplicate",
                        "truncated",
                        "duration_ms",
                        "origin",
                    )
                )
            )
    assert sql_calls == want
    assert [c[-1] for c in want[3:6]] == ["model", "harness", "model"] and {c[-1] for c in want[:3]} == {None}
    assert first_model_uses == [False] * 3 + [True, False, False] * 2  # echo, nope (harness), echo again
    assert len(folder.tool_calls()) == len(sql_calls)
    assert users == {records[0]["run_id"]: None, records[1]["run_id"]: "ana", records[2]["run_id"]: "ana"}


def snapshot(base: dict[str, Any], steps: int, status: str = "running", updated: str = "t1") -> dict[str, Any]:
    rec = copy.deepcopy(base)
    rec["steps"] = rec["steps"][:steps]
    rec["tool_calls"] = [c for c in rec["tool_calls"] if c["step"] < steps]
    rec["status"] = status
    rec["updated_at"] = f"2026-01-01T00:00:00.000+00:00 {updated}"
    return rec


def test_the_guard_keeps_the_newest_snapshot(pg_url: str, settings: Settings) -> None:
    final = real_run(settings, "guarded")
    n = len(final["steps"])
    assert n == 3
    rid = final["run_id"]
    last_running = snapshot(final, n, "running", "t5")
    final_same_steps = snapshot(final, n, "completed", "t5")  # same step count and same clock tick
    with pgstore.connect(pg_url) as conn:

        def write(rec: dict[str, Any]) -> tuple[int, int, int]:
            r = pgstore.upsert_records(conn, [rec])
            return r.inserted, r.updated, r.unchanged

        assert write(snapshot(final, 1)) == (1, 0, 0)
        assert write(snapshot(final, 2)) == (0, 1, 0)
        assert write(snapshot(final, 1, updated="t9")) == (0, 0, 1)  # a late writer of an older step
        assert write(last_running) == (0, 1, 0)
        assert write(final_same_steps) == (0, 1, 0)  # the final record wins over the running one
        assert write(last_running) == (0, 0, 1)  # ... and the stale running one never comes back
        assert write(snapshot(final, 2, "running", "t9")) == (0, 0, 1)
        assert write(final_same_steps) == (0, 0, 1)  # the same snapshot again: nothing written
        assert stored(conn, rid)["status"] == "completed"
        assert conn.execute("SELECT status, steps FROM runs").fetchall() == [("completed", n)]
        calls = conn.execute("SELECT count(*) FROM tool_calls WHERE run_id = %s", (rid,)).fetchone()
        assert calls == (len(final["tool_calls"]),)
        # One batch holding several snapshots of a run keeps the newest one.
        other = real_run(settings, "batched")
        r = pgstore.upsert_records(conn, [snapshot(other, 3, "completed"), snapshot(other, 1), snapshot(other, 2)])
        assert (r.inserted, r.unchanged) == (1, 0)
        assert stored(conn, other["run_id"])["status"] == "completed"


def test_hostile_text_is_stored_as_data(pg_url: str, settings: Settings) -> None:
    base = real_run(settings, "x'); DROP TABLE runs; --")
    hostile = copy.deepcopy(base)
    hostile["run_id"] = "r'; DELETE FROM runs; --"
    hostile["goal"] = "nul \x00 here, a lone \ud800 surrogate, $1 %s %(x)s {0} \\u0000 literal"
    hostile["answer"] = "<script>alert(1)</script>"
    hostile["cost_usd"] = float("nan")
    hostile["tool_calls"][0]["step"] = 2**40  # beyond an int4 column
    hostile["tool_calls"][0]["output"] = "\x00" * 3
    hostile["user"] = "o'brien\x00"
    with pgstore.connect(pg_url) as conn:
        assert pgstore.upsert_records(conn, [base, hostile]).inserted == 2
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (2,)
        back = stored(conn, hostile["run_id"])
        goal = conn.execute("SELECT goal, user_name FROM runs WHERE run_id = %s", (hostile["run_id"],)).fetchone()
        step = conn.execute(
            "SELECT step FROM tool_calls WHERE run_id = %s AND seq = 0", (hostile["run_id"],)
        ).fetchone()
    assert back["goal"] == "nul \ufffd here, a lone ? surrogate, $1 %s %(x)s {0} \\u0000 literal"
    assert goal == (back["goal"], "o'brien\ufffd")
    assert back["answer"] == hostile["answer"] and back["cost_usd"] is None
    assert back["tool_calls"][0]["output"] == "\ufffd" * 3
    assert step == (None,)
    assert stored_equal_but_cleaned(record_json(base), base)


def stored_equal_but_cleaned(text: str, record: dict[str, Any]) -> bool:
    return parse_record(text.encode(), "x") == record


def test_a_record_without_run_id_is_refused(pg_url: str) -> None:
    with pgstore.connect(pg_url) as conn, pytest.raises(ValueError, match="run_id"):
        pgstore.upsert_records(conn, [{"run_id": "", "steps": [], "tool_calls": []}])


def test_a_big_batch_is_written_in_one_pass_per_batch(pg_url: str, settings: Settings) -> None:
    base = real_run(settings, "many")
    records = []
    for _ in range(600):
        rec = copy.deepcopy(base)
        rec["run_id"] = new_run_id()
        records.append(rec)
    with pgstore.connect(pg_url) as conn:
        first = pgstore.upsert_records(conn, records)
        again = pgstore.upsert_records(conn, records)
        counts = conn.execute("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM tool_calls)").fetchone()
    assert (first.inserted, first.calls) == (600, 600 * 3)
    assert (again.written, again.unchanged, again.calls) == (0, 600, 0)
    assert counts == (600, 1800)
