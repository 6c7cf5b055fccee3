"""What the History and Tool-stats pages (and ``python -m agent_core runs``) ask of the run store.

One small interface, :class:`RunQueries`, with two implementations: :class:`FolderQueries`
answers from the folder store's pandas tables (:class:`agent_core.records.store.RunStore`), and
:class:`agent_core.pgstore.reading.PgQueries` runs the same questions as SQL in PostgreSQL, so a
page never loads every run into pandas there. Both give the same rows in the same order (the
parity test holds them to it).

A question is a :class:`RunFilter` (every History / Tool-stats filter), an order (any column of
:data:`SORTABLE`) and a page. Answers are pandas frames with the columns of the store's tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

import pandas as pd

from agent_core.records import stats
from agent_core.records.answer_check_stats import ungrounded_rates
from agent_core.records.coverage import (
    coverage_table,
    harness_only_from_table,
    never_chosen,
    offered_from_runs,
    validation_matrix,
)
from agent_core.records.filters import GROUNDING_STATUSES, date_bounds, filter_calls, filter_runs
from agent_core.records.labels import FolderLabels

NOT_CHECKED = ""
"""In :attr:`RunFilter.checks` and :attr:`Choices.checks`: runs whose answer was not checked."""
NOT_RECORDED = ""
"""In :attr:`RunFilter.origins`: calls whose origin was not recorded (older runs)."""
ORIGIN_CHOICES = ("model", "harness", NOT_RECORDED)
"""What :attr:`RunFilter.origins` may hold: who chose a tool call."""
SORTABLE = (
    "started_at",
    "duration_ms",
    "cost_usd",
    "tokens",
    "tool_calls",
    "failed_calls",
    "steps",
    "blocks_trimmed",
    "status",
    "provider",
    "model",
    "goal",
    "run_id",
    "user",
    "grounding",
    "retries",
)
"""Run-table columns History can order the whole filtered list by."""
NEWEST: tuple[str, bool] = ("started_at", False)
"""The default order (the store's tables are kept in it): column, ascending."""


@dataclass(frozen=True)
class RunFilter:
    """Every filter of History and Tool stats; an empty one lets everything through."""

    providers: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    """Statuses as shown (a dead process's ``running`` run is ``interrupted``)."""
    users: tuple[str, ...] = ()
    days: tuple[date, ...] = ()
    """(first day, last day) in UTC, inclusive; one day while the range is being picked."""
    text: str = ""
    """Words in the goal or the run id (case-insensitive, taken literally)."""
    checks: tuple[str, ...] = ()
    """Answer-check verdicts (:data:`GROUNDING_STATUSES`, or :data:`NOT_CHECKED`)."""
    run_ids: tuple[str, ...] | None = None
    """Only these runs (one eval's); None: no such limit."""
    include_demos: bool = True
    """False leaves out scripted demo runs."""
    sources: tuple[str, ...] = ()
    """Where the runs came from (:data:`agent_core.records.sources.SOURCES`); empty: every run."""
    origins: tuple[str, ...] = ()
    """Tool stats only: the calls chosen by these (:data:`ORIGIN_CHOICES`); empty: every call."""
    min_cost_usd: float | None = None
    """Runs that cost more than this (USD); a run of unknown cost does not pass. None: no limit."""
    min_retries: int | None = None
    """Runs with more retries than this (model and tool attempts beyond the first). None: no limit."""
    labels: tuple[str, ...] = ()
    """People's verdicts (:data:`agent_core.records.labels.LABEL_CHOICES`: ``pass``, ``fail``, and
    ``""`` for runs nobody labelled); empty: every run."""

    def by_runs(self) -> bool:
        """Whether it filters by something only the run table knows (not the tool-call table)."""
        return bool(
            self.statuses
            or self.users
            or self.text.strip()
            or self.checks
            or self.run_ids is not None
            or self.min_cost_usd is not None
            or self.min_retries is not None
            or self.labels
            or self.sources
        )


@dataclass(frozen=True)
class Choices:
    """What the filters offer: the values present, sorted, and the first and last day."""

    saved: int
    providers: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    users: list[str] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)
    sources: dict[str, int] = field(default_factory=dict)
    """How many saved runs came from each source (History says how many its Source filter hides)."""
    first_day: date | None = None
    last_day: date | None = None

    def day_span(self) -> pd.Series:
        """The first and last day as a timestamp column (what the date widget spans)."""
        days = [d for d in (self.first_day, self.last_day) if d is not None]
        return pd.Series(pd.to_datetime(days, utc=True), dtype="datetime64[us, UTC]")


@dataclass(frozen=True)
class HistoryPage:
    """One page of History's table."""

    rows: pd.DataFrame
    """The runs of the page, in order (columns: :data:`agent_core.records.store.RUN_COLUMNS`)."""
    matching: int
    """Runs that pass the filter (all pages)."""
    saved: int
    """Runs in the store."""


class RunQueries(Protocol):
    """The questions History, Tool stats and the ``runs`` command ask of a store."""

    def version(self) -> Any:
        """Changes whenever the store's runs change: a cache key for derived tables."""
        ...

    def choices(self) -> Choices:
        """History's filter choices (from the run table)."""
        ...

    def call_choices(self) -> Choices:
        """Tool stats' filter choices (from the tool-call table: providers, models, days)."""
        ...

    def page(
        self, where: RunFilter, *, order: tuple[str, bool] = NEWEST, page: int = 1, size: int = 500
    ) -> HistoryPage:
        """Page ``page`` (from 1) of the runs passing ``where``, ordered by ``order``."""
        ...

    def rows(self, run_ids: Sequence[str]) -> pd.DataFrame:
        """The run-table rows of ``run_ids`` (any order; unknown ids are left out)."""
        ...

    def load(self, run_id: str) -> dict[str, Any]:
        """The full record of one run (``status_shown`` added); RecordError when missing."""
        ...

    def tool_stats(self, where: RunFilter) -> dict[str, Any] | None:
        """The Tool-stats page's numbers for the calls of the runs passing ``where`` (providers,
        models, days, include_demos, labels, sources) that ``where.origins`` chose; None when no call matches. See
        :func:`tool_stats_tables`."""
        ...

    def grounding_rates(self, where: RunFilter) -> pd.DataFrame:
        """:func:`agent_core.records.answer_check_stats.ungrounded_rates` of the runs passing ``where``."""
        ...

    def coverage(self, where: RunFilter) -> dict[str, Any]:
        """Tool stats → Coverage of the runs passing ``where``: ``table``
        (:func:`agent_core.records.coverage.coverage_table`), ``matrix`` (validation failures per tool and
        model), ``never`` (tools offered, never chosen), ``harness_only`` (tools only the workbench
        called, never the model) and ``runs`` (how many runs)."""
        ...


# -- shared pieces --------------------------------------------------------------------------------
def check_order(order: tuple[str, bool]) -> tuple[str, bool]:
    """``order`` if its column is one of :data:`SORTABLE`; ValueError otherwise."""
    column, ascending = order
    if column not in SORTABLE:
        raise ValueError(f"cannot order runs by {column!r}: one of {', '.join(SORTABLE)}")
    return column, bool(ascending)


def page_bounds(page: int, size: int, matching: int) -> tuple[int, int]:
    """(offset, limit) of page ``page`` (from 1; past the end: the last page)."""
    size = max(1, int(size))
    pages = max(1, -(-matching // size))
    page = min(max(1, int(page)), pages)
    return (page - 1) * size, size


def tool_stats_tables(calls: pd.DataFrame) -> dict[str, Any] | None:
    """The Tool-stats page's numbers from a tool-call table (already filtered): ``total``
    (:func:`agent_core.records.stats.summary`), ``by_model`` and ``by_harness`` (calls the model
    chose, calls the workbench made for it), ``retried``, ``fallbacks``, ``duplicates`` and the
    :func:`agent_core.records.stats.tool_stats` tables ``tool``, ``provider_model`` and
    ``provider_model_tool``; None when there is no call."""
    if calls.empty:
        return None
    origin = calls["origin"]
    return {
        "total": stats.summary(calls),
        **{name: int(origin.eq(value).sum()) for name, value in stats.ORIGIN_COLUMNS.items()},
        "retried": int(calls["retried"].sum()),
        "fallbacks": int(calls["fallback"].notna().sum()),
        "duplicates": int(calls["duplicate"].sum()),
        "tool": stats.tool_stats(calls, by=["tool"]),
        "provider_model": stats.tool_stats(calls, by=["provider", "model"]),
        "provider_model_tool": stats.tool_stats(calls, by=["provider", "model", "tool"]),
    }


def _present(column: pd.Series) -> list[str]:
    return sorted(str(v) for v in column.dropna().unique())


# -- the folder -----------------------------------------------------------------------------------
class FolderQueries:
    """:class:`RunQueries` over a folder store's tables (the pandas code the pages always ran);
    people's labels from ``labels`` (default: the journal beside the runs folder)."""

    def __init__(self, store: Any, labels: FolderLabels | None = None) -> None:
        self.store = store
        self.labels = labels if labels is not None else FolderLabels.beside(store.runs_dir)

    def version(self) -> Any:
        return (str(self.store.runs_dir), self.store.version, self.labels.version())

    def choices(self) -> Choices:
        runs = self.store.runs()
        first, last = date_bounds(runs["started_at"]) if len(runs) else (None, None)
        grounding = runs["grounding"].astype("object")
        checks = {g if g in GROUNDING_STATUSES else NOT_CHECKED for g in grounding}
        return Choices(
            saved=len(runs),
            providers=_present(runs["provider"]),
            models=_present(runs["model"]),
            statuses=_present(runs["status"]),
            users=_present(runs["user"]),
            checks=[c for c in (*GROUNDING_STATUSES, NOT_CHECKED) if c in checks],
            sources={str(k): int(v) for k, v in runs["source"].fillna("own").value_counts().items()},
            first_day=first,
            last_day=last,
        )

    def call_choices(self) -> Choices:
        calls = self.store.tool_calls()
        first, last = date_bounds(calls["run_started_at"]) if len(calls) else (None, None)
        return Choices(
            saved=len(self.store.runs()),
            providers=_present(calls["provider"]),
            models=_present(calls["model"]),
            first_day=first,
            last_day=last,
        )

    def filtered(self, where: RunFilter) -> pd.DataFrame:
        """The run-table rows passing ``where``, newest first."""
        return filter_runs(
            self.store.runs(),
            providers=where.providers,
            models=where.models,
            statuses=where.statuses,
            users=where.users,
            days=where.days,
            text=where.text,
            checks=where.checks,
            run_ids=where.run_ids,
            include_demos=where.include_demos,
            sources=where.sources,
            min_cost_usd=where.min_cost_usd,
            min_retries=where.min_retries,
            labels=where.labels,
            verdicts={label.run_id: label.verdict for label in self.labels.all()} if where.labels else None,
        )

    def page(
        self, where: RunFilter, *, order: tuple[str, bool] = NEWEST, page: int = 1, size: int = 500
    ) -> HistoryPage:
        column, ascending = check_order(order)
        view = self.filtered(where)
        if (column, ascending) != NEWEST:  # the store's table is already newest first
            view = view.sort_values(column, ascending=ascending, na_position="last", kind="stable")
        start, limit = page_bounds(page, size, len(view))
        rows = view.iloc[start : start + limit].reset_index(drop=True)
        return HistoryPage(rows, len(view), len(self.store.runs()))

    def rows(self, run_ids: Sequence[str]) -> pd.DataFrame:
        runs = self.store.runs()
        return runs[runs["run_id"].isin(list(run_ids))].reset_index(drop=True)

    def load(self, run_id: str) -> dict[str, Any]:
        record: dict[str, Any] = self.store.load(run_id)
        return record

    def tool_stats(self, where: RunFilter) -> dict[str, Any] | None:
        run_ids = None
        if not where.include_demos or where.labels or where.sources:
            runs = self.filtered(
                RunFilter(include_demos=where.include_demos, labels=where.labels, sources=where.sources)
            )
            run_ids = runs["run_id"]
        view = filter_calls(
            self.store.tool_calls(),
            providers=where.providers,
            models=where.models,
            days=where.days,
            run_ids=run_ids,
            origins=where.origins,
        )
        return tool_stats_tables(view)

    def grounding_rates(self, where: RunFilter) -> pd.DataFrame:
        return ungrounded_rates(self.filtered(where))

    def coverage(self, where: RunFilter) -> dict[str, Any]:
        view = self.filtered(where)
        offered = offered_from_runs(view)
        calls = self.store.tool_calls()
        calls = calls[calls["run_id"].isin(view["run_id"])]
        table = coverage_table(offered, calls)
        return {
            "table": table,
            "matrix": validation_matrix(table),
            "never": never_chosen(offered, calls),
            "harness_only": harness_only_from_table(table),
            "runs": len(view),
        }


def queries_for(store: Any) -> RunQueries:
    """The :class:`RunQueries` of a store: the store's own (``store.queries()``, the PostgreSQL
    store has one), else the folder's over its tables."""
    own = getattr(store, "queries", None)
    if callable(own):
        found: RunQueries = own()
        return found
    return FolderQueries(store)
