"""What migration 0003 stores for reading at scale stays right: a store written before it is
brought up to date with the same values the writer now stores (runs.search, tool_calls.first_use),
the writer keeps first_use right when a run's calls are replaced, and the status filter and the
filter choices treat runs whose process is gone as interrupted."""

from __future__ import annotations

import copy
import os
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg")

from agent_core import pgstore  # noqa: E402
from agent_core.pgstore.migrate import MIGRATIONS_DIR, migrate  # noqa: E402
from agent_core.pgstore.reading import PgQueries  # noqa: E402
from agent_core.pgstore.write import CALL_SQL_COLUMNS, RUN_SQL_COLUMNS, rows_of  # noqa: E402
from agent_core.records.queries import RunFilter  # noqa: E402
from bench.corpus import team_records  # noqa: E402
from tests.pgserver import PgServer  # noqa: E402


def _first_uses(record: dict[str, Any]) -> list[bool]:
    seen: set[str] = set()
    out = []
    for call in record.get("tool_calls") or ():
        tool = call.get("tool")
        out.append(isinstance(tool, str) and tool not in seen)
        if isinstance(tool, str):
            seen.add(tool)
    return out


def _stored_first_uses(url: str) -> dict[str, list[bool]]:
    with pgstore.connect(url) as conn:
        rows = conn.execute("SELECT run_id, first_use FROM tool_calls ORDER BY run_id, seq").fetchall()
    out: dict[str, list[bool]] = {}
    for run_id, first in rows:
        out.setdefault(run_id, []).append(first)
    return out


def _origins(records: list[dict[str, Any]]) -> dict[str, list[tuple[Any, bool]]]:
    """Per run with calls: each call's (origin, first call of its tool the model chose)."""
    out = {}
    for record in records:
        chosen: set[str] = set()
        rows = []
        for call in record.get("tool_calls") or ():
            origin = call.get("origin")
            first = origin == "model" and call["tool"] not in chosen
            chosen.update([call["tool"]] if first else [])
            rows.append((origin, first))
        if rows:
            out[record["run_id"]] = rows
    return out


def _stored_origins(url: str) -> dict[str, list[tuple[Any, bool]]]:
    with pgstore.connect(url) as conn:
        rows = conn.execute("SELECT run_id, origin, first_model_use FROM tool_calls ORDER BY run_id, seq").fetchall()
    out: dict[str, list[tuple[Any, bool]]] = {}
    for run_id, origin, first in rows:
        out.setdefault(run_id, []).append((origin, first))
    return out


_LATER = ("retries", "outcome", "source")
"""``runs`` columns added by migrations 0006 and later."""
_OLD_RUN_COLUMNS = [c for c in RUN_SQL_COLUMNS if c not in _LATER]
"""The ``runs`` columns a writer from before migration 0006 fills (no ``retries``)."""


def _old_run(record: dict[str, Any]) -> list[Any]:
    """A record's ``runs`` row as a writer from before 0006 writes it."""
    return [v for c, v in zip(RUN_SQL_COLUMNS, rows_of(record).run) if c not in _LATER]


def _stored_retries(url: str) -> dict[str, int]:
    with pgstore.connect(url) as conn:
        return dict(conn.execute("SELECT run_id, retries FROM runs").fetchall())


def _retries(records: list[dict[str, Any]]) -> dict[str, int]:
    """What the folder's index stores (records.columns._retries) for each run."""
    at = RUN_SQL_COLUMNS.index("retries")
    return {r["run_id"]: rows_of(r).run[at] for r in records}


def _old_store(server: PgServer, tmp_path: Path, records: list[dict[str, Any]]) -> str:
    """A database with the schema before 0003 (0001, 0002) and ``records`` in it, as the writer of
    that time stored them (no first_use column)."""
    url = server.create_database("old_" + tmp_path.name.lower().replace("-", "_")[-20:])
    old = tmp_path / "old_migrations"
    old.mkdir()
    for path in sorted(MIGRATIONS_DIR.glob("000[12]_*.sql")):
        shutil.copy(path, old / path.name)
    run_cols = ", ".join(_OLD_RUN_COLUMNS)
    call_cols = [c for c in CALL_SQL_COLUMNS if c not in ("first_use", "origin", "first_model_use")]
    with psycopg.connect(url, autocommit=True) as conn:
        assert migrate(conn, old) == ["0001_initial", "0002_reading_indexes"]
        with conn.transaction(), conn.cursor() as cur:
            with cur.copy(f"COPY runs ({run_cols}) FROM STDIN") as copy_runs:
                for record in records:
                    copy_runs.write_row(_old_run(record))
            with cur.copy(f"COPY tool_calls ({', '.join(call_cols)}) FROM STDIN") as copy_calls:
                for record in records:
                    for call in rows_of(record).calls:
                        copy_calls.write_row(call[: len(call_cols)])
    return url


def test_a_store_written_before_0003_is_migrated_with_the_values_the_writer_stores(
    pg_server: PgServer, tmp_path: Path
) -> None:
    records = team_records(150, templates=12, seed=21)
    old_url = _old_store(pg_server, tmp_path, records)
    new_url = pg_server.create_database("new_" + tmp_path.name.lower().replace("-", "_")[-20:])
    with pgstore.connect(new_url) as conn:
        pgstore.upsert_records(conn, records)
    with pgstore.connect(old_url) as conn:  # applies 0003 to the old store, backfilling it
        names = [n for (n,) in conn.execute("SELECT name FROM schema_migrations ORDER BY version").fetchall()]
        assert names[2:6] == [
            "0003_reading_at_scale",
            "0004_first_use_for_every_writer",
            "0005_who_decided",
            "0006_labels_and_retries",
        ]
        indexes = {n for (n,) in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'tool_calls'")}
    assert "tool_calls_by_model" in indexes and "tool_calls_provider_model" not in indexes

    expected = {r["run_id"]: _first_uses(r) for r in records if r.get("tool_calls")}
    assert _stored_first_uses(old_url) == _stored_first_uses(new_url) == expected
    assert any(flags.count(False) for flags in expected.values())  # runs calling a tool twice
    # 0005 took each call's origin from its stored record, as the writer now stores it
    assert _stored_origins(old_url) == _stored_origins(new_url) == _origins(records)
    # 0006 computed each run's retries from its stored record, as the writer (and the folder) count them
    assert _stored_retries(old_url) == _stored_retries(new_url) == _retries(records)
    assert any(_retries(records).values())

    old, new = PgQueries.from_url(old_url), PgQueries.from_url(new_url)
    try:
        goal = next(r["goal"] for r in records if r["goal"].strip())
        for where in (RunFilter(), RunFilter(text=goal.upper()[:12]), RunFilter(statuses=("completed",))):
            mine, theirs = old.page(where), new.page(where)
            assert mine.matching == theirs.matching > 0 and mine.rows.equals(theirs.rows)
            # past the last page: the last page (a search counts and pages in one pass)
            last = -(-mine.matching // 7)
            past, at_last = old.page(where, page=last + 5, size=7), old.page(where, page=last, size=7)
            assert past.matching == mine.matching and past.rows.equals(at_last.rows) and len(past.rows) > 0
        nothing = old.page(RunFilter(text="no run has this goal"), page=3)
        assert (nothing.matching, nothing.saved, len(nothing.rows)) == (0, len(records), 0)
        cover_old, cover_new = old.coverage(RunFilter()), new.coverage(RunFilter())
        assert cover_old["table"].equals(cover_new["table"]) and cover_old["never"] == cover_new["never"]
        stats_old, stats_new = old.tool_stats(RunFilter()), new.tool_stats(RunFilter())
        assert stats_old is not None and stats_new is not None
        for key in ("tool", "provider_model", "provider_model_tool"):
            # (sums of float durations in another row order: equal to the last few bits)
            pd.testing.assert_frame_equal(stats_old[key], stats_new[key], check_exact=False, rtol=1e-12)
    finally:
        old.close()
        new.close()


def test_first_use_follows_the_newest_snapshot_of_a_run(pg_url: str) -> None:
    """A run's calls are replaced by each newer snapshot (batch and one-run writes); a stale
    snapshot arriving late changes nothing."""
    final = next(r for r in team_records(60, templates=12, seed=22) if len(r.get("tool_calls") or ()) >= 3)
    tools = [c["tool"] for c in final["tool_calls"]]
    early = copy.deepcopy(final)
    early["status"], early["steps"] = "running", early["steps"][:1]
    # the early snapshot calls the last tool first: its first use moves when the final one lands
    early["tool_calls"] = [copy.deepcopy(final["tool_calls"][-1]), *copy.deepcopy(final["tool_calls"][:1])]
    early["tool_calls"][0]["tool"] = tools[-1]
    for batch in (True, False):
        run = copy.deepcopy(final)
        run["run_id"] = run["run_id"][:-1] + ("a" if batch else "b")
        first = copy.deepcopy(early)
        first["run_id"] = run["run_id"]
        with pgstore.connect(pg_url) as conn:
            write = (lambda rs: pgstore.upsert_records(conn, rs)) if batch else None
            for snapshot in (first, run, first):  # the early one again, late: the guard keeps the final
                if write is not None:
                    write([snapshot, copy.deepcopy(final) | {"run_id": "other-" + run["run_id"]}])
                else:
                    pgstore.upsert_records(conn, [snapshot])
        assert _stored_first_uses(pg_url)[run["run_id"]] == _first_uses(run)


def test_status_filter_and_choices_show_a_dead_running_run_as_interrupted(pg_url: str) -> None:
    records = team_records(40, templates=8, seed=23)
    for i, record in enumerate(records[:3]):  # "running", from a process on another host long gone
        record["status"] = "running"
        record["owner"] = {"pid": 4_000_000 + i, "host": "gone-host"}
        record["updated_at"] = "2020-01-01T00:00:00+00:00"
    with pgstore.connect(pg_url) as conn:
        pgstore.upsert_records(conn, records)
    reader = PgQueries.from_url(pg_url)
    try:
        dead = set(reader.dead_runs())
        assert {r["run_id"] for r in records[:3]} <= dead
        assert "interrupted" in reader.choices().statuses
        shown = reader.page(RunFilter(statuses=("interrupted",)), size=100).rows
        assert dead <= set(shown["run_id"]) and set(shown["status"]) == {"interrupted"}
        assert reader.page(RunFilter(statuses=("running",)), size=100).matching == 0
        everything = reader.page(RunFilter(), size=100)
        by_status = sum(reader.page(RunFilter(statuses=(s,))).matching for s in reader.choices().statuses)
        assert by_status == everything.matching == everything.saved == len(records)
    finally:
        reader.close()


def test_a_dead_run_waiting_for_approval_shows_as_interrupted(pg_url: str) -> None:
    """A run that waited for a person's approval when its process died is interrupted, as in the
    runs folder (records/files.effective_status): not "waiting" for ever. A live one stays waiting."""
    records = team_records(20, templates=4, seed=29)
    for i, record in enumerate(records[:3]):
        record["status"] = "waiting_for_approval"
        record["owner"] = {"pid": 4_100_000 + i, "host": "gone-host"}
        record["updated_at"] = "2020-01-01T00:00:00+00:00"
    records[3]["status"] = "waiting_for_approval"
    records[3]["owner"] = {"pid": os.getpid(), "host": os.uname().nodename}  # this process: alive
    with pgstore.connect(pg_url) as conn:
        pgstore.upsert_records(conn, records)
    reader = PgQueries.from_url(pg_url)
    try:
        dead = {r["run_id"] for r in records[:3]}
        assert dead <= set(reader.dead_runs()) and records[3]["run_id"] not in reader.dead_runs()
        assert {"interrupted", "waiting_for_approval"} <= set(reader.choices().statuses)
        shown = reader.page(RunFilter(statuses=("interrupted",)), size=100).rows
        assert dead <= set(shown["run_id"]) and set(shown["status"]) == {"interrupted"}
        waiting = reader.page(RunFilter(statuses=("waiting_for_approval",)), size=100).rows
        assert list(waiting["run_id"]) == [records[3]["run_id"]]
        assert reader.load(records[0]["run_id"])["status_shown"] == "interrupted"
        everything = reader.page(RunFilter(), size=100)
        by_status = sum(reader.page(RunFilter(statuses=(s,))).matching for s in reader.choices().statuses)
        assert by_status == everything.matching == everything.saved == len(records)
    finally:
        reader.close()


def test_runs_written_by_an_older_app_on_the_new_schema_still_count_in_coverage(pg_url: str) -> None:
    """An app instance on the code before 0003 writes call rows without first_use (batch COPY and
    one-run inserts, step by step); Coverage still counts its runs for every tool they used."""
    records = team_records(40, templates=8, seed=31)
    with pgstore.connect(pg_url) as conn:  # the current writer: migrates, sets first_use itself
        pgstore.upsert_records(conn, records[:15])
    old_cols = [c for c in CALL_SQL_COLUMNS if c not in ("first_use", "origin", "first_model_use")]
    with psycopg.connect(pg_url, autocommit=True) as conn:
        with conn.transaction(), conn.cursor() as cur:  # the old writer's batch
            with cur.copy(f"COPY runs ({', '.join(_OLD_RUN_COLUMNS)}) FROM STDIN") as copy_runs:
                for record in records[15:30]:
                    copy_runs.write_row(_old_run(record))
            with cur.copy(f"COPY tool_calls ({', '.join(old_cols)}) FROM STDIN") as copy_calls:
                for record in records[15:30]:
                    for call in rows_of(record).calls:
                        copy_calls.write_row(call[: len(old_cols)])
        insert = f"INSERT INTO tool_calls ({', '.join(old_cols)}) VALUES ({', '.join(['%s'] * len(old_cols))})"
        for record in records[30:]:  # the old writer's per-step saves: one call row at a time
            rows = rows_of(record)
            conn.execute(
                f"INSERT INTO runs ({', '.join(_OLD_RUN_COLUMNS)}) VALUES ({', '.join(['%s'] * len(_OLD_RUN_COLUMNS))})",
                _old_run(record),
            )
            for call in rows.calls:
                conn.execute(insert, call[: len(old_cols)])
    stored = _stored_first_uses(pg_url)
    for record in records:
        assert stored.get(record["run_id"], []) == _first_uses(record), record["run_id"]
    # and who decided each call comes from its record (0005's trigger): Tool stats counts it
    assert _stored_origins(pg_url) == _origins(records)
    assert {o for rows in _origins(records).values() for o, _ in rows} == {"model", "harness", None}
    # and each run's retries (0006's trigger), which History filters by
    assert _stored_retries(pg_url) == _retries(records) and any(_retries(records[15:]).values())
