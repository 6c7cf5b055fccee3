"""Filters on the store's run and tool-call tables (pure pandas; the pages add the widgets)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta, timezone

import pandas as pd

GROUNDING_STATUSES = ("grounded", "partly", "ungrounded", "no_claims")
"""The answer check's verdicts (a run's ``grounding``); any other value counts as not checked."""


def date_bounds(column: pd.Series) -> tuple[date, date]:
    """(first day, last day) in a timestamp column, or today twice when empty."""
    values = column.dropna()
    if values.empty:
        today = datetime.now(timezone.utc).date()
        return today, today
    return values.min().date(), values.max().date()


def in_dates(column: pd.Series, days: Iterable[date] | None) -> pd.Series:
    """Mask of rows whose timestamp falls in the inclusive (start, end) day range (UTC)."""
    picked = list(days or [])
    mask = pd.Series(True, index=column.index)
    if not picked:
        return mask
    start = pd.Timestamp(picked[0], tz="UTC")
    end = pd.Timestamp(picked[-1], tz="UTC") + timedelta(days=1)
    return mask & column.ge(start).fillna(False) & column.lt(end).fillna(False)


def filter_runs(
    runs: pd.DataFrame,
    *,
    providers: Iterable[str] = (),
    models: Iterable[str] = (),
    statuses: Iterable[str] = (),
    days: Iterable[date] | None = None,
    text: str = "",
    users: Iterable[str] = (),
    checks: Iterable[str] = (),
    run_ids: Iterable[str] | None = None,
    include_demos: bool = True,
    sources: Iterable[str] = (),
    min_cost_usd: float | None = None,
    min_retries: int | None = None,
    labels: Iterable[str] = (),
    verdicts: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Rows of the store's run table that pass every filter given (empty filter = all).

    ``checks``: answer-check verdicts (``grounding`` values; ``""`` = not checked, any other
    value); ``run_ids``: only those runs; ``include_demos=False`` leaves out scripted runs;
    ``sources``: where the runs came from (:data:`agent_core.records.sources.SOURCES`);
    ``min_cost_usd`` / ``min_retries``: runs that cost more / retried more than that (a run of
    unknown cost never passes a cost filter); ``labels``: people's verdicts (``pass``, ``fail``,
    ``""`` = nobody labelled it), looked up in ``verdicts`` (run id → verdict)."""
    mask = in_dates(runs["started_at"], days)
    for column, wanted in (("provider", providers), ("model", models), ("status", statuses), ("user", users)):
        wanted = list(wanted)
        if wanted:
            mask &= runs[column].isin(wanted)
    text = text.strip()
    if text:
        hay = runs["goal"].fillna("") + " " + runs["run_id"].fillna("")
        mask &= hay.str.contains(text, case=False, regex=False)
    checks = list(checks)
    if checks:
        grounding = runs["grounding"].astype("object")
        known = grounding.isin(GROUNDING_STATUSES)
        picked = grounding.isin([c for c in checks if c])
        mask &= (picked & known) | (~known if "" in checks else False)
    if run_ids is not None:
        mask &= runs["run_id"].isin(list(run_ids))
    if not include_demos:
        mask &= ~runs["scripted"].astype(bool)
    sources = list(sources)
    if sources:
        mask &= runs["source"].fillna("own").isin(sources)
    if min_cost_usd is not None:
        mask &= pd.to_numeric(runs["cost_usd"], errors="coerce").gt(min_cost_usd).fillna(False).astype(bool)
    if min_retries is not None:
        mask &= pd.to_numeric(runs["retries"], errors="coerce").fillna(0).gt(min_retries)
    labels = list(labels)
    if labels:
        known = dict(verdicts or {})
        given = pd.Series([known.get(r, "") for r in runs["run_id"]], index=runs.index, dtype="object")
        mask &= given.isin(labels)
    return runs[mask].reset_index(drop=True)


def filter_calls(
    calls: pd.DataFrame,
    *,
    providers: Iterable[str] = (),
    models: Iterable[str] = (),
    days: Iterable[date] | None = None,
    run_ids: Iterable[str] | None = None,
    origins: Iterable[str] = (),
) -> pd.DataFrame:
    """Rows of the store's tool-call table that pass every filter given (``origins``: who chose
    the call, ``model`` or ``harness``, and ``""`` for calls that did not record it)."""
    mask = in_dates(calls["run_started_at"], days)
    for column, wanted in (("provider", providers), ("model", models)):
        wanted = list(wanted)
        if wanted:
            mask &= calls[column].isin(wanted)
    if run_ids is not None:
        mask &= calls["run_id"].isin(list(run_ids))
    origins = list(origins)
    if origins:
        mask &= calls["origin"].fillna("").isin(origins)
    return calls[mask].reset_index(drop=True)
