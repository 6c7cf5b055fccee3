"""History and Tool stats on PostgreSQL give what the folder gives: the same 1,000 runs through
both backends, page by page, with every filter and order, and the same Tool-stats tables."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agent_core.errors import RecordError
from agent_core.records.queries import NOT_CHECKED, NOT_RECORDED, SORTABLE, FolderQueries, RunFilter
from agent_core.records.store import RunStore
from tests.pgserver import PgServer

pytestmark = pytest.mark.postgres
psycopg = pytest.importorskip("psycopg")

from agent_core.pgstore.reading import PgQueries  # noqa: E402
from bench.corpus import HOSTILE_GOALS, team_records  # noqa: E402

N = 1000


def _load_into(url: str, records: list[dict[str, Any]]) -> None:
    from agent_core.pgstore import connect, upsert_records

    with connect(url) as conn:
        result = upsert_records(conn, records)
    assert result.inserted == len(records)


def _both(server: PgServer, root: Path, name: str, records: list[dict[str, Any]]) -> tuple[FolderQueries, PgQueries]:
    """``records`` as a runs folder under ``root`` and in a new database ``name``: both readers."""
    runs_dir = root / "runs"
    runs_dir.mkdir()
    for record in records:
        (runs_dir / f"{record['run_id']}.json").write_text(json.dumps(record), encoding="utf-8")
    store = RunStore(runs_dir, persist=False, workers=1)
    store.refresh()
    url = server.create_database(name)
    _load_into(url, records)
    return FolderQueries(store), PgQueries.from_url(url)


@pytest.fixture(scope="module")
def backends(
    pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[FolderQueries, PgQueries]]:
    records = team_records(N, templates=24, seed=5)
    folder, pg = _both(pg_server, tmp_path_factory.mktemp("parity"), "parity", records)
    _label_some(records, folder, pg)
    yield folder, pg
    pg.close()


def _label_some(records: list[dict[str, Any]], folder: FolderQueries, pg: PgQueries) -> None:
    """People's labels on a few runs, the same in the folder's journal and the team store's table
    (and one label of a run that is in neither: labels may come before their runs)."""
    from agent_core.pgstore.labels import PgLabels
    from agent_core.records.labels import Label

    ids = [r["run_id"] for r in records]
    labels = [Label.make(rid, "fail" if n % 3 else "pass", reason=f"r{n}") for n, rid in enumerate(ids[5:400:7])]
    labels.append(Label.make("not-a-run-here", "fail"))
    folder.labels.put(labels)
    assert pg.url is not None
    table = PgLabels.from_url(pg.url)
    table.put(labels)
    table.close()


def _same_rows(a: pd.DataFrame, b: pd.DataFrame) -> None:
    a, b = a.drop(columns=["path"]), b.drop(columns=["path"])
    assert list(a.columns) == list(b.columns)
    assert dict(a.dtypes.astype(str)) == dict(b.dtypes.astype(str))
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def _same_table(a: pd.DataFrame, b: pd.DataFrame) -> None:
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b)
    for column in a.columns:
        left, right = a[column].tolist(), b[column].tolist()
        for x, y in zip(left, right):
            if isinstance(x, float) or isinstance(y, float):
                assert (x != x and y != y) or math.isclose(float(x), float(y), rel_tol=1e-9), (column, left, right)
            else:
                assert (None if x is pd.NA or x != x else x) == (None if y is pd.NA or y != y else y), (
                    column,
                    left,
                    right,
                )


def test_filter_choices_are_the_same(backends: tuple[FolderQueries, PgQueries]) -> None:
    folder, pg = backends
    mine, theirs = folder.choices(), pg.choices()
    assert mine == theirs
    assert mine.saved == N
    assert "interrupted" in mine.statuses and "cancelled" in mine.statuses
    assert len(mine.users) == 4 and NOT_CHECKED in mine.checks and len(mine.checks) == 5
    assert set(mine.sources) == {"own", "eval", "arena", "replay", "demo"} and sum(mine.sources.values()) == N
    assert folder.call_choices() == pg.call_choices()


def _filters(folder: FolderQueries) -> list[RunFilter]:
    choices = folder.choices()
    first = choices.first_day
    assert first is not None
    ids = folder.page(RunFilter(), size=40).rows["run_id"].tolist()[::3]
    return [
        RunFilter(),
        RunFilter(providers=("openai", "local")),
        RunFilter(models=("gpt-4.1-mini",), statuses=("completed",)),
        RunFilter(statuses=("interrupted", "cancelled")),
        RunFilter(users=("ana", "dara@example.com")),
        RunFilter(days=(first + timedelta(days=20), first + timedelta(days=50))),
        RunFilter(days=(first + timedelta(days=10),)),
        RunFilter(text="REFUND"),
        RunFilter(text="  weather in seoul "),
        RunFilter(text=ids[0][:13]),
        RunFilter(checks=("partly", "ungrounded")),
        RunFilter(checks=(NOT_CHECKED,)),
        RunFilter(checks=("grounded", NOT_CHECKED), include_demos=False),
        RunFilter(run_ids=tuple(ids)),
        RunFilter(run_ids=()),
        RunFilter(providers=("openai",), text="the", statuses=("completed", "max_steps"), include_demos=False),
        RunFilter(min_cost_usd=0.002),
        RunFilter(sources=("own",)),  # History's default (issue 35)
        RunFilter(sources=("eval", "arena", "replay", "demo"), providers=("openai",)),
        RunFilter(min_retries=0),
        RunFilter(min_retries=1, providers=("openai", "anthropic")),
        RunFilter(labels=("fail",)),
        RunFilter(labels=("pass", "fail"), statuses=("completed",)),
        RunFilter(labels=("",)),
        RunFilter(labels=("pass", ""), min_retries=0),
    ]


def test_history_pages_are_the_same_for_every_filter_and_order(backends: tuple[FolderQueries, PgQueries]) -> None:
    folder, pg = backends
    orders = [("started_at", False), ("started_at", True), ("duration_ms", False), ("cost_usd", False)]
    orders += [("tokens", False), ("tool_calls", False), ("failed_calls", False), ("steps", False)]
    for n, where in enumerate(_filters(folder)):
        for order in {orders[0], orders[n % len(orders)], orders[(n + 3) % len(orders)]}:
            first = folder.page(where, order=order, page=1, size=200)
            pages = max(1, -(-first.matching // 200))
            for page in range(1, pages + 1):
                mine = folder.page(where, order=order, page=page, size=200)
                theirs = pg.page(where, order=order, page=page, size=200)
                assert (mine.matching, mine.saved) == (theirs.matching, theirs.saved), (where, order)
                _same_rows(mine.rows, theirs.rows)
    # Every other sortable column, both ways, on the whole list at once.
    for column in SORTABLE:
        for ascending in (True, False):
            _same_rows(
                folder.page(RunFilter(), order=(column, ascending), size=N).rows,
                pg.page(RunFilter(), order=(column, ascending), size=N).rows,
            )
    assert pg.page(RunFilter(), page=99, size=200).rows.equals(pg.page(RunFilter(), page=5, size=200).rows)


def test_tool_stats_tables_are_the_same(backends: tuple[FolderQueries, PgQueries]) -> None:
    folder, pg = backends
    choices = folder.call_choices()
    assert choices.first_day is not None
    for where in (
        RunFilter(),
        RunFilter(providers=("anthropic",)),
        RunFilter(models=("gpt-5-mini", "llama3.1:8b"), include_demos=False),
        RunFilter(days=(choices.first_day + timedelta(days=30), choices.first_day + timedelta(days=60))),
        RunFilter(providers=("nobody",)),
        RunFilter(text="refund", statuses=("completed",), users=("ana",)),  # coverage: the runs' calls by id
        RunFilter(origins=("model",)),  # who decided (Tool stats only)
        RunFilter(origins=("harness", NOT_RECORDED), providers=("openai",), include_demos=False),
        RunFilter(origins=(NOT_RECORDED,), text="refund"),
        RunFilter(labels=("fail",)),  # people's labels (Tool stats of the runs labelled fail)
        RunFilter(labels=("",), providers=("openai",)),
        RunFilter(sources=("own",)),  # Tool stats follows History's Source filter
        RunFilter(sources=("eval", "demo")),
    ):
        cover, theirs_cover = folder.coverage(where), pg.coverage(where)
        assert cover["runs"] == theirs_cover["runs"] and cover["never"] == theirs_cover["never"]
        assert cover["harness_only"] == theirs_cover["harness_only"]
        _same_table(cover["table"], theirs_cover["table"])
        pd.testing.assert_frame_equal(cover["matrix"], theirs_cover["matrix"])
        mine, theirs = folder.tool_stats(where), pg.tool_stats(where)
        if mine is None:
            assert theirs is None
            continue
        assert theirs is not None
        assert mine.keys() == theirs.keys()
        for key in ("retried", "fallbacks", "duplicates", "by_model", "by_harness"):
            assert mine[key] == theirs[key]
        assert mine["total"]["total_calls"] == theirs["total"]["total_calls"]
        assert math.isclose(mine["total"]["success_rate"], theirs["total"]["success_rate"], rel_tol=1e-12)
        # Both round to 3 places; sums made in another order can land on either side of a
        # rounding edge (37.1605 → 37.161 or 37.16): one unit apart at most.
        assert math.isclose(mine["total"]["avg_duration_ms"], theirs["total"]["avg_duration_ms"], abs_tol=1.5e-3)
        for key in ("tool", "provider_model", "provider_model_tool"):
            _same_table(mine[key], theirs[key])
        assert mine["fallbacks"] > 0 and (mine["retried"] > 0 or where.labels)
        recorded = mine["by_model"] + mine["by_harness"]
        if not where.origins:  # the corpus mixes the model's calls, the workbench's and older unnamed ones
            assert 0 < mine["by_harness"] < mine["by_model"] and recorded < mine["total"]["total_calls"]
            assert cover["table"]["calls_by_model"].sum() > cover["table"]["runs_by_model"].sum() > 0
        elif where.origins == ("model",):
            assert mine["by_model"] == mine["total"]["total_calls"] and not mine["by_harness"]
        elif where.origins == (NOT_RECORDED,):
            assert recorded == 0
        _same_table(folder.grounding_rates(where), pg.grounding_rates(where))


def test_hostile_filter_text_is_data(backends: tuple[FolderQueries, PgQueries]) -> None:
    folder, pg = backends
    texts = [*HOSTILE_GOALS, "%", "_", "\\", "'", '"', "%_%", "O'Brien", "10_0%", "C:\\temp", "1'; DROP TABLE runs; --"]
    texts += ["\x00", "$$", "%(text)s", "{}", "ﬁ"]
    for text in texts:
        where = RunFilter(text=text, providers=(text,)) if text == "'" else RunFilter(text=text)
        mine, theirs = folder.page(where, size=N), pg.page(where, size=N)
        assert mine.matching == theirs.matching, text
        _same_rows(mine.rows, theirs.rows)
        weird = RunFilter(providers=(text,), models=(text,), users=(text,), statuses=(text,), checks=(text,))
        assert pg.page(weird).matching == folder.page(weird).matching == 0
    assert folder.page(RunFilter(text="O'Brien")).matching > 0  # the hostile goals are there and found
    assert pg.page(RunFilter()).saved == N  # nothing dropped


def test_run_detail_and_rows(backends: tuple[FolderQueries, PgQueries]) -> None:
    folder, pg = backends
    ids = folder.page(RunFilter(statuses=("interrupted",)), size=3).rows["run_id"].tolist()
    ids += folder.page(RunFilter(), size=5).rows["run_id"].tolist()
    for run_id in ids:
        assert pg.load(run_id) == folder.load(run_id)
    assert pg.load(ids[0])["status_shown"] == "interrupted"
    _same_rows(
        folder.rows(ids + ["nope"]).sort_values("run_id").reset_index(drop=True),
        pg.rows(ids + ["nope"]).sort_values("run_id").reset_index(drop=True),
    )
    for bad in ("nope", "", "x' OR '1'='1"):
        with pytest.raises(RecordError):
            pg.load(bad)
    with pytest.raises(ValueError):
        pg.page(RunFilter(), order=("record; DROP TABLE runs", False))


def test_cli_runs_reads_the_team_store(
    backends: tuple[FolderQueries, PgQueries], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from types import SimpleNamespace

    from agent_core.cli.main import cmd_runs
    from tests.pgserver import PASSWORD

    folder, pg = backends
    url = pg.url
    args = SimpleNamespace(limit=5, json=True)
    assert cmd_runs(args, SimpleNamespace(store_url=url, runs_dir=tmp_path)) == 0  # type: ignore[arg-type]
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run_id"] for r in rows] == folder.page(RunFilter(), size=5).rows["run_id"].tolist()
    args = SimpleNamespace(limit=3, json=False)
    assert cmd_runs(args, SimpleNamespace(store_url=url, runs_dir=tmp_path)) == 0  # type: ignore[arg-type]
    assert len(capsys.readouterr().out.splitlines()) == 2 + 3
    wrong = url.replace(PASSWORD, "not-the-password")
    assert cmd_runs(args, SimpleNamespace(store_url=wrong, runs_dir=tmp_path)) == 1  # type: ignore[arg-type]
    err = capsys.readouterr().err
    assert "refused" in err and "not-the-password" not in err and PASSWORD not in err


def test_team_run_store_for_compare_and_the_cli(backends: tuple[FolderQueries, PgQueries], tmp_path: Path) -> None:
    from agent_core.pgstore.reading import TeamRunStore
    from tests.pgserver import PASSWORD

    folder, pg = backends
    local = RunStore(tmp_path / "runs", persist=False)
    (tmp_path / "runs").mkdir()
    team = TeamRunStore(pg, local)
    _same_rows(team.runs(), folder.store.runs())  # the whole table, summary columns
    run_id = team.runs()["run_id"].iloc[0]
    assert team.load(run_id) == folder.load(run_id)
    # A run kept only in the local folder (saved while the store was down) still opens.
    record = folder.load(run_id)
    record.pop("status_shown")
    record["run_id"] = "local-only"
    (tmp_path / "runs" / "local-only.json").write_text(json.dumps(record), encoding="utf-8")
    assert team.load("local-only")["run_id"] == "local-only"
    # The store cannot be read: the local folder's table, and no password in the log.
    down = TeamRunStore(PgQueries.from_url(pg.url.replace(PASSWORD, "wrong-pw")), local)  # type: ignore[union-attr]
    assert down.runs()["run_id"].tolist() == ["local-only"]
    assert down.load("local-only")["run_id"] == "local-only"


def test_search_folds_case_in_every_script_like_the_folder(pg_server: PgServer, tmp_path: Path) -> None:
    records = team_records(3, templates=3, seed=11)
    goals = ["ÉTÉ À PARIS: will it rain?", "Straße prices in München", "Wetter in Köln"]
    for record, goal in zip(records, goals):
        record["goal"] = goal
    folder, pg = _both(pg_server, tmp_path, "folding", records)
    try:
        for text in ("été à paris", "Été", "MÜNCHEN", "köln"):
            assert folder.page(RunFilter(text=text)).matching == 1, text
            assert pg.page(RunFilter(text=text)).matching == 1, text
    finally:
        pg.close()
