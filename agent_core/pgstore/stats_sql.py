"""Tool stats, the answer-check rates and coverage as SQL: the aggregate half of
:class:`agent_core.pgstore.reading.PgQueries` (which mixes this class in).

Every aggregate runs in the database over the ``tool_calls`` and ``runs`` tables; only the
finished tables come back, laid out as the folder's (:mod:`agent_core.records.stats`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from psycopg import sql

from agent_core.records.answer_check_stats import CHECKED, rates_from_counts
from agent_core.records.coverage import (
    USED_COLUMNS,
    coverage_from_counts,
    harness_only_from_table,
    never_from_table,
    validation_matrix,
)
from agent_core.records.queries import NOT_RECORDED, RunFilter
from agent_core.records.stats import COUNT_COLUMNS as _COUNT_COLUMNS
from agent_core.records.stats import ERROR_CATEGORIES, STATS_COLUMNS

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
STATS_BY = {
    "tool": ("tool",),
    "provider_model": ("provider", "model"),
    "provider_model_tool": ("provider", "model", "tool"),
}


def day_us(day: date) -> int:
    """Microseconds since the epoch at 00:00 UTC of ``day``."""
    delta = datetime(day.year, day.month, day.day, tzinfo=timezone.utc) - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000


def _texts(values: Sequence[str]) -> list[str]:
    """Filter values as query parameters: one holding a NUL matches nothing stored (PostgreSQL
    text never holds one) and is left out."""
    return [str(v) for v in values if "\x00" not in str(v)]


def _origin_where(where: RunFilter, params: dict[str, Any]) -> sql.Composable | None:
    """The condition of ``where.origins`` on ``tool_calls`` (alias ``c``); None: every call."""
    if not where.origins:
        return None
    params["origins"] = [o for o in _texts(where.origins) if o != NOT_RECORDED]
    condition: sql.Composable = sql.SQL("c.origin = ANY(%(origins)s)")
    if NOT_RECORDED in where.origins:
        condition = sql.SQL("({} OR c.origin IS NULL)").format(condition)
    return condition


class ToolStatsSQL:
    """The Tool-stats page's aggregates in SQL (mixed into ``PgQueries``, whose connection,
    filters and caches they use)."""

    choices_ttl: float
    _used: tuple[Any, float, list[tuple[Any, ...]]] | None

    if TYPE_CHECKING:  # provided by PgQueries

        def _all(self, query: sql.SQL | sql.Composed, params: Any = None) -> list[tuple[Any, ...]]: ...

        def _one(self, query: sql.SQL | sql.Composed, params: Any = None) -> tuple[Any, ...]: ...

        def _where(self, where: RunFilter, params: dict[str, Any]) -> sql.Composable: ...

        def dead_runs(self) -> list[str]: ...

    @staticmethod
    def _call_where(where: RunFilter, params: dict[str, Any]) -> sql.Composable | None:
        """The condition of ``where`` on ``tool_calls`` (alias ``c``), when it only filters by
        what a call row repeats from its run (provider, model, days) and scripted runs; None
        for any other filter."""
        if where.by_runs():
            return None
        parts: list[sql.Composable] = []
        if where.days:
            params["day0"] = day_us(where.days[0])
            params["day1"] = day_us(where.days[-1] + timedelta(days=1))
            parts.append(sql.SQL("c.run_started_us >= %(day0)s AND c.run_started_us < %(day1)s"))
        for name, values in (("provider", where.providers), ("model", where.models)):
            if values:
                params[name] = _texts(values)
                parts.append(sql.SQL("c.{} = ANY(%({})s)").format(sql.Identifier(name), sql.SQL(name)))
        if not where.include_demos:
            parts.append(sql.SQL("NOT EXISTS (SELECT 1 FROM runs r WHERE r.run_id = c.run_id AND r.scripted)"))
        origin = _origin_where(where, params)
        if origin is not None:
            parts.append(origin)
        return sql.SQL(" AND ").join(parts) if parts else sql.SQL("true")

    def _calls_of(self, where: RunFilter, params: dict[str, Any]) -> sql.Composable:
        """The condition selecting the calls of the runs passing ``where`` (alias ``c``) that
        ``where.origins`` chose."""
        direct = self._call_where(where, params)
        if direct is not None:
            return direct
        params["dead"] = self.dead_runs()
        runs = sql.SQL("c.run_id IN (SELECT run_id FROM runs WHERE {})").format(self._where(where, params))
        origin = _origin_where(where, params)
        return runs if origin is None else sql.SQL("{} AND {}").format(runs, origin)

    def tool_stats(self, where: RunFilter) -> dict[str, Any] | None:
        # Tool stats filters by these only (as the folder's does)
        where = RunFilter(
            providers=where.providers,
            models=where.models,
            days=where.days,
            include_demos=where.include_demos,
            origins=where.origins,
            labels=where.labels,
            sources=where.sources,
        )
        params: dict[str, Any] = {}
        condition = self._calls_of(where, params)
        newest = self._newest()
        errors = sql.SQL(", ").join(
            sql.SQL("count(*) FILTER (WHERE NOT success AND error_category = {})").format(sql.Literal(cat))
            for cat in ERROR_CATEGORIES
        )
        # Three groupings, each read in its group order from an index that holds every column
        # used (tool_calls_stats: tool, …; tool_calls_by_model: provider, model, tool, duration):
        # no sort of all calls (GROUPING SETS sorted them again for its second grouping, on
        # disk), and per (provider, model, tool) the durations come sorted. Only the finest
        # grouping counts everything (and Coverage's counts); the other two take their p50/p95
        # (which do not add up) and add the rest up from it, in Python.
        # The two percentiles come as one array: one sort per group.
        pct = "percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY duration_ms)"
        finest = sql.SQL(
            "SELECT 0, tool, provider, model, count(*), " + pct + ", count(*) FILTER (WHERE success), "
            "sum(duration_ms), count(duration_ms), count(*) FILTER (WHERE retried), count(fallback), "
            "count(*) FILTER (WHERE duplicate), {errors}, count(*) FILTER (WHERE origin = 'model'), "
            "count(*) FILTER (WHERE origin = 'harness'), "
            # Coverage's: runs that chose the tool (first_use), runs whose model did, validation failures
            "count(*) FILTER (WHERE first_use), count(*) FILTER (WHERE first_model_use), "
            "count(*) FILTER (WHERE error_category = 'validation') "
            "FROM tool_calls c WHERE {condition} GROUP BY provider, model, tool"
        ).format(errors=errors, condition=condition)
        coarse = "SELECT {key}, {cols}, count(*), " + pct + ", {rest} FROM tool_calls c WHERE {condition} GROUP BY {by}"
        rest = sql.SQL(", ").join([sql.NULL] * (11 + len(ERROR_CATEGORIES)))  # (the finest grouping's other counts)
        by_tool = sql.SQL(coarse).format(
            key=sql.Literal(3), cols=sql.SQL("tool, NULL, NULL"), rest=rest, condition=condition, by=sql.SQL("tool")
        )
        by_model = sql.SQL(coarse).format(
            key=sql.Literal(4),
            cols=sql.SQL("NULL, provider, model"),
            rest=rest,
            condition=condition,
            by=sql.SQL("provider, model"),
        )
        rows = self._all(
            sql.SQL(" UNION ALL ").join(sql.SQL("({})").format(q) for q in (finest, by_tool, by_model)), params
        )
        fine = [r for r in rows if r[0] == 0]
        n_err = len(ERROR_CATEGORIES)
        # Coverage's counts of the same calls (provider, model, tool, then USED_COLUMNS), for its
        # call right after this one (the Tool stats page)
        used = [
            (r[2], r[3], r[1], r[-3], r[-2], r[4], r[12 + n_err], r[13 + n_err], r[-1])
            for r in fine
            if r[1] is not None
        ]
        self._used = ((newest, where), time.monotonic(), used)
        if not fine:
            return None
        # per finest group: calls, successes, sum of durations, timed calls, retried, fallbacks,
        # duplicates, errors…, chosen by the model, by the workbench
        sums = {(r[1], r[2], r[3]): [r[4], *r[6 : 14 + n_err]] for r in fine}
        totals = [sum(col) for col in zip(*sums.values())]
        out: dict[str, Any] = {
            "total": {
                "total_calls": int(totals[0]),
                "success_rate": totals[1] / totals[0],
                "avg_duration_ms": round(totals[2] / totals[3], 3) if totals[3] else float("nan"),
            },
            "by_model": int(totals[-2]),
            "by_harness": int(totals[-1]),
            "retried": int(totals[4]),
            "fallbacks": int(totals[5]),
            "duplicates": int(totals[6]),
        }

        def added(keep: Callable[[tuple[Any, Any, Any]], tuple[Any, Any, Any]]) -> dict[tuple[Any, ...], list[Any]]:
            grouped: dict[tuple[Any, ...], list[Any]] = {}
            for key, values in sums.items():
                have = grouped.get(keep(key))
                grouped[keep(key)] = list(values) if have is None else [a + b for a, b in zip(have, values)]
            return grouped

        added_up = {
            0: sums,
            3: added(lambda k: (k[0], None, None)),
            4: added(lambda k: (None, k[1], k[2])),
        }
        percentiles = {(r[0], r[1], r[2], r[3]): r[5] for r in rows}
        keys = {"tool": 3, "provider_model": 4, "provider_model_tool": 0}
        for name, by in STATS_BY.items():
            picked = []
            for group, values in added_up[keys[name]].items():
                pcts = percentiles[(keys[name], *group)]  # (one statement: the same calls in each grouping)
                p50, p95 = pcts if pcts is not None else (None, None)
                n, ok, total_ms, timed, *counts, by_model, by_harness = values
                mean = total_ms / timed if timed else None
                picked.append((keys[name], *group, n, by_model, by_harness, ok / n, p50, p95, mean, *counts))
            out[name] = _stats_frame(picked, list(by))
        return out

    def _newest(self) -> Any:
        (newest,) = self._one(sql.SQL("SELECT max(written_at) FROM runs"))
        return newest

    def grounding_rates(self, where: RunFilter) -> pd.DataFrame:
        params: dict[str, Any] = {"dead": self.dead_runs(), "checked": list(CHECKED)}
        condition = self._where(where, params)
        rows = self._all(
            sql.SQL(
                "SELECT provider, model, grounding, count(*) FROM runs WHERE {} AND grounding = ANY(%(checked)s) "
                "GROUP BY 1, 2, 3"
            ).format(condition),
            params,
        )
        return rates_from_counts(pd.DataFrame(rows, columns=["provider", "model", "grounding", "runs"]))

    def coverage(self, where: RunFilter) -> dict[str, Any]:
        where = replace(where, origins=())  # (Coverage counts the model's and the workbench's calls apart)
        params: dict[str, Any] = {"dead": self.dead_runs()}
        condition = self._where(where, params)
        (runs,) = self._one(sql.SQL("SELECT count(*) FROM runs WHERE {}").format(condition), params)
        offered = self._all(
            sql.SQL(
                # Runs offering the same list are counted first, so each distinct list is parsed
                # once; a run's list names each tool once.
                "SELECT provider, model, t.tool, sum(n)::bigint FROM ("
                "SELECT provider, model, tools_offered, count(*) AS n FROM runs "
                "WHERE {} AND tools_offered IS NOT NULL GROUP BY 1, 2, 3"
                ") lists CROSS JOIN LATERAL jsonb_array_elements_text(lists.tools_offered::jsonb) AS t(tool) "
                "GROUP BY 1, 2, 3"
            ).format(condition),
            params,
        )
        cached, direct = self._used, self._call_where(where, {})
        if (
            cached is not None
            and direct is not None
            and cached[0] == (self._newest(), where)
            and time.monotonic() - cached[1] < self.choices_ttl
        ):
            used = cached[2]  # Tool stats just counted them
        else:
            used = self._used_now(where, params)
        table = coverage_from_counts(
            pd.DataFrame(offered, columns=["provider", "model", "tool", "runs_offered"]),
            pd.DataFrame(used, columns=["provider", "model", "tool", *USED_COLUMNS]),
        )
        return {
            "table": table,
            "matrix": validation_matrix(table),
            "never": never_from_table(table),
            "harness_only": harness_only_from_table(table),
            "runs": runs,
        }

    def _used_now(self, where: RunFilter, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        calls = self._calls_of(where, params)
        return self._all(
            sql.SQL(
                # the runs that chose a tool: its first call in each run (first_use, set on write);
                # those whose model did: its first model-chosen call (first_model_use)
                "SELECT c.provider, c.model, c.tool, count(*) FILTER (WHERE c.first_use), "
                "count(*) FILTER (WHERE c.first_model_use), count(*), count(*) FILTER (WHERE c.origin = 'model'), "
                "count(*) FILTER (WHERE c.origin = 'harness'), "
                "count(*) FILTER (WHERE c.error_category = 'validation') FROM tool_calls c "
                "WHERE {} AND c.tool IS NOT NULL GROUP BY 1, 2, 3"
            ).format(calls),
            params,
        )


def _stats_frame(rows: Sequence[tuple[Any, ...]], by: list[str]) -> pd.DataFrame:
    """GROUPING SETS rows of one grouping as :func:`agent_core.records.stats.tool_stats` lays them out."""
    at = {"tool": 1, "provider": 2, "model": 3}
    data: dict[str, Any] = {key: pd.array([r[at[key]] for r in rows], dtype="str") for key in by}
    values = [r[4:] for r in rows]
    for i, name in enumerate(STATS_COLUMNS):
        column = [v[i] for v in values]
        if name in _COUNT_COLUMNS:
            data[name] = np.array(column, dtype="int64")
        else:
            data[name] = np.array([np.nan if x is None else float(x) for x in column], dtype="float64")
    frame = pd.DataFrame(data, columns=[*by, *STATS_COLUMNS])
    frame = frame.sort_values(by, na_position="last", kind="stable")
    return frame.sort_values("calls", ascending=False, kind="stable").reset_index(drop=True)
